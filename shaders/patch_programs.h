// Hull (tessellation control) and domain (tessellation evaluation) programs of the patch path.
//
// The GLSL twins (glsl/patch.tesc, glsl/patch.tese) implement the same formulas for the Vulkan
// reference renderer; change both together. Square roots and divisions come from the execution
// unit's math library and are counted like the Lambert programs' (eu.stage.hull,
// eu.stage.domain; docs/tessellation.md).
//
// Hull, once per patch, in world space (model x control point):
//   corners: Bezier control points 0, 3, 12, 15 = (u, v) (0,0), (1,0), (0,1), (1,1); displaced
//     quads their 4 control points, each raised by the height field at its (x, z); PN triangles
//     points 0, 1, 2 (barycentric u, v, w).
//   edges (Vulkan order): quads outer 0..3 = u=0 (c00-c01), v=0 (c00-c10), u=1 (c10-c11),
//     v=1 (c01-c11); triangles outer 0..2 = u=0 (p1-p2), v=0 (p2-p0), w=0 (p0-p1).
//   edge level: constant: level; distance: level * reference_distance / |eye - (a + b) * 0.5|;
//     edge_length: |pixel(a) - pixel(b)| / edge_pixels (level when an end is behind the eye);
//     then clamped to [1, level]. Each level depends only on the edge's two ends, symmetric in
//     them, so neighbours agree (watertight).
//   inner: quads inner 0 = max(outer 1, outer 3), inner 1 = max(outer 0, outer 2); triangles
//     inner 0 = max(outer 0..2).
//   cull (when enabled): the patch's conservative world bounds (control points' box; PN padded by
//     a quarter of its longest edge; displaced quads over the height range) entirely outside one
//     clip plane -> outer 0 = 0, and the tessellator culls the patch.
// Domain, once per domain point, in object space (the vertex program then transforms it):
//   Bezier: P = sum_i Bu_i (sum_j Bv_j P_ij) with cubic Bernstein weights (exactly 0/1 at the
//     ends, so a shared edge evaluates to the same bits on both patches); N = normalize(dP/du x
//     dP/dv); uv bilinear in the corner uvs.
//   PN triangles (Vlachos et al. 2001): cubic Bezier triangle from the positions and normals,
//     quadratic normal; uv barycentric.
//   displaced quads: P = bilinear corners, raised by the height field at (x, z); N = the field's
//     bilinear normal, normalised; uv bilinear.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include <glm/glm.hpp>

#include "shaders/lambert.h"
#include "tessera/eu_shader_math.h"
#include "tessera/patches.h"
#include "tessera/tessellator.h"

namespace tessera::shaders {

// What a patch instance's hull shader sees.
struct HullUniforms {
  glm::mat4 model{1.0f};
  glm::mat4 view_projection{1.0f};
  glm::vec3 eye{0.0f};
  glm::vec2 viewport{1.0f};  // pixels
  TessellationSettings settings;
  const Heightfield* displacement = nullptr;
  float displacement_min = 0.0f;  // height range of the field (culling bounds)
  float displacement_max = 0.0f;
};

struct PatchHullShader {
  // Factors for one patch; `cp` points at its control_points_per_patch control points.
  static TessFactors run(const HullUniforms& u, PatchKind kind, const Vertex* const* cp, EuShaderMath& math) {
    TessFactors f;
    const bool tri = kind == PatchKind::pn_triangle;
    glm::vec3 c[4];  // corners in world space
    const int corners = tri ? 3 : 4;
    const int corner_index[4] = {0, kind == PatchKind::bezier_quad ? 3 : 1, kind == PatchKind::bezier_quad ? 12 : 2,
                                 kind == PatchKind::bezier_quad ? 15 : 3};
    for (int k = 0; k < corners; ++k) {
      glm::vec3 p = cp[corner_index[k]]->position;
      if (kind == PatchKind::displaced_quad && u.displacement) {
        float h;
        glm::vec3 n;
        u.displacement->sample(p.x, p.z, h, n);
        p.y += h;
      }
      c[k] = glm::vec3(u.model * glm::vec4(p, 1.0f));
      math.alu(9, 3, 0);  // affine 4x4 transform of a point: 3 rows of 3 fma + 1 mul... (w dropped)
    }
    if (u.settings.cull && outside_frustum(u, kind, cp, c, corners, math)) {
      f.outer = {0.0f, 0.0f, 0.0f, 0.0f};
      return f;
    }
    if (tri) {
      f.outer[0] = edge_level(u, c[1], c[2], math);
      f.outer[1] = edge_level(u, c[2], c[0], math);
      f.outer[2] = edge_level(u, c[0], c[1], math);
      f.inner[0] = std::max(std::max(f.outer[0], f.outer[1]), f.outer[2]);
    } else {
      // c[0] (0,0), c[1] (1,0), c[2] (0,1), c[3] (1,1).
      f.outer[0] = edge_level(u, c[0], c[2], math);
      f.outer[1] = edge_level(u, c[0], c[1], math);
      f.outer[2] = edge_level(u, c[1], c[3], math);
      f.outer[3] = edge_level(u, c[2], c[3], math);
      f.inner[0] = std::max(f.outer[1], f.outer[3]);
      f.inner[1] = std::max(f.outer[0], f.outer[2]);
    }
    return f;
  }

