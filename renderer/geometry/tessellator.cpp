// The tessellator: the factor rules and the D3D11 reference tessellator's fixed-point pattern
// (what hardware and Mesa's lavapipe produce), written from its description in
// docs/tessellator.md. Levels become 16.16 fixed point; an edge's points lerp between the
// placements at the two neighbouring integer levels of its parity; the triangle and quad
// domains are concentric rings joined by transition strips (first ring) and mirrored strips
// (the others); isolines are a grid of lines.
#include "tessera/tessellator.h"

#include <algorithm>
#include <cmath>

#include "tessera/error.h"

namespace tessera {

namespace {

// 16.16 fixed point: every level and every domain coordinate is a multiple of 2^-16, so the
// float points are exact and 1 - t is exact too (mirror-symmetric edges, watertight neighbours).
using Fixed = uint32_t;
constexpr int kFractionBits = 16;
constexpr Fixed kOne = 1u << kFractionBits;
constexpr Fixed kHalf = kOne / 2;
constexpr Fixed kOneThird = 0x5555;   // 1/3 rounded down: the triangle's centre point
constexpr Fixed kTwoThirds = 0xaaaa;  // 2/3 rounded down: how far a triangle ring sits inside

// 1/n in 16.16, rounded to nearest (no ties for n <= 64).
constexpr Fixed reciprocal(int n) { return Fixed((uint64_t(kOne) + uint64_t(n) / 2) / uint64_t(n)); }
static_assert(reciprocal(3) == 0x5555 && reciprocal(6) == 0x2aab && reciprocal(7) == 0x2492 && reciprocal(63) == 0x410);

// Float level (already clamped to [1, 64]) to 16.16, round to nearest even.
Fixed to_fixed(float level) { return Fixed(std::nearbyint(double(level) * double(kOne))); }
float to_float(Fixed f) { return float(f) * (1.0f / float(kOne)); }  // exact: f < 2^24
Fixed ceil_fixed(Fixed f) { return (f + kOne - 1) & ~(kOne - 1); }
Fixed floor_fixed(Fixed f) { return f & ~(kOne - 1); }

// Points on an edge of fixed-point level `level` and the given parity (segments odd or even).
int fixed_point_count(Fixed level, bool odd) {
  if (odd) return int((ceil_fixed(kHalf + (level + 1) / 2) * 2) >> kFractionBits);
  return int((ceil_fixed((level + 1) / 2) * 2) >> kFractionBits) + 1;
}

// The value without its highest set bit (0 for 0).
int drop_highest_bit(int v) {
  for (int bit = 1 << 30; bit > 0; bit >>= 1) {
    if (v & bit) return v & ~bit;
  }
  return 0;
}

// One level's 1D placement. Half an edge is laid out at the two integer levels of the edge's
// parity around the level (floor and ceil of the half level), and each point lerps between its
// positions at those two levels by the level's fraction. The point that is new at the ceil
// level sits at `split` (ruler-function order, so points appear in the same places as the level
// rises); points past it are one index further along at the floor level. The far half mirrors
// the near half (t -> 1 - t); the middle point of an even edge is exactly 1/2.
struct EdgeRule {
  bool odd = false;
  Fixed fraction = 0;   // fraction of the half level
  int half_points = 0;  // points on the near half (the middle one of an even edge excluded)
  int split = 0;        // index of the point that is new at the ceil level
  Fixed inv_floor = 0;  // 1 / segments at the floor level
  Fixed inv_ceil = 0;   // 1 / segments at the ceil level

  EdgeRule(Fixed level, bool odd_parity) : odd(odd_parity) {
    Fixed half = (level + 1) / 2;
    // Level 1 at even parity (the inner level 1 of equal spacing) behaves as level 2.
    if (odd || half == kHalf) half += kHalf;
    const Fixed lo = floor_fixed(half), hi = ceil_fixed(half);
    fraction = half - lo;
    half_points = int(hi >> kFractionBits);
    if (lo == hi) {
      split = half_points + 1;  // never reached: nothing splits at an integer level
    } else if (odd) {
      split = lo == kOne ? 0 : drop_highest_bit(int(lo >> kFractionBits) - 1) * 2 + 1;
    } else {
      split = drop_highest_bit(int(lo >> kFractionBits)) * 2 + 1;
    }
    int lo_segments = int((lo * 2) >> kFractionBits), hi_segments = int((hi * 2) >> kFractionBits);
    if (odd) --lo_segments, --hi_segments;
    TS_CHECK(lo_segments >= 1 && hi_segments <= kMaxTessLevel, "tessellation level out of range");
    inv_floor = reciprocal(lo_segments);
    inv_ceil = reciprocal(hi_segments);
  }

