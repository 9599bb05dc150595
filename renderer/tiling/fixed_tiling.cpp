#include "tiling/fixed_tiling.h"

#include <algorithm>

namespace tessera {

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
