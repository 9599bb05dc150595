// The fragment program's lane batches (LambertFragmentShader::run_quads), compiled once per
// SIMD target: renderer/pipeline/lambert_lanes.cpp includes this file inside each Highway
// target's namespace, so the plain loops over kShadeLanes lanes below become AVX-512 vectors
// (one per 16 lanes) on the AVX3 target and AVX2 vectors (two) on the AVX2 one. Each lane's
// arithmetic is the scalar program's in the same order (a dot product is (x * x' + y * y') +
// z * z' as glm::dot; no contraction into FMA, -ffp-contract=off), so every lane on every
// target is bit for bit what the one-pixel functions give (eu.FragmentProgramLanes.* per
// target, the tile stage's identity check).
//
// No include guard: included once per target, inside namespace tessera::shaders::HWY_NAMESPACE
// (the types and the scalar program come from shaders/lambert.h, included before).

// The batch's EU library calls: counted per live lane as EuShaderMath's *_lanes members count
// them, evaluated by this target's own lane code (eu/eu_lanes-inl.h, included for this target
// by lambert_lanes.cpp) without a dispatch per call. rsqrt takes whole vectors of the 16-lane
// arrays (every lane of those holds an ordinary value, lanes past n repeat lane 0's).
namespace eu_target = ::tessera::eu_lanes::HWY_NAMESPACE;

inline void rsqrt_lanes(EuShaderMath& math, const float* x, float* out, int n) {
  math.count_lanes(EuMathFunction::rsqrt, n);
  eu_target::rsqrt_whole_vectors(x, out, n);
}
// Reinhard's 3n lanes are packed, so they take the padded batch loop.
inline void div_packed_lanes(EuShaderMath& math, const float* x, const float* y, float* out, int n) {
  math.count_lanes(EuMathFunction::div, n);
  eu_target::div_lanes(x, y, out, n);
}
inline void pow_lanes(EuShaderMath& math, const float* x, const float* y, float* out, int n) {
  math.count_lanes(EuMathFunction::pow, n);
  eu_target::pow_lanes(x, y, out, n);
}
inline void exp_lanes(EuShaderMath& math, const float* x, float* out, int n) {
  math.count_lanes(EuMathFunction::exp, n);
  eu_target::exp_lanes(x, out, n);
}
inline void sqrt_lanes(EuShaderMath& math, const float* x, float* out, int n) {
  math.count_lanes(EuMathFunction::sqrt, n);
  eu_target::sqrt_lanes(x, out, n);
}

// The fused loops below hold a host vector of lanes in registers from the operands to the
// results (no arrays between the dot product, the clamp, the library call and the scaling).
namespace hn = hwy::HWY_NAMESPACE;
using FloatLanes = hn::ScalableTag<float>;
using FloatVector = hn::Vec<FloatLanes>;

// std::max(s, floor) per lane (s where s is NaN, as std::max).
HWY_INLINE FloatVector max_lanes(FloatVector s, float floor) {
  const FloatVector f = hn::Set(FloatLanes(), floor);
  return hn::IfThenElse(hn::Lt(s, f), f, s);
}

// The EU library's value for one vector whose first `live` lanes are the batch's: the vector
// kernel, then the scalar function for the live lanes that left its fast path.
template <class Scalar>
HWY_INLINE FloatVector fix_slow_lanes(FloatVector x, FloatVector y, FloatVector r, eu_target::Mask slow, int live,
                                      Scalar scalar) {
  const FloatLanes d;
  if (hn::AllFalse(d, slow)) return r;
  HWY_ALIGN float xs[hn::MaxLanes(d)], ys[hn::MaxLanes(d)], rs[hn::MaxLanes(d)];
  HWY_ALIGN int32_t redo[hn::MaxLanes(d)];
  hn::Store(x, d, xs);
  hn::Store(y, d, ys);
  hn::Store(r, d, rs);
  const hn::RebindToSigned<FloatLanes> di;
  hn::Store(hn::VecFromMask(di, hn::RebindMask(di, slow)), di, redo);
  const int m = live < int(hn::Lanes(d)) ? live : int(hn::Lanes(d));
  for (int j = 0; j < m; ++j) {
    if (redo[j]) rs[j] = scalar(xs[j], ys[j]);
  }
  return hn::Load(d, rs);
}
HWY_INLINE FloatVector rsqrt_vector(FloatVector x, int live) {
  eu_target::Mask slow = eu_target::Lanes::no_lanes();
  const FloatVector r = eu_target::rsqrt_vector(x, slow);
  return fix_slow_lanes(x, x, r, slow, live, [](float a, float) { return eu_fast::rsqrt(a); });
}
HWY_INLINE FloatVector div_vector(FloatVector x, FloatVector y, int live) {
  eu_target::Mask slow = eu_target::Lanes::no_lanes();
  const FloatVector r = eu_target::div_vector(x, y, slow);
  return fix_slow_lanes(x, y, r, slow, live, [](float a, float b) { return eu_fast::div(a, b); });
}

