// The body of eu_math_kernels.h: the shared polynomial, double-word and Newton cores.
// No include guard and no namespace: eu_math_kernels.h includes it inside namespace tessera::eu::kernels, and
// eu_lanes.cpp once more per Highway target inside that target's namespace, so the templates
// carry each target's instruction set (a template defined outside the target region cannot
// inline the target's vector operations). Includes belong in eu_math_kernels.h.

template <class T>
struct Consts;

template <>
struct Consts<float> {
  static constexpr const auto& kLog2Tail = coeffs::kLog2TailF;
  static constexpr const auto& kLog2Atanh = coeffs::kLog2AtanhF;
  static constexpr float kLog2C0Hi = coeffs::kLog2C0HiF, kLog2C0Lo = coeffs::kLog2C0LoF;
  static constexpr float kLog2C1Hi = coeffs::kLog2C1HiF, kLog2C1Lo = coeffs::kLog2C1LoF;
  static constexpr float kLog2KHi = coeffs::kLog2KHiF, kLog2KLo = coeffs::kLog2KLoF;
  static constexpr float kLn2DwHi = coeffs::kLn2DwHiF, kLn2DwLo = coeffs::kLn2DwLoF;
  static constexpr const auto& kExp2Tail = coeffs::kExp2TailF;
  static constexpr float kLog2KThirdHi = coeffs::kLog2KThirdHiF, kLog2KThirdLo = coeffs::kLog2KThirdLoF;
  static constexpr float kLn2SqHalfHi = coeffs::kLn2SqHalfHiF, kLn2SqHalfLo = coeffs::kLn2SqHalfLoF;
  static constexpr int kAtanhRecipSteps = 3;  // Newton steps for 1/(m+1) from the 2^-5.3 seed
  static constexpr const auto& kExp2 = coeffs::kExp2F;
  static constexpr const auto& kExp = coeffs::kExpF;
  static constexpr float kLn2Hi = coeffs::kLn2HiF, kLn2Lo = coeffs::kLn2LoF;
  static constexpr float kLog2e = coeffs::kLog2eF;
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
  static constexpr const auto& kLog2Tail = coeffs::kLog2TailD;
  static constexpr const auto& kLog2Atanh = coeffs::kLog2AtanhD;
  static constexpr double kLog2C0Hi = coeffs::kLog2C0HiD, kLog2C0Lo = coeffs::kLog2C0LoD;
  static constexpr double kLog2C1Hi = coeffs::kLog2C1HiD, kLog2C1Lo = coeffs::kLog2C1LoD;
  static constexpr double kLog2KHi = coeffs::kLog2KHiD, kLog2KLo = coeffs::kLog2KLoD;
  static constexpr double kLn2DwHi = coeffs::kLn2DwHiD, kLn2DwLo = coeffs::kLn2DwLoD;
  static constexpr const auto& kExp2Tail = coeffs::kExp2TailD;
  static constexpr double kLog2KThirdHi = coeffs::kLog2KThirdHiD, kLog2KThirdLo = coeffs::kLog2KThirdLoD;
  static constexpr double kLn2SqHalfHi = coeffs::kLn2SqHalfHiD, kLn2SqHalfLo = coeffs::kLn2SqHalfLoD;
  static constexpr int kAtanhRecipSteps = 4;  // Newton steps for 1/(m+1) from the 2^-5.3 seed
  static constexpr const auto& kExp2 = coeffs::kExp2D;
  static constexpr const auto& kExp = coeffs::kExpD;
  static constexpr double kLn2Hi = coeffs::kLn2HiD, kLn2Lo = coeffs::kLn2LoD;
  static constexpr double kLog2e = coeffs::kLog2eD;
  static constexpr double kRoundMagic = 0x1.8p52;
  // x * 2^1013 overflows exactly when |x| >= 2^11 (finite exp/exp2 arguments: |x| < 1076).
  static constexpr double kSatUp = 0x1p1013, kSatDown = 0x1p-1013;
  static constexpr double kThird = 0x1.5555555555555p-2;
  static constexpr int kSqrtSteps = 3, kRecipSteps = 3, kCbrtSteps = 3;
};

