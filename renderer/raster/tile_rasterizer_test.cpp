// Quads shaded across triangles (QuadBatch, what the tile stage does for opaque draws) against
// the same triangles shaded one quad at a time by the one-quad program: colour, depth, every
// raster, EU and sampler counter and the quad hook's calls, bit for bit, at 1x (lane path and
// int64 path) and 4x, with the compiled-in LESS test and every Vulkan depth state, in tiles of
// odd sizes away from the viewport's origin.
#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "raster/tile_rasterizer.h"
#include "eu/lane_target_test_support.h"
#include "raster/raster_test_support.h"
#include "texture/texture_test_support.h"
#include "shaders/lambert.h"

namespace tessera {
namespace {

using shaders::LambertFragmentShader;
using shaders::LambertLighting;

// The Lambert program without its batch entry: the rasterizer shades one quad at a time.
struct OneQuadLambert {
  using Uniforms = LambertFragmentShader::Uniforms;
  using Counters = LambertFragmentShader::Counters;
  static constexpr int kVaryings = LambertFragmentShader::kVaryings;
  static void run_quad(const Uniforms& u, const float (*v)[kVaryings], unsigned live, glm::vec3* out, Counters& c) {
    LambertFragmentShader::run_quad(u, v, live, out, c);
  }
};

using texture_testing::random_texture;

using HookCall = std::tuple<int, int, unsigned, unsigned, unsigned, unsigned>;

template <int kSamples>
struct Target {
  std::vector<Rgba8> color;
  std::vector<float> depth;
  TileBuffer tile;
  RasterCounters rc;
  LambertFragmentShader::Counters sc;
  std::vector<HookCall> hook;
  Target(int x0, int y0, int w, int h)
      : color(size_t(w * h * kSamples), 0x11223344u), depth(size_t(w * h * kSamples), 0.75f) {
    tile = TileBuffer{x0, y0, w, h, color.data(), depth.data()};
  }
};

// Rasterizes `tris` (each with its draw's uniforms) into a batched and a one-quad target and
// compares them. Returns the quads shaded and the samples that failed the depth test (the
// caller checks that there was something to compare).
template <int kSamples, typename DepthTest>
std::pair<uint64_t, uint64_t> check_same(const std::vector<TriangleSetup>& tris,
                                         const std::vector<const LambertFragmentShader::Uniforms*>& u, int x0, int y0,
                                         int w, int h, const DepthTest& depth_test, bool shared, const char* what) {
  constexpr int kV = LambertFragmentShader::kVaryings;
  Target<kSamples> batched(x0, y0, w, h), one(x0, y0, w, h);
  QuadBatch<LambertFragmentShader, kV, kSamples> batch;
  auto record = [](std::vector<HookCall>& calls) {
    return
        [&calls](int x, int y, const unsigned* live) { calls.emplace_back(x, y, live[0], live[1], live[2], live[3]); };
  };
  auto hook_batched = record(batched.hook);
  auto hook_one = record(one.hook);
  for (size_t i = 0; i < tris.size(); ++i) {
    rasterize_triangle<LambertFragmentShader, kV, kSamples>(tris[i], *u[i], batched.tile, batched.rc, batched.sc,
                                                            depth_test, hook_batched, OpaqueOutput{},
                                                            shared ? &batch : nullptr);
    rasterize_triangle<OneQuadLambert, kV, kSamples>(tris[i], *u[i], one.tile, one.rc, one.sc, depth_test, hook_one);
  }
  flush_quads(batch, batched.tile, batched.sc, hook_batched);
  for (size_t i = 0; i < one.color.size(); ++i) {
    EXPECT_EQ(batched.color[i], one.color[i]) << what << " sample " << i;
    EXPECT_EQ(std::bit_cast<uint32_t>(batched.depth[i]), std::bit_cast<uint32_t>(one.depth[i]))
        << what << " sample " << i;
    if (batched.color[i] != one.color[i] || batched.depth[i] != one.depth[i]) break;
  }
  for (int c = 0; c < int(RasterCounters::count); ++c) {
    EXPECT_EQ(batched.rc[RasterCounters::Id(c)], one.rc[RasterCounters::Id(c)]) << what << " counter " << c;
  }
  for (int f = 0; f < kEuMathFunctionCount; ++f) {
    EXPECT_EQ(batched.sc.math.calls(EuMathFunction(f)), one.sc.math.calls(EuMathFunction(f))) << what;
  }
  EXPECT_EQ(batched.sc.math.alu_fma(), one.sc.math.alu_fma()) << what;
  EXPECT_EQ(batched.sc.math.alu_mul(), one.sc.math.alu_mul()) << what;
  EXPECT_EQ(batched.sc.math.alu_add(), one.sc.math.alu_add()) << what;
  EXPECT_EQ(batched.sc.sampler.samples, one.sc.sampler.samples) << what;
  EXPECT_EQ(batched.sc.sampler.texel_fetches, one.sc.sampler.texel_fetches) << what;
  EXPECT_EQ(batched.hook, one.hook) << what;
  return {one.rc[RasterCounters::quads_shaded], one.rc[RasterCounters::depth_failed]};
}

TEST(TileRasterizerBatch, AcrossTrianglesMatchesOneQuadAtATime) {
  lane_testing::for_each_lane_target([&] {
    const Texture texture = random_texture(64, 32, 5);
    LambertLighting lit;
    lit.ambient = glm::vec3(0.05f);
    lit.light_count = 2;
    lit.lights[0].type = LightType::directional;
    lit.lights[0].direction = glm::vec3(0.3f, -1.0f, -0.2f);
    lit.lights[0].color = glm::vec3(1.0f, 0.9f, 0.8f);
    lit.lights[1].type = LightType::point;
    lit.lights[1].position = glm::vec3(1.0f, 2.0f, 1.5f);
    lit.lights[1].intensity = 4.0f;
    lit.eye = glm::vec3(0.2f, 1.0f, 4.0f);
    lit.prepare();
    // Two draws: textured, and untextured with highlights.
    LambertFragmentShader::Uniforms draws[2];
    draws[0].base_color = glm::vec3(0.9f, 0.7f, 0.5f);
    draws[0].texture = &texture;
    draws[0].lighting = &lit;
    draws[1].base_color = glm::vec3(0.3f, 0.8f, 0.4f);
    draws[1].lighting = &lit;
    draws[1].specular = glm::vec3(0.4f);
    draws[1].shininess = 16.0f;

    // A viewport of 8192 so that a few triangles fail the int32 bound (the int64 path); tiles of
    // odd sizes at multiples of 8 (a frame's right and bottom tiles).
    const int vw = 8192, vh = 8192;
    const int tiles[][4] = {{64, 32, 37, 29}, {0, 0, 64, 64}, {128, 8, 9, 7}};
    const std::vector<DepthState> states = raster_testing::every_depth_state();
    // Per depth state (the last is the compiled-in LESS): quads shaded and samples failed.
    std::vector<uint64_t> shaded(states.size() + 1), failed(states.size() + 1);
    auto count = [&](size_t s, std::pair<uint64_t, uint64_t> r) {
      shaded[s] += r.first;
      failed[s] += r.second;
    };
    for (const auto& tl : tiles) {
      const int x0 = tl[0], y0 = tl[1], w = tl[2], h = tl[3];
      std::mt19937 rng(uint32_t(7 + x0 + y0));
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      std::vector<TriangleSetup> tris;
      std::vector<const LambertFragmentShader::Uniforms*> u;
      for (int n = 0; n < 400; ++n) {
        // Mostly small triangles (a few quads each), some larger, a few huge (int64 path).
        const double size = n % 97 == 0 ? 30000.0 : n % 10 == 0 ? 40.0 : 1.0 + unit(rng) * 6.0;
        const double cx = x0 + unit(rng) * w, cy = y0 + unit(rng) * h;
        ClipVertex v[3];
        for (auto& vert : v) {
          const double x = cx + (unit(rng) - 0.5) * size, y = cy + (unit(rng) - 0.5) * size;
          const float z = float(int(unit(rng) * 8.0) / 8.0);  // snapped: equal depths happen
          const float cw = float(0.5 + unit(rng));
          vert = ClipVertex{};
          vert.clip = {float((2.0 * x / vw - 1.0) * cw), float((2.0 * y / vh - 1.0) * cw), z * cw, cw};
          for (int k = 0; k < kMaxVaryings; ++k) vert.varyings[k] = float(unit(rng) * 4.0 - 2.0);
        }
        TriangleSetup t;
        if (setup_triangle(v[0], v[1], v[2], Viewport{vw, vh}, false, kMaxVaryings, 0, t) != SetupResult::ok) continue;
        tris.push_back(t);
        u.push_back(&draws[(n / 37) % 2]);  // runs of one draw
      }
      for (int shared = 0; shared < 2; ++shared) {
        const std::string where =
            "tile " + std::to_string(x0) + "," + std::to_string(y0) + " shared " + std::to_string(shared);
        count(states.size(),
              check_same<1>(tris, u, x0, y0, w, h, LessDepthTest{}, shared, (where + " 1x less").c_str()));
        count(states.size(),
              check_same<4>(tris, u, x0, y0, w, h, LessDepthTest{}, shared, (where + " 4x less").c_str()));
        for (size_t s = 0; s < states.size(); ++s) {
          const DepthState& st = states[s];
          const std::string name = where + " state " + std::to_string(s);
          count(s, check_same<1>(tris, u, x0, y0, w, h, DepthStateTest{st}, shared, (name + " 1x").c_str()));
          count(s, check_same<4>(tris, u, x0, y0, w, h, DepthStateTest{st}, shared, (name + " 4x").c_str()));
        }
      }
    }
    // Something drawn and something overdrawn or rejected, where the state allows it.
    for (size_t s = 0; s <= states.size(); ++s) {
      const DepthState st = s < states.size() ? states[s] : DepthState{};
      if (st.test && st.compare == CompareOp::never) {
        EXPECT_EQ(shaded[s], 0u) << "state " << s;
        continue;
      }
      EXPECT_GT(shaded[s], 0u) << "state " << s;
      if (st.test && st.compare != CompareOp::always) {
        EXPECT_GT(failed[s], 0u) << "state " << s;
      }
    }
    EXPECT_GT(shaded[states.size()], 2000u);
  });
}

}  // namespace
}  // namespace tessera
