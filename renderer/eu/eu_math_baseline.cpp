// The conventional branchy math library, as the baseline for the branch-free one: explicit
// tests and branches for NaN, infinities, zeros, negatives and subnormals, frexp-style exponent
// and mantissa extraction and ldexp-style reconstruction in the integer ALU, then the same
// polynomial/Newton cores (eu_math_kernels.h) on the modelled datapath. Every branch evaluated
// counts one eu.math.branches (a compare and a conditional jump); every integer instruction on a
// register's fields (shift, mask, or, add, int<->float conversion) counts one eu.math.integer_ops.
// The host's own comparisons below stand for those counted instructions; no host floating-point
// arithmetic computes a result.
#include <bit>
#include <limits>
#include <type_traits>

#include "eu/eu_math.h"
#include "eu/eu_math_kernels.h"

namespace tessera::eu {

namespace {

using kernels::Consts;

template <class T>
using Fmt = Format<std::conditional_t<sizeof(T) == 4, Binary32, Binary64>>;

template <class T>
class Branchy {
 public:
  using Fm = Fmt<T>;
  using Bits = typename Fm::Bits;
  static constexpr T kNan = std::numeric_limits<T>::quiet_NaN();
  static constexpr T kInf = std::numeric_limits<T>::infinity();

  explicit Branchy(EuCounters& k) : k_(k) {}

  // One conditional branch (compare + jump) evaluated.
  bool br(bool taken) {
    ++k_[EuCounters::branches];
    return taken;
  }
  void iops(int n) { k_[EuCounters::integer_ops] += uint64_t(n); }

  static Bits bits(T x) { return std::bit_cast<Bits>(x); }
  static T value(Bits b) { return std::bit_cast<T>(b); }
  static bool is_nan(T x) { return (bits(x) & ~Fm::kSign) > Fm::kInf; }
  static bool is_inf(T x) { return (bits(x) & ~Fm::kSign) == Fm::kInf; }
  static bool is_zero(T x) { return (bits(x) & ~Fm::kSign) == 0; }
  static bool is_negative(T x) { return (bits(x) & Fm::kSign) != 0; }
  static bool is_subnormal(T x) { return (bits(x) & Fm::kExpMask) == 0 && !is_zero(x); }
  // 2^n as a bit pattern, n in the normal range.
  T pow2(int n) {
    iops(2);
    return value(Bits(n + Fm::kBias) << Fm::kFracBits);
  }

  // frexp: x = m * 2^e with |m| in [1, 2) (sign kept); x finite and non-zero. Subnormals are
  // first scaled by 2^precision on the multiplier.
  struct Split {
    T m;
    int e;
  };
  Split split(T x) {
    int adjust = 0;
    if (br(is_subnormal(x))) {
      x = eu::mul(x, pow2(Fm::kPrecision), k_);
      adjust = Fm::kPrecision;
    }
    const Bits b = bits(x);
    const int e = int((b & Fm::kExpMask) >> Fm::kFracBits) - Fm::kBias - adjust;  // and, shift, sub, sub
    iops(4);
    const T m = value((b & (Fm::kSign | Fm::kFracMask)) | Fm::kOne);  // and, or
    iops(2);
    return {m, e};
  }

  // ldexp for m in [1/2, 4): an integer add into the exponent field when the result is
  // comfortably normal, else two exact-then-rounding multiplications (overflow, subnormals).
  T scale(T m, int n) {
    if (br(n > Fm::kEmin + 2 && n < Fm::kEmax - 2)) {
      iops(2);  // shift, add
      return value(bits(m) + (Bits(n) << Fm::kFracBits));
    }
    // Both halves stay normal powers of two; 2^(2*emin) and 2^(2*emax) already flush or overflow.
    const int clamped = n < 2 * Fm::kEmin ? 2 * Fm::kEmin : (n > 2 * Fm::kEmax ? 2 * Fm::kEmax : n);
    iops(3);  // clamp and halve
    const int half = clamped / 2;
    return eu::mul(eu::mul(m, pow2(half), k_), pow2(clamped - half), k_);
  }

  T to_float(int n) {
    iops(1);
    return T(n);
  }
  // Round to nearest even integer with the magic-number sum (two counted adds), then move it
  // to an integer register (one integer op).
  int to_int(T x) {
    iops(1);
    return int(eu::add(eu::add(x, Consts<T>::kRoundMagic, k_), -Consts<T>::kRoundMagic, k_));
  }

