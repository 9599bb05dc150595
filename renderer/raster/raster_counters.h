// Raster-path counters, declared once. Each tile or chunk counts into its own RasterCounters
// and the frame sums them, so counting never takes a lock.
#pragma once

#include "tessera/counter_set.h"

namespace tessera {

// X(name, stats key, meaning)
// clang-format off
#define TESSERA_RASTER_COUNTERS(X)                                                                  \
  X(vertices_shaded, "raster.vs.invocations", "vertex shader invocations (one per vertex per draw)") \
  X(triangles_in, "raster.triangles.in", "triangles assembled from the index buffers")            \
  X(culled_frustum, "raster.triangles.culled_frustum", "wholly outside one view-frustum plane")    \
  X(culled_backface, "raster.triangles.culled_backface", "facing away from the camera")            \
  X(culled_frontface, "raster.triangles.culled_frontface", "facing the camera, in a draw that culls front faces") \
  X(culled_degenerate, "raster.triangles.culled_degenerate", "zero area after snapping, or no pixel centre in reach") \
  X(culled_scissor, "raster.triangles.culled_scissor", "no pixel in reach inside the draw's scissor and viewport") \
  X(culled_nonfinite, "raster.triangles.culled_nonfinite", "a vertex with NaN or infinite clip coordinates") \
  X(clipped, "raster.triangles.clipped", "needed geometric clipping (near, far or guard band)")     \
  X(clip_output, "raster.triangles.clip_output", "triangles produced by the clipper")              \
  X(setup, "raster.triangles.setup", "triangles set up for rasterization")                         \
  X(bin_entries, "raster.bins.entries", "triangle-tile pairs in the bin lists")                    \
  X(tiles_touched, "raster.bins.tiles_nonempty", "tiles with at least one triangle")               \
  X(blocks_rejected, "raster.blocks.rejected", "8x8 blocks in a triangle's box that no edge test can reach (skipped)") \
  X(blocks_full, "raster.blocks.full", "8x8 blocks wholly inside a triangle (no per-pixel edge tests)")     \
  X(blocks_partial, "raster.blocks.partial", "8x8 blocks partly covered (pixel centres tested)")            \
  X(quads_covered, "raster.quads.covered", "2x2 quads with at least one covered pixel")             \
  X(quads_shaded, "raster.quads.shaded", "quads with at least one pixel passing the depth test")    \
  X(fragments_covered, "raster.fragments.covered", "pixels with at least one covered sample")              \
  X(samples_covered, "raster.samples.covered", "covered samples (equals fragments at 1x MSAA)")    \
  X(depth_passed, "raster.depth.passed", "samples passing the depth test (LESS for scenes)")                    \
  X(depth_failed, "raster.depth.failed", "samples rejected by the depth test")                     \
  X(fs_invocations, "raster.fs.invocations", "fragment shader invocations including helpers")      \
  X(fs_helpers, "raster.fs.helper_invocations", "helper invocations (uncovered quad pixels)")      \
  X(fs_lanes_live, "raster.fs.lanes.live", "EU lanes running a pixel whose result is written")     \
  X(fs_lanes_masked, "raster.fs.lanes.masked", "EU lanes of covered pixels that failed the depth test (masked off)") \
  X(fs_lane_groups, "raster.fs.lane_groups", "16-lane EU issues of the fragment program: a triangle's quads, four per group") \
  X(fs_lanes_empty, "raster.fs.lanes.empty", "lane slots of those groups left without a quad (a triangle's last group)") \
  X(texture_samples, "texture.samples", "filtered texture lookups")                                \
  X(texel_fetches, "texture.texel_fetches", "RGBA8 texels read by the filters")
// clang-format on

TESSERA_DEFINE_COUNTER_IDS(RasterCounterIds, TESSERA_RASTER_COUNTERS);
using RasterCounters = CounterSet<RasterCounterIds>;

}  // namespace tessera
