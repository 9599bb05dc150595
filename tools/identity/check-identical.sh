#!/usr/bin/env bash
# Compares the frames of two builds bit for bit: every shipped scene in every frame mode
# (raster 1x/2x/4x/8x, adaptive tiling, rt, hybrid, GPP map), colour, depth, samples,
# overlay buffers and every statistic but wall-clock times (tools/identity/frame_dump.cpp).
#   tools/identity/check-identical.sh BASE NEW [scene-filter]
# BASE and NEW are build folders (holding bin/tessera_frame_dump) or folders a previous
# frame_dump run wrote. Build the base at the commit before a change (git worktree add ../base
# REF; cmake ... there), then run this from the source tree. Exit 0 when every file of every
# case is identical.
set -euo pipefail
base=$1; new=$2; filter=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dump() {  # dump BUILD_OR_DUMP NAME
  if [ -x "$1/bin/tessera_frame_dump" ]; then
    "$1/bin/tessera_frame_dump" "$root/assets" "$work/$2" $filter >/dev/null
  else
    ln -s "$(cd "$1" && pwd)" "$work/$2"
  fi
}
dump "$base" base
dump "$new" new
# A filter that matches no scene writes no dump: say so rather than report "identical".
for side in base new; do
  if [ ! -d "$work/$side/" ] || [ -z "$(ls -A "$work/$side/")" ]; then
    echo "check-identical: no cases in the $side dump (scene filter '${filter}' matches no scene?)" >&2
    exit 2
  fi
done
# Every file must match, except that a statistics file may gain keys (a new counter): those
# are listed, not counted as differences.
status=0
added=""
while read -r line; do
  case "$line" in
    Files*differ)
      a=$(echo "$line" | awk '{print $2}'); b=$(echo "$line" | awk '{print $4}')
      if [ "$(basename "$a")" = stats.txt ] && ! diff "$a" "$b" | grep -q '^<'; then
        added=$(diff "$a" "$b" | grep '^>' | sed 's/^> //; s/ = .*//' | sort -u; echo "$added")
      else
        echo "$line"; [ "$(basename "$a")" = stats.txt ] && diff "$a" "$b" | head -20
        status=1
      fi ;;
    *) echo "$line"; status=1 ;;
  esac
done < <(diff -rq "$work/base/" "$work/new/" || true)
[ -n "$added" ] && echo "statistics added: $(echo "$added" | sort -u | grep . | tr '\n' ' ')"
[ $status -eq 0 ] && echo "identical: $(ls "$work/base" | wc -l) cases"
exit $status
