// The EU library on one SIMD target's Highway vectors: the lane type (Lanes), this target's copy
// of the branch-free algorithms, the batch loop (run_lanes), and whole-vector kernels of the two
// functions shading calls most (rsqrt_vector, div_vector) for the fragment program to inline.
//
// No include guard and no namespace: included inside namespace tessera::eu_lanes::HWY_NAMESPACE,
// once per target, by eu_lanes.cpp (the dispatched eu_fast::*_lanes) and by
// pipeline/lambert_lanes.cpp (the fragment program calls its own target's kernels without a
// dispatch per call). Include first: <cstdint>, <type_traits>, eu/eu_math_coefficients.h,
// eu/eu_math_coefficients_dw.h, tessera/eu_shader_math.h, core/highway.h. Private to renderer.

namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using VU = hn::Vec<DU>;

// One binary32 value per lane; the opcodes as eu_lane_isa.h calls them.
struct Lanes {
  VF v;
  using Mask = hn::Mask<DF>;

  Lanes(VF x) : v(x) {}
  Lanes(float x) : v(hn::Set(DF(), x)) {}
  Lanes(double x) : v(hn::Set(DF(), float(x))) {}  // coefficient tables: as T(c) rounds them
  Lanes(int x) : v(hn::Set(DF(), float(x))) {}

  static Mask no_lanes() { return hn::FirstN(DF(), 0); }

  static Lanes fma(Lanes a, Lanes b, Lanes c) { return hn::MulAdd(a.v, b.v, c.v); }
  static Lanes add(Lanes a, Lanes b) { return hn::Add(a.v, b.v); }
  static Lanes mul(Lanes a, Lanes b) { return hn::Mul(a.v, b.v); }

  // Fields of a binary32 value.
  static VU bits(Lanes x) { return hn::BitCast(DU(), x.v); }
  static VU sign(VU b) { return hn::And(b, hn::Set(DU(), 0x80000000u)); }
  static VI frac(VU b) { return hn::BitCast(DI(), hn::And(b, hn::Set(DU(), 0x007FFFFFu))); }
  static VI biased(VU b) { return hn::BitCast(DI(), hn::ShiftRight<23>(hn::And(b, hn::Set(DU(), 0x7FFFFFFFu)))); }
  static VI top(VU b) { return hn::BitCast(DI(), hn::And(hn::ShiftRight<22>(b), hn::Set(DU(), 1u))); }
  // Normal operands: biased exponent 1..254 (not zero, subnormal, infinite or NaN).
  static Mask normal(VU b) {
    const VI e = biased(b);
    return hn::RebindMask(DF(), hn::And(hn::Gt(e, hn::Zero(DI())), hn::Lt(e, hn::Set(DI(), 255))));
  }
  static Lanes from_bits(VU s, VI biased_exponent, VI f) {
    const VU e = hn::ShiftLeft<23>(hn::BitCast(DU(), biased_exponent));
    return Lanes(hn::BitCast(DF(), hn::Or(hn::Or(s, e), hn::BitCast(DU(), f))));
  }

  static Lanes getexp(Lanes x, int imm, Mask& slow) {
    const VU b = bits(x);
    slow = hn::Or(slow, hn::Not(normal(b)));
    const VI ue = hn::Sub(biased(b), hn::Set(DI(), 127));
    VI r = ue;
    switch (imm) {
      case 1: r = hn::ShiftRight<1>(hn::Add(ue, hn::Set(DI(), 1))); break;  // arithmetic shift
      case 2: r = hn::Add(ue, hn::Set(DI(), 1)); break;
      case 3: r = hn::Add(ue, top(b)); break;
      default: break;
    }
    return Lanes(hn::ConvertTo(DF(), r));
  }

