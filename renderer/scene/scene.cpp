// Whole-scene queries shared by every renderer.
#include "tessera/scene.h"

#include <algorithm>

#include "tessera/error.h"

namespace tessera {

size_t Scene::triangle_count() const {
  size_t total = 0;
  for (const Instance& inst : instances) {
    TS_CHECK(inst.mesh < meshes.size(), "instance refers to a missing mesh; validate_scene first");
    total += meshes[inst.mesh].triangle_count();
  }
  return total;
}

void compute_bounds(Mesh& mesh) {
  if (mesh.vertices.empty()) {
    mesh.bounds_min = mesh.bounds_max = glm::vec3(0.0f);
    return;
  }
  glm::vec3 lo = mesh.vertices.front().position;
  glm::vec3 hi = lo;
  for (const Vertex& v : mesh.vertices) {
    lo = glm::min(lo, v.position);
    hi = glm::max(hi, v.position);
  }
  mesh.bounds_min = lo;
  mesh.bounds_max = hi;
}

}  // namespace tessera
