// Portable reference tests for the modelled datapath: hand-written expected values from the
// spec (shared/spec/eu-fma-exp-mant.md) and its invariants. Nothing here needs AVX-512.
#include "eu/fma_datapath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "eu/eu_test_operands.h"

namespace tessera::eu {
namespace {

using F32 = std::numeric_limits<float>;
using F64 = std::numeric_limits<double>;

uint32_t bits(float x) { return to_bits<Binary32>(x); }
uint64_t bits(double x) { return to_bits<Binary64>(x); }

// Bit-exact equality (distinguishes -0 from +0 and NaN payloads).
#define EXPECT_BITS_EQ(expected, actual) EXPECT_EQ(bits(expected), bits(actual))

class Datapath : public ::testing::Test {
 protected:
  EuCounters k;
};

// ---- getexp -----------------------------------------------------------------------------------

TEST_F(Datapath, GetexpOfSubnormalsIsTheTrueExponent) {
  EXPECT_EQ(getexp(F64::denorm_min(), 0, k), -1074.0);
  EXPECT_EQ(getexp(F32::denorm_min(), 0, k), -149.0f);
  EXPECT_EQ(getexp(F64::min() / 2, 0, k), -1023.0);  // largest-exponent subnormal
  EXPECT_EQ(getexp(3.0 * F64::denorm_min(), 0, k), -1073.0);
}

TEST_F(Datapath, GetexpIsFloorLog2) {
  EXPECT_BITS_EQ(0.0, getexp(1.0, 0, k));  // +0, not -0
  EXPECT_EQ(getexp(1.999, 0, k), 0.0);
  EXPECT_EQ(getexp(0.75, 0, k), -1.0);
  EXPECT_EQ(getexp(-8.0, 0, k), 3.0);
  EXPECT_EQ(getexp(F64::max(), 0, k), 1023.0);
  EXPECT_EQ(getexp(F32::max(), 0, k), 127.0f);
  EXPECT_EQ(getexp(F32::min(), 0, k), -126.0f);
}

TEST_F(Datapath, GetexpSpecials) {
  EXPECT_BITS_EQ(F64::infinity(), getexp(F64::infinity(), 0, k));
  EXPECT_BITS_EQ(F64::infinity(), getexp(-F64::infinity(), 0, k));
  EXPECT_BITS_EQ(-F64::infinity(), getexp(0.0, 0, k));
  EXPECT_BITS_EQ(-F64::infinity(), getexp(-0.0, 0, k));
  // A signalling NaN comes back quiet with its sign and payload.
  const uint32_t snan = 0xFF800123u;
  EXPECT_EQ(execute<Binary32>(Opcode::getexp, snan, 0, 0, 0, k), snan | 0x00400000u);
}

TEST_F(Datapath, GetexpImmediateVariants) {
  // 3.0 = 1.5 * 2^1: first fraction bit 1.
  EXPECT_EQ(getexp(3.0, 0, k), 1.0);
  EXPECT_EQ(getexp(3.0, 1, k), 1.0);  // (1 + 1) >> 1
  EXPECT_EQ(getexp(3.0, 2, k), 2.0);
  EXPECT_EQ(getexp(3.0, 3, k), 2.0);
  // 5.0 = 1.25 * 2^2: first fraction bit 0.
  EXPECT_EQ(getexp(5.0, 1, k), 1.0);  // (2 + 1) >> 1
  EXPECT_EQ(getexp(5.0, 3, k), 2.0);
  // Arithmetic shift on negative exponents: floor((ue + 1) / 2).
  EXPECT_EQ(getexp(0.125, 1, k), -1.0);                // ue -3
  EXPECT_EQ(getexp(0.25, 1, k), -1.0);                 // ue -2
  EXPECT_BITS_EQ(0.0, getexp(0.5, 1, k));              // ue -1
  EXPECT_EQ(getexp(F64::denorm_min(), 1, k), -537.0);  // (-1074 + 1) >> 1
}

// ---- getmant ----------------------------------------------------------------------------------

TEST_F(Datapath, GetmantIntervals) {
  // 12 = 1.5 * 2^3 (odd exponent, first fraction bit 1); 5 = 1.25 * 2^2 (even, bit 0).
  EXPECT_EQ(getmant(12.0, 0, 0, k), 1.5);
  EXPECT_EQ(getmant(12.0, 1, 0, k), 0.75);
  EXPECT_EQ(getmant(12.0, 2, 0, k), 0.75);
  EXPECT_EQ(getmant(12.0, 3, 0, k), 0.75);
  EXPECT_EQ(getmant(5.0, 0, 0, k), 1.25);
  EXPECT_EQ(getmant(5.0, 1, 0, k), 1.25);
  EXPECT_EQ(getmant(5.0, 2, 0, k), 0.625);
  EXPECT_EQ(getmant(5.0, 3, 0, k), 1.25);
  // Odd negative exponent: 0.375 = 1.5 * 2^-2 (even), 0.75 = 1.5 * 2^-1 (odd).
  EXPECT_EQ(getmant(0.375f, 1, 0, k), 1.5f);
  EXPECT_EQ(getmant(0.75f, 1, 0, k), 0.75f);
}

TEST_F(Datapath, GetmantNormalisesSubnormals) {
  EXPECT_EQ(getmant(F64::denorm_min(), 0, 0, k), 1.0);
  EXPECT_EQ(getmant(3.0 * F64::denorm_min(), 0, 0, k), 1.5);
  EXPECT_EQ(getmant(3.0f * F32::denorm_min(), 2, 0, k), 0.75f);
  // 2^-1074 has an even exponent, 2^-1073 an odd one.
  EXPECT_EQ(getmant(F64::denorm_min(), 1, 0, k), 1.0);
  EXPECT_EQ(getmant(2.0 * F64::denorm_min(), 1, 0, k), 0.5);
}

TEST_F(Datapath, GetmantSignControl) {
  EXPECT_EQ(getmant(-5.0, 0, 0, k), -1.25);  // keep
  EXPECT_EQ(getmant(-5.0, 0, 1, k), 1.25);   // force positive
  EXPECT_TRUE(std::isnan(getmant(-5.0, 0, 2, k)));
  EXPECT_TRUE(std::isnan(getmant(-5.0, 0, 3, k)));
  EXPECT_EQ(getmant(5.0, 0, 2, k), 1.25);
  EXPECT_EQ(getmant(5.0, 0, 3, k), 1.25);
  // -0 is not "negative" for the NaN control; its 1.0 takes the sign control's sign.
  EXPECT_BITS_EQ(-1.0, getmant(-0.0, 0, 0, k));
  EXPECT_BITS_EQ(1.0, getmant(-0.0, 0, 1, k));
  EXPECT_BITS_EQ(-1.0, getmant(-0.0, 2, 2, k));
  EXPECT_BITS_EQ(1.0, getmant(-0.0, 2, 3, k));
  // -inf is negative: NaN under sign controls 2 and 3.
  EXPECT_BITS_EQ(-1.0, getmant(-F64::infinity(), 0, 0, k));
  EXPECT_BITS_EQ(1.0, getmant(-F64::infinity(), 0, 1, k));
  EXPECT_EQ(bits(getmant(-F64::infinity(), 0, 2, k)), Format<Binary64>::kDefaultNan);
  EXPECT_BITS_EQ(1.0, getmant(F64::infinity(), 3, 0, k));
  EXPECT_BITS_EQ(1.0, getmant(0.0, 2, 0, k));  // interval ignored for specials
}

// The spec's invariants: src / getmant(src, i) == 2^getexp(src, i) for i = 0, 2, 3, and
// src / getmant(src, 1) == 2^(2 * getexp(src, 1)), over random finite non-zero inputs.
template <class F>
void check_getexp_getmant_invariants(uint64_t seed) {
  using Native = typename F::Native;
  EuCounters k;
  testing::Rng rng(seed);
  for (int n = 0; n < 200'000; ++n) {
    const Native x = from_bits<F>(testing::random_operand<F>(rng));
    if (!std::isfinite(x) || x == 0) continue;
    for (int i = 0; i < 4; ++i) {
      const Native m = from_bits<F>(execute<F>(Opcode::getmant, to_bits<F>(x), 0, 0, getmant_imm(i, 0), k));
      const Native e = from_bits<F>(execute<F>(Opcode::getexp, to_bits<F>(x), 0, 0, uint8_t(i), k));
      const int power = i == 1 ? 2 * int(e) : int(e);
      ASSERT_EQ(std::ldexp(m, power), x) << "interval/imm " << i << " x=" << x;
    }
  }
}
TEST(DatapathInvariants, GetmantTimesTwoToGetexpIsTheSourceBinary32) { check_getexp_getmant_invariants<Binary32>(5); }
TEST(DatapathInvariants, GetmantTimesTwoToGetexpIsTheSourceBinary64) { check_getexp_getmant_invariants<Binary64>(6); }

// ---- scalef -----------------------------------------------------------------------------------

TEST_F(Datapath, ScalefFloorsTheScale) {
  EXPECT_EQ(scalef(1.5, 2.7, k), 6.0);
  EXPECT_EQ(scalef(1.5, -2.3, k), 0.1875);  // floor(-2.3) = -3
  EXPECT_EQ(scalef(2.0, -0.5, k), 1.0);
  EXPECT_EQ(scalef(2.0, -F64::denorm_min(), k), 1.0);  // floor of a tiny negative is -1
  EXPECT_EQ(scalef(2.0, F64::denorm_min(), k), 2.0);
  EXPECT_EQ(scalef(-3.0f, 4.0f, k), -48.0f);
}

TEST_F(Datapath, ScalefOverflowAndUnderflowRound) {
  EXPECT_BITS_EQ(F32::infinity(), scalef(1.0f, 128.0f, k));
  EXPECT_BITS_EQ(-F32::infinity(), scalef(-F32::max(), 1.0f, k));
  EXPECT_EQ(scalef(1.0f, 127.0f, k), 0x1p127f);
  EXPECT_EQ(scalef(1.0f, -149.0f, k), F32::denorm_min());
  EXPECT_BITS_EQ(0.0f, scalef(1.0f, -150.0f, k));                 // exactly half the smallest: tie to 0
  EXPECT_BITS_EQ(-0.0f, scalef(-1.0f, -150.0f, k));               // sign kept
  EXPECT_EQ(scalef(1.5f, -150.0f, k), F32::denorm_min());         // 0.75 ulp: up
  EXPECT_EQ(scalef(3.0f, -150.0f, k), 2.0f * F32::denorm_min());  // 1.5 ulp: tie to even 2
  EXPECT_EQ(scalef(5.0f, -150.0f, k), 2.0f * F32::denorm_min());  // 2.5 ulp: tie to even 2
  EXPECT_EQ(scalef(7.0f, -150.0f, k), 4.0f * F32::denorm_min());  // 3.5 ulp: tie to even 4
  // A subnormal result that rounds up into the smallest normal.
  EXPECT_EQ(scalef(2.0f - 0x1p-23f, -127.0f, k), F32::min());
  EXPECT_EQ(scalef(1.0, -1074.0, k), F64::denorm_min());
  EXPECT_BITS_EQ(0.0, scalef(1.0, -1075.0, k));
  EXPECT_EQ(scalef(1.5, -1075.0, k), F64::denorm_min());
  EXPECT_EQ(scalef(F64::denorm_min(), 2097.0, k), 0x1p1023);
  EXPECT_BITS_EQ(F64::infinity(), scalef(F64::denorm_min(), 2098.0, k));
  EXPECT_BITS_EQ(F64::infinity(), scalef(F64::denorm_min(), 1e300, k));  // clamped, still overflows
  EXPECT_BITS_EQ(0.0, scalef(F64::max(), -1e300, k));
}

TEST_F(Datapath, ScalefSpecials) {
  const double inf = F64::infinity(), nan = F64::quiet_NaN();
  const uint64_t indefinite = Format<Binary64>::kDefaultNan;
  EXPECT_EQ(bits(scalef(0.0, inf, k)), indefinite);    // 0 * 2^inf
  EXPECT_EQ(bits(scalef(-inf, -inf, k)), indefinite);  // inf * 2^-inf
  EXPECT_BITS_EQ(-0.0, scalef(-0.0, -inf, k));
  EXPECT_BITS_EQ(inf, scalef(inf, inf, k));
  EXPECT_BITS_EQ(-inf, scalef(-2.0, inf, k));
  EXPECT_BITS_EQ(-0.0, scalef(-2.0, -inf, k));
  EXPECT_BITS_EQ(nan, scalef(nan, 3.0, k));
  EXPECT_BITS_EQ(nan, scalef(2.0, nan, k));
  EXPECT_BITS_EQ(inf, scalef(-nan, inf, k));  // x86: quiet NaN * 2^+inf = +inf
  EXPECT_BITS_EQ(0.0, scalef(nan, -inf, k));  //      quiet NaN * 2^-inf = +0
}

// ---- fma, add, mul ----------------------------------------------------------------------------

TEST_F(Datapath, FmaRoundsOnce) {
  EXPECT_EQ(fma(0.1, 10.0, -1.0, k), 0x1p-54);  // 0.1*10 rounded first would give 0
  const float e = 0x1p-23f;
  EXPECT_EQ(fma(1.0f + e, 1.0f - e, -1.0f, k), -0x1p-46f);
  EXPECT_EQ(fma(3.0, 5.0, 7.0, k), 22.0);
}

TEST_F(Datapath, FmaSignedZerosAndInvalid) {
  EXPECT_BITS_EQ(0.0, fma(0.0, 5.0, -0.0, k));
  EXPECT_BITS_EQ(-0.0, fma(-0.0, 5.0, -0.0, k));
  EXPECT_BITS_EQ(0.0, fma(1.0, 1.0, -1.0, k));  // exact cancellation is +0
  EXPECT_BITS_EQ(-0.0, mul(-0.0, 3.0, k));
  EXPECT_BITS_EQ(0.0, add(-0.0, 0.0, k));
  EXPECT_BITS_EQ(-0.0, add(-0.0, -0.0, k));
  EXPECT_EQ(bits(fma(F64::infinity(), 0.0, 1.0, k)), Format<Binary64>::kDefaultNan);
  EXPECT_EQ(bits(fma(F64::infinity(), 1.0, -F64::infinity(), k)), Format<Binary64>::kDefaultNan);
  EXPECT_BITS_EQ(-F64::infinity(), fma(F64::infinity(), -1.0, -F64::infinity(), k));
}

TEST_F(Datapath, FmaNanPriorityIsAThenBThenC) {
  const uint32_t qa = 0x7FC00001u, sb = 0x7F800002u, qc = 0xFFC00003u;
  EXPECT_EQ(execute<Binary32>(Opcode::fma, qa, sb, qc, 0, k), qa);
  EXPECT_EQ(execute<Binary32>(Opcode::fma, bits(1.0f), sb, qc, 0, k), sb | 0x00400000u);
  EXPECT_EQ(execute<Binary32>(Opcode::fma, 0u, bits(F32::infinity()), qc, 0, k), qc);  // NaN beats inf*0
}

TEST_F(Datapath, FmaGradualUnderflowAndOverflow) {
  EXPECT_EQ(fma(0x1p-100f, 0x1p-49f, 0.0f, k), F32::denorm_min());
  EXPECT_BITS_EQ(0.0f, fma(0x1p-100f, 0x1p-50f, 0.0f, k));            // tie to 0
  EXPECT_EQ(fma(0x1.8p-100f, 0x1p-50f, 0.0f, k), F32::denorm_min());  // 0.75 ulp
  EXPECT_EQ(fma(-0x1p-100f, 0x1p-49f, F32::denorm_min(), k), 0.0f);
  EXPECT_BITS_EQ(F32::infinity(), fma(F32::max(), 2.0f, 0.0f, k));
  EXPECT_BITS_EQ(F32::infinity(), fma(F32::max(), 1.0f, 0x1p103f, k));  // half ulp, odd: up
  EXPECT_EQ(fma(F32::max(), 1.0f, 0x1p102f, k), F32::max());
  EXPECT_EQ(fma(F64::min(), 0.5, 0.0, k), F64::min() / 2);  // exact subnormal
}

// add and mul agree with the host on a few ordinary values (both round to nearest even).
TEST_F(Datapath, AddAndMulAreFmaSpecialCases) {
  volatile float x = 0.1f, y = 0.2f;  // volatile: computed at run time by the host FPU
  EXPECT_EQ(add(0.1f, 0.2f, k), x + y);
  EXPECT_EQ(mul(0.1f, 0.2f, k), x * y);
  EXPECT_EQ(add(1e308, 1e308, k), F64::infinity());
}

// ---- getexpdiff and getmantdiv ---------------------------------------------------------------

TEST_F(Datapath, GetexpdiffAndGetmantdiv) {
  // 6 = 1.5 * 2^2, 1.75 = 1.75 * 2^0: mant(a) < mant(b).
  EXPECT_EQ(getexpdiff(6.0, 1.75, k), 1.0);
  EXPECT_EQ(getmantdiv(6.0, 1.75, k), 3.0);
  // 7 = 1.75 * 2^2, 1.25: mant(a) >= mant(b).
  EXPECT_EQ(getexpdiff(7.0, 1.25, k), 2.0);
  EXPECT_EQ(getmantdiv(-7.0, 1.25, k), -1.75);
  EXPECT_EQ(getexpdiff(F64::denorm_min(), 1.0, k), -1074.0);
  EXPECT_EQ(getexpdiff(1.0, F64::denorm_min() * 3, k), 1072.0);  // 1.0 < 1.5: minus 1
  // Specials follow getexp(a) - getexp(b).
  EXPECT_TRUE(std::isnan(getexpdiff(0.0, 0.0, k)));
  EXPECT_TRUE(std::isnan(getexpdiff(F64::infinity(), -F64::infinity(), k)));
  EXPECT_BITS_EQ(-F64::infinity(), getexpdiff(0.0, 3.0, k));
  EXPECT_BITS_EQ(F64::infinity(), getexpdiff(3.0, -0.0, k));
  EXPECT_BITS_EQ(F64::infinity(), getexpdiff(F64::infinity(), 3.0, k));
  EXPECT_BITS_EQ(-F64::infinity(), getexpdiff(0.0, F64::infinity(), k));
  EXPECT_BITS_EQ(-2.0, getmantdiv(-0.0, 3.0, k));  // mant(-0) = 1.0 < 1.5
  EXPECT_BITS_EQ(-1.0, getmantdiv(-0.0, 1.0, k));
}

// Division built from the helpers, as the spec intends: for normal quotients,
// scalef(getmantdiv(a, b) / getmant(b, 0, 0), getexpdiff(a, b)) is exactly the rounded a / b
// (the [1, 2) mantissa quotient is rounded once and the scaling is exact).
template <class F>
void check_division_composition(uint64_t seed) {
  using Native = typename F::Native;
  EuCounters k;
  testing::Rng rng(seed);
  int checked = 0;
  for (int n = 0; n < 200'000; ++n) {
    const Native a = from_bits<F>(testing::random_operand<F>(rng));
    const Native b = from_bits<F>(testing::random_operand<F>(rng));
    volatile Native quotient = a / b;
    if (!std::isnormal(quotient) || !std::isfinite(a) || !std::isfinite(b)) continue;
    const Native md = getmantdiv(a, b, k);
    const Native mb = getmant(b, 0, 0, k);
    volatile Native q = md / mb;
    ASSERT_GE(std::fabs(q), Native(1));
    ASSERT_LT(std::fabs(q), Native(2));
    ASSERT_EQ(scalef(Native(q), getexpdiff(a, b, k), k), quotient) << a << " / " << b;
    ++checked;
  }
  EXPECT_GT(checked, 50'000);
}
TEST(DatapathInvariants, DivisionFromGetexpdiffAndGetmantdivBinary32) { check_division_composition<Binary32>(7); }
TEST(DatapathInvariants, DivisionFromGetexpdiffAndGetmantdivBinary64) { check_division_composition<Binary64>(8); }

// ---- 16-lane issue ------------------------------------------------------------------------------

TEST_F(Datapath, Execute16MergeMasksAndCountsOneIssue) {
  Lanes<Binary32> a{}, b{}, c{}, out{};
  for (size_t i = 0; i < 16; ++i) {
    a[i] = bits(float(i + 1));
    b[i] = bits(2.0f);
    c[i] = bits(1.0f);
    out[i] = bits(-7.0f);
  }
  execute16<Binary32>(Opcode::fma, a, b, c, 0, out, 0x00FF, k);
  for (size_t i = 0; i < 16; ++i) {
    const float expected = i < 8 ? float(2 * (i + 1) + 1) : -7.0f;
    EXPECT_EQ(from_bits<Binary32>(out[i]), expected) << "lane " << i;
  }
  EXPECT_EQ(k[EuCounters::simd_issues], 1u);
  EXPECT_EQ(k[EuCounters::simd_lanes_active], 8u);
  EXPECT_EQ(k[EuCounters::simd_lanes_idle], 8u);
  EXPECT_EQ(k[Opcode::fma], 8u);
}

}  // namespace
}  // namespace tessera::eu
