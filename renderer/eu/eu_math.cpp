// Branch-free math on the modelled datapath. No code here looks at a value: every special input
// (NaN, +-inf, +-0, subnormal, negative) flows through the same instructions, and the
// instructions' own special-case rules (docs/eu.md, opcode table) produce the IEEE results.
// The comment above each function says which rule handles which special.
#include "eu/eu_math.h"

#include "eu/eu_math_kernels.h"

namespace tessera::eu {

namespace {

using kernels::Consts;

// Interval 3 is [3/4, 3/2); sign control 3 gives NaN for x < 0 (incl. -inf) and +1.0 for +-0
// and +inf. getexp imm 3 is the matching exponent (x = m * 2^e), -inf for +-0, +inf for +-inf.
constexpr int kCentred = 3;
constexpr int kNanIfNegative = 3;

// log2(x) = e + log2(m) as a double word (kernels::log2_double_word) rounded once. For +-0 and
// +inf, u = 0 and hi = e = -inf / +inf, but the Fast2Sum's e - hi makes lo NaN; scalef erases
// it: z = scalef(e, -2^11) is +-0 for every finite e and +-inf for infinite e, and
// scalef(lo, z) is lo for finite x, scalef(QNaN, -inf) = +0 for zeros and scalef(QNaN, +inf) =
// +inf for +inf, so hi + that is -inf / +inf. Negative x and -inf: m is NaN, so hi is NaN.
template <class T>
kernels::DoubleWord<T> log2_parts(T x, EuCounters& k) {
  const T e = getexp(x, kCentred, k);
  auto l = kernels::log2_double_word(getmant(x, kCentred, kNanIfNegative, k), e, k);
  l.lo = scalef(l.lo, scalef(e, T(-2048), k), k);
  return l;
}

template <class T>
T log2_bf(T x, EuCounters& k) {
  return kernels::log2_from(log2_parts(x, k), k);
}

// ln(x) = log2(x) * ln2 with the double word and the split ln2 (kernels::log_from); the
// erased lo is +0 / +inf for zeros / +inf, so the sums stay -inf / +inf (ln2_lo > 0).
template <class T>
T log_bf(T x, EuCounters& k) {
  return kernels::log_from(log2_parts(x, k), k);
}

// |x| >= 2^8 (binary32) / 2^11 (binary64) becomes +-inf through the multiplier's overflow; every
// other value comes back exactly. Keeps the reduced argument of exp/exp2/pow bounded without a
// compare.
template <class T>
T saturate(T x, EuCounters& k) {
  return mul(mul(x, Consts<T>::kSatUp, k), Consts<T>::kSatDown, k);
}

// exp2(x) = scalef(2^r, n) with n = round(x), r = x - n in [-1/2, 1/2]. For x = +-inf,
// r = inf - inf is NaN and scalef(QNaN, +inf) = +inf, scalef(QNaN, -inf) = +0 (the VSCALEF rule
// made for exactly this); a NaN x stays NaN; overflow and gradual underflow are scalef's.
template <class T>
T exp2_bf(T x, EuCounters& k) {
  const T xs = saturate(x, k);
  const T n = add(add(xs, Consts<T>::kRoundMagic, k), -Consts<T>::kRoundMagic, k);
  const T r = fma(n, T(-1), xs, k);  // exact
  return scalef(kernels::exp2_poly(r, k), n, k);
}

// exp(x) = scalef(e^r, n), n = round(x/ln2), r = x - n*ln2 (two fmas with the split ln2).
template <class T>
T exp_bf(T x, EuCounters& k) {
  const T xs = saturate(x, k);
  const T n = add(fma(xs, Consts<T>::kLog2e, Consts<T>::kRoundMagic, k), -Consts<T>::kRoundMagic, k);
  T r = fma(n, -Consts<T>::kLn2Hi, xs, k);  // inf - inf = NaN for x = +-inf, as in exp2
  r = fma(n, -Consts<T>::kLn2Lo, r, k);
  return scalef(kernels::exp_poly(r, k), n, k);
}

// powr(x, y) = exp2(y * log2(x)). z = y*log2(x) carries the specials (0*inf -> NaN, -inf*y, ...);
// log2(x) is a double word hi + lo so that r = y*hi - n + y*lo (two fmas, exact product) keeps
// the bits a |y*log2 x| up to 2^8 / 2^11 would otherwise amplify. n = round(y*hi) and -n come
// from one magic-number sum. A saturated y*hi (|.| >= 2^8 / 2^11) makes r NaN via zs*0, so
// scalef(QNaN, +-inf) gives +inf / +0.
template <class T>
T pow_bf(T x, T y, EuCounters& k) {
  const T m = getmant(x, kCentred, kNanIfNegative, k);
  const auto l = kernels::log2_double_word(m, getexp(x, kCentred, k), k);
  const T zs = saturate(mul(y, l.hi, k), k);
  const T t = add(zs, Consts<T>::kRoundMagic, k);
  const T n = add(t, -Consts<T>::kRoundMagic, k);
  const T neg_n = fma(t, T(-1), Consts<T>::kRoundMagic, k);  // exact (Sterbenz)
  const T r = fma(y, l.lo, fma(y, l.hi, fma(zs, T(0), neg_n, k), k), k);
  return scalef(kernels::exp2_poly(r, k), n, k);
}

// sqrt(x) = scalef(sqrt(m), getexp(x, 1)) with m = getmant(x, [1/2, 2), NaN if negative): the
// interval keeps the exponent even. +0 / +inf: m = 1, scale -inf / +inf. -0: sign control 2
// gives m = -1; the iteration on -1 stays negative and finite, and scalef(negative, -inf) = -0.
// Negative x: m is NaN.
template <class T>
T sqrt_bf(T x, EuCounters& k) {
  const T m = getmant(x, 1, 2, k);
  const T neg_m = mul(m, T(-1), k);
  // e + 0*m: makes the scale NaN for x = -inf (m NaN, e +inf), where scalef(QNaN, +inf) would
  // give +inf; for every other x it is e unchanged.
  const T e = fma(m, T(0), getexp(x, 1, k), k);
  return scalef(kernels::sqrt_core(m, neg_m, k), e, k);
}

// x / y = scalef(getmantdiv(x, y) / getmant(y), getexpdiff(x, y)): the mantissa quotient lies in
// [1, 2), so it never over- or underflows; only the final scalef rounds into range. 0/0,
// inf/inf (NaN), x/0 (inf) and 0/x (0) come from getexpdiff's IEEE exponent arithmetic.
template <class T>
T div_bf(T x, T y, EuCounters& k) {
  const T q = kernels::div_core(getmantdiv(x, y, k), getmant(y, 0, 0, k), k);
  return scalef(q, getexpdiff(x, y, k), k);
}

// cbrt(x) = sign * scalef(cbrt(|m| * 2^rem), n) with e = getexp(x) = 3n + rem, rem in {0,1,2}:
// n = round((e - 1)/3) (the quotient is n or n +- 1/3), rem = e - 3n exactly. For +-0 / +-inf,
// e is -inf / +inf, rem is NaN, and scalef(QNaN, -+inf) gives +0 / +inf; the sign comes last
// from round(0.75 * getmant(x)) = +-1 (mantissa keeps the sign, 1.0 for zeros and infinities).
template <class T>
T cbrt_bf(T x, EuCounters& k) {
  const T e = getexp(x, 0, k);
  const T n = add(add(fma(e, Consts<T>::kThird, -Consts<T>::kThird, k), Consts<T>::kRoundMagic, k),
                  -Consts<T>::kRoundMagic, k);
  const T rem = fma(n, T(-3), e, k);
  const T w = scalef(getmant(x, 0, 1, k), rem, k);
  const T magnitude = scalef(kernels::cbrt_core(w, k), n, k);
  const T sign =
      add(fma(getmant(x, 0, 0, k), T(0.75), Consts<T>::kRoundMagic, k), -Consts<T>::kRoundMagic, k);
  return mul(magnitude, sign, k);
}

}  // namespace

namespace math {
float log2(float x, EuCounters& k) { return log2_bf(x, k); }
double log2(double x, EuCounters& k) { return log2_bf(x, k); }
float log(float x, EuCounters& k) { return log_bf(x, k); }
double log(double x, EuCounters& k) { return log_bf(x, k); }
float exp2(float x, EuCounters& k) { return exp2_bf(x, k); }
double exp2(double x, EuCounters& k) { return exp2_bf(x, k); }
float exp(float x, EuCounters& k) { return exp_bf(x, k); }
double exp(double x, EuCounters& k) { return exp_bf(x, k); }
float pow(float x, float y, EuCounters& k) { return pow_bf(x, y, k); }
double pow(double x, double y, EuCounters& k) { return pow_bf(x, y, k); }
float cbrt(float x, EuCounters& k) { return cbrt_bf(x, k); }
double cbrt(double x, EuCounters& k) { return cbrt_bf(x, k); }
float sqrt(float x, EuCounters& k) { return sqrt_bf(x, k); }
double sqrt(double x, EuCounters& k) { return sqrt_bf(x, k); }
float div(float x, float y, EuCounters& k) { return div_bf(x, y, k); }
double div(double x, double y, EuCounters& k) { return div_bf(x, y, k); }
}  // namespace math

namespace {
constexpr const char* kNames[] = {
#define TESSERA_X(name, arity, desc) #name,
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
};
constexpr int kArity[] = {
#define TESSERA_X(name, arity, desc) arity,
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
};

template <class T>
T evaluate_t(MathFunction f, bool branchy, T x, T y, EuCounters& k) {
  switch (f) {
#define TESSERA_X(name, arity, desc)                                    \
  case MathFunction::name:                                              \
    if constexpr (arity == 1) {                                         \
      return branchy ? baseline::name(x, k) : math::name(x, k);         \
    } else {                                                            \
      return branchy ? baseline::name(x, y, k) : math::name(x, y, k);   \
    }
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
  }
  return x;
}
}  // namespace

const char* math_function_name(MathFunction f) { return kNames[size_t(f)]; }
int math_function_arity(MathFunction f) { return kArity[size_t(f)]; }

float evaluate(MathFunction f, bool branchy, float x, float y, EuCounters& k) {
  return evaluate_t(f, branchy, x, y, k);
}
double evaluate(MathFunction f, bool branchy, double x, double y, EuCounters& k) {
  return evaluate_t(f, branchy, x, y, k);
}

uint64_t dynamic_instructions(const EuCounters& k) {
  uint64_t n = k[EuCounters::branches] + k[EuCounters::integer_ops];
  for (uint64_t c : k.instructions) n += c;
  return n;
}

}  // namespace tessera::eu
