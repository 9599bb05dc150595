// The tile stage: parallel over render units (a bin-grid tile, or a supertile of atomic tiles
// sharing one tile buffer), each tile buffer is cleared, every triangle binned to its tiles
// is rasterized in submission order (chunk order, then order within the chunk) with per-sample
// coverage and depth, the fragment program shades each live quad once per pixel, and with MSAA
// every written quad goes through the colour unit's cache. Then the tile is stored: at 1x the
// pixels; with MSAA the cache is flushed and every 8x4 block's final stored form is decoded
// for a box resolve in linear space.
#pragma once

#include <vector>

#include "color/color_back_end.h"
#include "color/color_counters.h"
#include "pipeline/primitive_stage.h"
#include "raster/raster_counters.h"
#include "tessera/clip_space.h"
#include "tessera/eu_shader_math.h"
#include "tessera/memory_ledger.h"
#include "tessera/renderer.h"
#include "tiling/fixed_tiling.h"
#include "tiling/supertiles.h"

namespace tessera {

template <typename FragmentShader>
struct TileStageInput {
  const std::vector<BinChunk>* chunks = nullptr;
  const typename FragmentShader::Uniforms* uniforms = nullptr;  // per draw
  const DepthState* depth = nullptr;                            // per draw
  const BlendMode* blend = nullptr;                             // per draw; null: no draw blends
  TileGrid grid;                                                // the bin grid
  // Adaptive tiling: the supertiles of bin-grid (atomic) tiles, rendered `capacity` tiles to a
  // tile buffer; null for one bin tile per render unit.
  const SupertileTable* supertiles = nullptr;
  int capacity = 1;
  int samples = 1;
  bool store_depth = true;
  Rgba8 clear_color = 0;
  float clear_depth = 1.0f;
  // The frame's contents at its start, per sample, pixel-major over the whole frame (a loaded
  // render pass); null: the clear values.
  const Rgba8* initial_color = nullptr;
  const float* initial_depth = nullptr;
  color::ColorCacheGeometry color_cache;
  bool compression = true;    // false: charge an uncompressed MSAA target's traffic
  bool color_accounting = true;  // false: no colour unit (MSAA resolves the samples directly)
  bool color_states = false;  // fill Frame::diagnostics.color_states (MSAA)
  bool keep_samples = false;  // fill Frame::diagnostics.samples (MSAA)
  // Per-draw diagnostics: per tile the draws' counters (TileStageOutput::draw_runs), and per
  // sample / per pixel of the frame (sized by the caller) the last draw written and the overdraw.
  bool per_draw = false;
  uint32_t* sample_draw = nullptr;
  uint16_t* overdraw = nullptr;
};

// Per bin-grid tile, merged in tile order by the caller.
struct TileStageOutput {
  std::vector<RasterCounters> counters;
  std::vector<MemoryLedger> ledgers;
  std::vector<color::ColorCounters> color;
  std::vector<color::ColorTraffic> traffic;
  std::vector<EuShaderMath> fragment_math;
  std::vector<std::vector<DrawRun>> draw_runs;  // with per_draw: per bin-grid tile, runs of draws in order
};

// Writes frame.color (resolved) and frame.depth (sample 0), sized by the caller, and the
// requested diagnostics. Runs inside the caller's task arena.
template <typename FragmentShader>
void run_tile_stage(const TileStageInput<FragmentShader>& in, Frame& frame, TileStageOutput& out);

}  // namespace tessera