// c[first] + t*(c[first+1] + t*(...)): one fma per coefficient after the first.
template <class T, class C, size_t N, class K>
T horner(const C (&c)[N], T t, K& k, size_t first = 0) {
  T acc = T(c[N - 1]);
  for (size_t i = N - 1; i-- > first;) acc = eu::fma(acc, t, T(c[i]), k);
  return acc;
}

// e + log2(m) as an unevaluated sum hi + lo, m = getmant(x, [3/4, 3/2)), u = m - 1 (exact):
// log2(1+u) = c0*u + u^2*(c1 + u*g(u)) with c0 = 1/ln2 and c1 = -1/(2 ln2) as double words
// (coefficients: eu_math_coefficients_dw.h). Only u*g(u) (|.| < 0.2, relative error 2^-p) is
// rounded; A = c1 + u*g and S = u^2*A and P = u*c0 are double words (Fast2Sum and the fma's
// exact products), F = P + S is renormalised by Fast2Sum (|P| > |S|), then e is added by a
// second Fast2Sum (exact: e = 0 or |e| >= 1 > |F|). The error of hi + lo is about 2^-p times
// |u^3 g| <= 0.06, so log2 = hi + lo rounds once with a small excess even where e = -1 and m
// near 3/2 make the result a binade smaller than the fraction. Negated products come from fmas
// with -1 or from -u = 1 - m, since the ISA has no negation. For x = 0 or inf, u = 0 makes every
// term +-0 and hi = e = -+inf (lo is NaN from e - hi; log2_parts erases it).
template <class T>
struct DoubleWord {
  T hi, lo;
};
template <class T, class K>
DoubleWord<T> log2_double_word(T m, T e, K& k) {
  using C = Consts<T>;
  const T u = eu::add(m, T(-1), k);
  const T nu = eu::fma(m, T(-1), T(1), k);  // -u
  // A = c1 + u*g(u) as ah + al.
  const T b = eu::mul(u, horner(C::kLog2Tail, u, k), k);
  const T ah = eu::add(b, C::kLog2C1Hi, k);
  const T al = eu::add(eu::fma(eu::add(ah, -C::kLog2C1Hi, k), T(-1), b, k), C::kLog2C1Lo, k);
  // u^2 = u2h + u2l exactly.
  const T u2h = eu::mul(u, u, k);
  const T nu2h = eu::mul(u, nu, k);
  const T u2l = eu::fma(u, u, nu2h, k);
  // S = u^2 * A = sh + sl.
  const T sh = eu::mul(u2h, ah, k);
  const T nsl0 = eu::fma(nu2h, ah, sh, k);  // sh - u2h*ah, exact
  const T sl = eu::fma(nsl0, T(-1), eu::fma(u2h, al, eu::mul(u2l, ah, k), k), k);
  // P = u * c0 = ph + pl.
  const T ph = eu::mul(u, C::kLog2C0Hi, k);
  const T npl0 = eu::fma(nu, C::kLog2C0Hi, ph, k);  // ph - u*c0h, exact
  const T pl = eu::fma(npl0, T(-1), eu::mul(u, C::kLog2C0Lo, k), k);
  // F = P + S.
  const T fh = eu::add(ph, sh, k);
  const T fl = eu::add(eu::add(eu::fma(fh, T(-1), ph, k), sh, k), eu::add(pl, sl, k), k);
  const T hi = eu::add(e, fh, k);
  return {hi, eu::add(fl, eu::add(fh, eu::fma(hi, T(-1), e, k), k), k)};  // fl + ((e + fh) - hi)
}

