#include "raster/triangle_setup.h"

#include <gtest/gtest.h>

#include <vector>

#include "raster/sample_pattern.h"
#include "raster/tile_rasterizer.h"

namespace tessera {
namespace {

// Clip-space vertex for a window position (x, y) in pixels on a W x H viewport, w = 1.
ClipVertex at_pixel(float x, float y, int w, int h, float z = 0.5f) {
  ClipVertex v{};
  v.clip = {2.0f * x / float(w) - 1.0f, 2.0f * y / float(h) - 1.0f, z, 1.0f};
  return v;
}

// Counts how often each pixel centre is covered by the given triangles.
std::vector<int> coverage(const std::vector<std::array<glm::vec2, 3>>& tris, int w, int h, bool cull = false) {
  std::vector<int> hits(size_t(w * h), 0);
  for (const auto& tri : tris) {
    TriangleSetup t;
    if (setup_triangle(at_pixel(tri[0].x, tri[0].y, w, h), at_pixel(tri[1].x, tri[1].y, w, h),
                       at_pixel(tri[2].x, tri[2].y, w, h), Viewport{w, h}, cull, 0, 0, t) != SetupResult::ok) {
      continue;
    }
    EdgeFunction e[3];
    edge_functions(t, e);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const int64_t px = int64_t(x) * kSubpixelOne + kSubpixelHalf;
        const int64_t py = int64_t(y) * kSubpixelOne + kSubpixelHalf;
        if (e[0].at(px, py) >= 0 && e[1].at(px, py) >= 0 && e[2].at(px, py) >= 0) ++hits[size_t(y * w + x)];
      }
    }
  }
  return hits;
}

int total(const std::vector<int>& hits) {
  int n = 0;
  for (int v : hits) n += v;
  return n;
}

TEST(FillRule, AxisAlignedSquareThroughPixelCentresCoversEachPixelOnce) {
  // Square from (2.5, 2.5) to (6.5, 6.5): its edges pass exactly through pixel centres.
  // Top-left rule: the left column x=2 and top row y=2 are in, the right column x=6 and
  // bottom row y=6 are out, so exactly pixels x,y in 2..5 are covered: 4 x 4 = 16.
  const std::vector<std::array<glm::vec2, 3>> quad = {
      {glm::vec2{2.5f, 2.5f}, {2.5f, 6.5f}, {6.5f, 6.5f}},
      {glm::vec2{2.5f, 2.5f}, {6.5f, 6.5f}, {6.5f, 2.5f}},
  };
  const auto hits = coverage(quad, 10, 10);
  EXPECT_EQ(total(hits), 16);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 10; ++x)
      EXPECT_EQ(hits[size_t(y * 10 + x)], (x >= 2 && x <= 5 && y >= 2 && y <= 5) ? 1 : 0) << x << "," << y;
}

TEST(FillRule, FanAroundPixelCentreCoversItExactlyOnce) {
  // Eight triangles share the vertex at the centre of pixel (8, 8); the centre lies on every
  // shared edge. It must be covered by exactly one of them, and no pixel twice.
  const glm::vec2 c{8.5f, 8.5f};
  std::vector<std::array<glm::vec2, 3>> fan;
  const glm::vec2 ring[8] = {{14.5f, 8.5f}, {14.5f, 14.5f}, {8.5f, 14.5f}, {2.5f, 14.5f},
                             {2.5f, 8.5f},  {2.5f, 2.5f},   {8.5f, 2.5f},  {14.5f, 2.5f}};
  for (int i = 0; i < 8; ++i) fan.push_back({c, ring[i], ring[(i + 1) % 8]});
  const auto hits = coverage(fan, 17, 17);
  for (int v : hits) EXPECT_LE(v, 1);
  EXPECT_EQ(hits[size_t(8 * 17 + 8)], 1);
  // The fan covers the 12x12 square from 2.5 to 14.5: pixels 2..13 in x and y = 144.
  EXPECT_EQ(total(hits), 144);
}

TEST(FillRule, RandomMeshHasNoGapsOrOverlaps) {
  // A grid of jittered vertices triangulated into a mesh that covers [0, 32]^2 exactly:
  // every pixel centre inside is covered once.
  const int n = 8;
  glm::vec2 p[n + 1][n + 1];
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return float(seed >> 8) / float(1 << 24);
  };
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const bool border = i == 0 || j == 0 || i == n || j == n;
      p[j][i] =
          glm::vec2(float(i * 4), float(j * 4)) + (border ? glm::vec2(0) : glm::vec2(rnd() * 2 - 1, rnd() * 2 - 1));
    }
  std::vector<std::array<glm::vec2, 3>> mesh;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      mesh.push_back({p[j][i], p[j + 1][i], p[j + 1][i + 1]});
      mesh.push_back({p[j][i], p[j + 1][i + 1], p[j][i + 1]});
    }
  const auto hits = coverage(mesh, 32, 32);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) ASSERT_EQ(hits[size_t(y * 32 + x)], 1) << x << "," << y;
}

