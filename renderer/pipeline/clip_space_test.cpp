// Draws entering at the primitive stage (Renderer::render_clip_space): hand-made clip-space
// draws with Vulkan state, checked pixel by pixel for coverage, colour and depth.
#include <gtest/gtest.h>

#include <vector>

#include "tessera/error.h"
#include "tessera/renderer.h"

namespace tessera {
namespace {

constexpr int kSize = 16;
const Rgba8 kRed = pack_rgba8(255, 0, 0), kGreen = pack_rgba8(0, 255, 0), kBlue = pack_rgba8(0, 0, 255);
const Rgba8 kBlack = pack_rgba8(0, 0, 0);

// Two triangles covering the clip rectangle [x0, x1] x [y0, y1] (NDC, y = -1 at the top row)
// at depth z, counter-clockwise on screen (front-facing by default).
ClipSpaceDraw quad(float x0, float y0, float x1, float y1, float z, glm::vec3 color) {
  ClipSpaceDraw d;
  d.positions = {{x0, y0, z, 1}, {x0, y1, z, 1}, {x1, y1, z, 1}, {x1, y0, z, 1}};
  d.indices = {0, 1, 2, 0, 2, 3};
  d.color = color;
  d.state.cull = CullMode::none;
  return d;
}
ClipSpaceDraw full(float z, glm::vec3 color) { return quad(-1, -1, 1, 1, z, color); }

Frame render(const std::vector<ClipSpaceDraw>& draws, int samples = 1, int threads = 0) {
  Config config;
  config.frame.threads = threads;
  config.frame.diagnostics = true;
  ClipSpaceFrame f;
  f.width = kSize;
  f.height = kSize;
  f.samples = samples;
  f.draws = draws;
  for (ClipSpaceDraw& d : f.draws) d.state.samples = samples;
  Renderer renderer(config);
  return renderer.render_clip_space(f);
}

Rgba8 at(const Frame& f, int x, int y) { return f.color.pixels[size_t(y) * kSize + size_t(x)]; }
float depth_at(const Frame& f, int x, int y) { return f.depth[size_t(y) * kSize + size_t(x)]; }

TEST(ClipSpace, FullQuadCoversEveryPixelAtItsDepth) {
  const Frame f = render({full(0.5f, {1, 0, 0})});
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      ASSERT_EQ(at(f, x, y), kRed) << x << "," << y;
      ASSERT_EQ(depth_at(f, x, y), 0.5f) << x << "," << y;
    }
  }
  EXPECT_EQ(f.stats.get_u64("raster.triangles.in"), 2u);
  EXPECT_EQ(f.stats.get_u64("raster.fragments.covered"), uint64_t(kSize * kSize));
  EXPECT_EQ(f.stats.get_u64("raster.vs.invocations"), 0u);  // the vertex work was done elsewhere
  EXPECT_EQ(f.stats.get_u64("frame.draws"), 1u);
}

TEST(ClipSpace, ScissorLimitsThePixelsWritten) {
  ClipSpaceDraw d = full(0.25f, {0, 1, 0});
  d.state.scissor = ScissorRect{4, 6, 8, 5};
  const Frame f = render({d});
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const bool inside = x >= 4 && x < 12 && y >= 6 && y < 11;
      ASSERT_EQ(at(f, x, y), inside ? kGreen : kBlack) << x << "," << y;
      ASSERT_EQ(depth_at(f, x, y), inside ? 0.25f : 1.0f) << x << "," << y;
    }
  }
  EXPECT_EQ(f.stats.get_u64("raster.samples.covered"), 40u);
  // Wholly outside the scissor: culled at setup.
  d.state.scissor = ScissorRect{20, 20, 4, 4};
  EXPECT_EQ(render({d}).stats.get_u64("raster.triangles.culled_scissor"), 2u);
}

