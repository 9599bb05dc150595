// Triangle setup: snap window coordinates to the fixed-point grid, decide facing, and
// produce the record the tile rasterizer walks (edge functions with the top-left rule).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <glm/glm.hpp>

#include "geometry/clipper.h"
#include "tessera/clip_space.h"

namespace tessera {

// Sub-pixel precision of the rasterizer: 8 fractional bits (1/256 pixel), like lavapipe.
constexpr int kSubpixelBits = 8;
constexpr int kSubpixelOne = 1 << kSubpixelBits;
constexpr int kSubpixelHalf = kSubpixelOne / 2;

// One rasterizable triangle, as written to the parameter buffer by binning and read back by
// every tile it touches. 176 bytes:
//   x, y      24 B  vertex positions in 1/256 pixel, orientation normalised so the interior
//                   has positive edge functions
//   z         12 B  window depth (z/w) per vertex
//   inv_w     12 B  1/w per vertex for perspective-correct interpolation
//   varyings  96 B  8 floats per vertex
//   min/max   16 B  inclusive pixel bounding box (pixels with a sample in reach), clamped
//                   to the viewport
//   draw       4 B  index of the draw (instance) for uniforms
//   top_left   4 B  fill rule: bit i set when edge i is a top or left edge; kBackFacingBit
//                   marks a back-facing triangle (what gl_FrontFacing reports as false)
struct TriangleSetup {
  int32_t x[3];
  int32_t y[3];
  float z[3];
  float inv_w[3];
  float varyings[3][kMaxVaryings];
  int32_t min_x, min_y, max_x, max_y;
  uint32_t draw;
  uint32_t top_left;
};
constexpr uint32_t kBackFacingBit = 1u << 3;
static_assert(sizeof(TriangleSetup) == 168, "parameter-buffer accounting assumes 168-byte records");

enum class SetupResult { ok, culled_backface, culled_frontface, culled_degenerate, culled_scissor };

// Reach of a pixel's sample positions in 1/256 pixel from its top-left corner: {128, 128,
// 128, 128} for single sampling (the pixel centre).
struct SampleExtent {
  int32_t min_x = kSubpixelHalf;
  int32_t max_x = kSubpixelHalf;
  int32_t min_y = kSubpixelHalf;
  int32_t max_y = kSubpixelHalf;
};

// The framebuffer and the viewport transform. Scenes draw to the whole framebuffer; draws that
// enter at the primitive stage carry a Vulkan viewport and scissor (tessera/clip_space.h).
struct Viewport {
  int width = 0;  // framebuffer: pixels [0, width) x [0, height)
  int height = 0;
  SampleExtent samples;  // where samples sit inside a pixel (MSAA)
  // A viewport other than the whole framebuffer: the clip volume maps to [x, x + w] x
  // [y, y + h] (h < 0 flips y) and depth [min_depth, max_depth].
  bool custom = false;
  float x = 0.0f, y = 0.0f, w = 0.0f, h = 0.0f, min_depth = 0.0f, max_depth = 1.0f;
  // Pixels that may be written within the framebuffer, inclusive: the scissor and, for a
  // custom viewport, its rectangle (the guard band lets triangles reach past it).
  int32_t bound_x0 = 0, bound_y0 = 0;
  int32_t bound_x1 = std::numeric_limits<int32_t>::max(), bound_y1 = std::numeric_limits<int32_t>::max();

