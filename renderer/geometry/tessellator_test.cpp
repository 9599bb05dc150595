#include "tessera/tessellator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

namespace tessera {
namespace {

constexpr TessSpacing kSpacings[] = {TessSpacing::kEqual, TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven};

TessFactors uniform_factors(float n) { return TessFactors{{n, n, n, n}, {n, n}}; }

uint64_t closed_form_triangles(TessDomain domain, uint64_t n) {
  if (domain == TessDomain::kQuad) return 2 * n * n;
  return n % 2 == 0 ? 3 * n * n / 2 : (3 * n * n - 1) / 2;
}

// Signed area in (u, v) domain space, in double from the float points.
double signed_area(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
  return 0.5 * ((double(b.x) - a.x) * (double(c.y) - a.y) - (double(c.x) - a.x) * (double(b.y) - a.y));
}

bool bits_equal(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The domain edges (Vulkan outer-factor indices) a point lies on: none for an interior point,
// two for a corner.
std::vector<int> edges_of_point(TessDomain domain, const glm::vec3& p) {
  std::vector<int> e;
  if (domain == TessDomain::kQuad) {
    if (p.x == 0.0f) e.push_back(0);
    if (p.y == 0.0f) e.push_back(1);
    if (p.x == 1.0f) e.push_back(2);
    if (p.y == 1.0f) e.push_back(3);
  } else {
    if (p.x == 0.0f) e.push_back(0);
    if (p.y == 0.0f) e.push_back(1);
    if (p.z == 0.0f) e.push_back(2);
  }
  return e;
}

// Checks every topology invariant of a triangle-domain or quad-domain patch; returns a
// description of the first violation, or "" when all hold.
std::string check_topology(TessDomain domain, const ResolvedTessFactors& r, const TessellatedPatch& p,
                           bool allow_coincident = false) {
  const int edges = domain == TessDomain::kQuad ? 4 : 3;
  const double domain_area = domain == TessDomain::kQuad ? 1.0 : 0.5;
  if (p.kind != TessPrimitive::kTriangles) return "not triangles";
  const TessCounts counts = tess_counts(domain, r);
  if (p.points.size() != counts.points) return "point count differs from the closed form";
  if (p.primitive_count() != counts.primitives) return "triangle count differs from the closed form";
  // Points: inside the domain. Distinct, except that a fractional level just above an integer of
  // its parity (within about 2^-16 per segment, e.g. a fractional_odd inner level bumped to
  // 1 + 2^-16) grows new points out of existing ones that round to the same 16.16 position
  // (`allow_coincident`, which also allows those points' flat or folded slivers).
  std::vector<std::tuple<float, float, float>> distinct;
  distinct.reserve(p.points.size());
  for (const glm::vec3& q : p.points) {
    if (!(q.x >= 0.0f && q.y >= 0.0f && q.x <= 1.0f && q.y <= 1.0f)) return "point outside the domain";
    if (domain == TessDomain::kTriangle) {
      if (!(q.z >= 0.0f) || std::fabs(double(q.x) + q.y + q.z - 1.0) > 1e-6) return "bad barycentrics";
    } else if (q.z != 0.0f) {
      return "quad point with w != 0";
    }
    distinct.emplace_back(q.x, q.y, q.z);
  }
  std::sort(distinct.begin(), distinct.end());
  const bool coincident = std::adjacent_find(distinct.begin(), distinct.end()) != distinct.end();
  if (coincident && !allow_coincident) return "duplicate points";
  // Triangles: counter-clockwise (zero area only where points coincide: then a strip between a
  // ring and points on the ring outside it is flat), areas sum to the
  // domain, every point used, no directed edge twice (two triangles on the same side of an edge
  // would overlap).
  double area = 0.0;
  std::vector<bool> used(p.points.size(), false);
  std::vector<uint64_t> directed;
  directed.reserve(p.indices.size());
  for (size_t t = 0; t < p.indices.size(); t += 3) {
    const uint32_t i[3] = {p.indices[t], p.indices[t + 1], p.indices[t + 2]};
    for (uint32_t k : i) {
      if (k >= p.points.size()) return "index out of range";
      used[k] = true;
    }
    const double a = signed_area(p.points[i[0]], p.points[i[1]], p.points[i[2]]);
    // A fractional level just above an integer of its parity can fold an edge's middle back by a
    // few 2^-16 (the rounded reciprocals put a point past the exact midpoint): the reference
    // does the same; the fold's slivers are below 2^-12 in area.
    if (a < (allow_coincident ? -std::ldexp(1.0, -12) : 0.0)) {
      std::string where;
      for (uint32_t k : i) {
        where += " (" + std::to_string(p.points[k].x) + ", " + std::to_string(p.points[k].y) + ")";
      }
      return "clockwise triangle" + where + " area " + std::to_string(a);
    }
    if (a == 0.0 && !allow_coincident) return "degenerate triangle";
    area += a;
    for (int e = 0; e < 3; ++e) directed.push_back(uint64_t(i[e]) << 32 | i[(e + 1) % 3]);
  }
  if (std::fabs(area - domain_area) > 1e-6) return "triangles do not tile the domain";
  if (std::find(used.begin(), used.end(), false) != used.end()) return "unused point";
  std::sort(directed.begin(), directed.end());
  if (std::adjacent_find(directed.begin(), directed.end()) != directed.end()) return "directed edge used twice";
  // Edges: an undirected edge is shared by at most two triangles (the directed check above
  // gives that, with opposite orientations); those used once are the domain boundary, with
  // round(outer[i]) segments on edge i.
  std::vector<int> boundary_segments(edges, 0);
  int boundary = 0;
  for (int e = 0; e < edges; ++e) boundary += r.outer_segments[size_t(e)];
  for (uint64_t e : directed) {
    const uint32_t from = uint32_t(e >> 32), to = uint32_t(e);
    if (std::binary_search(directed.begin(), directed.end(), uint64_t(to) << 32 | from)) continue;
    const std::vector<int> ea = edges_of_point(domain, p.points[from]);
    const std::vector<int> eb = edges_of_point(domain, p.points[to]);
    int common = -1;
    for (int x : ea)
      if (std::find(eb.begin(), eb.end(), x) != eb.end()) common = x;
    if (common < 0) return "boundary edge not on the domain boundary";
    ++boundary_segments[size_t(common)];
  }
  for (int e = 0; e < edges; ++e) {
    if (boundary_segments[size_t(e)] != r.outer_segments[size_t(e)])
      return "edge " + std::to_string(e) + " has the wrong segment count";
    // The outer ring comes first in the point order; with distinct points nothing else lies on
    // the boundary.
    int on_edge = 0;
    for (size_t k = 0; k < p.points.size(); ++k) {
      const std::vector<int> eq = edges_of_point(domain, p.points[k]);
      const bool here = std::find(eq.begin(), eq.end(), e) != eq.end();
      if (k < size_t(boundary)) {
        on_edge += here;
      } else if (here && !allow_coincident) {
        return "interior point on edge " + std::to_string(e);
      }
    }
    if (on_edge != r.outer_segments[size_t(e)] + 1) return "edge " + std::to_string(e) + " has the wrong point count";
  }
  return "";
}

TEST(Tessellator, EqualSpacingMatchesClosedFormsForEveryLevel) {
  for (TessDomain domain : {TessDomain::kQuad, TessDomain::kTriangle}) {
    for (int n = 1; n <= kMaxTessLevel; ++n) {
      const TessellatedPatch p = tessellate(domain, TessSpacing::kEqual, uniform_factors(float(n)));
      EXPECT_EQ(p.primitive_count(), closed_form_triangles(domain, uint64_t(n)))
          << tess_domain_name(domain) << " N=" << n;
      EXPECT_EQ(p.indices.size() % 3, 0u);
    }
  }
  const uint64_t tri_small[] = {1, 6, 13, 24};
  for (int n = 1; n <= 4; ++n)
    EXPECT_EQ(tessellate(TessDomain::kTriangle, TessSpacing::kEqual, uniform_factors(float(n))).primitive_count(),
              tri_small[n - 1]);
}

TEST(Tessellator, EqualSpacingUniformPatchesAreValidTriangulations) {
  for (TessDomain domain : {TessDomain::kQuad, TessDomain::kTriangle}) {
    for (int n = 1; n <= kMaxTessLevel; n += (n < 10 ? 1 : 9)) {
      const TessFactors f = uniform_factors(float(n));
      const std::string err = check_topology(domain, resolve_tess_factors(domain, TessSpacing::kEqual, f),
                                             tessellate(domain, TessSpacing::kEqual, f));
      EXPECT_EQ(err, "") << tess_domain_name(domain) << " N=" << n;
    }
  }
}

TEST(Tessellator, FractionalSpacingHasTheTopologyOfItsRoundedInteger) {
  // fractional_odd with level f tessellates like equal spacing with the next odd integer >= f
  // (clamped to [1, 63]); fractional_even like the next even integer >= f (clamped to [2, 64]).
  for (TessDomain domain : {TessDomain::kQuad, TessDomain::kTriangle, TessDomain::kIsoline}) {
    for (float f = 0.25f; f <= 70.0f; f += 0.37f) {
      for (TessSpacing s : {TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven}) {
        int n = int(std::ceil(std::clamp(f, s == TessSpacing::kFractionalOdd ? 1.0f : 2.0f,
                                         s == TessSpacing::kFractionalOdd ? 63.0f : 64.0f)));
        if ((n % 2 == 1) != (s == TessSpacing::kFractionalOdd)) ++n;
        TessFactors ff = uniform_factors(f);
        TessFactors fe = uniform_factors(float(n));
        if (domain == TessDomain::kIsoline) ff.outer[0] = fe.outer[0] = 3.0f;  // line count is always integer
        const TessellatedPatch a = tessellate(domain, s, ff);
        const TessellatedPatch b = tessellate(domain, TessSpacing::kEqual, fe);
        EXPECT_EQ(a.points.size(), b.points.size()) << f;
        EXPECT_EQ(a.indices, b.indices) << tess_domain_name(domain) << " " << tess_spacing_name(s) << " f=" << f;
      }
    }
  }
}

TEST(Tessellator, IsolineCounts) {
  for (int d = 1; d <= kMaxTessLevel; d += 7) {
    for (int s = 1; s <= kMaxTessLevel; s += 5) {
      const TessFactors f{{float(d), float(s), 0, 0}, {0, 0}};
      const TessellatedPatch p = tessellate(TessDomain::kIsoline, TessSpacing::kEqual, f);
      ASSERT_EQ(p.kind, TessPrimitive::kLines);
      EXPECT_EQ(p.primitive_count(), uint64_t(d) * uint64_t(s));
      EXPECT_EQ(p.points.size(), uint64_t(d) * uint64_t(s + 1));
      const TessCounts c =
          tess_counts(TessDomain::kIsoline, resolve_tess_factors(TessDomain::kIsoline, TessSpacing::kEqual, f));
      EXPECT_EQ(c.points, p.points.size());
      EXPECT_EQ(c.primitives, p.primitive_count());
      // Lines at v = l / d for l < d, each from u = 0 to u = 1 with increasing u.
      for (size_t i = 0; i < p.indices.size(); i += 2) {
        const glm::vec3 a = p.points[p.indices[i]], b = p.points[p.indices[i + 1]];
        EXPECT_EQ(a.y, b.y);
        EXPECT_LT(a.x, b.x);
        EXPECT_LT(a.y, 1.0f);
      }
    }
  }
  // The line count uses equal spacing whatever the patch's spacing; the segments do not.
  const TessFactors f{{3.5f, 3.5f, 0, 0}, {0, 0}};
  const ResolvedTessFactors odd = resolve_tess_factors(TessDomain::kIsoline, TessSpacing::kFractionalOdd, f);
  EXPECT_EQ(odd.outer_segments[0], 4);
  EXPECT_EQ(odd.outer_segments[1], 5);
  const ResolvedTessFactors even =
      resolve_tess_factors(TessDomain::kIsoline, TessSpacing::kFractionalEven, TessFactors{{1, 1, 0, 0}, {0, 0}});
  EXPECT_EQ(even.outer_segments[0], 1);
  EXPECT_EQ(even.outer_segments[1], 2);
}

TEST(Tessellator, EdgeParametersAreMirrorSymmetricAndMonotonic) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> level(0.0f, 70.0f);
  for (int trial = 0; trial < 3000; ++trial) {
    const TessSpacing s = kSpacings[trial % 3];
    const ResolvedTessFactors r = resolve_tess_factors(
        TessDomain::kIsoline, s,
        TessFactors{{1, trial < 192 ? float(trial / 3 + 1) + float(trial % 3) / 65536.0f : level(rng), 0, 0}, {0, 0}});
    const int n = r.outer_segments[1];
    const std::vector<float> t = tess_edge_parameters(r.outer_level[1], n);
    ASSERT_EQ(t.size(), size_t(n) + 1);
    EXPECT_EQ(t.front(), 0.0f);
    EXPECT_EQ(t.back(), 1.0f);
    for (int i = 0; i <= n; ++i) {
      ASSERT_TRUE(bits_equal(t[size_t(n - i)], 1.0f - t[size_t(i)])) << "level " << r.outer_level[1] << " i=" << i;
      // Multiples of 2^-16, so 1 - t is exact.
      ASSERT_EQ(std::ldexp(t[size_t(i)], 16), std::floor(std::ldexp(t[size_t(i)], 16)));
      if (i > 0) {
        // Strictly increasing with equal spacing; a fractional level just above an integer of
        // its parity may have a new point on an old one, or step back at the middle by up to
        // 32 x 2^-16 (a 16-bit reciprocal's rounding, times up to 32 segments to the middle).
        if (s == TessSpacing::kEqual) {
          ASSERT_LT(t[size_t(i - 1)], t[size_t(i)]) << "level " << r.outer_level[1] << " i=" << i;
        } else {
          ASSERT_GE(t[size_t(i)], t[size_t(i - 1)] - 32.0f / 65536.0f) << "level " << r.outer_level[1] << " i=" << i;
        }
      }
    }
  }
}

// Largest distance from a point of one set to the nearest point of the other.
double hausdorff(const std::vector<float>& a, const std::vector<float>& b) {
  const auto one_way = [](const std::vector<float>& x, const std::vector<float>& y) {
    double worst = 0.0;
    for (float p : x) {
      double best = 1e9;
      for (float q : y) best = std::min(best, std::fabs(double(p) - q));
      worst = std::max(worst, best);
    }
    return worst;
  };
  return std::max(one_way(a, b), one_way(b, a));
}

std::vector<float> edge_for(TessSpacing s, float f) {
  const ResolvedTessFactors r = resolve_tess_factors(TessDomain::kIsoline, s, TessFactors{{1, f, 0, 0}, {0, 0}});
  return tess_edge_parameters(r.outer_level[1], r.outer_segments[1]);
}

TEST(Tessellator, FractionalPlacementMovesContinuously) {
  // Stepping the level by 1/256 moves every point by at most about that much, also where the
  // segment count jumps by two (the new points grow out of existing ones).
  for (TessSpacing s : {TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven}) {
    const float step = 1.0f / 256.0f;
    for (float f = 1.0f; f < 20.0f; f += step) {
      const double d = hausdorff(edge_for(s, f), edge_for(s, f + step));
      ASSERT_LE(d, 2.0 * step) << tess_spacing_name(s) << " at level " << f;
    }
    // Strictly between integers the points really move: placement is fractional.
    EXPECT_NE(edge_for(s, 5.25f), edge_for(s, 5.75f));
  }
}

TEST(Tessellator, FractionalPlacementAtIntegerLevelsEqualsEqualSpacing) {
  // At a level of the spacing's parity the points are bit-identical to equal spacing (i times the
  // 16.16 reciprocal of n). At the other parity they are not (one segment more, each point lerped
  // between its places at the two neighbouring levels of the parity).
  for (int n = 1; n <= kMaxTessLevel; ++n) {
    const std::vector<float> equal = edge_for(TessSpacing::kEqual, float(n));
    const TessSpacing same = n % 2 == 1 ? TessSpacing::kFractionalOdd : TessSpacing::kFractionalEven;
    EXPECT_EQ(edge_for(same, float(n)), equal) << n;
    if (n >= 2 && n <= 62) {
      const TessSpacing other = n % 2 == 1 ? TessSpacing::kFractionalEven : TessSpacing::kFractionalOdd;
      EXPECT_EQ(edge_for(other, float(n)).size(), equal.size() + 1) << n;
    }
  }
  // Between levels of its parity a point lerps between its positions at the two: fractional_odd
  // at 2 is halfway between level 1 (the new points sit on the ends) and level 3 (at 1/3, 2/3):
  // 1/6 and 5/6, rounded to 16.16.
  EXPECT_EQ(edge_for(TessSpacing::kFractionalOdd, 2.0f),
            (std::vector<float>{0.0f, 0x2aab / 65536.0f, 1.0f - 0x2aab / 65536.0f, 1.0f}));
  // fractional_even at 3: halfway between level 2 (1/2) and level 4 (1/4) for the point that is
  // new at 4; the midpoint stays: 0, 3/8, 1/2, 5/8, 1.
  EXPECT_EQ(edge_for(TessSpacing::kFractionalEven, 3.0f), (std::vector<float>{0.0f, 0.375f, 0.5f, 0.625f, 1.0f}));
  // fractional_odd at 1 + 2^-16 (where an inner level 1 is bumped to): 3 segments, the new
  // points still on the ends.
  EXPECT_EQ(edge_for(TessSpacing::kFractionalOdd, 1.0f + 1.0f / 65536.0f),
            (std::vector<float>{0.0f, 0.0f, 1.0f, 1.0f}));
}

TEST(Tessellator, RandomMixedFactorsKeepTopologyInvariants) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> small(0.5f, 12.0f);
  std::uniform_real_distribution<float> large(0.5f, 66.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  const auto factor = [&] { return pick(rng) < 4 ? large(rng) : small(rng); };
  for (TessDomain domain : {TessDomain::kQuad, TessDomain::kTriangle}) {
    for (TessSpacing s : kSpacings) {
      for (int trial = 0; trial < 2000; ++trial) {
        TessFactors f{{factor(), factor(), factor(), factor()}, {factor(), factor()}};
        if (trial % 10 == 0) f.inner = {1.0f, 0.7f};  // the inner-level-1 rule
        if (trial % 17 == 0) f.outer = {1.0f, 1.0f, 1.0f, 1.0f};
        if (trial % 13 == 0) f.outer[size_t(trial % 3)] = float(std::max(1, int(f.outer[0])));  // exact integers too
        const ResolvedTessFactors r = resolve_tess_factors(domain, s, f);
        ASSERT_FALSE(r.culled);
        // Fractional levels may place a new point on an existing one (see check_topology).
        const std::string err = check_topology(domain, r, tessellate(domain, s, f), s != TessSpacing::kEqual);
        ASSERT_EQ(err, "") << tess_domain_name(domain) << " " << tess_spacing_name(s) << " outer " << f.outer[0] << ","
                           << f.outer[1] << "," << f.outer[2] << "," << f.outer[3] << " inner " << f.inner[0] << ","
                           << f.inner[1];
      }
    }
  }
}

// The outer ring of a tessellated patch: its first points (sum of the outer segment counts).
// Only these are compared: a fractional_odd inner level bumped to 1 + 2^-16 puts the first inner
// ring on the boundary too.
struct Boundary {
  std::vector<glm::vec3> points;
};
Boundary boundary_of(TessDomain domain, TessSpacing s, const TessFactors& f) {
  const TessellatedPatch p = tessellate(domain, s, f);
  const ResolvedTessFactors r = resolve_tess_factors(domain, s, f);
  const int edges = domain == TessDomain::kQuad ? 4 : 3;
  int n = 0;
  for (int e = 0; e < edges; ++e) n += r.outer_segments[size_t(e)];
  return Boundary{std::vector<glm::vec3>(p.points.begin(), p.points.begin() + n)};
}

// The values of coordinate `along` for the boundary points with coordinate `fixed_axis` ==
// `value`, sorted.
std::vector<float> edge_coords(const Boundary& p, int fixed_axis, float value, int along) {
  std::vector<float> out;
  for (const glm::vec3& q : p.points)
    if (q[fixed_axis] == value) out.push_back(q[along]);
  std::sort(out.begin(), out.end());
  return out;
}

void expect_bit_identical(std::vector<float> a, std::vector<float> b, const std::string& what) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(bits_equal(a[i], b[i])) << what << " point " << i << ": " << a[i] << " vs " << b[i];
}

TEST(Tessellator, SharedEdgesAreWatertight) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> level(0.5f, 40.0f);
  for (TessSpacing s : kSpacings) {
    for (int trial = 0; trial < 200; ++trial) {
      const float shared = level(rng);
      // Quad A's edge u=1 against quad B's edge u=0, same direction in v.
      const TessFactors a{{level(rng), level(rng), shared, level(rng)}, {level(rng), level(rng)}};
      const TessFactors b{{shared, level(rng), level(rng), level(rng)}, {level(rng), level(rng)}};
      const Boundary pa = boundary_of(TessDomain::kQuad, s, a);
      const Boundary pb = boundary_of(TessDomain::kQuad, s, b);
      expect_bit_identical(edge_coords(pa, 0, 1.0f, 1), edge_coords(pb, 0, 0.0f, 1), "quad u=1 vs u=0");
      // A neighbour whose edge runs the other way (v=0 of A against v=0 of a mirrored B): the
      // neighbour's coordinate maps through 1 - t.
      const TessFactors c{{level(rng), shared, level(rng), level(rng)}, {level(rng), level(rng)}};
      const Boundary pc = boundary_of(TessDomain::kQuad, s, c);
      std::vector<float> flipped = edge_coords(pc, 1, 0.0f, 0);
      for (float& t : flipped) t = 1.0f - t;
      expect_bit_identical(edge_coords(pa, 0, 1.0f, 1), flipped, "quad edge reversed");
      // Triangles: edge v=0 of one (points (t, 0, 1-t)) against edge u=0 of another, walked
      // from W to V (points (0, t, 1-t)), and against its own reversed w coordinate.
      const TessFactors ta{{level(rng), shared, level(rng), 0}, {level(rng), 0}};
      const TessFactors tb{{shared, level(rng), level(rng), 0}, {level(rng), 0}};
      const Boundary qa = boundary_of(TessDomain::kTriangle, s, ta);
      const Boundary qb = boundary_of(TessDomain::kTriangle, s, tb);
      expect_bit_identical(edge_coords(qa, 1, 0.0f, 0), edge_coords(qb, 0, 0.0f, 1), "tri v=0 vs u=0");
      expect_bit_identical(edge_coords(qa, 1, 0.0f, 0), edge_coords(qb, 0, 0.0f, 2), "tri v=0 vs u=0 reversed");
      expect_bit_identical(edge_coords(qa, 1, 0.0f, 0), edge_coords(pa, 0, 1.0f, 1), "tri edge vs quad edge");
    }
  }
}

