#include "tiling/fixed_tiling.h"

#include <algorithm>

namespace tessera {

namespace {

// True when some edge excludes every sample of the pixels in the tile's rectangle.
bool tile_outside(const EdgeFunction e[3], const SampleExtent& s, int x0, int y0, int x1, int y1) {
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

template <typename Visit>
void for_each_tile(const TileGrid& g, const SampleExtent& samples, const TriangleSetup& t, Visit&& visit) {
  const int tx0 = t.min_x / g.tile_size;
  const int tx1 = t.max_x / g.tile_size;
  const int ty0 = t.min_y / g.tile_size;
  const int ty1 = t.max_y / g.tile_size;
  if (tx0 == tx1 && ty0 == ty1) {
    visit(ty0 * g.tiles_x + tx0);
    return;
  }
  EdgeFunction e[3];
  edge_functions(t, e);
  for (int ty = ty0; ty <= ty1; ++ty) {
    for (int tx = tx0; tx <= tx1; ++tx) {
      const int x0 = std::max(tx * g.tile_size, t.min_x);
      const int y0 = std::max(ty * g.tile_size, t.min_y);
      const int x1 = std::min((tx + 1) * g.tile_size - 1, t.max_x);
      const int y1 = std::min((ty + 1) * g.tile_size - 1, t.max_y);
      if (!tile_outside(e, samples, x0, y0, x1, y1)) visit(ty * g.tiles_x + tx);
    }
  }
}

}  // namespace

void bin_chunk(const TileGrid& grid, const SampleExtent& samples, BinChunk& chunk) {
  const size_t tiles = size_t(grid.tile_count());
  chunk.offsets.assign(tiles + 1, 0);
  for (const TriangleSetup& t : chunk.setups) {
    for_each_tile(grid, samples, t, [&](int tile) { ++chunk.offsets[size_t(tile) + 1]; });
  }
  for (size_t i = 0; i < tiles; ++i) chunk.offsets[i + 1] += chunk.offsets[i];
  chunk.entries.resize(chunk.offsets[tiles]);
  std::vector<uint32_t> cursor(chunk.offsets.begin(), chunk.offsets.end() - 1);
  for (uint32_t s = 0; s < chunk.setups.size(); ++s) {
    for_each_tile(grid, samples, chunk.setups[s], [&](int tile) { chunk.entries[cursor[size_t(tile)]++] = s; });
  }
}

}  // namespace tessera
