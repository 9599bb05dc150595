#!/usr/bin/env bash
# Resume: a local sweep stopped half way (SIGTERM to the driver, which stops its workers) keeps
# every finished point; the rerun runs only the missing ones and leaves the others untouched.
# A point that fails (an unknown camera) is recorded with its error and does not stop the rest.
#   sweep_resume_test.sh TESSERA ASSETS WORKDIR
set -euo pipefail
tessera="$1"; assets="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/spec.json" <<SPEC
{
  "inputs": [{"scene": "$assets/patches.json"}, {"scene": "$assets/default.json", "cameras": ["nosuchcamera"]}],
  "config": {"frame.width": 64, "frame.height": 36},
  "parameters": {"zip": {"tessellation.gpps": [1, 2, 3, 4, 5, 6, 7, 8], "tessellation.batch_size": [8, 8, 16, 16, 32, 32, 64, 64]}},
  "metrics": ["tessellation.*"],
  "output": "out"
}
SPEC
"$tessera" sweep "$work/spec.json" -j 1 > "$work/first.out" 2>&1 &
driver=$!
results="$work/out/results"
for _ in $(seq 600); do
  [ "$(ls "$results" 2>/dev/null | grep -c '\.json$')" -ge 5 ] && break
  kill -0 "$driver" 2>/dev/null || break
  sleep 0.05
done
kill -TERM "$driver" 2>/dev/null || fail "the sweep finished before it could be stopped"
status=0; wait "$driver" || status=$?
cat "$work/first.out"
[ "$status" -eq 143 ] || fail "stopped sweep exit status $status, expected 143"
grep -q "stopped by signal 15" "$work/first.out" || fail "no stop message"
done_before=$(ls "$results" | grep -c '\.json$')
[ "$done_before" -ge 5 ] && [ "$done_before" -lt 16 ] || fail "$done_before results after the stop"
mkdir -p "$work/kept"; cp -p "$results"/*.json "$work/kept/"
status=0; "$tessera" sweep "$work/spec.json" -j 2 > "$work/second.out" 2>&1 || status=$?
cat "$work/second.out"
grep -q "16 jobs; $done_before done, $((16 - done_before)) to run" "$work/second.out" || fail "rerun should run only the missing jobs"
for f in "$work/kept"/*.json; do cmp -s "$f" "$results/$(basename "$f")" || fail "rerun touched $(basename "$f")"; done
# The bad camera fails its 8 jobs, with the renderer's error; the patch scene's 8 are ok.
[ "$status" -eq 3 ] || fail "a sweep with failed points exits 3, got $status"
csv="$work/out/results.csv"
[ "$(grep -c ',ok,' "$csv")" -eq 8 ] || fail "expected 8 ok rows"
[ "$(grep -c ',failed,' "$csv")" -eq 8 ] || fail "expected 8 failed rows"
grep ',failed,' "$csv" | head -1 | grep -q 'nosuchcamera' || fail "failed rows lack the error: $(grep ',failed,' "$csv" | head -1)"
grep -q "8 ok, 8 failed, 0 not run" "$work/out/index.md" || fail "index summary"
"$tessera" sweep status "$work/out" > "$work/status.out" && fail "status of an incomplete sweep exits 3" || true
grep -q "failed p0000-i01: .*nosuchcamera" "$work/status.out" || { cat "$work/status.out"; fail "status lists failures"; }
# Failed jobs are not run again unless asked.
"$tessera" sweep "$work/spec.json" > "$work/third.out" 2>&1 || true
grep -q "16 done, 0 to run" "$work/third.out" || fail "failed jobs were retried without --retry-failed"
"$tessera" sweep "$work/spec.json" --retry-failed > "$work/fourth.out" 2>&1 || true
grep -q "8 done, 8 to run" "$work/fourth.out" || fail "--retry-failed should run the 8 failed jobs"
# A damaged result (a full disk, a hand edit) counts as not run and is run again.
echo '{"status": "ok", "rows": [{"no metrics": 1}]}' > "$results/p0003-i00.json"
echo '{' > "$results/p0004-i00.json"
st=$("$tessera" sweep status "$work/out" || true)  # exit 3: incomplete
echo "$st" | grep -q "6 ok, 8 failed, 2 not run" || fail "damaged results should count as not run: $st"
"$tessera" sweep "$work/spec.json" > "$work/fifth.out" 2>&1 || true
grep -q "14 done, 2 to run" "$work/fifth.out" || { cat "$work/fifth.out"; fail "damaged results should run again"; }
[ "$(grep -c ',ok,' "$csv")" -eq 8 ] || fail "expected 8 ok rows after the rerun"
echo "resume ok"
