// Frame accounting of the tiler (adaptive-tiling spec): the PICB over atomic tiles, the
// supertiles generated from it, and what two-pass vertex shading and a parameter buffer do
// under the rendered tiling and under each baseline tiling of the same frame. It reads what
// the primitive stage produced (the bin lists, on atomic tiles too when the frame was binned
// on larger ones, each triangle's tiles, and each set-up triangle's source primitive) and never changes a
// pixel. In adaptive mode the PICB and supertiles are functional (they are the render units)
// and are made before the tile stage; the rest runs after it, behind tiling.accounting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/config.h"
#include "tessera/renderer.h"
#include "tiling/fixed_tiling.h"
#include "tiling/supertiles.h"
#include "tiling/tiling_accounting.h"

namespace tessera {

struct TilingAccounting {
  TileGrid atomic;
  int capacity = 1;  // atomic tiles per supertile the tile buffer holds
  Picb picb;
  SupertileTable supertiles;
  uint64_t crossings = 0;  // (set-up triangle, atomic tile) pairs
  std::optional<TilingWork> rendered;
  std::vector<std::pair<std::string, TilingWork>> baselines;
  double picb_ms = 0, generation_ms = 0, accounting_ms = 0;
};

// PICB (every listed triangle adds the PIC to its atomic tile; 64-bit sums saturated to 16
// bits) and the supertiles grown from it.
void build_picb_and_supertiles(const std::vector<BinChunk>& atomic_bins, uint32_t pic, TilingAccounting& out);

// Two-pass vertex shading and parameter-buffer accounting: under the rendered tiling
// (`rendered_bins` over `rendered_grid`; the supertiles when adaptive) and, with
// tiling.baselines, under fixed 16..256 and adaptive tiles of the atomic grid.
void account_tilings(const TilingConfig& config, const TilingFrame& frame, const std::vector<BinChunk>& atomic_bins,
                     const std::vector<BinChunk>& rendered_bins, const TileGrid& rendered_grid, TilingAccounting& out);

// tiling.* statistics (docs/stats.md) and, with frame.diagnostics, the PICB and supertile maps.
void publish_tiling(const TilingConfig& config, const TilingAccounting& tiling, Frame& frame, bool diagnostics);

}  // namespace tessera