  // ---- the functions ---------------------------------------------------------------------

  // log2 / log: m centred into [3/4, 3/2) with a branch, as frexp-based code does.
  template <bool kNatural>
  T logarithm(T x) {
    if (br(is_nan(x))) return eu::add(x, x, k_);
    if (br(is_zero(x))) return -kInf;
    if (br(is_negative(x))) return kNan;
    if (br(is_inf(x))) return x;
    auto [m, e] = split(x);
    if (br(m >= T(1.5))) {
      m = eu::mul(m, T(0.5), k_);
      ++e;
      iops(1);
    }
    const auto l = kernels::log2_double_word(m, to_float(e), k_);
    return kNatural ? kernels::log_from(l, k_) : kernels::log2_from(l, k_);
  }

  T exp2(T x) {
    if (br(is_nan(x))) return eu::add(x, x, k_);
    if (br(x > T(Fm::kEmax + 2))) return kInf;
    if (br(x < T(Fm::kEmin - Fm::kPrecision - 2))) return T(0);
    const int n = to_int(x);
    const T r = eu::add(x, to_float(-n), k_);
    return scale(kernels::exp2_poly(r, k_), n);
  }

  T exp(T x) {
    if (br(is_nan(x))) return eu::add(x, x, k_);
    if (br(x > T(0.7) * T(Fm::kEmax + 2))) return kInf;
    if (br(x < T(0.7) * T(Fm::kEmin - Fm::kPrecision - 2))) return T(0);
    const int n = to_int(eu::mul(x, Consts<T>::kLog2e, k_));
    const T nf = to_float(n);
    T r = eu::fma(nf, -Consts<T>::kLn2Hi, x, k_);
    r = eu::fma(nf, -Consts<T>::kLn2Lo, r, k_);
    return scale(kernels::exp_poly(r, k_), n);
  }

  // powr: the special table of IEEE 754-2008 powr, then exp2(y * log2(x)).
  T pow(T x, T y) {
    if (br(is_nan(x) || is_nan(y))) return eu::add(x, y, k_);
    if (br(is_negative(x) && !is_zero(x))) return kNan;
    if (br(is_zero(x))) {
      if (br(is_zero(y))) return kNan;
      return br(is_negative(y)) ? kInf : T(0);
    }
    if (br(is_inf(x))) {
      if (br(is_zero(y))) return kNan;
      return br(is_negative(y)) ? T(0) : kInf;
    }
    if (br(is_inf(y))) {
      if (br(x == T(1))) return kNan;
      return br((x < T(1)) == is_negative(y)) ? kInf : T(0);
    }
    auto [m, e] = split(x);
    if (br(m >= T(1.5))) {
      m = eu::mul(m, T(0.5), k_);
      ++e;
      iops(1);
    }
    const auto l = kernels::log2_accurate(m, to_float(e), k_);
    const T z = eu::mul(y, l.hi, k_);
    if (br(z > T(Fm::kEmax + 2))) return kInf;
    if (br(z < T(Fm::kEmin - Fm::kPrecision - 2))) return T(0);
    const int n = to_int(z);
    const T rh = eu::add(z, to_float(-n), k_);  // exact
    iops(1);                                    // -z: sign flip
    const T rl = eu::fma(y, l.lo, eu::fma(y, l.hi, value(bits(z) ^ Fm::kSign), k_), k_);
    return scale(kernels::exp2_accurate(rh, rl, k_), n);
  }

  T sqrt(T x) {
    if (br(is_nan(x))) return eu::add(x, x, k_);
    if (br(is_zero(x))) return x;
    if (br(is_negative(x))) return kNan;
    if (br(is_inf(x))) return x;
    auto [m, e] = split(x);
    if (br((e & 1) != 0)) {  // odd exponent: m into [1/2, 1)
      m = eu::mul(m, T(0.5), k_);
      ++e;
      iops(2);
    }
    iops(2);  // negate m (sign flip), halve e
    const T g = kernels::sqrt_core(m, value(bits(m) ^ Fm::kSign), k_);
    return scale(g, e / 2);
  }

