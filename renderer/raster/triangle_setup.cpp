#include "raster/triangle_setup.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace tessera {

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

SetupResult setup_triangle(const ClipVertex& a, const ClipVertex& b, const ClipVertex& c, const Viewport& vp,
                           CullMode cull, FrontFace front_face, int varying_count, uint32_t draw, TriangleSetup& out) {
  const WindowVertex wa = window_vertex(a.clip, vp), wb = window_vertex(b.clip, vp), wc = window_vertex(c.clip, vp);
  const WindowVertex* w[3] = {&wa, &wb, &wc};
  const ClipVertex* v[3] = {&a, &b, &c};
  return setup_triangle(w, v, vp, cull, front_face, varying_count, draw, out);
}

}  // namespace tessera
