// sample_texture_lanes against sample_texture, lane by lane and bit for bit, with the same
// counts: every sampler state, mip chains with odd sizes and 1x1 levels, special coordinates
// and levels of detail (NaN, infinities, huge, negative zero, whole numbers), and batches of
// every length around the host vector width.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/sampler.h"
#include "eu/lane_target_test_support.h"
#include "texture/sampler_lanes.h"
#include "texture/texture_test_support.h"

namespace tessera {
namespace {

using texture_testing::random_texture;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Coordinates and levels of detail: random ones mixed with every special value.
struct Inputs {
  std::vector<float> u, v, lod;
};

Inputs inputs(int n, uint32_t seed, float max_lod) {
  const float specials[] = {kNaN, kInf,    -kInf,  1e30f, -1e30f, 0.0f,      -0.0f,       1.0f,   -1.0f,
                            0.5f, -1e-10f, 1e-40f, 3.0f,  2.5f,   0.999999f, 16777216.0f, -7.25f, 1e-7f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> coord(-3.0f, 3.0f), level(-2.0f, max_lod + 2.0f);
  std::uniform_int_distribution<int> pick(0, 3);
  std::uniform_int_distribution<size_t> which(0, std::size(specials) - 1);
  Inputs in;
  for (int i = 0; i < n; ++i) {
    in.u.push_back(pick(rng) == 0 ? specials[which(rng)] : coord(rng));
    in.v.push_back(pick(rng) == 0 ? specials[which(rng)] : coord(rng));
    // Whole levels too: delta == 0 takes one level.
    const int k = pick(rng);
    in.lod.push_back(k == 0 ? specials[which(rng)] : k == 1 ? std::floor(level(rng)) : level(rng));
  }
  return in;
}

// Every lane bit for bit, and the same counters; a batch of n lanes taken as the fragment
// program takes them (several lanes sharing a level of detail) and as independent lanes.
void expect_lanes_match(const Texture& t, const Inputs& in, const char* what) {
  const int total = int(in.u.size());
  for (int n : {1, 3, 4, 7, 8, 9, 15, 16, 17, total}) {
    if (n > total) continue;
    for (int first = 0; first + n <= total; first += n) {
      SamplerCounters scalar, lanes;
      const size_t lanes_n = static_cast<size_t>(n);
      std::vector<float> r(lanes_n), g(lanes_n), b(lanes_n), a(lanes_n);
      sample_texture_lanes(t, &in.u[size_t(first)], &in.v[size_t(first)], &in.lod[size_t(first)], n, r.data(), g.data(),
                           b.data(), a.data(), lanes);
      for (int i = 0; i < n; ++i) {
        const size_t k = size_t(first + i);
        const glm::vec4 s = sample_texture(t, glm::vec2(in.u[k], in.v[k]), in.lod[k], scalar);
        const float got[4] = {r[size_t(i)], g[size_t(i)], b[size_t(i)], a[size_t(i)]};
        for (int c = 0; c < 4; ++c) {
          ASSERT_EQ(std::bit_cast<uint32_t>(got[c]), std::bit_cast<uint32_t>(s[c]))
              << what << ": lane " << i << " of " << n << ", channel " << c << ", uv (" << in.u[k] << ", " << in.v[k]
              << "), lod " << in.lod[k];
        }
      }
      EXPECT_EQ(lanes.samples, scalar.samples) << what;
      EXPECT_EQ(lanes.texel_fetches, scalar.texel_fetches) << what;
      // Without alpha (what the fragment program asks for): the same colour and counts.
      SamplerCounters no_alpha;
      std::vector<float> r2(lanes_n), g2(lanes_n), b2(lanes_n);
      sample_texture_lanes(t, &in.u[size_t(first)], &in.v[size_t(first)], &in.lod[size_t(first)], n, r2.data(),
                           g2.data(), b2.data(), nullptr, no_alpha);
      for (size_t i = 0; i < lanes_n; ++i) {
        ASSERT_EQ(std::bit_cast<uint32_t>(r2[i]), std::bit_cast<uint32_t>(r[i])) << what << ": no alpha, lane " << i;
        ASSERT_EQ(std::bit_cast<uint32_t>(g2[i]), std::bit_cast<uint32_t>(g[i])) << what << ": no alpha, lane " << i;
        ASSERT_EQ(std::bit_cast<uint32_t>(b2[i]), std::bit_cast<uint32_t>(b[i])) << what << ": no alpha, lane " << i;
      }
      EXPECT_EQ(no_alpha.samples, lanes.samples) << what;
      EXPECT_EQ(no_alpha.texel_fetches, lanes.texel_fetches) << what;
    }
  }
}

TEST(SamplerLanes, DefaultTrilinearMatchesScalarOnEveryTextureShape) {
  lane_testing::for_each_lane_target([&] {
    const struct { int w, h; } sizes[] = {{1, 1}, {2, 2}, {5, 3}, {1, 7}, {64, 32}, {3, 129}};
    uint32_t seed = 1;
    for (const auto& s : sizes) {
      const Texture t = random_texture(s.w, s.h, seed++);
      const Inputs in = inputs(256, seed++, float(t.levels.size()));
      expect_lanes_match(t, in, "default sampler");
    }
  });
}

// Levels with a side over 2^22 texels take the scalar filter (the vector path converts texel
// coordinates to integers by a float trick valid up to there), the smaller levels of the same
// chain the vector filter: a vector mixing both must still match lane for lane.
TEST(SamplerLanes, LevelsWiderThanTheLanesTakeMatchScalar) {
  const Texture textures[] = {random_texture((1 << 22) + 3, 1, 40), random_texture(1, (1 << 22) + 1, 41)};
  const Inputs in = inputs(64, 42, 3.0f);
  lane_testing::for_each_lane_target([&] {
    for (const Texture& t : textures) expect_lanes_match(t, in, "wide level");
  });
}

TEST(SamplerLanes, QuadsSharingALevelOfDetailMatchScalar) {
  lane_testing::for_each_lane_target([&] {
    // The fragment program's batches: four lanes per quad with one lod, neighbouring coordinates.
    const Texture t = random_texture(37, 20, 7);
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> coord(-1.0f, 2.0f), level(0.0f, 7.0f), step(0.0f, 0.05f);
    Inputs in;
    for (int q = 0; q < 64; ++q) {
      const float u = coord(rng), v = coord(rng), lod = level(rng), du = step(rng), dv = step(rng);
      for (int i = 0; i < 4; ++i) {
        in.u.push_back(u + float(i & 1) * du);
        in.v.push_back(v + float(i >> 1) * dv);
        in.lod.push_back(lod);
      }
    }
    expect_lanes_match(t, in, "quads");
  });
}

TEST(SamplerLanes, EverySamplerStateMatchesScalar) {
  lane_testing::for_each_lane_target([&] {
    const TextureWrap wraps[] = {TextureWrap::repeat, TextureWrap::clamp_to_edge, TextureWrap::mirrored_repeat};
    const TextureFilter filters[] = {TextureFilter::nearest, TextureFilter::linear};
    const MipFilter mips[] = {MipFilter::none, MipFilter::nearest, MipFilter::linear};
    Texture t = random_texture(9, 6, 11);
    const Inputs in = inputs(64, 12, float(t.levels.size()));
    int states = 0;
    for (TextureWrap wu : wraps) {
      for (TextureWrap wv : wraps) {
        for (TextureFilter mag : filters) {
          for (TextureFilter min : filters) {
            for (MipFilter mip : mips) {
              t.sampler = SamplerState{wu, wv, mag, min, mip};
              expect_lanes_match(t, in, "sampler state");
              ++states;
            }
          }
        }
      }
    }
    EXPECT_EQ(states, 108);
  });
}

TEST(SamplerLanes, NoLevelsAndASingleLevelMatchScalar) {
  lane_testing::for_each_lane_target([&] {
    Texture empty;  // no levels: white, one sample, no fetches
    const Inputs in = inputs(20, 13, 3.0f);
    expect_lanes_match(empty, in, "no levels");
    const Texture single = random_texture(4, 4, 14, false);  // one level only
    expect_lanes_match(single, inputs(40, 15, 0.0f), "one level");
  });
}

// texture_lod_lanes against texture_lod: derivatives random over many magnitudes and special
// (NaN, infinities, zeros, huge, tiny), textures with no level, one level and odd chains,
// batches of 1 to 16 quads.
TEST(SamplerLanes, LevelOfDetailMatchesScalar) {
  lane_testing::for_each_lane_target([&] {
    // Besides the extremes: derivatives whose length on a 37-texel-wide level is a subnormal,
    // the least normal, 1 (log2 0) and just below and above it, and powers of two.
    const float specials[] = {kNaN,
                              kInf,
                              -kInf,
                              0.0f,
                              -0.0f,
                              1e30f,
                              -1e30f,
                              1e-30f,
                              1e-45f,
                              1.0f,
                              -0.5f,
                              1e-39f / 37.0f,
                              0x1p-126f / 37.0f,
                              1.0f / 37.0f,
                              0.99999994f / 37.0f,
                              1.0000001f / 37.0f,
                              2.0f / 37.0f,
                              64.0f / 37.0f,
                              0x1p-20f,
                              0x1p40f};
    std::mt19937 rng(29);
    std::uniform_real_distribution<float> exponent(-20.0f, 10.0f), sign(-1.0f, 1.0f);
    std::uniform_int_distribution<int> pick(0, 5);
    std::uniform_int_distribution<size_t> which(0, std::size(specials) - 1);
    auto derivative = [&] {
      return pick(rng) == 0 ? specials[which(rng)] : std::copysign(std::exp2(exponent(rng)), sign(rng));
    };
    const Texture textures[] = {Texture{}, random_texture(4, 4, 30, false), random_texture(37, 20, 31),
                                random_texture(1, 300, 32)};
    uint64_t checked = 0, positive = 0;
    for (const Texture& t : textures) {
      for (int round = 0; round < 400; ++round) {
        const int n = 1 + round % 16;
        float dudx[16], dvdx[16], dudy[16], dvdy[16], lod[16];
        for (int i = 0; i < n; ++i) {
          dudx[i] = derivative();
          dvdx[i] = derivative();
          dudy[i] = derivative();
          dvdy[i] = derivative();
        }
        for (LodLog2 log2 : {LodLog2::lanes, LodLog2::libm}) {
          texture_lod_lanes(t, dudx, dvdx, dudy, dvdy, n, lod, log2);
          for (int i = 0; i < n; ++i) {
            const float want = texture_lod(t, glm::vec2(dudx[i], dvdx[i]), glm::vec2(dudy[i], dvdy[i]));
            ASSERT_EQ(std::bit_cast<uint32_t>(lod[i]), std::bit_cast<uint32_t>(want))
                << "levels " << t.levels.size() << ", log2 in " << (log2 == LodLog2::lanes ? "lanes" : "libm")
                << ", derivatives " << dudx[i] << " " << dvdx[i] << " " << dudy[i] << " " << dvdy[i];
            ++checked;
            positive += want > 0.0f;
          }
        }
        texture_lod_lanes(t, dudx, dvdx, dudy, dvdy, n, lod);
        for (int i = 0; i < n; ++i) {
          const float want = texture_lod(t, glm::vec2(dudx[i], dvdx[i]), glm::vec2(dudy[i], dvdy[i]));
          ASSERT_EQ(std::bit_cast<uint32_t>(lod[i]), std::bit_cast<uint32_t>(want));
        }
      }
    }
    EXPECT_EQ(checked, 2u * 4u * 3400u);  // 25 rounds of batches of 1 to 16 per texture and source
    EXPECT_GT(positive, 1000u);           // levels above the base were reached
  });
}

// log2_normal_lanes against the C library's log2f, bit for bit: every positive normal float in
// [1, 2) (the polynomial's whole range of z) and at a stride through all binades, with both
// ends and every table subinterval's edges of each binade. The lanes are used only where
// log2_lanes_match_libm says so: on glibc the probe must pass; with another C library it is skipped.
// Every normal float: SamplerLanes.DISABLED_Log2LanesMatchLibmEverywhere below.
void expect_log2_matches(uint32_t first, uint32_t end, uint32_t stride) {
  constexpr int kBatch = 4096;
  std::vector<float> x, got(kBatch);
  x.reserve(kBatch);
  auto check = [&] {
    log2_normal_lanes(x.data(), int(x.size()), got.data());
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(std::log2(x[i])))
          << "log2 of " << x[i] << " (0x" << std::hex << std::bit_cast<uint32_t>(x[i]) << ")";
    x.clear();
  };
  for (uint64_t bits = first; bits < end; bits += stride) {
    x.push_back(std::bit_cast<float>(uint32_t(bits)));
    if (x.size() == kBatch) {
      check();
      if (testing::Test::HasFatalFailure()) return;
    }
  }
  if (!x.empty()) check();
}

TEST(SamplerLanes, Log2LanesMatchLibm) {
#ifdef __GLIBC__
  // On glibc the lanes are its algorithm: a failed probe is a bug in them, not another libm.
  ASSERT_TRUE(log2_lanes_match_libm()) << "the log2 lanes differ from glibc's log2f";
#else
  if (!log2_lanes_match_libm()) GTEST_SKIP() << "this C library's log2f is not glibc's: the lanes are not used";
#endif
  lane_testing::for_each_lane_target([&] {
    expect_log2_matches(0x3f800000u, 0x40000000u, 1);    // [1, 2)
    expect_log2_matches(0x00800000u, 0x7f800000u, 127);  // every binade
    for (uint32_t e = 0x00800000u; e < 0x7f800000u; e += 0x00800000u) {
      for (uint32_t edge = 0; edge < 0x00800000u; edge += 0x00080000u) {  // the 16 subintervals (OFF 0x330000)
        const uint32_t at = e + ((edge + 0x330000u) & 0x7fffffu);
        expect_log2_matches(at - 2, at + 3, 1);
      }
      expect_log2_matches(e, e + 3, 1);
      expect_log2_matches(e + 0x7ffffdu, e + 0x800000u, 1);
      if (HasFatalFailure()) return;
    }
    // The probe is the libm's own answer: these are glibc's exact results.
    const float x[] = {1.0f, 2.0f, 0x1p-126f, 0x1p127f, std::numeric_limits<float>::max()};
    float got[5];
    log2_normal_lanes(x, 5, got);
    const float want[] = {0.0f, 1.0f, -126.0f, 127.0f, 128.0f};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i])) << x[i];
  });
}

// Every positive normal float (2.1e9 per target, about a minute): run by hand with
//   build/bin/tessera_texture_tests --gtest_also_run_disabled_tests
//     --gtest_filter='SamplerLanes.DISABLED_Log2LanesMatchLibmEverywhere'
TEST(SamplerLanes, DISABLED_Log2LanesMatchLibmEverywhere) {
  lane_testing::for_each_lane_target([&] { expect_log2_matches(0x00800000u, 0x7f800000u, 1); });
}

}  // namespace
}  // namespace tessera
