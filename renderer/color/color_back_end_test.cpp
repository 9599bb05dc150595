#include "color/color_back_end.h"

#include <gtest/gtest.h>

#include <vector>

namespace tessera::color {
namespace {

TEST(ColorCache, LeastRecentlyUsedWayIsReplaced) {
  ColorCache cache(ColorCacheGeometry{128, 64, 2});  // one set of two ways
  EXPECT_FALSE(cache.lookup(1));
  EXPECT_EQ(cache.insert(1), ColorCache::kNoLine);
  EXPECT_EQ(cache.insert(2), ColorCache::kNoLine);
  EXPECT_TRUE(cache.lookup(1));    // 1 is now the most recent
  EXPECT_EQ(cache.insert(3), 2u);  // so 2 leaves
  EXPECT_TRUE(cache.contains(1));
  EXPECT_FALSE(cache.contains(2));
  cache.erase(1);
  EXPECT_EQ(cache.insert(4), ColorCache::kNoLine);  // the erased way is free again
  const std::vector<uint64_t> order = cache.resident_lru_order();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], 3u);
  EXPECT_EQ(order[1], 4u);
}

constexpr Rgba8 kClear = 0xff000000u;
constexpr Rgba8 kRed = 0xff0000ffu;
constexpr Rgba8 kBlue = 0xffff0000u;

// An 16x4 bin tile at 4x: two 8x4 blocks. Writes are simulated by filling samples and
// reporting the quad, as the rasterizer does.
struct Fixture {
  static constexpr int kW = 16, kH = 4, kN = 4;
  std::vector<Rgba8> buffer = std::vector<Rgba8>(size_t(kW * kH * kN), kClear);
  void paint_quad(int qx, int qy, Rgba8 c, unsigned sample_mask = 0xf) {
    for (int p = 0; p < 4; ++p) {
      const int x = qx + (p & 1), y = qy + (p >> 1);
      for (int k = 0; k < kN; ++k) {
        if (sample_mask & (1u << k)) buffer[size_t((y * kW + x) * kN + k)] = c;
      }
    }
  }
};

TEST(ColorBackEnd, FlatTilesLeaveAsIndexPalettesWithoutPlaneTraffic) {
  Fixture f;
  ColorBackEnd be(ColorCacheGeometry{4096, 64, 4}, Fixture::kN, kClear, f.buffer.data(), Fixture::kW, Fixture::kH);
  for (int qy = 0; qy < 4; qy += 2) {
    for (int qx = 0; qx < 8; qx += 2) {
      f.paint_quad(qx, qy, kRed);
      be.on_quad_written(qx, qy);
    }
  }
  f.paint_quad(8, 0, kBlue, 0x3);  // block 1: blue over clear in two samples of one quad
  be.on_quad_written(8, 0);
  be.flush();
  const ColorTraffic& t = be.traffic();
  EXPECT_EQ(t.accesses, 8u + 2u);  // block 0: 8 quads x plane 0; block 1: planes 0 and 1
  EXPECT_EQ(t.misses, 2u + 2u);    // one line per 4x4 half of block 0; two planes of block 1
  EXPECT_EQ(t.palette_attempts, 2u);
  EXPECT_EQ(t.palette_stores, 2u);
  EXPECT_EQ(t.plane_bits_written, 0u) << "a palette in the index bits writes no plane data";
  EXPECT_EQ(t.index_bits_written, 2u * 256u);
  EXPECT_EQ(t.plane_bits_read + t.index_bits_read, 0u) << "cleared tiles fill from the control bits alone";
  EXPECT_EQ(be.final_tile(0).state, TileState::index_one_colour);
  EXPECT_EQ(be.final_tile(1).state, TileState::index_two_colour);
}

TEST(ColorBackEnd, TinyCacheSkipsThePaletteAndRefillsFromPlanes) {
  Fixture f;
  // One way, one 64-byte line: every new line displaces the previous tile.
  ColorBackEnd be(ColorCacheGeometry{64, 64, 1}, Fixture::kN, kClear, f.buffer.data(), Fixture::kW, Fixture::kH);
  f.paint_quad(0, 0, kRed, 0x1);   // block 0, two planes (red and clear) in one pixel group
  be.on_quad_written(0, 0);        // lines (0, plane 0) then (0, plane 1): the second displaces the first
  f.paint_quad(8, 0, kBlue);       // block 1
  be.on_quad_written(8, 0);        // displaces block 0's remaining line
  f.paint_quad(0, 0, kBlue, 0x2);  // block 0 again: refilled from its stored planes
  be.on_quad_written(0, 0);
  be.flush();
  const ColorTraffic& t = be.traffic();
  EXPECT_GT(t.palette_skipped, 0u);
  EXPECT_GT(t.plane_bits_written, 0u);
  EXPECT_GT(t.plane_bits_read, 0u) << "refills read the planes stored by earlier evictions";
  // Whatever the traffic, the final form of every block decodes to its samples.
  for (int b = 0; b < 2; ++b) {
    const ColorTile decoded = load_tile(be.final_tile(b), kClear);
    for (int p = 0; p < kTilePixels; ++p) {
      const int x = b * 8 + p % 8, y = p / 8;
      for (int k = 0; k < Fixture::kN; ++k)
        EXPECT_EQ(decoded.at(p, k), f.buffer[size_t((y * Fixture::kW + x) * Fixture::kN + k)]);
    }
  }
}

}  // namespace
}  // namespace tessera::color