  // The transform and bounds of a Vulkan draw's viewport and scissor in a width x height
  // framebuffer (a zero-sized viewport means the whole framebuffer).
  static Viewport of_state(int width, int height, SampleExtent samples, const ViewportState& viewport,
                           const ScissorRect& scissor);
};

// A vertex's window position as set-up computes it: x and y snapped to 1/256 pixel, depth
// z/w (mapped to the viewport's depth range) and 1/w.
struct WindowVertex {
  int32_t x, y;
  float z, inv_w;
};

// Round to the fixed-point grid (ties to even, as the FPU's default rounding does).
inline int32_t snap_subpixel(float window) { return int32_t(std::nearbyint(window * float(kSubpixelOne))); }

// The one expression set-up evaluates per corner: a mesh's vertex is a corner of some six
// triangles, so the primitive stage may evaluate it once per vertex instead (same bits).
inline WindowVertex window_vertex(const glm::vec4& p, const Viewport& vp) {
  // The whole framebuffer, or the draw's viewport (adding a zero origin changes no bit).
  const float half_w = vp.custom ? 0.5f * vp.w : 0.5f * float(vp.width);
  const float half_h = vp.custom ? 0.5f * vp.h : 0.5f * float(vp.height);
  const float origin_x = vp.custom ? vp.x : 0.0f;
  const float origin_y = vp.custom ? vp.y : 0.0f;
  const float iw = 1.0f / p.w;
  WindowVertex w;
  w.x = snap_subpixel((p.x * iw + 1.0f) * half_w + origin_x);
  w.y = snap_subpixel((p.y * iw + 1.0f) * half_h + origin_y);
  w.z = vp.custom ? vp.min_depth + p.z * iw * (vp.max_depth - vp.min_depth) : p.z * iw;
  w.inv_w = iw;
  return w;
}

// Whether two viewports map clip space to the same window coordinates (window_vertex).
inline bool same_window_transform(const Viewport& a, const Viewport& b) {
  if (a.custom != b.custom) return false;
  if (!a.custom) return a.width == b.width && a.height == b.height;
  auto same = [](float u, float v) { return std::bit_cast<uint32_t>(u) == std::bit_cast<uint32_t>(v); };
  return same(a.x, b.x) && same(a.y, b.y) && same(a.w, b.w) && same(a.h, b.h) && same(a.min_depth, b.min_depth) &&
         same(a.max_depth, b.max_depth);
}

// Sets up a triangle from clip-space vertices (w > 0, inside the guard band): culls by facing
// (`cull`, with `front_face` the winding on screen that faces the viewer), snaps, and clamps
// the pixel bounds to the framebuffer and the viewport's bounds.
SetupResult setup_triangle(const ClipVertex& a, const ClipVertex& b, const ClipVertex& c, const Viewport& vp,
                           CullMode cull, FrontFace front_face, int varying_count, uint32_t draw, TriangleSetup& out);

// Pixel index range with a sample (at offset o from the pixel corner) inside [lo, hi]:
// the first pixel p with p * 256 + max_offset >= lo, the last with p * 256 + min_offset <= hi.
inline int first_pixel(int32_t lo, int32_t max_offset) {
  return int((int64_t(lo) - max_offset + kSubpixelOne - 1) >> kSubpixelBits);
}
inline int last_pixel(int32_t hi, int32_t min_offset) { return int((int64_t(hi) - min_offset) >> kSubpixelBits); }

// The same from the corners' window positions (window_vertex of *v[i] under `vp`): the triangle
// is culled (zero area, facing, no pixel in reach, outside the scissor) before anything is
// written, and only a surviving one reads the vertices' varyings. Inline: the primitive stage
// calls it per triangle.
inline SetupResult setup_triangle(const WindowVertex* w[3], const ClipVertex* v[3], const Viewport& vp, CullMode cull,
                                  FrontFace front_face, int varying_count, uint32_t draw, TriangleSetup& out) {
  // In window coordinates (y down) a counter-clockwise triangle has a negative cross product
  // (doubled_area of the record).
  const int64_t cross =
      int64_t(w[1]->x - w[0]->x) * (w[2]->y - w[0]->y) - int64_t(w[1]->y - w[0]->y) * (w[2]->x - w[0]->x);
  if (cross == 0) return SetupResult::culled_degenerate;
  const bool front = (cross < 0) == (front_face == FrontFace::counter_clockwise);
  if (cull == CullMode::front_and_back || cull == (front ? CullMode::front : CullMode::back)) {
    return front ? SetupResult::culled_frontface : SetupResult::culled_backface;
  }
  const int32_t lo_x = std::min({w[0]->x, w[1]->x, w[2]->x});
  const int32_t hi_x = std::max({w[0]->x, w[1]->x, w[2]->x});
  const int32_t lo_y = std::min({w[0]->y, w[1]->y, w[2]->y});
  const int32_t hi_y = std::max({w[0]->y, w[1]->y, w[2]->y});
  int32_t min_x = std::max(first_pixel(lo_x, vp.samples.max_x), 0);
  int32_t max_x = std::min(last_pixel(hi_x, vp.samples.min_x), vp.width - 1);
  int32_t min_y = std::max(first_pixel(lo_y, vp.samples.max_y), 0);
  int32_t max_y = std::min(last_pixel(hi_y, vp.samples.min_y), vp.height - 1);
  if (min_x > max_x || min_y > max_y) return SetupResult::culled_degenerate;
  // Scissor and viewport bounds (the whole framebuffer for scenes).
  min_x = std::max(min_x, vp.bound_x0);
  max_x = std::min(max_x, vp.bound_x1);
  min_y = std::max(min_y, vp.bound_y0);
  max_y = std::min(max_y, vp.bound_y1);
  if (min_x > max_x || min_y > max_y) return SetupResult::culled_scissor;
  // Make the interior positive for all edges.
  const int o1 = cross > 0 ? 2 : 1, o2 = cross > 0 ? 1 : 2;
  const int order[3] = {0, o1, o2};
  for (int i = 0; i < 3; ++i) {
    const WindowVertex& p = *w[order[i]];
    out.x[i] = p.x;
    out.y[i] = p.y;
    out.z[i] = p.z;
    out.inv_w[i] = p.inv_w;
  }
  for (int i = 0; i < 3; ++i) {
    // ClipVertex holds kMaxVaryings: copy them all (one vector move), then clear the unused.
    std::memcpy(out.varyings[i], v[order[i]]->varyings, sizeof(out.varyings[i]));
    for (int k = varying_count; k < kMaxVaryings; ++k) out.varyings[i][k] = 0.0f;
  }
  out.min_x = min_x;
  out.max_x = max_x;
  out.min_y = min_y;
  out.max_y = max_y;
  out.draw = draw;
  // Top-left rule with y down: the gradient (A, B) of an edge function points inside, so a
  // left edge has A > 0 and a top edge (horizontal, interior below) has A == 0 and B > 0.
  out.top_left = 0;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    const int64_t ea = int64_t(out.y[j]) - out.y[i];
    const int64_t eb = int64_t(out.x[i]) - out.x[j];
    if (ea > 0 || (ea == 0 && eb > 0)) out.top_left |= 1u << i;
  }
  // Two-sided materials light the back of a surface with its reversed normal.
  if (!front) out.top_left |= kBackFacingBit;
  return SetupResult::ok;
}

