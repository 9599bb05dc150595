// Level-of-detail chains: generating coarser levels of a mesh with meshoptimizer's simplifier
// and the rasterizer's per-object choice of a level by camera distance (docs/scene-format.md).
// The ray tracer's per-ray choice lives in the LOD nodes of tessera/rt.h.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/scene.h"

namespace tessera {

// `count` - 1 coarser levels of `mesh` (level 1, 2, ...), each about half the triangles of the
// previous (meshopt_simplify, falling back to the sloppy simplifier where the topology-keeping
// one cannot reach the target). Deterministic. Unused vertices are dropped; attributes of
// the kept ones are unchanged. Names are "<name>@lod<i>". Throws tessera::Error for count
// outside 2..kMaxLodLevels or an empty mesh.
std::vector<Mesh> simplify_lod_levels(const Mesh& mesh, int count);

// Level chosen for one distance, the LOD node's walk: the first level whose range exceeds
// `distance`; -1 (discard) beyond the last range.
int lod_level_for_distance(const LodGroup& group, float distance);

constexpr uint32_t kLodDiscarded = 0xffffffffu;

// The rasterizer's choice: the mesh an instance draws as seen from `eye` - for an LOD
// instance the level picked by the distance from `eye` to the centre of its finest level's
// world box plus the group bias, kLodDiscarded beyond the last range; a plain instance's mesh.
uint32_t camera_lod_mesh(const Scene& scene, const Instance& instance, const glm::vec3& eye);

}  // namespace tessera