  static Lanes getmant(Lanes x, int interval, int signctrl, Mask& slow) {
    const VU b = bits(x);
    const VU s = sign(b);
    Mask out = hn::Not(normal(b));
    if (signctrl & 2) out = hn::Or(out, hn::RebindMask(DF(), hn::Ne(s, hn::Zero(DU()))));
    slow = hn::Or(slow, out);
    const VI ue = hn::Sub(biased(b), hn::Set(DI(), 127));
    VI e = hn::Set(DI(), 127);
    switch (interval) {
      case 1: e = hn::Sub(e, hn::And(ue, hn::Set(DI(), 1))); break;
      case 2: e = hn::Set(DI(), 126); break;
      case 3: e = hn::Sub(e, top(b)); break;
      default: break;
    }
    return from_bits((signctrl & 1) ? hn::Zero(DU()) : s, e, frac(b));
  }

  // x * 2^floor(y) for normal x, |y| < 2^14 and a normal result: the exponent field replaced.
  static Lanes scalef(Lanes x, Lanes y, Mask& slow) {
    const VU b = bits(x);
    const Mask y_ok = hn::Lt(hn::Abs(y.v), hn::Set(DF(), 16384.0f));  // false for NaN too
    const VI n = hn::ConvertTo(DI(), hn::Floor(hn::IfThenElseZero(y_ok, y.v)));
    const VI t = hn::Add(hn::Sub(biased(b), hn::Set(DI(), 127)), n);
    const Mask t_ok = hn::RebindMask(DF(), hn::And(hn::Gt(t, hn::Set(DI(), -127)), hn::Lt(t, hn::Set(DI(), 128))));
    slow = hn::Or(slow, hn::Not(hn::And(hn::And(normal(b), y_ok), t_ok)));
    const VI e = hn::IfThenElseZero(hn::RebindMask(DI(), t_ok), hn::Add(t, hn::Set(DI(), 127)));
    return from_bits(sign(b), e, frac(b));
  }

  static Lanes getexpdiff(Lanes a, Lanes b, Mask& slow) {
    const VU ab = bits(a), bb = bits(b);
    slow = hn::Or(slow, hn::Not(hn::And(normal(ab), normal(bb))));
    const VI borrow = hn::VecFromMask(DI(), hn::Lt(frac(ab), frac(bb)));  // -1 where a's significand is smaller
    return Lanes(hn::ConvertTo(DF(), hn::Add(hn::Sub(biased(ab), biased(bb)), borrow)));
  }

  static Lanes getmantdiv(Lanes a, Lanes b, Mask& slow) {
    const VU ab = bits(a), bb = bits(b);
    slow = hn::Or(slow, hn::Not(hn::And(normal(ab), normal(bb))));
    const VI e = hn::Sub(hn::Set(DI(), 127), hn::VecFromMask(DI(), hn::Lt(frac(ab), frac(bb))));
    return from_bits(sign(ab), e, frac(ab));
  }
};

// This target's copy of the lane ISA, the kernels and the algorithms.
namespace eu {
namespace coeffs = ::tessera::eu::coeffs;
#include "eu/eu_lane_isa.h"
namespace kernels {
#include "eu/eu_math_kernels_body.h"
template <>
struct Consts<Lanes> : Consts<float> {};
}  // namespace kernels
namespace algo {
#include "eu/eu_math_algo_body.h"
}  // namespace algo
}  // namespace eu

using Mask = Lanes::Mask;

// Runs kernel(x, y, slow) -> result on n lanes a vector at a time (a partial last vector padded
// with 1), then evaluates the lanes the kernel marked slow again with the scalar function.
template <class Kernel, class Scalar>
HWY_INLINE void run_lanes(const float* x, const float* y, float* out, int n, Kernel kernel, Scalar scalar) {
  const DF d;
  const int step = int(hn::Lanes(d));
  HWY_ALIGN float xs[hn::MaxLanes(d)], ys[hn::MaxLanes(d)], rs[hn::MaxLanes(d)];
  HWY_ALIGN int32_t redo[hn::MaxLanes(d)];
  for (int i = 0; i < n; i += step) {
    const int m = n - i < step ? n - i : step;
    VF vx, vy;
    if (m == step) {
      vx = hn::LoadU(d, x + i);
      vy = y ? hn::LoadU(d, y + i) : hn::Set(d, 1.0f);
    } else {
      for (int j = 0; j < step; ++j) {
        xs[j] = j < m ? x[i + j] : 1.0f;
        ys[j] = j < m && y ? y[i + j] : 1.0f;
      }
      vx = hn::Load(d, xs);
      vy = hn::Load(d, ys);
    }
    Mask again = Lanes::no_lanes();
    const VF r = kernel(vx, vy, again);
    if (m == step) {
      hn::StoreU(r, d, out + i);
    } else {
      hn::Store(r, d, rs);
      for (int j = 0; j < m; ++j) out[i + j] = rs[j];
    }
    if (hn::AllFalse(d, again)) continue;
    hn::Store(hn::VecFromMask(DI(), hn::RebindMask(DI(), again)), DI(), redo);
    for (int j = 0; j < m; ++j) {
      if (redo[j]) out[i + j] = scalar(x[i + j], y ? y[i + j] : 1.0f);
    }
  }
}

