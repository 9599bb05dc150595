// The texture unit's default filter and level of detail on one SIMD target's Highway vectors
// (trilinear, repeat addressing, sRGB texels; texture_lod with glibc's log2f in lanes): the code
// sampler_lanes.cpp describes.
//
// No include guard and no namespace: included inside namespace
// tessera::sampler_lanes::HWY_NAMESPACE, once per target, by sampler_lanes.cpp (the dispatched
// sample_texture_lanes and texture_lod_lanes) and by pipeline/lambert_lanes.cpp (the fragment
// program samples through its own target's code, without a dispatch per call). Include first:
// <algorithm>, <cmath>, <cstdint>, <limits>, tessera/image.h, tessera/sampler.h,
// texture/sampler_lanes.h, core/highway.h. Private to renderer.

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

// |t| < infinity (false for NaN): two operations where IsFinite's exponent test takes four.
HWY_INLINE hn::Mask<DF> finite(VF t) {
  const DF d;
  return hn::Lt(hn::Abs(t), hn::Set(d, std::numeric_limits<float>::infinity()));
}

// detail::reduce_period: non-finite -> 0, else t - floor(t).
HWY_INLINE VF reduce_period(VF t) { return hn::IfThenElseZero(finite(t), hn::Sub(t, hn::Floor(t))); }

// int(t) for whole numbers |t| <= 2^22: adding 1.5 * 2^23 places t exactly in the mantissa's low
// bits. ConvertTo's handling of out-of-range values costs three more operations, and every
// value converted here is a floor of a texel coordinate on a level of at most 2^22 texels a side
// (trilinear's vector path takes no larger level) or a level index.
HWY_INLINE VI whole_to_int(VF t) {
  const DF d;
  const DI di;
  return hn::Sub(hn::BitCast(di, hn::Add(t, hn::Set(d, 12582912.0f))), hn::Set(di, 0x4B400000));
}
inline constexpr int kMaxLaneLevelSide = 1 << 22;