// glm::dot(a, b) per lane: (a.x * b.x + a.y * b.y) + a.z * b.z.
HWY_INLINE FloatVector dot_vector(FloatVector ax, FloatVector ay, FloatVector az, FloatVector bx, FloatVector by,
                                  FloatVector bz) {
  return hn::Add(hn::Add(hn::Mul(ax, bx), hn::Mul(ay, by)), hn::Mul(az, bz));
}

// glm::dot(a[i], b[i]) for every lane into d.
inline void dot_lanes(const Vec3Lanes& a, const Vec3Lanes& b, float* d) {
  for (int i = 0; i < kShadeLanes; ++i) d[i] = a.x[i] * b.x[i] + a.y[i] * b.y[i] + a.z[i] * b.z[i];
}

// v[i] * r[i] for every lane.
inline void scale_lanes(Vec3Lanes& v, const float* r) {
  for (int i = 0; i < kShadeLanes; ++i) {
    v.x[i] = v.x[i] * r[i];
    v.y[i] = v.y[i] * r[i];
    v.z[i] = v.z[i] * r[i];
  }
}

// v * rsqrt(max(dot(v, v), 1e-30)) for the vectors holding lanes [0, n).
inline void normalize_lanes(Vec3Lanes& v, int n, EuShaderMath& math) {
  math.alu(2u * unsigned(n), 4u * unsigned(n), 0);
  math.count_lanes(EuMathFunction::rsqrt, n);
  const FloatLanes d;
  const int step = int(hn::Lanes(d));
  for (int i = 0; i < n; i += step) {
    const FloatVector x = hn::LoadU(d, v.x + i), y = hn::LoadU(d, v.y + i), z = hn::LoadU(d, v.z + i);
    const FloatVector r = rsqrt_vector(max_lanes(dot_vector(x, y, z, x, y, z), 1e-30f), n - i);
    hn::StoreU(hn::Mul(x, r), d, v.x + i);
    hn::StoreU(hn::Mul(y, r), d, v.y + i);
    hn::StoreU(hn::Mul(z, r), d, v.z + i);
  }
}

