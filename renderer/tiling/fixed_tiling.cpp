#include "tiling/fixed_tiling.h"

#include <algorithm>

namespace tessera {

void bin_setups(const TileGrid& grid, const SampleExtent& samples, const std::vector<TriangleSetup>& setups,
                std::vector<uint32_t>& offsets, std::vector<uint32_t>& entries, std::vector<uint32_t>* setup_offsets,
                std::vector<uint32_t>* setup_tiles) {
  const size_t tiles = size_t(grid.tile_count());
  offsets.assign(tiles + 1, 0);
  // The tiles each triangle reaches, in triangle order (a tile test and the bounding box's
  // divisions once per triangle): the fill replays them.
  std::vector<uint32_t> own_offsets, own_tiles;
  std::vector<uint32_t>& by_offsets = setup_offsets ? *setup_offsets : own_offsets;
  std::vector<uint32_t>& by_tiles = setup_tiles ? *setup_tiles : own_tiles;
  by_offsets.resize(setups.size() + 1);
  by_offsets[0] = 0;
  by_tiles.clear();
  by_tiles.reserve(setups.size() + setups.size() / 4);
  for (size_t s = 0; s < setups.size(); ++s) {
    for_each_tile(grid, samples, setups[s], [&](int tile) {
      ++offsets[size_t(tile) + 1];
      by_tiles.push_back(uint32_t(tile));
    });
    by_offsets[s + 1] = uint32_t(by_tiles.size());
  }
  for (size_t i = 0; i < tiles; ++i) offsets[i + 1] += offsets[i];
  entries.resize(offsets[tiles]);
  std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  const uint32_t* tile = by_tiles.data();
  for (uint32_t s = 0; s < setups.size(); ++s) {
    for (const uint32_t* end = by_tiles.data() + by_offsets[size_t(s) + 1]; tile < end; ++tile) {
      entries[cursor[*tile]++] = s;
    }
  }
}

void bin_chunk(const TileGrid& grid, const SampleExtent& samples, BinChunk& chunk, BinLists lists) {
  if (lists == BinLists::by_setup) {
    bin_setups(grid, samples, chunk.setups, chunk.offsets, chunk.entries, &chunk.setup_offsets, &chunk.setup_tiles);
  } else {
    bin_setups(grid, samples, chunk.setups, chunk.offsets, chunk.entries);
    chunk.setup_offsets.clear();
    chunk.setup_tiles.clear();
  }
}

}  // namespace tessera