TEST(TriangleSetup, BackfaceCullingFollowsScreenWinding) {
  // Counter-clockwise on screen (y down): (0,0) -> (0,8) -> (8,0) is front-facing.
  TriangleSetup t;
  const Viewport vp{16, 16};
  EXPECT_EQ(setup_triangle(at_pixel(0, 0, 16, 16), at_pixel(0, 8, 16, 16), at_pixel(8, 0, 16, 16), vp, true, 0, 0, t),
            SetupResult::ok);
  EXPECT_EQ(setup_triangle(at_pixel(0, 0, 16, 16), at_pixel(8, 0, 16, 16), at_pixel(0, 8, 16, 16), vp, true, 0, 0, t),
            SetupResult::culled_backface);
  // Without culling the clockwise one is rasterized with the same coverage.
  const auto a = coverage({{glm::vec2{0, 0}, {0, 8}, {8, 0}}}, 16, 16);
  const auto b = coverage({{glm::vec2{0, 0}, {8, 0}, {0, 8}}}, 16, 16);
  EXPECT_EQ(a, b);
  EXPECT_GT(total(a), 0);
}

TEST(TriangleSetup, DegenerateAndSubpixelTriangles) {
  TriangleSetup t;
  const Viewport vp{16, 16};
  // Collinear after snapping.
  EXPECT_EQ(setup_triangle(at_pixel(1, 1, 16, 16), at_pixel(5, 5, 16, 16), at_pixel(9, 9, 16, 16), vp, false, 0, 0, t),
            SetupResult::culled_degenerate);
  // Tiny triangle between pixel centres: no centre in reach.
  EXPECT_EQ(setup_triangle(at_pixel(3.6f, 3.6f, 16, 16), at_pixel(3.6f, 3.9f, 16, 16), at_pixel(3.9f, 3.6f, 16, 16), vp,
                           false, 0, 0, t),
            SetupResult::culled_degenerate);
  // Tiny triangle around a pixel centre: exactly one pixel.
  EXPECT_EQ(total(coverage({{glm::vec2{5.4f, 5.4f}, {5.4f, 5.7f}, {5.7f, 5.4f}}}, 16, 16)), 1);
}

TEST(TriangleSetup, SnapsToEighthBitSubpixels) {
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(at_pixel(1.0f, 1.0f, 64, 64), at_pixel(1.0f, 9.0f, 64, 64),
                           at_pixel(9.0f + 1.0f / 256, 1.0f, 64, 64), Viewport{64, 64}, false, 0, 0, t),
            SetupResult::ok);
  EXPECT_EQ(t.x[0], 256);
  EXPECT_EQ(t.y[0], 256);
  EXPECT_EQ(t.x[2], 9 * 256 + 1);
}

// A tile buffer with its storage and counters, cleared to black and far depth.
struct TestTile {
  TestTile(int w, int h, int samples = 1)
      : color(size_t(w * h * samples), 0),
        depth(size_t(w * h * samples), 1.0f),
        buffer{0, 0, w, h, color.data(), depth.data()} {}
  std::vector<Rgba8> color;
  std::vector<float> depth;
  TileBuffer buffer;
  RasterCounters rc;
  SamplerCounters sc;
};

struct FlatShader {
  struct Uniforms {
    glm::vec3 color;
  };
  using Counters = SamplerCounters;
  static void run_quad(const Uniforms& u, const float (*)[8], unsigned, glm::vec3* out, SamplerCounters&) {
    for (int i = 0; i < 4; ++i) out[i] = u.color;
  }
};

