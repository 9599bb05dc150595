// The tessellator: factor rules, 1D edge placement, and the ring construction for the triangle
// and quad domains (outer ring from the outer factors, concentric inner rings from the inner
// factors, zipper strips between consecutive rings), plus isolines.
#include "tessera/tessellator.h"

#include <algorithm>
#include <cmath>

#include "tessera/error.h"

namespace tessera {

namespace {

// Levels are rounded up to a multiple of 2^-16 (D3D11 holds them in 16.16 fixed point). This
// keeps the shortest fractional segment at least 2^-23 long, above the 2^-24 grid points snap to.
constexpr float kLevelQuantum = 1.0f / 65536.0f;
// Edge parameters snap to multiples of 2^-24, so 1 - t is exact in float for every t in [0, 1]:
// that is what makes an edge's points identical when a neighbour walks it the other way.
constexpr double kParamScale = 16777216.0;  // 2^24

struct LevelRange {
  float lo, hi;
};

LevelRange level_range(TessSpacing spacing) {
  switch (spacing) {
    case TessSpacing::kEqual: return {1.0f, float(kMaxTessLevel)};
    // Vulkan: fractional_odd clamps to maxTessellationGenerationLevel - 1, the largest odd level.
    case TessSpacing::kFractionalOdd: return {1.0f, float(kMaxTessLevel - 1)};
    case TessSpacing::kFractionalEven: return {2.0f, float(kMaxTessLevel)};
  }
  TS_CHECK(false, "unknown tessellation spacing");
}

// Clamps a level into the spacing's range. NaN maps to the lower bound (as in the D3D11
// reference); the cull rule has already rejected NaN outer levels.
float clamp_level(float f, LevelRange r) {
  if (!(f >= r.lo)) return r.lo;
  if (f > r.hi) return r.hi;
  return f;
}

struct Level {
  float level;   // placement level (the integer itself for equal spacing)
  int segments;  // segments on the edge
};

Level round_level(float clamped, TessSpacing spacing) {
  if (spacing == TessSpacing::kEqual) {
    const int n = int(std::ceil(clamped));
    return {float(n), n};
  }
  const float q = std::ceil(clamped / kLevelQuantum) * kLevelQuantum;  // exact: q <= 64
  int n = int(std::ceil(q));
  const bool want_odd = spacing == TessSpacing::kFractionalOdd;
  if ((n % 2 == 1) != want_odd) ++n;
  return {q, n};
}

Level resolve_level(float f, TessSpacing spacing) { return round_level(clamp_level(f, level_range(spacing)), spacing); }

// Vulkan: an inner level of 1 with any other level above 1 is treated as 1 + epsilon, which
// rounds to 2 segments (equal spacing) or 3 (fractional_odd); fractional_even is never 1.
Level bump_inner_level(TessSpacing spacing) {
  if (spacing == TessSpacing::kEqual) return {2.0f, 2};
  return {1.0f + kLevelQuantum, 3};
}

// A closed loop of point indices around one ring, counter-clockwise, split into sides that run
// corner to corner. Side s is loop[offset[s]] .. loop[offset[s] + length[s]] (wrapping), so
// consecutive sides share their corner. A ring collapsed to one point has a loop of size 1 and
// sides of length 0.
struct Ring {
  std::vector<uint32_t> loop;
  std::array<int, 4> offset{};
  std::array<int, 4> length{};

