// Traversal robustness: the conservative slab test (docs/rt.md, Traversal) far from the origin,
// where the fused multiply-add form's product origin * (1/d) carries most of the rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tessera/rt.h"
#include "tessera/scene.h"

namespace tessera::rt {
namespace {

// An n x n flat grid of cells of size `cell` at (offset, offset, offset), interior vertices
// jittered within the plane, two triangles per cell: every box of the BVH is flat in z and
// many share faces, so a hit point on a shared edge lies on the slabs of several boxes.
// `mesh` (bounds computed here) as the one instance of a scene.
Scene one_instance_scene(Mesh mesh) {
  compute_bounds(mesh);
  Scene s;
  s.meshes.push_back(std::move(mesh));
  s.materials.push_back(Material{});
  s.instances.push_back(Instance{0, 0, glm::mat4(1.0f)});
  return s;
}

Scene flat_grid_scene(int n, float offset, float cell) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> jitter(-0.3f, 0.3f);
  Mesh m;
  m.name = "flat grid";
  for (int y = 0; y <= n; ++y)
    for (int x = 0; x <= n; ++x) {
      glm::vec3 v(offset + float(x) * cell, offset + float(y) * cell, offset);
      if (x > 0 && x < n && y > 0 && y < n) {
        v.x += jitter(rng) * cell;
        v.y += jitter(rng) * cell;
      }
      m.vertices.push_back(Vertex{v, glm::vec3(0, 0, 1), glm::vec2(0)});
    }
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const uint32_t a = uint32_t(y * (n + 1) + x), b = a + 1, c = a + uint32_t(n) + 1, d = c + 1;
      if ((x + y) % 2) {
        m.indices.insert(m.indices.end(), {a, b, d, a, d, c});
      } else {
        m.indices.insert(m.indices.end(), {a, b, c, b, d, c});
      }
    }
  return one_instance_scene(std::move(m));
}

TEST(RtTraversal, NoBoxIsCulledFarFromTheOrigin) {
  // Steep rays (direction almost along -z: huge reciprocals in x and y) through interior
  // vertices and random points of interior edges must all hit. Without the slab test's
  // margins thousands of these miss at these offsets.
  constexpr int n = 64;
  constexpr float cell = 1.0f / 64.0f;
  for (const float offset : {0.0f, 4096.0f, 100000.0f}) {
    const Scene s = flat_grid_scene(n, offset, cell);
    const auto as = AccelerationStructure::build(s);
    const Mesh& m = s.meshes[0];
    const float lo = offset + 0.01f * cell, hi = offset + float(n) * cell - 0.01f * cell;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), w(0.0f, 1.0f);
    Counters c;
    int rays = 0, misses = 0;
    auto shoot = [&](const glm::vec3& p, float slope, float distance) {
      if (!(p.x > lo && p.y > lo && p.x < hi && p.y < hi)) return;
      Ray r;
      r.direction = glm::vec3(u(rng) * slope, u(rng) * slope, -1.0f);
      r.origin = p - r.direction * distance;
      misses += !as.intersect(r, RayType::primary, c).hit();
      ++rays;
    };
    for (const Vertex& v : m.vertices)
      for (int k = 0; k < 8; ++k) shoot(v.position, k < 4 ? 1e-3f : 0.5f, k % 2 ? 10.0f : 1000.0f);
    for (size_t t = 0; t + 2 < m.indices.size(); t += 3)
      for (int e = 0; e < 3; ++e) {
        const glm::vec3 a = m.vertices[m.indices[t + size_t(e)]].position;
        const glm::vec3 b = m.vertices[m.indices[t + size_t(e + 1) % 3]].position;
        shoot(a + (b - a) * w(rng), 1e-3f, 100.0f);
      }
    EXPECT_GT(rays, 50000) << "offset " << offset;
    EXPECT_EQ(misses, 0) << "offset " << offset;
  }
}

// A closed cube [-1, 1]^3, each face an n x n grid of cells split into two triangles.
Scene cube_scene(int n) {
  Mesh m;
  m.name = "cube";
  for (int axis = 0; axis < 3; ++axis)
    for (const float side : {-1.0f, 1.0f}) {
      const uint32_t first = uint32_t(m.vertices.size());
      for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
          glm::vec3 v(0.0f);
          v[axis] = side;
          v[(axis + 1) % 3] = -1.0f + 2.0f * float(i) / float(n);
          v[(axis + 2) % 3] = -1.0f + 2.0f * float(j) / float(n);
          glm::vec3 normal(0.0f);
          normal[axis] = side;
          m.vertices.push_back(Vertex{v, normal, glm::vec2(0)});
        }
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const uint32_t a = first + uint32_t(j * (n + 1) + i), b = a + 1, c = a + uint32_t(n) + 1, d = c + 1;
          m.indices.insert(m.indices.end(), {a, b, d, a, d, c});
        }
    }
  return one_instance_scene(std::move(m));
}

