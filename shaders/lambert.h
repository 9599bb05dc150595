// Lambert shading with Blinn-Phong highlights, distance fog and tone mapping: the default
// program pair of the raster path.
//
// The GLSL twins (glsl/lambert.vert, glsl/lambert.frag) implement the same formulas for the
// Vulkan reference renderer; change both together.
//
// Square roots, reciprocal square roots, divisions, pow and exp come from the execution unit's
// branch-free math library
// (tessera/eu_shader_math.h): bit for bit what the modelled FMA datapath computes, and counted,
// so every frame reports the EU instructions of each shader stage (docs/eu.md, docs/stats.md).
// Each straight-line block of arithmetic states the datapath instructions it issues through
// EuShaderMath::alu (a vec3 dot product is one mul and two fma); compares and selects are not
// datapath work. Lighting is computed for live pixels only (helper pixels only interpolate).
//
// Vertex: world = model * position; normal = normalize(normal_matrix * normal);
//   clip = view_proj * world. Varyings (8 floats): world.xyz, normal.xyz, uv.xy.
//   normalize(v) = v * rsqrt(max(dot(v, v), 1e-30)): branch-free, a zero vector stays 0.
// Fragment (linear RGB):
//   n = normalize(normal); albedo = base_color * (texture ? texture(uv).rgb : 1)
//   e2 = max(dot(eye - world, eye - world), 1e-30); v = (eye - world) * rsqrt(e2); e = sqrt(e2)
//   radiance = ambient + sum over lights of color * intensity * attenuation * max(dot(n, l), 0)
//     directional: l = -normalize(direction), attenuation = 1
//     point:       d = position - world, l = d * rsqrt(max(dot(d, d), 1e-30)),
//                  attenuation = div(1, max(dot(d, d), 1e-4))
//   highlight = sum over lights of color * intensity * attenuation * s,
//     s = dot(n, l) > 0 ? pow(max(dot(n, h), 0), shininess) : 0, h = normalize(l + v)
//     (only for materials with a non-zero specular colour)
//   c = albedo * radiance + specular * highlight
//   fog (density > 0): c = fog_color + (c - fog_color) * exp(-density * e)
//   tone mapping of x = exposure * c per channel: clamp x; reinhard x * div(1, 1 + x);
//     exponential 1 - exp(-x)
//   out = c (the frame buffer clamps to [0,1] and encodes sRGB)
#pragma once

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>

#include "tessera/eu_shader_math.h"
#include "tessera/sampler.h"
#include "tessera/scene.h"

namespace tessera::shaders {

// v * rsqrt(max(dot(v, v), 1e-30)): a dot product (1 mul, 2 fma), an rsqrt and a scale (3 mul).
inline glm::vec3 normalize_eu(glm::vec3 v, EuShaderMath& math) {
  math.alu(2, 4, 0);
  return v * math.rsqrt(std::max(glm::dot(v, v), 1e-30f));
}

struct LambertVertexShader {
  static constexpr int kVaryings = 8;

  struct Uniforms {
    glm::mat4 model{1.0f};
    glm::mat3 normal_matrix{1.0f};  // inverse transpose of model's upper 3x3
    glm::mat4 view_projection{1.0f};
  };

  static void run(const Uniforms& u, const Vertex& in, glm::vec4& clip, float* varyings, EuShaderMath& math) {
    // Two 4x4 matrix-vector products (4 mul + 12 fma each) and one 3x3 (3 mul + 6 fma).
    math.alu(30, 11, 0);
    const glm::vec4 world = u.model * glm::vec4(in.position, 1.0f);
    const glm::vec3 normal = normalize_eu(u.normal_matrix * in.normal, math);
    clip = u.view_projection * world;
    varyings[0] = world.x;
    varyings[1] = world.y;
    varyings[2] = world.z;
    varyings[3] = normal.x;
    varyings[4] = normal.y;
    varyings[5] = normal.z;
    varyings[6] = in.uv.x;
    varyings[7] = in.uv.y;
  }

  // run() for n vertices (n <= 16), with the normalisation's rsqrt issued once for all lanes
  // (EuShaderMath::rsqrt_lanes, counted per lane): each lane bit for bit what run() gives, and the
  // same counts. Out has members clip (vec4) and varyings (kVaryings floats).
  template <typename Out>
  static void run_lanes(const Uniforms& u, const Vertex* in, int n, Out* out, EuShaderMath& math) {
    constexpr int kLanes = 16;
    glm::vec3 normal[kLanes];
    float s[kLanes], r[kLanes];
    for (int i = 0; i < n; ++i) {
      const glm::vec4 world = u.model * glm::vec4(in[i].position, 1.0f);
      normal[i] = u.normal_matrix * in[i].normal;
      s[i] = std::max(glm::dot(normal[i], normal[i]), 1e-30f);
      out[i].clip = u.view_projection * world;
      float* varyings = out[i].varyings;
      varyings[0] = world.x;
      varyings[1] = world.y;
      varyings[2] = world.z;
      varyings[6] = in[i].uv.x;
      varyings[7] = in[i].uv.y;
    }
    math.alu(32u * unsigned(n), 15u * unsigned(n), 0);
    math.rsqrt_lanes(s, r, n);
    for (int i = 0; i < n; ++i) {
      const glm::vec3 v = normal[i] * r[i];
      out[i].varyings[3] = v.x;
      out[i].varyings[4] = v.y;
      out[i].varyings[5] = v.z;
    }
  }