TEST(TileRasterizer, DepthTestLessKeepsNearest) {
  // Two overlapping full-tile triangles pairs at depths 0.7 then 0.3 then 0.5: the 0.3 one wins.
  const int w = 16, h = 16;
  TestTile tt(w, h);
  auto& [color, depth, tile, rc, sc] = tt;
  const float zs[3] = {0.7f, 0.3f, 0.5f};
  const glm::vec3 colors[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int k = 0; k < 3; ++k) {
    TriangleSetup t;
    ASSERT_EQ(setup_triangle(at_pixel(-8, -8, w, h, zs[k]), at_pixel(-8, 40, w, h, zs[k]),
                             at_pixel(40, -8, w, h, zs[k]), Viewport{w, h}, false, 0, 0, t),
              SetupResult::ok);
    rasterize_triangle<FlatShader, 8>(t, FlatShader::Uniforms{colors[k]}, tile, rc, sc);
  }
  for (size_t i = 0; i < color.size(); ++i) {
    ASSERT_EQ(color[i], pack_rgba8(0, 255, 0));
    ASSERT_FLOAT_EQ(depth[i], 0.3f);
  }
  EXPECT_EQ(rc[RasterCounters::depth_passed], uint64_t(2 * w * h));
  EXPECT_EQ(rc[RasterCounters::depth_failed], uint64_t(w * h));
}

TEST(TileRasterizer, PerspectiveCorrectInterpolation) {
  // A triangle with w = 1 at one vertex and w = 4 at the others; the varying is 1/w-weighted.
  struct Probe {
    struct Uniforms {};
    using Counters = SamplerCounters;
    static void run_quad(const Uniforms&, const float (*v)[8], unsigned, glm::vec3* out, SamplerCounters&) {
      for (int i = 0; i < 4; ++i) out[i] = glm::vec3(v[i][0], 0, 0);
    }
  };
  const int w = 64, h = 64;
  ClipVertex a{}, b{}, c{};
  // Window positions (0,0), (0,64), (64,0) scaled by w so the perspective divide undoes it.
  a.clip = {-1.0f, -1.0f, 0.5f, 1.0f};
  b.clip = {-4.0f, 4.0f, 2.0f, 4.0f};
  c.clip = {4.0f, -4.0f, 2.0f, 4.0f};
  a.varyings[0] = 0.0f;
  b.varyings[0] = 1.0f;
  c.varyings[0] = 1.0f;
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(a, b, c, Viewport{w, h}, false, 1, 0, t), SetupResult::ok);
  // At screen barycentric weights (l0, l1, l2) the perspective-correct value is
  // (l1/4 + l2/4) / (l0 + l1/4 + l2/4). At pixel centre (15.5, 15.5): l1 = l2 = 15.5/64.
  const float l12 = 15.5f / 64.0f;
  const float l0 = 1.0f - 2.0f * l12;
  const float expected = (2.0f * l12 / 4.0f) / (l0 + 2.0f * l12 / 4.0f);
  // Read it back through a probe shader that writes the varying as red.
  TestTile tt(w, h);
  auto& [color, depth, tile, rc, sc] = tt;
  rasterize_triangle<Probe, 8>(t, Probe::Uniforms{}, tile, rc, sc);
  const float got = decode_srgb8(channel(color[size_t(15 * w + 15)], 0));
  EXPECT_NEAR(got, expected, 0.01f);                 // within sRGB 8-bit quantisation
  EXPECT_GT(std::abs(expected - 2.0f * l12), 0.1f);  // differs clearly from affine interpolation
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(TileRasterizer, BlockTraversalMatchesBruteForceCoverage) {
  // A large triangle and a thin diagonal sliver over a 64x64 tile: the covered pixels
  // written by the block walk equal the brute-force per-pixel edge test, and the walk really
  // skips and accepts whole blocks.
  const int w = 64, h = 64;
  const std::vector<std::array<glm::vec2, 3>> cases = {
      {glm::vec2{1.3f, 2.7f}, {3.1f, 62.2f}, {61.9f, 30.4f}},
      {glm::vec2{0.2f, 0.1f}, {63.5f, 60.9f}, {60.7f, 63.8f}},
  };
  for (const auto& tri : cases) {
    TestTile tt(w, h);
    auto& [color, depth, tile, rc, sc] = tt;
    TriangleSetup t;
    ASSERT_EQ(setup_triangle(at_pixel(tri[0].x, tri[0].y, w, h), at_pixel(tri[1].x, tri[1].y, w, h),
                             at_pixel(tri[2].x, tri[2].y, w, h), Viewport{w, h}, false, 0, 0, t),
              SetupResult::ok);
    rasterize_triangle<FlatShader, 8>(t, FlatShader::Uniforms{glm::vec3(1.0f)}, tile, rc, sc);
    const auto expected = coverage({tri}, w, h);
    for (size_t i = 0; i < color.size(); ++i) ASSERT_EQ(color[i] != 0, expected[i] == 1) << "pixel " << i;
    EXPECT_EQ(rc[RasterCounters::fragments_covered], uint64_t(total(expected)));
    EXPECT_GT(rc[RasterCounters::blocks_rejected], 0u);
    EXPECT_GT(rc[RasterCounters::blocks_partial], 0u);
  }
}

