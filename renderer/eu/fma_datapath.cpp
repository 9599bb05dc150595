#include "eu/fma_datapath.h"

#include <algorithm>
#include <bit>

#include "tessera/error.h"

namespace tessera::eu {

namespace {

// ---- Pre-processing: field extraction and special detection ---------------------------------

enum class OperandClass : uint8_t { zero, subnormal, normal, infinity, quiet_nan, signalling_nan };

// An operand after pre-processing. For finite non-zero operands the value is
// sig * 2^(exp - (precision - 1)); after normalise() sig has its leading 1 at bit precision-1.
template <class F>
struct Operand {
  typename F::Bits bits;  // the register pattern, for NaN propagation and bypass results
  typename F::Bits sig;   // significand with the hidden bit (subnormals: raw fraction)
  int exp;                // unbiased exponent (subnormals: emin until normalised)
  bool sign;
  OperandClass cls;

  bool is_nan() const { return cls == OperandClass::quiet_nan || cls == OperandClass::signalling_nan; }
  bool is_zero() const { return cls == OperandClass::zero; }
  bool is_inf() const { return cls == OperandClass::infinity; }
  bool is_finite_nonzero() const { return cls == OperandClass::normal || cls == OperandClass::subnormal; }
};

template <class F>
Operand<F> preprocess(typename F::Bits x) {
  using Fm = Format<F>;
  Operand<F> o{};
  o.bits = x;
  o.sign = (x & Fm::kSign) != 0;
  const int exp_field = int((x & Fm::kExpMask) >> F::kFracBits);
  const typename F::Bits frac = x & Fm::kFracMask;
  if (exp_field == Fm::kExpAllOnes) {
    o.cls = frac == 0 ? OperandClass::infinity
                      : ((frac & Fm::kQuiet) ? OperandClass::quiet_nan : OperandClass::signalling_nan);
  } else if (exp_field == 0) {
    o.cls = frac == 0 ? OperandClass::zero : OperandClass::subnormal;
    o.sig = frac;
    o.exp = Fm::kEmin;
  } else {
    o.cls = OperandClass::normal;
    o.sig = frac | Fm::kHidden;
    o.exp = exp_field - F::kBias;
  }
  return o;
}

// A NaN operand returned as a quiet NaN with its sign and payload (x86 QNaN(src)).
template <class F>
typename F::Bits quieted(typename F::Bits nan) {
  return nan | Format<F>::kQuiet;
}

// ---- Leading-zero detection and normalisation ------------------------------------------------

inline int leading_zeros(uint32_t x) { return std::countl_zero(x); }
inline int leading_zeros(uint64_t x) { return std::countl_zero(x); }
inline int leading_zeros(Uint128 x) {
  const uint64_t hi = uint64_t(x >> 64);
  return hi != 0 ? std::countl_zero(hi) : 64 + std::countl_zero(uint64_t(x));
}

// Normalises a subnormal operand's significand so its leading 1 sits at the hidden-bit position
// (the "normalise if subnormal" logic getexp/getmant add, and the FMA's input normalisation).
template <class F>
void normalise(Operand<F>& o, EuCounters& counters) {
  if (o.cls != OperandClass::subnormal) return;
  const int shift = leading_zeros(o.sig) - (F::kBits - Format<F>::kPrecision);
  o.sig <<= shift;
  o.exp -= shift;
  ++counters[EuCounters::subnormal_operands];
}

// ---- Aligner: right shift with a sticky bit ---------------------------------------------------

// x >> d, with bit 0 set when any shifted-out bit was 1. Keeps rounding exact as long as the
// rounding position lies above bit 0 (see the argument in docs/eu.md).
template <class W>
W shift_right_sticky(W x, int d) {
  constexpr int kWidth = int(sizeof(W) * 8);
  if (d <= 0) return x;
  if (d >= kWidth) return W(x != 0);
  return (x >> d) | W((x & ((W(1) << d) - 1)) != 0);
}

// ---- Normalisation, exponent adjust, overflow/underflow and rounding --------------------------

// Rounds sign * s * 2^q (s != 0, exact or sticky-jammed at bit 0) to format F, nearest-even,
// with gradual underflow to subnormals and overflow to infinity.
template <class F>
typename F::Bits round_pack(bool sign, typename F::Wide s, int q, EuCounters& counters) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  using Wide = typename F::Wide;
  constexpr int kW = Fm::kWideBits;
  ++counters[EuCounters::lzd];
  ++counters[EuCounters::normaliser];
  ++counters[EuCounters::exponent_adjust];
  ++counters[EuCounters::range_check];
  ++counters[EuCounters::rounder];
  const Bits sign_bit = sign ? Fm::kSign : Bits(0);
  const int msb = kW - 1 - leading_zeros(s);
  const int e = msb + q;  // unbiased exponent of the leading bit
  if (e > Fm::kEmax) return sign_bit | Fm::kInf;
  // Subnormal results keep the lsb weight of the smallest normal: that is the denormalisation.
  const int e_kept = std::max(e, Fm::kEmin);
  const int shift = e_kept - (Fm::kPrecision - 1) - q;
  Wide keep;
  if (shift <= 0) {
    keep = s << -shift;  // exact: fewer than precision significant bits
  } else if (shift > kW) {
    keep = 0;  // s < 2^kW <= half the lsb weight: rounds to zero
  } else {
    Wide rem, half;
    if (shift == kW) {
      keep = 0;
      rem = s;
      half = Wide(1) << (kW - 1);
    } else {
      keep = s >> shift;
      rem = s & ((Wide(1) << shift) - 1);
      half = Wide(1) << (shift - 1);
    }
    if (rem > half || (rem == half && (keep & 1) != 0)) ++keep;
  }
  // Normal: field (e+bias-1) plus a keep in [2^p-1, 2^p] adds the hidden bit back in, and a
  // rounding carry moves into the exponent (up to infinity). Subnormal: field 0, keep < 2^p-1,
  // and a carry to 2^p-1 yields the smallest normal.
  const Bits field = Bits(e_kept + F::kBias - 1) << F::kFracBits;
  return sign_bit | (field + Bits(keep));
}

// ---- Integer <-> float converters --------------------------------------------------------------

// Exact integer-to-float conversion for |v| < 2^precision (getexp results are at most ~1100).
template <class F>
typename F::Bits int_to_float(int v, EuCounters& counters) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  ++counters[EuCounters::int_to_float];
  if (v == 0) return 0;
  const Bits sign_bit = v < 0 ? Fm::kSign : Bits(0);
  const uint32_t mag = uint32_t(v < 0 ? -int64_t(v) : int64_t(v));
  const int msb = 31 - std::countl_zero(mag);
  const Bits frac = (Bits(mag) << (F::kFracBits - msb)) & Fm::kFracMask;
  return sign_bit | (Bits(F::kBias + msb) << F::kFracBits) | frac;
}