TEST(Tessellator, CullsOnNonPositiveOrNanOuterLevels) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (TessDomain domain : {TessDomain::kTriangle, TessDomain::kQuad, TessDomain::kIsoline}) {
    const int used = domain == TessDomain::kQuad ? 4 : domain == TessDomain::kTriangle ? 3 : 2;
    for (TessSpacing s : kSpacings) {
      for (int e = 0; e < used; ++e) {
        for (float bad : {0.0f, -0.0f, -1.0f, nan, -inf}) {
          TessFactors f = uniform_factors(5.0f);
          f.outer[size_t(e)] = bad;
          const TessellatedPatch p = tessellate(domain, s, f);
          EXPECT_TRUE(p.culled) << tess_domain_name(domain) << " outer[" << e << "] = " << bad;
          EXPECT_TRUE(p.points.empty());
          EXPECT_TRUE(p.indices.empty());
          EXPECT_EQ(tess_counts(domain, resolve_tess_factors(domain, s, f)).points, 0u);
        }
      }
      // Unused outer entries and inner levels never cull.
      TessFactors f = uniform_factors(5.0f);
      for (int e = used; e < 4; ++e) f.outer[size_t(e)] = nan;
      f.inner = {nan, -3.0f};
      EXPECT_FALSE(tessellate(domain, s, f).culled) << tess_domain_name(domain);
      // A tiny positive level is not culled: it clamps up. +inf clamps to the maximum.
      TessFactors g = uniform_factors(1e-30f);
      EXPECT_FALSE(tessellate(domain, s, g).culled);
      g.outer[1] = inf;
      const int max_level = s == TessSpacing::kFractionalOdd ? 63 : 64;
      EXPECT_EQ(resolve_tess_factors(domain, s, g).outer_segments[1], max_level);
    }
  }
}

