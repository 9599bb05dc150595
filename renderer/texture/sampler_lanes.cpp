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
// Like eu_lanes.cpp, compiled per target (AVX-512 and AVX2 on x86-64-v3) and dispatched at run
// time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "texture/sampler_lanes.cpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "tessera/image.h"
#include "tessera/sampler.h"

#include "core/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::sampler_lanes {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using VU = hn::Vec<DU>;

struct Rgba {
  VF r, g, b, a;
};

// detail::reduce_period: non-finite -> 0, else t - floor(t).
HWY_INLINE VF reduce_period(VF t) { return hn::IfThenElseZero(hn::IsFinite(t), hn::Sub(t, hn::Floor(t))); }

// detail::decode_texel on gathered texels.
HWY_INLINE Rgba decode(VU texel) {
  const DF d;
  const DI di;
  const VU byte = hn::Set(DU(), 0xFFu);
  const float* table = detail::srgb_tables.decode;
  Rgba c;
  c.r = hn::GatherIndex(d, table, hn::BitCast(di, hn::And(texel, byte)));
  c.g = hn::GatherIndex(d, table, hn::BitCast(di, hn::And(hn::ShiftRight<8>(texel), byte)));
  c.b = hn::GatherIndex(d, table, hn::BitCast(di, hn::And(hn::ShiftRight<16>(texel), byte)));
  c.a = hn::Mul(hn::ConvertTo(d, hn::BitCast(di, hn::ShiftRight<24>(texel))), hn::Set(d, 1.0f / 255.0f));
  return c;
}

// p + (q - p) * w per channel: the scalar filter's lerp.
HWY_INLINE VF lerp(VF p, VF q, VF w) { return hn::Add(p, hn::Mul(hn::Sub(q, p), w)); }
HWY_INLINE Rgba lerp(const Rgba& p, const Rgba& q, VF w) {
  return Rgba{lerp(p.r, q.r, w), lerp(p.g, q.g, w), lerp(p.b, q.b, w), lerp(p.a, q.a, w)};
}

// sample_bilinear on one level for every lane; ru/rv are the reduced coordinates.
HWY_INLINE Rgba bilinear(const Image& level, VF ru, VF rv) {
  const DF d;
  const DI di;
  const DU du;
  const VF x = hn::Sub(hn::Mul(ru, hn::Set(d, float(level.width))), hn::Set(d, 0.5f));
  const VF y = hn::Sub(hn::Mul(rv, hn::Set(d, float(level.height))), hn::Set(d, 0.5f));
  const VF fx = hn::Floor(x);
  const VF fy = hn::Floor(y);
  const VF ax = hn::Sub(x, fx);
  const VF ay = hn::Sub(y, fy);
  // The lower index lies in [-1, size - 1], the upper in [0, size]: one wrap each.
  const VI w = hn::Set(di, level.width), h = hn::Set(di, level.height);
  const VI ix = hn::ConvertTo(di, fx), iy = hn::ConvertTo(di, fy);
  const VI one = hn::Set(di, 1);
  const VI ix1 = hn::Add(ix, one), iy1 = hn::Add(iy, one);
  const VI x0 = hn::IfThenElse(hn::Lt(ix, hn::Zero(di)), hn::Add(ix, w), ix);
  const VI y0 = hn::IfThenElse(hn::Lt(iy, hn::Zero(di)), hn::Add(iy, h), iy);
  const VI x1 = hn::IfThenElse(hn::Lt(ix1, w), ix1, hn::Sub(ix1, w));
  const VI y1 = hn::IfThenElse(hn::Lt(iy1, h), iy1, hn::Sub(iy1, h));
  const VI row0 = hn::Mul(y0, w), row1 = hn::Mul(y1, w);
  const uint32_t* pixels = level.pixels.data();
  const Rgba t00 = decode(hn::GatherIndex(du, pixels, hn::Add(row0, x0)));
  const Rgba t10 = decode(hn::GatherIndex(du, pixels, hn::Add(row0, x1)));
  const Rgba t01 = decode(hn::GatherIndex(du, pixels, hn::Add(row1, x0)));
  const Rgba t11 = decode(hn::GatherIndex(du, pixels, hn::Add(row1, x1)));
  const Rgba top = lerp(t00, t10, ax);
  const Rgba bottom = lerp(t01, t11, ax);
  return lerp(top, bottom, ay);
}

