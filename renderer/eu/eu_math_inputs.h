// Deterministic operands for the math library's accuracy tests and `tessera bench eu`: per
// function, values spread over its interesting domain (every binade for log/sqrt/cbrt/div,
// the whole finite range of exp/exp2, bounded |y*log2 x| for pow), and optionally a share of
// special values (+-0, +-inf, NaN, negatives, subnormals); and the accuracy sweep's hard cases.
// Private to renderer/eu.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
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
  const T table[] = {
      T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), -L::denorm_min(), L::min() / 3,
      T(1), T(-1), T(-2.5),       L::max(),       T(2),           T(0.5)};
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
  if (special_percent > 0 && int(next_random(state) % 100) < special_percent) return special_operand<T>(state);
  const double u = unit_random(state);
  const bool negative = (next_random(state) & 1) != 0;
  switch (f) {
    case MathFunction::exp2: return kSingle ? T(-151.0 + u * 280.0) : T(-1076.0 + u * 2101.0);
    case MathFunction::exp: return kSingle ? T(-104.0 + u * 193.0) : T(-746.0 + u * 1456.0);
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
      if (next_random(state) % 4 == 0) return T(1.0 + (u - 0.5) * 2.0 / double(1ull << (1 + next_random(state) % 40)));
      return any_positive_finite<T>(state);
    default: return any_positive_finite<T>(state);
  }
}

template <class T>
T from_raw(uint64_t bits) {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<float>(uint32_t(bits));
  else
    return std::bit_cast<double>(bits);
}
template <class T>
uint64_t to_raw(T x) {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<uint32_t>(x);
  else
    return std::bit_cast<uint64_t>(x);
}
// x moved by k units in the last place away from zero (towards zero for k < 0, through zero
// into the other sign's subnormals); x finite and far enough from the overflow threshold.
template <class T>
T ulps_away(T x, int64_t k) {
  if (std::signbit(x)) return -ulps_away(-x, k);
  const int64_t raw = int64_t(to_raw(x)) + k;
  return raw >= 0 ? from_raw<T>(uint64_t(raw)) : -from_raw<T>(uint64_t(-raw));
}

