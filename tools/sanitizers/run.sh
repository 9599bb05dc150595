#!/usr/bin/env bash
# The sanitizer run (docs/fuzzing.md, "Sanitizers"; the second step of .ci/run): builds the
# unit, integration and layer tests with AddressSanitizer + UndefinedBehaviorSanitizer in their
# own build folder (default build-asan) at -O1, and runs them. Sanitizer flags reach only this
# folder: TESSERA_SANITIZE is empty in every other build.
#   tools/sanitizers/run.sh [BUILD_DIR] [extra ctest arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-asan}
shift $(($# > 0 ? 1 : 0))
cd "$root"
start=$(date +%s)
# -O1: the sanitized tests run about as fast as at -O2 and it compiles faster (docs/fuzzing.md).
cmake -S . -B "$build" -G Ninja -DTESSERA_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
  -DTESSERA_FUZZ_TESTS=OFF
cmake --build "$build" --target tessera_sanitizer_tests
built=$(date +%s)

supp=$root/tools/sanitizers
# Every report fails its test: ASan and UBSan stop the program (the build adds
# -fno-sanitize-recover), LSan exits non-zero at exit. Leaks inside lavapipe, LLVM and the
# Vulkan loader are suppressed (lsan.supp); uninstrumented host programs (vkcube) get the ASan
# runtime preloaded by their tests (tests/layer/CMakeLists.txt).
export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# layer.installed (`cmake --install`) and layer.bench_suite (`tessera bench layer`) need the CLI and
# viewer built: the whole project, not what the sanitizer run builds.
# The viewer's unit tests (not built here: docs/fuzzing.md) and tests that drive the `tessera` CLI
# (sweeps, replay of a layer capture (replay.gpu_agreement_*, layer.capture_*_replay), the install
# and bench checks) need the whole project, which this run does not build.
skip='^(layer\.(installed|bench_suite|capture_msaa_replay|capture_vk10_replay|capture_load_replay_cli)|sweep\..*|replay\.(gpu_agreement_.*|bench_capture)|tessera_viewer_tests_NOT_BUILT)$'
status=0
ctest --test-dir "$build" -L 'unit|integration' -LE layer -E "$skip" --output-on-failure -j2 "$@" || status=1
# The Vulkan programs of the layer tests: ASan and UBSan as everywhere, leak detection off. Their
# only leaks (240 bytes in 3 blocks per run) are allocated by a module the Vulkan loader has
# already unloaded at exit (lavapipe or the validation layer), which LSan can neither name nor
# match against lsan.supp (docs/fuzzing.md, "Sanitizers").
ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} \
  ctest --test-dir "$build" -L layer -E "$skip" --output-on-failure -j2 "$@" || status=1
end=$(date +%s)
echo "sanitizer run: build $(((built - start) / 60)) min $(((built - start) % 60)) s, tests $(((end - built) / 60)) min $(((end - built) % 60)) s"
exit $status
