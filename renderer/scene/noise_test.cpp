#include "scene/noise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace tessera::noise {
namespace {

TEST(Noise, HashIsABijectionOnASample) {
  std::set<uint32_t> seen;
  for (uint32_t i = 0; i < 100000; ++i) seen.insert(hash32(i));
  EXPECT_EQ(seen.size(), 100000u);
}

TEST(Noise, HashValuesArePinned) {
  // Every procedural scene depends on these bits; a change here changes every shipped scene.
  EXPECT_EQ(hash32(0), 0u);
  EXPECT_EQ(hash32(1), 0x688990c0u);
  EXPECT_EQ(hash32(12345), 0x912efcf7u);
}

TEST(Noise, HashCombineDependsOnEveryArgument) {
  const uint32_t h = hash_combine(1, 2, 3, 4);
  EXPECT_NE(h, hash_combine(0, 2, 3, 4));
  EXPECT_NE(h, hash_combine(1, 0, 3, 4));
  EXPECT_NE(h, hash_combine(1, 2, 0, 4));
  EXPECT_NE(h, hash_combine(1, 2, 3, 0));
  EXPECT_NE(hash_combine(1, 2, 3), hash_combine(1, 3, 2));
}

TEST(Noise, UnitFloatIsInHalfOpenUnitInterval) {
  EXPECT_EQ(unit_float(0), 0.0f);
  EXPECT_LT(unit_float(0xffffffffu), 1.0f);
  double sum = 0.0;
  for (uint32_t i = 0; i < 10000; ++i) sum += unit_float(hash32(i));
  EXPECT_NEAR(sum / 10000.0, 0.5, 0.02);
}

TEST(Noise, ValueNoiseHitsLatticeValuesAndStaysInRange) {
  for (int i = 0; i < 2000; ++i) {
    const float x = float(i) * 0.173f - 50.0f, y = float(i) * 0.311f - 80.0f;
    const float v = value_noise(x, y, 5, 0);
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
  }
  // Continuity across a lattice line.
  EXPECT_NEAR(value_noise(2.0f - 1e-4f, 0.5f, 5, 0), value_noise(2.0f + 1e-4f, 0.5f, 5, 0), 1e-3f);
}

TEST(Noise, PeriodicNoiseTiles) {
  const int period = 4;
  for (int i = 0; i < 100; ++i) {
    const float x = float(i) * 0.0371f, y = float(i) * 0.0537f;
    // Equal up to the rounding of x + period in float.
    EXPECT_NEAR(value_noise(x, y, 9, period), value_noise(x + float(period), y, 9, period), 1e-5f);
    EXPECT_NEAR(value_noise(x, y, 9, period), value_noise(x, y - float(period), 9, period), 1e-5f);
    // Exactly periodic on the lattice itself.
    EXPECT_EQ(value_noise(float(i % 4), 1.0f, 9, period), value_noise(float(i % 4 + period), 1.0f, 9, period));
    const FbmParams f{3, 4, period};
    EXPECT_NEAR(fbm(x, y, f), fbm(x + float(period), y + float(period), f), 1e-5f);
  }
}

TEST(Noise, FbmIsInUnitRangeAndSeedDependent) {
  const FbmParams a{1, 6, 0}, b{2, 6, 0};
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const float x = float(i) * 0.0913f, y = float(i % 37) * 0.21f;
    const float v = fbm(x, y, a);
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
    differ += v != fbm(x, y, b);
  }
  EXPECT_GT(differ, 900);
}

}  // namespace
}  // namespace tessera::noise
