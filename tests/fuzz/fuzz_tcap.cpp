// libFuzzer entry point for the .tcap reader (docs/capture.md): any bytes must give a Capture or
// a tessera::Error, never a crash, a hang or an allocation the input does not justify. The
// memory budget is lowered so that a small input declaring large (legitimately compressible)
// chunks stays within the fuzzer's RSS limit; the reader enforces it before allocating.
#include <cstddef>
#include <cstdint>
#include <span>

#include "tessera/capture.h"
#include "tessera/error.h"
#include "tessera/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool budget_set = [] {
    tessera::set_memory_limit(uint64_t(256) << 20);
    return true;
  }();
  (void)budget_set;
  try {
    const tessera::capture::Capture c = tessera::capture::read_capture_bytes(std::span<const uint8_t>(data, size), "fuzz.tcap");
    // Touch what was read, so the reader's output is used as a consumer would use it.
    size_t positions = 0;
    for (const auto& frame : c.frames) {
      for (const auto& draw : frame.draws) positions += draw.positions.size();
    }
    if (positions % 3 != 0) __builtin_trap();  // the reader guarantees whole triangles
  } catch (const tessera::Error&) {
  }
  return 0;
}