  // The program's length L in EU instructions, for the tiler's primitive intersection cost:
  // one invocation counted on the datapath's profiles. The program has no data-dependent
  // control flow, so every invocation costs the same.
  static uint64_t instruction_count() {
    EuShaderMath math;
    glm::vec4 clip;
    float varyings[kVaryings];
    run(Uniforms{}, Vertex{}, clip, varyings, math);
    return math.instructions();
  }
};

// What a frame shares across every draw's fragment uniforms: lights and ambient, the eye,
// fog and tone mapping.
struct LambertLighting {
  glm::vec3 ambient{0.0f};
  int light_count = 0;
  Light lights[kMaxLights];
  // Per light: -normalize(direction) for directional lights. Derived once per frame by
  // prepare() instead of per pixel; the value is the formula's l.
  glm::vec3 to_light[kMaxLights];
  glm::vec3 eye{0.0f};  // camera position, world
  Fog fog;
  ToneMapping tone_mapping = ToneMapping::clamp;
  float exposure = 1.0f;

  void prepare() {
    for (int l = 0; l < light_count; ++l) {
      to_light[l] = lights[l].type == LightType::directional ? -glm::normalize(lights[l].direction) : glm::vec3(0.0f);
    }
  }

  // A frame's lighting as seen from `eye` (the first kMaxLights lights), prepared.
  static LambertLighting of_scene(const Scene& scene, const glm::vec3& eye) {
    LambertLighting lit;
    lit.ambient = scene.ambient;
    lit.eye = eye;
    lit.fog = scene.fog;
    lit.tone_mapping = scene.tone_mapping;
    lit.exposure = scene.exposure;
    lit.light_count = int(std::min<size_t>(scene.lights.size(), kMaxLights));
    for (int i = 0; i < lit.light_count; ++i) lit.lights[i] = scene.lights[size_t(i)];
    lit.prepare();
    return lit;
  }
};

// What the fragment stage counts: texture sampling and EU work.
struct FragmentCounters {
  SamplerCounters sampler;
  EuShaderMath math;
};

// The lit colour of a surface point before fog and tone mapping, shared by the raster fragment
// program and the ray tracer's closest-hit program (rt_programs.h):
//   albedo * (ambient + sum_l visible_l * diffuse_l) + specular * sum_l visible_l * highlight_l
// n is the unit normal; to_eye the unit direction to the viewer (read only with highlights, i.e.
// a non-zero specular colour); visible[l] = 0 drops light l (in shadow), nullptr = all visible.
inline glm::vec3 lit_surface(const LambertLighting& lit, const glm::vec3& world, const glm::vec3& n,
                             const glm::vec3& albedo, const glm::vec3& specular, float shininess,
                             const glm::vec3& to_eye, const float* visible, EuShaderMath& math) {
  const bool highlights = specular != glm::vec3(0.0f);
  glm::vec3 radiance = lit.ambient;
  glm::vec3 highlight(0.0f);
  for (int l = 0; l < lit.light_count; ++l) {
    if (visible && visible[l] == 0.0f) continue;
    const Light& light = lit.lights[l];
    glm::vec3 dir;
    float attenuation = 1.0f;
    if (light.type == LightType::directional) {
      dir = lit.to_light[l];
    } else {
      // Difference, dot product, scale by the reciprocal distance.
      const glm::vec3 d = light.position - world;
      const float dist2 = glm::dot(d, d);
      math.alu(2, 4, 3);
      dir = d * math.rsqrt(std::max(dist2, 1e-30f));
      attenuation = math.div(1.0f, std::max(dist2, 1e-4f));
    }
    // dot(n, l); radiance += color * (intensity * attenuation * ndotl): 2 mul + 3 fma.
    const float cosine = glm::dot(n, dir);
    const float ndotl = std::max(cosine, 0.0f);
    const float scale = light.intensity * attenuation;
    radiance += light.color * (scale * ndotl);
    math.alu(5, 3, 0);
    if (highlights) {
      // h = normalize(l + v) (3 add + normalisation), dot(n, h), highlight accumulation.
      const glm::vec3 h = normalize_eu(dir + to_eye, math);
      const float ndoth = std::max(glm::dot(n, h), 0.0f);
      const float sp = math.pow(ndoth, shininess);
      highlight += light.color * (scale * (cosine > 0.0f ? sp : 0.0f));
      math.alu(5, 2, 3);
    }
  }
  glm::vec3 c = albedo * radiance;
  math.alu(0, 3, 0);
  if (highlights) {
    c += specular * highlight;
    math.alu(3, 0, 0);
  }
  return c;
}

// The last steps of every colour program: exponential fog by the eye distance (density > 0),
// exposure, tone mapping.
inline glm::vec3 fog_and_tone_map(const LambertLighting& lit, glm::vec3 c, float eye_distance, EuShaderMath& math) {
  if (lit.fog.density > 0.0f) {
    // -density * distance (1 mul); c = fog + (c - fog) * f (3 add + 3 fma).
    const float f = math.exp(-lit.fog.density * eye_distance);
    c = lit.fog.color + (c - lit.fog.color) * f;
    math.alu(3, 1, 3);
  }
  c *= lit.exposure;
  math.alu(0, 3, 0);
  switch (lit.tone_mapping) {
    case ToneMapping::clamp: break;
    case ToneMapping::reinhard:
      for (int k = 0; k < 3; ++k) c[k] = c[k] * math.div(1.0f, 1.0f + c[k]);
      math.alu(0, 3, 3);
      break;
    case ToneMapping::exponential:
      for (int k = 0; k < 3; ++k) c[k] = 1.0f - math.exp(-c[k]);
      math.alu(0, 0, 3);
      break;
  }
  return c;
}

// Lane batches of the fragment program (LambertFragmentShader::run_quads): the same formulas as
// lit_surface and fog_and_tone_map for n pixels at once (n <= kShadeLanes), with every EU
// library call issued once for all lanes (EuShaderMath::*_lanes, one call counted per lane) as
// the modelled SIMD EU runs a program for its lanes. The lane functions are in
// lambert_lanes-inl.h, compiled once per SIMD target (renderer/pipeline/lambert_lanes.cpp) so
// that AVX-512 runs a batch's 16 lanes as one vector. The lanes are laid out as structure of
// arrays, one array per vector component.
inline constexpr int kShadeLanes = 16;

// A vec3 per lane, by component.
struct Vec3Lanes {
  float x[kShadeLanes], y[kShadeLanes], z[kShadeLanes];
};

struct ShadeLanes {
  int n = 0;
  Vec3Lanes world;
  Vec3Lanes normal;  // unit normal
  Vec3Lanes albedo;
  Vec3Lanes to_eye;  // read with highlights only
  float eye_distance[kShadeLanes];
};

struct LambertFragmentShader {
  static constexpr int kVaryings = LambertVertexShader::kVaryings;
  using Counters = FragmentCounters;

