// The primitive stage: parallel over fixed chunks of 8192 triangles in submission order, each
// triangle is assembled from its draw's indices and post-vertex-shading vertices, dropped when
// non-finite or wholly outside the frustum, clipped only when a vertex is outside the near/far
// planes or the guard band, set up (facing, snapping, pixel bounds) and binned into the
// chunk's per-tile lists. Draws carry their own culling, viewport and scissor, so scene draws
// and captured Vulkan draws take the same path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/uninitialized.h"
#include "geometry/clipper.h"
#include "raster/raster_counters.h"
#include "raster/triangle_setup.h"
#include "tessera/clip_space.h"
#include "tiling/fixed_tiling.h"

namespace tessera {

// Consecutive primitives binned together; fixed, so chunking never depends on threads.
constexpr size_t kChunkTriangles = 8192;

struct PrimitiveDraw {
  const uint32_t* indices = nullptr;  // triangle list, 3 per triangle, relative to vertex_base
  size_t triangle_count = 0;
  size_t vertex_base = 0;    // first vertex of the draw in the post-vertex array
  size_t triangle_base = 0;  // first triangle of the draw in frame order
  CullMode cull = CullMode::back;
  FrontFace front_face = FrontFace::counter_clockwise;
  Viewport viewport;  // transform and pixel bounds
  GuardBand guard;
};

struct PrimitiveStageInput {
  const std::vector<PrimitiveDraw>* draws = nullptr;  // triangle_base prefix-summed
  const ClipVertex* vertices = nullptr;
  size_t vertex_count = 0;      // vertices in `vertices` (0: not given; tested per triangle corner)
  size_t triangles = 0;         // over all draws
  int varyings = 0;             // varyings per vertex that setup copies
  TileGrid grid;                // the bin grid
  SampleExtent samples;         // sample reach in a pixel (binning and setup bounds)
  bool record_sources = false;  // per set-up triangle, its source primitive (tiling accounting)
  // With record_sources, a second grid (a fixed frame's atomic tiles) that each chunk is also
  // binned on while its set-up triangles are still in cache, for the tiling accounting.
  const TileGrid* atomic = nullptr;
  bool per_draw = false;  // per-draw counters (DrawRun), for per-draw diagnostics
};

// The counters of one draw's primitives within one chunk (a chunk holds runs of draws).
struct DrawRun {
  uint32_t draw = 0;
  RasterCounters counters;
};

struct PrimitiveStageOutput {
  std::vector<BinChunk> chunks;
  std::vector<RasterCounters> counters;         // per chunk
  std::vector<std::vector<uint32_t>> sources;   // with record_sources: per chunk, per set-up triangle
  std::vector<BinChunk> atomic;                 // with `atomic`: per chunk, lists only (no setups)
  std::vector<std::vector<DrawRun>> draw_runs;  // with per_draw: per chunk, its draws in order
  // The stage's own per-vertex work (trivial-reject flags, window positions), kept here so a
  // reused output keeps their buffers too.
  UninitializedVector<uint8_t> vertex_flags;
  UninitializedVector<WindowVertex> window;
};

// Runs inside the caller's task arena. `out` may hold an earlier frame's output: every list is
// refilled, and the buffers keep their capacity (a renderer reuses them frame after frame).
void run_primitive_stage(const PrimitiveStageInput& in, PrimitiveStageOutput& out);

}  // namespace tessera