// The same on whole vectors over lanes [0, n) of arrays that are readable and writable up to n
// rounded up to whole vectors (the fragment program's 16-lane arrays, whose lanes past n hold
// ordinary values): no padding copies. Lanes past n are computed from what they hold and never
// evaluated again; lanes below n that left the fast path are.
template <class Kernel, class Scalar>
HWY_INLINE void run_whole_vectors(const float* x, const float* y, float* out, int n, Kernel kernel, Scalar scalar) {
  const DF d;
  const int step = int(hn::Lanes(d));
  HWY_ALIGN int32_t redo[hn::MaxLanes(d)];
  for (int i = 0; i < n; i += step) {
    Mask again = Lanes::no_lanes();
    const VF r = kernel(hn::LoadU(d, x + i), y ? hn::LoadU(d, y + i) : hn::Set(d, 1.0f), again);
    hn::StoreU(r, d, out + i);
    if (hn::AllFalse(d, again)) continue;
    hn::Store(hn::VecFromMask(DI(), hn::RebindMask(DI(), again)), DI(), redo);
    const int m = n - i < step ? n - i : step;
    for (int j = 0; j < m; ++j) {
      if (redo[j]) out[i + j] = scalar(x[i + j], y ? y[i + j] : 1.0f);
    }
  }
}

// An algorithm of eu_math_impl.h as a run_lanes kernel: the lanes its operations sent off the
// fast path and the lanes with a NaN result (whose payload the scalar function sets) are slow.
template <class Algo>
HWY_INLINE VF algorithm_lanes(VF x, VF y, Mask& slow, Algo algo) {
  eu::LaneIsa<Lanes> k;
  const Lanes r = algo(Lanes(x), Lanes(y), k);
  slow = hn::Or(k.slow, hn::IsNaN(r.v));
  return r.v;
}

// eu::algo::rsqrt_bf for the lanes the vector path keeps, the positive normal x (getmant with
// sign control 2 sends negative x to the scalar fallback, getexp zeros, subnormals, infinities
// and NaN), with its exponent bookkeeping in integers and the same floating-point operations
// (kernels::rsqrt_core on the same m). For such x with unbiased exponent E0: getmant(x, 1, 2) is
// x's fraction under exponent 127 - (E0 & 1); getexp(x, 1) is E = (E0 + 1) >> 1 (|E| <= 64);
// the scale fma(E, -1, h) floors to -E because the core's h lies in (0.35, 0.71]; and the core's
// y lies in (0.70, 1.42], so scalef(y, -E) is y with E taken off its exponent field, never out
// of range and never NaN. (The ranges of h and y are checked for every m in [1/2, 2) by
// eu.EuLanes.RsqrtVectorMatchesScalarOnEveryMantissa.)
HWY_INLINE VF rsqrt_vector(VF x, Mask& slow) {
  const DI di;
  const VI b = hn::BitCast(di, x);
  // Positive normal: 0x00800000 <= b < 0x7F800000 as a signed integer (a set sign is negative).
  const auto fast = hn::And(hn::Gt(b, hn::Set(di, 0x007FFFFF)), hn::Lt(b, hn::Set(di, 0x7F800000)));
  slow = hn::Or(slow, hn::Not(hn::RebindMask(DF(), fast)));
  const VI e0 = hn::Sub(hn::ShiftRight<23>(b), hn::Set(di, 127));
  const VI m_exponent = hn::Sub(hn::Set(di, 127), hn::And(e0, hn::Set(di, 1)));
  const Lanes m(hn::BitCast(DF(), hn::Or(hn::And(b, hn::Set(di, 0x007FFFFF)), hn::ShiftLeft<23>(m_exponent))));
  eu::LaneIsa<Lanes> k;
  const auto r = eu::kernels::rsqrt_core(m, eu::mul(m, Lanes(-1.0f), k), k);
  const VI e = hn::ShiftRight<1>(hn::Add(e0, hn::Set(di, 1)));  // arithmetic shift: floor
  return hn::BitCast(DF(), hn::Sub(hn::BitCast(di, r.y.v), hn::ShiftLeft<23>(e)));
}

