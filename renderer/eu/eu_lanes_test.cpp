// The lane batches (eu_lanes.cpp) against the scalar fast path: every lane bit for bit what
// eu_fast returns (and so the datapath model, native_isa_test.cpp), on ordinary operands (the
// vector fast path), specials and subnormals (the scalar fallback) and mixtures of both in one
// vector, for every batch length up to a few vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "eu/eu_test_operands.h"
#include "eu/lane_target_test_support.h"
#include "tessera/error.h"
#include "tessera/eu_shader_math.h"
#include "tessera/lane_target.h"

namespace tessera::eu {
namespace {

using testing::Rng;

// Operands: mostly ordinary values over a wide exponent range (shading's inputs), with specials,
// subnormals and raw bit patterns mixed in so that fast and fallback lanes share vectors.
std::vector<float> operands(uint64_t seed, size_t count) {
  Rng rng(seed);
  const std::vector<uint32_t> specials = testing::special_operands<Binary32>();
  std::vector<float> out;
  for (size_t i = 0; i < count; ++i) {
    uint32_t b;
    switch (rng.next() % 8) {
      case 0: b = specials[rng.next() % specials.size()]; break;
      case 1: b = testing::random_bits<Binary32>(rng); break;
      case 2: b = testing::random_subnormal<Binary32>(rng); break;
      default: b = testing::with_exponent<Binary32>(rng, rng.uniform(-40, 40)) & 0x7FFFFFFFu; break;
    }
    out.push_back(std::bit_cast<float>(b));
  }
  return out;
}

void expect_same(const std::vector<float>& want, const std::vector<float>& got, const char* what) {
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(want[i]), std::bit_cast<uint32_t>(got[i]))
        << what << " lane " << i << ": " << want[i] << " vs " << got[i];
  }
}

using Unary = float (*)(float);
using UnaryLanes = void (*)(const float*, float*, int);
using Binary = float (*)(float, float);
using BinaryLanes = void (*)(const float*, const float*, float*, int);

void check_unary(const char* name, Unary scalar, UnaryLanes lanes) {
  const std::vector<float> x = operands(0x51A7 + uint64_t(name[0]), 20000);
  std::vector<float> want(x.size()), got(x.size(), 0.0f);
  for (size_t i = 0; i < x.size(); ++i) want[i] = scalar(x[i]);
  lanes(x.data(), got.data(), int(x.size()));
  expect_same(want, got, name);
  // Every batch length from 1 to three vectors and a bit: the tail lanes are padded.
  for (int n = 1; n <= 3 * eu_fast::host_lanes() + 1; ++n) {
    std::vector<float> part(size_t(n), 0.0f);
    lanes(x.data() + 7, part.data(), n);
    expect_same(std::vector<float>(want.begin() + 7, want.begin() + 7 + n), part, name);
  }
}

void check_binary(const char* name, Binary scalar, BinaryLanes lanes) {
  const std::vector<float> x = operands(0xB1 + uint64_t(name[0]), 20000);
  const std::vector<float> y = operands(0xB2 + uint64_t(name[1]), 20000);
  std::vector<float> want(x.size()), got(x.size(), 0.0f);
  for (size_t i = 0; i < x.size(); ++i) want[i] = scalar(x[i], y[i]);
  lanes(x.data(), y.data(), got.data(), int(x.size()));
  expect_same(want, got, name);
}

TEST(EuLanes, UnaryFunctionsMatchScalarBitForBit) {
  lane_testing::for_each_lane_target([&] {
    check_unary("rsqrt", eu_fast::rsqrt, eu_fast::rsqrt_lanes);
    check_unary("sqrt", eu_fast::sqrt, eu_fast::sqrt_lanes);
    check_unary("exp", eu_fast::exp, eu_fast::exp_lanes);
    check_unary("log2", eu_fast::log2, eu_fast::log2_lanes);
  });
}

TEST(EuLanes, BinaryFunctionsMatchScalarBitForBit) {
  lane_testing::for_each_lane_target([&] {
    check_binary("div", eu_fast::div, eu_fast::div_lanes);
    check_binary("pow", eu_fast::pow, eu_fast::pow_lanes);
  });
}

