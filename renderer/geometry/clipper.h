// Homogeneous clipping of triangles: the near and far planes always, and the x/y guard band
// (a region larger than the viewport inside which the rasterizer's fixed-point range holds, so
// most triangles that cross a screen edge need no geometric clipping at all).
#pragma once

#include <cstdint>

#include <glm/glm.hpp>

namespace tessera {

constexpr int kMaxVaryings = 8;
// A triangle clipped by 6 planes has at most 3 + 6 vertices.
constexpr int kMaxClipVertices = 9;

// A vertex after the vertex shader: clip-space position and varyings. 48 bytes.
struct ClipVertex {
  glm::vec4 clip;
  float varyings[kMaxVaryings];
};
static_assert(sizeof(ClipVertex) == 48, "post-transform vertex is 48 bytes");

// Outcode bits.
enum ClipBits : uint32_t {
  kClipNear = 1u << 0,    // z < 0
  kClipFar = 1u << 1,     // z > w
  kClipLeft = 1u << 2,    // x < -g_x w   (guard band)
  kClipRight = 1u << 3,   // x >  g_x w
  kClipTop = 1u << 4,     // y < -g_y w
  kClipBottom = 1u << 5,  // y >  g_y w
  kClipAllPlanes = 0x3fu,
};

// Guard-band extent as multiples of w: the viewport spans [-1, 1]; the guard band spans
// [-g, g] with g = 1 + 2 * guard_pixels / viewport_size.
struct GuardBand {
  float gx = 1.0f;
  float gy = 1.0f;
  static GuardBand from_pixels(float guard_pixels, int width, int height) {
    return {1.0f + 2.0f * guard_pixels / float(width), 1.0f + 2.0f * guard_pixels / float(height)};
  }
};

// Outcode against the guard band (x/y) and the near/far planes.
// Inline and branch-free: the primitive stage takes six outcodes per triangle. Bit p is set when
// the signed distance to plane p (ClipBits order) is not >= 0 (NaN included).
inline uint32_t clip_outcode(const glm::vec4& c, const GuardBand& gb) {
  const float gw = gb.gx * c.w, hw = gb.gy * c.w;
  return uint32_t(!(c.z >= 0.0f)) | uint32_t(!(c.w - c.z >= 0.0f)) << 1 | uint32_t(!(c.x + gw >= 0.0f)) << 2 |
         uint32_t(!(gw - c.x >= 0.0f)) << 3 | uint32_t(!(c.y + hw >= 0.0f)) << 4 | uint32_t(!(hw - c.y >= 0.0f)) << 5;
}
// Outcode against the exact view frustum (|x|, |y| <= w), used for trivial rejection.
inline uint32_t frustum_outcode(const glm::vec4& c) { return clip_outcode(c, GuardBand{1.0f, 1.0f}); }

// Clips the triangle to the planes in `planes` (ClipBits). Writes a convex polygon to `out`
// and returns its vertex count (0 when nothing remains, else >= 3). Intersections along an
// edge are always computed from the same endpoint, so triangles sharing an edge get the same
// new vertex (no cracks).
int clip_triangle(const ClipVertex& a, const ClipVertex& b, const ClipVertex& c, uint32_t planes, const GuardBand& gb,
                  int varying_count, ClipVertex* out);

}  // namespace tessera