HWY_INLINE bool fits_gather(const Image& level) {
  return level.width > 0 && level.height > 0 &&
         int64_t(level.width) * int64_t(level.height) <= int64_t(std::numeric_limits<int32_t>::max());
}

HWY_INLINE Rgba select(hn::Mask<DF> m, const Rgba& p, const Rgba& q) {
  return Rgba{hn::IfThenElse(m, p.r, q.r), hn::IfThenElse(m, p.g, q.g), hn::IfThenElse(m, p.b, q.b),
              hn::IfThenElse(m, p.a, q.a)};
}

// sample_trilinear for n lanes; the texture has levels, each addressable with 32-bit indices.
// Without kAlpha the alpha channel is neither filtered nor written (the inlined filter's alpha
// arithmetic is then dead code).
template <bool kAlpha>
void trilinear(const Texture& texture, const float* u, const float* v, const float* lod, int n, float* r, float* g,
               float* b, float* a, SamplerCounters& counters) {
  const DF d;
  const DI di;
  constexpr int kMax = int(hn::MaxLanes(DF()));
  const int step = int(hn::Lanes(d));
  const int last = int(texture.levels.size()) - 1;
  HWY_ALIGN float us[kMax], vs[kMax], ls[kMax], out[4][kMax];
  HWY_ALIGN int32_t lo_lanes[kMax], blend_lanes[kMax];
  uint64_t fetches = 0;
  for (int i = 0; i < n; i += step) {
    const int m = n - i < step ? n - i : step;
    // A partial vector repeats its first lane, so padding asks for no extra level.
    for (int j = 0; j < step; ++j) {
      const int k = i + (j < m ? j : 0);
      us[j] = u[k];
      vs[j] = v[k];
      ls[j] = lod[k];
    }
    const VF ru = reduce_period(hn::Load(d, us));
    const VF rv = reduce_period(hn::Load(d, vs));
    // d = clamp(finite lod or 0, 0, last); lo = int(d); delta = d - lo.
    const VF l = hn::Load(d, ls);
    const VF finite = hn::IfThenElseZero(hn::IsFinite(l), l);
    const VF top = hn::Set(d, float(last));
    const VF dd =
        hn::IfThenElse(hn::Lt(finite, hn::Zero(d)), hn::Zero(d), hn::IfThenElse(hn::Lt(top, finite), top, finite));
    const VI lo = hn::ConvertTo(di, dd);
    const VF delta = hn::Sub(dd, hn::ConvertTo(d, lo));
    // The second level is filtered where delta != 0 and lo is not the last level.
    const hn::Mask<DF> blend = hn::And(hn::Ne(delta, hn::Zero(d)), hn::RebindMask(d, hn::Lt(lo, hn::Set(di, last))));
    hn::Store(lo, di, lo_lanes);
    hn::Store(hn::VecFromMask(di, hn::RebindMask(di, blend)), di, blend_lanes);
    int first = lo_lanes[0], end = lo_lanes[0];
    for (int j = 0; j < m; ++j) {
      first = std::min(first, lo_lanes[j]);
      end = std::max(end, lo_lanes[j] + (blend_lanes[j] ? 1 : 0));
      fetches += blend_lanes[j] ? 8 : 4;
    }
    // Gathers index with 32-bit lanes: a vector reaching an empty level or one with more
    // texels than that takes the scalar filter.
    bool addressable = true;
    for (int level = first; level <= end; ++level)
      addressable = addressable && fits_gather(texture.levels[size_t(level)]);
    if (!addressable) {
      for (int j = 0; j < m; ++j) {
        fetches -= blend_lanes[j] ? 8 : 4;
        SamplerCounters scalar;
        const glm::vec4 t = sample_trilinear(texture, glm::vec2(u[i + j], v[i + j]), lod[i + j], scalar);
        fetches += scalar.texel_fetches;
        r[i + j] = t.r;
        g[i + j] = t.g;
        b[i + j] = t.b;
        if constexpr (kAlpha) a[i + j] = t.a;
      }
      continue;
    }
    Rgba fa{}, fb{};
    for (int level = first; level <= end; ++level) {
      const VI lv = hn::Set(di, level);
      const hn::Mask<DF> as_lo = hn::RebindMask(d, hn::Eq(lo, lv));
      const hn::Mask<DF> as_hi = hn::And(blend, hn::RebindMask(d, hn::Eq(hn::Add(lo, hn::Set(di, 1)), lv)));
      if (hn::AllFalse(d, hn::Or(as_lo, as_hi))) continue;
      const Rgba t = bilinear(texture.levels[size_t(level)], ru, rv);
      fa = select(as_lo, t, fa);
      fb = select(as_hi, t, fb);
    }
    const Rgba c = select(blend, lerp(fa, fb, delta), fa);
    hn::Store(c.r, d, out[0]);
    hn::Store(c.g, d, out[1]);
    hn::Store(c.b, d, out[2]);
    if constexpr (kAlpha) hn::Store(c.a, d, out[3]);
    for (int j = 0; j < m; ++j) {
      r[i + j] = out[0][j];
      g[i + j] = out[1][j];
      b[i + j] = out[2][j];
      if constexpr (kAlpha) a[i + j] = out[3][j];
    }
  }
  counters.samples += uint64_t(n);
  counters.texel_fetches += fetches;
}

