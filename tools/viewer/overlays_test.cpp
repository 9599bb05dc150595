#include "viewer/overlays.h"

#include <gtest/gtest.h>

#include "tessera/color_state.h"

namespace tessera::viewer {
namespace {

Frame tiled_frame() {
  Frame f;
  f.color = Image(20, 10);
  f.depth.assign(200, 1.0f);
  f.diagnostics.tile_size = 8;
  f.diagnostics.tiles_x = 3;
  f.diagnostics.tiles_y = 2;
  f.diagnostics.tiles.resize(6);
  f.diagnostics.tiles[4].bin_entries = 10;  // tile (1, 1)
  f.diagnostics.tiles[5].bin_entries = 5;   // tile (2, 1): partial, 4x2 pixels
  return f;
}

TEST(Overlays, ListIsIndexedByKind) {
  for (size_t i = 0; i < kOverlays.size(); ++i) EXPECT_EQ(size_t(kOverlays[i].kind), i);
  EXPECT_FALSE(build_overlay(OverlayKind::none, tiled_frame(), Camera{}).has_value());
}

TEST(Overlays, RampEndsAndClamping) {
  EXPECT_EQ(heat_ramp(-1.0f), heat_ramp(0.0f));
  EXPECT_EQ(heat_ramp(2.0f), heat_ramp(1.0f));
  EXPECT_NE(heat_ramp(0.0f), heat_ramp(1.0f));
  EXPECT_EQ(channel(heat_ramp(0.5f, 77), 3), 77);
}

TEST(Overlays, TileHeatMapCoversTheFrameWithTheMaximumInTheLegend) {
  const Frame f = tiled_frame();
  const auto o = build_overlay(OverlayKind::tile_bin_entries, f, Camera{});
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->image.width, 20);
  EXPECT_EQ(o->image.height, 10);
  EXPECT_EQ(o->legend.min, 0.0);
  EXPECT_EQ(o->legend.max, 10.0);
  const Rgba8 hot = o->image.at(12, 9);   // inside tile (1, 1), off its outline
  const Rgba8 warm = o->image.at(18, 9);  // inside tile (2, 1)
  const Rgba8 cold = o->image.at(3, 3);   // tile (0, 0): zero count
  EXPECT_EQ(hot & 0xffffffu, heat_ramp(1.0f) & 0xffffffu);
  EXPECT_EQ(warm & 0xffffffu, heat_ramp(0.5f) & 0xffffffu);
  EXPECT_LT(channel(cold, 3), channel(hot, 3));
}

TEST(Overlays, DepthLeavesBackgroundClearAndReportsViewDistances) {
  Frame f = tiled_frame();
  Camera cam;
  cam.near_plane = 1.0f;
  cam.far_plane = 100.0f;
  // z = n f / (f - d (f - n)): d = 0 is the near plane, d = 0.5 is 100 / 50.5.
  f.depth[0] = 0.0f;
  f.depth[1] = 0.5f;
  const auto o = build_overlay(OverlayKind::depth, f, cam);
  ASSERT_TRUE(o.has_value());
  EXPECT_NEAR(o->legend.min, 1.0, 1e-9);
  EXPECT_NEAR(o->legend.max, 100.0 / 50.5, 1e-9);
  EXPECT_EQ(o->image.pixels[0], heat_ramp(0.0f));
  EXPECT_EQ(o->image.pixels[1], heat_ramp(1.0f));
  EXPECT_EQ(channel(o->image.pixels[2], 3), 0);
}

TEST(Overlays, DepthOfAnEmptyFrameIsAllClear) {
  const auto o = build_overlay(OverlayKind::depth, tiled_frame(), Camera{});
  ASSERT_TRUE(o.has_value());
  for (Rgba8 p : o->image.pixels) EXPECT_EQ(channel(p, 3), 0);
}

}  // namespace
}  // namespace tessera::viewer

namespace tessera::viewer {
namespace {

TEST(Overlays, ColorStateMapsEveryBlockWithACategoricalLegend) {
  Frame f;
  f.color = Image(20, 10);  // 3 x 3 blocks of 8x4, the last column and row partial
  f.diagnostics.color_blocks_x = 3;
  f.diagnostics.color_blocks_y = 3;
  f.diagnostics.color_states.assign(9, uint8_t(ColorTileState::cleared));
  f.diagnostics.color_states[4] = uint8_t(ColorTileState::index_two_colour);   // block (1, 1)
  f.diagnostics.color_states[8] = uint8_t(ColorTileState::planes_compressed);  // block (2, 2), partial
  const auto o = build_overlay(OverlayKind::color_state, f, Camera{});
  ASSERT_TRUE(o);
  ASSERT_EQ(o->legend.categories.size(), 3u);
  uint64_t total = 0;
  for (const LegendEntry& e : o->legend.categories) total += e.count;
  EXPECT_EQ(total, 9u);
  EXPECT_EQ(o->legend.categories[0].name, "cleared");
  EXPECT_EQ(o->legend.categories[0].count, 7u);
  // Pixels take their block's swatch (alpha aside).
  EXPECT_EQ(o->image.at(9, 5) & 0xffffffu,
            color_tile_state_swatch(uint8_t(ColorTileState::index_two_colour)) & 0xffffffu);
  EXPECT_EQ(o->image.at(19, 9) & 0xffffffu,
            color_tile_state_swatch(uint8_t(ColorTileState::planes_compressed)) & 0xffffffu);
  EXPECT_EQ(o->image.at(0, 0) & 0xffffffu, color_tile_state_swatch(uint8_t(ColorTileState::cleared)) & 0xffffffu);
}

TEST(Overlays, ColorStateWithoutMsaaSaysWhy) {
  Frame f;
  f.color = Image(8, 4);
  const auto o = build_overlay(OverlayKind::color_state, f, Camera{});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->legend.categories.empty());
  EXPECT_NE(o->legend.title.find("msaa"), std::string::npos);
  for (Rgba8 p : o->image.pixels) EXPECT_EQ(p >> 24, 0u) << "nothing drawn";
}

}  // namespace
}  // namespace tessera::viewer

