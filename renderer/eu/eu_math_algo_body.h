// The body of eu_math_impl.h: the branch-free algorithms.
// No include guard and no namespace: eu_math_impl.h includes it inside namespace tessera::eu::algo, and
// eu_lanes.cpp once more per Highway target inside that target's namespace, so the templates
// carry each target's instruction set (a template defined outside the target region cannot
// inline the target's vector operations). Includes belong in eu_math_impl.h.

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
template <class T, class K>
kernels::DoubleWord<T> log2_parts(T x, K& k) {
  const T e = getexp(x, kCentred, k);
  auto l = kernels::log2_double_word(getmant(x, kCentred, kNanIfNegative, k), e, k);
  l.lo = scalef(l.lo, scalef(e, T(-2048), k), k);
  return l;
}

template <class T, class K>
T log2_bf(T x, K& k) {
  return kernels::log2_from(log2_parts(x, k), k);
}

// ln(x) = log2(x) * ln2 with the double word and the split ln2 (kernels::log_from); the
// erased lo is +0 / +inf for zeros / +inf, so the sums stay -inf / +inf (ln2_lo > 0).
template <class T, class K>
T log_bf(T x, K& k) {
  return kernels::log_from(log2_parts(x, k), k);
}

// |x| >= 2^8 (binary32) / 2^11 (binary64) becomes +-inf through the multiplier's overflow; every
// other value comes back exactly. Keeps the reduced argument of exp/exp2/pow bounded without a
// compare.
template <class T, class K>
T saturate(T x, K& k) {
  return mul(mul(x, Consts<T>::kSatUp, k), Consts<T>::kSatDown, k);
}

// exp2(x) = scalef(2^r, n) with n = round(x), r = x - n in [-1/2, 1/2]. For x = +-inf,
// r = inf - inf is NaN and scalef(QNaN, +inf) = +inf, scalef(QNaN, -inf) = +0 (the VSCALEF rule
// made for exactly this); a NaN x stays NaN; overflow and gradual underflow are scalef's.
template <class T, class K>
T exp2_bf(T x, K& k) {
  const T xs = saturate(x, k);
  const T n = add(add(xs, Consts<T>::kRoundMagic, k), -Consts<T>::kRoundMagic, k);
  const T r = fma(n, T(-1), xs, k);  // exact
  return scalef(kernels::exp2_poly(r, k), n, k);
}

// exp(x) = scalef(e^r, n), n = round(x/ln2), r = x - n*ln2 (two fmas with the split ln2).
template <class T, class K>
T exp_bf(T x, K& k) {
  const T xs = saturate(x, k);
  const T n = add(fma(xs, Consts<T>::kLog2e, Consts<T>::kRoundMagic, k), -Consts<T>::kRoundMagic, k);
  T r = fma(n, -Consts<T>::kLn2Hi, xs, k);  // inf - inf = NaN for x = +-inf, as in exp2
  r = fma(n, -Consts<T>::kLn2Lo, r, k);
  return scalef(kernels::exp_poly(r, k), n, k);
}

// powr(x, y) = exp2(y * log2(x)). log2(x) = hi + lo with ~2p bits (kernels::log2_accurate);
// z = y*hi = zh + (y*hi - zh, exact by the fma) + y*lo; n = round(zh) and -n come from one
// magic-number sum; rh = zh - n is exact (Sterbenz) and rl = y*lo + (y*hi - zh) is tiny, so
// 2^(rh + rl) (kernels::exp2_accurate) rounds once and scalef(., n) places it. The specials of
// powr come out of IEEE arithmetic: 0 * inf (powr(1, inf), powr(0, 0), powr(inf, 0)) is NaN,
// y * -inf gives the limits for x = 0, getmant gives NaN for negative x. A saturated zh
// (|.| >= 2^8 / 2^11) makes rh NaN via zs*0, so scalef(QNaN, +-inf) gives +inf / +0.
template <class T, class K>
T pow_bf(T x, T y, K& k) {
  const T m = getmant(x, kCentred, kNanIfNegative, k);
  const auto l = kernels::log2_accurate(m, getexp(x, kCentred, k), k);
  const T zh = mul(y, l.hi, k);
  const T zs = saturate(zh, k);
  const T t = add(zs, Consts<T>::kRoundMagic, k);
  const T n = add(t, -Consts<T>::kRoundMagic, k);
  const T neg_n = fma(t, T(-1), Consts<T>::kRoundMagic, k);  // exact (Sterbenz)
  const T rh = add(zh, fma(zs, T(0), neg_n, k), k);          // exact
  const T rl = fma(y, l.lo, fma(y, l.hi, mul(zh, T(-1), k), k), k);
  return scalef(kernels::exp2_accurate(rh, rl, k), n, k);
}

