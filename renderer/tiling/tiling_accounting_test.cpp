// Two-pass vertex shading and parameter-buffer accounting on a hand-built frame whose counts
// are worked out below.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>

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

// A random frame on a fine grid of 16-pixel tiles and a coarse grid of 16 * ratio: chunks of
// set-up triangles listed in random coarse tiles (some in none, some in many) and in a random
// subset of the fine tiles inside those (sometimes none of a coarse tile's: the coarse test
// passed, the fine ones did not), primitives clipped into several pieces (adjacent or not
// within their chunk), vertices shared between primitives of different chunks, vertices no
// primitive uses.
struct RandomFrame {
  std::vector<BinChunk> bins, coarse_bins;
  std::vector<std::vector<uint32_t>> primitive;
  std::vector<uint32_t> vertices;
  TilingFrame frame, coarse;

  // `scale` multiplies the primitives per chunk and the vertex pool (and divides how often a
  // primitive lands anywhere), so that a frame spans several of the incidence's vertex blocks.
  explicit RandomFrame(uint32_t seed, uint32_t scale = 1) {
    std::mt19937 rng(seed);
    auto below = [&](uint32_t n) { return uint32_t(rng() % n); };
    const int ratio = 1 << below(3);
    const int width = 1 + int(below(180)), height = 1 + int(below(140));
    frame.grid = TileGrid::make(width, height, 16);
    coarse.grid = TileGrid::make(width, height, 16 * ratio);
    const TileGrid& fg = frame.grid;
    const TileGrid& cg = coarse.grid;
    const uint32_t chunk_count = scale > 1 ? 4 : 1 + below(4);
    uint32_t next_primitive = 0;
    const uint32_t vertex_pool = scale > 1 ? 200 * scale : 1 + below(200);
    bins.resize(chunk_count);
    coarse_bins.resize(chunk_count);
    primitive.resize(chunk_count);
    for (uint32_t c = 0; c < chunk_count; ++c) {
      // Per set-up triangle, its coarse and fine tiles; then the per-tile lists.
      std::vector<std::vector<uint32_t>> coarse_of, fine_of;
      const uint32_t primitives = scale > 1 ? 60 * scale : below(60);
      for (uint32_t p = 0; p < primitives; ++p, ++next_primitive) {
        const uint32_t pieces = below(5) == 0 ? 2 + below(3) : 1;
        for (uint32_t k = 0; k < pieces; ++k) {
          primitive[c].push_back(next_primitive);
          std::vector<uint32_t> ct, ft;
          const uint32_t kind = below(10 * scale);
          if (kind == 0) {
            // none: culled by the tile test everywhere
          } else if (kind < 7 * scale) {  // a small cluster around one tile
            const int x = int(below(uint32_t(cg.tiles_x))), y = int(below(uint32_t(cg.tiles_y)));
            for (int dy = 0; dy <= int(below(2)); ++dy) {
              for (int dx = 0; dx <= int(below(2)); ++dx) {
                if (x + dx < cg.tiles_x && y + dy < cg.tiles_y) ct.push_back(uint32_t((y + dy) * cg.tiles_x + x + dx));
              }
            }
          } else {  // anywhere, many
            for (uint32_t i = 0; i < uint32_t(cg.tile_count()); ++i) {
              if (below(3) == 0) ct.push_back(i);
            }
          }
          for (uint32_t t : ct) {
            if (below(5) == 0) continue;  // the coarse tile only
            const int x0 = int(t) % cg.tiles_x * ratio, y0 = int(t) / cg.tiles_x * ratio;
            for (int y = y0; y < std::min(y0 + ratio, fg.tiles_y); ++y) {
              for (int x = x0; x < std::min(x0 + ratio, fg.tiles_x); ++x) {
                if (below(4) != 0) ft.push_back(uint32_t(y * fg.tiles_x + x));
              }
            }
          }
          coarse_of.push_back(ct);
          fine_of.push_back(ft);
        }
        for (int v = 0; v < 3; ++v) vertices.push_back(below(vertex_pool));
      }
      if (below(3) == 0) {  // pieces of one primitive need not be adjacent
        std::vector<uint32_t> order(primitive[c].size());
        for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<uint32_t> source;
        std::vector<std::vector<uint32_t>> c2, f2;
        for (uint32_t i : order) {
          source.push_back(primitive[c][i]);
          c2.push_back(coarse_of[i]);
          f2.push_back(fine_of[i]);
        }
        primitive[c] = source;
        coarse_of = c2;
        fine_of = f2;
      }
      list(fg, fine_of, bins[c]);
      list(cg, coarse_of, coarse_bins[c]);
    }
    frame.bins = &bins;
    frame.setup_primitive = &primitive;
    frame.primitive_vertices = &vertices;
    frame.primitives = next_primitive;
    frame.vertices = vertex_pool + below(10);
    const TileGrid coarse_grid = coarse.grid;
    coarse = frame;
    coarse.grid = coarse_grid;
    coarse.bins = &coarse_bins;
  }