  T rsqrt(T x) {
    if (br(is_nan(x))) return eu::add(x, x, k_);
    if (br(is_zero(x))) return value(bits(x) | Fm::kInf);  // +-0 -> +-inf
    if (br(is_negative(x))) return kNan;
    if (br(is_inf(x))) return T(0);
    auto [m, e] = split(x);
    if (br((e & 1) != 0)) {  // odd exponent: m into [1/2, 1)
      m = eu::mul(m, T(0.5), k_);
      ++e;
      iops(2);
    }
    iops(2);  // negate m (sign flip), halve and negate e
    const T y = kernels::rsqrt_core(m, value(bits(m) ^ Fm::kSign), k_).y;
    return scale(y, -e / 2);
  }

  T div(T a, T b) {
    if (br(is_nan(a) || is_nan(b))) return eu::add(a, b, k_);
    iops(1);  // result sign
    const Bits sign = (bits(a) ^ bits(b)) & Fm::kSign;
    if (br(is_inf(a))) return br(is_inf(b)) ? kNan : value(sign | Fm::kInf);
    if (br(is_inf(b))) return value(sign);
    if (br(is_zero(b))) return br(is_zero(a)) ? kNan : value(sign | Fm::kInf);
    if (br(is_zero(a))) return value(sign);
    auto [ma, ea] = split(a);
    auto [mb, eb] = split(b);
    iops(2);  // mantissa magnitude compare
    if (br((bits(ma) & ~Fm::kSign) < (bits(mb) & ~Fm::kSign))) {
      ma = eu::mul(ma, T(2), k_);
      --ea;
      iops(1);
    }
    iops(1);
    return scale(kernels::div_core(ma, mb, k_), ea - eb);
  }

  T cbrt(T x) {
    if (br(is_nan(x) || is_zero(x) || is_inf(x))) return eu::add(x, x, k_);
    auto [m, e] = split(x);
    iops(2);  // sign off, remember it
    const Bits sign = bits(m) & Fm::kSign;
    m = value(bits(m) & ~Fm::kSign);
    int n = e / 3, rem = e - 3 * n;  // floor division by 3
    iops(4);
    if (br(rem < 0)) {
      rem += 3;
      --n;
      iops(2);
    }
    const T w = value(bits(m) + (Bits(rem) << Fm::kFracBits));
    iops(2);
    const T g = scale(kernels::cbrt_core(w, k_), n);
    iops(1);
    return value(bits(g) | sign);
  }

 private:
  EuCounters& k_;
};

}  // namespace

namespace baseline {
float log2(float x, EuCounters& k) { return Branchy<float>(k).logarithm<false>(x); }
double log2(double x, EuCounters& k) { return Branchy<double>(k).logarithm<false>(x); }
float log(float x, EuCounters& k) { return Branchy<float>(k).logarithm<true>(x); }
double log(double x, EuCounters& k) { return Branchy<double>(k).logarithm<true>(x); }
float exp2(float x, EuCounters& k) { return Branchy<float>(k).exp2(x); }
double exp2(double x, EuCounters& k) { return Branchy<double>(k).exp2(x); }
float exp(float x, EuCounters& k) { return Branchy<float>(k).exp(x); }
double exp(double x, EuCounters& k) { return Branchy<double>(k).exp(x); }
float pow(float x, float y, EuCounters& k) { return Branchy<float>(k).pow(x, y); }
double pow(double x, double y, EuCounters& k) { return Branchy<double>(k).pow(x, y); }
float cbrt(float x, EuCounters& k) { return Branchy<float>(k).cbrt(x); }
double cbrt(double x, EuCounters& k) { return Branchy<double>(k).cbrt(x); }
float sqrt(float x, EuCounters& k) { return Branchy<float>(k).sqrt(x); }
double sqrt(double x, EuCounters& k) { return Branchy<double>(k).sqrt(x); }
float rsqrt(float x, EuCounters& k) { return Branchy<float>(k).rsqrt(x); }
double rsqrt(double x, EuCounters& k) { return Branchy<double>(k).rsqrt(x); }
float div(float x, float y, EuCounters& k) { return Branchy<float>(k).div(x, y); }
double div(double x, double y, EuCounters& k) { return Branchy<double>(k).div(x, y); }
}  // namespace baseline

}  // namespace tessera::eu