// texture_lod's level-of-detail arguments for n quads: rho = max(|duv_dx * size|,
// |duv_dy * size|) in lanes (glm::length is sqrt((x * x) + (y * y)); std::max(a, b) is
// a < b ? b : a, also for NaN).
void lod_rho(const float* dudx, const float* dvdx, const float* dudy, const float* dvdy, int n, float width,
             float height, float* rho) {
  const DF d;
  constexpr int kMax = int(hn::MaxLanes(DF()));
  const int step = int(hn::Lanes(d));
  HWY_ALIGN float in[4][kMax], out[kMax];
  const VF w = hn::Set(d, width), h = hn::Set(d, height);
  for (int i = 0; i < n; i += step) {
    const int m = n - i < step ? n - i : step;
    for (int j = 0; j < step; ++j) {
      const int k = i + (j < m ? j : 0);
      in[0][j] = dudx[k];
      in[1][j] = dvdx[k];
      in[2][j] = dudy[k];
      in[3][j] = dvdy[k];
    }
    const VF xu = hn::Mul(hn::Load(d, in[0]), w), xv = hn::Mul(hn::Load(d, in[1]), h);
    const VF yu = hn::Mul(hn::Load(d, in[2]), w), yv = hn::Mul(hn::Load(d, in[3]), h);
    const VF rho_x = hn::Sqrt(hn::Add(hn::Mul(xu, xu), hn::Mul(xv, xv)));
    const VF rho_y = hn::Sqrt(hn::Add(hn::Mul(yu, yu), hn::Mul(yv, yv)));
    hn::Store(hn::IfThenElse(hn::Lt(rho_x, rho_y), rho_y, rho_x), d, out);
    for (int j = 0; j < m; ++j) rho[i + j] = out[j];
  }
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
HWY_EXPORT(lod_rho);
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

void texture_lod_lanes(const Texture& texture, const float* dudx, const float* dvdx, const float* dudy,
                       const float* dvdy, int n, float* lod) {
  if (texture.levels.empty()) {
    for (int i = 0; i < n; ++i) lod[i] = 0.0f;
    return;
  }
  const Image& base = texture.levels[0];
  HWY_DYNAMIC_DISPATCH(lod_rho)(dudx, dvdx, dudy, dvdy, n, float(base.width), float(base.height), lod);
  // The rest of texture_lod per lane (log2 is the C library's, as there).
  const float max_lod = float(texture.levels.size() - 1);
  for (int i = 0; i < n; ++i) {
    const float rho = lod[i];
    lod[i] = rho > 0.0f ? std::clamp(std::log2(rho), 0.0f, max_lod) : 0.0f;
  }
}

}  // namespace tessera
#endif  // HWY_ONCE