// pow's log2: e + log2(m) as hi + lo with a relative error of a few 2^-2p, so that y*log2(x)
// (|.| up to 150 / 1075) keeps ~p bits below the binary point. s = (m-1)/(m+1) in [-1/7, 1/5]
// as a double word (reciprocal seed and Newton steps for 1/(m+1), whose sum is itself a double
// word; the remainder u - q*(m+1) is exact through the fma), then log2(m) = s*G with
// G = k + w*k/3 + w^2*R(w), w = s^2 <= 1/25, k = 2/ln2: k, k/3, w and the products are double
// words, only w^2*R(w) (2^-11.6 of G) is rounded; two Fast2Sums keep G normalised (|gl| about
// ulp(gh)), so that lo stays below ulp(hi) and pow's y*lo is tiny. e is added by Fast2Sum (|s*G| < 0.6).
// Specials as log2_double_word: m = 1 gives s = 0 and hi = e; a NaN m stays NaN.
template <class T, class K>
DoubleWord<T> log2_accurate(T m, T e, K& k) {
  using C = Consts<T>;
  const T u = eu::add(m, T(-1), k);
  const T nu = eu::fma(m, T(-1), T(1), k);  // -u
  // d = m + 1 = dh + dl (Fast2Sum: exponent of 1 >= exponent of m).
  const T dh = eu::add(m, T(1), k);
  const T dl = eu::fma(eu::add(dh, T(-1), k), T(-1), m, k);
  const T ndh = eu::fma(m, T(-1), T(-1), k);  // -dh: the same rounding of the negated sum
  T y = horner(coeffs::kRecipSeed, dh, k);    // 1/t on [1, 4]
  for (int i = 0; i < C::kAtanhRecipSteps; ++i) y = eu::fma(y, eu::fma(ndh, y, T(1), k), y, k);
  // s = sh + sl: sh = u*y, remainder u - sh*dh (exact) - sh*dl, sl = remainder * y.
  const T sh = eu::mul(u, y, k);
  const T nsh = eu::mul(nu, y, k);  // -sh
  const T sl = eu::mul(eu::fma(nsh, dl, eu::fma(nsh, dh, u, k), k), y, k);
  // w = s^2 = wh + wl.
  const T wh = eu::mul(sh, sh, k);
  const T nwh = eu::mul(sh, nsh, k);  // -wh
  const T wl = eu::fma(eu::add(sh, sh, k), sl, eu::fma(sh, sh, nwh, k), k);
  // G = k + w*k/3 + w^2*R(w) = gh + gl.
  const T t2 = eu::mul(wh, eu::mul(wh, horner(C::kLog2Atanh, wh, k), k), k);
  const T p1h = eu::mul(wh, C::kLog2KThirdHi, k);
  const T np1l = eu::fma(nwh, C::kLog2KThirdHi, p1h, k);  // p1h - wh*(k/3)hi, exact
  const T p1l = eu::fma(np1l, T(-1), eu::fma(wh, C::kLog2KThirdLo, eu::mul(wl, C::kLog2KThirdHi, k), k), k);
  const T a = eu::add(p1h, t2, k);                                               // Fast2Sum: |p1h| > |t2|
  const T a_err = eu::fma(eu::add(a, eu::mul(p1h, T(-1), k), k), T(-1), t2, k);  // t2 - (a - p1h)
  const T gh = eu::add(a, C::kLog2KHi, k);                                       // Fast2Sum: k > |a|
  const T gl =
      eu::add(eu::fma(eu::add(gh, -C::kLog2KHi, k), T(-1), a, k), eu::add(eu::add(p1l, C::kLog2KLo, k), a_err, k), k);
  // log2(m) = s * G = lh + ll.
  const T lh = eu::mul(sh, gh, k);
  const T nll = eu::fma(nsh, gh, lh, k);  // lh - sh*gh, exact
  const T ll = eu::fma(nll, T(-1), eu::fma(sh, gl, eu::mul(sl, gh, k), k), k);
  const T hi = eu::add(e, lh, k);
  return {hi, eu::add(ll, eu::add(lh, eu::fma(hi, T(-1), e, k), k), k)};  // ll + ((e + lh) - hi)
}