TEST(Tessellator, ClampsAndRoundsPerSpacing) {
  const auto seg = [](TessSpacing s, float f) {
    return resolve_tess_factors(TessDomain::kIsoline, s, TessFactors{{1, f, 0, 0}, {0, 0}}).outer_segments[1];
  };
  EXPECT_EQ(seg(TessSpacing::kEqual, 0.3f), 1);
  EXPECT_EQ(seg(TessSpacing::kEqual, 2.0f), 2);
  EXPECT_EQ(seg(TessSpacing::kEqual, 2.01f), 3);
  EXPECT_EQ(seg(TessSpacing::kEqual, 100.0f), 64);
  EXPECT_EQ(seg(TessSpacing::kFractionalOdd, 0.3f), 1);
  EXPECT_EQ(seg(TessSpacing::kFractionalOdd, 1.01f), 3);
  EXPECT_EQ(seg(TessSpacing::kFractionalOdd, 3.0f), 3);
  EXPECT_EQ(seg(TessSpacing::kFractionalOdd, 4.0f), 5);
  EXPECT_EQ(seg(TessSpacing::kFractionalOdd, 64.0f), 63);
  EXPECT_EQ(seg(TessSpacing::kFractionalEven, 0.3f), 2);
  EXPECT_EQ(seg(TessSpacing::kFractionalEven, 2.5f), 4);
  EXPECT_EQ(seg(TessSpacing::kFractionalEven, 4.0f), 4);
  EXPECT_EQ(seg(TessSpacing::kFractionalEven, 63.5f), 64);
  EXPECT_EQ(seg(TessSpacing::kFractionalEven, 1000.0f), 64);
}