  // Per-tile lists (CSR, set-up order per tile) from each set-up triangle's tiles.
  static void list(const TileGrid& g, const std::vector<std::vector<uint32_t>>& tiles_of, BinChunk& b) {
    b.offsets.assign(size_t(g.tile_count()) + 1, 0);
    for (uint32_t t = 0; t < uint32_t(g.tile_count()); ++t) {
      for (uint32_t s = 0; s < tiles_of.size(); ++s) {
        if (std::count(tiles_of[s].begin(), tiles_of[s].end(), t)) b.entries.push_back(s);
      }
      b.offsets[t + 1] = uint32_t(b.entries.size());
    }
  }
};

// The accounting by its definition: the sets of (primitive, render tile) and (vertex, render
// tile) pairs, and the vertices of every primitive listed in some tile.
struct ReferenceCounts {
  uint64_t crossings, pass2, binned;
};
ReferenceCounts reference(const RandomFrame& r, const std::vector<BinChunk>& bins, const TilePartition& p) {
  std::set<std::pair<uint32_t, uint32_t>> primitive_tiles, vertex_tiles;
  std::set<uint32_t> binned;
  for (size_t c = 0; c < bins.size(); ++c) {
    const BinChunk& b = bins[c];
    for (size_t t = 0; t + 1 < b.offsets.size(); ++t) {
      for (uint32_t e = b.offsets[t]; e < b.offsets[t + 1]; ++e) {
        const uint32_t prim = r.primitive[c][b.entries[e]];
        primitive_tiles.insert({prim, p.owner[t]});
        for (int v = 0; v < 3; ++v) {
          const uint32_t vertex = r.vertices[size_t(prim) * 3 + size_t(v)];
          vertex_tiles.insert({vertex, p.owner[t]});
          binned.insert(vertex);
        }
      }
    }
  }
  return {primitive_tiles.size(), vertex_tiles.size(), binned.size()};
}

// Square partitions of 1..4 tiles a side and a scattered one.
std::vector<TilePartition> partitions_of(const TileGrid& g, std::mt19937& rng) {
  std::vector<TilePartition> partitions;
  for (int side = 1; side <= 4; ++side) partitions.push_back(square_partition(g, side, "square", 0));
  const uint32_t groups = 1 + uint32_t(rng() % 5);
  TilePartition scattered{"scattered", std::vector<uint32_t>(size_t(g.tile_count())), groups, 0};
  for (uint32_t& o : scattered.owner) o = uint32_t(rng() % groups);
  partitions.push_back(scattered);
  return partitions;
}

