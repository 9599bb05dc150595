// The fragment program's lane batches (LambertFragmentShader::run_quads, what the tile stage
// runs for opaque draws) against its one-quad program (run_quad): every live pixel bit for bit,
// and the same EU and sampler counts, over textures (with their special coordinates and levels
// of detail), highlights, fog, point lights, emission and every tone mapping.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "shaders/lambert.h"
#include "eu/lane_target_test_support.h"
#include "texture/texture_test_support.h"

namespace tessera {
namespace {

using shaders::LambertFragmentShader;
using shaders::LambertLighting;
constexpr int kV = LambertFragmentShader::kVaryings;

using texture_testing::random_texture;

LambertLighting lighting(bool fog, ToneMapping tone) {
  LambertLighting lit;
  lit.ambient = glm::vec3(0.05f, 0.06f, 0.07f);
  lit.light_count = 3;
  lit.lights[0].type = LightType::directional;
  lit.lights[0].direction = glm::vec3(0.3f, -1.0f, -0.2f);
  lit.lights[0].color = glm::vec3(1.0f, 0.9f, 0.8f);
  lit.lights[1].type = LightType::point;
  lit.lights[1].position = glm::vec3(1.0f, 2.0f, 1.5f);
  lit.lights[1].intensity = 4.0f;
  lit.lights[2].type = LightType::point;
  lit.lights[2].position = glm::vec3(0.0f, 0.0f, 0.0f);  // inside the batch's points: tiny distances
  lit.lights[2].intensity = 0.5f;
  lit.eye = glm::vec3(0.2f, 1.0f, 4.0f);
  lit.fog.density = fog ? 0.15f : 0.0f;
  lit.fog.color = glm::vec3(0.5f, 0.6f, 0.7f);
  lit.tone_mapping = tone;
  lit.exposure = 1.3f;
  lit.prepare();
  return lit;
}

// Random quads of varyings (world, normal, uv), with special values mixed in: zero and huge
// normals, NaN and infinite texture coordinates, derivatives giving huge levels of detail.
std::vector<float> random_quads(int quads, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-2.0f, 2.0f), nrm(-1.0f, 1.0f), uv(-2.0f, 3.0f), step(0.0f, 0.1f);
  std::uniform_int_distribution<int> pick(0, 15);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 1e30f, 0.0f};
  std::vector<float> v(size_t(quads) * 4 * kV);
  for (int q = 0; q < quads; ++q) {
    const float u0 = uv(rng), v0 = uv(rng);
    const float du = pick(rng) == 0 ? 1e6f : step(rng), dv = step(rng);
    for (int i = 0; i < 4; ++i) {
      float* p = &v[(size_t(q) * 4 + size_t(i)) * kV];
      for (int k = 0; k < 3; ++k) p[k] = pos(rng);
      for (int k = 3; k < 6; ++k) p[k] = pick(rng) == 0 ? 0.0f : nrm(rng);
      p[6] = u0 + float(i & 1) * du;
      p[7] = v0 + float(i >> 1) * dv;
      if (pick(rng) == 0) p[6] = specials[size_t(pick(rng)) % std::size(specials)];
      if (pick(rng) == 0) p[7] = specials[size_t(pick(rng)) % std::size(specials)];
    }
  }
  return v;
}

void expect_same_counts(const LambertFragmentShader::Counters& a, const LambertFragmentShader::Counters& b) {
  for (int f = 0; f < kEuMathFunctionCount; ++f) {
    EXPECT_EQ(a.math.calls(EuMathFunction(f)), b.math.calls(EuMathFunction(f))) << "function " << f;
  }
  EXPECT_EQ(a.math.alu_fma(), b.math.alu_fma());
  EXPECT_EQ(a.math.alu_mul(), b.math.alu_mul());
  EXPECT_EQ(a.math.alu_add(), b.math.alu_add());
  EXPECT_EQ(a.sampler.samples, b.sampler.samples);
  EXPECT_EQ(a.sampler.texel_fetches, b.sampler.texel_fetches);
}

TEST(FragmentProgramLanes, BatchesMatchTheOneQuadProgramBitForBit) {
  lane_testing::for_each_lane_target([&] {
    const Texture texture = random_texture(48, 20, 3);
    int configurations = 0;
    uint64_t pixels = 0;
    for (int textured = 0; textured < 2; ++textured) {
      for (int specular = 0; specular < 2; ++specular) {
        for (int fog = 0; fog < 2; ++fog) {
          for (ToneMapping tone : {ToneMapping::clamp, ToneMapping::reinhard, ToneMapping::exponential}) {
            const LambertLighting lit = lighting(fog != 0, tone);
            LambertFragmentShader::Uniforms u;
            u.base_color = glm::vec3(0.9f, 0.7f, 0.5f);
            u.texture = textured ? &texture : nullptr;
            u.lighting = &lit;
            u.specular = specular ? glm::vec3(0.4f) : glm::vec3(0.0f);
            u.shininess = 24.0f;
            u.emissive = fog ? glm::vec3(0.1f, 0.0f, 0.02f) : glm::vec3(0.0f);
            ++configurations;
            const std::vector<float> v = random_quads(64, uint32_t(configurations));
            const auto* quads = reinterpret_cast<const float(*)[kV]>(v.data());
            std::mt19937 rng(uint32_t(100 + configurations));
            for (int first = 0; first < 64;) {
              // 1 to 16 quads (the tile rasterizer's batches reach 16 quads of one live pixel),
              // at most 16 live pixels in all: more than one host vector of quads for the
              // levels of detail.
              // The first batch is one live pixel, pixel 0 of its quad: the lane whose neighbours
              // lie before out.
              const int count = first == 0 ? 1 : std::min(1 + int(rng() % 16), 64 - first);
              unsigned live[16];
              int live_pixels = 0;
              for (int q = 0; q < count; ++q) {
                live[q] = first == 0 ? 1u : rng() % 16;  // 0 to 4 live pixels, none too
                while (live_pixels + std::popcount(live[q]) > 16) live[q] &= live[q] - 1;
                live_pixels += std::popcount(live[q]);
              }
              LambertFragmentShader::Counters scalar, lanes;
              // batch[0] guards the entry before the program's out (batch + 1): it must not be written.
              const glm::vec3 guard(-7.0f);
              glm::vec3 one[64], batch[65];
              batch[0] = guard;
              for (int q = 0; q < count; ++q) {
                LambertFragmentShader::run_quad(u, quads + 4 * (first + q), live[q], one + 4 * q, scalar);
              }
              LambertFragmentShader::run_quads(u, quads + 4 * first, live, count, batch + 1, lanes);
              ASSERT_EQ(batch[0], guard) << "configuration " << configurations << ", quad " << first;
              for (int q = 0; q < count; ++q) {
                for (int i = 0; i < 4; ++i) {
                  if (!(live[q] & (1u << i))) continue;
                  ++pixels;
                  for (int c = 0; c < 3; ++c) {
                    ASSERT_EQ(std::bit_cast<uint32_t>(batch[1 + 4 * q + i][c]),
                              std::bit_cast<uint32_t>(one[4 * q + i][c]))
                        << "configuration " << configurations << ", quad " << first + q << ", pixel " << i;
                  }
                }
              }
              expect_same_counts(scalar, lanes);
              first += count;
            }
          }
        }
      }
    }
    EXPECT_EQ(configurations, 24);
    EXPECT_GT(pixels, 24u * 64u);
  });
}

}  // namespace
}  // namespace tessera
