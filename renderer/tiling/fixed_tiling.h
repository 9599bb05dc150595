// Fixed-tile binning: the screen is cut into square tiles and each triangle is listed in
// every tile it can touch. Triangles are binned in chunks of consecutive primitives; a tile's
// list is the concatenation of its per-chunk lists in chunk order, so application order is
// kept without any global sort and no matter how many threads did the binning.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "raster/triangle_setup.h"

namespace tessera {

struct TileGrid {
  int width = 0;  // viewport in pixels
  int height = 0;
  int tile_size = 64;  // pixels per tile edge
  int tiles_x = 0;
  int tiles_y = 0;

  static TileGrid make(int width, int height, int tile_size) {
    return {width, height, tile_size, (width + tile_size - 1) / tile_size, (height + tile_size - 1) / tile_size};
  }
  int tile_count() const { return tiles_x * tiles_y; }
};

// Triangles of one chunk and, per tile, the indices of those that touch it (CSR layout).
struct BinChunk {
  std::vector<TriangleSetup> setups;
  std::vector<uint32_t> offsets;  // tile_count + 1 entries; tile t uses entries[offsets[t]..offsets[t+1])
  std::vector<uint32_t> entries;  // indices into setups, in primitive order within each tile
  // Optional, the same lists the other way round (binning with `BinLists::by_setup`): per set-up
  // triangle its tiles, ascending, CSR over `setups` (setups.size() + 1 offsets). Binning finds
  // them in this order anyway; the tiling accounting reads them instead of transposing the lists.
  std::vector<uint32_t> setup_offsets;
  std::vector<uint32_t> setup_tiles;
};

// Which lists binning fills: per tile only, or per set-up triangle as well.
enum class BinLists { by_tile, by_setup };

// Calls visit(tile id) for every tile of `g` the triangle can touch: the tiles of its bounding
// box, less those where one edge function excludes every sample of the tile's pixels.
// True when some edge excludes every sample of the pixels in the tile's rectangle.
inline bool tile_outside(const EdgeFunction e[3], const SampleExtent& s, int x0, int y0, int x1, int y1) {
  const int64_t px0 = int64_t(x0) * kSubpixelOne + s.min_x;
  const int64_t py0 = int64_t(y0) * kSubpixelOne + s.min_y;
  const int64_t px1 = int64_t(x1) * kSubpixelOne + s.max_x;
  const int64_t py1 = int64_t(y1) * kSubpixelOne + s.max_y;
  for (int i = 0; i < 3; ++i) {
    // The corner where the edge function is largest.
    const int64_t px = e[i].a > 0 ? px1 : px0;
    const int64_t py = e[i].b > 0 ? py1 : py0;
    if (e[i].at(px, py) < 0) return true;
  }
  return false;
}

// Only tiles inside the window [wx0, wx1] x [wy0, wy1] of tile coordinates are visited (the
// whole grid by default); the window never changes which tiles pass.
template <typename Visit>
void for_each_tile(const TileGrid& g, const SampleExtent& samples, const TriangleSetup& t, Visit&& visit, int wx0 = 0,
                   int wy0 = 0, int wx1 = INT32_MAX, int wy1 = INT32_MAX) {
  // The bounds are clamped to the frame (>= 0): for the usual power-of-two tile a shift is the
  // division, without four integer divisions per triangle and grid.
  int tx0, tx1, ty0, ty1;
  if (std::has_single_bit(unsigned(g.tile_size))) {
    const int shift = std::countr_zero(unsigned(g.tile_size));
    tx0 = t.min_x >> shift;
    tx1 = t.max_x >> shift;
    ty0 = t.min_y >> shift;
    ty1 = t.max_y >> shift;
  } else {
    tx0 = t.min_x / g.tile_size;
    tx1 = t.max_x / g.tile_size;
    ty0 = t.min_y / g.tile_size;
    ty1 = t.max_y / g.tile_size;
  }
  if (tx0 == tx1 && ty0 == ty1) {
    if (tx0 >= wx0 && tx0 <= wx1 && ty0 >= wy0 && ty0 <= wy1) visit(ty0 * g.tiles_x + tx0);
    return;
  }
  EdgeFunction e[3];
  edge_functions(t, e);
  for (int ty = std::max(ty0, wy0); ty <= std::min(ty1, wy1); ++ty) {
    for (int tx = std::max(tx0, wx0); tx <= std::min(tx1, wx1); ++tx) {
      const int x0 = std::max(tx * g.tile_size, t.min_x);
      const int y0 = std::max(ty * g.tile_size, t.min_y);
      const int x1 = std::min((tx + 1) * g.tile_size - 1, t.max_x);
      const int y1 = std::min((ty + 1) * g.tile_size - 1, t.max_y);
      if (!tile_outside(e, samples, x0, y0, x1, y1)) visit(ty * g.tiles_x + tx);
    }
  }
}

// Fills chunk.offsets/entries from chunk.setups. A tile inside a triangle's bounding box is
// skipped when one edge function is negative at all four tile corners (the triangle cannot
// reach it). `samples` is the reach of the sample positions inside a pixel.
// With BinLists::by_setup, chunk.setup_offsets/setup_tiles too (otherwise they are cleared).
// Each (triangle, tile) pair is tested once: the tiles found while counting are replayed for
// the fill.
void bin_chunk(const TileGrid& grid, const SampleExtent& samples, BinChunk& chunk, BinLists lists = BinLists::by_tile);
// The same lists for `setups` into separate arrays (a second grid over the same triangles);
// with `setup_offsets` and `setup_tiles`, the per-triangle lists too.
void bin_setups(const TileGrid& grid, const SampleExtent& samples, const std::vector<TriangleSetup>& setups,
                std::vector<uint32_t>& offsets, std::vector<uint32_t>& entries,
                std::vector<uint32_t>* setup_offsets = nullptr, std::vector<uint32_t>* setup_tiles = nullptr);

}  // namespace tessera