TEST(Tessellator, InnerLevelOneRule) {
  // Every level 1: one triangle (0,0,1), (1,0,0), (0,1,0) / one quad as two triangles.
  const TessellatedPatch tri = tessellate(TessDomain::kTriangle, TessSpacing::kEqual, uniform_factors(1.0f));
  ASSERT_EQ(tri.points.size(), 3u);
  EXPECT_EQ(tri.points[0], glm::vec3(0, 1, 0));  // V, W, U: the outer ring's order
  EXPECT_EQ(tri.points[1], glm::vec3(0, 0, 1));
  EXPECT_EQ(tri.points[2], glm::vec3(1, 0, 0));
  EXPECT_EQ(tri.indices, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(tessellate(TessDomain::kQuad, TessSpacing::kEqual, uniform_factors(1.0f)).primitive_count(), 2u);
  // Inner 1 with an outer level above 1: inner treated as 1 + epsilon, so 2 segments (equal:
  // a centre point) or 3 (fractional_odd: a small centre triangle).
  const TessFactors f{{4, 1, 1, 0}, {1, 0}};
  const ResolvedTessFactors eq = resolve_tess_factors(TessDomain::kTriangle, TessSpacing::kEqual, f);
  EXPECT_EQ(eq.inner_segments[0], 2);
  EXPECT_EQ(tessellate(TessDomain::kTriangle, TessSpacing::kEqual, f).primitive_count(), 6u);  // B=6, I=1
  EXPECT_EQ(resolve_tess_factors(TessDomain::kTriangle, TessSpacing::kFractionalOdd, f).inner_segments[0], 3);
  // Quads: either inner level 1 is bumped unless every level is 1, even when all outer are 1.
  const ResolvedTessFactors q =
      resolve_tess_factors(TessDomain::kQuad, TessSpacing::kEqual, TessFactors{{1, 1, 1, 1}, {1, 3}});
  EXPECT_EQ(q.inner_segments[0], 2);
  EXPECT_EQ(q.inner_segments[1], 3);
  // NaN inner levels clamp to the spacing's lower bound (then the rule above applies).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TessellatedPatch a = tessellate(TessDomain::kQuad, TessSpacing::kEqual, TessFactors{{3, 3, 3, 3}, {nan, nan}});
  const TessellatedPatch b = tessellate(TessDomain::kQuad, TessSpacing::kEqual, TessFactors{{3, 3, 3, 3}, {1, 1}});
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(resolve_tess_factors(TessDomain::kQuad, TessSpacing::kFractionalEven, TessFactors{{3, 3, 3, 3}, {nan, nan}})
                .inner_segments[0],
            2);
}

// The streaming form reuses the caller's patch: whatever it held before (a larger patch, another
// domain, a culled one), the result is exactly what a fresh tessellate() returns.
TEST(Tessellator, ReusedPatchGivesTheFreshResult) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> level(0.5f, 66.0f);
  TessellatedPatch reused;
  int culled = 0;
  for (int i = 0; i < 600; ++i) {
    const TessDomain domain = TessDomain(i % 3);
    const TessSpacing spacing = TessSpacing((i / 3) % 3);
    TessFactors f;
    for (float& o : f.outer) o = i % 17 == 0 ? -1.0f : level(rng);
    for (float& in : f.inner) in = i % 5 == 0 ? 1.0f : level(rng);
    const TessellatedPatch fresh = tessellate(domain, spacing, f);
    tessellate(domain, spacing, f, reused);
    culled += fresh.culled;
    ASSERT_EQ(reused.culled, fresh.culled) << i;
    ASSERT_EQ(reused.kind, fresh.kind) << i;
    ASSERT_EQ(reused.indices, fresh.indices) << i;
    ASSERT_EQ(reused.points.size(), fresh.points.size()) << i;
    if (!fresh.points.empty()) {  // memcmp takes no null pointer, even for 0 bytes
      ASSERT_EQ(std::memcmp(reused.points.data(), fresh.points.data(), fresh.points.size() * sizeof(glm::vec3)), 0)
          << i;
    }
    const TessCounts counts = tess_counts(domain, resolve_tess_factors(domain, spacing, f));
    EXPECT_EQ(reused.points.size(), counts.points) << i;
    EXPECT_EQ(reused.primitive_count(), counts.primitives) << i;
  }
  EXPECT_GT(culled, 0);
}

TEST(Tessellator, NamesRoundTrip) {
  for (TessDomain d : {TessDomain::kTriangle, TessDomain::kQuad, TessDomain::kIsoline}) {
    TessDomain out{};
    ASSERT_TRUE(parse_tess_domain(tess_domain_name(d), out));
    EXPECT_EQ(out, d);
  }
  for (TessSpacing s : kSpacings) {
    TessSpacing out{};
    ASSERT_TRUE(parse_tess_spacing(tess_spacing_name(s), out));
    EXPECT_EQ(out, s);
  }
  TessDomain d{};
  TessSpacing s{};
  EXPECT_FALSE(parse_tess_domain("triangle", d));
  EXPECT_FALSE(parse_tess_spacing("pow2", s));
}

}  // namespace
}  // namespace tessera