void expect_reference(const RandomFrame& r, const TilingFrame& f, const TileIncidence& inc, const TilePartition& p,
                      const std::string& what) {
  const ReferenceCounts ref = reference(r, *f.bins, p);
  const TilingWork w = account_tiling(f, inc, p);
  SCOPED_TRACE(what + ", " + p.name + " of " + std::to_string(p.count));
  EXPECT_EQ(w.crossings, ref.crossings);
  EXPECT_EQ(w.pass2_invocations, ref.pass2);
  EXPECT_EQ(w.binned_vertices, ref.binned);
  EXPECT_EQ(w.redundant_invocations, ref.pass2 - std::min(ref.pass2, ref.binned));
  EXPECT_EQ(w.parameter_buffer_read_bytes, ref.pass2 * 48 + ref.crossings * 4);
  const TilingWork again = account_tiling(f, p);  // an incidence of its own
  EXPECT_EQ(again.crossings, w.crossings);
  EXPECT_EQ(again.pass2_invocations, w.pass2_invocations);
  EXPECT_EQ(again.binned_vertices, w.binned_vertices);
  EXPECT_EQ(again.largest_tile_bytes, w.largest_tile_bytes);
  EXPECT_EQ(again.tile_buffer_store_bytes, w.tile_buffer_store_bytes);
}

TEST(TilingAccounting, MatchesThePairSetsOnRandomFrames) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    const RandomFrame r(seed);
    std::mt19937 rng(seed);
    const std::string what = "seed " + std::to_string(seed);
    // The fine grid's incidence alone, and with the coarse grid riding on it.
    const TileIncidence fine = tile_incidence(r.frame);
    const TileIncidence both = tile_incidence(r.frame, &r.coarse_bins, r.coarse.grid);
    for (const TilePartition& p : partitions_of(r.frame.grid, rng)) {
      expect_reference(r, r.frame, fine, p, what + " fine");
      expect_reference(r, r.frame, both, p, what + " fine with coarse");
    }
    for (const TilePartition& p : partitions_of(r.coarse.grid, rng))
      expect_reference(r, r.coarse, both, p, what + " coarse");
  }
}

TEST(TilingAccounting, RandomFramesDoNotDependOnThreadCount) {
  for (uint32_t seed = 300; seed < 340; ++seed) {
    const RandomFrame r(seed);
    const TilePartition p = square_partition(r.coarse.grid, 1, "fixed", 0);
    TilingWork one;
    {
      tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
      one = account_tiling(r.coarse, tile_incidence(r.frame, &r.coarse_bins, r.coarse.grid), p);
    }
    const TilingWork many = account_tiling(r.coarse, tile_incidence(r.frame, &r.coarse_bins, r.coarse.grid), p);
    EXPECT_EQ(one.crossings, many.crossings) << "seed " << seed;
    EXPECT_EQ(one.pass2_invocations, many.pass2_invocations) << "seed " << seed;
    EXPECT_EQ(one.binned_vertices, many.binned_vertices) << "seed " << seed;
  }
}

// Lists carrying each set-up triangle's tiles (what binning keeps with BinLists::by_setup),
// derived here the slow way: every tile's list searched for the triangle, tiles ascending.
std::vector<BinChunk> with_setup_lists(const std::vector<BinChunk>& bins,
                                       const std::vector<std::vector<uint32_t>>& primitive) {
  std::vector<BinChunk> out = bins;
  for (size_t c = 0; c < out.size(); ++c) {
    BinChunk& b = out[c];
    b.setup_offsets = {0};
    b.setup_tiles.clear();
    for (uint32_t s = 0; s < primitive[c].size(); ++s) {
      for (size_t t = 0; t + 1 < b.offsets.size(); ++t) {
        if (std::find(b.entries.begin() + b.offsets[t], b.entries.begin() + b.offsets[t + 1], s) !=
            b.entries.begin() + b.offsets[t + 1])
          b.setup_tiles.push_back(uint32_t(t));
      }
      b.setup_offsets.push_back(uint32_t(b.setup_tiles.size()));
    }
  }
  return out;
}