// scalef's clamp on floor(src1): 2^14 exceeds the span from the smallest binary64 subnormal to
// the overflow threshold (2^1024 / 2^-1074 = 2^2098), so clamped values still overflow or
// underflow to the same result as the unclamped ones.
constexpr int kScaleClampLog2 = 14;
constexpr int kScaleClamp = 1 << kScaleClampLog2;

// floor(x) as an integer clamped to [-kScaleClamp, kScaleClamp]; x finite.
template <class F>
int floor_to_int(const Operand<F>& x, EuCounters& counters) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  ++counters[EuCounters::float_to_int];
  if (x.is_zero()) return 0;
  if (x.exp >= kScaleClampLog2) return x.sign ? -kScaleClamp : kScaleClamp;
  const int sh = (Fm::kPrecision - 1) - x.exp;  // fraction bits below the binary point
  int64_t ip;
  bool frac;
  if (sh <= 0) {
    ip = int64_t(x.sig) << -sh;
    frac = false;
  } else if (sh >= F::kBits) {
    ip = 0;
    frac = true;  // x is non-zero and below 1
  } else {
    ip = int64_t(x.sig >> sh);
    frac = (x.sig & ((Bits(1) << sh) - 1)) != 0;
  }
  const int64_t n = x.sign ? -(ip + (frac ? 1 : 0)) : ip;
  return int(std::clamp<int64_t>(n, -kScaleClamp, kScaleClamp));
}

// ---- fma ----------------------------------------------------------------------------------------