// lit_surface (all lights visible) for every lane into c.
inline void lit_surface_lanes(const LambertLighting& lit, const ShadeLanes& p, const glm::vec3& specular,
                              float shininess, Vec3Lanes& c, EuShaderMath& math) {
  const int n = p.n;
  const unsigned un = unsigned(n);
  const bool highlights = specular != glm::vec3(0.0f);
  Vec3Lanes radiance, highlight, dir;
  // highlight, cosine and scale are written and read with highlights only.
  float cosine[kShadeLanes], scale[kShadeLanes];
  for (int i = 0; i < kShadeLanes; ++i) {
    radiance.x[i] = lit.ambient.x;
    radiance.y[i] = lit.ambient.y;
    radiance.z[i] = lit.ambient.z;
  }
  if (highlights) {
    for (int i = 0; i < kShadeLanes; ++i) {
      highlight.x[i] = highlight.y[i] = highlight.z[i] = 0.0f;
      cosine[i] = scale[i] = 0.0f;
    }
  }
  for (int l = 0; l < lit.light_count; ++l) {
    const Light& light = lit.lights[l];
    // One pass a vector at a time: the light's direction (and for a point light its distance,
    // rsqrt and attenuation), the cosine and the radiance sum stay in registers; dir, cosine
    // and scale are stored for the highlight only.
    const bool point = light.type != LightType::directional;
    if (point) {
      math.alu(2u * un, 4u * un, 3u * un);
      math.count_lanes(EuMathFunction::rsqrt, n);
      math.count_lanes(EuMathFunction::div, n);
    }
    const FloatLanes d;
    const int step = int(hn::Lanes(d));
    const glm::vec3 to = point ? light.position : lit.to_light[l];
    const FloatVector tx = hn::Set(d, to.x), ty = hn::Set(d, to.y), tz = hn::Set(d, to.z), one = hn::Set(d, 1.0f);
    const FloatVector intensity = hn::Set(d, light.intensity), zero = hn::Zero(d);
    const FloatVector cr = hn::Set(d, light.color.x), cg = hn::Set(d, light.color.y), cb = hn::Set(d, light.color.z);
    for (int i = 0; i < n; i += step) {
      FloatVector dx = tx, dy = ty, dz = tz, attenuation = one;
      if (point) {
        // dir = normalize(position - world), attenuation = 1 / max(dist2, 1e-4).
        dx = hn::Sub(tx, hn::LoadU(d, p.world.x + i));
        dy = hn::Sub(ty, hn::LoadU(d, p.world.y + i));
        dz = hn::Sub(tz, hn::LoadU(d, p.world.z + i));
        const FloatVector dist2 = dot_vector(dx, dy, dz, dx, dy, dz);
        const FloatVector r = rsqrt_vector(max_lanes(dist2, 1e-30f), n - i);
        attenuation = div_vector(one, max_lanes(dist2, 1e-4f), n - i);
        dx = hn::Mul(dx, r);
        dy = hn::Mul(dy, r);
        dz = hn::Mul(dz, r);
      }
      const FloatVector cos_theta = dot_vector(hn::LoadU(d, p.normal.x + i), hn::LoadU(d, p.normal.y + i),
                                               hn::LoadU(d, p.normal.z + i), dx, dy, dz);
      const FloatVector ndotl = hn::IfThenElse(hn::Lt(cos_theta, zero), zero, cos_theta);  // std::max(cos_theta, 0)
      const FloatVector sc = hn::Mul(intensity, attenuation);
      const FloatVector k = hn::Mul(sc, ndotl);
      hn::StoreU(hn::Add(hn::LoadU(d, radiance.x + i), hn::Mul(cr, k)), d, radiance.x + i);
      hn::StoreU(hn::Add(hn::LoadU(d, radiance.y + i), hn::Mul(cg, k)), d, radiance.y + i);
      hn::StoreU(hn::Add(hn::LoadU(d, radiance.z + i), hn::Mul(cb, k)), d, radiance.z + i);
      if (highlights) {
        hn::StoreU(dx, d, dir.x + i);
        hn::StoreU(dy, d, dir.y + i);
        hn::StoreU(dz, d, dir.z + i);
        hn::StoreU(cos_theta, d, cosine + i);
        hn::StoreU(sc, d, scale + i);
      }
    }
    math.alu(5u * un, 3u * un, 0);
    if (highlights) {
      Vec3Lanes h;
      float ndoth[kShadeLanes], power[kShadeLanes], sp[kShadeLanes] = {};
      for (int i = 0; i < kShadeLanes; ++i) {
        h.x[i] = dir.x[i] + p.to_eye.x[i];
        h.y[i] = dir.y[i] + p.to_eye.y[i];
        h.z[i] = dir.z[i] + p.to_eye.z[i];
      }
      normalize_lanes(h, n, math);
      dot_lanes(p.normal, h, ndoth);
      for (int i = 0; i < kShadeLanes; ++i) {
        ndoth[i] = std::max(ndoth[i], 0.0f);
        power[i] = shininess;
      }
      pow_lanes(math, ndoth, power, sp, n);
      for (int i = 0; i < kShadeLanes; ++i) {
        const float k = scale[i] * (cosine[i] > 0.0f ? sp[i] : 0.0f);
        highlight.x[i] = highlight.x[i] + light.color.x * k;
        highlight.y[i] = highlight.y[i] + light.color.y * k;
        highlight.z[i] = highlight.z[i] + light.color.z * k;
      }
      math.alu(5u * un, 2u * un, 3u * un);
    }
  }
  for (int i = 0; i < kShadeLanes; ++i) {
    c.x[i] = p.albedo.x[i] * radiance.x[i];
    c.y[i] = p.albedo.y[i] * radiance.y[i];
    c.z[i] = p.albedo.z[i] * radiance.z[i];
  }
  math.alu(0, 3u * un, 0);
  if (highlights) {
    for (int i = 0; i < kShadeLanes; ++i) {
      c.x[i] = c.x[i] + specular.x * highlight.x[i];
      c.y[i] = c.y[i] + specular.y * highlight.y[i];
      c.z[i] = c.z[i] + specular.z * highlight.z[i];
    }
    math.alu(3u * un, 0, 0);
  }
}

