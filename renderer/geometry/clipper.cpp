#include "geometry/clipper.h"

#include <algorithm>
#include <cstring>

namespace tessera {

namespace {

// Signed distance of a clip-space point to plane `p` (inside >= 0).
inline float plane_distance(int p, const glm::vec4& c, const GuardBand& gb) {
  switch (p) {
    case 0: return c.z;
    case 1: return c.w - c.z;
    case 2: return c.x + gb.gx * c.w;
    case 3: return gb.gx * c.w - c.x;
    case 4: return c.y + gb.gy * c.w;
    default: return gb.gy * c.w - c.y;
  }
}

// Canonical order of two vertices so both triangles sharing an edge interpolate identically.
inline bool before(const ClipVertex& u, const ClipVertex& v) {
  return std::memcmp(&u.clip, &v.clip, sizeof(glm::vec4)) < 0;
}

ClipVertex intersect(const ClipVertex& u, float du, const ClipVertex& v, float dv, int varying_count) {
  // Interpolate from the canonical first endpoint.
  const bool swap = before(v, u);
  const ClipVertex& p = swap ? v : u;
  const ClipVertex& q = swap ? u : v;
  const float dp = swap ? dv : du;
  const float dq = swap ? du : dv;
  const float t = dp / (dp - dq);
  ClipVertex r;
  r.clip = p.clip + (q.clip - p.clip) * t;
  for (int i = 0; i < varying_count; ++i) r.varyings[i] = p.varyings[i] + (q.varyings[i] - p.varyings[i]) * t;
  for (int i = varying_count; i < kMaxVaryings; ++i) r.varyings[i] = 0.0f;
  return r;
}

}  // namespace

int clip_triangle(const ClipVertex& a, const ClipVertex& b, const ClipVertex& c, uint32_t planes, const GuardBand& gb,
                  int varying_count, ClipVertex* out) {
  ClipVertex buf[2][kMaxClipVertices];
  int n = 3;
  buf[0][0] = a;
  buf[0][1] = b;
  buf[0][2] = c;
  int cur = 0;
  for (int p = 0; p < 6; ++p) {
    if (!(planes & (1u << p))) continue;
    const ClipVertex* in = buf[cur];
    ClipVertex* res = buf[cur ^ 1];
    int m = 0;
    for (int i = 0; i < n; ++i) {
      const ClipVertex& u = in[i];
      const ClipVertex& v = in[(i + 1) % n];
      const float du = plane_distance(p, u.clip, gb);
      const float dv = plane_distance(p, v.clip, gb);
      const bool u_in = du >= 0.0f;
      const bool v_in = dv >= 0.0f;
      if (u_in) res[m++] = u;
      if (u_in != v_in && m < kMaxClipVertices) res[m++] = intersect(u, du, v, dv, varying_count);
    }
    n = m;
    cur ^= 1;
    if (n < 3) return 0;
  }
  std::copy(buf[cur], buf[cur] + n, out);
  return n;
}

}  // namespace tessera