template <class F>
typename F::Bits op_fma(typename F::Bits abits, typename F::Bits bbits, typename F::Bits cbits, EuCounters& counters) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  using Wide = typename F::Wide;
  constexpr int kP = Fm::kPrecision;
  // Guard bits below both aligned significands: the sum keeps a carry bit of headroom.
  constexpr int kGuard = Fm::kWideBits - 2 * kP - 2;
  Operand<F> a = preprocess<F>(abits), b = preprocess<F>(bbits), c = preprocess<F>(cbits);
  ++counters[EuCounters::preprocess];
  const bool sp = a.sign != b.sign;  // product sign

  // Special bypass: NaNs (first NaN of a, b, c, quieted), infinities, zero products.
  if (a.is_nan() || b.is_nan() || c.is_nan() || a.is_inf() || b.is_inf() || c.is_inf() || a.is_zero() || b.is_zero()) {
    ++counters[EuCounters::special_bypass];
    if (a.is_nan()) return quieted<F>(abits);
    if (b.is_nan()) return quieted<F>(bbits);
    if (c.is_nan()) return quieted<F>(cbits);
    if (a.is_inf() || b.is_inf()) {
      if (a.is_zero() || b.is_zero()) return Fm::kDefaultNan;  // inf * 0
      if (c.is_inf() && c.sign != sp) return Fm::kDefaultNan;  // inf - inf
      return (sp ? Fm::kSign : Bits(0)) | Fm::kInf;
    }
    if (c.is_inf()) return cbits;
    // Zero product: the sum is c exactly; two zeros sum to -0 only if both are negative.
    if (!c.is_zero()) return cbits;
    return (sp && c.sign) ? Fm::kSign : Bits(0);
  }
  normalise(a, counters);
  normalise(b, counters);
  normalise(c, counters);

  // Multiplier: exact product, value = prod * 2^(sp_exp), leading 1 moved to bit 2p-1+guard.
  ++counters[EuCounters::multiplier];
  Wide prod = Wide(a.sig) * Wide(b.sig);
  int prod_scale = a.exp + b.exp - 2 * (kP - 1);
  if ((prod >> (2 * kP - 1)) == 0) {
    prod <<= 1;
    --prod_scale;
  }
  prod <<= kGuard;
  prod_scale -= kGuard;
  if (c.is_zero()) return round_pack<F>(sp, prod, prod_scale, counters);

  // Aligner: the addend gets the same leading-bit position; the smaller one shifts right.
  ++counters[EuCounters::aligner];
  const Wide addend = Wide(c.sig) << (kP + kGuard);
  const int addend_scale = c.exp - (kP - 1) - kP - kGuard;
  const bool prod_bigger = prod_scale > addend_scale || (prod_scale == addend_scale && prod >= addend);
  const Wide big = prod_bigger ? prod : addend;
  const Wide small = prod_bigger ? addend : prod;
  const int big_scale = prod_bigger ? prod_scale : addend_scale;
  const int d = big_scale - (prod_bigger ? addend_scale : prod_scale);
  const bool big_sign = prod_bigger ? sp : c.sign;
  const Wide aligned = shift_right_sticky(small, d);

  // Adder: effective addition or subtraction; big >= aligned so the difference is non-negative.
  ++counters[EuCounters::adder];
  const Wide sum = sp == c.sign ? big + aligned : big - aligned;
  if (sum == 0) return 0;  // exact cancellation gives +0 when rounding to nearest
  return round_pack<F>(big_sign, sum, big_scale, counters);
}

// ---- getexp -------------------------------------------------------------------------------------

template <class F>
typename F::Bits op_getexp(typename F::Bits xbits, uint8_t imm, EuCounters& counters) {
  using Fm = Format<F>;
  TS_CHECK(imm <= 3, "getexp immediate must be 0..3");
  Operand<F> x = preprocess<F>(xbits);
  ++counters[EuCounters::preprocess];
  if (!x.is_finite_nonzero()) {
    ++counters[EuCounters::special_bypass];
    if (x.is_nan()) return quieted<F>(xbits);
    if (x.is_inf()) return Fm::kInf;  // +inf for either sign
    return Fm::kSign | Fm::kInf;      // log2(0) = -inf for either sign
  }
  ++counters[EuCounters::lzd];
  ++counters[EuCounters::normaliser];
  normalise(x, counters);
  ++counters[EuCounters::exponent_adjust];  // biased exponent minus bias, imm adjustment
  counters[EuCounters::mux] += 3;
  const int ue = x.exp;
  const bool first_frac_bit = (x.sig & Fm::kQuiet) != 0;  // the fraction's top bit
  int v = ue;
  switch (imm) {
    case 1: v = (ue + 1) >> 1; break;  // arithmetic shift (floor): exponent for sqrt
    case 2: v = ue + 1; break;
    case 3: v = first_frac_bit ? ue + 1 : ue; break;
    default: break;
  }
  return int_to_float<F>(v, counters);
}