// Scenes' culling: counter-clockwise is front, `cull_backface` drops the rest.
inline SetupResult setup_triangle(const ClipVertex& a, const ClipVertex& b, const ClipVertex& c, const Viewport& vp,
                                  bool cull_backface, int varying_count, uint32_t draw, TriangleSetup& out) {
  return setup_triangle(a, b, c, vp, cull_backface ? CullMode::back : CullMode::none, FrontFace::counter_clockwise,
                        varying_count, draw, out);
}

// Edge i runs from vertex i to vertex (i+1)%3. Its function at fixed-point point (px, py) is
// A * (px - x_i) + B * (py - y_i) with A = y_{i+1} - y_i, B = x_i - x_{i+1}: positive inside.
struct EdgeFunction {
  int64_t a;
  int64_t b;
  int64_t c;  // value at fixed-point (0, 0), including the fill-rule bias (-1 if not top-left)
  int64_t at(int64_t px, int64_t py) const { return a * px + b * py + c; }
};

// Edge functions with the top-left bias folded in: a sample is covered iff all three are >= 0.
// Inline: the tile rasterizer calls it once per (triangle, tile) pair, where a call cost about
// as much as the arithmetic on the 1M-triangle scenes.
inline void edge_functions(const TriangleSetup& t, EdgeFunction e[3]) {
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    e[i].a = int64_t(t.y[j]) - t.y[i];
    e[i].b = int64_t(t.x[i]) - t.x[j];
    e[i].c = -(e[i].a * t.x[i] + e[i].b * t.y[i]) - ((t.top_left >> i) & 1u ? 0 : 1);
  }
}

// Cross product of the edges v0->v1 and v0->v2 (twice the signed area, in fixed-point units
// squared). Negative after setup; minus this is the sum of the three edge functions.
inline int64_t doubled_area(const TriangleSetup& t) {
  return int64_t(t.x[1] - t.x[0]) * (t.y[2] - t.y[0]) - int64_t(t.y[1] - t.y[0]) * (t.x[2] - t.x[0]);
}

}  // namespace tessera