  struct Uniforms {
    glm::vec3 base_color{0.8f};
    const Texture* texture = nullptr;
    const LambertLighting* lighting = nullptr;  // the frame's, shared by all draws
    glm::vec3 specular{0.0f};
    float shininess = 32.0f;
    // Materials beyond the opaque one-sided case (glTF, OBJ .mtl): these run through
    // run_quad_material (the tile stage picks it per draw with needs_material_path).
    float base_alpha = 1.0f;
    AlphaMode alpha_mode = AlphaMode::opaque;
    float alpha_cutoff = 0.5f;
    bool double_sided = false;
    glm::vec3 emissive{0.0f};
  };

  // Whether a draw needs the alpha / two-sided program; opaque one-sided draws keep run_quad.
  static bool needs_material_path(const Uniforms& u) {
    return u.alpha_mode != AlphaMode::opaque || u.double_sided;
  }

  // Shades the four pixels of a 2x2 quad (order: (0,0), (1,0), (0,1), (1,1)). All four carry
  // interpolated varyings, covered or not (helper pixels), because the level of detail comes
  // from coarse derivatives across the quad. `live` marks pixels whose result is used.
  static void run_quad(const Uniforms& u, const float (*varyings)[LambertVertexShader::kVaryings], unsigned live,
                       glm::vec3* out, Counters& counters) {
    float lod = 0.0f;
    if (u.texture) {
      const glm::vec2 uv0(varyings[0][6], varyings[0][7]);
      const glm::vec2 duv_dx = glm::vec2(varyings[1][6], varyings[1][7]) - uv0;
      const glm::vec2 duv_dy = glm::vec2(varyings[2][6], varyings[2][7]) - uv0;
      lod = texture_lod(*u.texture, duv_dx, duv_dy);
    }
    for (int i = 0; i < 4; ++i) {
      if (!(live & (1u << i))) continue;
      out[i] = shade(u, varyings[i], lod, counters);
    }
  }

