// Test-only: operand generators for the execution-unit tests. Special classes, and random bit
// patterns with subnormals, specials and operation-specific hard cases over-represented.
#pragma once

#include <cstdint>
#include <vector>

#include "eu/float_format.h"

namespace tessera::eu::testing {

// splitmix64: fast, seedable, identical on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int uniform(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }  // inclusive

 private:
  uint64_t state_;
};

// Every special class the pre-processing stage distinguishes, both signs, plus a few ordinary
// values whose fraction's top bit and exponent parity differ (getmant intervals 1 and 3).
template <class F>
std::vector<typename F::Bits> special_operands() {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  const Bits one_half = Bits(F::kBias - 1) << F::kFracBits;
  const Bits three_halves = Fm::kOne | Fm::kQuiet;
  const Bits three = (Bits(F::kBias + 1) << F::kFracBits) | Fm::kQuiet;
  const std::vector<Bits> magnitudes = {
      0,                 // zero
      1,                 // smallest subnormal
      Fm::kFracMask,     // largest subnormal
      Fm::kHidden,       // smallest normal
      Fm::kExpMask - 1,  // largest normal
      Fm::kOne,          // 1
      one_half,
      three_halves,
      three,
      Fm::kInf,
      Fm::kExpMask | Fm::kQuiet,         // quiet NaN
      Fm::kExpMask | Fm::kQuiet | 5,     // quiet NaN with payload
      Fm::kExpMask | 1,                  // signalling NaN
      Fm::kExpMask | (Fm::kQuiet >> 1),  // signalling NaN, other payload
  };
  std::vector<Bits> out;
  for (Bits m : magnitudes) {
    out.push_back(m);
    out.push_back(m | Fm::kSign);
  }
  return out;
}

template <class F>
typename F::Bits random_bits(Rng& rng) {
  return typename F::Bits(rng.next());
}

// A finite value with the given unbiased exponent (clamped to the normal range) and random
// fraction and sign.
template <class F>
typename F::Bits with_exponent(Rng& rng, int exp) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  if (exp < Fm::kEmin) exp = Fm::kEmin;
  if (exp > Fm::kEmax) exp = Fm::kEmax;
  return (Bits(rng.next()) & (Fm::kSign | Fm::kFracMask)) | (Bits(exp + F::kBias) << F::kFracBits);
}

// A subnormal with a random number of leading zeros in its fraction (so every normalisation
// shift occurs), random sign.
template <class F>
typename F::Bits random_subnormal(Rng& rng) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  const int zeros = rng.uniform(0, F::kFracBits - 1);
  Bits frac = (Bits(rng.next()) & Fm::kFracMask) >> zeros;
  if (frac == 0) frac = 1;
  return frac | (Bits(rng.next()) & Fm::kSign);
}

// General operand mix: 30% any bit pattern (NaNs and infinities included), 30% subnormal,
// 5% special class, 35% normal with an exponent near 0.
template <class F>
typename F::Bits random_operand(Rng& rng) {
  const int pick = rng.uniform(0, 19);
  if (pick < 6) return random_bits<F>(rng);
  if (pick < 12) return random_subnormal<F>(rng);
  if (pick < 13) {
    static const std::vector<typename F::Bits> specials = special_operands<F>();
    return specials[size_t(rng.uniform(0, int(specials.size()) - 1))];
  }
  return with_exponent<F>(rng, rng.uniform(-60, 60));
}

}  // namespace tessera::eu::testing
