// Closest-hit and miss programs of rt and hybrid frames (docs/rt.md, Rendering): the raster
// path's Lambert program (lambert.h) evaluated at a ray's hit, so ray-traced images compare
// with raster images, plus a visibility factor per light (shadow rays) and the two bounces.
//
// Closest hit (linear RGB, before fog and tone mapping):
//   vertex normals N_k = normalize(normal_matrix * n_k) as the raster vertex program computes
//   them; n = normalize(sum w_k N_k), uv = sum w_k uv_k, world = sum w_k (model * p_k) with the
//   hit's barycentrics w = (1-u-v, u, v). Surfaces are two-sided: when the geometric normal
//   faces away from the ray, both normals are flipped (the raster path culls those faces).
//   albedo = base_color * (texture ? texture(uv, lod).rgb : 1)
//   local = albedo * (ambient + sum_l visible_l * color * intensity * attenuation * max(dot(n, l), 0))
//           + specular * sum_l visible_l * highlight_l       (the Lambert formulas, eye = ray origin)
//   visible_l = 0 when the shadow ray toward light l finds any hit, else 1 (only traced where
//   dot(n, l) > 0: elsewhere the light adds nothing anyway).
//   c = (1 - reflectivity) * (local + albedo * mean(diffuse bounce radiance))
//       + reflectivity * reflected radiance
//   A bounce's radiance is the local shading of its hit (with its own shadow rays, no further
//   bounces) or the miss program's. Ambient stays in `local`: it stands for the light of the
//   bounces after the first, which are not traced.
// Miss: the scene background (linear), as the raster clear colour.
// Finish (primary paths only): fog by the primary hit's eye distance, exposure and tone mapping
//   exactly as lambert.h does; a primary miss is the background without fog or tone mapping,
//   as the raster frame's clear colour.
// Secondary rays (shadow rays, bounces) leave the surface from secondary_origin. Texture level of
// detail: ray differentials for primary hits (the neighbouring pixels' rays met on the hit
// triangle's plane, what the raster path's quad derivatives measure), a ray cone for bounces.
// Square roots, reciprocal square roots, divisions and pow come from the EU library through EuShaderMath and every
// block of arithmetic states its datapath instructions, as in lambert.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <glm/glm.hpp>

#include "shaders/lambert.h"
#include "tessera/eu_shader_math.h"
#include "tessera/rt.h"
#include "tessera/sampler.h"
#include "tessera/scene.h"

namespace tessera::shaders {

// A surface point a ray found, as the closest-hit program reads it.
struct RtSurface {
  glm::vec3 position{0.0f};                      // world, interpolated from the transformed vertices
  glm::vec3 normal{0.0f, 0.0f, 1.0f};            // interpolated vertex normal (not normalized), facing the ray
  glm::vec3 geometric_normal{0.0f, 0.0f, 1.0f};  // unit, facing the ray
  glm::vec2 uv{0.0f};
  float lod = 0.0f;  // texture level of detail (ray differentials or cone)
  const Material* material = nullptr;
  const Texture* texture = nullptr;
};

// How a hit's texture level of detail is found: the neighbouring pixels' rays (primary hits) or
// the width of a cone of the pixel's spread angle over the path length (bounces).
struct RtFootprint {
  const rt::Ray* dx = nullptr;
  const rt::Ray* dy = nullptr;
  float cone_width = 0.0f;  // world-space footprint at the hit (bounces)
};

// The plane of a triangle, for rays that meet it outside the triangle as well as inside
// (extrapolated, as raster attributes are at a pixel centre that the triangle covers only with
// other samples).
struct TrianglePlane {
  glm::vec3 p0, e1, e2;
  glm::vec3 normal;  // cross(e1, e2), not normalised
  float d11, d12, d22, denom;
  explicit TrianglePlane(const glm::vec3 p[3])
      : p0(p[0]),
        e1(p[1] - p[0]),
        e2(p[2] - p[0]),
        normal(glm::cross(e1, e2)),
        d11(glm::dot(e1, e1)),
        d12(glm::dot(e1, e2)),
        d22(glm::dot(e2, e2)),
        denom(d11 * d22 - d12 * d12) {}

