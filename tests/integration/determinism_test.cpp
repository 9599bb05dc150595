// The frame must not depend on the thread count (image, depth and every counter), nor on the
// fixed tile size (image and depth).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tessera/renderer.h"

namespace tessera {
namespace {

const std::filesystem::path kAssets = std::filesystem::path(TESSERA_SOURCE_DIR) / "assets";

Frame render(const Scene& scene, int threads, int tile_size, int w = 400, int h = 240, int msaa = 1,
             TilingMode tiling = TilingMode::fixed) {
  Config cfg;
  cfg.tiling.mode = tiling;
  cfg.frame.diagnostics = true;  // the PICB and supertile maps some tests read
  cfg.raster.msaa = msaa;
  cfg.frame.width = w;
  cfg.frame.height = h;
  cfg.frame.threads = threads;
  cfg.raster.tile_size = tile_size;
  Renderer r(cfg);
  return r.render(scene, scene.camera);
}

// Everything but wall-clock times and the thread count itself.
std::map<std::string, Stats::Value> deterministic_stats(const Stats& s) {
  std::map<std::string, Stats::Value> out;
  for (const auto& [k, v] : s.values()) {
    if (k.rfind("frame.time_ms.", 0) == 0 || k == "frame.threads") continue;
    out[k] = v;
  }
  return out;
}

size_t differing_pixels(const Image& a, const Image& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) n += a.pixels[i] != b.pixels[i];
  return n;
}

class Determinism : public ::testing::TestWithParam<std::string> {};

TEST_P(Determinism, ThreadCountChangesNothing) {
  const Scene scene = load_scene(kAssets / GetParam());
  const Frame one = render(scene, 1, 64);
  ASSERT_GT(one.stats.get_u64("raster.depth.passed"), 0u) << "scene drew nothing";
  for (int threads : {2, 3, 8}) {
    const Frame many = render(scene, threads, 64);
    EXPECT_EQ(differing_pixels(one.color, many.color), 0u) << threads << " threads";
    EXPECT_TRUE(one.depth == many.depth) << threads << " threads";
    EXPECT_EQ(deterministic_stats(one.stats), deterministic_stats(many.stats)) << threads << " threads";
  }
}

TEST_P(Determinism, TileSizeChangesNoPixel) {
  const Scene scene = load_scene(kAssets / GetParam());
  const Frame base = render(scene, 0, 64);
  for (int tile : {8, 16, 40, 128, 512}) {
    const Frame other = render(scene, 0, tile);
    EXPECT_EQ(differing_pixels(base.color, other.color), 0u) << "tile " << tile;
    EXPECT_TRUE(base.depth == other.depth) << "tile " << tile;
    // Same work, binned differently.
    EXPECT_EQ(base.stats.get_u64("raster.fragments.covered"), other.stats.get_u64("raster.fragments.covered"));
    EXPECT_EQ(base.stats.get_u64("raster.triangles.setup"), other.stats.get_u64("raster.triangles.setup"));
  }
}

TEST_P(Determinism, MsaaFramesIndependentOfThreadsAndTiles) {
  const Scene scene = load_scene(kAssets / GetParam());
  for (int msaa : {4, 8}) {
    const Frame base = render(scene, 1, 64, 200, 120, msaa);
    for (auto [threads, tile] : {std::pair{2, 64}, {3, 16}, {0, 40}}) {
      const Frame other = render(scene, threads, tile, 200, 120, msaa);
      EXPECT_EQ(differing_pixels(base.color, other.color), 0u) << msaa << "x, " << threads << " threads, tile " << tile;
      EXPECT_TRUE(base.depth == other.depth);
      EXPECT_EQ(base.stats.get_u64("raster.samples.covered"), other.stats.get_u64("raster.samples.covered"));
    }
    // More samples than pixels are covered along edges; the resolve changes edge pixels only.
    const Frame single = render(scene, 0, 64, 200, 120, 1);
    EXPECT_GT(base.stats.get_u64("raster.samples.covered"), base.stats.get_u64("raster.fragments.covered"));
    const size_t diff = differing_pixels(single.color, base.color);
    EXPECT_GT(diff, 0u);
    EXPECT_LT(diff, single.color.pixels.size() / 3) << "MSAA should change edge pixels, not the whole frame";
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, Determinism, ::testing::Values("default.json", "bench/objects.json", "patches.json"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return std::filesystem::path(p.param).stem().string();
                         });

TEST(Renderer, OddSizesAndTinyFrames) {
  const Scene scene = load_scene(kAssets / "default.json");
  for (auto [w, h] : {std::pair{1, 1}, {3, 2}, {17, 9}, {65, 63}}) {
    const Frame f = render(scene, 0, 8, w, h);
    EXPECT_EQ(f.color.width, w);
    EXPECT_EQ(f.color.height, h);
    EXPECT_EQ(f.color.pixels.size(), size_t(w * h));
    EXPECT_EQ(f.stats.get_u64("memory.color.written_bytes"), uint64_t(w * h * 4));
  }
}

TEST(Renderer, NonFiniteTransformIsCulledNotCrashed) {
  Scene scene = load_scene(kAssets / "default.json");
  ASSERT_FALSE(scene.instances.empty());
  scene.instances[0].transform[0][0] = std::numeric_limits<float>::quiet_NaN();
  const Frame f = render(scene, 0, 64, 64, 48);
  EXPECT_GT(f.stats.get_u64("raster.triangles.culled_nonfinite"), 0u);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(Renderer, CounterIdentitiesHold) {
  const Scene scene = load_scene(kAssets / "default.json");
  // A camera inside the scene so that near-plane clipping happens.
  Camera cam = scene.camera;
  cam.near_plane = 0.5f;
  const Frame f = [&] {
    Config cfg;
    cfg.frame.width = 320;
    cfg.frame.height = 200;
    Renderer r(cfg);
    return r.render(scene, cam);
  }();
  const Stats& s = f.stats;
  auto u = [&](const char* k) { return s.get_u64(k); };
  EXPECT_EQ(u("raster.triangles.in"), u("frame.triangles"));
  EXPECT_EQ(u("raster.triangles.in") + u("raster.triangles.clip_output"),
            u("raster.triangles.culled_frustum") + u("raster.triangles.culled_nonfinite") +
                u("raster.triangles.culled_backface") + u("raster.triangles.culled_degenerate") +
                u("raster.triangles.setup") + u("raster.triangles.clipped"));
  EXPECT_EQ(u("raster.depth.passed") + u("raster.depth.failed"), u("raster.samples.covered"));
  EXPECT_EQ(u("raster.samples.covered"), u("raster.fragments.covered")) << "one sample per pixel at 1x";
  EXPECT_EQ(u("raster.fs.invocations"), 4 * u("raster.quads.shaded"));
  EXPECT_GT(u("raster.triangles.culled_backface"), 0u);
  EXPECT_EQ(u("memory.color.written_bytes"), uint64_t(320 * 200 * 4));
  EXPECT_EQ(u("memory.vertex.read_bytes"), 32 * u("raster.vs.invocations"));
  EXPECT_EQ(u("memory.texture.read_bytes"), 4 * u("texture.texel_fetches"));
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(ColorUnit, MultisampledStoreAccountsEveryBlock) {
  const Scene scene = load_scene(kAssets / "default.json");
  for (int msaa : {2, 4, 8}) {
    const int w = 200, h = 120;  // 64-pixel bin tiles: edge tiles are partial
    const Frame f = render(scene, 0, 64, w, h, msaa);
    const Stats& s = f.stats;
    auto u = [&](const std::string& k) { return s.get_u64(k); };
    // Every 8x4 block of every bin tile is stored once.
    uint64_t blocks = 0;
    for (int ty = 0; ty < h; ty += 64) {
      for (int tx = 0; tx < w; tx += 64) {
        const int tw = std::min(64, w - tx), th = std::min(64, h - ty);
        blocks += uint64_t((tw + 7) / 8) * uint64_t((th + 3) / 4);
      }
    }
    EXPECT_EQ(u("color.tiles.total"), blocks) << msaa << "x";
    EXPECT_EQ(u("color.baseline.uncompressed_bytes"), blocks * uint64_t(msaa) * 128u);
    EXPECT_GT(u("color.tiles.cleared"), 0u) << "the sky is the clear colour";
    EXPECT_LT(s.get_number("color.ratio.vs_uncompressed"), 0.5);
    EXPECT_LE(s.get_number("color.ratio.vs_planes_only"), 1.0);
    // Cache bookkeeping and the ledger: the resolve reads at least every block's final stored
    // form, and the resolved image is written on top of the cache's evictions.
    EXPECT_EQ(u("color.cache.hits") + u("color.cache.misses"), u("color.cache.accesses"));
    EXPECT_GT(u("color.cache.accesses"), 0u);
    EXPECT_LE(u("color.eviction.palette_stores"), u("color.eviction.palette_attempts"));
    EXPECT_GE(u("memory.color_index.read_bytes"), u("color.bytes.index"));
    EXPECT_GE(u("memory.color.read_bytes"), u("color.bytes.planes"));
    EXPECT_GE(u("memory.color.written_bytes"), uint64_t(w * h * 4) + u("color.traffic.planes.written_bytes"));
    EXPECT_GE(u("memory.color_control.written_bytes"), blocks * 4 / 8);
    uint64_t histogram = 0;
    for (const auto& [k, v] : s.values()) {
      if (k.rfind("color.bits_per_tile.", 0) == 0) histogram += std::get<uint64_t>(v);
    }
    EXPECT_EQ(histogram, blocks);
  }
  // No colour unit at 1x.
  EXPECT_FALSE(render(scene, 0, 64, 64, 48, 1).stats.has("color.tiles.total"));
}

Frame render_with_cache(const Scene& scene, int cache_bytes, int line_bytes, int ways) {
  Config cfg;
  cfg.frame.width = 200;
  cfg.frame.height = 120;
  cfg.raster.msaa = 4;
  cfg.color.cache_bytes = cache_bytes;
  cfg.color.line_bytes = line_bytes;
  cfg.color.ways = ways;
  Renderer r(cfg);
  return r.render(scene, scene.camera);
}

TEST(ColorUnit, CacheGeometryChangesTrafficButNeverPixels) {
  const Scene scene = load_scene(kAssets / "default.json");
  const Frame tiny = render_with_cache(scene, 256, 64, 1);
  const Frame normal = render_with_cache(scene, 16384, 64, 4);
  const Frame huge = render_with_cache(scene, 1 << 20, 128, 16);
  EXPECT_EQ(differing_pixels(tiny.color, normal.color), 0u);
  EXPECT_EQ(differing_pixels(huge.color, normal.color), 0u);
  auto u = [](const Frame& f, const char* k) { return f.stats.get_u64(k); };
  // A small cache misses more, and more evictions find a used plane outside the cache.
  EXPECT_GT(u(tiny, "color.cache.misses"), u(normal, "color.cache.misses"));
  EXPECT_GE(u(normal, "color.cache.misses"), u(huge, "color.cache.misses"));
  EXPECT_GT(u(tiny, "color.eviction.palette_skipped_planes_not_cached"),
            u(huge, "color.eviction.palette_skipped_planes_not_cached"));
  EXPECT_GT(u(tiny, "color.traffic.planes.written_bytes"), u(huge, "color.traffic.planes.written_bytes"));
  // A cache that holds a whole bin tile only evicts at the end of it: every tile then has all
  // its used planes resident, so the palette is attempted for every evicted tile.
  EXPECT_EQ(u(huge, "color.eviction.palette_skipped_planes_not_cached"), 0u);
  EXPECT_GT(huge.stats.get_number("color.cache.hit_rate"), tiny.stats.get_number("color.cache.hit_rate"));
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(AdaptiveTiling, FramePicbAndSupertilesAreConsistent) {
  const Scene scene = load_scene(kAssets / "default.json");
  const Frame f = render(scene, 0, 64, 320, 200);
  const Stats& s = f.stats;
  // 320x200 with 16x16 atomic tiles: 20 x 13 (the last row partial).
  ASSERT_EQ(f.diagnostics.atomic_x, 20);
  ASSERT_EQ(f.diagnostics.atomic_y, 13);
  ASSERT_EQ(f.diagnostics.picb.size(), 260u);
  ASSERT_EQ(f.diagnostics.supertile_of.size(), 260u);
  EXPECT_EQ(s.get_u64("tiling.atomic.tiles"), 260u);
  // Every crossing added the same PIC (one vertex layout, one shader) unless a tile saturated.
  uint64_t sum = 0;
  for (uint16_t c : f.diagnostics.picb) sum += c;
  // PIC = (0.5 * 32 bytes + 0.5 * L) * 3 vertices, rounded; L is the vertex program's length
  // counted by the EU (71 instructions: 41 of matrix products, 6 of normalising arithmetic and
  // an rsqrt).
  const uint64_t length = s.get_u64("shader.vertex.instructions_per_invocation");
  EXPECT_GT(length, 47u);
  EXPECT_EQ(s.get_u64("eu.stage.vertex.dynamic_instructions"), length * s.get_u64("raster.vs.invocations"));
  const uint64_t pic = uint64_t((0.5 * 32.0 + 0.5 * double(length)) * 3.0 + 0.5);
  const uint64_t unsaturated = s.get_u64("tiling.crossings") * pic;
  if (s.get_u64("tiling.picb.saturated") == 0) {
    EXPECT_EQ(sum, unsaturated);
  } else {
    EXPECT_LT(sum, unsaturated);  // saturated tiles hold 65535, less than their true sum
    uint64_t at_limit = 0;
    for (uint16_t c : f.diagnostics.picb) at_limit += c == 65535;
    EXPECT_EQ(at_limit, s.get_u64("tiling.picb.saturated"));
  }
  EXPECT_GT(s.get_u64("tiling.crossings"), s.get_u64("raster.triangles.setup") / 2);
  // Never more cut than the squares of the same budget; no supertile over the budget.
  EXPECT_LE(s.get_u64("tiling.supertiles.cut_cost"), s.get_u64("tiling.fixed.cut_cost"));
  EXPECT_LE(s.get_u64("tiling.supertiles.largest"), s.get_u64("tiling.supertiles.capacity"));
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(AdaptiveTiling, CloudsSceneSupertilesCutFarLessThanSquares) {
  // The spec's case: densely tessellated clouds beside cheap geometry. The supertiles keep
  // each cloud whole; squares of the same budget cut through them.
  const Scene scene = load_scene(kAssets / "bench/clouds.json");
  const Frame f = render(scene, 0, 64, 960, 540);
  const uint64_t adaptive = f.stats.get_u64("tiling.supertiles.cut_cost");
  const uint64_t fixed = f.stats.get_u64("tiling.fixed.cut_cost");
  EXPECT_GT(fixed, 0u);
  EXPECT_LT(adaptive * 10, fixed) << "adaptive " << adaptive << " vs fixed " << fixed;
  // Some supertile is not a rectangle (its atomic tiles do not fill its bounding box).
  bool non_rectangular = false;
  const uint32_t count = *std::max_element(f.diagnostics.supertile_of.begin(), f.diagnostics.supertile_of.end()) + 1;
  for (uint32_t s = 0; s < count && !non_rectangular; ++s) {
    int x0 = f.diagnostics.atomic_x, y0 = f.diagnostics.atomic_y, x1 = -1, y1 = -1, n = 0;
    for (int y = 0; y < f.diagnostics.atomic_y; ++y)
      for (int x = 0; x < f.diagnostics.atomic_x; ++x)
        if (f.diagnostics.supertile_of[size_t(y * f.diagnostics.atomic_x + x)] == s) {
          x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y), ++n;
        }
    non_rectangular = n > 0 && n < (x1 - x0 + 1) * (y1 - y0 + 1);
  }
  EXPECT_TRUE(non_rectangular);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

class TilingModes : public ::testing::TestWithParam<std::string> {};

// The spec's invariant: how the screen is tiled never changes a pixel. Adaptive supertiles
// and every fixed size from 16 to 256 give bit-identical colour and depth, at 1x and 4x.
TEST_P(TilingModes, AdaptiveAndEveryFixedSizeGiveTheSamePixels) {
  const Scene scene = load_scene(kAssets / GetParam());
  for (int msaa : {1, 4}) {
    const Frame adaptive = render(scene, 0, 64, 480, 270, msaa, TilingMode::adaptive);
    ASSERT_GT(adaptive.stats.get_u64("raster.depth.passed"), 0u);
    EXPECT_EQ(adaptive.stats.get_u64("tiling.rendered.render_tiles"),
              adaptive.stats.get_u64("tiling.supertiles.count"));
    for (int size : {16, 32, 64, 128, 256}) {
      const Frame fixed = render(scene, 0, size, 480, 270, msaa, TilingMode::fixed);
      EXPECT_EQ(differing_pixels(adaptive.color, fixed.color), 0u) << msaa << "x, fixed " << size;
      EXPECT_TRUE(adaptive.depth == fixed.depth) << msaa << "x, fixed " << size;
      EXPECT_EQ(adaptive.stats.get_u64("raster.fragments.covered"), fixed.stats.get_u64("raster.fragments.covered"));
    }
  }
}

// Supertile rendering, the PICB, the generator and the accounting of every baseline are the
// same whatever the thread count.
TEST_P(TilingModes, AdaptiveFrameIndependentOfThreads) {
  const Scene scene = load_scene(kAssets / GetParam());
  const Frame one = render(scene, 1, 64, 400, 240, 1, TilingMode::adaptive);
  const Frame many = render(scene, 3, 64, 400, 240, 1, TilingMode::adaptive);
  EXPECT_EQ(differing_pixels(one.color, many.color), 0u);
  EXPECT_EQ(deterministic_stats(one.stats), deterministic_stats(many.stats));
  EXPECT_EQ(one.diagnostics.supertile_of, many.diagnostics.supertile_of);
}

INSTANTIATE_TEST_SUITE_P(Scenes, TilingModes, ::testing::Values("default.json", "bench/clouds.json"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return std::filesystem::path(p.param).stem().string();
                         });

TEST(AdaptiveTiling, AccountingIdentitiesHold) {
  const Scene scene = load_scene(kAssets / "default.json");
  const Frame f = render(scene, 0, 64, 480, 270, 1, TilingMode::adaptive);
  const Stats& s = f.stats;
  // The rendered tiling is the adaptive baseline.
  for (const char* k : {"crossings", "vs.pass2_invocations", "vertex_fetch_bytes", "render_tiles"}) {
    EXPECT_EQ(s.get_u64(std::string("tiling.rendered.") + k), s.get_u64(std::string("tiling.baseline.adaptive.") + k))
        << k;
  }
  uint64_t previous = UINT64_MAX;
  for (int size : {16, 32, 64, 128, 256}) {
    const std::string p = "tiling.baseline.fixed_" + std::to_string(size);
    const uint64_t pass2 = s.get_u64(p + ".vs.pass2_invocations");
    const uint64_t binned = s.get_u64(p + ".vs.binned_vertices");
    // Each binned vertex is shaded at least once in pass 2; pass 1 shades every vertex.
    EXPECT_GE(pass2, binned);
    EXPECT_EQ(s.get_u64(p + ".vs.redundant_invocations"), pass2 - binned);
    EXPECT_GE(s.get_u64(p + ".vs.pass1_invocations"), binned);
    // Bigger tiles never shade more (each is a union of smaller ones).
    EXPECT_LE(pass2, previous) << size;
    previous = pass2;
    // Every pixel is stored exactly once, whatever the tiles.
    EXPECT_EQ(s.get_u64(p + ".tile_buffer.store_bytes"), 480u * 270u * 8u);
    EXPECT_GE(s.get_u64(p + ".parameter_buffer.read_bytes"), s.get_u64(p + ".parameter_buffer.written_bytes"));
  }
  EXPECT_EQ(s.get_u64("tiling.baseline.adaptive.tile_buffer.within_budget"), 1u);
  uint64_t histogram = 0;
  for (const auto& [k, v] : s.values()) {
    if (k.rfind("tiling.supertiles.size.le_", 0) == 0) histogram += std::get<uint64_t>(v);
  }
  EXPECT_EQ(histogram, s.get_u64("tiling.supertiles.count"));
}

TEST(AdaptiveTiling, CloudsSupertilesShadeFarFewerRedundantVertices) {
  // The spec's goal: redundant pass-2 vertex shading under adaptive supertiles at most a third
  // of the best fixed tiling that fits the same tile buffer.
  const Scene scene = load_scene(kAssets / "bench/clouds.json");
  const Frame f = render(scene, 0, 64, 960, 540, 1, TilingMode::adaptive);
  const Stats& s = f.stats;
  uint64_t best = UINT64_MAX;
  for (int size : {16, 32, 64, 128, 256}) {
    const std::string p = "tiling.baseline.fixed_" + std::to_string(size);
    if (s.get_u64(p + ".tile_buffer.within_budget")) best = std::min(best, s.get_u64(p + ".vs.redundant_invocations"));
  }
  ASSERT_NE(best, UINT64_MAX);
  ASSERT_GT(best, 0u);
  EXPECT_LE(s.get_u64("tiling.baseline.adaptive.vs.redundant_invocations") * 3, best);
}

}  // namespace
}  // namespace tessera
