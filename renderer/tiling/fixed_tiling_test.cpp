#include "tiling/fixed_tiling.h"

#include <gtest/gtest.h>

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

// refine_bins derives the fine grid's lists from the coarse ones; they must equal binning the
// same triangles on the fine grid directly, lists in primitive order (small and large
// triangles, slivers, a partial last row and column of tiles, 4x MSAA sample reach).
TEST(FixedTiling, RefinedListsEqualBinningOnTheFineGrid) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-40.0f, 300.0f), near(-12.0f, 12.0f);
  const int w = 250, h = 190;
  for (const SampleExtent& samples : {SampleExtent{}, SampleExtent{32, 224, 32, 224}}) {
    for (int trial = 0; trial < 20; ++trial) {
      BinChunk chunk;
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
      for (int fine_size : {8, 16, 32}) {
        const TileGrid coarse = TileGrid::make(w, h, 64), fine = TileGrid::make(w, h, fine_size);
        bin_chunk(coarse, samples, chunk);
        std::vector<uint32_t> refined_offsets, refined_entries, direct_offsets, direct_entries;
        refine_bins(coarse, fine, samples, chunk, refined_offsets, refined_entries);
        bin_setups(fine, samples, chunk.setups, direct_offsets, direct_entries);
        EXPECT_EQ(refined_offsets, direct_offsets) << "trial " << trial << ", fine " << fine_size;
        EXPECT_EQ(refined_entries, direct_entries) << "trial " << trial << ", fine " << fine_size;
        EXPECT_GT(direct_entries.size(), chunk.setups.size() / 2);
      }
    }
  }
}

}  // namespace
}  // namespace tessera
