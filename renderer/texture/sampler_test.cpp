#include "tessera/sampler.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

Texture two_by_two() {
  Texture t;
  Image base(2, 2);
  base.at(0, 0) = pack_rgba8(0, 0, 0);
  base.at(1, 0) = pack_rgba8(255, 255, 255);
  base.at(0, 1) = pack_rgba8(255, 255, 255);
  base.at(1, 1) = pack_rgba8(0, 0, 0);
  t.levels.push_back(base);
  Image top(1, 1);
  top.at(0, 0) = pack_rgba8(188, 188, 188);  // sRGB 188 ~ linear 0.5
  t.levels.push_back(top);
  return t;
}

TEST(Sampler, TexelCentresReturnTexels) {
  const Texture t = two_by_two();
  SamplerCounters c;
  EXPECT_FLOAT_EQ(sample_bilinear(t.levels[0], {0.25f, 0.25f}, c).r, 0.0f);
  EXPECT_FLOAT_EQ(sample_bilinear(t.levels[0], {0.75f, 0.25f}, c).r, 1.0f);
  EXPECT_EQ(c.texel_fetches, 8u);
}

TEST(Sampler, BilinearBlendsInLinearSpaceWithRepeat) {
  const Texture t = two_by_two();
  SamplerCounters c;
  // Halfway between texel (0,0) (black) and (1,0) (white): linear 0.5, not sRGB 0.5.
  EXPECT_NEAR(sample_bilinear(t.levels[0], {0.5f, 0.25f}, c).r, 0.5f, 1e-6f);
  // At u = 0 the filter straddles the wrap: texel (1,0) and (0,0) again.
  EXPECT_NEAR(sample_bilinear(t.levels[0], {0.0f, 0.25f}, c).r, 0.5f, 1e-6f);
  // Repeat: u + 3 samples the same.
  EXPECT_FLOAT_EQ(sample_bilinear(t.levels[0], {3.75f, -1.75f}, c).r,
                  sample_bilinear(t.levels[0], {0.75f, 0.25f}, c).r);
}

TEST(Sampler, LodFromDerivatives) {
  const Texture t = two_by_two();
  // One texel per pixel: lod 0. Two texels per pixel: lod 1 (clamped to the last level).
  EXPECT_FLOAT_EQ(texture_lod(t, {0.5f, 0.0f}, {0.0f, 0.5f}), 0.0f);
  EXPECT_FLOAT_EQ(texture_lod(t, {1.0f, 0.0f}, {0.0f, 0.1f}), 1.0f);
  EXPECT_FLOAT_EQ(texture_lod(t, {100.0f, 0.0f}, {0.0f, 0.0f}), 1.0f);
  // Magnification and degenerate derivatives: base level.
  EXPECT_FLOAT_EQ(texture_lod(t, {0.01f, 0.0f}, {0.0f, 0.01f}), 0.0f);
  EXPECT_FLOAT_EQ(texture_lod(t, {NAN, 0.0f}, {0.0f, 0.0f}), 0.0f);
}

TEST(Sampler, TrilinearBlendsLevels) {
  const Texture t = two_by_two();
  SamplerCounters c;
  const float level0 = sample_trilinear(t, {0.25f, 0.25f}, 0.0f, c).r;  // black texel
  const float level1 = sample_trilinear(t, {0.25f, 0.25f}, 1.0f, c).r;  // grey top level
  const float half = sample_trilinear(t, {0.25f, 0.25f}, 0.5f, c).r;
  EXPECT_FLOAT_EQ(level0, 0.0f);
  EXPECT_NEAR(level1, decode_srgb8(188), 1e-6f);
  EXPECT_NEAR(half, 0.5f * (level0 + level1), 1e-6f);
  // NaN coordinates and lod stay defined.
  const glm::vec4 v = sample_trilinear(t, {NAN, INFINITY}, NAN, c);
  EXPECT_TRUE(std::isfinite(v.r));
}

}  // namespace
}  // namespace tessera
