#!/usr/bin/env bash
# A long fuzzing campaign (docs/fuzzing.md): runs each target in turn for SECONDS, one process
# at a time at the lowest priority, keeping its growing corpus and any findings in WORKDIR.
#   tests/fuzz/campaign.sh FUZZ_BUILD_DIR WORKDIR SECONDS [target...]
# FUZZ_BUILD_DIR holds bin/fuzz_<target> (the ctest test fuzz.build makes <build>/tests/fuzz/clang;
# docs/fuzzing.md shows a by-hand build). Default targets: every one in tests/fuzz/targets.cmake.
# The summary (executions, coverage, findings per target) goes to WORKDIR/summary.txt.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,7p' "$0" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
work=$2
seconds=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(sed -n 's/^tessera_fuzz_target(\([a-z_0-9]*\).*/\1/p' "$here/targets.cmake")
fi
mkdir -p "$work"
for t in "${targets[@]}"; do
  bin=$build/bin/fuzz_$t
  [ -x "$bin" ] || { echo "no $bin" >&2; exit 2; }
  mkdir -p "$work/$t/corpus" "$work/$t/findings"
  # The seed corpus: the committed one plus the shipped inputs its targets.cmake line names.
  seeds=$work/$t/seeds
  rm -rf "$seeds" && mkdir -p "$seeds"
  [ -d "$here/corpus/$t" ] && cp "$here/corpus/$t"/* "$seeds"/ 2>/dev/null || true
  globs=$(sed -n "s/^tessera_fuzz_target($t \"\(.*\)\")/\1/p" "$here/targets.cmake")
  IFS=';' read -ra patterns <<< "$globs"
  for p in "${patterns[@]}"; do
    for f in $root/$p; do [ -f "$f" ] && cp "$f" "$seeds"/; done
  done
  echo "$(date -u +%H:%M:%S) $t: ${seconds}s" >&2
  set +e
  nice -n 19 "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="$work/$t/findings/" "$work/$t/corpus" "$seeds" > "$work/$t/log.txt" 2>&1
  status=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log.txt" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$work/$t/log.txt" | tail -1)
  # slow-unit files are libFuzzer's notes on slow inputs, not findings.
  found=$(ls "$work/$t/findings" | grep -vc "^slow-unit" || true)
  echo "$t: exit $status, ${runs:-?} executions, $cov, $found findings" | tee -a "$work/summary.txt"
done
