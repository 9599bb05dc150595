#!/usr/bin/env bash
# Batch capture: N orbit frames give N PNGs and N stats files; a failing run leaves earlier
# files intact.
set -eu
tessera="$1"; scene="$2"; dir="$3"
rm -rf "$dir"; mkdir -p "$dir"
"$tessera" render "$scene" --orbit 3 --width 64 --height 48 -o "$dir/frame.png" --stats "$dir/frame.stats.json" --csv "$dir/series.csv" -q
for i in 0000 0001 0002; do
  test -s "$dir/frame_$i.png" || { echo "missing $dir/frame_$i.png"; exit 1; }
  grep -q '"raster"' "$dir/frame_$i.stats.json" || { echo "bad stats $i"; exit 1; }
done
test ! -e "$dir/frame_0003.png" || { echo "one frame too many"; exit 1; }
# The series has a header and one row per frame, with the frame index column counting up.
[ "$(wc -l < "$dir/series.csv")" -eq 4 ] || { echo "series.csv should have 4 lines"; cat "$dir/series.csv"; exit 1; }
head -1 "$dir/series.csv" | grep -q 'raster.triangles.in' || { echo "series header lacks raster.triangles.in"; exit 1; }
col=$(head -1 "$dir/series.csv" | tr ',' '\n' | grep -n '^frame.index$' | cut -d: -f1)
[ "$(cut -d, -f"$col" "$dir/series.csv" | tail -3 | tr '\n' ' ')" = "0 1 2 " ] || { echo "frame.index column wrong"; exit 1; }
# The three views differ (the camera really moved).
if cmp -s "$dir/frame_0000.png" "$dir/frame_0001.png"; then echo "orbit frames identical"; exit 1; fi
# A failing render must not destroy what an earlier run wrote.
cp "$dir/frame_0000.png" "$dir/keep.png"
sum=$(md5sum < "$dir/keep.png")
if "$tessera" render "$dir/does-not-exist.json" -o "$dir/keep.png" -q 2>/dev/null; then echo "should have failed"; exit 1; fi
[ "$(md5sum < "$dir/keep.png")" = "$sum" ] || { echo "earlier output was damaged"; exit 1; }
echo "batch ok"