// pow's exp2: 2^(rh + rl) for |rh| <= 1/2 and |rl| <= 2^-(p-12), rounded once. 2^rh =
// 1 + r*(ln2 + r*(ln2^2/2 + r*W(r))) with the last three Horner steps in double words (ln2 and
// ln2^2/2 as hi + lo, the products split by the fma, Fast2Sums since each constant outweighs
// the product added to it); rl enters as 2^rh * 2^rl = E + E*rl*ln2 (the rl^2 term is below
// 2^-(2p-24)). Exactly 1 for rh = rl = 0; NaN in, NaN out.
template <class T, class K>
T exp2_accurate(T rh, T rl, K& k) {
  using C = Consts<T>;
  const T nrh = eu::mul(rh, T(-1), k);
  const T w = horner(C::kExp2Tail, rh, k);
  // V = ln2^2/2 + r*W.
  T ph = eu::mul(rh, w, k);
  T npl = eu::fma(nrh, w, ph, k);  // ph - rh*w, exact
  const T vh = eu::add(ph, C::kLn2SqHalfHi, k);
  const T vl =
      eu::add(eu::fma(eu::add(vh, -C::kLn2SqHalfHi, k), T(-1), ph, k), eu::fma(npl, T(-1), C::kLn2SqHalfLo, k), k);
  // Q = ln2 + r*V.
  ph = eu::mul(rh, vh, k);
  npl = eu::fma(nrh, vh, ph, k);
  const T qh = eu::add(ph, C::kLn2DwHi, k);
  const T ql = eu::add(eu::fma(eu::add(qh, -C::kLn2DwHi, k), T(-1), ph, k),
                       eu::fma(npl, T(-1), eu::fma(rh, vl, C::kLn2DwLo, k), k), k);
  // E = 1 + r*Q, times 2^rl to first order, rounded once.
  ph = eu::mul(rh, qh, k);
  npl = eu::fma(nrh, qh, ph, k);
  const T eh = eu::add(ph, T(1), k);
  const T small = eu::fma(npl, T(-1), eu::fma(rh, ql, eu::mul(eh, eu::mul(rl, C::kLn2DwHi, k), k), k), k);
  return eu::add(eh, eu::add(eu::fma(eu::add(eh, T(-1), k), T(-1), ph, k), small, k), k);
}

// log2(x) and ln(x) from the double word, each with one final rounding: hi + lo, and
// hi*ln2_hi (exact inside the fma) + (hi*ln2_lo + lo*ln2_hi).
template <class T, class K>
T log2_from(DoubleWord<T> l, K& k) {
  return eu::add(l.hi, l.lo, k);
}
template <class T, class K>
T log_from(DoubleWord<T> l, K& k) {
  const T small = eu::fma(l.hi, Consts<T>::kLn2Lo, eu::mul(l.lo, Consts<T>::kLn2Hi, k), k);
  return eu::fma(l.hi, Consts<T>::kLn2Hi, small, k);
}

// 2^r for |r| <= 1/2 and e^r for |r| <= 0.35 as 1 + r*q(r) (exactly 1 at r = 0).
template <class T, class K>
T exp2_poly(T r, K& k) {
  return eu::fma(r, horner(Consts<T>::kExp2, r, k), T(1), k);
}
template <class T, class K>
T exp_poly(T r, K& k) {
  return eu::fma(r, horner(Consts<T>::kExp, r, k), T(1), k);
}

// The coupled Newton (Goldschmidt) iteration of sqrt and rsqrt: a pair with a*b -> -1/2 (one of
// them carries the sign), r = 0.5 + a*b, both scaled by 1 + r. From a = +-m*y0, b = -+y0/2 (y0
// the seed for 1/sqrt(m)) |a| -> sqrt(m) and |b| -> 1/(2 sqrt(m)). rsqrt has no use for the last
// a, so it passes last_a = false (a compile-time choice: the opcode mix stays fixed).
template <class T, class K>
void coupled_newton(T& a, T& b, K& k, bool last_a = true) {
  for (int i = 0; i < Consts<T>::kSqrtSteps; ++i) {
    const T r = eu::fma(a, b, T(0.5), k);  // 0.5 - |a*b|
    if (last_a || i + 1 < Consts<T>::kSqrtSteps) a = eu::fma(a, r, a, k);
    b = eu::fma(b, r, b, k);
  }
}