TEST(TileRasterizer, BigTriangleAcceptsInteriorBlocksWhole) {
  const int w = 64, h = 64;
  TestTile tt(w, h);
  auto& [color, depth, tile, rc, sc] = tt;
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(at_pixel(-100, -100, w, h), at_pixel(-100, 300, w, h), at_pixel(300, -100, w, h),
                           Viewport{w, h}, false, 0, 0, t),
            SetupResult::ok);
  rasterize_triangle<FlatShader, 8>(t, FlatShader::Uniforms{glm::vec3(1.0f)}, tile, rc, sc);
  EXPECT_EQ(rc[RasterCounters::blocks_full], 64u);  // all 8x8 blocks of the tile
  EXPECT_EQ(rc[RasterCounters::fragments_covered], uint64_t(w * h));
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// Per-sample coverage at 2x, 4x and 8x equals a brute-force test of every sample position of
// every pixel (the Vulkan standard positions) against the edge functions, including samples
// whose pixel centre lies outside the triangle; shading writes the pixel colour to exactly
// the covered samples.
template <int kSamples>
void check_msaa_coverage() {
  const int w = 48, h = 40;
  uint32_t seed = 777u + kSamples;
  auto rnd = [&](float lo, float hi) {
    seed = seed * 1664525u + 1013904223u;
    return lo + (hi - lo) * float(seed >> 8) / float(1 << 24);
  };
  for (int trial = 0; trial < 40; ++trial) {
    TestTile tt(w, h, kSamples);
    TriangleSetup t;
    const glm::vec2 a{rnd(-4, 52), rnd(-4, 44)}, b{rnd(-4, 52), rnd(-4, 44)}, c{rnd(-4, 52), rnd(-4, 44)};
    const Viewport vp{w, h, sample_extent(kSamples)};
    if (setup_triangle(at_pixel(a.x, a.y, w, h), at_pixel(b.x, b.y, w, h), at_pixel(c.x, c.y, w, h), vp, false, 0, 0,
                       t) != SetupResult::ok) {
      continue;
    }
    rasterize_triangle<FlatShader, 8, kSamples>(t, FlatShader::Uniforms{glm::vec3(1.0f)}, tt.buffer, tt.rc, tt.sc);
    EdgeFunction e[3];
    edge_functions(t, e);
    uint64_t expected_samples = 0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        for (int k = 0; k < kSamples; ++k) {
          const SampleOffset o = SamplePattern<kSamples>::offsets[k];
          const int64_t px = int64_t(x) * kSubpixelOne + o.x, py = int64_t(y) * kSubpixelOne + o.y;
          const bool in = e[0].at(px, py) >= 0 && e[1].at(px, py) >= 0 && e[2].at(px, py) >= 0;
          expected_samples += in;
          ASSERT_EQ(tt.color[size_t((y * w + x) * kSamples + k)] != 0, in)
              << kSamples << "x trial " << trial << " pixel " << x << "," << y << " sample " << k;
        }
      }
    }
    EXPECT_EQ(tt.rc[RasterCounters::samples_covered], expected_samples);
    EXPECT_EQ(tt.rc[RasterCounters::depth_passed], expected_samples);
  }
}

TEST(TileRasterizer, MsaaCoverageMatchesBruteForceAt2x) { check_msaa_coverage<2>(); }
TEST(TileRasterizer, MsaaCoverageMatchesBruteForceAt4x) { check_msaa_coverage<4>(); }
TEST(TileRasterizer, MsaaCoverageMatchesBruteForceAt8x) { check_msaa_coverage<8>(); }

TEST(TileRasterizer, SamplePatternsAreVulkanStandardLocations) {
  // VkPhysicalDeviceLimits::standardSampleLocations, in 1/16 pixel: 4x is
  // (6,2) (14,6) (2,10) (10,14); 8x starts (9,5) (7,11) (13,9) (5,3).
  EXPECT_EQ(SamplePattern<4>::offsets[0].x, 6 * 16);
  EXPECT_EQ(SamplePattern<4>::offsets[3].y, 14 * 16);
  EXPECT_EQ(SamplePattern<8>::offsets[2].x, 13 * 16);
  EXPECT_EQ(SamplePattern<8>::offsets[7].y, 1 * 16);
  EXPECT_EQ(sample_extent(1).min_x, 128);
  EXPECT_EQ(sample_extent(8).min_x, 16);
  EXPECT_EQ(sample_extent(8).max_y, 240);
}

}  // namespace
}  // namespace tessera
