// Deterministic operands for the math library's accuracy tests and `tessera bench eu`: per
// function, values spread over its interesting domain (every binade for log/sqrt/cbrt/div,
// the whole finite range of exp/exp2, bounded |y*log2 x| for pow), and optionally a share of
// special values (+-0, +-inf, NaN, negatives, subnormals). Private to renderer/eu.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "eu/eu_math.h"

namespace tessera::eu {

// splitmix64: a small, portable, deterministic generator.
inline uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits (exact in double, rounded for float by the caller).
inline double unit_random(uint64_t& state) { return double(next_random(state) >> 11) * 0x1p-53; }

template <class T>
T special_operand(uint64_t& state) {
  using L = std::numeric_limits<T>;
  const T table[] = {T(0),         -T(0),         L::infinity(), -L::infinity(), L::quiet_NaN(),
                     L::denorm_min(), -L::denorm_min(), L::min() / 3, T(1),    T(-1),
                     T(-2.5),      L::max(),      T(2),          T(0.5)};
  return table[next_random(state) % (sizeof(table) / sizeof(table[0]))];
}

// A finite, positive value with a uniformly random bit pattern (every binade, subnormals
// included, equally likely per bit pattern).
template <class T>
T any_positive_finite(uint64_t& state) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr Bits kInf = std::bit_cast<Bits>(std::numeric_limits<T>::infinity());
  return std::bit_cast<T>(Bits(next_random(state) % uint64_t(kInf)));
}

// Operand `index` (0 = x, 1 = y) of function f; special_percent of the draws are specials.
template <class T>
T math_operand(MathFunction f, int index, uint64_t& state, int special_percent) {
  constexpr bool kSingle = sizeof(T) == 4;
  if (special_percent > 0 && int(next_random(state) % 100) < special_percent)
    return special_operand<T>(state);
  const double u = unit_random(state);
  const bool negative = (next_random(state) & 1) != 0;
  switch (f) {
    case MathFunction::exp2:
      return kSingle ? T(-151.0 + u * 280.0) : T(-1076.0 + u * 2101.0);
    case MathFunction::exp:
      return kSingle ? T(-104.0 + u * 193.0) : T(-746.0 + u * 1456.0);
    case MathFunction::pow:
      if (index == 1) return T(-8.0 + 16.0 * u);
      // x = m * 2^j, j in [-8, 8]: |y * log2 x| <= 72.
      return T((1.0 + u) * double(1ull << (next_random(state) % 17)) / 256.0);
    case MathFunction::cbrt:
    case MathFunction::div: {
      const T v = any_positive_finite<T>(state);
      return negative ? -v : v;
    }
    case MathFunction::log2:
    case MathFunction::log:
      // A quarter of the draws lie near 1, where the result is small and relative accuracy is
      // hardest: 1 + d with |d| < 2^-j, j in [1, 40].
      if (next_random(state) % 4 == 0)
        return T(1.0 + (u - 0.5) * 2.0 / double(1ull << (1 + next_random(state) % 40)));
      return any_positive_finite<T>(state);
    default:
      return any_positive_finite<T>(state);
  }
}

}  // namespace tessera::eu