  static float edge_level(const HullUniforms& u, glm::vec3 a, glm::vec3 b, EuShaderMath& math) {
    const TessellationSettings& s = u.settings;
    float level = s.level;
    switch (s.mode) {
      case TessFactorMode::constant: break;
      case TessFactorMode::distance: {
        // Midpoint (3 add, 3 mul), difference to the eye (3 add), length, scale (1 mul).
        const glm::vec3 m = (a + b) * 0.5f;
        const glm::vec3 d = u.eye - m;
        math.alu(2, 5, 6);
        const float dist = math.sqrt(std::max(glm::dot(d, d), 1e-30f));
        level = math.div(s.level * s.reference_distance, dist);
        math.alu(0, 1, 0);
        break;
      }
      case TessFactorMode::edge_length: {
        const glm::vec4 pa = u.view_projection * glm::vec4(a, 1.0f);
        const glm::vec4 pb = u.view_projection * glm::vec4(b, 1.0f);
        math.alu(24, 8, 0);
        if (!(pa.w > 1e-6f && pb.w > 1e-6f)) break;  // an end behind the eye: the largest level
        // To pixels: xy / w * viewport / 2 (2 div, 4 mul each), difference, length, / edge_pixels.
        const glm::vec2 sa = glm::vec2(pa.x * math.div(1.0f, pa.w), pa.y * math.div(1.0f, pa.w)) * (0.5f * u.viewport);
        const glm::vec2 sb = glm::vec2(pb.x * math.div(1.0f, pb.w), pb.y * math.div(1.0f, pb.w)) * (0.5f * u.viewport);
        const glm::vec2 d = sa - sb;
        math.alu(1, 9, 2);
        level = math.div(math.sqrt(std::max(glm::dot(d, d), 1e-30f)), s.edge_pixels);
        break;
      }
    }
    // Clamp to [1, level]; NaN (a degenerate edge) becomes 1.
    return level >= 1.0f ? std::min(level, s.level) : 1.0f;
  }

