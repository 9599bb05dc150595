// The frame must not depend on the thread count (image, depth and every counter), nor on the
// fixed tile size (image and depth).
#include <gtest/gtest.h>

#include <filesystem>

#include "tessera/renderer.h"

namespace tessera {
namespace {

const std::filesystem::path kAssets = std::filesystem::path(TESSERA_SOURCE_DIR) / "assets";

Frame render(const Scene& scene, int threads, int tile_size, int w = 400, int h = 240) {
  Config cfg;
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

INSTANTIATE_TEST_SUITE_P(Scenes, Determinism, ::testing::Values("default.json", "bench/objects.json"),
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
  EXPECT_EQ(u("raster.depth.passed") + u("raster.depth.failed"), u("raster.fragments.covered"));
  EXPECT_EQ(u("raster.fs.invocations"), 4 * u("raster.quads.shaded"));
  EXPECT_GT(u("raster.triangles.culled_backface"), 0u);
  EXPECT_EQ(u("memory.color.written_bytes"), uint64_t(320 * 200 * 4));
  EXPECT_EQ(u("memory.vertex.read_bytes"), 32 * u("raster.vs.invocations"));
  EXPECT_EQ(u("memory.texture.read_bytes"), 4 * u("texture.texel_fetches"));
}

}  // namespace
}  // namespace tessera