// ---- getmant ------------------------------------------------------------------------------------

template <class F>
typename F::Bits op_getmant(typename F::Bits xbits, uint8_t imm, EuCounters& counters) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  TS_CHECK(imm <= 15, "getmant immediate must be 0..15 (interval | signctrl << 2)");
  const int interval = imm & 3;
  const int signctrl = (imm >> 2) & 3;
  Operand<F> x = preprocess<F>(xbits);
  ++counters[EuCounters::preprocess];
  // Sign control (x86 VGETMANT): bit 0 forces the sign positive, bit 1 turns negative sources
  // into the default NaN. -0 counts as not negative for bit 1 (as on x86), -inf does.
  const bool out_sign = (signctrl & 1) ? false : x.sign;
  const Bits sign_bit = out_sign ? Fm::kSign : Bits(0);
  if (!x.is_finite_nonzero()) {
    ++counters[EuCounters::special_bypass];
    if (x.is_nan()) return quieted<F>(xbits);
    if (x.is_inf() && x.sign && (signctrl & 2)) return Fm::kDefaultNan;
    return sign_bit | Fm::kOne;  // +-0, +-inf: 1.0 with the controlled sign
  }
  if (x.sign && (signctrl & 2)) {
    ++counters[EuCounters::special_bypass];
    return Fm::kDefaultNan;
  }
  ++counters[EuCounters::lzd];
  ++counters[EuCounters::normaliser];
  normalise(x, counters);
  counters[EuCounters::mux] += 3;
  const bool first_frac_bit = (x.sig & Fm::kQuiet) != 0;
  const bool odd_exponent = (x.exp & 1) != 0;  // two's complement: odd for negative odd too
  int biased = F::kBias;
  switch (interval) {
    case 1: biased = odd_exponent ? F::kBias - 1 : F::kBias; break;    // [1/2, 2)
    case 2: biased = F::kBias - 1; break;                              // [1/2, 1)
    case 3: biased = first_frac_bit ? F::kBias - 1 : F::kBias; break;  // [3/4, 3/2)
    default: break;                                                    // [1, 2)
  }
  return sign_bit | (Bits(biased) << F::kFracBits) | (x.sig & Fm::kFracMask);
}

// ---- scalef -------------------------------------------------------------------------------------

template <class F>
typename F::Bits op_scalef(typename F::Bits xbits, typename F::Bits ybits, EuCounters& counters) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  Operand<F> x = preprocess<F>(xbits);
  const Operand<F> y = preprocess<F>(ybits);
  ++counters[EuCounters::preprocess];
  // Specials as x86 VSCALEF (Intel SDM special-case table, confirmed by the oracle test): a
  // quiet-NaN src0 with src1 = +inf / -inf gives +inf / +0 (not the NaN); otherwise src0 NaN
  // wins, then src1 NaN; 0 * 2^+inf and inf * 2^-inf are invalid; inf and 0 pass through; and
  // 2^+-inf saturates a finite src0.
  if (!x.is_finite_nonzero() || y.is_nan() || y.is_inf()) {
    ++counters[EuCounters::special_bypass];
    if (x.cls == OperandClass::quiet_nan && y.is_inf()) return y.sign ? Bits(0) : Fm::kInf;
    if (x.is_nan()) return quieted<F>(xbits);
    if (y.is_nan()) return quieted<F>(ybits);
    const Bits sign_bit = x.sign ? Fm::kSign : Bits(0);
    if (x.is_inf()) return (y.is_inf() && y.sign) ? Fm::kDefaultNan : xbits;
    if (x.is_zero()) return (y.is_inf() && !y.sign) ? Fm::kDefaultNan : xbits;
    return y.sign ? sign_bit : (sign_bit | Fm::kInf);  // finite * 2^-inf, finite * 2^+inf
  }
  // float-to-int on src1, src0's significand straight to the LZD/shifter (no multiplier), the
  // adder sums src0's exponent and floor(src1), then range check and rounding.
  const int n = floor_to_int<F>(y, counters);
  counters[EuCounters::mux] += 2;
  normalise(x, counters);
  ++counters[EuCounters::adder];
  return round_pack<F>(x.sign, typename F::Wide(x.sig), x.exp - (Fm::kPrecision - 1) + n, counters);
}

// ---- getexpdiff and getmantdiv ------------------------------------------------------------------

