// libFuzzer entry point for the glTF loader: any bytes, as .gltf JSON or .glb, loaded from
// memory. A tessera::Error is the expected answer to bad input; anything else (a crash, a
// sanitizer report, another exception, a runaway allocation past the memory limit) is a bug.
// Seeds: the files the scene unit's tests write (renderer/scene/gltf_test_writer.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/error.h"
#include "tessera/gltf.h"
#include "tessera/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Keep the budget small so a file declaring huge counts fails fast instead of allocating.
  static const bool limited = [] {
    tessera::set_memory_limit(uint64_t(256) << 20);
    return true;
  }();
  (void)limited;
  try {
    // External URIs resolve in an empty folder name: nothing outside the input is read.
    tessera::load_gltf_from_memory(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.glb",
                                   "/nonexistent-fuzz-dir");
  } catch (const tessera::Error&) {
  }
  return 0;
}