  // Conservative: the patch's world-space box against the six clip planes.
  static bool outside_frustum(const HullUniforms& u, PatchKind kind, const Vertex* const* cp, const glm::vec3* c,
                              int corners, EuShaderMath& math) {
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    const int count = kind == PatchKind::bezier_quad ? 16 : corners;
    for (int k = 0; k < count; ++k) {
      const glm::vec3 p = kind == PatchKind::bezier_quad ? glm::vec3(u.model * glm::vec4(cp[k]->position, 1.0f)) : c[k];
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
    if (kind == PatchKind::bezier_quad) math.alu(9 * 16, 3 * 16, 0);
    if (kind == PatchKind::pn_triangle) {
      const float e = std::max(std::max(glm::length(c[1] - c[0]), glm::length(c[2] - c[1])), glm::length(c[0] - c[2]));
      lo -= glm::vec3(0.25f * e);
      hi += glm::vec3(0.25f * e);
    } else if (kind == PatchKind::displaced_quad) {
      // Corners were raised by their own height; the surface between them spans the field's
      // range (in object space, before the model transform: conservative for the usual
      // unrotated terrain; a rotated instance gets the range along every axis).
      const float span = u.displacement_max - u.displacement_min;
      lo -= glm::vec3(span);
      hi += glm::vec3(span);
    }
    int outside[6] = {};
    for (int k = 0; k < 8; ++k) {
      const glm::vec3 p((k & 1) ? hi.x : lo.x, (k & 2) ? hi.y : lo.y, (k & 4) ? hi.z : lo.z);
      const glm::vec4 q = u.view_projection * glm::vec4(p, 1.0f);
      outside[0] += q.x < -q.w;
      outside[1] += q.x > q.w;
      outside[2] += q.y < -q.w;
      outside[3] += q.y > q.w;
      outside[4] += q.z < 0.0f;
      outside[5] += q.z > q.w;
    }
    math.alu(8 * 12, 8 * 4, 0);
    for (int pl = 0; pl < 6; ++pl) {
      if (outside[pl] == 8) return true;
    }
    return false;
  }
};

struct PatchDomainShader {
  // One domain point of a patch to an object-space vertex.
  static Vertex run(PatchKind kind, const Vertex* const* cp, const Heightfield* field, glm::vec3 t,
                    EuShaderMath& math) {
    switch (kind) {
      case PatchKind::bezier_quad: return bezier(cp, t.x, t.y, math);
      case PatchKind::pn_triangle: return pn_triangle(cp, t, math);
      case PatchKind::displaced_quad: return displaced(cp, field, t.x, t.y, math);
    }
    return Vertex{};
  }

  static void bernstein(float t, float b[4], float d[4]) {
    const float s = 1.0f - t;
    b[0] = s * s * s;
    b[1] = 3.0f * t * s * s;
    b[2] = 3.0f * t * t * s;
    b[3] = t * t * t;
    d[0] = -3.0f * s * s;
    d[1] = 3.0f * s * s - 6.0f * t * s;
    d[2] = 6.0f * t * s - 3.0f * t * t;
    d[3] = 3.0f * t * t;
  }

  static Vertex bezier(const Vertex* const* cp, float u, float v, EuShaderMath& math) {
    float bu[4], du[4], bv[4], dv[4];
    bernstein(u, bu, du);
    bernstein(v, bv, dv);
    math.alu(8, 24, 6);  // the two weight sets
    glm::vec3 p(0.0f), pu(0.0f), pv(0.0f);
    for (int i = 0; i < 4; ++i) {
      // Column i: its curve in v, then weighted by u (edges evaluate identically on both sides).
      glm::vec3 col(0.0f), col_v(0.0f);
      for (int j = 0; j < 4; ++j) {
        col += bv[j] * cp[i + 4 * j]->position;
        col_v += dv[j] * cp[i + 4 * j]->position;
      }
      p += bu[i] * col;
      pu += du[i] * col;
      pv += bu[i] * col_v;
    }
    math.alu(4 * 4 * 6 + 4 * 9, 0, 0);  // 3-wide fused accumulations
    Vertex out;
    out.position = p;
    math.alu(6, 3, 0);  // cross product
    out.normal = normalize_eu(glm::cross(pu, pv), math);
    out.uv = bilinear(cp[0]->uv, cp[3]->uv, cp[12]->uv, cp[15]->uv, u, v);
    math.alu(6, 4, 2);
    return out;
  }

  template <typename T>
  static T bilinear(T c00, T c10, T c01, T c11, float u, float v) {
    return (1.0f - u) * ((1.0f - v) * c00 + v * c01) + u * ((1.0f - v) * c10 + v * c11);
  }

