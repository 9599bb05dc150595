#!/usr/bin/env bash
# The viewer on a capture (.tcap) under Xvfb: the scrubber at draw 0 replays only the first
# draw, the frame buffer is the capture's size, and the statistics are the replay's.
#   view_capture.sh XVFB_RUN TESSERA MAKE_CAPTURE OUT_DIR
set -u
xvfb_run="$1"; tessera="$2"; make_capture="$3"; out="$4"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$xvfb_run" ] || fail "xvfb-run not found ($xvfb_run): install xvfb and xauth (tools/setup-deps.sh)"
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
"$make_capture" "$out/two.tcap" || fail "make_capture failed"

"$xvfb_run" -a -s "-screen 0 1280x800x24" "$tessera" view "$out/two.tcap" --draw 0 --overlay draw --frames 2 \
  --screenshot "$out/view.png" --width 800 --height 600 > "$out/view.log" 2>&1
status=$?
cat "$out/view.log"
[ "$status" -eq 0 ] || fail "tessera view exited with status $status"
for f in view.png view.window.png view.stats.json; do [ -s "$out/$f" ] || fail "missing $out/$f"; done
s="$out/view.stats.json"
grep -q '"application": "replay-cli-test"' "$s" || fail "no capture.* statistics"
grep -q '"replayed": 1' "$s" || fail "the scrubber at draw 0 should replay one draw"
grep -q '"beyond_last": 2' "$s" || fail "draws 1 and 2 should be beyond the scrubber"
file "$out/view.png" | grep -q '64 x 48' || fail "the frame buffer is not the capture's 64x48"
echo ok
