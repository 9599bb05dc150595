#include "tiling/fixed_tiling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace tessera {
namespace {

ClipVertex at_pixel(float x, float y, int w, int h) {
  ClipVertex v{};
  v.clip = {2.0f * x / float(w) - 1.0f, 2.0f * y / float(h) - 1.0f, 0.5f, 1.0f};
  return v;
}

TEST(FixedTiling, GridCoversViewport) {
  const TileGrid g = TileGrid::make(130, 70, 64);
  EXPECT_EQ(g.tiles_x, 3);
  EXPECT_EQ(g.tiles_y, 2);
  EXPECT_EQ(g.tile_count(), 6);
}

TEST(FixedTiling, ListsKeepPrimitiveOrderAndSkipUnreachableTiles) {
  const int w = 256, h = 256;
  const TileGrid g = TileGrid::make(w, h, 64);
  BinChunk chunk;
  TriangleSetup t;
  // 0: small triangle inside tile (0,0).
  ASSERT_EQ(setup_triangle(at_pixel(4, 4, w, h), at_pixel(4, 20, w, h), at_pixel(20, 4, w, h), Viewport{w, h}, false, 0,
                           0, t),
            SetupResult::ok);
  chunk.setups.push_back(t);
  // 1: thin diagonal sliver from the top-left to the bottom-right corner: its bounding box
  // spans all 16 tiles but it reaches only the diagonal ones and their neighbours.
  ASSERT_EQ(setup_triangle(at_pixel(0, 0, w, h), at_pixel(250, 256, w, h), at_pixel(256, 250, w, h), Viewport{w, h},
                           false, 0, 1, t),
            SetupResult::ok);
  chunk.setups.push_back(t);
  bin_chunk(g, SampleExtent{}, chunk);
  ASSERT_EQ(chunk.offsets.size(), size_t(g.tile_count() + 1));
  // Tile 0 lists both, in primitive order.
  ASSERT_EQ(chunk.offsets[1] - chunk.offsets[0], 2u);
  EXPECT_EQ(chunk.entries[chunk.offsets[0]], 0u);
  EXPECT_EQ(chunk.entries[chunk.offsets[0] + 1], 1u);
  // Far off-diagonal tiles (3, 0) and (0, 3) are skipped.
  EXPECT_EQ(chunk.offsets[3 + 1] - chunk.offsets[3], 0u);
  EXPECT_EQ(chunk.offsets[12 + 1] - chunk.offsets[12], 0u);
  // Every diagonal tile lists the sliver.
  for (int i = 0; i < 4; ++i) {
    const int tile = i * 4 + i;
    EXPECT_GE(chunk.offsets[size_t(tile) + 1] - chunk.offsets[size_t(tile)], 1u) << tile;
  }
  EXPECT_LT(chunk.entries.size(), 1u + 16u);
}

// Random chunks of set-up triangles: small ones, slivers and large ones (every tenth), some
// reaching past the viewport, on a viewport with a partial last row and column of tiles.
std::vector<BinChunk> random_chunks(const SampleExtent& samples, int w, int h) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-40.0f, 300.0f), near(-12.0f, 12.0f);
  std::vector<BinChunk> chunks(20);
  for (BinChunk& chunk : chunks) {
    for (int i = 0; i < 300; ++i) {
      const float x = coord(rng), y = coord(rng);
      const bool big = i % 10 == 0;
      auto corner = [&] {
        return big ? at_pixel(coord(rng), coord(rng), w, h) : at_pixel(x + near(rng), y + near(rng), w, h);
      };
      TriangleSetup t;
      Viewport vp{w, h};
      vp.samples = samples;
      if (setup_triangle(corner(), corner(), corner(), vp, false, 0, 0, t) == SetupResult::ok)
        chunk.setups.push_back(t);
    }
  }
  return chunks;
}