// fog_and_tone_map for every lane, in place.
inline void fog_and_tone_map_lanes(const LambertLighting& lit, const float* eye_distance, Vec3Lanes& c, int n,
                                   EuShaderMath& math) {
  const unsigned un = unsigned(n);
  float* channels[3] = {c.x, c.y, c.z};
  if (lit.fog.density > 0.0f) {
    float x[kShadeLanes], f[kShadeLanes] = {};
    for (int i = 0; i < kShadeLanes; ++i) x[i] = -lit.fog.density * eye_distance[i];
    exp_lanes(math, x, f, n);
    for (int k = 0; k < 3; ++k) {
      float* ck = channels[k];
      const float fog = lit.fog.color[k];
      for (int i = 0; i < kShadeLanes; ++i) ck[i] = fog + (ck[i] - fog) * f[i];
    }
    math.alu(3u * un, un, 3u * un);
  }
  for (int k = 0; k < 3; ++k) {
    float* ck = channels[k];
    for (int i = 0; i < kShadeLanes; ++i) ck[i] = ck[i] * lit.exposure;
  }
  math.alu(0, 3u * un, 0);
  switch (lit.tone_mapping) {
    case ToneMapping::clamp: break;
    case ToneMapping::reinhard: {
      // One library call for the three channels' lanes, as before (3n lanes).
      float ones[3 * kShadeLanes], den[3 * kShadeLanes], q[3 * kShadeLanes];
      for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < n; ++i) {
          ones[k * n + i] = 1.0f;
          den[k * n + i] = 1.0f + channels[k][i];
        }
      }
      div_packed_lanes(math, ones, den, q, 3 * n);
      for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < n; ++i) channels[k][i] = channels[k][i] * q[k * n + i];
      }
      math.alu(0, 3u * un, 3u * un);
      break;
    }
    case ToneMapping::exponential: {
      float x[3 * kShadeLanes], e[3 * kShadeLanes];
      for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < n; ++i) x[k * n + i] = -channels[k][i];
      }
      exp_lanes(math, x, e, 3 * n);
      for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < n; ++i) channels[k][i] = 1.0f - e[k * n + i];
      }
      math.alu(0, 0, 3u * un);
      break;
    }
  }
}

// shade_lit (normal sign +1) for every lane of p; p.normal holds the interpolated normals.
inline void shade_lit_lanes(const LambertFragmentShader::Uniforms& u, ShadeLanes& p, bool textured, Vec3Lanes& c,
                            FragmentCounters& counters) {
  EuShaderMath& math = counters.math;
  const LambertLighting& lit = *u.lighting;
  const int n = p.n;
  const unsigned un = unsigned(n);
  if (textured) math.alu(0, 3u * un, 0);
  normalize_lanes(p.normal, n, math);
  const bool highlights = u.specular != glm::vec3(0.0f);
  const bool fog = lit.fog.density > 0.0f;
  // to_eye is read with highlights only, which set it below; eye_distance with fog only.
  if (fog) {
    for (int i = 0; i < kShadeLanes; ++i) p.eye_distance[i] = 0.0f;
  }
  if (highlights || fog) {
    Vec3Lanes e;
    float e2[kShadeLanes], r[kShadeLanes] = {};
    for (int i = 0; i < kShadeLanes; ++i) {
      e.x[i] = lit.eye.x - p.world.x[i];
      e.y[i] = lit.eye.y - p.world.y[i];
      e.z[i] = lit.eye.z - p.world.z[i];
    }
    dot_lanes(e, e, e2);
    for (int i = 0; i < kShadeLanes; ++i) e2[i] = std::max(e2[i], 1e-30f);
    math.alu(2u * un, un, 3u * un);
    if (highlights) {
      rsqrt_lanes(math, e2, r, n);
      scale_lanes(e, r);
      p.to_eye = e;
      math.alu(0, 3u * un, 0);
    }
    if (fog) sqrt_lanes(math, e2, p.eye_distance, n);
  }
  lit_surface_lanes(lit, p, u.specular, u.shininess, c, math);
  if (u.emissive != glm::vec3(0.0f)) {
    for (int i = 0; i < kShadeLanes; ++i) {
      c.x[i] = c.x[i] + u.emissive.x;
      c.y[i] = c.y[i] + u.emissive.y;
      c.z[i] = c.z[i] + u.emissive.z;
    }
    math.alu(3u * un, 0, 0);
  }
  fog_and_tone_map_lanes(lit, p.eye_distance, c, n, math);
}

