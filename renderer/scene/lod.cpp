// LOD chains: simplified levels and the per-object camera-distance choice (tessera/lod.h).
#include "tessera/lod.h"

#include <meshoptimizer.h>

#include <algorithm>
#include <string>

#include "tessera/error.h"

namespace tessera {

namespace {

// Keeps the vertices the indices use, in first-use order (deterministic, compact).
Mesh compact(const Mesh& source, const std::vector<uint32_t>& indices, std::string name) {
  Mesh out;
  out.name = std::move(name);
  std::vector<uint32_t> remap(source.vertices.size(), 0xffffffffu);
  out.indices.reserve(indices.size());
  for (uint32_t i : indices) {
    if (remap[i] == 0xffffffffu) {
      remap[i] = uint32_t(out.vertices.size());
      out.vertices.push_back(source.vertices[i]);
    }
    out.indices.push_back(remap[i]);
  }
  compute_bounds(out);
  return out;
}

}  // namespace

std::vector<Mesh> simplify_lod_levels(const Mesh& mesh, int count) {
  if (count < 2 || count > kMaxLodLevels)
    throw Error("lod: " + std::to_string(count) + " levels requested, expected 2.." + std::to_string(kMaxLodLevels));
  if (mesh.indices.size() < 3 || mesh.indices.size() % 3 != 0)
    throw Error("lod: mesh \"" + mesh.name + "\" has no triangles to simplify");
  std::vector<Mesh> levels;
  std::vector<uint32_t> current = mesh.indices;
  const float* positions = &mesh.vertices[0].position.x;
  for (int level = 1; level < count; ++level) {
    // Half the triangles of the previous level (at least one).
    const size_t target = std::max<size_t>(3, current.size() / 6 * 3);
    std::vector<uint32_t> next(current.size());
    // The target count decides; the error bound (relative to the mesh extent) is loose so
    // that it does not stop the simplifier first.
    size_t n = meshopt_simplify(next.data(), current.data(), current.size(), positions, mesh.vertices.size(),
                                sizeof(Vertex), target, 1.0f, 0, nullptr);
    if (n > target + target / 2) {
      // Topology (borders, seams) kept the simplifier above 3/4 of the previous level.
      n = meshopt_simplifySloppy(next.data(), current.data(), current.size(), positions, mesh.vertices.size(),
                                 sizeof(Vertex), target, 1.0f, nullptr);
    }
    if (n == 0) {  // collapsed entirely: keep one triangle so the level still has a surface
      n = 3;
      std::copy_n(current.begin(), n, next.begin());
    }
    next.resize(n);
    current = next;
    levels.push_back(compact(mesh, current, mesh.name + "@lod" + std::to_string(level)));
  }
  return levels;
}

int lod_level_for_distance(const LodGroup& group, float distance) {
  const size_t n = std::min(group.levels.size(), group.ranges.size());
  for (size_t i = 0; i < n; ++i)
    if (distance < group.ranges[i]) return int(i);
  return -1;
}

uint32_t camera_lod_mesh(const Scene& scene, const Instance& instance, const glm::vec3& eye) {
  if (instance.lod_group < 0) return instance.mesh;
  if (size_t(instance.lod_group) >= scene.lod_groups.size()) throw Error("lod: instance refers to a missing LOD group");
  const LodGroup& group = scene.lod_groups[size_t(instance.lod_group)];
  if (group.levels.empty()) return kLodDiscarded;
  const Mesh& finest = scene.meshes.at(group.levels[0]);
  const glm::vec3 centre = glm::vec3(instance.transform * glm::vec4(0.5f * (finest.bounds_min + finest.bounds_max), 1.0f));
  const int level = lod_level_for_distance(group, glm::length(centre - eye) + group.bias);
  return level < 0 ? kLodDiscarded : group.levels[size_t(level)];
}

}  // namespace tessera
