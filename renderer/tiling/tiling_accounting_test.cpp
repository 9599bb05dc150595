// Two-pass vertex shading and parameter-buffer accounting on a hand-built frame whose counts
// are worked out below.
#include <gtest/gtest.h>

#include <tbb/global_control.h>

#include "tiling/tiling_accounting.h"

namespace tessera {
namespace {

// A 64x16 screen of four 16x16 atomic tiles t0..t3 in a row, one chunk of four set-up
// triangles:
//   s0: primitive 0, vertices {0,1,2}, touches t0 and t1
//   s1: primitive 1, vertices {1,2,3}, touches t1
//   s2, s3: primitive 2 (clipped into two pieces), vertices {4,5,6}; s2 touches t2, s3 t2 and t3
// Vertex 7 belongs to a draw but to no binned primitive (pass 1 still shades it).
struct HandFrame {
  std::vector<BinChunk> bins{1};
  std::vector<std::vector<uint32_t>> primitive{{0, 1, 2, 2}};
  std::vector<uint32_t> vertices{0, 1, 2, 1, 2, 3, 4, 5, 6};
  TilingFrame frame;

  HandFrame() {
    // CSR per tile: t0 {s0}, t1 {s0, s1}, t2 {s2, s3}, t3 {s3}.
    bins[0].offsets = {0, 1, 3, 5, 6};
    bins[0].entries = {0, 0, 1, 2, 3, 3};
    frame.bins = &bins;
    frame.setup_primitive = &primitive;
    frame.primitive_vertices = &vertices;
    frame.grid = TileGrid::make(64, 16, 16);
    frame.primitives = 3;
    frame.vertices = 8;
  }
};

TEST(TilingAccounting, EveryAtomicTileAlone) {
  HandFrame h;
  const TilingWork w = account_tiling(h.frame, square_partition(h.frame.grid, 1, "fixed_16", 2048));
  EXPECT_EQ(w.render_tiles, 4u);
  // t0: p0; t1: p0, p1; t2: p2 (two pieces count once); t3: p2.
  EXPECT_EQ(w.crossings, 5u);
  // t0 {0,1,2} 3 + t1 {0,1,2,3} 4 + t2 {4,5,6} 3 + t3 {4,5,6} 3.
  EXPECT_EQ(w.pass2_invocations, 13u);
  EXPECT_EQ(w.pass1_invocations, 8u);
  EXPECT_EQ(w.binned_vertices, 7u);
  EXPECT_EQ(w.redundant_invocations, 6u);
  EXPECT_DOUBLE_EQ(w.redundant_percent, 600.0 / 7.0);
  EXPECT_EQ(w.vertex_fetch_bytes, 8u * 12u + 13u * 32u);
  EXPECT_EQ(w.parameter_buffer_written_bytes, 7u * 48u + 5u * 4u);
  EXPECT_EQ(w.parameter_buffer_read_bytes, 13u * 48u + 5u * 4u);
  EXPECT_EQ(w.tile_buffer_stores, 4u);
  EXPECT_EQ(w.tile_buffer_store_bytes, 64u * 16u * 8u);
  EXPECT_EQ(w.tile_buffer_loads, 0u);
  EXPECT_EQ(w.largest_tile_bytes, 16u * 16u * 8u);
  EXPECT_TRUE(w.within_budget);
}

TEST(TilingAccounting, PairsRemoveTheRedundancy) {
  HandFrame h;
  // Render tiles {t0, t1} and {t2, t3}: no primitive crosses between them.
  const TilingWork w = account_tiling(h.frame, square_partition(h.frame.grid, 2, "fixed_32", 3000));
  EXPECT_EQ(w.render_tiles, 2u);
  EXPECT_EQ(w.crossings, 3u);
  EXPECT_EQ(w.pass2_invocations, 7u);
  EXPECT_EQ(w.redundant_invocations, 0u);
  EXPECT_EQ(w.largest_tile_bytes, 2u * 16u * 16u * 8u);
  EXPECT_FALSE(w.within_budget) << "4096 bytes do not fit a 3000-byte tile buffer";
}

TEST(TilingAccounting, NonRectangularPartitionAndThreadCount) {
  HandFrame h;
  // {t0, t3} and {t1, t2}: p0 lands in both, p2 in both, p1 only in the second.
  TilePartition p{"odd", {0, 1, 1, 0}, 2, 0};
  TilingWork one;
  {
    tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
    one = account_tiling(h.frame, p);
  }
  const TilingWork many = account_tiling(h.frame, p);
  EXPECT_EQ(one.crossings, 5u);
  // {0,1,2} + {4,5,6} in the first; {0,1,2,3} + {4,5,6} in the second.
  EXPECT_EQ(one.pass2_invocations, 13u);
  EXPECT_EQ(many.pass2_invocations, one.pass2_invocations);
  EXPECT_EQ(many.crossings, one.crossings);
  EXPECT_TRUE(one.within_budget) << "budget 0 means unlimited";
}

}  // namespace
}  // namespace tessera
