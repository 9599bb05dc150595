// Fixed-tile binning: the screen is cut into square tiles and each triangle is listed in
// every tile it can touch. Triangles are binned in chunks of consecutive primitives; a tile's
// list is the concatenation of its per-chunk lists in chunk order, so application order is
// kept without any global sort and no matter how many threads did the binning.
#pragma once

#include <cstdint>
#include <vector>

#include "raster/triangle_setup.h"

namespace tessera {

struct TileGrid {
  int width = 0;       // viewport in pixels
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
};

// Fills chunk.offsets/entries from chunk.setups. A tile inside a triangle's bounding box is
// skipped when one edge function is negative at all four tile corners (the triangle cannot
// reach it). `samples` is the reach of the sample positions inside a pixel.
void bin_chunk(const TileGrid& grid, const SampleExtent& samples, BinChunk& chunk);

}  // namespace tessera
