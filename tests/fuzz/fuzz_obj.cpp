// The OBJ loader on arbitrary bytes: a Mesh whose indices all name a vertex, or a
// tessera::Error.
#include <cstdint>

#include "fuzz_support.h"
#include "tessera/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = tessera::fuzz::write_input(data, size, "mesh.obj");
  tessera::fuzz::expect_result_or_error([&] {
    const tessera::Mesh mesh = tessera::load_obj(path);
    if (mesh.indices.size() % 3 != 0) tessera::fuzz::finding("OBJ mesh index count is not a multiple of 3");
    for (uint32_t i : mesh.indices) {
      if (i >= mesh.vertices.size()) tessera::fuzz::finding("OBJ mesh index past its vertices");
    }
  });
  return 0;
}
