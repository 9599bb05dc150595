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
// namespace from the same source (eu_lanes-inl.h, which includes eu_math_kernels_body.h and
// eu_math_algo_body.h): templates defined outside a target's region do not carry its instruction
// set and could not inline its vector operations (docs/eu.md "Lane batches"). rsqrt and div, the
// fragment program's hot calls, run as whole-vector kernels with their exponent bookkeeping in
// integers (eu_lanes-inl.h), the same floating-point operations and results.
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
#include "eu/eu_lanes-inl.h"

// clang-format off
#define TESSERA_EU_LANES1(name)                                                                   \
  void name##_lanes(const float* x, float* out, int n) {                                          \
    run_lanes(x, nullptr, out, n,                                                                 \
              [](VF a, VF b, Mask& slow) {                                                        \
                return algorithm_lanes(a, b, slow, [](Lanes u, Lanes, eu::LaneIsa<Lanes>& k) { return eu::algo::name##_bf(u, k); }); \
              },                                                                                  \
              [](float a, float) { return eu_fast::name(a); });                                  \
  }
#define TESSERA_EU_LANES2(name)                                                                   \
  void name##_lanes(const float* x, const float* y, float* out, int n) {                          \
    run_lanes(x, y, out, n,                                                                       \
              [](VF a, VF b, Mask& slow) {                                                        \
                return algorithm_lanes(a, b, slow, [](Lanes u, Lanes v, eu::LaneIsa<Lanes>& k) { return eu::algo::name##_bf(u, v, k); }); \
              },                                                                                  \
              [](float a, float b) { return eu_fast::name(a, b); });                             \
  }
// clang-format on
TESSERA_EU_LANES1(log2)
TESSERA_EU_LANES1(exp)
TESSERA_EU_LANES1(sqrt)
TESSERA_EU_LANES2(pow)
#undef TESSERA_EU_LANES1
#undef TESSERA_EU_LANES2

// rsqrt and div through their whole-vector kernels (eu_lanes-inl.h), bit for bit the algorithms'.
void rsqrt_lanes(const float* x, float* out, int n) {
  run_lanes(x, nullptr, out, n, [](VF a, VF, Mask& slow) { return rsqrt_vector(a, slow); },
            [](float a, float) { return eu_fast::rsqrt(a); });
}
void div_lanes(const float* x, const float* y, float* out, int n) {
  run_lanes(x, y, out, n, [](VF a, VF b, Mask& slow) { return div_vector(a, b, slow); },
            [](float a, float b) { return eu_fast::div(a, b); });
}

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