// The exponent term of a getexp-style result: finite, or +inf (source inf) / -inf (source 0).
struct ExponentTerm {
  int value;
  int inf;  // 0 finite, +1 / -1 infinite
};

template <class F>
ExponentTerm exponent_term(const Operand<F>& x) {
  if (x.is_inf()) return {0, 1};
  if (x.is_zero()) return {0, -1};
  return {x.exp, 0};
}

// The significand as getmant(x, 0, *) sees it: 1.0 for zeros and infinities.
template <class F>
typename F::Bits mantissa_of(const Operand<F>& x) {
  return x.is_finite_nonzero() ? x.sig : Format<F>::kHidden;
}

template <class F>
typename F::Bits op_getexpdiff(typename F::Bits abits, typename F::Bits bbits, EuCounters& counters) {
  using Fm = Format<F>;
  Operand<F> a = preprocess<F>(abits), b = preprocess<F>(bbits);
  ++counters[EuCounters::preprocess];
  // Specials follow getexp(a) - getexp(b) in IEEE arithmetic, so that
  // scalef(getmantdiv(a, b) / getmant(b), getexpdiff(a, b)) gives a / b's special results.
  if (a.is_nan() || b.is_nan() || !a.is_finite_nonzero() || !b.is_finite_nonzero()) {
    ++counters[EuCounters::special_bypass];
    if (a.is_nan()) return quieted<F>(abits);
    if (b.is_nan()) return quieted<F>(bbits);
    const ExponentTerm ea = exponent_term(a), eb = exponent_term(b);
    if (ea.inf != 0 && ea.inf == eb.inf) return Fm::kDefaultNan;  // inf - inf
    const int dir = ea.inf != 0 ? ea.inf : -eb.inf;
    return (dir < 0 ? Fm::kSign : typename F::Bits(0)) | Fm::kInf;
  }
  ++counters[EuCounters::lzd];
  ++counters[EuCounters::normaliser];
  normalise(a, counters);
  normalise(b, counters);
  ++counters[EuCounters::adder];  // significand compare: mant(a) - mant(b)
  ++counters[EuCounters::exponent_adjust];
  counters[EuCounters::mux] += 3;
  const int borrow = mantissa_of(a) < mantissa_of(b) ? 1 : 0;
  return int_to_float<F>(a.exp - b.exp - borrow, counters);
}

template <class F>
typename F::Bits op_getmantdiv(typename F::Bits abits, typename F::Bits bbits, EuCounters& counters) {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  Operand<F> a = preprocess<F>(abits), b = preprocess<F>(bbits);
  ++counters[EuCounters::preprocess];
  if (a.is_nan() || b.is_nan()) {
    ++counters[EuCounters::special_bypass];
    return a.is_nan() ? quieted<F>(abits) : quieted<F>(bbits);
  }
  ++counters[EuCounters::lzd];
  ++counters[EuCounters::normaliser];
  normalise(a, counters);
  normalise(b, counters);
  ++counters[EuCounters::adder];  // significand compare
  counters[EuCounters::mux] += 3;
  const Bits ma = mantissa_of(a);
  const int biased = ma < mantissa_of(b) ? F::kBias + 1 : F::kBias;
  return (a.sign ? Fm::kSign : Bits(0)) | (Bits(biased) << F::kFracBits) | (ma & Fm::kFracMask);
}

}  // namespace

template <class F>
typename F::Bits execute(Opcode op, typename F::Bits a, typename F::Bits b, typename F::Bits c, uint8_t imm,
                         EuCounters& counters) {
  using Fm = Format<F>;
  ++counters[op];
  switch (op) {
    case Opcode::fma: return op_fma<F>(a, b, c, counters);
    case Opcode::add: return op_fma<F>(a, Fm::kOne, b, counters);
    case Opcode::mul: return op_fma<F>(a, b, Fm::kSign, counters);
    case Opcode::getexp: return op_getexp<F>(a, imm, counters);
    case Opcode::getmant: return op_getmant<F>(a, imm, counters);
    case Opcode::scalef: return op_scalef<F>(a, b, counters);
    case Opcode::getexpdiff: return op_getexpdiff<F>(a, b, counters);
    case Opcode::getmantdiv: return op_getmantdiv<F>(a, b, counters);
  }
  TS_CHECK(false, "unknown execution-unit opcode");
  return 0;
}

