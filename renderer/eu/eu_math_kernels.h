// Polynomial and Newton cores shared by the branch-free math library (eu_math.cpp) and the
// branchy baseline (eu_math_baseline.cpp): both reduce the argument differently and then run
// the same counted instructions on the reduced value. Private to renderer/eu.
#pragma once

#include <cstddef>

#include "eu/eu_math_coefficients.h"
#include "eu/fma_datapath.h"

namespace tessera::eu::kernels {

template <class T>
struct Consts;

template <>
struct Consts<float> {
  static constexpr const auto& kLog2 = coeffs::kLog2F;
  static constexpr const auto& kExp2 = coeffs::kExp2F;
  static constexpr const auto& kExp = coeffs::kExpF;
  static constexpr float kLn2Hi = coeffs::kLn2HiF, kLn2Lo = coeffs::kLn2LoF;
  static constexpr float kLog2e = coeffs::kLog2eF;
  static constexpr float kInvLn2Lo = coeffs::kInvLn2LoF;
  // x + 1.5*2^23 - 1.5*2^23 rounds |x| < 2^22 to the nearest integer (ties to even).
  static constexpr float kRoundMagic = 0x1.8p23f;
  // Saturation: x * 2^120 overflows exactly when |x| >= 2^8, beyond every finite exp/exp2
  // argument that does not overflow or underflow (|x| < 151); * 2^-120 undoes it exactly.
  static constexpr float kSatUp = 0x1p120f, kSatDown = 0x1p-120f;
  static constexpr float kThird = 0x1.555556p-2f;
  static constexpr int kSqrtSteps = 2, kRecipSteps = 2, kCbrtSteps = 2;
};

template <>
struct Consts<double> {
  static constexpr const auto& kLog2 = coeffs::kLog2D;
  static constexpr const auto& kExp2 = coeffs::kExp2D;
  static constexpr const auto& kExp = coeffs::kExpD;
  static constexpr double kLn2Hi = coeffs::kLn2HiD, kLn2Lo = coeffs::kLn2LoD;
  static constexpr double kLog2e = coeffs::kLog2eD;
  static constexpr double kInvLn2Lo = coeffs::kInvLn2LoD;
  static constexpr double kRoundMagic = 0x1.8p52;
  // x * 2^1013 overflows exactly when |x| >= 2^11 (finite exp/exp2 arguments: |x| < 1076).
  static constexpr double kSatUp = 0x1p1013, kSatDown = 0x1p-1013;
  static constexpr double kThird = 0x1.5555555555555p-2;
  static constexpr int kSqrtSteps = 3, kRecipSteps = 3, kCbrtSteps = 3;
};

// c[first] + t*(c[first+1] + t*(...)): one fma per coefficient after the first.
template <class T, class C, size_t N>
T horner(const C (&c)[N], T t, EuCounters& k, size_t first = 0) {
  T acc = T(c[N - 1]);
  for (size_t i = N - 1; i-- > first;) acc = eu::fma(acc, t, T(c[i]), k);
  return acc;
}

// e + log2(m) as an unevaluated sum hi + lo with about 2p bits, for pow, where y*log2(x) must
// be accurate to far below one ulp of log2(x). log2(1+u) = u*c0 + u*(c0_lo + u*q1(u)): u*c0 is
// split exactly into ph + pl with the fma, the fraction f = ph + (pl + s) is renormalised by
// Fast2Sum (|ph| > |pl + s|), then e is added by a second Fast2Sum (exact: e = 0 or |e| >= 1 >
// |f|). hi is log2(x) rounded, |lo| <= ulp(hi)/2 + ulp(f)/2, so pow's n = round(y*hi) leaves
// |y*hi - n + y*lo| within the exp2 polynomial's range. The remaining error is q1's, relative
// to a term of size u^2/(2 ln2). For x = 0 or inf, u = 0 and hi = e = -+inf (lo is NaN: pow's
// reduced argument is NaN there anyway).
template <class T>
struct DoubleWord {
  T hi, lo;
};
template <class T>
DoubleWord<T> log2_double_word(T m, T e, EuCounters& k) {
  const T c0 = T(Consts<T>::kLog2[0]);
  const T u = eu::add(m, T(-1), k);
  const T s = eu::mul(u, eu::fma(u, horner(Consts<T>::kLog2, u, k, 1), Consts<T>::kInvLn2Lo, k), k);
  const T ph = eu::mul(u, c0, k);
  const T t = eu::add(eu::fma(u, c0, eu::mul(u, -c0, k), k), s, k);  // (u*c0 - ph, exact) + s
  const T fh = eu::add(ph, t, k);
  const T fl = eu::add(t, eu::fma(fh, T(-1), ph, k), k);  // (ph + t) - fh
  const T hi = eu::add(e, fh, k);
  return {hi, eu::add(fl, eu::add(fh, eu::fma(hi, T(-1), e, k), k), k)};  // fl + ((e + fh) - hi)
}

// log2(x) and ln(x) from the double word, each with one final rounding: hi + lo, and
// hi*ln2_hi (exact inside the fma) + (hi*ln2_lo + lo*ln2_hi).
template <class T>
T log2_from(DoubleWord<T> l, EuCounters& k) {
  return eu::add(l.hi, l.lo, k);
}
template <class T>
T log_from(DoubleWord<T> l, EuCounters& k) {
  const T small = eu::fma(l.hi, Consts<T>::kLn2Lo, eu::mul(l.lo, Consts<T>::kLn2Hi, k), k);
  return eu::fma(l.hi, Consts<T>::kLn2Hi, small, k);
}

// 2^r for |r| <= 1/2 and e^r for |r| <= 0.35 as 1 + r*q(r) (exactly 1 at r = 0).
template <class T>
T exp2_poly(T r, EuCounters& k) {
  return eu::fma(r, horner(Consts<T>::kExp2, r, k), T(1), k);
}
template <class T>
T exp_poly(T r, EuCounters& k) {
  return eu::fma(r, horner(Consts<T>::kExp, r, k), T(1), k);
}

// sqrt(m) for m in [1/2, 2): coupled Newton (Goldschmidt) iteration g -> sqrt(m), h -> -1/(2
// sqrt(m)) from a 4-term seed for 1/sqrt(m), then one Markstein correction g + h'*(m - g^2)
// using the fma's exact g*g. -m is passed in so the correction needs no negation.
template <class T>
T sqrt_core(T m, T neg_m, EuCounters& k) {
  const T y = horner(coeffs::kRsqrtSeed, m, k);
  T g = eu::mul(m, y, k);
  T hn = eu::mul(y, T(-0.5), k);
  for (int i = 0; i < Consts<T>::kSqrtSteps; ++i) {
    const T r = eu::fma(g, hn, T(0.5), k);  // 0.5 - g*h
    g = eu::fma(g, r, g, k);
    hn = eu::fma(hn, r, hn, k);
  }
  const T d = eu::fma(g, g, neg_m, k);  // g^2 - m, exact product
  return eu::fma(hn, d, g, k);          // g - h*(g^2 - m)
}

// a / b for a in +-[1, 4), b in +-[1, 2) with a/b in [1, 2): reciprocal seed y0 = b*s(b^2)
// (odd in b, so negative b needs no sign handling), Newton steps y += y*(1 - b*y), then one
// remainder correction q += y*(a - q*b) (exact remainder through the fma).
template <class T>
T div_core(T a, T b, EuCounters& k) {
  const T neg_b = eu::mul(b, T(-1), k);
  T y = eu::mul(b, horner(coeffs::kRecipSeed, eu::mul(b, b, k), k), k);
  for (int i = 0; i < Consts<T>::kRecipSteps; ++i) y = eu::fma(y, eu::fma(neg_b, y, T(1), k), y, k);
  const T q = eu::mul(a, y, k);
  return eu::fma(eu::fma(neg_b, q, a, k), y, q, k);
}

// w^(1/3) for w in [1, 8): Newton for y = w^(-1/3) (y -= y/3 * (w*y^3 - 1)), then g = w*y^2
// and one correction g -= (g^3 - w) * y^2/3.
template <class T>
T cbrt_core(T w, EuCounters& k) {
  T y = horner(coeffs::kRcbrtSeed, w, k);
  for (int i = 0; i < Consts<T>::kCbrtSteps; ++i) {
    const T y3 = eu::mul(eu::mul(y, y, k), y, k);
    const T d = eu::fma(y3, w, T(-1), k);
    y = eu::fma(eu::mul(y, -Consts<T>::kThird, k), d, y, k);
  }
  const T y2 = eu::mul(y, y, k);
  const T g = eu::mul(w, y2, k);
  const T d = eu::fma(eu::mul(g, g, k), g, eu::mul(w, T(-1), k), k);  // g^3 - w
  return eu::fma(eu::mul(y2, -Consts<T>::kThird, k), d, g, k);
}

}  // namespace tessera::eu::kernels
