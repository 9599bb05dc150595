#!/usr/bin/env bash
# The viewer end to end under Xvfb: a scripted screenshot must exit 0, its frame buffer must
# be bit-identical to `tessera render` at the same size and camera, and the window image must
# show the statistics panel drawn over the frame.
#   view_screenshot.sh XVFB_RUN TESSERA WINDOW_CHECK SCENE OUT_DIR
# A missing xvfb-run is a failure, not a skip: the viewer must be tested in CI.
set -u
xvfb_run="$1"; tessera="$2"; window_check="$3"; scene="$4"; out="$5"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$xvfb_run" ] || fail "xvfb-run not found ($xvfb_run): install xvfb and xauth (tools/setup-deps.sh)"
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"

# Window 960x600 at resolution scale 1: the frame buffer is 960x600 (docs/viewer.md).
"$xvfb_run" -a -s "-screen 0 1280x800x24" "$tessera" view "$scene" --frames 5 --screenshot "$out/view.png" \
  --width 960 --height 600 > "$out/view.log" 2>&1
status=$?
cat "$out/view.log"
[ "$status" -eq 0 ] || fail "tessera view exited with status $status"
for f in view.png view.window.png view.stats.json; do [ -s "$out/$f" ] || fail "missing $out/$f"; done
grep -q '"raster"' "$out/view.stats.json" || fail "view.stats.json has no raster statistics"
grep -q '"memory"' "$out/view.stats.json" || fail "view.stats.json has no memory statistics"
# The render worker's rate over the 5 frames, printed at exit (docs/viewer.md, Screenshots).
grep -Eq '^render worker: 5 frames in [0-9.]+ s, [0-9.]+ frames/s, [0-9.]+ ms per frame, busy [0-9.]+%$' "$out/view.log" ||
  fail "no render worker rate for 5 frames in the log"

"$tessera" render "$scene" -o "$out/render.png" --width 960 --height 600 -q || fail "tessera render failed"
cmp "$out/view.png" "$out/render.png" || fail "the viewer's frame buffer differs from tessera render"
echo "ok: frame buffer identical to tessera render"

# The statistics panel: top right, 32% of the window wide (307 px here), 8 px from the edges,
# over the top ~60%.
"$window_check" "$out/view.window.png" "$out/render.png" 960 600 660 16 944 350 40 || fail "window screenshot check"
echo "ok"
