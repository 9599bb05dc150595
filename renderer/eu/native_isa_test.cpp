// The fast path against the model: every native instruction (native_isa.h) bit for bit against
// the datapath model, every branch-free function over the native ISA (tessera::eu_fast) bit for
// bit against the same function on the model, and the per-call profiles (eu::call_profile)
// against the counters of individual model calls (the data-independence the profiles rely on).
#include "eu/native_isa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <string>

#include "eu/eu_math.h"
#include "eu/eu_math_inputs.h"
#include "eu/eu_test_operands.h"
#include "eu/fma_datapath.h"
#include "tessera/eu_shader_math.h"
#include "tessera/stats.h"

namespace tessera::eu {
namespace {

using testing::Rng;

template <class T>
using Fm = Format<std::conditional_t<sizeof(T) == 4, Binary32, Binary64>>;
template <class T>
using F = std::conditional_t<sizeof(T) == 4, Binary32, Binary64>;
template <class T>
auto bits_of(T x) {
  return std::bit_cast<typename Fm<T>::Bits>(x);
}

template <class T>
T operand(Rng& rng) {
  return from_bits<F<T>>(testing::random_operand<F<T>>(rng));
}

// Mismatch tally with the first few reported.
struct Tally {
  uint64_t compared = 0, mismatches = 0;
  std::string first;
  template <class T>
  void check(const char* what, T model, T native, T a, T b, T c) {
    ++compared;
    if (bits_of(model) == bits_of(native)) return;
    if (++mismatches <= 5) {
      char line[256];
      std::snprintf(line, sizeof line, "%s(%a, %a, %a): model %a (0x%" PRIx64 ") native %a (0x%" PRIx64 ")\n", what,
                    double(a), double(b), double(c), double(model), uint64_t(bits_of(model)), double(native),
                    uint64_t(bits_of(native)));
      first += line;
    }
  }
};
#define EXPECT_NO_MISMATCH(t) EXPECT_EQ((t).mismatches, 0u) << (t).compared << " compared\n" << (t).first

template <class T>
class NativeIsaTest : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NativeIsaTest, Precisions);

constexpr int kOpcodeSamples = 400000;

TYPED_TEST(NativeIsaTest, OpcodesMatchModelBitForBit) {
  using T = TypeParam;
  using Fmt = Fm<T>;
  Rng rng(0xA11CE + sizeof(T));
  EuCounters k;
  NativeIsa isa;
  Tally t;
  const auto specials = testing::special_operands<F<T>>();
  // Every pair of special operands, then random mixes.
  std::vector<T> sv;
  for (auto b : specials) sv.push_back(from_bits<F<T>>(b));
  auto run = [&](T a, T b, T c) {
    t.check("fma", fma(a, b, c, k), fma(a, b, c, isa), a, b, c);
    t.check("add", add(a, b, k), add(a, b, isa), a, b, T(0));
    t.check("mul", mul(a, b, k), mul(a, b, isa), a, b, T(0));
    for (int imm = 0; imm < 4; ++imm) t.check("getexp", getexp(a, imm, k), getexp(a, imm, isa), a, T(imm), T(0));
    for (int imm = 0; imm < 16; ++imm)
      t.check("getmant", getmant(a, imm & 3, imm >> 2, k), getmant(a, imm & 3, imm >> 2, isa), a, T(imm), T(0));
    t.check("scalef", scalef(a, b, k), scalef(a, b, isa), a, b, T(0));
    t.check("getexpdiff", getexpdiff(a, b, k), getexpdiff(a, b, isa), a, b, T(0));
    t.check("getmantdiv", getmantdiv(a, b, k), getmantdiv(a, b, isa), a, b, T(0));
  };
  for (T a : sv)
    for (T b : sv)
      for (T c : sv) run(a, b, c);
  const int span = 2 * Fmt::kBias + Fmt::kFracBits + 8;
  for (int i = 0; i < kOpcodeSamples; ++i) {
    const T a = operand<T>(rng);
    T b = operand<T>(rng);
    T c = operand<T>(rng);
    switch (rng.uniform(0, 3)) {
      case 0:  // scale across the whole range, with fractions: overflow, subnormal rounding
        b = T(rng.uniform(-span, span)) + T(double(rng.next() >> 40) * 0x1p-24);
        break;
      case 1: {  // product near the subnormal range or overflow, addend close by
        const int ea = rng.uniform(Fmt::kEmin / 2 - 40, Fmt::kEmax / 2 + 40);
        const T aa = from_bits<F<T>>(testing::with_exponent<F<T>>(rng, ea));
        const T bb = from_bits<F<T>>(testing::with_exponent<F<T>>(
            rng, rng.uniform(-Fmt::kPrecision - 3, 3) - ea + (rng.next() & 1 ? Fmt::kEmin : Fmt::kEmax)));
        run(aa, bb, c);
        c = T(-double(a) * double(b));  // nearly cancelling addend
        break;
      }
      default: break;
    }
    run(a, b, c);
  }
  EXPECT_NO_MISMATCH(t);
  EXPECT_GT(t.compared, uint64_t(kOpcodeSamples) * 20);
}

// Inputs for the function tests: the bench's domain mix with 5% specials, plus raw bit
// patterns (every NaN payload, infinities, subnormals) and near-special values.
template <class T>
void function_operands(MathFunction f, uint64_t& state, Rng& rng, T& x, T& y) {
  switch (rng.uniform(0, 3)) {
    case 0:
      x = operand<T>(rng);
      y = operand<T>(rng);
      return;
    case 1: {  // near 1, the overflow/underflow thresholds of exp/exp2/pow, subnormals
      const T edges[] = {T(1), std::numeric_limits<T>::max_exponent * T(1),
                         T(std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits),
                         T(0.6931471805599453) * std::numeric_limits<T>::max_exponent, std::numeric_limits<T>::min()};
      const T e = edges[rng.uniform(0, 4)];
      x = std::nextafter(e, T(rng.next() & 1 ? 1e30 : -1e30)) *
          (T(1) + T(rng.uniform(-1000, 1000)) * std::numeric_limits<T>::epsilon());
      y = math_operand<T>(f, 1, state, 5);
      return;
    }
    default: x = math_operand<T>(f, 0, state, 5); y = math_operand<T>(f, 1, state, 5);
  }
}

constexpr int kFunctionSamples = 1000000;

// Native vs model over >= 1M inputs per function; each model call's opcode counts equal the
// cached profile (no data-dependent control flow, whatever the input).
TYPED_TEST(NativeIsaTest, FunctionsMatchModelBitForBitWithConstantOpcodeMix) {
  using T = TypeParam;
  for (int fi = 0; fi < kMathFunctionCount; ++fi) {
    const MathFunction f = MathFunction(fi);
    const EuCounters& profile = call_profile(f, sizeof(T) == 4);
    uint64_t state = 0xF00D + uint64_t(fi);
    Rng rng(0xBEEF + uint64_t(fi) * 7 + sizeof(T));
    Tally t;
    uint64_t mix_mismatches = 0;
    for (int i = 0; i < kFunctionSamples; ++i) {
      T x, y;
      function_operands<T>(f, state, rng, x, y);
      EuCounters k;
      const T model = evaluate(f, false, x, y, k);
      t.check(math_function_name(f), model, evaluate_native(f, x, y), x, y, T(0));
      if (k.instructions != profile.instructions) ++mix_mismatches;
    }
    EXPECT_NO_MISMATCH(t) << math_function_name(f);
    EXPECT_EQ(mix_mismatches, 0u) << math_function_name(f) << ": opcode mix depends on the input";
  }
}

// Block activations are not data-independent in the model: an operand that happens to be zero
// (an exponent of 0, a reduction integer n = 0, an exact Fast2Sum correction) takes the special
// bypass and skips the multiplier/aligner/rounder. The profile's blocks are the rounded mean
// over fixed ordinary operands; on 20,000 other random ordinary operands (x in [8, 16), y in
// [1.2, 2)) the mean per call stays within 0.5 or 5% of it.
TYPED_TEST(NativeIsaTest, ProfileBlocksMatchOrdinaryOperandsOnAverage) {
  using T = TypeParam;
  constexpr int kSamples = 20000;
  for (int fi = 0; fi < kMathFunctionCount; ++fi) {
    const MathFunction f = MathFunction(fi);
    const EuCounters& profile = call_profile(f, sizeof(T) == 4);
    Rng rng(77 + uint64_t(fi));
    EuCounters sum;
    for (int i = 0; i < kSamples; ++i) {
      const T x = T(8) + T(double(rng.next() >> 11) * 0x1p-53) * T(8);
      const T y = T(1.2) + T(double(rng.next() >> 11) * 0x1p-53) * T(0.8);
      evaluate(f, false, x, y, sum);
    }
    for (size_t j = 0; j < sum.v.size(); ++j) {
      const double mean = double(sum.v[j]) / kSamples, p = double(profile.v[j]);
      EXPECT_LE(std::abs(mean - p), std::max(0.5, 0.05 * p))
          << math_function_name(f) << " " << EuCounters::kKeys[j] << ": mean " << mean << ", profile " << p;
    }
    EXPECT_EQ(profile[EuCounters::branches], 0u);
    EXPECT_GT(dynamic_instructions(profile), 5u);
  }
}

TEST(EuShaderMath, CountsCallsAndPublishesProfileTimesCalls) {
  EuShaderMath a, b;
  EXPECT_EQ(a.pow(2.0f, 10.0f), 1024.0f);
  EXPECT_EQ(a.exp2(3.0f), 8.0f);
  EXPECT_EQ(b.sqrt(9.0f), 3.0f);
  EXPECT_EQ(b.div(1.0f, 4.0f), 0.25f);
  EXPECT_EQ(b.rsqrt(16.0f), 0.25f);
  b.pow(3.0f, 0.5f);
  a.merge(b);
  EXPECT_EQ(a.calls(EuMathFunction::pow), 2u);
  EXPECT_EQ(a.calls(EuMathFunction::rsqrt), 1u);
  EXPECT_EQ(a.total_calls(), 6u);
  const uint64_t expected = 2 * dynamic_instructions(call_profile(MathFunction::pow, true)) +
                            dynamic_instructions(call_profile(MathFunction::exp2, true)) +
                            dynamic_instructions(call_profile(MathFunction::sqrt, true)) +
                            dynamic_instructions(call_profile(MathFunction::div, true)) +
                            dynamic_instructions(call_profile(MathFunction::rsqrt, true));
  EXPECT_EQ(a.instructions(), expected);
  Stats stats;
  a.publish(stats);
  EXPECT_EQ(stats.get_u64("eu.math.calls.pow"), 2u);
  EXPECT_EQ(stats.get_u64("eu.math.calls.rsqrt"), 1u);
  EXPECT_EQ(stats.get_u64("eu.instructions.scalef"), to_counters(a)[Opcode::scalef]);
  EXPECT_GT(stats.get_u64("eu.fma.rounder"), 0u);
}

// The profiles are computed per function and kind on first use (eu_shader_math.cpp): whatever
// the order, each is its definition, recomputed here on the model: the truncated mean opcode
// counts and the rounded mean blocks over the 256 fixed operands (x in [8, 16), y in [1.2, 2)
// from seed 0x9E0F11E) in binary32 and binary64, and the branchy baseline's rounded mean dynamic
// instructions in binary32. Functions are visited last to first so that most are first used
// here, not by a frame.
TEST(EuShaderMath, CallProfilesAreTheirFixedOperandMeans) {
  constexpr int kSamples = 256;
  for (int fi = kMathFunctionCount - 1; fi >= 0; --fi) {
    const MathFunction f = MathFunction(fi);
    EuCounters sum32, sum64, branchy;
    uint64_t state = 0x9E0F11E;
    for (int i = 0; i < kSamples; ++i) {
      const double x = 8.0 + 8.0 * unit_random(state);
      const double y = 1.2 + 0.8 * unit_random(state);
      evaluate(f, false, float(x), float(y), sum32);
      evaluate(f, false, x, y, sum64);
      evaluate(f, true, float(x), float(y), branchy);
    }
    EXPECT_EQ(baseline_call_instructions(f), (dynamic_instructions(branchy) + kSamples / 2) / kSamples)
        << math_function_name(f);
    for (const bool single : {true, false}) {
      const EuCounters& sum = single ? sum32 : sum64;
      const EuCounters& profile = call_profile(f, single);
      for (size_t j = 0; j < sum.instructions.size(); ++j)
        EXPECT_EQ(profile.instructions[j], sum.instructions[j] / kSamples) << math_function_name(f) << " opcode " << j;
      for (size_t j = 0; j < sum.v.size(); ++j)
        EXPECT_EQ(profile.v[j], (sum.v[j] + kSamples / 2) / kSamples) << math_function_name(f) << " " << EuCounters::kKeys[j];
    }
  }
  // An accumulator's counters add only the functions it called: none called, only the ALU.
  EuShaderMath alu_only;
  alu_only.alu(3, 2, 1);
  const EuCounters alu = to_counters(alu_only);
  EuShaderMath with_rsqrt = alu_only;
  with_rsqrt.rsqrt(4.0f);
  EXPECT_EQ(dynamic_instructions(to_counters(with_rsqrt)),
            dynamic_instructions(alu) + dynamic_instructions(call_profile(MathFunction::rsqrt, true)));
}

}  // namespace
}  // namespace tessera::eu