// Hard cases: near 1 (log, pow), near the overflow and underflow thresholds and across the
// subnormal results (exp, exp2, pow), subnormal operands (log, sqrt, rsqrt, cbrt, div), exact
// squares and cubes and their neighbours, reciprocal squares and powers of two (rsqrt),
// quotients near the range limits and mantissas near each other.
template <class T>
void hard_operands(MathFunction f, uint64_t& state, T& x, T& y) {
  using Lim = std::numeric_limits<T>;
  const double u = unit_random(state);
  const int64_t k = int64_t(next_random(state) % 2001) - 1000;  // +-1000 ulps
  const int pick = int(next_random(state) % 4);
  const int emax = Lim::max_exponent, emin_sub = Lim::min_exponent - Lim::digits;  // 128 / -149
  y = T(0);
  switch (f) {
    case MathFunction::log2:
    case MathFunction::log:
      if (pick == 0)
        x = ulps_away(T(1), k);  // 1 +- k ulps
      else if (pick == 1)
        x = T(1) + T((u - 0.5) * std::ldexp(1.0, -int(next_random(state) % 60)));
      else if (pick == 2)
        x = from_raw<T>(next_random(state) % to_raw(Lim::min()));  // subnormal
      else
        x = ulps_away(std::ldexp(T(1), int(next_random(state) % uint64_t(emax - emin_sub)) + emin_sub), k % 4);
      if (!(x > 0)) x = Lim::denorm_min();
      return;
    case MathFunction::exp2:
    case MathFunction::exp: {
      const double scale = f == MathFunction::exp ? 0.6931471805599453 : 1.0;
      if (pick == 0)
        x = T(double(emax) * scale) * T(1 - (u - 0.5) * 0.01);  // overflow
      else if (pick == 1)
        x = T(double(emin_sub - 1) * scale + u * double(Lim::digits + 2) * scale);  // subnormal results
      else if (pick == 2)
        x = T((u - 0.5) * std::ldexp(1.0, -int(next_random(state) % 60)));  // near 0
      else
        x = ulps_away(T(double(int64_t(next_random(state) % uint64_t(emax - emin_sub)) + emin_sub) * scale), k);
      return;
    }
    case MathFunction::pow: {
      // z = y * log2(x) spread over the whole result range, with x near 1 (large |y|) or not.
      const double z = double(emin_sub - 1) + u * double(emax - emin_sub + 1);
      double lx;
      if (pick == 0) {
        x = ulps_away(T(1), k == 0 ? 1 : k);
      } else if (pick == 1) {
        x = T(1) + T((unit_random(state) - 0.5) * std::ldexp(1.0, -int(next_random(state) % 20)));
      } else if (pick == 2) {
        x = T(std::ldexp(1.0 + unit_random(state), int(next_random(state) % 64) - 32));
      } else {  // exact powers of two with integral and half-integral y
        x = std::ldexp(T(1), int(next_random(state) % 16) - 8);
        y = T(double(int64_t(next_random(state) % 64) - 32) * 0.5);
        if (x == T(1)) x = T(2);
        return;
      }
      lx = std::log2(double(x));
      if (lx == 0) lx = 1e-30;
      y = T(z / lx);
      return;
    }
    case MathFunction::sqrt:
    case MathFunction::cbrt: {
      if (pick == 0)
        x = from_raw<T>(next_random(state) % to_raw(Lim::min()));  // subnormal
      else if (pick == 1) {
        // exact squares / cubes of short significands and their neighbours
        const double r = std::ldexp(1.0 + std::floor(u * 4096) / 4096, int(next_random(state) % 40) - 20);
        x = ulps_away(T(f == MathFunction::sqrt ? r * r : r * r * r), k % 3);
      } else {
        x = from_raw<T>(next_random(state) % to_raw(Lim::infinity()));
      }
      if (f == MathFunction::cbrt && (next_random(state) & 1)) x = -x;
      return;
    }
    case MathFunction::rsqrt: {
      if (pick == 0) {
        x = from_raw<T>(next_random(state) % to_raw(Lim::min()));  // subnormal: the largest results
      } else if (pick == 1) {
        // 1/r^2 for short significands r: results at and next to representable values
        const double r = std::ldexp(1.0 + std::floor(u * 4096) / 4096, int(next_random(state) % 40) - 20);
        x = ulps_away(T(1.0 / (r * r)), k % 3);
      } else if (pick == 2) {
        // powers of two and their neighbours (m at the ends of [1/2, 2)), every binade
        x = ulps_away(std::ldexp(T(1), int(next_random(state) % uint64_t(emax - emin_sub)) + emin_sub), k % 4);
      } else {
        x = from_raw<T>(next_random(state) % to_raw(Lim::infinity()));
      }
      if (!(x > 0)) x = Lim::denorm_min();
      return;
    }
    case MathFunction::div: {
      const T a = from_raw<T>(next_random(state) % to_raw(Lim::infinity()));
      if (pick == 0) {  // mantissas near each other
        x = a;
        y = ulps_away(a, k % 8) * std::ldexp(T(1), int(next_random(state) % 40) - 20);
      } else if (pick == 1) {  // quotients near overflow and in the subnormal range
        x = a;
        const int target =
            (next_random(state) & 1) ? emax - 1 : emin_sub + int(next_random(state) % uint64_t(Lim::digits));
        int ea = 0;
        std::frexp(a, &ea);
        y = T(std::ldexp(1.0 + unit_random(state), std::clamp(ea - target, emin_sub + 1, emax - 2)));
      } else {
        x = a;
        y = from_raw<T>(next_random(state) % to_raw(Lim::infinity()));
      }
      if (next_random(state) & 1) x = -x;
      if (next_random(state) & 1) y = -y;
      return;
    }
  }
}

// The accuracy sweep's mix (unit test and `tessera bench eu`): every third input from the
// domain mix without specials (math_operand), the rest hard cases.
template <class T>
void sweep_operands(MathFunction f, int index, uint64_t& state, T& x, T& y) {
  if (index % 3 == 0) {
    x = math_operand<T>(f, 0, state, 0);
    y = math_operand<T>(f, 1, state, 0);
  } else {
    hard_operands<T>(f, state, x, y);
  }
}

}  // namespace tessera::eu