// sqrt(x) = scalef(sqrt(m), getexp(x, 1)) with m = getmant(x, [1/2, 2), NaN if negative): the
// interval keeps the exponent even. +0 / +inf: m = 1, scale -inf / +inf. -0: sign control 2
// gives m = -1; the iteration on -1 stays negative and finite, and scalef(negative, -inf) = -0.
// Negative x: m is NaN.
template <class T, class K>
T sqrt_bf(T x, K& k) {
  const T m = getmant(x, 1, 2, k);
  const T neg_m = mul(m, T(-1), k);
  // e + 0*m: makes the scale NaN for x = -inf (m NaN, e +inf), where scalef(QNaN, +inf) would
  // give +inf; for every other x it is e unchanged.
  const T e = fma(m, T(0), getexp(x, 1, k), k);
  return scalef(kernels::sqrt_core(m, neg_m, k), e, k);
}

// 1/sqrt(x) = scalef(1/sqrt(m), -getexp(x, 1)) with m = getmant(x, [1/2, 2), NaN if negative).
// The scale is -E + h with h in (0.35, 0.71] from the core: floor gives -E, and h carries m's
// NaN, so -inf (E = +inf, m NaN) gets scalef(NaN, NaN) = NaN rather than the rule
// scalef(QNaN, -inf) = +0. +0: m = 1, scale +inf, +inf. -0: m = -1 and the core's result is
// negative (kernels::rsqrt_core), so scalef(negative, +inf) = -inf. +inf: m = 1, scale -inf, +0.
// Negative x and NaN: m is NaN. Results lie in [2^-64, 2^75] (binary64: [2^-512, 2^538]), so
// scalef never rounds; subnormal inputs are exact in m and E.
template <class T, class K>
T rsqrt_bf(T x, K& k) {
  const T m = getmant(x, 1, 2, k);
  const auto r = kernels::rsqrt_core(m, mul(m, T(-1), k), k);
  return scalef(r.y, fma(getexp(x, 1, k), T(-1), r.h, k), k);
}

// x / y = scalef(getmantdiv(x, y) / getmant(y), getexpdiff(x, y)): the mantissa quotient lies in
// [1, 2), so it never over- or underflows; only the final scalef rounds into range. 0/0,
// inf/inf (NaN), x/0 (inf) and 0/x (0) come from getexpdiff's IEEE exponent arithmetic.
template <class T, class K>
T div_bf(T x, T y, K& k) {
  const T q = kernels::div_core(getmantdiv(x, y, k), getmant(y, 0, 0, k), k);
  return scalef(q, getexpdiff(x, y, k), k);
}

// cbrt(x) = sign * scalef(cbrt(|m| * 2^rem), n) with e = getexp(x) = 3n + rem, rem in {0,1,2}:
// n = round((e - 1)/3) (the quotient is n or n +- 1/3), rem = e - 3n exactly. For +-0 / +-inf,
// e is -inf / +inf, rem is NaN, and scalef(QNaN, -+inf) gives +0 / +inf; the sign comes last
// from round(0.75 * getmant(x)) = +-1 (mantissa keeps the sign, 1.0 for zeros and infinities).
template <class T, class K>
T cbrt_bf(T x, K& k) {
  const T e = getexp(x, 0, k);
  const T n =
      add(add(fma(e, Consts<T>::kThird, -Consts<T>::kThird, k), Consts<T>::kRoundMagic, k), -Consts<T>::kRoundMagic, k);
  const T rem = fma(n, T(-3), e, k);
  const T w = scalef(getmant(x, 0, 1, k), rem, k);
  const T magnitude = scalef(kernels::cbrt_core(w, k), n, k);
  const T sign = add(fma(getmant(x, 0, 0, k), T(0.75), Consts<T>::kRoundMagic, k), -Consts<T>::kRoundMagic, k);
  return mul(magnitude, sign, k);
}

