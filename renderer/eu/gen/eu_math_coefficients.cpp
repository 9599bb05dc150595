// Offline generator for the polynomial coefficients in renderer/eu/eu_math_coefficients.h.
// Not part of the build. Run:
//   g++ -O2 -std=c++20 renderer/eu/gen/eu_math_coefficients.cpp -lmpfr -lgmp -o /tmp/eu_coeffs
//   /tmp/eu_coeffs
// Method: Chebyshev interpolation (near-minimax for these analytic functions) at n Chebyshev
// nodes of the interval, computed in long double (64-bit significand) from the long double
// libm, converted to monomial coefficients in the reduced argument, rounded to the target
// format. It prints each fit's maximum relative error, evaluated in long double with the
// rounded coefficients, so the degree can be chosen with a margin below the format's ulp.
// The split constants (ln2 and 1/ln2 as hi + lo) come from MPFR at 300 bits.
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include <mpfr.h>

using Ld = long double;

// Monomial coefficients (in x) of the degree n-1 Chebyshev interpolant of f on [a, b].
std::vector<Ld> chebyshev_fit(const std::function<Ld(Ld)>& f, Ld a, Ld b, int n) {
  const Ld pi = 3.141592653589793238462643383279502884L;
  std::vector<Ld> c(n, 0);
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < n; ++k) {
      const Ld th = pi * (k + 0.5L) / n;
      c[j] += f((a + b) / 2 + (b - a) / 2 * std::cos(th)) * std::cos(j * th);
    }
    c[j] *= (j == 0 ? 1.0L : 2.0L) / n;
  }
  // T_j(s) as monomials in s, with s = (x - mid) / half; then expand in x.
  std::vector<std::vector<Ld>> t(n, std::vector<Ld>(n, 0));
  t[0][0] = 1;
  if (n > 1) t[1][1] = 1;
  for (int j = 2; j < n; ++j)
    for (int i = 0; i < n; ++i) t[j][i] = (i > 0 ? 2 * t[j - 1][i - 1] : 0) - t[j - 2][i];
  std::vector<Ld> ps(n, 0);  // in s
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) ps[i] += c[j] * t[j][i];
  const Ld mid = (a + b) / 2, half = (b - a) / 2;
  // s^i = ((x - mid)/half)^i: expand by repeated multiplication.
  std::vector<Ld> px(n, 0), pow_s(1, 1);  // pow_s: coefficients of s^i in x
  for (int i = 0; i < n; ++i) {
    for (size_t m = 0; m < pow_s.size(); ++m) px[m] += ps[i] * pow_s[m];
    std::vector<Ld> next(pow_s.size() + 1, 0);
    for (size_t m = 0; m < pow_s.size(); ++m) {
      next[m + 1] += pow_s[m] / half;
      next[m] -= pow_s[m] * mid / half;
    }
    pow_s = next;
  }
  return px;
}

template <class T>
void emit(const char* name, const std::function<Ld(Ld)>& f, Ld a, Ld b, int n) {
  auto px = chebyshev_fit(f, a, b, n);
  std::vector<T> r(px.begin(), px.end());
  Ld worst = 0;
  for (int i = 0; i <= 20000; ++i) {
    const Ld x = a + (b - a) * i / 20000;
    Ld acc = 0;
    for (int j = n - 1; j >= 0; --j) acc = acc * x + Ld(r[j]);
    worst = std::max(worst, std::fabs(acc / f(x) - 1));
  }
  std::printf("// %s on [%Lg, %Lg], %d terms, max relative error %.3Lg (2^%.1Lf)\n", name, a, b, n, worst,
              std::log2(worst));
  std::printf("inline constexpr %s %s[] = {", sizeof(T) == 4 ? "float" : "double", name);
  for (int j = 0; j < n; ++j)
    std::printf("%s%s%a%s", j ? ", " : "", j % 3 == 0 ? "\n    " : "", double(r[j]), sizeof(T) == 4 ? "f" : "");
  std::printf("};\n");
}

// c = hi + lo with hi = c rounded (down when round_down) to T and lo = c - hi rounded to T.
template <class T>
void emit_split(const char* hi_name, const char* lo_name, bool inverse_ln2, bool round_down) {
  mpfr_t c, r;
  mpfr_inits2(300, c, r, (mpfr_ptr) nullptr);
  mpfr_const_log2(c, MPFR_RNDN);
  if (inverse_ln2) mpfr_ui_div(c, 1, c, MPFR_RNDN);
  const mpfr_rnd_t mode = round_down ? MPFR_RNDD : MPFR_RNDN;
  const double hi = sizeof(T) == 4 ? double(mpfr_get_flt(c, mode)) : mpfr_get_d(c, mode);
  mpfr_sub_d(r, c, hi, MPFR_RNDN);
  const double lo = sizeof(T) == 4 ? double(mpfr_get_flt(r, MPFR_RNDN)) : mpfr_get_d(r, MPFR_RNDN);
  const char* type = sizeof(T) == 4 ? "float" : "double";
  const char* suffix = sizeof(T) == 4 ? "f" : "";
  if (hi_name) std::printf("inline constexpr %s %s = %a%s;\n", type, hi_name, hi, suffix);
  std::printf("inline constexpr %s %s = %a%s;\n", type, lo_name, lo, suffix);
  mpfr_clears(c, r, (mpfr_ptr) nullptr);
}

int main() {
  const Ld ln2 = 0.693147180559945309417232121458176568L;
  auto log2q = [&](Ld u) { return u == 0 ? 1 / ln2 : std::log1p(u) / u / ln2; };
  auto exp2q = [&](Ld r) { return r == 0 ? ln2 : std::expm1(r * ln2) / r; };
  auto expq = [&](Ld r) { return r == 0 ? 1 : std::expm1(r) / r; };
  auto rsqrt = [](Ld t) { return 1 / std::sqrt(t); };
  auto recip = [](Ld t) { return 1 / t; };
  auto rcbrt = [](Ld t) { return 1 / std::cbrt(t); };
  const int nf[] = {12, 7, 7}, nd[] = {24, 12, 12};
  emit<float>("kLog2F", log2q, -0.25L, 0.5L, nf[0]);
  emit<double>("kLog2D", log2q, -0.25L, 0.5L, nd[0]);
  emit<float>("kExp2F", exp2q, -0.5L, 0.5L, nf[1]);
  emit<double>("kExp2D", exp2q, -0.5L, 0.5L, nd[1]);
  emit<float>("kExpF", expq, -0.35L, 0.35L, nf[2]);
  emit<double>("kExpD", expq, -0.35L, 0.35L, nd[2]);
  emit<double>("kRsqrtSeed", rsqrt, 0.5L, 2.0L, 4);
  emit<double>("kRecipSeed", recip, 1.0L, 4.0L, 4);
  emit<double>("kRcbrtSeed", rcbrt, 1.0L, 8.0L, 4);
  std::printf("\n");
  emit_split<double>("kLn2HiD", "kLn2LoD", false, false);
  emit_split<float>("kLn2HiF", "kLn2LoF", false, true);    // rounded down: lo > 0, see the header
  emit_split<double>(nullptr, "kInvLn2LoD", true, false);  // hi is kLog2D[0]
  emit_split<float>(nullptr, "kInvLn2LoF", true, false);   // hi is kLog2F[0]
}
