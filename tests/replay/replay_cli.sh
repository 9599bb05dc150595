#!/usr/bin/env bash
# `tessera replay` on a written capture (tests/replay/make_capture.cpp): images, statistics,
# per-draw statistics, a batch with one CSV row per frame, threads and tilings agreeing, and
# bad input failing clearly.
#   replay_cli.sh TESSERA MAKE_CAPTURE OUT_DIR
set -u
tessera="$1"; make_capture="$2"; out="$3"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
"$make_capture" "$out/two.tcap" || fail "make_capture failed"

# Frame 0: every image, the stats and the per-draw CSV.
"$tessera" replay "$out/two.tcap" -o "$out/sheet.png" --stats "$out/f0.json" --draws "$out/f0.draws.csv" \
  --depth "$out/depth.png" --draw-id "$out/id.png" --overdraw "$out/od.png" --tile-map "$out/tiles.png" \
  --picb "$out/picb.png" --supertiles "$out/st.png" > "$out/f0.log" 2>&1 || { cat "$out/f0.log"; fail "replay frame 0"; }
for f in sheet.png depth.png id.png od.png tiles.png picb.png st.png f0.json f0.draws.csv; do
  [ -s "$out/$f" ] || fail "missing $out/$f"
done
j="$out/f0.json"
grep -q '"application": "replay-cli-test"' "$j" || fail "capture.application missing"
grep -q '"no_transform_feedback": 1' "$j" || fail "the skipped draw is not counted"
grep -q '"replayed": 2' "$j" || fail "capture.draws.replayed is not 2"
# The analytic depth attachment: coverage agrees exactly, depths exactly.
grep -q '"covered_both": 1536' "$j" || fail "depth agreement: covered_both (32x32 + 32x24 - 16x16 = 1536)"
grep -q '"covered_replay_only": 0' "$j" || fail "depth agreement: replay-only pixels"
grep -q '"covered_capture_only": 0' "$j" || fail "depth agreement: capture-only pixels"
grep -q '"beyond_tolerance": 0' "$j" || fail "depth agreement: depths differ"
grep -q '"covered": 1792' "$j" || fail "raster.fragments.covered (32x32 + 32x24)"
# Per-draw CSV: header + 3 draws; draw 1 skipped with its reason; draw 0 covers 32x32 pixels.
[ "$(wc -l < "$out/f0.draws.csv")" -eq 4 ] || fail "draws CSV should have 4 lines"
grep -q '^1,0,0,no_transform_feedback,' "$out/f0.draws.csv" || fail "draws CSV: skipped draw"
col() { awk -F, -v name="$1" 'NR==1{for(i=1;i<=NF;i++) if($i==name) c=i} NR==1+'"$2"'{if(c) print $c}' "$3"; }
[ "$(col fragments_covered 1 "$out/f0.draws.csv")" = 1024 ] || fail "draws CSV: draw 0 fragments_covered != 1024"
# Clipping and culling columns: nothing clipped or culled; every triangle leaves clipping for setup.
[ "$(col after_clipping 1 "$out/f0.draws.csv")" = 2 ] && [ "$(col culled_facing 1 "$out/f0.draws.csv")" = 0 ] \
  || fail "draws CSV: draw 0 after_clipping/culled_facing"

# Frame 1 (4x): the colour unit on the captured samples.
"$tessera" replay "$out/two.tcap" --frame 1 -o "$out/f1.png" --stats "$out/f1.json" --color-state "$out/f1.cs.png" -q \
  || fail "replay frame 1"
grep -q '"source": "captured_samples"' "$out/f1.json" || fail "frame 1: colour unit not on the captured samples"
[ -s "$out/f1.cs.png" ] || fail "missing colour-state map"

# Batch: both frames, one CSV row each (plus the header), numbered outputs.
"$tessera" replay "$out/two.tcap" --frame all -o "$out/b.png" --stats "$out/b.json" --csv "$out/b.csv" -q \
  || fail "batch"
[ "$(wc -l < "$out/b.csv")" -eq 3 ] || fail "batch CSV should have 3 lines"
for f in b_0000.png b_0001.png b_0000.json b_0001.json; do [ -s "$out/$f" ] || fail "missing $out/$f"; done

# 1 vs 2 threads, fixed vs adaptive tiling: identical images; identical statistics at equal
# tiling but for the thread count and the wall-clock times (compared column by column).
cols() { awk -F, 'NR==1{for(i=1;i<=NF;i++) keep[i]=($i !~ /time_ms|^frame\.threads$/)} {s=""; for(i=1;i<=NF;i++) if(keep[i]) s=s $i ","; print s}' "$1"; }
"$tessera" replay "$out/two.tcap" -o "$out/t1.png" --csv "$out/t1.csv" --threads 1 -q || fail "threads 1"
"$tessera" replay "$out/two.tcap" -o "$out/t2.png" --csv "$out/t2.csv" --threads 2 -q || fail "threads 2"
"$tessera" replay "$out/two.tcap" -o "$out/ta.png" --tiling adaptive -q || fail "adaptive"
cmp "$out/t1.png" "$out/t2.png" || fail "images differ between 1 and 2 threads"
cmp "$out/t1.png" "$out/ta.png" || fail "images differ between fixed and adaptive tiling"
diff <(cols "$out/t1.csv") <(cols "$out/t2.csv") > /dev/null || fail "statistics differ between 1 and 2 threads"