  Fixed place(int i) const {
    bool mirrored = false;
    if (i >= half_points) {
      i = 2 * half_points - i - (odd ? 1 : 0);
      mirrored = true;
    }
    if (i == half_points) return kHalf;  // the middle of an even edge, exact
    const uint32_t on_ceil = uint32_t(i);
    const uint32_t on_floor = i > split ? on_ceil - 1 : on_ceil;
    // Both positions are <= 1/2, so the lerp fits 32 bits before the shift.
    const uint32_t lerp = on_floor * inv_floor * (kOne - fraction) + on_ceil * inv_ceil * fraction;
    const Fixed t = (lerp + kHalf) >> kFractionBits;
    return mirrored ? kOne - t : t;
  }
};

// The placements of all points of one edge: segments + 1 values from 0 to 1. A fixed buffer:
// the tessellator allocates nothing per patch but the patch's own output.
using EdgePoints = std::array<Fixed, kMaxTessLevel + 1>;
void edge_points(Fixed level, int segments, EdgePoints& t) {
  TS_CHECK(segments >= 1 && segments <= kMaxTessLevel, "edge segments out of [1, 64]");
  const EdgeRule rule(level, segments % 2 == 1);
  for (int i = 0; i <= segments; ++i) t[size_t(i)] = rule.place(i);
}

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

// Clamps a level into the spacing's range. NaN and denormals map to the lower bound (as in the
// D3D11 reference); the cull rule has already rejected NaN outer levels.
float clamp_level(float f, LevelRange r) {
  if (!(f >= r.lo)) return r.lo;
  if (f > r.hi) return r.hi;
  return f;
}

struct Level {
  float level;   // placement level: the 16.16 fixed-point level as a float (exact)
  int segments;  // segments on the edge
};

Level round_level(float clamped, TessSpacing spacing) {
  const bool equal = spacing == TessSpacing::kEqual;
  const float f = equal ? std::ceil(clamped) : clamped;
  const Fixed fixed = to_fixed(f);
  // Equal spacing: the parity of the integer level; fractional: the spacing's own parity.
  const bool odd = equal ? (int(f) % 2 == 1) : spacing == TessSpacing::kFractionalOdd;
  return {to_float(fixed), fixed_point_count(fixed, odd) - 1};
}

Level resolve_level(float f, TessSpacing spacing) { return round_level(clamp_level(f, level_range(spacing)), spacing); }

// Vulkan: an inner level of 1 with any other level above 1 is treated as 1 + epsilon, which
// rounds to 2 segments (equal spacing: the reference keeps level 1 at even parity, which places
// like level 2) or 3 (fractional_odd: the smallest fixed-point level above 1, 1 + 2^-16);
// fractional_even is never 1.
Level bump_inner_level(TessSpacing spacing) {
  if (spacing == TessSpacing::kEqual) return {2.0f, 2};
  return {to_float(kOne + 1), 3};
}

// A closed loop of point indices around one ring, in the ring's point order, split into sides
// that run corner to corner. Side s is loop[offset[s]] .. loop[offset[s] + length[s]]
// (wrapping), so consecutive sides share their corner. A ring's points are consecutive indices
// from `first`, so the loop is arithmetic rather than stored; one collapsed to a line of points
// walks the line and back; one collapsed to a point has a loop of size 1 and sides of length 0.
struct Ring {
  uint32_t first = 0;
  int count = 1;        // loop size
  int line_points = 0;  // > 0: the loop walks first .. first + line_points - 1 and back
  std::array<int, 4> offset{};
  std::array<int, 4> length{};