  uint32_t at(int side, int i) const {
    // offset + i never exceeds 2 x the loop size, so one conditional wrap replaces a division.
    size_t k = size_t(offset[side] + i);
    if (k >= loop.size()) k -= loop.size();
    return loop[k];
  }
};

Ring make_ring(std::vector<uint32_t> loop, int sides, const std::array<int, 4>& lengths) {
  Ring r;
  r.loop = std::move(loop);
  int off = 0;
  for (int s = 0; s < sides; ++s) {
    r.offset[s] = off;
    r.length[s] = lengths[s];
    off += lengths[s];
  }
  return r;
}

// Zipper between side `side` of ring `a` and the same side of the ring `b` just inside it: the
// strip between two parallel point chains of n and m segments becomes n + m triangles. The
// chain whose next segment midpoint comes first (in normalised position) advances; ties
// advance the outer chain. Each triangle has two points on one chain and one on the other, so
// none is degenerate, and both chains advance monotonically, so none overlap.
void stitch_side(const Ring& a, const Ring& b, int side, std::vector<uint32_t>& out) {
  const int n = a.length[side];
  const int m = b.length[side];
  int i = 0, j = 0;
  while (i < n || j < m) {
    const bool advance_outer = j == m || (i < n && int64_t(2 * i + 1) * m <= int64_t(2 * j + 1) * n);
    if (advance_outer) {
      out.insert(out.end(), {a.at(side, i), a.at(side, i + 1), b.at(side, j)});
      ++i;
    } else {
      out.insert(out.end(), {a.at(side, i), b.at(side, j + 1), b.at(side, j)});
      ++j;
    }
  }
}

void stitch_rings(const Ring& outer, const Ring& inner, int sides, std::vector<uint32_t>& out) {
  for (int s = 0; s < sides; ++s) stitch_side(outer, inner, s, out);
}

TessellatedPatch tessellate_quad(const ResolvedTessFactors& r) {
  TessellatedPatch p;
  p.kind = TessPrimitive::kTriangles;
  // Outer ring, counter-clockwise from (0, 0): edge v=0 (outer[1]), u=1 (outer[2]), v=1
  // (outer[3]), u=0 (outer[0]).
  const int n0 = r.outer_segments[0], n1 = r.outer_segments[1];
  const int n2 = r.outer_segments[2], n3 = r.outer_segments[3];
  const std::vector<float> t0 = tess_edge_parameters(r.outer_level[0], n0);
  const std::vector<float> t1 = tess_edge_parameters(r.outer_level[1], n1);
  const std::vector<float> t2 = tess_edge_parameters(r.outer_level[2], n2);
  const std::vector<float> t3 = tess_edge_parameters(r.outer_level[3], n3);
  const int iu = r.inner_segments[0], iv = r.inner_segments[1];
  const size_t boundary = size_t(n0 + n1 + n2 + n3);
  p.points.reserve(boundary + size_t(std::max(iu - 1, 0)) * size_t(std::max(iv - 1, 0)));
  for (int i = 0; i < n1; ++i) p.points.emplace_back(t1[i], 0.0f, 0.0f);
  for (int i = 0; i < n2; ++i) p.points.emplace_back(1.0f, t2[i], 0.0f);
  for (int i = 0; i < n3; ++i) p.points.emplace_back(t3[n3 - i], 1.0f, 0.0f);
  for (int i = 0; i < n0; ++i) p.points.emplace_back(0.0f, t0[n0 - i], 0.0f);
  std::vector<uint32_t> outer_loop(boundary);
  for (size_t i = 0; i < boundary; ++i) outer_loop[i] = uint32_t(i);
  Ring prev = make_ring(std::move(outer_loop), 4, {n1, n2, n3, n0});

  if (iu == 1 && iv == 1) {  // only when every level is 1: one quad, two triangles
    TS_CHECK(boundary == 4, "inner level 1 with outer levels above 1 must have been bumped");
    p.indices = {0, 1, 2, 0, 2, 3};
    return p;
  }
  TS_CHECK(iu >= 2 && iv >= 2, "quad inner segments below 2 outside the trivial case");

  // Interior: the grid of inner-level placements, (tu[i], tv[j]) for 0 < i < iu, 0 < j < iv,
  // row by row. Ring k is the grid's k-th concentric rectangle.
  const std::vector<float> tu = tess_edge_parameters(r.inner_level[0], iu);
  const std::vector<float> tv = tess_edge_parameters(r.inner_level[1], iv);
  const uint32_t base = uint32_t(boundary);
  for (int j = 1; j < iv; ++j)
    for (int i = 1; i < iu; ++i) p.points.emplace_back(tu[i], tv[j], 0.0f);
  const auto grid = [&](int i, int j) { return base + uint32_t((j - 1) * (iu - 1) + (i - 1)); };

  const auto inner_ring = [&](int k) {
    const int su = iu - 2 * k, sv = iv - 2 * k;
    std::vector<uint32_t> loop;
    if (su == 0 && sv == 0) return make_ring({grid(k, k)}, 4, {0, 0, 0, 0});
    loop.reserve(size_t(2 * (su + sv)));
    for (int i = k; i < iu - k; ++i) loop.push_back(grid(i, k));       // bottom, +u
    for (int j = k; j < iv - k; ++j) loop.push_back(grid(iu - k, j));  // right, +v
    for (int i = iu - k; i > k; --i) loop.push_back(grid(i, iv - k));  // top, -u
    for (int j = iv - k; j > k; --j) loop.push_back(grid(k, j));       // left, -v
    return make_ring(std::move(loop), 4, {su, sv, su, sv});
  };

  p.indices.reserve(size_t(3) * (boundary + 2 * size_t(iu - 1) * size_t(iv - 1)));
  for (int k = 1;; ++k) {
    Ring cur = inner_ring(k);
    stitch_rings(prev, cur, 4, p.indices);
    const int su = iu - 2 * k, sv = iv - 2 * k;
    if (su == 0 || sv == 0) break;  // collapsed to a line or a point: nothing inside
    if (su == 1 || sv == 1) {       // one cell thick: fill its cells
      for (int j = k; j < iv - k; ++j) {
        for (int i = k; i < iu - k; ++i) {
          const uint32_t a = grid(i, j), b = grid(i + 1, j), c = grid(i + 1, j + 1), d = grid(i, j + 1);
          p.indices.insert(p.indices.end(), {a, b, c, a, c, d});
        }
      }
      break;
    }
    prev = std::move(cur);
  }
  return p;
}

TessellatedPatch tessellate_triangle(const ResolvedTessFactors& r) {
  TessellatedPatch p;
  p.kind = TessPrimitive::kTriangles;
  // Corners W = (0,0,1) at the (u,v) origin, U = (1,0,0), V = (0,1,0). Outer ring
  // counter-clockwise from W: edge v=0 (outer[1]), w=0 (outer[2]), u=0 (outer[0]).
  const int n0 = r.outer_segments[0], n1 = r.outer_segments[1], n2 = r.outer_segments[2];
  const std::vector<float> t0 = tess_edge_parameters(r.outer_level[0], n0);
  const std::vector<float> t1 = tess_edge_parameters(r.outer_level[1], n1);
  const std::vector<float> t2 = tess_edge_parameters(r.outer_level[2], n2);
  const int ni = r.inner_segments[0];
  const size_t boundary = size_t(n0 + n1 + n2);
  const TessCounts counts = tess_counts(TessDomain::kTriangle, r);
  p.points.reserve(size_t(counts.points));
  p.indices.reserve(size_t(counts.primitives) * 3);
  for (int i = 0; i < n1; ++i) p.points.emplace_back(t1[i], 0.0f, t1[n1 - i]);
  for (int i = 0; i < n2; ++i) p.points.emplace_back(t2[n2 - i], t2[i], 0.0f);
  for (int i = 0; i < n0; ++i) p.points.emplace_back(0.0f, t0[n0 - i], t0[i]);
  std::vector<uint32_t> outer_loop(boundary);
  for (size_t i = 0; i < boundary; ++i) outer_loop[i] = uint32_t(i);
  Ring prev = make_ring(std::move(outer_loop), 3, {n1, n2, n0, 0});

  if (ni == 1) {  // only when every level is 1: the single triangle (0,0,1), (1,0,0), (0,1,0)
    TS_CHECK(boundary == 3, "inner level 1 with outer levels above 1 must have been bumped");
    p.indices = {0, 1, 2};
    return p;
  }

  // Ring k: a triangle inset by d = 2/3 * ti[k] in every barycentric coordinate (the corner
  // where the perpendiculars through the k-th inner points of two edges meet), whose sides
  // carry the inner placements ti[k .. ni-k] rescaled to the side.
  const std::vector<float> ti = tess_edge_parameters(r.inner_level[0], ni);
  const auto inner_ring = [&](int k) {
    const int m = ni - 2 * k;
    const uint32_t first = uint32_t(p.points.size());
    if (m == 0) {
      const float third = 1.0f / 3.0f;
      p.points.emplace_back(third, third, 1.0f - 2.0f * third);
      return make_ring({first}, 3, {0, 0, 0, 0});
    }
    const float d = (2.0f / 3.0f) * ti[k];
    const float side = 1.0f - 3.0f * d;
    const float span = ti[ni - k] - ti[k];
    const auto add = [&](float u, float v) { p.points.emplace_back(u, v, 1.0f - u - v); };
    for (int j = 0; j < m; ++j) add(d + side * ((ti[k + j] - ti[k]) / span), d);  // W_k -> U_k
    for (int j = 0; j < m; ++j) {                                                 // U_k -> V_k
      const float s = side * ((ti[k + j] - ti[k]) / span);
      add(1.0f - 2.0f * d - s, d + s);
    }
    for (int j = 0; j < m; ++j) add(d, 1.0f - 2.0f * d - side * ((ti[k + j] - ti[k]) / span));  // V_k -> W_k
    std::vector<uint32_t> loop(size_t(3 * m));
    for (size_t i = 0; i < loop.size(); ++i) loop[i] = first + uint32_t(i);
    return make_ring(std::move(loop), 3, {m, m, m, 0});
  };

  for (int k = 1;; ++k) {
    Ring cur = inner_ring(k);
    stitch_rings(prev, cur, 3, p.indices);
    const int m = ni - 2 * k;
    if (m == 0) break;  // collapsed to the centre point
    if (m == 1) {       // the innermost ring is one triangle
      p.indices.insert(p.indices.end(), {cur.at(0, 0), cur.at(1, 0), cur.at(2, 0)});
      break;
    }
    prev = std::move(cur);
  }
  return p;
}

TessellatedPatch tessellate_isolines(const ResolvedTessFactors& r) {
  TessellatedPatch p;
  p.kind = TessPrimitive::kLines;
  // Lines at v = 0, 1/D, ..., (D-1)/D (no line at v = 1), each from u = 0 to u = 1.
  const int lines = r.outer_segments[0], segs = r.outer_segments[1];
  const std::vector<float> t = tess_edge_parameters(r.outer_level[1], segs);
  p.points.reserve(size_t(lines) * size_t(segs + 1));
  p.indices.reserve(size_t(2) * size_t(lines) * size_t(segs));
  for (int l = 0; l < lines; ++l) {
    const float v = float(l) / float(lines);
    const uint32_t first = uint32_t(p.points.size());
    for (int i = 0; i <= segs; ++i) p.points.emplace_back(t[i], v, 0.0f);
    for (int i = 0; i < segs; ++i) p.indices.insert(p.indices.end(), {first + uint32_t(i), first + uint32_t(i) + 1});
  }
  return p;
}

int used_outer_count(TessDomain domain) {
  switch (domain) {
    case TessDomain::kTriangle: return 3;
    case TessDomain::kQuad: return 4;
    case TessDomain::kIsoline: return 2;
  }
  TS_CHECK(false, "unknown tessellation domain");
}

}  // namespace

ResolvedTessFactors resolve_tess_factors(TessDomain domain, TessSpacing spacing, const TessFactors& factors) {
  ResolvedTessFactors r;
  const int outers = used_outer_count(domain);
  for (int i = 0; i < outers; ++i) {
    if (!(factors.outer[i] > 0.0f)) {  // <= 0 or NaN: the patch is discarded
      r.culled = 1;
      return r;
    }
  }
  if (domain == TessDomain::kIsoline) {
    // The line count always uses equal spacing; the segments use the patch's spacing.
    const Level lines = resolve_level(factors.outer[0], TessSpacing::kEqual);
    const Level segs = resolve_level(factors.outer[1], spacing);
    r.outer_level[0] = lines.level;
    r.outer_segments[0] = lines.segments;
    r.outer_level[1] = segs.level;
    r.outer_segments[1] = segs.segments;
    return r;
  }
  bool any_above_one = false;
  for (int i = 0; i < outers; ++i) {
    const Level l = resolve_level(factors.outer[i], spacing);
    r.outer_level[i] = l.level;
    r.outer_segments[i] = l.segments;
    any_above_one |= l.segments > 1;
  }
  const int inners = domain == TessDomain::kQuad ? 2 : 1;
  std::array<Level, 2> inner{};
  for (int i = 0; i < inners; ++i) {
    inner[i] = resolve_level(factors.inner[i], spacing);
    any_above_one |= inner[i].segments > 1;
  }
  for (int i = 0; i < inners; ++i) {
    if (inner[i].segments == 1 && any_above_one) inner[i] = bump_inner_level(spacing);
    r.inner_level[i] = inner[i].level;
    r.inner_segments[i] = inner[i].segments;
  }
  return r;
}

std::vector<float> tess_edge_parameters(float level, int segments) {
  TS_CHECK(segments >= 1 && segments <= kMaxTessLevel, "edge segments out of [1, 64]");
  TS_CHECK(level > float(segments - 2) && level <= float(segments), "level does not round to segments");
  std::vector<float> t(size_t(segments) + 1);
  t[0] = 0.0f;
  t[size_t(segments)] = 1.0f;
  if (segments == 1) return t;
  // segments - 2 long segments of 1/level and two short ones that make up the rest, placed
  // symmetrically next to the edge's middle: beside the middle segment for an odd count, on
  // either side of the midpoint for an even one. At level == segments all are equal; as the
  // level falls to segments - 2 the short ones shrink to nothing, so points move continuously.
  const double lvl = double(level);
  const double long_len = 1.0 / lvl;
  const double short_len = (lvl - double(segments - 2)) / (2.0 * lvl);
  const int short_a = segments % 2 == 1 ? (segments - 1) / 2 - 1 : segments / 2 - 1;
  const int short_b = segments % 2 == 1 ? (segments - 1) / 2 + 1 : segments / 2;
  double acc = 0.0;
  for (int i = 1; 2 * i <= segments; ++i) {
    acc += (i - 1 == short_a || i - 1 == short_b) ? short_len : long_len;
    const float d = float(std::nearbyint(acc * kParamScale) / kParamScale);
    t[size_t(i)] = d;
    t[size_t(segments - i)] = 1.0f - d;  // exact: d is a multiple of 2^-24 in [0, 1/2]
  }
  if (segments % 2 == 0) t[size_t(segments / 2)] = 0.5f;
  return t;
}

TessellatedPatch tessellate(TessDomain domain, TessSpacing spacing, const TessFactors& factors) {
  const ResolvedTessFactors r = resolve_tess_factors(domain, spacing, factors);
  if (r.culled) {
    TessellatedPatch p;
    p.kind = domain == TessDomain::kIsoline ? TessPrimitive::kLines : TessPrimitive::kTriangles;
    p.culled = true;
    return p;
  }
  switch (domain) {
    case TessDomain::kTriangle: return tessellate_triangle(r);
    case TessDomain::kQuad: return tessellate_quad(r);
    case TessDomain::kIsoline: return tessellate_isolines(r);
  }
  TS_CHECK(false, "unknown tessellation domain");
}

TessCounts tess_counts(TessDomain domain, const ResolvedTessFactors& r) {
  if (r.culled) return {};
  const auto& o = r.outer_segments;
  if (domain == TessDomain::kIsoline) {
    const uint64_t lines = uint64_t(o[0]), segs = uint64_t(o[1]);
    return {lines * (segs + 1), lines * segs};
  }
  // A triangulated polygon with B boundary and I interior points has B + 2I - 2 triangles.
  uint64_t boundary = 0, interior = 0;
  if (domain == TessDomain::kQuad) {
    boundary = uint64_t(o[0] + o[1] + o[2] + o[3]);
    interior = uint64_t(r.inner_segments[0] - 1) * uint64_t(r.inner_segments[1] - 1);
  } else {
    boundary = uint64_t(o[0] + o[1] + o[2]);
    const int n = r.inner_segments[0];
    for (int m = n - 2; m >= 1; m -= 2) interior += 3 * uint64_t(m);
    if (n % 2 == 0) interior += 1;
  }
  return {boundary + interior, boundary + 2 * interior - 2};
}

std::string_view tess_domain_name(TessDomain domain) {
  switch (domain) {
    case TessDomain::kTriangle: return "tri";
    case TessDomain::kQuad: return "quad";
    case TessDomain::kIsoline: return "isoline";
  }
  return "?";
}

std::string_view tess_spacing_name(TessSpacing spacing) {
  switch (spacing) {
    case TessSpacing::kEqual: return "equal";
    case TessSpacing::kFractionalOdd: return "fractional_odd";
    case TessSpacing::kFractionalEven: return "fractional_even";
  }
  return "?";
}

bool parse_tess_domain(std::string_view name, TessDomain& out) {
  for (TessDomain d : {TessDomain::kTriangle, TessDomain::kQuad, TessDomain::kIsoline}) {
    if (name == tess_domain_name(d)) {
      out = d;
      return true;
    }
  }
  return false;
}

bool parse_tess_spacing(std::string_view name, TessSpacing& out) {
  for (TessSpacing s : {TessSpacing::kEqual, TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven}) {
    if (name == tess_spacing_name(s)) {
      out = s;
      return true;
    }
  }
  return false;
}

}  // namespace tessera