  // Where `ray` meets the plane: its parameter t and the weights (u, v) of vertices 1 and 2.
  // False when the ray runs parallel to the plane or the triangle is degenerate.
  bool meet(const rt::Ray& ray, float& t, float& u, float& v) const {
    const float dn = glm::dot(ray.direction, normal);
    if (!(std::fabs(dn) > 0.0f) || !(denom > 0.0f)) return false;
    t = glm::dot(p0 - ray.origin, normal) / dn;
    const glm::vec3 q = ray.origin + ray.direction * t - p0;
    const float a = glm::dot(q, e1), b = glm::dot(q, e2);
    u = (d22 * a - d12 * b) / denom;
    v = (d11 * b - d12 * a) / denom;
    return true;
  }
};

struct RtClosestHitProgram {
  // The surface at a hit on the triangle of `vertex` (object space) placed by `model`, with the
  // hit's barycentrics (u, v) of vertices 1 and 2; `direction` is the ray's.
  static RtSurface surface(const glm::mat4& model, const glm::mat3& normal_matrix, const Vertex* const vertex[3],
                           float u, float v, const glm::vec3& direction, const Material& material,
                           const Texture* texture, const RtFootprint& fp, EuShaderMath& math) {
    glm::vec3 p[3], n[3];
    glm::vec2 uv[3];
    for (int k = 0; k < 3; ++k) {
      p[k] = glm::vec3(model * glm::vec4(vertex[k]->position, 1.0f));
      n[k] = vertex[k]->normal;
      uv[k] = vertex[k]->uv;
    }
    math.alu(27, 9, 0);  // three 4x4 point transforms (3 mul + 9 fma each, w = 1)
    const glm::vec3 w(1.0f - u - v, u, v);
    RtSurface s = interpolate(p, n, uv, w, normal_matrix, direction, math);
    s.material = &material;
    s.texture = texture;
    if (texture) s.lod = texture_lod_at(*texture, p, uv, s.uv, fp);
    return s;
  }

  // Interpolates the hit triangle's attributes. `p` are the world positions of the three
  // vertices, `n` their object-space normals, `w` the barycentrics, `direction` the ray's.
  static RtSurface interpolate(const glm::vec3 p[3], const glm::vec3 n[3], const glm::vec2 uv[3], const glm::vec3& w,
                               const glm::mat3& normal_matrix, const glm::vec3& direction, EuShaderMath& math) {
    RtSurface s;
    // Three weighted sums of three vec3 (3 mul + 6 fma each), the uv sum (2 mul + 4 fma), the
    // vertex normals (3x3 matrix: 3 mul + 6 fma each, then normalised).
    math.alu(28, 14, 0);
    s.position = p[0] * w.x + p[1] * w.y + p[2] * w.z;
    s.uv = uv[0] * w.x + uv[1] * w.y + uv[2] * w.z;
    glm::vec3 normal(0.0f);
    for (int k = 0; k < 3; ++k) normal += normalize_eu(normal_matrix * n[k], math) * w[k];
    // Geometric normal: two edges (6 add), a cross product (3 mul + 3 fma), its normalisation;
    // the facing test is a dot product (1 mul + 2 fma).
    math.alu(5, 4, 6);
    glm::vec3 ng = normalize_eu(glm::cross(p[1] - p[0], p[2] - p[0]), math);
    if (glm::dot(ng, direction) > 0.0f) {
      ng = -ng;
      normal = -normal;
    }
    s.normal = normal;
    s.geometric_normal = ng;
    return s;
  }

  // Local shading: the Lambert program with visible[l] (0 or 1) weighting light l; `eye` is the
  // ray origin. Returns linear RGB before fog and tone mapping; `albedo_out` the albedo.
  static glm::vec3 shade(const LambertLighting& lit, const RtSurface& s, const glm::vec3& eye, const float* visible,
                         glm::vec3& albedo_out, FragmentCounters& counters) {
    EuShaderMath& math = counters.math;
    const Material& m = *s.material;
    glm::vec3 albedo = m.base_color;
    if (s.texture) {
      const glm::vec4 t = sample_trilinear(*s.texture, s.uv, s.lod, counters.sampler);
      albedo *= glm::vec3(t);
      math.alu(0, 3, 0);
    }
    albedo_out = albedo;
    const glm::vec3 n = normalize_eu(s.normal, math);
    const bool highlights = m.specular != glm::vec3(0.0f);
    glm::vec3 to_eye(0.0f);
    if (highlights) {
      const glm::vec3 e = eye - s.position;
      math.alu(2, 1, 3);
      to_eye = e * math.rsqrt(std::max(glm::dot(e, e), 1e-30f));
      math.alu(0, 3, 0);
    }
    const glm::vec3 c = lit_surface(lit, s.position, n, albedo, m.specular, m.shininess, to_eye, visible, math);
    return c;
  }

