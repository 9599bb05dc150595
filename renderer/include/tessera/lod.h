// Level-of-detail chains: generating coarser levels of a mesh with meshoptimizer's simplifier
// and the rasterizer's per-object choice of a level by camera distance (docs/scene-format.md).
// The ray tracer's per-ray choice is made at its LOD nodes (tessera/rt.h: LodSettings; docs/rt.md).
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/scene.h"

namespace tessera {

// `count` - 1 coarser levels of `mesh` (level 1, 2, ...), each aiming for `keep` of the
// previous level's triangles (0.5: half; far-field assets often drop faster; 0.01..0.9).
// meshopt_simplify with an error bound of 1% of the mesh's extent: a level stops above its
// target rather than lose the shape. Where attribute seams keep it above 1.5x the target, the
// mesh welded by position is simplified instead, then the sloppy simplifier (same bound).
// Deterministic. Unused vertices are dropped; attributes of the kept ones are unchanged.
// Names are "<name>@lod<i>". Throws tessera::Error for count outside 2..kMaxLodLevels, keep
// outside its range or an empty mesh.
std::vector<Mesh> simplify_lod_levels(const Mesh& mesh, int count, float keep = 0.5f);

// Level chosen for one distance, the LOD node's walk: the first level whose range exceeds
// `distance`; -1 (discard) beyond the last range.
int lod_level_for_distance(const LodGroup& group, float distance);

constexpr uint32_t kLodDiscarded = 0xffffffffu;

// The rasterizer's choice: the mesh an instance draws as seen from `eye` - for an LOD
// instance the level picked by the distance from `eye` to the centre of its finest level's
// world box plus the group bias, kLodDiscarded beyond the last range; a plain instance's mesh.
uint32_t camera_lod_mesh(const Scene& scene, const Instance& instance, const glm::vec3& eye);

}  // namespace tessera