// sqrt(m) for m in [1/2, 2): coupled Newton (Goldschmidt) iteration g -> sqrt(m), h -> -1/(2
// sqrt(m)) from a 4-term seed for 1/sqrt(m), then one Markstein correction g + h'*(m - g^2)
// using the fma's exact g*g. -m is passed in so the correction needs no negation.
template <class T, class K>
T sqrt_core(T m, T neg_m, K& k) {
  const T y = horner(coeffs::kRsqrtSeed, m, k);
  T g = eu::mul(m, y, k);
  T hn = eu::mul(y, T(-0.5), k);
  coupled_newton(g, hn, k);
  const T d = eu::fma(g, g, neg_m, k);  // g^2 - m, exact product
  return eu::fma(hn, d, g, k);          // g - h*(g^2 - m)
}

// 1/sqrt(m) for m in [1/2, 2) (y) and h ~ 1/(2 sqrt(m)) in (0.35, 0.71] (rsqrt_bf's exponent
// carrier). The same seed and coupled iteration as sqrt_core, run on (-g, h) so that h is
// positive, then one Newton correction y = u - h*d with u = 2h and d = m*u^2 - 1 computed from
// the fma's exact square (u^2 = p + l): the residual is good to about 2^-2p, so the correction
// adds far less than an ULP to the final rounding (0.5000 ULP max measured). The correction is
// applied as u - h*d*(1 + 3d): |d| <= 2^-22 / 2^-49 after the iteration, so the extra 3d^2 term
// is below 2^-42 / 2^-96 relative for m > 0, and it makes the result odd in the sign of m,
// which rsqrt(-0) needs: getmant gives m = -1 there, and the iteration on -1 stays positive and
// finite, so d = -(u^2 + 1) and y = u - h*d*(1 + 3d) < 0; with plain Newton y would be positive
// and scalef would give +inf instead of -inf.
template <class T>
struct RsqrtParts {
  T y, h;
};
template <class T, class K>
RsqrtParts<T> rsqrt_core(T m, T neg_m, K& k) {
  const T y0 = horner(coeffs::kRsqrtSeed, m, k);
  T ng = eu::mul(neg_m, y0, k);
  T h = eu::mul(y0, T(0.5), k);
  coupled_newton(ng, h, k, /*last_a=*/false);
  const T u = eu::add(h, h, k);
  const T nu = eu::mul(h, T(-2), k);
  const T np = eu::mul(nu, u, k);                              // -p, p = u^2 rounded
  const T l = eu::fma(u, u, np, k);                            // u^2 - p, exact
  const T d = eu::fma(m, l, eu::fma(neg_m, np, T(-1), k), k);  // m*(p + l) - 1
  const T c = eu::mul(h, eu::fma(d, T(-3), T(-1), k), k);      // -h*(1 + 3d)
  return {eu::fma(c, d, u, k), h};
}

// a / b for a in +-[1, 4), b in +-[1, 2) with a/b in [1, 2): reciprocal seed y0 = b*s(b^2)
// (odd in b, so negative b needs no sign handling), Newton steps y += y*(1 - b*y), then one
// remainder correction q += y*(a - q*b) (exact remainder through the fma).
template <class T, class K>
T div_core(T a, T b, K& k) {
  const T neg_b = eu::mul(b, T(-1), k);
  T y = eu::mul(b, horner(coeffs::kRecipSeed, eu::mul(b, b, k), k), k);
  for (int i = 0; i < Consts<T>::kRecipSteps; ++i) y = eu::fma(y, eu::fma(neg_b, y, T(1), k), y, k);
  const T q = eu::mul(a, y, k);
  return eu::fma(eu::fma(neg_b, q, a, k), y, q, k);
}

// w^(1/3) for w in [1, 8): Newton for y = w^(-1/3) (y -= y/3 * (w*y^3 - 1)), then g = w*y^2
// and one correction g -= (g^3 - w) * y^2/3.
template <class T, class K>
T cbrt_core(T w, K& k) {
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

