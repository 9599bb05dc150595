#!/usr/bin/env bash
# The render summary's percentages compare like with like: no share can pass 100%, at MSAA
# (depth counts samples) or when clipped pieces are culled (1e38 coordinates).
set -u
tessera="$1"; assets="$2"; data="$3"; dir="$4"
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
check() {
  local out; out=$("$tessera" render "$@" 2>&1) || fail "render $*: $out"
  echo "$out"
  local pct
  for pct in $(echo "$out" | grep -o '[0-9.]*%' | tr -d '%'); do
    awk -v p="$pct" 'BEGIN { exit !(p <= 100.0) }' || fail "share of $pct% in: $out"
  done
}
check "$assets/default.json" -o "$dir/msaa8.png" --msaa 8 --width 96 --height 54
check "$data/huge_coordinates.json" -o "$dir/huge.png" --width 32 --height 32 | grep -q "4 culled (100.0% of 4 after clipping)" ||
  fail "clipped pieces not counted as 4 of 4"
echo "summary ok"
