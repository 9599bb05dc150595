// color.accounting switches the colour unit's model off (its cache, stored forms and counters):
// the frame's pixels, depth and samples must not change, and no color.* counter may be left.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tessera/renderer.h"

namespace tessera {
namespace {

const std::filesystem::path kAssets = std::filesystem::path(TESSERA_SOURCE_DIR) / "assets";

Frame render(const Scene& scene, int msaa, TilingMode tiling, bool accounting) {
  Config cfg;
  cfg.frame.width = 320;
  cfg.frame.height = 200;
  cfg.frame.threads = 2;
  cfg.frame.keep_samples = true;
  cfg.raster.msaa = msaa;
  cfg.tiling.mode = tiling;
  cfg.color.accounting = accounting;
  Renderer r(cfg);
  return r.render(scene, scene.camera);
}

size_t color_keys(const Stats& s) {
  size_t n = 0;
  for (const auto& [k, v] : s.values()) n += k.rfind("color.", 0) == 0;
  return n;
}

class ColorAccounting : public ::testing::TestWithParam<std::string> {};

TEST_P(ColorAccounting, OffChangesNoPixelAndLeavesNoCounter) {
  const Scene scene = load_scene(kAssets / GetParam());
  for (int msaa : {4, 8}) {
    for (TilingMode tiling : {TilingMode::fixed, TilingMode::adaptive}) {
      SCOPED_TRACE("msaa " + std::to_string(msaa) + (tiling == TilingMode::adaptive ? " adaptive" : " fixed"));
      const Frame on = render(scene, msaa, tiling, true);
      const Frame off = render(scene, msaa, tiling, false);
      ASSERT_GT(on.stats.get_u64("color.tiles.total"), 0u) << "the colour unit stored nothing";
      ASSERT_GT(on.stats.get_u64("raster.depth.passed"), 0u) << "scene drew nothing";
      EXPECT_TRUE(on.color.pixels == off.color.pixels);
      EXPECT_TRUE(on.depth == off.depth);
      ASSERT_EQ(on.diagnostics.samples.size(), off.diagnostics.samples.size());
      EXPECT_TRUE(on.diagnostics.samples == off.diagnostics.samples);
      EXPECT_GT(color_keys(on.stats), 0u);
      EXPECT_EQ(color_keys(off.stats), 0u);
      EXPECT_EQ(off.stats.get_u64("memory.color_index.written_bytes"), 0u);
      EXPECT_EQ(off.stats.get_u64("memory.color_control.written_bytes"), 0u);
      EXPECT_TRUE(off.diagnostics.color_states.empty());
      // Everything the colour unit does not feed is the same frame.
      EXPECT_EQ(on.stats.get_u64("raster.fragments.covered"), off.stats.get_u64("raster.fragments.covered"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, ColorAccounting, ::testing::Values("default.json", "bench/objects.json"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return std::filesystem::path(p.param).stem().string();
                         });

}  // namespace
}  // namespace tessera