// Each lane's varyings (world, normal, uv) from its pixel's row of eight floats into one array
// per component, for all kShadeLanes lanes: on 256-bit and wider x86 targets eight rows at a
// time by an 8x8 transpose in registers (8 loads, 24 shuffles, 8 stores instead of 64 scalar
// copies); elsewhere lane by lane. Plain copies, so the values are the same either way.
inline void gather_varyings(const float (*varyings)[LambertVertexShader::kVaryings], const int* lane_of,
                            float* const* components) {
  static_assert(LambertVertexShader::kVaryings == 8, "one 8-float row per pixel");
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::FixedTag<float, 8> d;
  const hn::Repartition<double, decltype(d)> dd;
  using Row = hn::Vec<decltype(d)>;
  for (int g = 0; g < kShadeLanes; g += 8) {
    Row t[8];
    for (int j = 0; j < 8; j += 2) {
      const Row a = hn::LoadU(d, varyings[lane_of[g + j]]), b = hn::LoadU(d, varyings[lane_of[g + j + 1]]);
      t[j] = hn::InterleaveLower(d, a, b);      // a0 b0 a1 b1 | a4 b4 a5 b5
      t[j + 1] = hn::InterleaveUpper(d, a, b);  // a2 b2 a3 b3 | a6 b6 a7 b7
    }
    for (int half = 0; half < 2; ++half) {  // rows 0-3, then rows 4-7 of the group
      const Row* h = t + 4 * half;
      Row* u = t + 4 * half;
      const auto lo0 = hn::BitCast(dd, h[0]), hi0 = hn::BitCast(dd, h[1]);
      const auto lo1 = hn::BitCast(dd, h[2]), hi1 = hn::BitCast(dd, h[3]);
      u[0] = hn::BitCast(d, hn::InterleaveLower(dd, lo0, lo1));  // components 0 | 4 of the four rows
      u[1] = hn::BitCast(d, hn::InterleaveUpper(dd, lo0, lo1));  // 1 | 5
      u[2] = hn::BitCast(d, hn::InterleaveLower(dd, hi0, hi1));  // 2 | 6
      u[3] = hn::BitCast(d, hn::InterleaveUpper(dd, hi0, hi1));  // 3 | 7
    }
    for (int c = 0; c < 4; ++c) {
      hn::StoreU(hn::ConcatLowerLower(d, t[4 + c], t[c]), d, components[c] + g);
      hn::StoreU(hn::ConcatUpperUpper(d, t[4 + c], t[c]), d, components[c + 4] + g);
    }
  }
#else
  for (int k = 0; k < kShadeLanes; ++k) {
    for (int c = 0; c < LambertVertexShader::kVaryings; ++c) components[c][k] = varyings[lane_of[k]][c];
  }
#endif
}

// The texture unit's lanes for this target (texture/sampler_lanes-inl.h, included for this
// target by lambert_lanes.cpp): the batch samples and takes its levels of detail without a
// dispatch per call.
namespace sampler_target = ::tessera::sampler_lanes::HWY_NAMESPACE;

