// Whole-scene queries shared by every renderer.
#include "tessera/scene.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "tessera/error.h"

namespace tessera {

namespace {

// 0 = not set: the default, computed when first asked.
std::atomic<uint64_t> g_memory_limit{0};

// What the frame pipeline allocates per instance and per instanced vertex and triangle, by the
// sizes of its records: a draw (uniforms, a few hundred bytes), a post-transform vertex (48
// bytes, geometry/clipper.h; every vertex of every draw is shaded) and a triangle setup record
// (168 bytes, raster/triangle_setup.h) plus binning for the half of a closed mesh's triangles
// that face the camera. The ray-tracing path keeps one BVH entry and record per instance,
// below the draw's share. Measured against peak memory of box grids: within 2x, above.
constexpr uint64_t kDrawBytes = 512;
constexpr uint64_t kShadedVertexBytes = 48;
constexpr uint64_t kTriangleSetupBytes = 96;

}  // namespace

uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  // Unknown physical memory: a budget that no plausible scene reaches but a runaway does.
  if (pages <= 0 || page_size <= 0) return uint64_t(8) << 30;
  return uint64_t(pages) * uint64_t(page_size) / 2;
}

uint64_t memory_limit() {
  const uint64_t set = g_memory_limit.load(std::memory_order_relaxed);
  return set ? set : default_memory_limit();
}

void set_memory_limit(uint64_t bytes) { g_memory_limit.store(bytes, std::memory_order_relaxed); }

void add_instances_to_estimate(SceneMemoryEstimate& estimate, const Mesh& mesh, uint64_t count) {
  estimate.stored_bytes += count * sizeof(Instance);
  const uint64_t per_instance =
      kDrawBytes + mesh.vertices.size() * kShadedVertexBytes + mesh.triangle_count() * kTriangleSetupBytes;
  estimate.per_frame_bytes += count * per_instance;
}

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
