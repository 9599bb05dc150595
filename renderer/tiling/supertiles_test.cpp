#include "tiling/supertiles.h"

#include <gtest/gtest.h>

#include <set>

namespace tessera {
namespace {

void expect_partition(const SupertileTable& stt, int capacity) {
  const size_t n = size_t(stt.tiles_x) * size_t(stt.tiles_y);
  ASSERT_EQ(stt.entries.size(), n) << "every atomic tile in a supertile";
  std::vector<int> seen(n, 0);
  for (size_t s = 0; s < stt.count(); ++s) {
    EXPECT_LE(stt.size_of(s), size_t(capacity)) << "supertile " << s << " over budget";
    EXPECT_GE(stt.size_of(s), 1u);
    for (uint32_t k = stt.offsets[s]; k < stt.offsets[s + 1]; ++k) {
      ++seen[stt.entries[k]];
      EXPECT_EQ(stt.owner[stt.entries[k]], s);
    }
  }
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "atomic tile " << i << " in exactly one supertile";
}

TEST(Supertiles, PicFormulaAndSaturatingPicb) {
  // (0.25 * 32 + 0.75 * 40) * 3 = 114.
  EXPECT_EQ(primitive_intersection_cost(0.25, 0.75, 32, 40, 3), 114u);
  EXPECT_EQ(primitive_intersection_cost(1.0, 0.0, 32, 1000, 3), 96u);
  Picb picb(4, 3);
  // A primitive covering pixels (10..40, 5..20) with 16x16 atomic tiles touches x 0..2, y 0..1.
  picb.add_rect(10, 5, 40, 20, 16, 114);
  // Another covering only tile (2, 1).
  picb.add_rect(33, 17, 47, 31, 16, 7);
  EXPECT_EQ(picb.at(0, 0), 114);
  EXPECT_EQ(picb.at(2, 0), 114);
  EXPECT_EQ(picb.at(2, 1), 121);
  EXPECT_EQ(picb.at(3, 0), 0);
  EXPECT_EQ(picb.at(0, 2), 0);
  for (int i = 0; i < 700; ++i) picb.add(1, 1, 100);
  EXPECT_EQ(picb.at(1, 1), 65535) << "saturates at 16 bits";
}

TEST(Supertiles, CapacityFromTileBufferBudget) {
  // 512 KiB, 16x16 atomic tiles, RGBA8 + D32F: 2 KiB per tile at 1x -> 256 tiles.
  EXPECT_EQ(supertile_capacity(512 * 1024, 16, 1, 4, 4), 256);
  EXPECT_EQ(supertile_capacity(512 * 1024, 16, 4, 4, 4), 64);
  EXPECT_EQ(supertile_capacity(100, 16, 8, 4, 4), 1) << "never below one atomic tile";
}

TEST(Supertiles, LShapedOptimumIsFound) {
  // Costly atomic tiles form an L of two-tile-wide arms (12 tiles); the budget is 12 tiles.
  // Keeping every costly tile inside one supertile needs exactly that L, not a rectangle.
  Picb picb(8, 6);
  std::set<int> l_shape;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 2; ++x) l_shape.insert(y * 8 + x);
  for (int y = 2; y < 4; ++y)
    for (int x = 2; x < 4; ++x) l_shape.insert(y * 8 + x);
  for (int id : l_shape) picb.add(id % 8, id / 8, 100);
  const SupertileTable stt = generate_supertiles(picb, 12);
  expect_partition(stt, 12);
  const std::set<int> first(stt.entries.begin() + stt.offsets[0], stt.entries.begin() + stt.offsets[1]);
  EXPECT_EQ(first, l_shape);
  // Its bounding box (4x4) holds 16 tiles: the supertile is not a rectangle.
  EXPECT_LT(first.size(), 16u);
}

TEST(Supertiles, RandomPicbsArePartitionedWithinBudget) {
  uint32_t seed = 42;
  auto rnd = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int trial = 0; trial < 50; ++trial) {
    const int w = 1 + int(rnd() % 40), h = 1 + int(rnd() % 30), capacity = 1 + int(rnd() % 64);
    Picb picb(w, h);
    for (int i = 0; i < w * h; ++i) {
      if (rnd() % 3 == 0) picb.add(i % w, i / w, rnd() % 1000);
    }
    expect_partition(generate_supertiles(picb, capacity), capacity);
  }
  // A full-HD grid of 120 x 68 atomic tiles with a 1x budget; never cuts more than squares.
  Picb hd(120, 68);
  for (int i = 0; i < 120 * 68; ++i) hd.add(i % 120, i / 120, rnd() % 50);
  const SupertileTable stt = generate_supertiles(hd, 256);
  expect_partition(stt, 256);
  SupertileTable squares;
  squares.tiles_x = 120;
  squares.tiles_y = 68;
  squares.owner.resize(120 * 68);
  for (int y = 0; y < 68; ++y)
    for (int x = 0; x < 120; ++x) squares.owner[size_t(y * 120 + x)] = uint32_t((y / 16) * 8 + x / 16);
  EXPECT_LE(stt.cut_cost(hd), squares.cut_cost(hd));
}

TEST(Supertiles, CostlyBlobsAreNotCutUnlikeFixedSquares) {
  // Blobs of cost centred on the corners of a fixed 4x4 tiling cut by every fixed border.
  const int w = 16, h = 16, capacity = 16;
  Picb picb(w, h);
  for (int cy = 4; cy < h; cy += 8) {
    for (int cx = 4; cx < w; cx += 8) {
      for (int y = cy - 2; y < cy + 2; ++y)
        for (int x = cx - 2; x < cx + 2; ++x) picb.add(x, y, 500);
    }
  }
  SupertileTable fixed;
  fixed.tiles_x = w;
  fixed.tiles_y = h;
  fixed.owner.resize(size_t(w * h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) fixed.owner[size_t(y * w + x)] = uint32_t((y / 4) * (w / 4) + x / 4);
  const SupertileTable adaptive = generate_supertiles(picb, capacity);
  expect_partition(adaptive, capacity);
  // Fixed squares cut every blob twice (8 costly pairs per blob); the supertiles hold each
  // blob whole, bordered by cheap tiles.
  EXPECT_EQ(fixed.cut_cost(picb), 4u * 8u * 500u);
  EXPECT_EQ(adaptive.cut_cost(picb), 0u);
}

}  // namespace
}  // namespace tessera