// Each quad's level of detail, texture_lod of its coarse derivatives (pixel 1 minus pixel 0
// across, pixel 2 minus pixel 0 down), for quads [0, quads) into out (room for whole vectors:
// kShadeLanes). A vector of quads at a time: the texture coordinates are gathered from the
// quads' rows of varyings (lanes past `quads` repeat the last quad and are not used).
inline void quad_lods(const Texture& texture, const float (*varyings)[LambertVertexShader::kVaryings], int quads,
                      float* out) {
  static_assert(LambertVertexShader::kVaryings == 8 && kShadeLanes % hn::MaxLanes(FloatLanes()) == 0);
  if (texture.levels.empty()) {
    for (int q = 0; q < quads; ++q) out[q] = 0.0f;
    return;
  }
  const Image& base = texture.levels[0];
  const float width = float(base.width), height = float(base.height);
  const float max_lod = float(texture.levels.size() - 1);
  static const bool log2_lanes = log2_lanes_match_libm();
  const FloatLanes d;
  const hn::RebindToSigned<FloatLanes> di;
  const int step = int(hn::Lanes(d));
  const float* rows = varyings[0];
  for (int q = 0; q < quads; q += step) {
    // Pixel 0's u of each quad: row 4q, component 6.
    const auto quad = hn::Min(hn::Add(hn::Iota(di, 0), hn::Set(di, q)), hn::Set(di, quads - 1));
    const auto u0_at = hn::Add(hn::ShiftLeft<5>(quad), hn::Set(di, 6));
    auto at = [&](int offset) { return hn::GatherIndex(d, rows, hn::Add(u0_at, hn::Set(di, offset))); };
    const FloatVector u0 = at(0), v0 = at(1);
    const FloatVector dudx = hn::Sub(at(8), u0), dvdx = hn::Sub(at(9), v0);
    const FloatVector dudy = hn::Sub(at(16), u0), dvdy = hn::Sub(at(17), v0);
    const int m = quads - q < step ? quads - q : step;
    const FloatVector lod =
        log2_lanes ? sampler_target::lod_vector<LodLog2::lanes>(dudx, dvdx, dudy, dvdy, width, height, max_lod, m)
                   : sampler_target::lod_vector<LodLog2::libm>(dudx, dvdx, dudy, dvdy, width, height, max_lod, m);
    hn::StoreU(lod, d, out + q);
  }
}

// sample_texture_lanes without its alpha, by this target's filter where the dispatched call
// would take it (the default sampler state), else through that call.
inline void sample_rgb_lanes(const Texture& texture, const float* u, const float* v, const float* lod, int n, float* r,
                             float* g, float* b, SamplerCounters& counters) {
  if (texture.sampler == SamplerState{} && !texture.levels.empty()) {
    sampler_target::trilinear<false>(texture, u, v, lod, n, r, g, b, nullptr, counters);
  } else {
    sample_texture_lanes(texture, u, v, lod, n, r, g, b, nullptr, counters);
  }
}

// For each quad's live pixels (bits 0..3), their indices in pixel order, padded with 0: the
// lanes the quad adds to the batch.
alignas(16) inline constexpr int32_t kLivePixels[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0}, {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};

