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

void refine_bins(const TileGrid& grid, const TileGrid& fine, const SampleExtent& samples, const BinChunk& chunk,
                 std::vector<uint32_t>& offsets, std::vector<uint32_t>& entries) {
  const int ratio = grid.tile_size / fine.tile_size;
  const size_t tiles = size_t(fine.tile_count());
  // Visits the fine tiles of coarse tile `c` that setup `s` reaches.
  auto for_each_fine = [&](int c, uint32_t s, auto&& visit) {
    const int fx0 = (c % grid.tiles_x) * ratio, fy0 = (c / grid.tiles_x) * ratio;
    for_each_tile(fine, samples, chunk.setups[s], visit, fx0, fy0, fx0 + ratio - 1, fy0 + ratio - 1);
  };
  // One tile test per (triangle, fine tile): the fine tiles found while counting are kept,
  // with how many each entry found, and replayed in the same order for the fill.
  offsets.assign(tiles + 1, 0);
  std::vector<uint32_t> hits, found(chunk.entries.size());
  hits.reserve(chunk.entries.size());
  for (int c = 0; c < grid.tile_count(); ++c) {
    for (uint32_t k = chunk.offsets[size_t(c)]; k < chunk.offsets[size_t(c) + 1]; ++k) {
      const size_t before = hits.size();
      for_each_fine(c, chunk.entries[k], [&](int tile) {
        ++offsets[size_t(tile) + 1];
        hits.push_back(uint32_t(tile));
      });
      found[k] = uint32_t(hits.size() - before);
    }
  }
  for (size_t i = 0; i < tiles; ++i) offsets[i + 1] += offsets[i];
  entries.resize(offsets[tiles]);
  std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  const uint32_t* hit = hits.data();
  for (uint32_t k = 0; k < chunk.entries.size(); ++k) {
    const uint32_t s = chunk.entries[k];
    for (uint32_t i = 0; i < found[k]; ++i) entries[cursor[*hit++]++] = s;
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