TEST(ClipSpace, CullModeAndFrontFacePerDraw) {
  ClipSpaceDraw ccw = quad(-1, -1, 0, 1, 0.5f, {1, 0, 0});  // left half, counter-clockwise on screen
  ClipSpaceDraw cw = quad(0, -1, 1, 1, 0.5f, {0, 0, 1});    // right half, made clockwise below
  cw.indices = {0, 2, 1, 0, 3, 2};
  ccw.state.cull = CullMode::back;
  cw.state.cull = CullMode::back;
  Frame f = render({ccw, cw});
  EXPECT_EQ(at(f, 2, 8), kRed);
  EXPECT_EQ(at(f, 12, 8), kBlack);
  EXPECT_EQ(f.stats.get_u64("raster.triangles.culled_backface"), 2u);
  // Clockwise front faces: the other half is kept.
  ccw.state.front_face = cw.state.front_face = FrontFace::clockwise;
  f = render({ccw, cw});
  EXPECT_EQ(at(f, 2, 8), kBlack);
  EXPECT_EQ(at(f, 12, 8), kBlue);
  // Front culling keeps back faces; front and back culls everything.
  ccw.state.front_face = cw.state.front_face = FrontFace::counter_clockwise;
  ccw.state.cull = cw.state.cull = CullMode::front;
  f = render({ccw, cw});
  EXPECT_EQ(at(f, 2, 8), kBlack);
  EXPECT_EQ(at(f, 12, 8), kBlue);
  EXPECT_EQ(f.stats.get_u64("raster.triangles.culled_frontface"), 2u);
  ccw.state.cull = cw.state.cull = CullMode::front_and_back;
  f = render({ccw, cw});
  EXPECT_EQ(f.stats.get_u64("raster.triangles.culled_frontface") + f.stats.get_u64("raster.triangles.culled_backface"),
            4u);
  EXPECT_EQ(f.stats.get_u64("raster.fragments.covered"), 0u);
}

TEST(ClipSpace, DepthCompareWriteAndTestPerDraw) {
  ClipSpaceDraw near = full(0.5f, {1, 0, 0});
  ClipSpaceDraw far = full(0.75f, {0, 1, 0});
  far.state.depth.compare = CompareOp::greater;  // passes over 0.5, writes 0.75
  ClipSpaceDraw middle = full(0.625f, {0, 0, 1});
  middle.state.depth.write = false;  // LESS than 0.75: colour written, depth kept
  Frame f = render({near, far, middle});
  EXPECT_EQ(at(f, 7, 7), kBlue);
  EXPECT_EQ(depth_at(f, 7, 7), 0.75f);
  EXPECT_EQ(f.stats.get_u64("raster.depth.failed"), 0u);
  // EQUAL passes only the same depth; NEVER nothing; a disabled test passes and never writes.
  ClipSpaceDraw equal = full(0.75f, {0, 1, 0});
  equal.state.depth.compare = CompareOp::equal;
  ClipSpaceDraw never = full(0.1f, {1, 0, 0});
  never.state.depth.compare = CompareOp::never;
  f = render({near, far, equal, never});
  EXPECT_EQ(at(f, 3, 3), kGreen);
  EXPECT_EQ(f.stats.get_u64("raster.depth.failed"), uint64_t(kSize * kSize));
  ClipSpaceDraw untested = full(0.9f, {1, 0, 0});
  untested.state.depth.test = false;
  f = render({near, untested});
  EXPECT_EQ(at(f, 3, 3), kRed);
  EXPECT_EQ(depth_at(f, 3, 3), 0.5f);
  EXPECT_EQ(f.stats.get_u64("raster.depth.passed"), uint64_t(2 * kSize * kSize));
}

TEST(ClipSpace, ViewportPlacesAndScalesTheClipVolume) {
  ClipSpaceDraw d = full(1.0f, {1, 0, 0});
  d.state.viewport = ViewportState{8, 4, 8, 8, 0.25f, 0.75f};
  Frame f = render({d});
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const bool inside = x >= 8 && y >= 4 && y < 12;
      ASSERT_EQ(at(f, x, y), inside ? kRed : kBlack) << x << "," << y;
      ASSERT_EQ(depth_at(f, x, y), inside ? 0.75f : 1.0f) << x << "," << y;
    }
  }
  // A negative height flips y (VK_KHR_maintenance1): the top half of clip space lands at the bottom.
  ClipSpaceDraw top = quad(-1, -1, 1, 0, 0.5f, {0, 1, 0});
  top.state.viewport = ViewportState{0, 16, 16, -16, 0, 1};
  f = render({top});
  EXPECT_EQ(at(f, 5, 12), kGreen);
  EXPECT_EQ(at(f, 5, 3), kBlack);
}

