// Patch streams for measuring the GPP array: a uniform one and a very uneven one, shared by
// the cost-model tests and `tessera bench tess`.
#pragma once

#include <vector>

#include "geometry/gpp_array.h"

namespace tessera {

// 64 x 64 quad patches, every edge and inner level `level`, fractional_even spacing.
std::vector<GppPatch> uniform_patch_grid(float level);

// A displacement-mapped terrain of 64 x 64 unit quad patches seen from a camera above one
// corner, with distance-adaptive edge levels (160 / distance to the edge midpoint, so 64 near
// the camera and under 2 at the far corner) and the hull shader's view-cone cull (outer level
// 0 outside a cone of 34 degrees either side of the view direction). Drawn chunk by chunk
// (8 x 8 patches per chunk), as terrain engines do, so consecutive batches have very different
// costs.
std::vector<GppPatch> uneven_terrain_patches();

}  // namespace tessera