  // Shades `quads` quads together (each as run_quad: 4 pixels of varyings in
  // quad order, its own level of detail, `live[q]` its live pixels) with the live pixels of all
  // of them as lanes of one batch; out has 4 entries per quad (those of pixels that are not
  // live may be overwritten). The quads may come from several
  // triangles of one draw (the tile rasterizer's QuadBatch); their live pixels <= kShadeLanes.
  // Defined in renderer/pipeline/lambert_lanes.cpp: the lane loops of lambert_lanes-inl.h on
  // the SIMD target chosen at run time (tessera/lane_target.h), bit for bit the same on each.
  static void run_quads(const Uniforms& u, const float (*varyings)[LambertVertexShader::kVaryings],
                        const unsigned* live, int quads, glm::vec3* out, Counters& counters);

  // The material program: alpha = base_alpha * texture alpha; mask discards alpha < cutoff
  // (the whole pixel, as a Vulkan discard without sample shading); two-sided materials light
  // back faces with the reversed normal. Writes out/alpha for live pixels and returns the
  // pixels discarded.
  static unsigned run_quad_material(const Uniforms& u, const float (*varyings)[LambertVertexShader::kVaryings],
                                    unsigned live, bool back_facing, glm::vec3* out, float* alpha,
                                    Counters& counters) {
    float lod = 0.0f;
    if (u.texture) {
      const glm::vec2 uv0(varyings[0][6], varyings[0][7]);
      const glm::vec2 duv_dx = glm::vec2(varyings[1][6], varyings[1][7]) - uv0;
      const glm::vec2 duv_dy = glm::vec2(varyings[2][6], varyings[2][7]) - uv0;
      lod = texture_lod(*u.texture, duv_dx, duv_dy);
    }
    const float normal_sign = u.double_sided && back_facing ? -1.0f : 1.0f;
    unsigned discarded = 0;
    for (int i = 0; i < 4; ++i) {
      if (!(live & (1u << i))) continue;
      glm::vec4 t(1.0f);
      if (u.texture) t = sample_texture(*u.texture, glm::vec2(varyings[i][6], varyings[i][7]), lod, counters.sampler);
      alpha[i] = u.base_alpha * t.a;
      counters.math.alu(0, 1, 0);
      if (u.alpha_mode == AlphaMode::mask && !(alpha[i] >= u.alpha_cutoff)) {
        discarded |= 1u << i;
        continue;
      }
      out[i] = shade_lit(u, varyings[i], u.base_color * glm::vec3(t), u.texture != nullptr, normal_sign, counters);
    }
    return discarded;
  }

  static glm::vec3 shade(const Uniforms& u, const float* v, float lod, Counters& counters) {
    glm::vec3 albedo = u.base_color;
    if (u.texture) {
      const glm::vec4 t = sample_texture(*u.texture, glm::vec2(v[6], v[7]), lod, counters.sampler);
      albedo *= glm::vec3(t);
    }
    return shade_lit(u, v, albedo, u.texture != nullptr, 1.0f, counters);
  }

  // Lighting, emission, fog and tone mapping of a point whose albedo is known.
  static glm::vec3 shade_lit(const Uniforms& u, const float* v, const glm::vec3& albedo, bool textured,
                             float normal_sign, Counters& counters) {
    EuShaderMath& math = counters.math;
    const LambertLighting& lit = *u.lighting;
    if (textured) math.alu(0, 3, 0);
    const glm::vec3 world(v[0], v[1], v[2]);
    glm::vec3 n = normalize_eu(glm::vec3(v[3], v[4], v[5]), math);
    if (normal_sign < 0.0f) n = -n;
    const bool highlights = u.specular != glm::vec3(0.0f);
    const bool fog = lit.fog.density > 0.0f;
    // The eye vector, when highlights or fog need it: a difference (3 add) and a dot product;
    // for highlights its direction (rsqrt, 3 mul), for fog its length (sqrt).
    glm::vec3 to_eye(0.0f);
    float eye_distance = 0.0f;
    if (highlights || fog) {
      const glm::vec3 e = lit.eye - world;
      math.alu(2, 1, 3);
      const float e2 = std::max(glm::dot(e, e), 1e-30f);
      if (highlights) {
        to_eye = e * math.rsqrt(e2);
        math.alu(0, 3, 0);
      }
      if (fog) eye_distance = math.sqrt(e2);
    }
    glm::vec3 c = lit_surface(lit, world, n, albedo, u.specular, u.shininess, to_eye, nullptr, math);
    if (u.emissive != glm::vec3(0.0f)) {
      c += u.emissive;
      math.alu(3, 0, 0);
    }
    return fog_and_tone_map(lit, c, eye_distance, math);
  }
};

}  // namespace tessera::shaders
