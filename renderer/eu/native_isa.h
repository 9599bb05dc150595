// The execution unit's instructions evaluated natively: the same results as the bit-accurate
// model (fma_datapath.h), bit for bit, NaN payloads included, at host speed and without
// counting. fma/add/mul use the host FPU (x86-64-v3 FMA3, round to nearest even, no DAZ/FTZ;
// only the choice between several NaN operands is fixed up to the model's "first NaN in operand
// order"); getexp, getmant, scalef, getexpdiff and getmantdiv are bit manipulation plus one
// exactly rounded host multiplication for scalef.
//
// The math library's kernels are templated on the "ISA" they run on: EuCounters& selects the
// counted model (the eu::fma(..., EuCounters&) overloads), NativeIsa& these overloads. One
// algorithm source serves both (eu_math_impl.h); native_isa_test.cpp checks the opcodes and
// the functions bit for bit against the model.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "eu/float_format.h"

namespace tessera::eu {

// Tag types for the native instruction set: stateless, count nothing. NativeIsa is bit-identical
// to the model on every operand. FastNativeIsa skips the NaN fix-up of fma/add/mul: its results
// differ from the model's only in the payload of a NaN (where several NaN operands meet), never
// in NaN-ness or in any non-NaN value (no instruction's result depends on a NaN's payload,
// and the host only produces quiet NaNs), so a function evaluated on it is exact unless the
// result is NaN; eu_fast then re-evaluates on NativeIsa.
template <bool kExactNan>
struct NativeIsaT {};
using NativeIsa = NativeIsaT<true>;
using FastNativeIsa = NativeIsaT<false>;

namespace native_detail {

template <class T>
using Fm = Format<std::conditional_t<sizeof(T) == 4, Binary32, Binary64>>;
template <class T>
using BitsOf = typename Fm<T>::Bits;

template <class T>
inline BitsOf<T> bits(T x) {
  return std::bit_cast<BitsOf<T>>(x);
}
template <class T>
inline T value(BitsOf<T> b) {
  return std::bit_cast<T>(b);
}
template <class T>
inline bool is_nan_bits(BitsOf<T> b) {
  return (b & ~Fm<T>::kSign) > Fm<T>::kInf;
}

// Model rule for a NaN result: the first NaN operand in order, quieted; else (invalid
// operation) the default NaN. The host picks the same NaN unless several operands are NaN.
template <class T>
[[gnu::noinline, gnu::cold]] T nan_result(T a, T b, T c) {
  for (T v : {a, b, c})
    if (is_nan_bits<T>(bits(v))) return value<T>(bits(v) | Fm<T>::kQuiet);
  return value<T>(Fm<T>::kDefaultNan);
}

// Normalised view of a finite non-zero operand: unbiased exponent ue and the significand
// with its leading 1 at bit kFracBits.
template <class T>
struct Norm {
  int ue;
  BitsOf<T> sig;
};
template <class T>
inline Norm<T> normalise(BitsOf<T> b) {
  using F = Fm<T>;
  const BitsOf<T> mag = b & ~F::kSign;
  const int biased = int(mag >> F::kFracBits);
  if (biased != 0) [[likely]]
    return {biased - F::kBias, (mag & F::kFracMask) | F::kHidden};
  // Subnormal: value = frac * 2^(emin - fracbits); move the leading 1 up to the hidden bit.
  const int msb = int(sizeof(T) * 8) - 1 - std::countl_zero(mag);
  return {F::kEmin - F::kFracBits + msb, mag << (F::kFracBits - msb)};
}

template <class T>
inline bool finite_nonzero(BitsOf<T> b) {
  const BitsOf<T> mag = b & ~Fm<T>::kSign;
  return mag != 0 && mag < Fm<T>::kInf;
}

// floor(y) clamped to +-2^14, y finite (the model's float_to_int).
template <class T>
inline int floor_clamped(T y) {
  constexpr T kClamp = T(1 << 14);
  if (!(std::fabs(y) < kClamp)) return y < 0 ? -(1 << 14) : (1 << 14);
  return int(std::floor(y));
}

// 2^t as a normal number, t in [emin, emax].
template <class T>
inline T pow2(int t) {
  return value<T>(BitsOf<T>(t + Fm<T>::kBias) << Fm<T>::kFracBits);
}

}  // namespace native_detail

// fma, add, mul: the host's, with the NaN result fixed up to the model's choice when kExactNan.
template <bool kExactNan, class T>
inline T native_fma(T a, T b, T c) {
  const T r = std::fma(a, b, c);
  if (kExactNan && r != r) [[unlikely]]
    return native_detail::nan_result(a, b, c);
  return r;
}
template <bool kExactNan, class T>
inline T native_add(T a, T b) {
  const T r = a + b;
  if (kExactNan && r != r) [[unlikely]]
    return native_detail::nan_result(a, b, b);
  return r;
}
template <bool kExactNan, class T>
inline T native_mul(T a, T b) {
  const T r = a * b;
  if (kExactNan && r != r) [[unlikely]]
    return native_detail::nan_result(a, b, b);
  return r;
}
template <bool E>
inline float fma(float a, float b, float c, NativeIsaT<E>&) {
  return native_fma<E>(a, b, c);
}
template <bool E>
inline double fma(double a, double b, double c, NativeIsaT<E>&) {
  return native_fma<E>(a, b, c);
}
template <bool E>
inline float add(float a, float b, NativeIsaT<E>&) {
  return native_add<E>(a, b);
}
template <bool E>
inline double add(double a, double b, NativeIsaT<E>&) {
  return native_add<E>(a, b);
}
template <bool E>
inline float mul(float a, float b, NativeIsaT<E>&) {
  return native_mul<E>(a, b);
}
template <bool E>
inline double mul(double a, double b, NativeIsaT<E>&) {
  return native_mul<E>(a, b);
}

template <class T>
inline T native_getexp(T x, int imm) {
  using namespace native_detail;
  using F = Fm<T>;
  const BitsOf<T> b = bits(x);
  if (!finite_nonzero<T>(b)) [[unlikely]] {
    if (is_nan_bits<T>(b)) return value<T>(b | F::kQuiet);
    return value<T>((b & ~F::kSign) == F::kInf ? F::kInf : (F::kSign | F::kInf));
  }
  const Norm<T> n = normalise<T>(b);
  const int top = int((n.sig >> (F::kFracBits - 1)) & 1);
  int v = n.ue;
  switch (imm) {
    case 1: v = (n.ue + 1) >> 1; break;
    case 2: v = n.ue + 1; break;
    case 3: v = n.ue + top; break;
    default: break;
  }
  return T(v);
}
template <bool E>
inline float getexp(float x, int imm, NativeIsaT<E>&) {
  return native_getexp(x, imm);
}
template <bool E>
inline double getexp(double x, int imm, NativeIsaT<E>&) {
  return native_getexp(x, imm);
}

template <class T>
inline T native_getmant(T x, int interval, int signctrl) {
  using namespace native_detail;
  using F = Fm<T>;
  using B = BitsOf<T>;
  const B b = bits(x);
  const bool negative = (b & F::kSign) != 0;
  const B sign_bit = (signctrl & 1) ? B(0) : (b & F::kSign);
  if (!finite_nonzero<T>(b)) [[unlikely]] {
    if (is_nan_bits<T>(b)) return value<T>(b | F::kQuiet);
    if ((b & ~F::kSign) == F::kInf && negative && (signctrl & 2)) return value<T>(F::kDefaultNan);
    return value<T>(sign_bit | F::kOne);
  }
  if (negative && (signctrl & 2)) return value<T>(F::kDefaultNan);
  const Norm<T> n = normalise<T>(b);
  int biased = F::kBias;
  switch (interval) {
    case 1: biased = F::kBias - (n.ue & 1); break;
    case 2: biased = F::kBias - 1; break;
    case 3: biased = F::kBias - int((n.sig >> (F::kFracBits - 1)) & 1); break;
    default: break;
  }
  return value<T>(sign_bit | (B(biased) << F::kFracBits) | (n.sig & F::kFracMask));
}
template <bool E>
inline float getmant(float x, int interval, int signctrl, NativeIsaT<E>&) {
  return native_getmant(x, interval, signctrl);
}
template <bool E>
inline double getmant(double x, int interval, int signctrl, NativeIsaT<E>&) {
  return native_getmant(x, interval, signctrl);
}

// x * 2^floor(y) with one rounding: x's significand m in +-[1, 2) and t = ue(x) + floor(y);
// a normal result is m * 2^t (exact); below the normal range (m * 2^emin) * 2^(t - emin) has
// an exact first product and rounds once into the subnormals.
template <class T>
[[gnu::noinline]] T scalef_special(T x, T y) {
  using namespace native_detail;
  using F = Fm<T>;
  using B = BitsOf<T>;
  const B xb = bits(x), yb = bits(y);
  const bool y_inf = (yb & ~F::kSign) == F::kInf, y_neg = (yb & F::kSign) != 0;
  const bool x_qnan = is_nan_bits<T>(xb) && (xb & F::kQuiet) != 0;
  if (x_qnan && y_inf) return value<T>(y_neg ? B(0) : F::kInf);
  if (is_nan_bits<T>(xb)) return value<T>(xb | F::kQuiet);
  if (is_nan_bits<T>(yb)) return value<T>(yb | F::kQuiet);
  const B sign_bit = xb & F::kSign;
  if ((xb & ~F::kSign) == F::kInf) return (y_inf && y_neg) ? value<T>(F::kDefaultNan) : x;
  if ((xb & ~F::kSign) == 0) return (y_inf && !y_neg) ? value<T>(F::kDefaultNan) : x;
  return value<T>(y_neg ? sign_bit : (sign_bit | F::kInf));
}

template <class T>
inline T native_scalef(T x, T y) {
  using namespace native_detail;
  using F = Fm<T>;
  using B = BitsOf<T>;
  const B xb = bits(x);
  const B xmag = xb & ~F::kSign;
  // Fast path: x finite (zero included: it passes through) and y finite.
  if (xmag >= F::kInf || (bits(y) & ~F::kSign) >= F::kInf) [[unlikely]]
    return scalef_special(x, y);
  if (xmag == 0) return x;
  const Norm<T> n = normalise<T>(xb);
  const T m = value<T>((xb & F::kSign) | (B(F::kBias) << F::kFracBits) | (n.sig & F::kFracMask));
  int t = n.ue + floor_clamped(y);
  if (t >= F::kEmin) [[likely]] {
    if (t > F::kEmax) return value<T>((xb & F::kSign) | F::kInf);
    return m * pow2<T>(t);
  }
  // Below half the smallest subnormal (t < emin - p) everything rounds to a signed zero; return
  // it directly (a host underflow costs a microcode assist on many CPUs).
  if (t < F::kEmin - F::kPrecision) return value<T>(xb & F::kSign);
  return (m * pow2<T>(F::kEmin)) * pow2<T>(t - F::kEmin);
}
template <bool E>
inline float scalef(float x, float y, NativeIsaT<E>&) {
  return native_scalef(x, y);
}
template <bool E>
inline double scalef(double x, double y, NativeIsaT<E>&) {
  return native_scalef(x, y);
}

template <class T>
[[gnu::noinline]] T getexpdiff_special(T a, T b) {
  using namespace native_detail;
  using F = Fm<T>;
  const BitsOf<T> ab = bits(a), bb = bits(b);
  if (is_nan_bits<T>(ab)) return value<T>(ab | F::kQuiet);
  if (is_nan_bits<T>(bb)) return value<T>(bb | F::kQuiet);
  auto term = [](BitsOf<T> v) { return (v & ~F::kSign) == F::kInf ? 1 : ((v & ~F::kSign) == 0 ? -1 : 0); };
  const int ea = term(ab), eb = term(bb);
  if (ea != 0 && ea == eb) return value<T>(F::kDefaultNan);
  const int dir = ea != 0 ? ea : -eb;
  return value<T>((dir < 0 ? F::kSign : BitsOf<T>(0)) | F::kInf);
}

template <class T>
inline T native_getexpdiff(T a, T b) {
  using namespace native_detail;
  const BitsOf<T> ab = bits(a), bb = bits(b);
  if (!finite_nonzero<T>(ab) || !finite_nonzero<T>(bb)) [[unlikely]]
    return getexpdiff_special(a, b);
  const Norm<T> na = normalise<T>(ab), nb = normalise<T>(bb);
  return T(na.ue - nb.ue - (na.sig < nb.sig ? 1 : 0));
}
template <bool E>
inline float getexpdiff(float a, float b, NativeIsaT<E>&) {
  return native_getexpdiff(a, b);
}
template <bool E>
inline double getexpdiff(double a, double b, NativeIsaT<E>&) {
  return native_getexpdiff(a, b);
}

template <class T>
inline T native_getmantdiv(T a, T b) {
  using namespace native_detail;
  using F = Fm<T>;
  using B = BitsOf<T>;
  const B ab = bits(a), bb = bits(b);
  if (is_nan_bits<T>(ab) || is_nan_bits<T>(bb)) [[unlikely]]
    return value<T>((is_nan_bits<T>(ab) ? ab : bb) | F::kQuiet);
  const B ma = finite_nonzero<T>(ab) ? normalise<T>(ab).sig : F::kHidden;
  const B mb = finite_nonzero<T>(bb) ? normalise<T>(bb).sig : F::kHidden;
  const int biased = ma < mb ? F::kBias + 1 : F::kBias;
  return value<T>((ab & F::kSign) | (B(biased) << F::kFracBits) | (ma & F::kFracMask));
}
template <bool E>
inline float getmantdiv(float a, float b, NativeIsaT<E>&) {
  return native_getmantdiv(a, b);
}
template <bool E>
inline double getmantdiv(double a, double b, NativeIsaT<E>&) {
  return native_getmantdiv(a, b);
}

}  // namespace tessera::eu