  uint32_t at(int side, int i) const {
    // offset + i never exceeds 2 x the loop size, so one conditional wrap replaces a division.
    int k = offset[size_t(side)] + i;
    if (k >= count) k -= count;
    if (line_points > 0 && k >= line_points) k = 2 * line_points - 2 - k;
    return first + uint32_t(k);
  }
};

Ring make_ring(uint32_t first, int count, int sides, const std::array<int, 4>& lengths) {
  Ring r;
  r.first = first;
  r.count = std::max(count, 1);
  int off = 0;
  for (int s = 0; s < sides; ++s) {
    r.offset[size_t(s)] = off;
    r.length[size_t(s)] = lengths[size_t(s)];
    off += lengths[size_t(s)];
  }
  return r;
}

// Consecutive point indices first .. first + count - 1 as a ring.
Ring consecutive_ring(uint32_t first, int sides, const std::array<int, 4>& lengths) {
  int count = 0;
  for (int s = 0; s < sides; ++s) count += lengths[size_t(s)];
  return make_ring(first, count, sides, lengths);
}

// A ring collapsed to the line of points first .. first + m - 1: the loop walks it and back.
// `line_side` is the side (and the side opposite) that carries the line.
Ring line_ring(uint32_t first, int m, int line_side) {
  std::array<int, 4> lengths{};
  lengths[size_t(line_side)] = lengths[size_t(line_side + 2)] = m - 1;
  Ring r = make_ring(first, m + std::max(m - 2, 0), 4, lengths);
  r.line_points = m;
  return r;
}

// One side of a ring as a chain of point indices (length + 1 points), laid out once so that
// stitching reads plain arrays: each point is read by up to six triangles.
struct Chain {
  std::array<uint32_t, kMaxTessLevel + 2> index;
  int count = 0;
  uint32_t operator[](int i) const { return index[size_t(i)]; }
  int points() const { return count; }
};

void side_chain(const Ring& ring, int side, Chain& c) {
  const int len = ring.length[size_t(side)];
  c.count = len + 1;
  if (ring.line_points == 0) {
    // Within a side no index wraps (offset + i < count for i < length); only its end may.
    const uint32_t base = ring.first + uint32_t(ring.offset[size_t(side)]);
    for (int i = 0; i < len; ++i) c.index[size_t(i)] = base + uint32_t(i);
    c.index[size_t(len)] = ring.at(side, len);
  } else {
    for (int i = 0; i <= len; ++i) c.index[size_t(i)] = ring.at(side, i);
  }
}

// Emits triangles; each is counter-clockwise in (u, v) with v up.
// Writes into storage sized up front from the closed-form counts (tess_counts).
struct TriangleSink {
  uint32_t* out;
  void operator()(uint32_t a, uint32_t b, uint32_t c) {
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out += 3;
  }
};

// The strip between the outer ring (outer levels) and the first inner ring (inner level). Both
// halves of the side are walked in the ruler-function order of point insertion, so a point is
// stitched as soon as it exists at the levels of both chains: walking that order from the
// corner to the middle, a chain advances when the entry is below its half point count; in the
// middle, a quad (both odd), or one triangle towards the chain of even parity; then the second
// half in reverse order. `*_half` is the rule's half_points, less 1 for odd parity.
void stitch_transition(const Chain& outer, int outer_half, bool outer_odd, const Chain& inner, int inner_half,
                       bool inner_odd, TriangleSink& tri) {
  // Where point i of a half edge lands at the highest level: the ruler-function insertion order.
  static constexpr int kInsertionOrder[33] = {0, 32, 16, 8,  17, 4,  18, 9,  19, 2,  20, 10, 21, 5,  22, 11, 23,
                                              1, 24, 12, 25, 6,  26, 13, 27, 3,  28, 14, 29, 7,  30, 15, 31};
  if (outer_odd) --outer_half;
  if (inner_odd) --inner_half;
  int o = 0, i = 0;
  const auto advance_outer = [&] {
    tri(outer[o], outer[o + 1], inner[i]);
    ++o;
  };
  const auto advance_inner = [&] {
    tri(inner[i], outer[o], inner[i + 1]);
    ++i;
  };
  if (kInsertionOrder[0] < outer_half) advance_outer();
  for (int k = 1; k <= 32; ++k) {
    if (kInsertionOrder[k] < inner_half) advance_inner();
    if (kInsertionOrder[k] < outer_half) advance_outer();
  }
  if (inner_odd != outer_odd || inner_odd) {
    if (inner_odd == outer_odd) {  // both odd: a quad across the middle
      tri(inner[i], outer[o], inner[i + 1]);
      tri(inner[i + 1], outer[o], outer[o + 1]);
      ++i, ++o;
    } else if (!inner_odd) {  // the inner chain has a middle point: a triangle pointing in
      tri(inner[i], outer[o], outer[o + 1]);
      ++o;
    } else {  // the outer chain has a middle point: a triangle pointing out
      tri(inner[i], outer[o], inner[i + 1]);
      ++i;
    }
  }
  for (int k = 32; k >= 1; --k) {
    if (kInsertionOrder[k] < outer_half) advance_outer();
    if (kInsertionOrder[k] < inner_half) advance_inner();
  }
  if (kInsertionOrder[0] < outer_half) advance_outer();
}

// The strip between two later rings, whose sides differ by exactly two segments: a triangle at
// each end, and quads between whose diagonals mirror about the side's middle.
void stitch_mirrored(const Chain& outer, const Chain& inner, TriangleSink& tri) {
  const int n = inner.points();
  int o = 0, i = 0;
  tri(outer[o], outer[o + 1], inner[i]);
  ++o;
  int p = 0;
  for (; p < n / 2; ++p, ++o, ++i) {
    tri(outer[o], inner[i + 1], inner[i]);
    tri(outer[o], outer[o + 1], inner[i + 1]);
  }
  for (; p < n - 1; ++p, ++o, ++i) {
    tri(inner[i], outer[o], outer[o + 1]);
    tri(inner[i], outer[o + 1], inner[i + 1]);
  }
  tri(outer[o], outer[o + 1], inner[i]);
}

// The quads between two parallel chains of equal length (the centre strip of a quad patch).
// `flip_middle`: the middle quad takes the other diagonal (a strip along v at odd parity).
void stitch_strip(const Chain& outer, const Chain& inner, bool flip_middle, TriangleSink& tri) {
  const int n = inner.points();
  if (!flip_middle) {
    for (int p = 0; p + 1 < n; ++p) {
      tri(inner[p], outer[p], outer[p + 1]);
      tri(inner[p], outer[p + 1], inner[p + 1]);
    }
    return;
  }
  const int middle = n / 2 - 1;  // index of the quad whose diagonal flips
  for (int p = 0; p + 1 < n; ++p) {
    if (p == middle) {
      tri(outer[p], inner[p + 1], inner[p]);
      tri(outer[p], outer[p + 1], inner[p + 1]);
    } else {
      tri(outer[p], outer[p + 1], inner[p]);
      tri(inner[p], outer[p + 1], inner[p + 1]);
    }
  }
}

// Writes into storage sized up front from the closed-form counts (tess_counts).
struct PointSink {
  glm::vec3* out;
  void quad(Fixed u, Fixed v) { quad_f(to_float(u), to_float(v)); }
  void quad_f(float u, float v) { *out++ = glm::vec3(u, v, 0.0f); }
  // Barycentric (u, v, 1 - u - v): exact, every value is a multiple of 2^-16 in [0, 1].
  void tri(Fixed u, Fixed v) {
    const float fu = to_float(u), fv = to_float(v);
    *out++ = glm::vec3(fu, fv, 1.0f - fu - fv);
  }
};

// Sizes the patch's storage for these counts, keeping what it already holds (no allocation
// when a reused patch is large enough).
void size_patch(TessellatedPatch& p, const TessCounts& counts, TessPrimitive kind) {
  p.kind = kind;
  p.culled = false;
  p.points.resize(size_t(counts.points));
  p.indices.resize(size_t(counts.primitives) * (kind == TessPrimitive::kLines ? 2 : 3));
}

// Fixed-point placements as floats (exact), converted once per edge.
using EdgeFloats = std::array<float, kMaxTessLevel + 1>;
void to_floats(const EdgePoints& t, int segments, EdgeFloats& f) {
  for (int i = 0; i <= segments; ++i) f[size_t(i)] = to_float(t[size_t(i)]);
}

void tessellate_quad(const ResolvedTessFactors& r, TessellatedPatch& p) {
  size_patch(p, tess_counts(TessDomain::kQuad, r), TessPrimitive::kTriangles);
  PointSink pts{p.points.data()};
  TriangleSink tri{p.indices.data()};
  const auto& n = r.outer_segments;
  // Outer ring, counter-clockwise from the corner (0, 1): edge u=0 (outer[0]) down, v=0
  // (outer[1]) right, u=1 (outer[2]) up, v=1 (outer[3]) left.
  std::array<EdgePoints, 4> t;
  for (int e = 0; e < 4; ++e) edge_points(to_fixed(r.outer_level[size_t(e)]), n[size_t(e)], t[size_t(e)]);
  for (int i = 0; i < n[0]; ++i) pts.quad(0, t[0][size_t(n[0] - i)]);
  for (int i = 0; i < n[1]; ++i) pts.quad(t[1][size_t(i)], 0);
  for (int i = 0; i < n[2]; ++i) pts.quad(kOne, t[2][size_t(i)]);
  for (int i = 0; i < n[3]; ++i) pts.quad(t[3][size_t(n[3] - i)], kOne);
  Ring outer = consecutive_ring(0, 4, {n[0], n[1], n[2], n[3]});

  const int iu = r.inner_segments[0], iv = r.inner_segments[1];
  if (iu == 1 && iv == 1) {  // only when every level is 1: one quad, two triangles
    TS_CHECK(n[0] + n[1] + n[2] + n[3] == 4, "inner level 1 with outer levels above 1 must have been bumped");
    p.indices = {1, 2, 0, 2, 3, 0};  // corners (0,1), (0,0), (1,0), (1,1): split along (0,1)-(1,0)
    return;
  }
  // Inner placements: points 0 .. nu-1 along u and 0 .. nv-1 along v.
  const int nu = iu + 1, nv = iv + 1;
  const EdgeRule rule_u(to_fixed(r.inner_level[0]), iu % 2 == 1), rule_v(to_fixed(r.inner_level[1]), iv % 2 == 1);
  EdgePoints tu_fixed, tv_fixed;
  edge_points(to_fixed(r.inner_level[0]), iu, tu_fixed);
  edge_points(to_fixed(r.inner_level[1]), iv, tv_fixed);
  EdgeFloats tu, tv;
  to_floats(tu_fixed, iu, tu);
  to_floats(tv_fixed, iv, tv);

  // Ring k (k >= 1): the rectangle [tu[k], tu[nu-1-k]] x [tv[k], tv[nv-1-k]], in the outer
  // ring's order from its corner at (tu[k], tv[nv-1-k]).
  const int rings = std::min(nu, nv) / 2;
  std::array<uint32_t, kMaxTessLevel + 1> ring_start{};
  for (int k = 1; k < rings; ++k) {
    ring_start[size_t(k)] = uint32_t(pts.out - p.points.data());
    const int eu = nu - 1 - k, ev = nv - 1 - k;
    for (int j = ev; j > k; --j) pts.quad_f(tu[size_t(k)], tv[size_t(j)]);
    for (int i = k; i < eu; ++i) pts.quad_f(tu[size_t(i)], tv[size_t(k)]);
    for (int j = k; j < ev; ++j) pts.quad_f(tu[size_t(eu)], tv[size_t(j)]);
    for (int i = eu; i > k; --i) pts.quad_f(tu[size_t(i)], tv[size_t(ev)]);
  }
  // An even inner level along the shorter axis leaves a line of points at its middle.
  const bool row = nu > nv && iv % 2 == 0;              // along u at v = 1/2
  const bool column = !row && nv >= nu && iu % 2 == 0;  // along v at u = 1/2, top to bottom
  const uint32_t line_start = uint32_t(pts.out - p.points.data());
  int line_points = 0;
  if (row) {
    for (int i = rings; i <= nu - 1 - rings; ++i, ++line_points) pts.quad_f(tu[size_t(i)], 0.5f);
  } else if (column) {
    for (int j = nv - 1 - rings; j >= rings; --j, ++line_points) pts.quad_f(0.5f, tv[size_t(j)]);
  }

  // Rings joined outside in: the first strip by the transition rule, the others mirrored.
  const int stitched_rings = std::min((nu + 1) / 2, (nv + 1) / 2);
  Chain o, in;
  for (int k = 1; k < stitched_rings; ++k) {
    const int su = nu - 1 - 2 * k, sv = nv - 1 - 2 * k;  // segments of ring k's sides
    const Ring inner = k < rings ? consecutive_ring(ring_start[size_t(k)], 4, {sv, su, sv, su})
                                 : line_ring(line_start, line_points, row ? 1 : 0);
    for (int e = 0; e < 4; ++e) {
      side_chain(outer, e, o);
      side_chain(inner, e, in);
      if (k == 1) {
        const bool along_v = e % 2 == 0;
        const EdgeRule outer_rule(to_fixed(r.outer_level[size_t(e)]), n[size_t(e)] % 2 == 1);
        const EdgeRule& inner_rule = along_v ? rule_v : rule_u;
        stitch_transition(o, outer_rule.half_points, outer_rule.odd, in, inner_rule.half_points, inner_rule.odd, tri);
      } else {
        stitch_mirrored(o, in, tri);
      }
    }
    outer = inner;
  }
  // An odd inner level along the shorter axis leaves the innermost ring one cell thick: a
  // strip of quads between its two long sides (bottom and top rows, or left and right columns).
  if (nu > nv && iv % 2 == 1) {
    const int cells = outer.length[1];
    o.count = in.count = cells + 1;
    for (int i = 0; i <= cells; ++i) {
      o.index[size_t(i)] = outer.at(1, i);
      in.index[size_t(i)] = outer.at(3, cells - i);
    }
    stitch_strip(o, in, false, tri);
  } else if (nv >= nu && iu % 2 == 1) {
    const int cells = outer.length[0];
    o.count = in.count = cells + 1;
    for (int j = 0; j <= cells; ++j) {
      o.index[size_t(j)] = outer.at(0, j);
      in.index[size_t(j)] = outer.at(2, cells - j);
    }
    stitch_strip(o, in, iv % 2 == 1, tri);
  }
  TS_CHECK(pts.out == p.points.data() + p.points.size() && tri.out == p.indices.data() + p.indices.size(),
           "quad patch counts differ from the closed form");
}

void tessellate_triangle(const ResolvedTessFactors& r, TessellatedPatch& p) {
  size_patch(p, tess_counts(TessDomain::kTriangle, r), TessPrimitive::kTriangles);
  PointSink pts{p.points.data()};
  TriangleSink tri{p.indices.data()};
  // Corners V = (0,1,0), W = (0,0,1), U = (1,0,0). Outer ring counter-clockwise from V: edge
  // u=0 (outer[0]) from V to W, v=0 (outer[1]) from W to U, w=0 (outer[2]) from U to V.
  const auto& n = r.outer_segments;
  std::array<EdgePoints, 3> t;
  for (int e = 0; e < 3; ++e) edge_points(to_fixed(r.outer_level[size_t(e)]), n[size_t(e)], t[size_t(e)]);
  for (int i = 0; i < n[0]; ++i) pts.tri(0, t[0][size_t(n[0] - i)]);
  for (int i = 0; i < n[1]; ++i) pts.tri(t[1][size_t(i)], 0);
  for (int i = 0; i < n[2]; ++i) pts.tri(t[2][size_t(n[2] - i)], kOne - t[2][size_t(n[2] - i)]);
  Ring outer = consecutive_ring(0, 3, {n[0], n[1], n[2], 0});

  const int ni = r.inner_segments[0];
  if (ni == 1) {  // only when every level is 1: the single triangle
    TS_CHECK(n[0] + n[1] + n[2] == 3, "inner level 1 with outer levels above 1 must have been bumped");
    p.indices = {0, 1, 2};
    return;
  }
  const int np = ni + 1;
  const bool inner_odd = ni % 2 == 1;
  const EdgeRule rule(to_fixed(r.inner_level[0]), inner_odd);
  EdgePoints ti;
  edge_points(to_fixed(r.inner_level[0]), ni, ti);
  // Ring k: each side carries the inner placements k .. np-1-k of its own edge, pushed inwards
  // by 2/3 of placement k (the perpendicular coordinate), less half of that along the side.
  const int rings = np / 2;
  std::array<uint32_t, kMaxTessLevel + 1> ring_start{};
  for (int k = 1; k < rings; ++k) {
    ring_start[size_t(k)] = uint32_t(pts.out - p.points.data());
    const int end = np - 1 - k;
    const Fixed perp = (ti[size_t(k)] * kTwoThirds + kHalf) >> kFractionBits;
    const Fixed shift = (perp + 1) / 2;
    for (int q = end; q > k; --q) pts.tri(perp, ti[size_t(q)] - shift);
    for (int q = k; q < end; ++q) pts.tri(ti[size_t(q)] - shift, perp);
    for (int q = end; q > k; --q) {
      const Fixed u = ti[size_t(q)] - shift;
      pts.tri(u, kOne - u - perp);
    }
  }
  const uint32_t centre = uint32_t(pts.out - p.points.data());
  if (!inner_odd) pts.tri(kOneThird, kOneThird);

  const int stitched_rings = (np + 1) / 2;
  Chain o, in;
  for (int k = 1; k < stitched_rings; ++k) {
    const int s = np - 1 - 2 * k;
    const Ring inner =
        k < rings ? consecutive_ring(ring_start[size_t(k)], 3, {s, s, s, 0}) : make_ring(centre, 1, 3, {0, 0, 0, 0});
    for (int e = 0; e < 3; ++e) {
      side_chain(outer, e, o);
      side_chain(inner, e, in);
      if (k == 1) {
        const EdgeRule outer_rule(to_fixed(r.outer_level[size_t(e)]), n[size_t(e)] % 2 == 1);
        stitch_transition(o, outer_rule.half_points, outer_rule.odd, in, rule.half_points, rule.odd, tri);
      } else {
        stitch_mirrored(o, in, tri);
      }
    }
    outer = inner;
  }
  if (inner_odd) tri(outer.at(0, 0), outer.at(1, 0), outer.at(2, 0));  // the innermost ring is one triangle
  TS_CHECK(pts.out == p.points.data() + p.points.size() && tri.out == p.indices.data() + p.indices.size(),
           "triangle patch counts differ from the closed form");
}

void tessellate_isolines(const ResolvedTessFactors& r, TessellatedPatch& p) {
  size_patch(p, tess_counts(TessDomain::kIsoline, r), TessPrimitive::kLines);
  // Lines at the placements 0 .. D-1 of the (integer) line count D, none at v = 1, each from
  // u = 0 to u = 1 with the segment level's placements.
  const int lines = r.outer_segments[0], segs = r.outer_segments[1];
  EdgePoints v, u_fixed;
  edge_points(to_fixed(r.outer_level[0]), lines, v);
  edge_points(to_fixed(r.outer_level[1]), segs, u_fixed);
  EdgeFloats u;  // converted once, reused by every line
  to_floats(u_fixed, segs, u);
  glm::vec3* point = p.points.data();
  uint32_t* index = p.indices.data();
  for (int l = 0; l < lines; ++l) {
    const uint32_t first = uint32_t(point - p.points.data());
    const float fv = to_float(v[size_t(l)]);
    for (int i = 0; i <= segs; ++i) *point++ = glm::vec3(u[size_t(i)], fv, 0.0f);
    for (int i = 0; i < segs; ++i) {
      index[0] = first + uint32_t(i);
      index[1] = first + uint32_t(i) + 1;
      index += 2;
    }
  }
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
  TS_CHECK(level >= 1.0f && level <= float(kMaxTessLevel), "edge level out of [1, 64]");
  const Fixed fixed = to_fixed(level);
  TS_CHECK(fixed_point_count(fixed, segments % 2 == 1) - 1 == segments, "level does not round to segments");
  EdgePoints t;
  edge_points(fixed, segments, t);
  std::vector<float> out(size_t(segments) + 1);
  for (size_t i = 0; i < out.size(); ++i) out[i] = to_float(t[i]);
  return out;
}

void tessellate(TessDomain domain, TessSpacing spacing, const TessFactors& factors, TessellatedPatch& out) {
  const ResolvedTessFactors r = resolve_tess_factors(domain, spacing, factors);
  if (r.culled) {
    out.points.clear();
    out.indices.clear();
    out.kind = domain == TessDomain::kIsoline ? TessPrimitive::kLines : TessPrimitive::kTriangles;
    out.culled = true;
    return;
  }
  switch (domain) {
    case TessDomain::kTriangle: return tessellate_triangle(r, out);
    case TessDomain::kQuad: return tessellate_quad(r, out);
    case TessDomain::kIsoline: return tessellate_isolines(r, out);
  }
  TS_CHECK(false, "unknown tessellation domain");
}

TessellatedPatch tessellate(TessDomain domain, TessSpacing spacing, const TessFactors& factors) {
  TessellatedPatch p;
  tessellate(domain, spacing, factors, p);
  return p;
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
