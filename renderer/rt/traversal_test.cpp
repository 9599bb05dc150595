// Traversal robustness: the conservative slab test (docs/rt.md, Traversal) far from the origin,
// where the fused multiply-add form's product origin * (1/d) carries most of the rounding.
#include <gtest/gtest.h>

#include <random>

#include "tessera/rt.h"
#include "tessera/scene.h"

namespace tessera::rt {
namespace {

// An n x n flat grid of cells of size `cell` at (offset, offset, offset), interior vertices
// jittered within the plane, two triangles per cell: every box of the BVH is flat in z and
// many share faces, so a hit point on a shared edge lies on the slabs of several boxes.
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
  compute_bounds(m);
  Scene s;
  s.meshes.push_back(std::move(m));
  s.materials.push_back(Material{});
  s.instances.push_back(Instance{0, 0, glm::mat4(1.0f)});
  return s;
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

}  // namespace
}  // namespace tessera::rt
