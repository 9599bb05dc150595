// eu_fast's binary32 functions on batches of lanes: the branch-free algorithms (eu_math_impl.h)
// instantiated on Highway vectors (eu_lane_isa.h), one vector instruction per modelled EU
// instruction for all lanes. getexp, getmant, scalef, getexpdiff and getmantdiv take their
// vector fast path for normal operands and normal results, which is what shading feeds them;
// any lane outside it (zero, subnormal, infinity, NaN, a result that over- or underflows) and
// any NaN result is evaluated again by the scalar eu_fast function, so each lane is bit for bit
// what eu_fast (and so the datapath model) returns.
//
// Compiled once per Highway target (core/highway.h: AVX-512, 16 lanes, and AVX2, 8 lanes, on
// x86-64-v3) and dispatched at run time. The algorithms are instantiated inside each target's
// namespace from the same source (eu_math_kernels_body.h, eu_math_algo_body.h): templates defined
// outside a target's region do not carry its instruction set and could not inline its vector
// operations (docs/eu.md "Lane batches").
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "eu/eu_lanes.cpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "eu/eu_math_coefficients.h"
#include "eu/eu_math_coefficients_dw.h"
#include "tessera/eu_shader_math.h"

#include "core/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::eu_lanes {
namespace HWY_NAMESPACE {
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

// Runs `algo` on n lanes a vector at a time (a partial last vector padded with 1), then
// re-evaluates the lanes that left the fast path with the scalar function.
template <class Algo, class Scalar>
void run_lanes(const float* x, const float* y, float* out, int n, Algo algo, Scalar scalar) {
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
    eu::LaneIsa<Lanes> k;
    const Lanes r = algo(Lanes(vx), Lanes(vy), k);
    if (m == step) {
      hn::StoreU(r.v, d, out + i);
    } else {
      hn::Store(r.v, d, rs);
      for (int j = 0; j < m; ++j) out[i + j] = rs[j];
    }
    const auto again = hn::Or(k.slow, hn::IsNaN(r.v));
    if (hn::AllFalse(d, again)) continue;
    hn::Store(hn::VecFromMask(DI(), hn::RebindMask(DI(), again)), DI(), redo);
    for (int j = 0; j < m; ++j) {
      if (redo[j]) out[i + j] = scalar(x[i + j], y ? y[i + j] : 1.0f);
    }
  }
}

// clang-format off
#define TESSERA_EU_LANES1(name)                                                                   \
  void name##_lanes(const float* x, float* out, int n) {                                          \
    run_lanes(x, nullptr, out, n, [](Lanes a, Lanes, eu::LaneIsa<Lanes>& k) { return eu::algo::name##_bf(a, k); }, \
              [](float a, float) { return eu_fast::name(a); });                                  \
  }
#define TESSERA_EU_LANES2(name)                                                                   \
  void name##_lanes(const float* x, const float* y, float* out, int n) {                          \
    run_lanes(x, y, out, n, [](Lanes a, Lanes b, eu::LaneIsa<Lanes>& k) { return eu::algo::name##_bf(a, b, k); }, \
              [](float a, float b) { return eu_fast::name(a, b); });                             \
  }
// clang-format on
TESSERA_EU_LANES1(log2)
TESSERA_EU_LANES1(exp)
TESSERA_EU_LANES1(sqrt)
TESSERA_EU_LANES1(rsqrt)
TESSERA_EU_LANES2(pow)
TESSERA_EU_LANES2(div)
#undef TESSERA_EU_LANES1
#undef TESSERA_EU_LANES2

int host_lanes() { return int(hn::Lanes(DF())); }

}  // namespace HWY_NAMESPACE
}  // namespace tessera::eu_lanes
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::eu_lanes {
HWY_EXPORT(log2_lanes);
HWY_EXPORT(exp_lanes);
HWY_EXPORT(sqrt_lanes);
HWY_EXPORT(rsqrt_lanes);
HWY_EXPORT(pow_lanes);
HWY_EXPORT(div_lanes);
HWY_EXPORT(host_lanes);
}  // namespace tessera::eu_lanes

namespace tessera::eu_fast {
using namespace eu_lanes;  // HWY_DYNAMIC_DISPATCH names the dispatch tables unqualified
void log2_lanes(const float* x, float* out, int n) { HWY_DYNAMIC_DISPATCH(log2_lanes)(x, out, n); }
void exp_lanes(const float* x, float* out, int n) { HWY_DYNAMIC_DISPATCH(exp_lanes)(x, out, n); }
void sqrt_lanes(const float* x, float* out, int n) { HWY_DYNAMIC_DISPATCH(sqrt_lanes)(x, out, n); }
void rsqrt_lanes(const float* x, float* out, int n) { HWY_DYNAMIC_DISPATCH(rsqrt_lanes)(x, out, n); }
void pow_lanes(const float* x, const float* y, float* out, int n) { HWY_DYNAMIC_DISPATCH(pow_lanes)(x, y, out, n); }
void div_lanes(const float* x, const float* y, float* out, int n) { HWY_DYNAMIC_DISPATCH(div_lanes)(x, y, out, n); }
int host_lanes() { return HWY_DYNAMIC_DISPATCH(host_lanes)(); }
}  // namespace tessera::eu_fast
#endif  // HWY_ONCE