TEST(RtTraversal, ClosedCubeHitFromInsideForEveryAxisAndSign) {
  // The triangle test's per-ray setup picks the dominant axis of the direction (first of equal
  // magnitudes) and orders the other two by its sign. Directions with every sign, zero
  // components and ties in magnitude - (1, 1, 0), (-1, 1, -1), ... - from points inside a
  // closed cube (through its edges and corners too) must all hit, at the exact distance.
  const Scene s = cube_scene(4);
  const auto as = AccelerationStructure::build(s);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.9f, 0.9f);
  std::vector<glm::vec3> directions;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z)
        if (x || y || z) directions.emplace_back(float(x), float(y), float(z));
  Counters c;
  int rays = 0, misses = 0, wrong_distance = 0;
  for (int o = 0; o < 200; ++o) {
    // The centre, and points on the planes of the cells' edges (rays along a face's grid lines).
    const glm::vec3 origin = o == 0   ? glm::vec3(0.0f)
                             : o < 20 ? glm::vec3(0.5f * float(o % 3 - 1), 0.0f, 0.5f)
                                      : glm::vec3(u(rng), u(rng), u(rng));
    for (const glm::vec3& d0 : directions)
      for (const float scale : {1.0f, 0.25f, 3.0f}) {
        Ray r;
        r.origin = origin;
        r.direction = d0 * scale;
        double exact = std::numeric_limits<double>::infinity();
        for (int a = 0; a < 3; ++a)
          if (r.direction[a] != 0.0f)
            exact =
                std::min(exact, ((r.direction[a] > 0.0f ? 1.0 : -1.0) - double(origin[a])) / double(r.direction[a]));
        const Hit h = as.intersect(r, RayType::primary, c);
        ++rays;
        if (!h.hit()) {
          ++misses;
        } else if (std::abs(double(h.t) - exact) > 1e-5 * exact) {
          ++wrong_distance;
        }
      }
  }
  EXPECT_EQ(rays, 200 * 26 * 3);
  EXPECT_EQ(misses, 0);
  EXPECT_EQ(wrong_distance, 0);
}

// A shadow ray tests a leaf's two blocks in one pass (docs/rt.md, Traversal) but counts as if it
// tested block 0 and then, only when block 0 had no hit, block 1: the counters of a query do not
// depend on how the test is vectorised.
TEST(RtTraversal, ShadowRayCountsALeafBlockByBlock) {
  // 8 large parallel triangles close together in z: one leaf of two blocks.
  Mesh m;
  m.name = "stack";
  for (int k = 0; k < 8; ++k) {
    const float z = 0.01f * float(k);
    const uint32_t base = uint32_t(m.vertices.size());
    for (const glm::vec2 p : {glm::vec2(-50, -50), glm::vec2(150, -50), glm::vec2(-50, 150)})
      m.vertices.push_back(Vertex{glm::vec3(p, z), glm::vec3(0, 0, 1), glm::vec2(0)});
    m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
  }
  const AccelerationStructure as = AccelerationStructure::build(one_instance_scene(std::move(m)));
  ASSERT_EQ(as.info().leaves, 1u);
  ASSERT_EQ(as.info().blocks, 2u);
  // Every triangle in range: block 0 has hits, block 1 is not counted.
  {
    Counters c;
    EXPECT_TRUE(as.occluded(Ray{{1, 1, 10}, 0.0f, {0, 0, -1}, 100.0f}, RayType::shadow, c));
    EXPECT_EQ(c[Counters::triangles_tested], 4u);
    EXPECT_EQ(c[Counters::triangles_hit], 4u);
  }
  // One triangle in range at a time: 4 lie in block 0 (4 tested), 4 in block 1 (8 tested).
  int in_block0 = 0, in_block1 = 0;
  for (int k = 0; k < 8; ++k) {
    const float t = 10.0f - 0.01f * float(k);
    Counters c;
    EXPECT_TRUE(as.occluded(Ray{{1, 1, 10}, t - 0.004f, {0, 0, -1}, t + 0.004f}, RayType::shadow, c)) << k;
    EXPECT_EQ(c[Counters::triangles_hit], 1u) << k;
    in_block0 += c[Counters::triangles_tested] == 4;
    in_block1 += c[Counters::triangles_tested] == 8;
    // The closest-hit query of the same ray tests both blocks and finds that triangle.
    Counters ci;
    const Hit hit = as.intersect(Ray{{1, 1, 10}, t - 0.004f, {0, 0, -1}, t + 0.004f}, RayType::primary, ci);
    EXPECT_EQ(hit.primitive, uint32_t(k));
    EXPECT_EQ(ci[Counters::triangles_tested], 8u);
  }
  EXPECT_EQ(in_block0, 4);
  EXPECT_EQ(in_block1, 4);
  // A range inside the leaf's box between two triangles: both blocks tested, nothing hit.
  Counters c;
  EXPECT_FALSE(as.occluded(Ray{{1, 1, 10}, 9.991f, {0, 0, -1}, 9.999f}, RayType::shadow, c));
  EXPECT_EQ(c[Counters::triangles_tested], 8u);
  EXPECT_EQ(c[Counters::triangles_hit], 0u);
}

}  // namespace
}  // namespace tessera::rt