// detail::decode_texel on gathered texels.
HWY_INLINE Rgba decode(VU texel) {
  const DF d;
  const DI di;
  const hn::Repartition<uint8_t, DU> d8;
  // Byte shuffles moving the green and blue bytes to each lane's low byte (one operation each
  // where shift-and-mask takes two).
  alignas(16) static constexpr uint8_t kGreen[16] = {1, 0x80, 0x80, 0x80, 5,  0x80, 0x80, 0x80,
                                                     9, 0x80, 0x80, 0x80, 13, 0x80, 0x80, 0x80};
  alignas(16) static constexpr uint8_t kBlue[16] = {2,  0x80, 0x80, 0x80, 6,  0x80, 0x80, 0x80,
                                                    10, 0x80, 0x80, 0x80, 14, 0x80, 0x80, 0x80};
  const VU byte = hn::Set(DU(), 0xFFu);
  const float* table = detail::srgb_tables.decode;
  Rgba c;
  c.r = hn::GatherIndex(d, table, hn::BitCast(di, hn::And(texel, byte)));
  c.g = hn::GatherIndex(d, table,
                        hn::BitCast(di, hn::TableLookupBytesOr0(texel, hn::BitCast(DU(), hn::LoadDup128(d8, kGreen)))));
  c.b = hn::GatherIndex(d, table,
                        hn::BitCast(di, hn::TableLookupBytesOr0(texel, hn::BitCast(DU(), hn::LoadDup128(d8, kBlue)))));
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
  const VI ix = whole_to_int(fx), iy = whole_to_int(fy);
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

// Whether the vector filter takes the level: 32-bit gather indices, whole_to_int's range.
HWY_INLINE bool fits_lanes(const Image& level) {
  return level.width > 0 && level.height > 0 && level.width <= kMaxLaneLevelSide && level.height <= kMaxLaneLevelSide &&
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
  const int step = int(hn::Lanes(d));
  const int last = int(texture.levels.size()) - 1;
  uint64_t fetches = 0;
  for (int i = 0; i < n; i += step) {
    const int m = n - i < step ? n - i : step;
    const hn::Mask<DF> live = hn::FirstN(d, size_t(m));
    // A partial vector repeats its first lane, so padding asks for no extra level.
    auto load = [&](const float* p) {
      return m == step ? hn::LoadU(d, p + i) : hn::IfThenElse(live, hn::MaskedLoad(live, d, p + i), hn::Set(d, p[i]));
    };
    const VF ru = reduce_period(load(u));
    const VF rv = reduce_period(load(v));
    // d = clamp(finite lod or 0, 0, last); lo = int(d); delta = d - lo.
    const VF l = load(lod);
    const VF lf = hn::IfThenElseZero(finite(l), l);
    const VF top = hn::Set(d, float(last));
    const VF dd = hn::IfThenElse(hn::Lt(lf, hn::Zero(d)), hn::Zero(d), hn::IfThenElse(hn::Lt(top, lf), top, lf));
    // dd >= 0 (or -0, whose delta then is +0 rather than -0: either takes one level), so
    // floor(dd) is int(dd) as a float.
    const VF whole = hn::Floor(dd);
    const VI lo = whole_to_int(whole);
    const VF delta = hn::Sub(dd, whole);
    // The second level is filtered where delta != 0 and lo is not the last level.
    const hn::Mask<DF> blend = hn::And(hn::Ne(delta, hn::Zero(d)), hn::RebindMask(d, hn::Lt(lo, hn::Set(di, last))));
    // The levels the lanes need, padding lanes included (they repeat lane 0's).
    const VI hi = hn::Sub(lo, hn::VecFromMask(di, hn::RebindMask(di, blend)));
    const int first = hn::GetLane(hn::MinOfLanes(di, lo));
    const int end = hn::GetLane(hn::MaxOfLanes(di, hi));
    const uint64_t blended = uint64_t(hn::CountTrue(d, hn::And(blend, live)));
    fetches += 4 * (uint64_t(m) + blended);
    // Gathers index with 32-bit lanes: a vector reaching an empty level, one with more texels
    // than that or a side over kMaxLaneLevelSide takes the scalar filter.
    bool addressable = true;
    for (int level = first; level <= end; ++level)
      addressable = addressable && fits_lanes(texture.levels[size_t(level)]);
    if (!addressable) {
      fetches -= 4 * (uint64_t(m) + blended);
      for (int j = 0; j < m; ++j) {
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
    Rgba c;
    if (hn::AllTrue(di, hn::Eq(lo, hn::Set(di, first)))) {
      // Every lane's first level is the same (the usual case: neighbouring quads): one pass for
      // it and one for the next level if any lane blends, no per-lane selects between passes.
      const Rgba fa = bilinear(texture.levels[size_t(first)], ru, rv);
      c = end > first ? select(blend, lerp(fa, bilinear(texture.levels[size_t(first + 1)], ru, rv), delta), fa) : fa;
    } else {
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
      c = select(blend, lerp(fa, fb, delta), fa);
    }
    if (m == step) {
      hn::StoreU(c.r, d, r + i);
      hn::StoreU(c.g, d, g + i);
      hn::StoreU(c.b, d, b + i);
      if constexpr (kAlpha) hn::StoreU(c.a, d, a + i);
    } else {
      hn::BlendedStore(c.r, live, d, r + i);
      hn::BlendedStore(c.g, live, d, g + i);
      hn::BlendedStore(c.b, live, d, b + i);
      if constexpr (kAlpha) hn::BlendedStore(c.a, live, d, a + i);
    }
  }
  counters.samples += uint64_t(n);
  counters.texel_fetches += fetches;
}

// glibc's log2f (sysdeps/ieee754/flt-32/e_log2f.c, from Arm's optimized routines; glibc 2.36
// on the machine this was checked on) for positive normal floats: x = 2^k z with z near the
// centre c of one of 16 subintervals, log2(x) = k + log2(c) + log1p(z/c - 1)/ln2 by a cubic in
// double precision, rounded once to float. Its table and coefficients, and the fused
// multiply-adds the library's FMA build contracts (its plain build's separate products round
// to the same floats over every normal input: docs/performance.md, seventh round, texh).
inline constexpr double kLog2InvC[16] = {
    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0,  0x1.3c995b0b80385p+0, 0x1.30d190c8864a5p+0,
    0x1.25e227b0b8eap+0,  0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0, 0x1.0953f419900a7p+0, 0x1p+0,
    0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,  0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1,
    0x1.767dcf5534862p-1};
inline constexpr double kLog2C[16] = {
    -0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2, -0x1.01d9bf3f2b631p-2,
    -0x1.97c1d1b3b7afp-3,  -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4, -0x1.a6f9db6475fcep-5, 0x0p+0,
    0x1.338ca9f24f53dp-4,  0x1.476a9543891bap-3,  0x1.e840b4ac4e4d2p-3,  0x1.40645f0c6651cp-2,  0x1.88e9c2c1b9ff8p-2,
    0x1.ce0a44eb17bccp-2};
inline constexpr double kLog2Poly[4] = {-0x1.712b6f70a7e4dp-2, 0x1.ecabf496832ep-2, -0x1.715479ffae3dep-1,
                                        0x1.715475f35c8b8p0};

using DD = hn::Repartition<double, DF>;  // half of DF's lanes
using VD = hn::Vec<DD>;
using DH = hn::Half<DF>;
using DIH = hn::Half<DI>;

// The double part of log2_normal for half a vector: z, k and the table index i per lane.
HWY_INLINE VD log2_poly(VD z, VD k, hn::Vec<DIH> i) {
  const DD dd;
  const hn::Vec<hn::RebindToSigned<DD>> index = hn::PromoteTo(hn::RebindToSigned<DD>(), i);
  const VD invc = hn::GatherIndex(dd, kLog2InvC, index);
  const VD logc = hn::GatherIndex(dd, kLog2C, index);
  const VD r = hn::MulAdd(z, invc, hn::Set(dd, -1.0));
  const VD y0 = hn::Add(logc, k);
  const VD r2 = hn::Mul(r, r);
  VD y = hn::MulAdd(hn::Set(dd, kLog2Poly[1]), r, hn::Set(dd, kLog2Poly[2]));
  y = hn::MulAdd(hn::Set(dd, kLog2Poly[0]), r2, y);
  const VD p = hn::MulAdd(hn::Set(dd, kLog2Poly[3]), r, y0);
  return hn::MulAdd(y, r2, p);
}

// log2f for lanes holding positive normal floats (others give unspecified values).
HWY_INLINE VF log2_normal(VF x) {
  const DF d;
  const DI di;
  const DU du;
  const DD dd;
  const DH dh;
  const DIH dih;
  const VU ix = hn::BitCast(du, x);
  const VU tmp = hn::Sub(ix, hn::Set(du, 0x3f330000u));
  const VI i = hn::BitCast(di, hn::And(hn::ShiftRight<19>(tmp), hn::Set(du, 15u)));
  const VF z = hn::BitCast(d, hn::Sub(ix, hn::And(tmp, hn::Set(du, 0xff800000u))));
  const VI k = hn::ShiftRight<23>(hn::BitCast(di, tmp));  // arithmetic: the exponent's sign
  const VD lo = log2_poly(hn::PromoteTo(dd, hn::LowerHalf(dh, z)), hn::PromoteTo(dd, hn::LowerHalf(dih, k)),
                          hn::LowerHalf(dih, i));
  const VD hi = log2_poly(hn::PromoteTo(dd, hn::UpperHalf(dh, z)), hn::PromoteTo(dd, hn::UpperHalf(dih, k)),
                          hn::UpperHalf(dih, i));
  return hn::Combine(d, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
}

// texture_lod for one vector of quads: rho = max(|duv_dx * size|, |duv_dy * size|) (glm::length
// is sqrt((x * x) + (y * y)); std::max(a, b) is a < b ? b : a, also for NaN), then
// rho > 0 ? clamp(log2f(rho), 0, max_lod) : 0. log2f is taken in lanes for normal rho; the
// others need no logarithm: a subnormal rho's is below -126 (clamped to 0), infinity's is
// infinity (max_lod), zero, negative and NaN rho give 0. With the C library's log2 the first m
// lanes take it one by one.
template <LodLog2 kLog2>
HWY_INLINE VF lod_vector(VF dudx, VF dvdx, VF dudy, VF dvdy, float width, float height, float max_lod, int m) {
  const DF d;
  const VF w = hn::Set(d, width), h = hn::Set(d, height);
  const VF zero = hn::Zero(d), top = hn::Set(d, max_lod);
  const VF xu = hn::Mul(dudx, w), xv = hn::Mul(dvdx, h);
  const VF yu = hn::Mul(dudy, w), yv = hn::Mul(dvdy, h);
  const VF rho_x = hn::Sqrt(hn::Add(hn::Mul(xu, xu), hn::Mul(xv, xv)));
  const VF rho_y = hn::Sqrt(hn::Add(hn::Mul(yu, yu), hn::Mul(yv, yv)));
  const VF rho = hn::IfThenElse(hn::Lt(rho_x, rho_y), rho_y, rho_x);
  if constexpr (kLog2 == LodLog2::lanes) {
    (void)m;
    const hn::Mask<DF> normal = hn::And(hn::Ge(rho, hn::Set(d, std::numeric_limits<float>::min())), finite(rho));
    const VF l = log2_normal(hn::IfThenElse(normal, rho, hn::Set(d, 1.0f)));
    const VF clamped = hn::IfThenElse(hn::Lt(l, zero), zero, hn::IfThenElse(hn::Lt(top, l), top, l));
    return hn::IfThenElse(normal, clamped,
                          hn::IfThenElseZero(hn::Eq(rho, hn::Set(d, std::numeric_limits<float>::infinity())), top));
  } else {
    HWY_ALIGN float lanes[hn::MaxLanes(DF())];
    hn::Store(rho, d, lanes);
    for (int j = 0; j < m; ++j) {
      const float r = lanes[j];
      lanes[j] = r > 0.0f ? std::clamp(std::log2(r), 0.0f, max_lod) : 0.0f;
    }
    return hn::Load(d, lanes);
  }
}

// texture_lod for n quads (lod_vector per vector of them).
template <LodLog2 kLog2>
void lod(const float* dudx, const float* dvdx, const float* dudy, const float* dvdy, int n, float width, float height,
         float max_lod, float* out) {
  const DF d;
  const int step = int(hn::Lanes(d));
  for (int i = 0; i < n; i += step) {
    const int m = n - i < step ? n - i : step;
    const hn::Mask<DF> live = hn::FirstN(d, size_t(m));
    // Lanes past n read 0 (rho 0) and are not stored.
    auto load = [&](const float* p) { return m == step ? hn::LoadU(d, p + i) : hn::MaskedLoad(live, d, p + i); };
    const VF lod = lod_vector<kLog2>(load(dudx), load(dvdx), load(dudy), load(dvdy), width, height, max_lod, m);
    if (m == step) {
      hn::StoreU(lod, d, out + i);
    } else {
      hn::BlendedStore(lod, live, d, out + i);
    }
  }
}