// The incidence read from the per-triangle lists (no transposition) counts what the
// definition counts, on the fine grid alone and with the coarse grid, at 1 and many threads.
TEST(TilingAccounting, PerTriangleListsMatchThePairSetsAtAnyThreadCount) {
  for (uint32_t seed = 500; seed < 620; ++seed) {
    const RandomFrame r(seed);
    std::mt19937 rng(seed);
    const std::string what = "seed " + std::to_string(seed);
    const std::vector<BinChunk> bins = with_setup_lists(r.bins, r.primitive);
    const std::vector<BinChunk> coarse_bins = with_setup_lists(r.coarse_bins, r.primitive);
    TilingFrame fine_frame = r.frame, coarse_frame = r.coarse;
    fine_frame.bins = &bins;
    coarse_frame.bins = &coarse_bins;
    const TileIncidence fine = tile_incidence(fine_frame);
    const TileIncidence both = tile_incidence(fine_frame, &coarse_bins, coarse_frame.grid);
    for (const TilePartition& p : partitions_of(fine_frame.grid, rng)) {
      expect_reference(r, fine_frame, fine, p, what + " fine");
      expect_reference(r, fine_frame, both, p, what + " fine with coarse");
    }
    for (const TilePartition& p : partitions_of(coarse_frame.grid, rng)) {
      expect_reference(r, coarse_frame, both, p, what + " coarse");
      TilingWork one;
      {
        tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
        one = account_tiling(coarse_frame, tile_incidence(fine_frame, &coarse_bins, coarse_frame.grid), p);
      }
      const TilingWork many = account_tiling(coarse_frame, both, p);
      EXPECT_EQ(one.crossings, many.crossings) << what;
      EXPECT_EQ(one.pass2_invocations, many.pass2_invocations) << what;
      EXPECT_EQ(one.binned_vertices, many.binned_vertices) << what;
    }
  }
}

// A frame of some 10^5 vertices, most of them in several tiles: the incidence's blocked
// passes (vertex numbering, running sums, per-chunk copies) span many blocks. Its counts equal
// the definition's, and the whole incidence is the same at 1 thread and at many.
TEST(TilingAccounting, LargeFrameSpansSeveralBlocks) {
  const RandomFrame r(7, 200);
  ASSERT_GT(r.frame.vertices, 16384u);
  const TileIncidence both = tile_incidence(r.frame, &r.coarse_bins, r.coarse.grid);
  ASSERT_GT(both.vertex_offsets.size(), 2u * 16384u + 1u);
  ASSERT_GT(both.primitive_offsets.size(), 16384u + 1u);
  std::mt19937 rng(7);
  for (const TilePartition& p : partitions_of(r.frame.grid, rng)) expect_reference(r, r.frame, both, p, "fine");
  for (const TilePartition& p : partitions_of(r.coarse.grid, rng)) expect_reference(r, r.coarse, both, p, "coarse");
  TileIncidence one;
  {
    tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
    one = tile_incidence(r.frame, &r.coarse_bins, r.coarse.grid);
  }
  EXPECT_EQ(one.single_primitives, both.single_primitives);
  EXPECT_EQ(one.single_vertices, both.single_vertices);
  EXPECT_EQ(one.binned_vertices, both.binned_vertices);
  EXPECT_EQ(one.coarse_only_primitives, both.coarse_only_primitives);
  EXPECT_EQ(one.coarse_only_vertices, both.coarse_only_vertices);
  EXPECT_EQ(one.coarse_binned_vertices, both.coarse_binned_vertices);
  EXPECT_EQ(one.primitive_offsets, both.primitive_offsets);
  EXPECT_EQ(one.primitive_tiles, both.primitive_tiles);
  EXPECT_EQ(one.vertex_offsets, both.vertex_offsets);
  EXPECT_EQ(one.vertex_tiles, both.vertex_tiles);
}

}  // namespace
}  // namespace tessera