  // Where secondary rays start: off the surface along the geometric normal (toward the ray's
  // side), by a margin relative to the coordinates' magnitude, as make_ray_workload does.
  static glm::vec3 secondary_origin(const RtSurface& s) {
    const glm::vec3& p = s.position;
    const float scale = std::max({1.0f, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    return p + s.geometric_normal * (1e-4f * scale);
  }

  // Direction toward light l from `position` for its shadow ray (not normalized: a point
  // light's ray ends at t = 1) and whether the light can contribute (dot(n, l) > 0).
  static bool light_direction(const LambertLighting& lit, int l, const glm::vec3& position, const glm::vec3& normal,
                              glm::vec3& direction, float& tmax) {
    const Light& light = lit.lights[l];
    if (light.type == LightType::directional) {
      direction = lit.to_light[l];
      tmax = INFINITY;
    } else {
      direction = light.position - position;
      tmax = 0.999f;  // stop short of the light itself
    }
    return glm::dot(normal, direction) > 0.0f;
  }

  // Mirror direction of unit `d` about unit `n`; about the geometric normal instead when the
  // shading normal would send it below the surface. 2 fma + 1 mul for the dot, 3 fma to reflect.
  static glm::vec3 reflect(const glm::vec3& d, const glm::vec3& n, const glm::vec3& ng, EuShaderMath& math) {
    math.alu(5, 2, 0);
    glm::vec3 r = d - n * (2.0f * glm::dot(d, n));
    if (glm::dot(r, ng) <= 0.0f) {
      math.alu(5, 2, 0);
      r = d - ng * (2.0f * glm::dot(d, ng));
    }
    return r;
  }

  // Cosine-weighted direction about unit `n` from two uniform numbers in [0, 1); mirrored to
  // the ray's side of the geometric normal when the shading normal tilts it below the surface.
  static glm::vec3 cosine_direction(const glm::vec3& n, const glm::vec3& ng, float u1, float u2, EuShaderMath& math) {
    const glm::vec3 a = std::fabs(n.x) > 0.5f ? glm::vec3(0.0f, 1.0f, 0.0f) : glm::vec3(1.0f, 0.0f, 0.0f);
    const glm::vec3 t = normalize_eu(glm::cross(a, n), math);
    const glm::vec3 b = glm::cross(n, t);
    const float r = math.sqrt(u1);
    const float phi = 6.2831853f * u2;
    // Frame (6 mul + 3 fma), the combination (3 mul + 6 fma), 1 - u1 and phi.
    math.alu(9, 10, 1);
    glm::vec3 d = t * (r * std::cos(phi)) + b * (r * std::sin(phi)) + n * math.sqrt(std::max(0.0f, 1.0f - u1));
    const float below = glm::dot(d, ng);
    if (below <= 0.0f) d -= ng * (2.0f * below);
    return d;
  }

  // c = (1 - r) * (local + albedo * indirect) + r * reflected, indirect the mean of `samples`
  // diffuse bounces summed in `indirect_sum` (3 mul by 1/samples): 3 fma + 3 mul + 3 fma.
  static glm::vec3 combine(const glm::vec3& local, const glm::vec3& albedo, const glm::vec3& indirect_sum, int samples,
                           float reflectivity, const glm::vec3& reflected, EuShaderMath& math) {
    glm::vec3 indirect = indirect_sum;
    if (samples > 0) {
      indirect *= 1.0f / float(samples);
      math.alu(0, 3, 0);
    }
    math.alu(6, 3, 1);
    return (local + albedo * indirect) * (1.0f - reflectivity) + reflected * reflectivity;
  }

  // Fog by the eye distance of the primary hit at `position`, exposure and tone mapping:
  // lambert.h's last steps.
  static glm::vec3 finish(const LambertLighting& lit, glm::vec3 c, const glm::vec3& position, EuShaderMath& math) {
    // Eye distance for fog: a difference, a dot product and a square root, as lambert.h.
    float eye_distance = 0.0f;
    if (lit.fog.density > 0.0f) {
      const glm::vec3 e = lit.eye - position;
      math.alu(2, 1, 3);
      eye_distance = math.sqrt(std::max(glm::dot(e, e), 1e-30f));
    }
    return fog_and_tone_map(lit, c, eye_distance, math);
  }

  // Texture level of detail at a hit of interpolated `hit_uv` on the triangle p / uv.
  static float texture_lod_at(const Texture& texture, const glm::vec3 p[3], const glm::vec2 uv[3],
                              const glm::vec2& hit_uv, const RtFootprint& fp) {
    const TrianglePlane plane(p);
    if (fp.dx && fp.dy) {
      // uv where a neighbour pixel's ray meets the triangle's plane.
      auto uv_on_plane = [&](const rt::Ray& r, glm::vec2& out) {
        float t, v, w;
        if (!plane.meet(r, t, v, w)) return false;
        out = uv[0] * (1.0f - v - w) + uv[1] * v + uv[2] * w;
        return std::isfinite(out.x) && std::isfinite(out.y);
      };
      glm::vec2 ux, uy;
      if (uv_on_plane(*fp.dx, ux) && uv_on_plane(*fp.dy, uy)) return texture_lod(texture, ux - hit_uv, uy - hit_uv);
      return 0.0f;
    }
    // Cone: the footprint's width in texels, from the texels per world unit that the triangle's
    // uv and world areas give.
    const float world_area = glm::length(plane.normal);
    const glm::vec2 t1 = uv[1] - uv[0], t2 = uv[2] - uv[0];
    const float uv_area = std::fabs(t1.x * t2.y - t1.y * t2.x);
    if (!(world_area > 0.0f)) return 0.0f;
    const float width = fp.cone_width * std::sqrt(uv_area / world_area);
    return texture_lod(texture, glm::vec2(width, 0.0f), glm::vec2(0.0f, width));
  }
};

struct RtMissProgram {
  // Radiance of a ray that leaves the scene: the background, as the raster clear colour.
  static glm::vec3 radiance(const glm::vec3& background) { return background; }
};

}  // namespace tessera::shaders
