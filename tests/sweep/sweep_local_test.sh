#!/usr/bin/env bash
# End-to-end local sweep (docs/sweep.md): 2 scenes x GPP count {1,4,8} x tiling {fixed,
# adaptive}. Checks the merged CSV (a row per point and input, the parameters really applied,
# the same numbers as a direct `tessera render --set` of a point, the same CSV with 1 and 2
# workers), the plots and the index page.
#   sweep_local_test.sh TESSERA ASSETS WORKDIR
set -euo pipefail
tessera="$1"; assets="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/spec.json" <<SPEC
{
  "name": "e2e",
  "inputs": [{"scene": "$assets/patches.json"}, {"scene": "$assets/default.json", "cameras": ["close", "overview"]}],
  "config": {"frame.width": 96, "frame.height": 54},
  "parameters": {"grid": {"tessellation.gpps": [1, 4, 8], "tiling.mode": ["fixed", "adaptive"]}},
  "metrics": ["frame.width", "geometry.gpp.onchip.gpps", "geometry.gpp.onchip.cycles.*", "tiling.rendered.*",
              "timing.frame.*", "timing.bottleneck.frame", "raster.triangles.in"],
  "plots": ["geometry.gpp.onchip.cycles.makespan", "timing.frame.cycles", "tiling.rendered.render_tiles"]
}
SPEC
"$tessera" sweep "$work/spec.json" --output "$work/two" -j 2 > "$work/two.out" 2>&1 || { cat "$work/two.out"; fail "sweep failed"; }
cat "$work/two.out"
grep -q "6 points x 2 inputs = 12 jobs; 0 done, 12 to run" "$work/two.out" || fail "plan summary"
csv="$work/two/results.csv"
# A row per point and input view: 6 points x (1 + 2 views).
[ "$(wc -l < "$csv")" -eq 19 ] || { cat "$csv"; fail "expected 18 rows"; }
head -1 "$csv" | grep -q '^point,input,view,tessellation.gpps,tiling.mode,status,' || fail "header: $(head -1 "$csv")"
[ "$(grep -c ',ok,' "$csv")" -eq 18 ] || fail "not every row ok"
col() { head -1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
# The parameters really reached the renderer: the patch scene's GPP count is the frame's own.
pg=$(col tessellation.gpps); sg=$(col geometry.gpp.onchip.gpps)
[ -n "$sg" ] || fail "no geometry.gpp.onchip.gpps column"
[ "$(awk -F, -v a="$pg" -v b="$sg" 'NR > 1 && $2 ~ /patches/ && $a == $b' "$csv" | wc -l)" -eq 6 ] ||
  fail "gpps column != the frame's gpps"
w=$(col frame.width)
awk -F, -v c="$w" 'NR > 1 && $c != 96 { bad = 1 } END { exit bad }' "$csv" || fail "config frame.width not applied"
# The tiling mode reached it too: adaptive renders supertiles, a different number of render tiles.
rt=$(col tiling.rendered.render_tiles); tm=$(col tiling.mode)
[ "$(awk -F, -v c="$rt" -v m="$tm" 'NR > 1 && $3 == "close" { print $m "=" $c }' "$csv" | sort -u | wc -l)" -eq 2 ] ||
  fail "tiling.mode had no effect on tiling.rendered.render_tiles"
# One point against a direct render with the same settings (its --csv row has the same names).
"$tessera" render "$assets/patches.json" -q -o "$work/direct.png" --csv "$work/direct.csv" --set frame.width=96 \
  --set frame.height=54 --set tessellation.gpps=8 --set tiling.mode=adaptive
for metric in geometry.gpp.onchip.cycles.makespan timing.frame.cycles tiling.rendered.render_tiles; do
  dc=$(head -1 "$work/direct.csv" | tr ',' '\n' | grep -nx "$metric" | cut -d: -f1)
  want=$(sed -n 2p "$work/direct.csv" | cut -d, -f"$dc")
  got=$(awk -F, -v c="$(col "$metric")" '$1 == 5 && $2 ~ /patches/ { print $c }' "$csv")
  # render --csv prints 6 significant digits; the sweep keeps the stats JSON's full precision.
  [ -n "$want" ] && [ -n "$got" ] && awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d * d <= 1e-10 * b * b) }' ||
    fail "point 5 $metric: sweep $got, direct render $want"
done
# Same sweep, one worker: the same numbers (results never depend on workers or threads).
"$tessera" sweep "$work/spec.json" --output "$work/one" -j 1 > /dev/null 2>&1 || fail "one-worker sweep failed"
strip() { awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) drop[i] = ($i == "seconds") }
  { out = ""; for (i = 1; i <= NF; ++i) if (!drop[i]) out = out (out == "" ? "" : ",") $i; print out }' "$1"; }
diff <(strip "$csv") <(strip "$work/one/results.csv") || fail "1 and 2 workers differ"
# Plots: metric vs each parameter, and a heat map per input view (a two-parameter grid).
ls "$work/two/plots"/*.png > /dev/null 2>&1 || { cat "$work/two/index.md"; fail "no plots"; }
ls "$work/two/plots/"*__vs__tessellation_gpps.png > /dev/null || fail "no metric-vs-gpps plot"
ls "$work/two/plots/"*__heat__*.png > /dev/null || fail "no heat map"
for png in "$work/two/plots"/*.png; do
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
  grep -q "(plots/$(basename "$png"))" "$work/two/index.md" || fail "index.md does not show $(basename "$png")"
done
grep -q "12 ok, 0 failed, 0 not run" "$work/two/index.md" || fail "index summary"
# A rerun finds everything done and runs nothing.
"$tessera" sweep "$work/spec.json" --output "$work/two" > "$work/again.out" 2>&1 || fail "rerun failed"
grep -q "12 done, 0 to run" "$work/again.out" || { cat "$work/again.out"; fail "rerun ran jobs again"; }
"$tessera" sweep status "$work/two" | grep -q "12 ok, 0 failed, 0 not run" || fail "status"
echo "local sweep ok"