namespace tessera::viewer {
namespace {

// A 32x16 frame of 16x16 atomic tiles: two tiles, PICB {0, 100}, supertiles {0, 1}.
Frame atomic_frame() {
  Frame f;
  f.color = Image(32, 16);
  f.diagnostics.atomic_size = 16;
  f.diagnostics.atomic_x = 2;
  f.diagnostics.atomic_y = 1;
  f.diagnostics.picb = {0, 100};
  f.diagnostics.supertile_of = {0, 1};
  return f;
}

TEST(Overlays, PicbHeatMapPerAtomicTile) {
  const auto o = build_overlay(OverlayKind::picb, atomic_frame(), Camera{});
  ASSERT_TRUE(o);
  EXPECT_DOUBLE_EQ(o->legend.max, 100.0);
  EXPECT_EQ(o->image.at(20, 5), heat_ramp(1.0f, 185));
  EXPECT_EQ(o->image.at(3, 3) >> 24, 60u) << "a zero-cost tile stays faint";
}

TEST(Overlays, SupertileBordersAreDrawnWhereOwnersChange) {
  const auto o = build_overlay(OverlayKind::supertiles, atomic_frame(), Camera{});
  ASSERT_TRUE(o);
  EXPECT_NE(o->legend.title.find("2 supertiles"), std::string::npos);
  EXPECT_EQ(o->image.at(15, 4), pack_rgba8(0, 0, 0, 230)) << "last column of supertile 0 borders supertile 1";
  EXPECT_NE(o->image.at(5, 4), o->image.at(25, 4)) << "distinct tints";
  Frame empty;
  empty.color = Image(8, 8);
  const auto none = build_overlay(OverlayKind::supertiles, empty, Camera{});
  ASSERT_TRUE(none);
  EXPECT_NE(none->legend.title.find("no adaptive-tiling data"), std::string::npos);
}

// A replayed capture's frame: two overlapping rectangles through render_clip_space with per-draw
// diagnostics (what the render worker gets from replay_frame).
Frame replayed_frame() {
  auto rect = [](float x0, float y0, float x1, float y1, float z) {
    ClipSpaceDraw d;
    d.positions = {{x0, y0, z, 1}, {x0, y1, z, 1}, {x1, y1, z, 1}, {x1, y0, z, 1}};
    d.indices = {0, 1, 2, 0, 2, 3};
    d.state.cull = CullMode::none;
    return d;
  };
  ClipSpaceFrame f;
  f.width = 16;
  f.height = 16;
  f.draws = {rect(-1, -1, 0, 0, 0.5f), rect(-0.5f, -0.5f, 1, 1, 0.25f)};  // pixels [0,8)^2, then [4,16)^2 nearer
  Config config;
  config.frame.diagnostics = true;
  Renderer renderer(config);
  return renderer.render_clip_space(f, true);
}

TEST(Overlays, OverdrawCountsFragmentsPassingDepth) {
  const Frame f = replayed_frame();
  const auto o = build_overlay(OverlayKind::overdraw, f, Camera{});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->legend.max, 2.0);  // the overlap [4, 8)^2: both draws pass (the second is nearer)
  EXPECT_NE(o->image.at(5, 5), o->image.at(1, 1)) << "overlap vs single";
  EXPECT_NE(o->image.at(1, 1), o->image.at(1, 12)) << "single vs none";
  Frame scene_frame;
  scene_frame.color = Image(8, 8);
  const auto none = build_overlay(OverlayKind::overdraw, scene_frame, Camera{});
  ASSERT_TRUE(none);
  EXPECT_NE(none->legend.title.find("only replayed captures"), std::string::npos);
}

TEST(Overlays, ScrubbedDrawHighlightsTheLastDraw) {
  const Frame f = replayed_frame();
  const auto o = build_overlay(OverlayKind::draw_highlight, f, Camera{});
  ASSERT_TRUE(o);
  ASSERT_EQ(o->legend.categories.size(), 1u);
  EXPECT_EQ(o->legend.categories[0].count, 12u * 12u);  // the second draw's pixels
  EXPECT_EQ(o->image.at(10, 10), pack_rgba8(255, 230, 40, 220));
  EXPECT_EQ(o->image.at(1, 1), pack_rgba8(0, 0, 0, 150));
}

}  // namespace
}  // namespace tessera::viewer