// Shading's own operand ranges (normal vectors' squared lengths, attenuations, powers of
// cosines): the vector fast path, not the fallback, gives these lanes.
TEST(EuLanes, ShadingRangesMatchScalarBitForBit) {
  lane_testing::for_each_lane_target([&] {
    Rng rng(77);
    std::vector<float> x, y;
    for (int i = 0; i < 4096; ++i) {
      x.push_back(float(rng.next() % 1000000) * 1e-6f + 1e-7f);
      y.push_back(1.0f + float(rng.next() % 128));
    }
    std::vector<float> want(x.size()), got(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = eu_fast::pow(x[i], y[i]);
    eu_fast::pow_lanes(x.data(), y.data(), got.data(), int(x.size()));
    expect_same(want, got, "pow");
    for (size_t i = 0; i < x.size(); ++i) want[i] = eu_fast::div(1.0f, y[i] * x[i]);
    std::vector<float> ones(x.size(), 1.0f), yx(x.size());
    for (size_t i = 0; i < x.size(); ++i) yx[i] = y[i] * x[i];
    eu_fast::div_lanes(ones.data(), yx.data(), got.data(), int(x.size()));
    expect_same(want, got, "div");
  });
}

// rsqrt's vector kernel (eu_lanes-inl.h, rsqrt_vector) skips rsqrt_bf's scale arithmetic on the
// ground that the core's h and y stay in range for every mantissa: every m in [1/2, 2) (both
// exponent parities, all 2^24 values), and random significands under every exponent.
TEST(EuLanes, RsqrtVectorMatchesScalarOnEveryMantissa) {
  lane_testing::for_each_lane_target([&] {
    std::vector<float> x;
    x.reserve(size_t(1) << 24);
    for (uint32_t b = 0x3F000000u; b < 0x40000000u; ++b) x.push_back(std::bit_cast<float>(b));  // [1/2, 2)
    Rng rng(0x5E7);
    for (uint32_t e = 1; e < 255; ++e) {
      for (int i = 0; i < 4096; ++i) x.push_back(std::bit_cast<float>(e << 23 | uint32_t(rng.next() & 0x7FFFFFu)));
    }
    std::vector<float> got(x.size());
    eu_fast::rsqrt_lanes(x.data(), got.data(), int(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(eu_fast::rsqrt(x[i])), std::bit_cast<uint32_t>(got[i]))
          << "rsqrt(" << x[i] << ")";
    }
  });
}

// div's vector kernel (div_vector) tests the result's range on integer exponents: quotients at
// and beyond both ends of the normal range, of either sign, leave the fast path exactly where
// div_bf's scalef would.
TEST(EuLanes, DivVectorMatchesScalarAtTheRangeEnds) {
  lane_testing::for_each_lane_target([&] {
    Rng rng(0xD1F);
    std::vector<float> x, y;
    for (int i = 0; i < 200000; ++i) {
      const bool overflow = rng.next() % 2 != 0;
      const int ex = overflow ? rng.uniform(100, 127) : rng.uniform(-126, -100);
      const int ey = overflow ? rng.uniform(-126, -100) : rng.uniform(100, 127);
      const uint32_t sx = uint32_t(rng.next() % 2) << 31, sy = uint32_t(rng.next() % 2) << 31;
      x.push_back(std::bit_cast<float>(sx | testing::with_exponent<Binary32>(rng, ex)));
      y.push_back(std::bit_cast<float>(sy | testing::with_exponent<Binary32>(rng, ey)));
      // Quotients with a significand near 1 or 2, whose rounding moves the exponent.
      const uint32_t f = uint32_t(rng.next() & 0x7FFFFFu);
      x.push_back(std::bit_cast<float>(sx | uint32_t(rng.uniform(1, 254)) << 23 | f));
      y.push_back(std::bit_cast<float>(sy | uint32_t(rng.uniform(1, 254)) << 23 |
                                       ((f + uint32_t(rng.uniform(-2, 2))) & 0x7FFFFFu)));
    }
    std::vector<float> want(x.size()), got(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = eu_fast::div(x[i], y[i]);
    eu_fast::div_lanes(x.data(), y.data(), got.data(), int(x.size()));
    expect_same(want, got, "div");
  });
}

TEST(EuLanes, CountsOneCallPerLane) {
  EuShaderMath math;
  const float x[5] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  float out[5];
  math.rsqrt_lanes(x, out, 5);
  math.div_lanes(x, x, out, 3);
  EXPECT_EQ(math.calls(EuMathFunction::rsqrt), 5u);
  EXPECT_EQ(math.calls(EuMathFunction::div), 3u);
  EXPECT_EQ(math.total_calls(), 8u);
  math.count_lanes(EuMathFunction::div, 4);  // lanes evaluated by a per-target caller
  EXPECT_EQ(math.calls(EuMathFunction::div), 7u);
  EXPECT_EQ(math.total_calls(), 12u);
}

// The run-time dispatch follows a forced target: the vector width the lane code reports is that
// target's (16 binary32 lanes for AVX-512, 8 for AVX2, 4 for 128-bit targets).
TEST(LaneTarget, DispatchFollowsTheForcedTarget) {
  lane_testing::for_each_lane_target([&] {
    const std::string t = lane_target();
    const int want = t == "AVX3" || t == "AVX3_DL" ? 16 : t == "AVX2" ? 8 : 4;
    EXPECT_EQ(eu_fast::host_lanes(), want);
  });
  const auto runnable = lane_targets();
  if (std::find(runnable.begin(), runnable.end(), "AVX3") != runnable.end()) {
    set_lane_target("AvX512");  // alias, case-insensitive
    EXPECT_EQ(lane_target(), "AVX3");
  } else {
    EXPECT_THROW(set_lane_target("avx512"), Error);  // compiled on x86-64 but not runnable here
  }
  set_lane_target("best");
  EXPECT_EQ(lane_target(), lane_targets().front());
}

TEST(LaneTarget, UnknownTargetsAreRefused) {
  EXPECT_THROW(set_lane_target("sse2"), Error);
  EXPECT_THROW(set_lane_target(""), Error);
  EXPECT_THROW(set_lane_target("avx2 "), Error);
  EXPECT_EQ(lane_target(), lane_targets().front());  // a refused name changes nothing
}

}  // namespace
}  // namespace tessera::eu
