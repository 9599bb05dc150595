// The scene reader (docs/scene-format.md) on arbitrary bytes, through a real file as the CLI
// reads it: a Scene or a tessera::Error. Relative paths in the input resolve against a private
// temporary folder, so references to meshes and textures fail cleanly unless absolute.
#include <cstdint>

#include "fuzz_support.h"
#include "tessera/scene.h"

// The memory budget the CLI's --memory-limit sets: generated scenes stay small enough that one
// input takes well under the per-input timeout under ASan, while every budget check still runs.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tessera::set_memory_limit(uint64_t(256) << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = tessera::fuzz::write_input(data, size, "scene.json");
  tessera::fuzz::expect_result_or_error([&] { (void)tessera::load_scene(path); });
  return 0;
}
