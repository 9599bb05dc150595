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
  "metrics": ["frame.width", "tessellation.gpps", "tessellation.onchip.*", "tiling.rendered.*", "raster.triangles.in"],
  "plots": ["tessellation.onchip.*cycles*", "tiling.rendered.*"]
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
# The parameter really reached the renderer: its column equals the frame's own statistic.
pg=$(col tessellation.gpps | head -1); sg=$(col tessellation.gpps | tail -1)
[ "$pg" != "$sg" ] || fail "no tessellation.gpps metric column"
awk -F, -v a="$pg" -v b="$sg" 'NR > 1 && $a != $b { bad = 1 } END { exit bad }' "$csv" || fail "gpps column != the frame's gpps"
w=$(col frame.width)
awk -F, -v c="$w" 'NR > 1 && $c != 96 { bad = 1 } END { exit bad }' "$csv" || fail "config frame.width not applied"
# One point checked against a direct render with the same settings.
"$tessera" render "$assets/patches.json" -q -o "$work/direct.png" --stats "$work/direct.json" --set frame.width=96 \
  --set frame.height=54 --set tessellation.gpps=8 --set tiling.mode=adaptive
m=$(col tessellation.onchip.cycles)
[ -n "$m" ] || fail "no tessellation.onchip.cycles column"
want=$(sed -n 's/.*"onchip": *{[^}]*"cycles": *\([0-9]*\).*/\1/p' <(tr -d '\n ' < "$work/direct.json") | head -1)
got=$(awk -F, -v c="$m" '$1 == 5 && $2 ~ /patches/ { print $c }' "$csv")
[ -n "$want" ] && [ "$want" = "$got" ] || fail "point 5 onchip cycles $got, direct render $want"
# The adaptive points render supertiles: the column differs between fixed and adaptive.
t=$(col tiling.rendered.units)
if [ -n "$t" ]; then
  [ "$(awk -F, -v c="$t" 'NR > 1 && $2 ~ /default/ { print $5 "=" $c }' "$csv" | sort -u | wc -l)" -gt 2 ] ||
    fail "tiling.mode had no effect on tiling.rendered.units"
fi
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
