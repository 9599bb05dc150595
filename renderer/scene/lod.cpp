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

// The most a level may move the surface, relative to the mesh's extent (meshopt's error): a
// level stops above its target count rather than lose the shape (meshopt 0.18 reaches any
// count by wrecking it: 0.5-0.7 on a UV sphere's coarse levels, where a good level is < 0.01).
constexpr float kMaxLevelError = 0.01f;

}  // namespace

std::vector<Mesh> simplify_lod_levels(const Mesh& mesh, int count, float keep) {
  if (count < 2 || count > kMaxLodLevels)
    throw Error("lod: " + std::to_string(count) + " levels requested, expected 2.." + std::to_string(kMaxLodLevels));
  if (!(keep >= 0.01f && keep <= 0.9f))
    throw Error("lod: a level keeps " + std::to_string(keep) +
                " of the previous level's triangles, expected 0.01..0.9");
  if (mesh.indices.size() < 3 || mesh.indices.size() % 3 != 0)
    throw Error("lod: mesh \"" + mesh.name + "\" has no triangles to simplify");
  std::vector<Mesh> levels;
  std::vector<uint32_t> current = mesh.indices;
  const float* positions = &mesh.vertices[0].position.x;
  // Vertices split only by attributes (UV seams, pole fans) pin the simplifier's collapses
  // long before coarse targets. The same mesh welded by position is the fallback (attributes
  // of the first vertex at a position win there).
  // (meshopt takes whole triangles: the identity list is padded to a multiple of 3.)
  const size_t padded = (mesh.vertices.size() + 2) / 3 * 3;
  std::vector<uint32_t> identity(padded), weld(padded);
  for (size_t v = 0; v < padded; ++v) identity[v] = uint32_t(std::min(v, mesh.vertices.size() - 1));
  meshopt_generateShadowIndexBuffer(weld.data(), identity.data(), padded, positions, mesh.vertices.size(),
                                    sizeof(glm::vec3), sizeof(Vertex));
  const auto attempt = [&](const std::vector<uint32_t>& source, size_t target, bool sloppy,
                           std::vector<uint32_t>& out) {
    out.assign(source.size(), 0);
    float error = 0.0f;
    const size_t n = sloppy
                         ? meshopt_simplifySloppy(out.data(), source.data(), source.size(), positions,
                                                  mesh.vertices.size(), sizeof(Vertex), target, kMaxLevelError, &error)
                         : meshopt_simplify(out.data(), source.data(), source.size(), positions, mesh.vertices.size(),
                                            sizeof(Vertex), target, kMaxLevelError, 0, &error);
    out.resize(error <= kMaxLevelError ? n : 0);
    return out.size();
  };
  for (int level = 1; level < count; ++level) {
    // `keep` of the previous level's triangles (at least one), within the error bound.
    const size_t target = std::max<size_t>(3, size_t(double(current.size() / 3) * double(keep)) * 3);
    const size_t good_enough = target + target / 2;
    std::vector<uint32_t> next, candidate;
    size_t n = attempt(current, target, false, next);
    if (n == 0 || n > good_enough) {
      std::vector<uint32_t> welded(current.size());
      for (size_t i = 0; i < current.size(); ++i) welded[i] = weld[current[i]];
      const size_t m = attempt(welded, target, false, candidate);
      if (m > 0 && (n == 0 || m < n)) {
        next.swap(candidate);
        n = m;
      }
    }
    if (n == 0 || n > good_enough) {
      // Borders (open meshes) can keep both above the target: the sloppy simplifier, if it
      // stays within the bound.
      const size_t m = attempt(current, target, true, candidate);
      if (m > 0 && (n == 0 || m < n)) {
        next.swap(candidate);
        n = m;
      }
    }
    if (n == 0) next = current;  // nothing within the bound: the level repeats the previous one
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
  const glm::vec3 centre =
      glm::vec3(instance.transform * glm::vec4(0.5f * (finest.bounds_min + finest.bounds_max), 1.0f));
  const int level = lod_level_for_distance(group, glm::length(centre - eye) + group.bias);
  return level < 0 ? kLodDiscarded : group.levels[size_t(level)];
}

}  // namespace tessera
