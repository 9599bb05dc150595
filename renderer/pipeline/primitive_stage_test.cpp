// The primitive stage's lists for the tiling accounting: each chunk binned on the atomic grid in
// the same pass (PrimitiveStageInput::atomic) gives exactly the lists of binning its set-up
// triangles on that grid afterwards, the kept per-triangle lists are the tile lists
// transposed, and nothing the stage writes depends on the thread count or on asking for them.
#include "pipeline/primitive_stage.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include <tbb/task_arena.h>

namespace tessera {
namespace {

struct RandomMesh {
  std::vector<ClipVertex> vertices;
  std::vector<uint32_t> indices;  // two draws: the first and second half of the triangles
  std::vector<PrimitiveDraw> draws;
  size_t triangles = 0;
};

// Small triangles scattered over (and past) a w x h frame, some with a vertex behind the eye
// or beyond the guard band (clipped), and a few large ones.
RandomMesh random_mesh(uint32_t seed, int w, int h, size_t triangles) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-1.3f, 1.3f), near(-0.02f, 0.02f), depth(0.05f, 0.95f), any(-4.0f, 4.0f);
  RandomMesh m;
  for (size_t t = 0; t < triangles; ++t) {
    const bool big = t % 97 == 0, wild = t % 31 == 0;
    const float cx = pos(rng), cy = pos(rng);
    for (int k = 0; k < 3; ++k) {
      ClipVertex v{};
      const float wv = wild && k == 0 ? -0.5f : 1.0f;
      v.clip = {big ? pos(rng) : cx + near(rng), big ? pos(rng) : cy + near(rng), wild ? any(rng) : depth(rng), wv};
      for (int i = 0; i < kMaxVaryings; ++i) v.varyings[i] = float(t * 3 + size_t(k) + size_t(i));
      m.indices.push_back(uint32_t(m.vertices.size()));
      m.vertices.push_back(v);
    }
  }
  m.triangles = triangles;
  const size_t half = triangles / 2;
  for (size_t d = 0; d < 2; ++d) {
    PrimitiveDraw draw;
    draw.triangle_base = d ? half : 0;
    draw.triangle_count = d ? triangles - half : half;
    draw.indices = m.indices.data() + draw.triangle_base * 3;
    draw.vertex_base = 0;
    draw.cull = d ? CullMode::none : CullMode::back;
    draw.viewport = Viewport{w, h};
    draw.guard = GuardBand::from_pixels(64.0f, w, h);
    m.draws.push_back(draw);
  }
  return m;
}

void run_into(const RandomMesh& m, const TileGrid& grid, const TileGrid* atomic, bool sources, int threads,
              PrimitiveStageOutput& out) {
  PrimitiveStageInput in;
  in.draws = &m.draws;
  in.vertices = m.vertices.data();
  in.vertex_count = m.vertices.size();
  in.triangles = m.triangles;
  in.varyings = kMaxVaryings;
  in.grid = grid;
  in.record_sources = sources;
  in.atomic = atomic;
  tbb::task_arena arena(threads);
  arena.execute([&] { run_primitive_stage(in, out); });
}

PrimitiveStageOutput run(const RandomMesh& m, const TileGrid& grid, const TileGrid* atomic, bool sources, int threads) {
  PrimitiveStageOutput out;
  run_into(m, grid, atomic, sources, threads, out);
  return out;
}

void expect_same_chunks(const std::vector<BinChunk>& a, const std::vector<BinChunk>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t c = 0; c < a.size(); ++c) {
    ASSERT_EQ(a[c].setups.size(), b[c].setups.size()) << what << " chunk " << c;
    // memcmp of empty vectors may get null pointers, which it must not (UBSan).
    if (!a[c].setups.empty()) {
      EXPECT_EQ(0, std::memcmp(a[c].setups.data(), b[c].setups.data(), a[c].setups.size() * sizeof(TriangleSetup)))
          << what << " chunk " << c;
    }
    EXPECT_EQ(a[c].offsets, b[c].offsets) << what << " chunk " << c;
    EXPECT_EQ(a[c].entries, b[c].entries) << what << " chunk " << c;
  }
}