// Binning that keeps each triangle's tiles: the per-tile lists are those of plain binning, and
// the per-triangle lists are exactly them transposed (tiles ascending, each once), at 1x and
// with 4x MSAA sample reach, on several grids.
TEST(FixedTiling, PerTriangleListsAreTheTileListsTransposed) {
  const int w = 250, h = 190;
  for (const SampleExtent& samples : {SampleExtent{}, SampleExtent{32, 224, 32, 224}}) {
    for (BinChunk& chunk : random_chunks(samples, w, h)) {
      for (int size : {8, 16, 64}) {
        const TileGrid g = TileGrid::make(w, h, size);
        BinChunk plain = chunk;
        bin_chunk(g, samples, plain);
        EXPECT_TRUE(plain.setup_offsets.empty());
        bin_chunk(g, samples, chunk, BinLists::by_setup);
        EXPECT_EQ(chunk.offsets, plain.offsets) << size;
        EXPECT_EQ(chunk.entries, plain.entries) << size;
        ASSERT_EQ(chunk.setup_offsets.size(), chunk.setups.size() + 1);
        std::vector<std::vector<uint32_t>> transposed(chunk.setups.size());
        for (uint32_t t = 0; t < uint32_t(g.tile_count()); ++t) {
          for (uint32_t k = chunk.offsets[t]; k < chunk.offsets[t + 1]; ++k) transposed[chunk.entries[k]].push_back(t);
        }
        for (size_t s = 0; s < chunk.setups.size(); ++s) {
          const std::vector<uint32_t> kept(chunk.setup_tiles.begin() + chunk.setup_offsets[s],
                                           chunk.setup_tiles.begin() + chunk.setup_offsets[s + 1]);
          EXPECT_EQ(kept, transposed[s]) << "setup " << s << ", tile size " << size;
        }
        EXPECT_GT(chunk.entries.size(), chunk.setups.size() / 2);
      }
    }
  }
}

// The accounting's incidence lets a render grid ride on the atomic grid's lists because every
// atomic tile listing a triangle lies in a render tile listing it (the render tile's test is
// on a larger rectangle): checked for tiles nesting 2, 4 and 8 times, 1x and 4x MSAA.
TEST(FixedTiling, FineListsNestInTheCoarseOnes) {
  const int w = 250, h = 190;
  for (const SampleExtent& samples : {SampleExtent{}, SampleExtent{32, 224, 32, 224}}) {
    for (BinChunk& chunk : random_chunks(samples, w, h)) {
      const TileGrid coarse = TileGrid::make(w, h, 64);
      bin_chunk(coarse, samples, chunk, BinLists::by_setup);
      for (int fine_size : {8, 16, 32}) {
        const TileGrid fine = TileGrid::make(w, h, fine_size);
        const int ratio = coarse.tile_size / fine_size;
        std::vector<uint32_t> offsets, entries, setup_offsets, setup_tiles;
        bin_setups(fine, samples, chunk.setups, offsets, entries, &setup_offsets, &setup_tiles);
        size_t nested = 0;
        for (size_t s = 0; s < chunk.setups.size(); ++s) {
          const auto c0 = chunk.setup_tiles.begin() + chunk.setup_offsets[s];
          const auto c1 = chunk.setup_tiles.begin() + chunk.setup_offsets[s + 1];
          for (uint32_t k = setup_offsets[s]; k < setup_offsets[s + 1]; ++k) {
            const int f = int(setup_tiles[k]);
            const uint32_t parent = uint32_t((f / fine.tiles_x / ratio) * coarse.tiles_x + (f % fine.tiles_x) / ratio);
            EXPECT_NE(std::find(c0, c1, parent), c1) << "setup " << s << " fine tile " << f;
            ++nested;
          }
        }
        EXPECT_EQ(nested, entries.size());
        EXPECT_GT(entries.size(), chunk.setups.size() / 2);
      }
    }
  }
}

}  // namespace
}  // namespace tessera