void run_quads(const LambertFragmentShader::Uniforms& u, const float (*varyings)[LambertVertexShader::kVaryings],
               const unsigned* live, int quads, glm::vec3* out, FragmentCounters& counters) {
  ShadeLanes p;
  // Each quad stores four lane entries whatever its live count (the next quad overwrites the
  // extra ones): room for four past kShadeLanes, since a quad without a live pixel may follow a
  // full set of lanes and store at kShadeLanes itself.
  alignas(16) int lane_of[kShadeLanes + 4];
  // The texture coordinates and level of detail of every lane, sampled together below.
  alignas(16) float tu[kShadeLanes], tv[kShadeLanes], tlod[kShadeLanes + 4];
  // Each quad's level of detail (a batch holds at most kShadeLanes quads, each with a live
  // pixel); zero without a texture (not read then).
  HWY_ALIGN float quad_lod[kShadeLanes] = {};
  if (u.texture) quad_lods(*u.texture, varyings, quads, quad_lod);
  {
    const hn::FixedTag<int32_t, 4> d4;
    const hn::FixedTag<float, 4> f4;
    int n = 0;
    for (int q = 0; q < quads; ++q) {
      const unsigned m = live[q] & 15u;
      hn::StoreU(hn::Add(hn::Load(d4, kLivePixels[m]), hn::Set(d4, 4 * q)), d4, lane_of + n);
      hn::StoreU(hn::Set(f4, quad_lod[q]), f4, tlod + n);
      n += std::popcount(m);
    }
    p.n = n;
  }
  const int n = p.n;
  if (n == 0) return;
  // Lanes past n repeat lane 0, so every lane holds ordinary values: the loops below run over
  // all kShadeLanes lanes (whole host vectors, no remainder loop), library calls and counts
  // over n.
  for (int k = n; k < kShadeLanes; ++k) lane_of[k] = lane_of[0];
  float* const components[LambertVertexShader::kVaryings] = {p.world.x,  p.world.y,  p.world.z, p.normal.x,
                                                             p.normal.y, p.normal.z, tu,        tv};
  gather_varyings(varyings, lane_of, components);
  if (u.texture) {
    // The program reads no texture alpha: it is not filtered.
    sample_rgb_lanes(*u.texture, tu, tv, tlod, n, p.albedo.x, p.albedo.y, p.albedo.z, counters.sampler);
    for (int k = n; k < kShadeLanes; ++k) {
      p.albedo.x[k] = p.albedo.x[0];
      p.albedo.y[k] = p.albedo.y[0];
      p.albedo.z[k] = p.albedo.z[0];
    }
    // albedo = base_color * texture(uv).rgb
    for (int i = 0; i < kShadeLanes; ++i) {
      p.albedo.x[i] = u.base_color.x * p.albedo.x[i];
      p.albedo.y[i] = u.base_color.y * p.albedo.y[i];
      p.albedo.z[i] = u.base_color.z * p.albedo.z[i];
    }
  } else {
    for (int i = 0; i < kShadeLanes; ++i) {
      p.albedo.x[i] = u.base_color.x;
      p.albedo.y[i] = u.base_color.y;
      p.albedo.z[i] = u.base_color.z;
    }
  }
  Vec3Lanes c;
  shade_lit_lanes(u, p, u.texture != nullptr, c, counters);
  // The colours to their pixels: interleaved to x, y, z per lane, then one 16-byte copy per
  // lane, from the previous lane's z to its own z, into the previous pixel's z and its own
  // pixel, the lanes in descending order: a pixel's z written with a lane's is either the next
  // lane's pixel (written after it) or a pixel that is not live. Lanes past n copy the last
  // live lane's (rewritten by it next), so the copies need no test of n; lane 0 copies 12 bytes
  // last (its previous pixel may lie before out).
  static_assert(sizeof(glm::vec3) == 3 * sizeof(float));
  const FloatLanes d;
  const hn::RebindToSigned<FloatLanes> di;
  const int step = int(hn::Lanes(d));
  HWY_ALIGN float rgb[1 + 3 * kShadeLanes];  // lane i's colour at 1 + 3i
  HWY_ALIGN int32_t at[kShadeLanes];         // where lane i's copy starts in out's floats
  const auto last = hn::Set(di, 3 * lane_of[n - 1] - 1);
  for (int i = 0; i < kShadeLanes; i += step) {
    hn::StoreInterleaved3(hn::LoadU(d, c.x + i), hn::LoadU(d, c.y + i), hn::LoadU(d, c.z + i), d, rgb + 1 + 3 * i);
    const auto lane = hn::Add(hn::Iota(di, 0), hn::Set(di, i));
    const auto start = hn::Sub(hn::Mul(hn::LoadU(di, lane_of + i), hn::Set(di, 3)), hn::Set(di, 1));
    hn::Store(hn::IfThenElse(hn::Lt(lane, hn::Set(di, n)), start, last), di, at + i);
  }
  const hn::FixedTag<float, 4> f4;
  float* const pixels = &out[0].x;
  // With one lane the padding would copy to lane 0's (possibly before out): only lane 0.
  if (n > 1) {
    for (int i = kShadeLanes - 1; i > 0; --i) hn::StoreU(hn::LoadU(f4, rgb + 3 * i), f4, pixels + at[i]);
  }
  out[lane_of[0]] = glm::vec3(rgb[1], rgb[2], rgb[3]);
}