TEST(PrimitiveStage, AtomicListsInTheSamePassEqualBinningAfterwardsAtAnyThreadCount) {
  const int w = 333, h = 207;
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const RandomMesh m = random_mesh(seed, w, h, 2 * kChunkTriangles + 1234);
    for (int tile : {32, 64}) {
      const TileGrid grid = TileGrid::make(w, h, tile), atomic = TileGrid::make(w, h, 16);
      const PrimitiveStageOutput plain = run(m, grid, nullptr, false, 1);
      const PrimitiveStageOutput one = run(m, grid, &atomic, true, 1);
      const PrimitiveStageOutput two = run(m, grid, &atomic, true, 2);
      // The render grid's lists and records do not change with the extra lists or the threads.
      expect_same_chunks(plain.chunks, one.chunks, "plain vs atomic");
      expect_same_chunks(one.chunks, two.chunks, "1 vs 2 threads");
      ASSERT_EQ(plain.counters.size(), one.counters.size());
      for (size_t c = 0; c < one.counters.size(); ++c) {
        EXPECT_EQ(plain.counters[c].v, one.counters[c].v) << c;
        EXPECT_EQ(one.counters[c].v, two.counters[c].v) << c;
      }
      EXPECT_TRUE(plain.atomic.empty());
      EXPECT_EQ(one.sources, two.sources);
      ASSERT_EQ(one.atomic.size(), one.chunks.size());
      ASSERT_EQ(two.atomic.size(), one.chunks.size());
      size_t clipped_or_culled = 0, entries = 0;
      for (size_t c = 0; c < one.chunks.size(); ++c) {
        const BinChunk& chunk = one.chunks[c];
        // Binned on the atomic grid afterwards, from the chunk's records.
        std::vector<uint32_t> offsets, entries_after, setup_offsets, setup_tiles;
        bin_setups(atomic, SampleExtent{}, chunk.setups, offsets, entries_after, &setup_offsets, &setup_tiles);
        for (const PrimitiveStageOutput* out : {&one, &two}) {
          const BinChunk& a = out->atomic[c];
          EXPECT_EQ(a.offsets, offsets) << "chunk " << c;
          EXPECT_EQ(a.entries, entries_after) << "chunk " << c;
          EXPECT_EQ(a.setup_offsets, setup_offsets) << "chunk " << c;
          EXPECT_EQ(a.setup_tiles, setup_tiles) << "chunk " << c;
          EXPECT_TRUE(a.setups.empty());
        }
        // The render grid's per-triangle lists are its tile lists transposed.
        ASSERT_EQ(chunk.setup_offsets.size(), chunk.setups.size() + 1);
        std::vector<std::vector<uint32_t>> transposed(chunk.setups.size());
        for (uint32_t t = 0; t < uint32_t(grid.tile_count()); ++t) {
          for (uint32_t k = chunk.offsets[t]; k < chunk.offsets[t + 1]; ++k) transposed[chunk.entries[k]].push_back(t);
        }
        for (size_t s = 0; s < chunk.setups.size(); ++s) {
          EXPECT_EQ(std::vector<uint32_t>(chunk.setup_tiles.begin() + chunk.setup_offsets[s],
                                          chunk.setup_tiles.begin() + chunk.setup_offsets[s + 1]),
                    transposed[s]);
        }
        EXPECT_TRUE(plain.chunks[c].setup_offsets.empty());
        entries += one.atomic[c].entries.size();
        clipped_or_culled += one.counters[c][RasterCounters::clipped];
      }
      EXPECT_GT(entries, m.triangles / 4);
      EXPECT_GT(clipped_or_culled, 0u);
    }
  }
}

}  // namespace

namespace {

void expect_same_output(const PrimitiveStageOutput& a, const PrimitiveStageOutput& b, const char* what) {
  expect_same_chunks(a.chunks, b.chunks, what);
  expect_same_chunks(a.atomic, b.atomic, what);
  ASSERT_EQ(a.counters.size(), b.counters.size()) << what;
  for (size_t c = 0; c < a.counters.size(); ++c) EXPECT_EQ(a.counters[c].v, b.counters[c].v) << what << " chunk " << c;
  EXPECT_EQ(a.sources, b.sources) << what;
  for (size_t c = 0; c < a.chunks.size(); ++c) {
    EXPECT_EQ(a.chunks[c].setup_offsets, b.chunks[c].setup_offsets) << what << " chunk " << c;
    EXPECT_EQ(a.chunks[c].setup_tiles, b.chunks[c].setup_tiles) << what << " chunk " << c;
  }
}

}  // namespace

// Set-up from window positions computed once per vertex (every draw with the same viewport)
// writes the same records and counts as set-up from each triangle's clip-space corners (taken
// when one draw's viewport is a custom one mapping to the same window), and an output reused
// from a larger and from a smaller frame holds exactly a fresh output's lists.
TEST(PrimitiveStage, PerVertexWindowPositionsAndAReusedOutputChangeNothing) {
  const int w = 333, h = 207;
  const TileGrid grid = TileGrid::make(w, h, 64), atomic = TileGrid::make(w, h, 16);
  PrimitiveStageOutput reused;
  for (uint32_t seed : {4u, 5u, 6u}) {
    RandomMesh m = random_mesh(seed, w, h, seed == 5 ? kChunkTriangles / 2 : 2 * kChunkTriangles + 999);
    const PrimitiveStageOutput per_vertex = run(m, grid, &atomic, true, 2);
    ASSERT_EQ(per_vertex.window.size(), m.vertices.size());
    RandomMesh corners = m;
    for (PrimitiveDraw& d : corners.draws) d.indices = corners.indices.data() + d.triangle_base * 3;
    ViewportState whole;
    whole.width = float(w);
    whole.height = float(h);
    corners.draws[1].viewport =
        Viewport::of_state(w, h, SampleExtent{}, whole, ScissorRect{0, 0, uint32_t(w), uint32_t(h)});
    ASSERT_TRUE(corners.draws[1].viewport.custom);
    const PrimitiveStageOutput per_corner = run(corners, grid, &atomic, true, 2);
    EXPECT_TRUE(per_corner.window.empty());
    expect_same_output(per_vertex, per_corner, "per vertex vs per corner");
    uint64_t setups = 0, backface = 0;
    for (const RasterCounters& c : per_vertex.counters) {
      setups += c[RasterCounters::setup];
      backface += c[RasterCounters::culled_backface];
    }
    EXPECT_GT(setups, m.triangles / 4);
    EXPECT_GT(backface, 0u);
    run_into(m, grid, &atomic, true, 2, reused);
    expect_same_output(per_vertex, reused, "reused vs fresh");
  }
}

}  // namespace tessera
