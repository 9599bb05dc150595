#include "raster/triangle_setup.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace tessera {

namespace {

// Pixel index range with a sample (at offset o from the pixel corner) inside [lo, hi]:
// the first pixel p with p * 256 + max_offset >= lo, the last with p * 256 + min_offset <= hi.
inline int first_pixel(int32_t lo, int32_t max_offset) {
  return int((int64_t(lo) - max_offset + kSubpixelOne - 1) >> kSubpixelBits);
}
inline int last_pixel(int32_t hi, int32_t min_offset) { return int((int64_t(hi) - min_offset) >> kSubpixelBits); }

}  // namespace

Viewport Viewport::of_state(int width, int height, SampleExtent samples, const ViewportState& viewport,
                            const ScissorRect& scissor) {
  Viewport vp{width, height, samples};
  vp.bound_x0 = std::max(0, scissor.x);
  vp.bound_y0 = std::max(0, scissor.y);
  vp.bound_x1 = int32_t(std::min<int64_t>(int64_t(scissor.x) + scissor.width, width) - 1);
  vp.bound_y1 = int32_t(std::min<int64_t>(int64_t(scissor.y) + scissor.height, height) - 1);
  if (viewport.width == 0.0f || viewport.height == 0.0f) return vp;
  vp.custom = true;
  vp.x = viewport.x;
  vp.y = viewport.y;
  vp.w = viewport.width;
  vp.h = viewport.height;
  vp.min_depth = viewport.min_depth;
  vp.max_depth = viewport.max_depth;
  // Pixels whose centre lies in the viewport rectangle (its edges at the clip volume's x/y = +-w).
  const float y0 = std::min(viewport.y, viewport.y + viewport.height);
  const float y1 = std::max(viewport.y, viewport.y + viewport.height);
  auto first = [](float edge) { return int32_t(std::clamp(std::ceil(double(edge) - 0.5), -1e9, 1e9)); };
  auto last = [](float edge) { return int32_t(std::clamp(std::ceil(double(edge) - 0.5) - 1.0, -1e9, 1e9)); };
  vp.bound_x0 = std::max(vp.bound_x0, first(viewport.x));
  vp.bound_x1 = std::min(vp.bound_x1, last(viewport.x + viewport.width));
  vp.bound_y0 = std::max(vp.bound_y0, first(y0));
  vp.bound_y1 = std::min(vp.bound_y1, last(y1));
  return vp;
}

namespace {

// Set-up from the corners' window positions: cull (zero area, facing, no pixel in reach, outside
// the scissor) from the positions alone, then write the record of a surviving triangle.
inline SetupResult setup_from_window(const WindowVertex* w[3], const ClipVertex* v[3], const Viewport& vp,
                                     CullMode cull, FrontFace front_face, int varying_count, uint32_t draw,
                                     TriangleSetup& out) {
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

}  // namespace

SetupResult setup_triangle(const ClipVertex& a, const ClipVertex& b, const ClipVertex& c, const Viewport& vp,
                           CullMode cull, FrontFace front_face, int varying_count, uint32_t draw, TriangleSetup& out) {
  const WindowVertex wa = window_vertex(a.clip, vp), wb = window_vertex(b.clip, vp), wc = window_vertex(c.clip, vp);
  const WindowVertex* w[3] = {&wa, &wb, &wc};
  const ClipVertex* v[3] = {&a, &b, &c};
  return setup_from_window(w, v, vp, cull, front_face, varying_count, draw, out);
}

SetupResult setup_triangle(const WindowVertex& wa, const WindowVertex& wb, const WindowVertex& wc, const ClipVertex& a,
                           const ClipVertex& b, const ClipVertex& c, const Viewport& vp, CullMode cull,
                           FrontFace front_face, int varying_count, uint32_t draw, TriangleSetup& out) {
  const WindowVertex* w[3] = {&wa, &wb, &wc};
  const ClipVertex* v[3] = {&a, &b, &c};
  return setup_from_window(w, v, vp, cull, front_face, varying_count, draw, out);
}

void edge_functions(const TriangleSetup& t, EdgeFunction e[3]) {
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    e[i].a = int64_t(t.y[j]) - t.y[i];
    e[i].b = int64_t(t.x[i]) - t.x[j];
    e[i].c = -(e[i].a * t.x[i] + e[i].b * t.y[i]) - ((t.top_left >> i) & 1u ? 0 : 1);
  }
}

}  // namespace tessera