// eu::algo::div_bf with its exponent bookkeeping in integers: getmantdiv, getmant(y, 0, 0) and
// getexpdiff on the fields directly, and scalef(q, n) for the integer n it converts and floors
// (|n| <= 254, exact) as an exponent-field sum with scalef's range test. The same lanes leave
// the fast path (either operand not normal, q not normal, the result out of the normal range),
// the same floating-point operations (kernels::div_core) run, and a result kept is normal, so
// the NaN test is not needed.
HWY_INLINE VF div_vector(VF x, VF y, Mask& slow) {
  const DI di;
  const VI xb = hn::BitCast(di, x), yb = hn::BitCast(di, y);
  const VI magnitude = hn::Set(di, 0x7FFFFFFF), fraction = hn::Set(di, 0x007FFFFF);
  const VI sign_and_fraction = hn::Set(di, int32_t(0x807FFFFFu));
  const VI ex = hn::ShiftRight<23>(hn::And(xb, magnitude)), ey = hn::ShiftRight<23>(hn::And(yb, magnitude));
  const auto normal = [&](VI biased) {
    return hn::And(hn::Gt(biased, hn::Zero(di)), hn::Lt(biased, hn::Set(di, 255)));
  };
  const VI borrow =
      hn::VecFromMask(di, hn::Lt(hn::And(xb, fraction), hn::And(yb, fraction)));  // -1: x's significand smaller
  const Lanes a(
      hn::BitCast(DF(), hn::Or(hn::And(xb, sign_and_fraction), hn::ShiftLeft<23>(hn::Sub(hn::Set(di, 127), borrow)))));
  const Lanes bm(hn::BitCast(DF(), hn::Or(hn::And(yb, sign_and_fraction), hn::Set(di, 127 << 23))));
  eu::LaneIsa<Lanes> k;
  const VI qb = hn::BitCast(di, eu::kernels::div_core(a, bm, k).v);
  const VI eq = hn::ShiftRight<23>(hn::And(qb, magnitude));
  const VI t = hn::Add(eq, hn::Add(hn::Sub(ex, ey), borrow));  // the result's biased exponent
  const auto kept = hn::And(hn::And(normal(ex), normal(ey)), hn::And(normal(eq), normal(t)));
  slow = hn::Or(slow, hn::Not(hn::RebindMask(DF(), kept)));
  return hn::BitCast(DF(), hn::Or(hn::And(qb, sign_and_fraction), hn::ShiftLeft<23>(t)));
}

// This target's rsqrt lanes without the dispatch, for arrays of whole vectors
// (run_whole_vectors); uncounted like eu_fast::*_lanes.
HWY_INLINE void rsqrt_whole_vectors(const float* x, float* out, int n) {
  run_whole_vectors(
      x, nullptr, out, n, [](VF a, VF, Mask& slow) { return rsqrt_vector(a, slow); },
      [](float a, float) { return eu_fast::rsqrt(a); });
}

// This target's eu_fast::*_lanes (defined in eu_lanes.cpp), callable from another file's code
// for the same target without the dispatch.
void log2_lanes(const float* x, float* out, int n);
void exp_lanes(const float* x, float* out, int n);
void sqrt_lanes(const float* x, float* out, int n);
void rsqrt_lanes(const float* x, float* out, int n);
void pow_lanes(const float* x, const float* y, float* out, int n);
void div_lanes(const float* x, const float* y, float* out, int n);
