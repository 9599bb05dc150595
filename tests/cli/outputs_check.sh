#!/usr/bin/env bash
# Outputs are checked before rendering: a bad --stats, map or image path fails at once with a
# clear error, and the files an earlier run wrote stay byte for byte as they were.
set -u
tessera="$1"; scene="$2"; dir="$3"
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
small=(--width 32 --height 24 -q)
"$tessera" render "$scene" "${small[@]}" -o "$dir/keep.png" --stats "$dir/keep.stats.json" || fail "first render"
png_sum=$(md5sum < "$dir/keep.png"); stats_sum=$(md5sum < "$dir/keep.stats.json")

# expect_refused TEXT args...: status 1, the text in the message, earlier files untouched.
expect_refused() {
  local text="$1"; shift
  local out; out=$("$tessera" render "$scene" "${small[@]}" "$@" 2>&1); local got=$?
  [ "$got" -eq 1 ] || fail "status $got (want 1) for: $*; output: $out"
  case "$out" in *"tessera: error: "*"$text"*) ;; *) fail "output lacks '$text' for: $*; output: $out";; esac
  [ "$(md5sum < "$dir/keep.png")" = "$png_sum" ] || fail "keep.png was replaced by: $*"
  [ "$(md5sum < "$dir/keep.stats.json")" = "$stats_sum" ] || fail "keep.stats.json was replaced by: $*"
}
expect_refused "--stats: folder $dir/missing does not exist" -o "$dir/keep.png" --stats "$dir/missing/s.json"
expect_refused "--picb: folder /proc/tessera does not exist" -o "$dir/keep.png" --picb /proc/tessera/p.png
expect_refused "--color-state: folder $dir/missing does not exist" -o "$dir/keep.png" --msaa 4 --color-state "$dir/missing/c.png"
expect_refused "--csv: folder $dir/missing does not exist" -o "$dir/keep.png" --csv "$dir/missing/s.csv"
expect_refused "--stats: is a folder" -o "$dir/keep.png" --stats "$dir"
expect_refused "-o: folder $dir/missing does not exist" -o "$dir/missing/x.png" --stats "$dir/keep.stats.json"
# Images are PNG whatever the name says: other extensions are refused, not silently mislabelled.
expect_refused "-o: Tessera writes PNG images only" -o "$dir/frame.jpg"
expect_refused "--picb: Tessera writes PNG images only" -o "$dir/keep.png" --picb "$dir/picb.bmp"
# Two outputs in one file would overwrite each other.
expect_refused "--stats: is also the -o output" -o "$dir/keep.png" --stats "$dir/keep.png"
cp "$scene" "$dir/scene.json"
out=$("$tessera" render "$dir/scene.json" "${small[@]}" -o "$dir/x.png" --stats "$dir/scene.json" 2>&1)
[ $? -eq 1 ] && case "$out" in *"--stats: is also the scene input"*) ;; *) false;; esac || fail "the scene could be replaced: $out"
cmp -s "$scene" "$dir/scene.json" || fail "the scene file was overwritten"
expect_refused "--supertiles: is also the --picb output" -o "$dir/x.png" --picb "$dir/m.png" --supertiles "$dir/./m.png"
# A folder without write permission (root may write anywhere, so only checked for others).
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p "$dir/readonly"; chmod 555 "$dir/readonly"
  expect_refused "--stats: folder $dir/readonly is not writable" -o "$dir/keep.png" --stats "$dir/readonly/s.json"
  chmod 755 "$dir/readonly"
fi
# No temporaries left behind, and a good run still writes every output.
leftovers=$(find "$dir" -name '*.tmp*')
[ -z "$leftovers" ] || fail "temporary files left: $leftovers"
"$tessera" render "$scene" "${small[@]}" -o "$dir/keep.png" --stats "$dir/keep.stats.json" --csv "$dir/s.csv" || fail "good render"
test -s "$dir/s.csv" || fail "no csv"
echo "outputs ok"
