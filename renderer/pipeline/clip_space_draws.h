// The draw list of a clip-space frame (tessera/clip_space.h), the entry at the primitive
// stage: the frame checked, strips and fans unrolled into triangle lists in Vulkan's vertex
// order, each draw's viewport, scissor, culling and guard band, and the post-vertex array
// (positions with the colour varyings the fragment program interpolates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "geometry/clipper.h"
#include "pipeline/primitive_stage.h"
#include "tessera/clip_space.h"

namespace tessera {

struct ClipSpaceDrawList {
  std::vector<ClipVertex> vertices;                 // every draw's vertices, draw after draw
  std::vector<std::vector<uint32_t>> triangles_of;  // per input draw: its triangle list
  std::vector<PrimitiveDraw> draws;                 // the draws with triangles, pointing into triangles_of
  std::vector<DepthState> depth;                    // per entry of `draws`
  std::vector<BlendMode> blend;                     // per entry of `draws`
  size_t triangles = 0;
  size_t indices = 0;  // index-buffer entries read (memory accounting)

  ClipSpaceDrawList() = default;
  ClipSpaceDrawList(const ClipSpaceDrawList&) = delete;  // `draws` point into `triangles_of`
  ClipSpaceDrawList& operator=(const ClipSpaceDrawList&) = delete;
};

// Throws tessera::Error naming the draw for a malformed frame: size, sample counts, varyings,
// a non-finite viewport or a depth range outside [0, 1], an index past the draw's vertices.
void build_clip_space_draws(const ClipSpaceFrame& frame, float guard_band_pixels, ClipSpaceDrawList& list);

}  // namespace tessera