  // Evaluated with the corners in a canonical order (by position, then normal, then uv) and the
  // terms summed in a fixed order of those slots: corners, then per slot pair (i < j) the edge
  // point near i and the one near j, then the centre. On an edge the other terms are exactly 0,
  // so two triangles sharing the edge sum the same nonzero terms in the same order: watertight
  // bit for bit, whatever each triangle's own vertex order.
  static Vertex pn_triangle(const Vertex* const* cp, glm::vec3 t, EuShaderMath& math) {
    int slot[3] = {0, 1, 2};
    auto before = [&](int a, int b) {
      const Vertex& x = *cp[a];
      const Vertex& y = *cp[b];
      const float kx[8] = {x.position.x, x.position.y, x.position.z, x.normal.x,
                           x.normal.y,   x.normal.z,   x.uv.x,       x.uv.y};
      const float ky[8] = {y.position.x, y.position.y, y.position.z, y.normal.x,
                           y.normal.y,   y.normal.z,   y.uv.x,       y.uv.y};
      for (int k = 0; k < 8; ++k) {
        if (kx[k] != ky[k]) return kx[k] < ky[k];
      }
      return a < b;
    };
    std::sort(slot, slot + 3, before);
    glm::vec3 p[3], n[3];
    float w[3];
    glm::vec2 uv[3];
    for (int k = 0; k < 3; ++k) {
      p[k] = cp[slot[k]]->position;
      n[k] = cp[slot[k]]->normal;
      uv[k] = cp[slot[k]]->uv;
      w[k] = t[slot[k]];
    }
    // Edge control point near i toward j: (2 p_i + p_j - ((p_j - p_i) . n_i) n_i) / 3.
    auto edge = [&](int i, int j) { return (2.0f * p[i] + p[j] - glm::dot(p[j] - p[i], n[i]) * n[i]) * (1.0f / 3.0f); };
    const glm::vec3 b01 = edge(0, 1), b10 = edge(1, 0), b02 = edge(0, 2), b20 = edge(2, 0), b12 = edge(1, 2),
                    b21 = edge(2, 1);
    const glm::vec3 e = (b01 + b10 + b02 + b20 + b12 + b21) * (1.0f / 6.0f);
    const glm::vec3 vc = (p[0] + p[1] + p[2]) * (1.0f / 3.0f);
    const glm::vec3 centre = e + (e - vc) * 0.5f;
    math.alu(6 * 11, 6 * 4 + 12, 30);
    // Weight of the edge point near i toward j: 3 w_i^2 w_j.
    auto ew = [&](int i, int j) { return (3.0f * w[i] * w[i]) * w[j]; };
    Vertex out;
    out.position = p[0] * (w[0] * w[0] * w[0]) + p[1] * (w[1] * w[1] * w[1]) + p[2] * (w[2] * w[2] * w[2]);
    out.position += b01 * ew(0, 1) + b10 * ew(1, 0);
    out.position += b02 * ew(0, 2) + b20 * ew(2, 0);
    out.position += b12 * ew(1, 2) + b21 * ew(2, 1);
    out.position += centre * (6.0f * w[0] * w[1] * w[2]);
    math.alu(27, 24, 0);
    // Quadratic normal: n_ij = normalize(n_i + n_j - v_ij (p_j - p_i)),
    // v_ij = 2 (p_j - p_i).(n_i + n_j) / |p_j - p_i|^2 (symmetric in i and j).
    auto mid_normal = [&](int i, int j) {
      const glm::vec3 d = p[j] - p[i];
      const float vij = math.div(2.0f * glm::dot(d, n[i] + n[j]), std::max(glm::dot(d, d), 1e-30f));
      math.alu(7, 4, 6);
      return normalize_eu(n[i] + n[j] - vij * d, math);
    };
    const glm::vec3 n01 = mid_normal(0, 1), n02 = mid_normal(0, 2), n12 = mid_normal(1, 2);
    glm::vec3 nn = n[0] * (w[0] * w[0]) + n[1] * (w[1] * w[1]) + n[2] * (w[2] * w[2]);
    nn += n01 * (w[0] * w[1]) + n02 * (w[0] * w[2]) + n12 * (w[1] * w[2]);
    math.alu(15, 6, 0);
    out.normal = normalize_eu(nn, math);
    out.uv = uv[0] * w[0] + uv[1] * w[1] + uv[2] * w[2];
    math.alu(4, 2, 0);
    return out;
  }

  static Vertex displaced(const Vertex* const* cp, const Heightfield* field, float u, float v, EuShaderMath& math) {
    Vertex out;
    out.position = bilinear(cp[0]->position, cp[1]->position, cp[2]->position, cp[3]->position, u, v);
    out.uv = bilinear(cp[0]->uv, cp[1]->uv, cp[2]->uv, cp[3]->uv, u, v);
    math.alu(15, 10, 2);
    glm::vec3 n(0.0f, 1.0f, 0.0f);
    if (field) {
      float h;
      field->sample(out.position.x, out.position.z, h, n);
      out.position.y += h;
      math.alu(16, 8, 5);  // sample coordinates, 4-tap weights, height and normal blends
    }
    out.normal = normalize_eu(n, math);
    return out;
  }
};

}  // namespace tessera::shaders
