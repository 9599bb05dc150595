// Test-only: operand generators per opcode, one lane at a time, for the live AVX-512 oracle
// test and the golden vectors (eu_golden_vectors.h). The golden file's random streams are these
// generators' output from fixed seeds: changing a generator means recording the file again.
#pragma once

#include <algorithm>
#include <cstdint>

#include "eu/eu_test_operands.h"
#include "eu/float_format.h"

namespace tessera::eu::testing {

template <class F>
void gen_unary(Rng& rng, typename F::Bits& a, typename F::Bits& b, typename F::Bits& c) {
  a = testing::random_operand<F>(rng);
  b = c = 0;
}

// scalef: src1 mostly a moderately sized real (fraction included) spanning the whole exponent
// range and beyond, so results overflow, underflow into subnormals and round there.
template <class F>
void gen_scalef(Rng& rng, typename F::Bits& a, typename F::Bits& b, typename F::Bits& c) {
  using Native = typename F::Native;
  a = testing::random_operand<F>(rng);
  const int span = 2 * F::kBias + F::kFracBits + 8;
  switch (rng.uniform(0, 3)) {
    case 0: b = testing::random_operand<F>(rng); break;
    case 1: b = to_bits<F>(Native(rng.uniform(-span, span))); break;  // integral
    default: {
      const Native frac = Native(rng.next() >> 40) / Native(1 << 24);  // [0, 1)
      b = to_bits<F>(Native(rng.uniform(-span, span)) + frac);
    }
  }
  c = 0;
}

// fma: random operands, products near the subnormal and overflow boundaries, addends close to
// the product's exponent, and addends that nearly cancel the product.
template <class F>
void gen_fma(Rng& rng, typename F::Bits& a, typename F::Bits& b, typename F::Bits& c) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  constexpr int kP = Fm::kPrecision;
  const int mode = rng.uniform(0, 9);
  if (mode <= 1) {
    a = testing::random_operand<F>(rng);
    b = testing::random_operand<F>(rng);
    c = testing::random_operand<F>(rng);
    return;
  }
  int ea, eb;
  if (mode == 2) {  // product around the subnormal range
    const int target = rng.uniform(Fm::kEmin - kP - 3, Fm::kEmin + 2);
    ea = rng.uniform(target - Fm::kEmin, Fm::kEmax);
    ea = std::min(ea, Fm::kEmax);
    eb = target - ea;
  } else if (mode == 3) {  // product around overflow
    const int target = rng.uniform(Fm::kEmax - 2, Fm::kEmax + 1);
    ea = rng.uniform(target - Fm::kEmax, Fm::kEmax);
    eb = target - ea;
  } else {
    ea = rng.uniform(-40, 40);
    eb = rng.uniform(-40, 40);
  }
  a = testing::with_exponent<F>(rng, ea);
  b = testing::with_exponent<F>(rng, eb);
  if (mode == 2 && rng.uniform(0, 1) == 0) a = testing::random_subnormal<F>(rng);
  const int ep = ea + eb;
  if (mode >= 7) {
    // Near-cancelling addend: -(a*b) rounded, nudged by a few ulps.
    const Bits neg = to_bits<F>(-(from_bits<F>(a) * from_bits<F>(b)));
    const int nudge = rng.uniform(-3, 3);
    c = Bits(neg + Bits(int64_t(nudge)));
    if ((c & Fm::kExpMask) == Fm::kExpMask) c = neg;
  } else if (mode == 2) {
    c = rng.uniform(0, 2) == 0 ? Bits(0) : testing::random_subnormal<F>(rng);
  } else {
    c = testing::with_exponent<F>(rng, ep + rng.uniform(-2 * kP - 6, 2 * kP + 6));
  }
}

template <class F>
void gen_binary(Rng& rng, typename F::Bits& a, typename F::Bits& b, typename F::Bits& c) {
  if (rng.uniform(0, 1) == 0) {
    gen_fma<F>(rng, a, b, c);  // reuse the fma mixes: a, b from there
    if (rng.uniform(0, 1) == 0) b = c;
  } else {
    a = testing::random_operand<F>(rng);
    b = testing::random_operand<F>(rng);
  }
  c = 0;
}

}  // namespace tessera::eu::testing
