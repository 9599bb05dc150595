// The timing model on shipped scenes: more hardware never makes a frame slower, halving the
// clock doubles its milliseconds, and the modelled time does not depend on the thread count.
#include <gtest/gtest.h>

#include <filesystem>

#include "tessera/renderer.h"

namespace tessera {
namespace {

const std::filesystem::path kAssets = std::filesystem::path(TESSERA_SOURCE_DIR) / "assets";

double frame_cycles(const Scene& scene, const Config& config) {
  Renderer renderer(config);
  return renderer.render(scene, scene.camera).stats.get_number("timing.frame.cycles");
}

class TimingOnScenes : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingOnScenes, MoreHardwareNeverSlower) {
  const Scene scene = load_scene(kAssets / GetParam());
  for (HardwarePreset preset : {HardwarePreset::small, HardwarePreset::medium, HardwarePreset::large}) {
    for (TilingMode tiling : {TilingMode::fixed, TilingMode::adaptive}) {
      Config base;
      base.frame.width = 320;
      base.frame.height = 180;
      base.tiling.mode = tiling;
      base.tiling.baselines = false;
      base.hardware = hardware_preset(preset);
      const double cycles = frame_cycles(scene, base);
      ASSERT_GT(cycles, 0.0);
      Config more = base;
      more.hardware.eus *= 2;
      EXPECT_LE(frame_cycles(scene, more), cycles) << "eus";
      more = base;
      more.hardware.memory_bytes_per_clock *= 2;
      EXPECT_LE(frame_cycles(scene, more), cycles) << "bandwidth";
      more = base;
      more.hardware.raster_slices += 3;
      EXPECT_LE(frame_cycles(scene, more), cycles) << "slices";
      more = base;
      more.hardware.texels_per_clock *= 2;
      more.hardware.raster_samples_per_clock *= 2;
      EXPECT_LE(frame_cycles(scene, more), cycles) << "raster and texture rates";
    }
  }
}

TEST_P(TimingOnScenes, ClockAndThreads) {
  const Scene scene = load_scene(kAssets / GetParam());
  Config config;
  config.frame.width = 320;
  config.frame.height = 180;
  config.frame.threads = 1;
  const Frame one = Renderer(config).render(scene, scene.camera);
  config.frame.threads = 3;
  config.hardware.clock_mhz /= 2;
  const Frame slow = Renderer(config).render(scene, scene.camera);
  EXPECT_EQ(one.stats.get_number("timing.frame.cycles"), slow.stats.get_number("timing.frame.cycles"));
  EXPECT_DOUBLE_EQ(2 * one.stats.get_number("timing.frame.ms"), slow.stats.get_number("timing.frame.ms"));
}

// Hybrid frames add their rays' modelled time after the raster frame's.
TEST_P(TimingOnScenes, HybridAddsTheRaysAfterTheRasterFrame) {
  const Scene scene = load_scene(kAssets / GetParam());
  Config config;
  config.frame.width = 160;
  config.frame.height = 90;
  const double raster = Renderer(config).render(scene, scene.camera).stats.get_number("timing.frame.cycles");
  config.frame.mode = FrameMode::hybrid;
  const Stats hybrid = Renderer(config).render(scene, scene.camera).stats;
  EXPECT_EQ(hybrid.get_number("timing.hybrid.raster_cycles"), raster);
  EXPECT_GT(hybrid.get_number("timing.hybrid.ray_cycles"), 0.0);
  EXPECT_EQ(hybrid.get_number("timing.frame.cycles"), raster + hybrid.get_number("timing.hybrid.ray_cycles"));
}

std::string scene_name(const ::testing::TestParamInfo<std::string>& p) { return p.param.substr(0, p.param.find('.')); }
INSTANTIATE_TEST_SUITE_P(Scenes, TimingOnScenes, ::testing::Values("default.json", "patches.json"), scene_name);

}  // namespace
}  // namespace tessera
