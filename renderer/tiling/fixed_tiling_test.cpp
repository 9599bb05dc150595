#include "tiling/fixed_tiling.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tessera