TEST(ClipSpace, StripsFansAndRestartAssembleLikeVulkan) {
  // A strip of four vertices and a fan of four make the same two triangles as the quad.
  ClipSpaceDraw strip = full(0.5f, {1, 0, 0});
  strip.state.topology = Topology::triangle_strip;
  strip.indices = {0, 1, 3, 2};
  ClipSpaceDraw fan = full(0.5f, {1, 0, 0});
  fan.state.topology = Topology::triangle_fan;
  fan.indices = {0, 1, 2, 3};
  const Frame reference = render({full(0.5f, {1, 0, 0})});
  for (const ClipSpaceDraw& d : {strip, fan}) {
    const Frame f = render({d});
    EXPECT_EQ(f.color.pixels, reference.color.pixels);
    EXPECT_EQ(f.stats.get_u64("raster.triangles.in"), 2u);
  }
  // Strip winding alternates so that both triangles face the same way: cull back keeps both.
  strip.state.cull = CullMode::back;
  EXPECT_EQ(render({strip}).stats.get_u64("raster.triangles.setup"), 2u);
  // A restart index splits the strip: {0, 1, 3} and {1, 3, 2} become two one-triangle strips.
  strip.state.primitive_restart = true;
  strip.indices = {0, 1, 3, 0xFFFFFFFFu, 1, 3, 2};
  strip.state.cull = CullMode::none;
  EXPECT_EQ(render({strip}).stats.get_u64("raster.triangles.in"), 2u);
}

TEST(ClipSpace, MultisampledCoverageAndThreadIndependence) {
  // Left half at 4x: every pixel wholly in or out, so samples are exactly 4 per pixel.
  const ClipSpaceDraw left = quad(-1, -1, 0, 1, 0.5f, {1, 1, 1});
  const Frame f = render({left, quad(-0.3f, -0.7f, 0.8f, 0.2f, 0.3f, {0, 0, 1})}, 4, 1);
  EXPECT_GT(f.stats.get_u64("color.tiles.total"), 0u);
  const Frame g = render({left, quad(-0.3f, -0.7f, 0.8f, 0.2f, 0.3f, {0, 0, 1})}, 4, 3);
  EXPECT_EQ(f.color.pixels, g.color.pixels);
  EXPECT_EQ(f.depth, g.depth);
  const Frame h = render({left}, 4, 2);
  EXPECT_EQ(h.stats.get_u64("raster.samples.covered"), uint64_t(8 * kSize * 4));
}

TEST(ClipSpace, MalformedFramesAreRejected) {
  ClipSpaceDraw d = full(0.5f, {1, 0, 0});
  d.indices = {0, 1, 7};
  EXPECT_THROW(render({d}), Error);
  Config config;
  Renderer renderer(config);
  ClipSpaceFrame f;
  f.width = 8;
  f.height = 8;
  f.samples = 4;
  f.draws = {full(0.5f, {1, 0, 0})};  // rasterizes 1 sample into a 4-sample frame
  EXPECT_THROW(renderer.render_clip_space(f), Error);
  f.samples = 3;
  EXPECT_THROW(renderer.render_clip_space(f), Error);
  f.samples = 1;
  f.draws[0].varying_count = 3;  // but no varyings
  EXPECT_THROW(renderer.render_clip_space(f), Error);
  f.draws[0].varying_count = 0;
  f.draws[0].positions[0].x = std::nanf("");  // non-finite vertices are dropped, not an error
  EXPECT_EQ(renderer.render_clip_space(f).stats.get_u64("raster.triangles.culled_nonfinite"), 2u);  // both use vertex 0
}

}  // namespace
}  // namespace tessera