# --set KEY=VALUE as in render (what `tessera sweep` passes for capture inputs).
"$tessera" replay "$out/two.tcap" -o "$out/set.png" --stats "$out/set.json" --set raster.tile_size=16 -q \
  || fail "--set"
grep -q '"tile_size": 16' "$out/set.json" || fail "--set raster.tile_size=16 not applied"
msg=$("$tessera" replay "$out/two.tcap" -o "$out/x.png" --set raster.nosuch=1 2>&1); st=$?
[ $st -eq 1 ] && [[ "$msg" == *"raster.nosuch"* ]] || fail "bad --set: $st $msg"

# Bad input: a missing frame, a truncated file, a file that is not a capture.
msg=$("$tessera" replay "$out/two.tcap" --frame 5 -o "$out/x.png" 2>&1); st=$?
[ $st -eq 1 ] && [[ "$msg" == *"--frame 5 does not exist"* ]] || fail "missing frame: $st $msg"
msg=$("$tessera" replay "$out/two.tcap" --frame x -o "$out/x.png" 2>&1); st=$?
[ $st -eq 1 ] && [[ "$msg" == *"--frame x"* ]] || fail "bad --frame: $st $msg"
head -c 100 "$out/two.tcap" > "$out/cut.tcap"
msg=$("$tessera" replay "$out/cut.tcap" -o "$out/x.png" 2>&1); st=$?
[ $st -eq 1 ] && [[ "$msg" == *"cut.tcap"* ]] || fail "truncated file: $st $msg"
echo "not a capture" > "$out/text.tcap"
msg=$("$tessera" replay "$out/text.tcap" -o "$out/x.png" 2>&1); st=$?
[ $st -eq 1 ] && [[ "$msg" == *"text.tcap"* ]] || fail "text file: $st $msg"

# Hostile captures (valid files, hostile to replay; make_capture --hostile): a clear message
# naming the file and why when nothing can be replayed, otherwise the bad draws skipped or
# culled and counted; never a crash (exit status 0 or 1 only).
mkdir -p "$out/hostile" && "$make_capture" --hostile "$out/hostile" || fail "make_capture --hostile"
h="$out/hostile"
run() { "$tessera" replay "$h/$1.tcap" -o "$h/$1.png" --csv "$h/$1.csv" --draws "$h/$1.draws.csv" -q 2>&1; }
msg=$(run only_skipped); st=$?
[ $st -eq 1 ] && [[ "$msg" == *"only_skipped.tcap: capture frame 0 (frame number 7): no replayable draw in 2 draws"* ]] \
  && [[ "$msg" == *"skipped: no_transform_feedback 1, overflow 1"* ]] || fail "only skipped draws: $st $msg"
msg=$(run only_zero_viewport); st=$?
[ $st -eq 1 ] && [[ "$msg" == *"only_zero_viewport.tcap"*"zero_area_viewport 1"* ]] || fail "zero viewports: $st $msg"
stat() { local v; v=$(col "$2" 1 "$h/$1.csv"); echo "${v:-0}"; }  # a statistic of the --csv row; absent = 0
run zero_viewport > /dev/null || fail "zero_viewport: status $?"
[ "$(stat zero_viewport capture.draws.skipped.zero_area_viewport)" = 1 ] && \
  [ "$(stat zero_viewport raster.fragments.covered)" = 256 ] || fail "zero_viewport: skipped draw or the good one's pixels"
run scissor_outside > /dev/null || fail "scissor_outside: status $?"
# Two scissors away from the attachment cull their rectangles; the one reaching far past it is
# clamped to the attachment and draws its 10x10 pixels.
[ "$(stat scissor_outside raster.triangles.culled_scissor)" = 4 ] && \
  [ "$(stat scissor_outside raster.fragments.covered)" = 100 ] || fail "scissor_outside: culled or drawn pixels"
run nonfinite > /dev/null || fail "nonfinite: status $?"
[ "$(stat nonfinite raster.triangles.culled_nonfinite)" = 4 ] && [ "$(stat nonfinite raster.fragments.covered)" = 0 ] \
  || fail "nonfinite: NaN/Inf triangles not dropped"
run absurd > /dev/null || fail "absurd: status $?"
[ "$(stat absurd capture.draws.skipped.viewport_out_of_range)" = 1 ] && \
  [ "$(stat absurd capture.draws.skipped.pass_too_large)" = 1 ] && [ "$(stat absurd capture.draws.replayed)" = 2 ] \
  || fail "absurd: viewport or pass not skipped"
echo ok
