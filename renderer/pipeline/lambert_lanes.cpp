// The Lambert fragment program's lane batches (LambertFragmentShader::run_quads) compiled per
// SIMD target and dispatched at run time, as the raster, sampler and EU lane files are: the
// program's own loops (gathering the batch, normalisation, lighting, fog, tone mapping) are
// plain loops over the 16 lanes in shaders/lambert_lanes-inl.h, which the compiler vectorises
// for the target of each pass, so AVX-512 runs a batch as one vector instead of two AVX2 ones.
// The program's EU library calls, texture filter and level of detail are this target's own
// code too (eu_lanes-inl.h, sampler_lanes-inl.h): one dispatch per batch, none per call.
// Every target gives the same bits (the float operations are per lane, in the scalar order,
// without contraction).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pipeline/lambert_lanes.cpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "eu/eu_math_coefficients.h"
#include "eu/eu_math_coefficients_dw.h"
#include "shaders/lambert.h"
#include "tessera/eu_shader_math.h"
#include "tessera/image.h"
#include "tessera/sampler.h"

#include "core/highway.h"
#include "texture/sampler_lanes.h"

HWY_BEFORE_NAMESPACE();
// This target's EU lane code, which the fragment program below calls without the dispatch.
namespace tessera::eu_lanes {
namespace HWY_NAMESPACE {
#include "eu/eu_lanes-inl.h"
}  // namespace HWY_NAMESPACE
}  // namespace tessera::eu_lanes
// This target's texture filter and level of detail, which the fragment program calls without
// the dispatch too.
namespace tessera::sampler_lanes {
namespace HWY_NAMESPACE {
#include "texture/sampler_lanes-inl.h"
}  // namespace HWY_NAMESPACE
}  // namespace tessera::sampler_lanes
namespace tessera::shaders {
namespace HWY_NAMESPACE {
#include "shaders/lambert_lanes-inl.h"
}  // namespace HWY_NAMESPACE
}  // namespace tessera::shaders
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::shaders {
HWY_EXPORT(run_quads);

void LambertFragmentShader::run_quads(const Uniforms& u, const float (*varyings)[LambertVertexShader::kVaryings],
                                      const unsigned* live, int quads, glm::vec3* out, Counters& counters) {
  HWY_DYNAMIC_DISPATCH(run_quads)(u, varyings, live, quads, out, counters);
}
}  // namespace tessera::shaders
#endif  // HWY_ONCE
