// The texture unit's default filter (trilinear, repeat addressing, sRGB texels) on batches of
// lanes in Highway vectors: the fragment program's lanes sample together, as the modelled EU
// issues one sample message for all of its lanes. Each lane performs the scalar filter's float
// operations (tessera/sampler.h: sample_trilinear, sample_bilinear) in the same order, without
// contraction (the build compiles with -ffp-contract=off and the code below names every
// multiply and add), so each lane is bit for bit the scalar result:
// - texel addresses are computed in 32-bit lanes and the four texels of a bilinear footprint
//   gathered (GatherIndex), then each colour channel's byte indexes the sRGB decode table by
//   a second gather (the table is the one decode_srgb8 reads, so the decode is exact);
// - a lane's two mip levels may differ from its neighbours': the vector walks the levels its
//   lanes need (usually one or two, a quad's lanes share a level of detail), filters every lane
//   on each (the addresses stay in range on any level, every coordinate being reduced), and
//   keeps each lane's own levels by selects.
// The level of detail (texture_lod per quad) runs in lanes too, its log2f as glibc computes it
// (the table and polynomial in double lanes) where that matches this process's C library.
// Like eu_lanes.cpp, compiled per target (AVX-512 and AVX2 on x86-64-v3) and dispatched at run
// time; the per-target code is in sampler_lanes-inl.h, which the fragment program's lanes
// (pipeline/lambert_lanes.cpp) include too, to sample without a dispatch per call.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "texture/sampler_lanes.cpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tessera/image.h"
#include "tessera/sampler.h"

#include "core/highway.h"
#include "texture/sampler_lanes.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::sampler_lanes {
namespace HWY_NAMESPACE {
#include "texture/sampler_lanes-inl.h"

// log2f of n positive normal floats (the unit test's entry).
void log2_normal_batch(const float* x, int n, float* out) {
  const DF d;
  const int step = int(hn::Lanes(d));
  for (int i = 0; i < n; i += step) {
    const hn::Mask<DF> live = hn::FirstN(d, size_t(n - i));
    const VF v = hn::IfThenElse(live, hn::MaskedLoad(live, d, x + i), hn::Set(d, 1.0f));
    hn::BlendedStore(log2_normal(v), live, d, out + i);
  }
}

void lod_lanes_log2(const float* dudx, const float* dvdx, const float* dudy, const float* dvdy, int n, float width,
                    float height, float max_lod, float* out) {
  lod<LodLog2::lanes>(dudx, dvdx, dudy, dvdy, n, width, height, max_lod, out);
}
void lod_libm_log2(const float* dudx, const float* dvdx, const float* dudy, const float* dvdy, int n, float width,
                   float height, float max_lod, float* out) {
  lod<LodLog2::libm>(dudx, dvdx, dudy, dvdy, n, width, height, max_lod, out);
}

void trilinear_rgba(const Texture& texture, const float* u, const float* v, const float* lod, int n, float* r, float* g,
                    float* b, float* a, SamplerCounters& counters) {
  trilinear<true>(texture, u, v, lod, n, r, g, b, a, counters);
}
void trilinear_rgb(const Texture& texture, const float* u, const float* v, const float* lod, int n, float* r, float* g,
                   float* b, float* a, SamplerCounters& counters) {
  trilinear<false>(texture, u, v, lod, n, r, g, b, a, counters);
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::sampler_lanes
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::sampler_lanes {
HWY_EXPORT(trilinear_rgba);
HWY_EXPORT(trilinear_rgb);
HWY_EXPORT(lod_lanes_log2);
HWY_EXPORT(lod_libm_log2);
HWY_EXPORT(log2_normal_batch);
}  // namespace tessera::sampler_lanes

namespace tessera {
using namespace sampler_lanes;  // HWY_DYNAMIC_DISPATCH names the dispatch tables unqualified

void sample_texture_lanes(const Texture& texture, const float* u, const float* v, const float* lod, int n, float* r,
                          float* g, float* b, float* a, SamplerCounters& counters) {
  if (texture.sampler == SamplerState{} && !texture.levels.empty()) {
    if (a) {
      HWY_DYNAMIC_DISPATCH(trilinear_rgba)(texture, u, v, lod, n, r, g, b, a, counters);
    } else {
      HWY_DYNAMIC_DISPATCH(trilinear_rgb)(texture, u, v, lod, n, r, g, b, a, counters);
    }
    return;
  }
  for (int i = 0; i < n; ++i) {
    const glm::vec4 t = sample_texture(texture, glm::vec2(u[i], v[i]), lod[i], counters);
    r[i] = t.r;
    g[i] = t.g;
    b[i] = t.b;
    if (a) a[i] = t.a;
  }
}

void log2_normal_lanes(const float* x, int n, float* out) { HWY_DYNAMIC_DISPATCH(log2_normal_batch)(x, n, out); }

bool log2_lanes_match_libm() {
  // Checked once per process: the lanes reproduce glibc's log2f, and another C library (or an
  // older glibc) may round differently. Probes: both ends of every binade a level of detail
  // reaches and a stride through the normal floats; a mismatch keeps the library's log2f.
  static const bool match = [] {
    std::vector<float> x;
    for (uint32_t bits = 0x00800000u; bits < 0x7f800000u; bits += 0x00100003u) x.push_back(std::bit_cast<float>(bits));
    for (uint32_t e = 0x3f800000u; e < 0x50000000u; e += 0x00800000u)
      for (uint32_t m : {0u, 1u, 0x7fffffu, 0x330000u, 0x32ffffu}) x.push_back(std::bit_cast<float>(e + m));
    std::vector<float> lanes(x.size());
    log2_normal_lanes(x.data(), int(x.size()), lanes.data());
    for (size_t i = 0; i < x.size(); ++i)
      if (std::bit_cast<uint32_t>(lanes[i]) != std::bit_cast<uint32_t>(std::log2(x[i]))) return false;
    return true;
  }();
  return match;
}

namespace {

inline void lod_lanes(const Texture& texture, const float* dudx, const float* dvdx, const float* dudy,
                      const float* dvdy, int n, float* lod, LodLog2 log2) {
  if (texture.levels.empty()) {
    for (int i = 0; i < n; ++i) lod[i] = 0.0f;
    return;
  }
  const Image& base = texture.levels[0];
  const float max_lod = float(texture.levels.size() - 1);
  if (log2 == LodLog2::lanes) {
    HWY_DYNAMIC_DISPATCH(lod_lanes_log2)
    (dudx, dvdx, dudy, dvdy, n, float(base.width), float(base.height), max_lod, lod);
  } else {
    HWY_DYNAMIC_DISPATCH(lod_libm_log2)(dudx, dvdx, dudy, dvdy, n, float(base.width), float(base.height), max_lod, lod);
  }
}

}  // namespace

void texture_lod_lanes(const Texture& texture, const float* dudx, const float* dvdx, const float* dudy,
                       const float* dvdy, int n, float* lod, LodLog2 log2) {
  lod_lanes(texture, dudx, dvdx, dudy, dvdy, n, lod, log2);
}

void texture_lod_lanes(const Texture& texture, const float* dudx, const float* dvdx, const float* dudy,
                       const float* dvdy, int n, float* lod) {
  lod_lanes(texture, dudx, dvdx, dudy, dvdy, n, lod, log2_lanes_match_libm() ? LodLog2::lanes : LodLog2::libm);
}

}  // namespace tessera
#endif  // HWY_ONCE