template <class F>
void execute16(Opcode op, const Lanes<F>& a, const Lanes<F>& b, const Lanes<F>& c, uint8_t imm, Lanes<F>& out,
               uint16_t mask, EuCounters& counters) {
  ++counters[EuCounters::simd_issues];
  const int active = std::popcount(mask);
  counters[EuCounters::simd_lanes_active] += uint64_t(active);
  counters[EuCounters::simd_lanes_idle] += uint64_t(kSimdWidth - active);
  for (int i = 0; i < kSimdWidth; ++i) {
    if ((mask >> i) & 1) out[size_t(i)] = execute<F>(op, a[size_t(i)], b[size_t(i)], c[size_t(i)], imm, counters);
  }
}

template uint32_t execute<Binary32>(Opcode, uint32_t, uint32_t, uint32_t, uint8_t, EuCounters&);
template uint64_t execute<Binary64>(Opcode, uint64_t, uint64_t, uint64_t, uint8_t, EuCounters&);
template void execute16<Binary32>(Opcode, const Lanes<Binary32>&, const Lanes<Binary32>&, const Lanes<Binary32>&,
                                  uint8_t, Lanes<Binary32>&, uint16_t, EuCounters&);
template void execute16<Binary64>(Opcode, const Lanes<Binary64>&, const Lanes<Binary64>&, const Lanes<Binary64>&,
                                  uint8_t, Lanes<Binary64>&, uint16_t, EuCounters&);

namespace {
template <class F>
typename F::Native run(Opcode op, typename F::Native a, typename F::Native b, typename F::Native c, int imm,
                       EuCounters& counters) {
  return from_bits<F>(execute<F>(op, to_bits<F>(a), to_bits<F>(b), to_bits<F>(c), uint8_t(imm), counters));
}
}  // namespace

float fma(float a, float b, float c, EuCounters& k) { return run<Binary32>(Opcode::fma, a, b, c, 0, k); }
double fma(double a, double b, double c, EuCounters& k) { return run<Binary64>(Opcode::fma, a, b, c, 0, k); }
float add(float a, float b, EuCounters& k) { return run<Binary32>(Opcode::add, a, b, 0.0f, 0, k); }
double add(double a, double b, EuCounters& k) { return run<Binary64>(Opcode::add, a, b, 0.0, 0, k); }
float mul(float a, float b, EuCounters& k) { return run<Binary32>(Opcode::mul, a, b, 0.0f, 0, k); }
double mul(double a, double b, EuCounters& k) { return run<Binary64>(Opcode::mul, a, b, 0.0, 0, k); }
float getexp(float x, int imm, EuCounters& k) { return run<Binary32>(Opcode::getexp, x, 0.0f, 0.0f, imm, k); }
double getexp(double x, int imm, EuCounters& k) { return run<Binary64>(Opcode::getexp, x, 0.0, 0.0, imm, k); }
float getmant(float x, int interval, int signctrl, EuCounters& k) {
  TS_CHECK(interval >= 0 && interval <= 3 && signctrl >= 0 && signctrl <= 3, "getmant interval and signctrl are 0..3");
  return run<Binary32>(Opcode::getmant, x, 0.0f, 0.0f, getmant_imm(interval, signctrl), k);
}
double getmant(double x, int interval, int signctrl, EuCounters& k) {
  TS_CHECK(interval >= 0 && interval <= 3 && signctrl >= 0 && signctrl <= 3, "getmant interval and signctrl are 0..3");
  return run<Binary64>(Opcode::getmant, x, 0.0, 0.0, getmant_imm(interval, signctrl), k);
}
float scalef(float x, float y, EuCounters& k) { return run<Binary32>(Opcode::scalef, x, y, 0.0f, 0, k); }
double scalef(double x, double y, EuCounters& k) { return run<Binary64>(Opcode::scalef, x, y, 0.0, 0, k); }
float getexpdiff(float a, float b, EuCounters& k) { return run<Binary32>(Opcode::getexpdiff, a, b, 0.0f, 0, k); }
double getexpdiff(double a, double b, EuCounters& k) { return run<Binary64>(Opcode::getexpdiff, a, b, 0.0, 0, k); }
float getmantdiv(float a, float b, EuCounters& k) { return run<Binary32>(Opcode::getmantdiv, a, b, 0.0f, 0, k); }
double getmantdiv(double a, double b, EuCounters& k) { return run<Binary64>(Opcode::getmantdiv, a, b, 0.0, 0, k); }

}  // namespace tessera::eu
