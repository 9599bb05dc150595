#include "tiling/fixed_tiling.h"

#include <algorithm>

namespace tessera {

void bin_setups(const TileGrid& grid, const SampleExtent& samples, const std::vector<TriangleSetup>& setups,
                std::vector<uint32_t>& offsets, std::vector<uint32_t>& entries) {
  const size_t tiles = size_t(grid.tile_count());
  offsets.assign(tiles + 1, 0);
  for (const TriangleSetup& t : setups) {
    for_each_tile(grid, samples, t, [&](int tile) { ++offsets[size_t(tile) + 1]; });
  }
  for (size_t i = 0; i < tiles; ++i) offsets[i + 1] += offsets[i];
  entries.resize(offsets[tiles]);
  std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  for (uint32_t s = 0; s < setups.size(); ++s) {
    for_each_tile(grid, samples, setups[s], [&](int tile) { entries[cursor[size_t(tile)]++] = s; });
  }
}

void bin_chunk(const TileGrid& grid, const SampleExtent& samples, BinChunk& chunk) {
  bin_setups(grid, samples, chunk.setups, chunk.offsets, chunk.entries);
}

}  // namespace tessera
