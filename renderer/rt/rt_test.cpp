// Ray-tracing unit: hand-built intersection cases (watertight edges and vertices, parallel
// rays, t range, instances), BVH invariants, thread-count determinism, counters, bad input.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include <glm/gtc/matrix_transform.hpp>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "rt/bvh_builder.h"
#include "rt/bvh_layout.h"
#include "tessera/error.h"
#include "tessera/rt.h"
#include "tessera/scene.h"
#include "tessera/stats.h"

namespace tessera::rt {
namespace {

Mesh make_mesh(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices) {
  Mesh m;
  m.name = "test";
  for (const glm::vec3& p : positions) m.vertices.push_back(Vertex{p, glm::vec3(0, 0, 1), glm::vec2(0)});
  m.indices = indices;
  compute_bounds(m);
  return m;
}

Scene single_mesh_scene(Mesh mesh, std::vector<glm::mat4> transforms = {glm::mat4(1.0f)}) {
  Scene s;
  s.meshes.push_back(std::move(mesh));
  s.materials.push_back(Material{});
  for (const glm::mat4& t : transforms) s.instances.push_back(Instance{0, 0, t});
  return s;
}

// An n x n grid over [0,1]^2 at z = 0 with jittered interior vertices (and heights), two
// triangles per cell, alternating diagonals: many shared edges and vertices.
Mesh jittered_grid(int n, uint32_t seed, float height) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.3f, 0.3f);
  std::vector<glm::vec3> p;
  for (int y = 0; y <= n; ++y)
    for (int x = 0; x <= n; ++x) {
      glm::vec3 v(float(x) / float(n), float(y) / float(n), 0.0f);
      if (x > 0 && x < n && y > 0 && y < n) {
        v.x += jitter(rng) / float(n);
        v.y += jitter(rng) / float(n);
        v.z = jitter(rng) * height;
      }
      p.push_back(v);
    }
  std::vector<uint32_t> idx;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const uint32_t a = uint32_t(y * (n + 1) + x), b = a + 1, c = a + uint32_t(n) + 1, d = c + 1;
      if ((x + y) % 2) {
        idx.insert(idx.end(), {a, b, d, a, d, c});
      } else {
        idx.insert(idx.end(), {a, b, c, b, d, c});
      }
    }
  return make_mesh(p, idx);
}

Ray ray_to(const glm::vec3& from, const glm::vec3& to) {
  Ray r;
  r.origin = from;
  r.direction = to - from;
  return r;
}

TEST(RtIntersect, HitsTriangleWithBarycentrics) {
  const Scene s = single_mesh_scene(make_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {0, 1, 2}));
  const auto as = AccelerationStructure::build(s);
  Counters c;
  const Hit h = as.intersect(ray_to({0.25f, 0.5f, 2.0f}, {0.25f, 0.5f, 0.0f}), RayType::primary, c);
  ASSERT_TRUE(h.hit());
  EXPECT_FLOAT_EQ(h.t, 1.0f);
  EXPECT_NEAR(h.u, 0.25f, 1e-6f);  // weight of vertex 1 (x)
  EXPECT_NEAR(h.v, 0.5f, 1e-6f);   // weight of vertex 2 (y)
  EXPECT_EQ(h.primitive, 0u);
  EXPECT_EQ(h.instance, 0u);
  // Back side hits too (no culling); a ray beside the triangle misses.
  EXPECT_TRUE(as.intersect(ray_to({0.25f, 0.5f, -2.0f}, {0.25f, 0.5f, 0.0f}), RayType::primary, c).hit());
  EXPECT_FALSE(as.intersect(ray_to({0.8f, 0.8f, 2.0f}, {0.8f, 0.8f, 0.0f}), RayType::primary, c).hit());
}

TEST(RtIntersect, SharedEdgeAndVertexAreWatertight) {
  // Two triangles sharing the diagonal of the unit square; rays exactly through the diagonal,
  // through the shared vertices' neighbourhood and along oblique directions must all hit.
  const Scene s = single_mesh_scene(make_mesh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, {0, 1, 2, 0, 2, 3}));
  const auto as = AccelerationStructure::build(s);
  Counters c;
  int misses = 0;
  for (int i = 1; i < 1024; ++i) {
    const float f = float(i) / 1024.0f;
    for (const glm::vec3& from : {glm::vec3(f, f, 1.0f), glm::vec3(0.3f, 0.9f, 1.7f), glm::vec3(-2.0f, 3.0f, 0.5f)}) {
      const Hit h = as.intersect(ray_to(from, {f, f, 0.0f}), RayType::primary, c);
      misses += !h.hit();
      if (h.hit()) {
        EXPECT_NEAR(h.t, 1.0f, 1e-5f);
      }
    }
  }
  EXPECT_EQ(misses, 0);
  // A fan of 12 triangles around a shared centre vertex: rays through the centre hit.
  std::vector<glm::vec3> p{{0.1f, 0.2f, 0.0f}};
  std::vector<uint32_t> idx;
  for (int k = 0; k < 12; ++k) {
    const float a = float(k) * 0.5235988f;
    p.push_back(glm::vec3(0.1f + std::cos(a), 0.2f + std::sin(a), 0.0f));
    idx.insert(idx.end(), {0u, uint32_t(1 + k), uint32_t(1 + (k + 1) % 12)});
  }
  const auto fan = AccelerationStructure::build(single_mesh_scene(make_mesh(p, idx)));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (int i = 0; i < 2000; ++i) {
    const glm::vec3 from(d(rng) * 3.0f, d(rng) * 3.0f, 0.2f + std::fabs(d(rng)) * 3.0f);
    EXPECT_TRUE(fan.intersect(ray_to(from, p[0]), RayType::primary, c).hit()) << "ray " << i;
    EXPECT_TRUE(fan.occluded(ray_to(from, p[0]), RayType::shadow, c)) << "ray " << i;
  }
}

TEST(RtIntersect, NoRayLeaksThroughAJitteredGrid) {
  // Rays aimed at random points of a closed patch of triangles: none may pass through a crack.
  const Scene s = single_mesh_scene(jittered_grid(48, 5, 0.05f));
  const auto as = AccelerationStructure::build(s);
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> in(0.05f, 0.95f), dir(-1.0f, 1.0f);
  Counters c;
  int misses = 0;
  for (int i = 0; i < 20000; ++i) {
    const glm::vec3 target(in(rng), in(rng), 0.0f);
    const glm::vec3 from = target + glm::vec3(dir(rng), dir(rng), 1.0f + std::fabs(dir(rng))) * 2.0f;
    Ray r = ray_to(from, target);
    r.direction *= 3.0f;  // reach through the surface whatever its height
    misses += !as.intersect(r, RayType::primary, c).hit();
  }
  EXPECT_EQ(misses, 0);
  // Exactly through every interior grid vertex (shared by up to 8 triangles).
  const Mesh& m = s.meshes[0];
  for (const Vertex& v : m.vertices) {
    if (v.position.x <= 0.0f || v.position.x >= 1.0f || v.position.y <= 0.0f || v.position.y >= 1.0f) continue;
    Ray r = ray_to(v.position + glm::vec3(0.37f, -0.21f, 1.3f), v.position);
    r.direction *= 1.5f;
    EXPECT_TRUE(as.intersect(r, RayType::primary, c).hit());
  }
}

TEST(RtIntersect, ParallelRaysMiss) {
  const Scene s = single_mesh_scene(make_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {0, 1, 2}));
  const auto as = AccelerationStructure::build(s);
  Counters c;
  Ray in_plane;
  in_plane.origin = {-1.0f, 0.25f, 0.0f};
  in_plane.direction = {1.0f, 0.0f, 0.0f};
  EXPECT_FALSE(as.intersect(in_plane, RayType::primary, c).hit());
  Ray above = in_plane;
  above.origin.z = 0.5f;
  EXPECT_FALSE(as.intersect(above, RayType::primary, c).hit());
  EXPECT_FALSE(as.occluded(above, RayType::shadow, c));
  // Axis-parallel rays (zero direction components) still hit.
  Ray down;
  down.origin = {0.2f, 0.2f, 5.0f};
  down.direction = {0.0f, 0.0f, -1.0f};
  const Hit h = as.intersect(down, RayType::primary, c);
  ASSERT_TRUE(h.hit());
  EXPECT_FLOAT_EQ(h.t, 5.0f);
  // A zero or non-finite direction finds nothing rather than crashing.
  Ray zero = down;
  zero.direction = glm::vec3(0.0f);
  EXPECT_FALSE(as.intersect(zero, RayType::primary, c).hit());
  zero.direction = glm::vec3(std::nanf(""), 0.0f, 1.0f);
  EXPECT_FALSE(as.occluded(zero, RayType::shadow, c));
}

TEST(RtIntersect, RespectsTheTRangeAndPicksTheClosest) {
  // Triangles at z = 0 (primitive 0) and z = -1 (primitive 1); ray from z = 1 downward.
  const Scene s = single_mesh_scene(
      make_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, -1}, {1, 0, -1}, {0, 1, -1}}, {0, 1, 2, 3, 4, 5}));
  const auto as = AccelerationStructure::build(s);
  Counters c;
  Ray r = ray_to({0.2f, 0.2f, 1.0f}, {0.2f, 0.2f, 0.0f});
  Hit h = as.intersect(r, RayType::primary, c);
  ASSERT_TRUE(h.hit());
  EXPECT_EQ(h.primitive, 0u);
  EXPECT_FLOAT_EQ(h.t, 1.0f);
  r.tmax = 0.5f;
  EXPECT_FALSE(as.intersect(r, RayType::primary, c).hit());
  EXPECT_FALSE(as.occluded(r, RayType::shadow, c));
  r.tmax = 1.0f;  // inclusive
  EXPECT_TRUE(as.intersect(r, RayType::primary, c).hit());
  r.tmin = 1.5f;
  r.tmax = std::numeric_limits<float>::infinity();
  h = as.intersect(r, RayType::primary, c);
  ASSERT_TRUE(h.hit());
  EXPECT_EQ(h.primitive, 1u);
  EXPECT_FLOAT_EQ(h.t, 2.0f);
  r.tmin = 2.5f;
  EXPECT_FALSE(as.intersect(r, RayType::primary, c).hit());
  r.tmin = 3.0f;
  r.tmax = 1.0f;  // empty range
  EXPECT_FALSE(as.intersect(r, RayType::primary, c).hit());
}

TEST(RtIntersect, InstancesTransformTheRayAndReportTheirIndex) {
  Mesh tri = make_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {0, 1, 2});
  glm::mat4 moved = glm::translate(glm::mat4(1.0f), glm::vec3(10.0f, 0.0f, -4.0f));
  moved = glm::scale(moved, glm::vec3(2.0f));
  Scene s = single_mesh_scene(tri, {glm::mat4(1.0f), moved});
  s.instances.push_back(Instance{0, 0, glm::scale(glm::mat4(1.0f), glm::vec3(0.0f))});  // flattened: skipped
  const auto as = AccelerationStructure::build(s);
  EXPECT_EQ(as.info().instances, 2u);
  Counters c;
  const Hit h = as.intersect(ray_to({11.0f, 0.5f, 0.0f}, {11.0f, 0.5f, -4.0f}), RayType::primary, c);
  ASSERT_TRUE(h.hit());
  EXPECT_EQ(h.instance, 1u);
  EXPECT_NEAR(h.t, 1.0f, 1e-6f);
  EXPECT_NEAR(h.u, 0.5f, 1e-6f);
  EXPECT_NEAR(h.v, 0.25f, 1e-6f);
  const glm::vec3 n = as.geometric_normal(h);
  EXPECT_GT(n.z, 0.0f);
  EXPECT_NEAR(n.x, 0.0f, 1e-6f);
  // Closest of two instances along the same ray.
  const Hit both = as.intersect(ray_to({0.2f, 0.2f, 5.0f}, {0.2f, 0.2f, 4.0f}), RayType::primary, c);
  ASSERT_TRUE(both.hit());
  EXPECT_EQ(both.instance, 0u);
}

// Every primitive in exactly one leaf lane; every child box inside its parent's box for it;
// every leaf box holds its triangles.
void check_invariants(const WideBvh& bvh, std::span<const glm::vec3> p, std::span<const uint32_t> idx) {
  std::vector<int> seen(idx.size() / 3, 0);
  std::vector<int> visits(bvh.nodes.size(), 0);
  struct Item {
    uint32_t node;
    Aabb box;
  };
  std::vector<Item> todo{{0, bvh.bounds}};
  while (!todo.empty()) {
    const Item it = todo.back();
    todo.pop_back();
    ASSERT_LT(it.node, bvh.nodes.size());
    ++visits[it.node];
    const WideNode& n = bvh.nodes[it.node];
    int children = 0;
    for (int i = 0; i < kWidth; ++i) {
      const uint32_t ref = n.child[i];
      if (ref == kEmptyChild) continue;
      ++children;
      const Aabb b = n.child_bounds(i);
      EXPECT_TRUE(it.box.contains(b)) << "node " << it.node << " child " << i;
      if (ref_kind(ref) == ChildKind::interior) {
        todo.push_back({ref_index(ref), b});
        continue;
      }
      ASSERT_EQ(ref_kind(ref), ChildKind::leaf);
      for (uint32_t k = 0; k < leaf_block_count(ref); ++k) {
        const TriangleBlock& blk = bvh.blocks.at(ref_index(ref) + k);
        for (int lane = 0; lane < kBlockWidth; ++lane) {
          const uint32_t prim = blk.primitive[lane];
          if (prim == kInvalidId) continue;
          ASSERT_LT(prim, seen.size());
          ++seen[prim];
          for (int v = 0; v < 3; ++v) {
            Aabb pt;
            pt.extend(p[idx[3 * prim + uint32_t(v)]]);
            EXPECT_TRUE(b.contains(pt)) << "primitive " << prim;
          }
        }
      }
    }
    EXPECT_GE(children, it.node == 0 ? 1 : 2);
  }
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "primitive " << i;
  for (size_t i = 0; i < visits.size(); ++i) ASSERT_EQ(visits[i], 1) << "node " << i;
}

struct Soup {
  std::vector<glm::vec3> p;
  std::vector<uint32_t> idx;
};

// Random small triangles in clusters plus some long slivers: uneven for the SAH.
Soup random_soup(size_t n, uint32_t seed) {
  Soup s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<glm::vec3> centres;
  for (int i = 0; i < 16; ++i) centres.push_back(glm::vec3(u(rng), u(rng), u(rng)) * 50.0f);
  for (size_t i = 0; i < n; ++i) {
    const glm::vec3 c = centres[i % centres.size()] + glm::vec3(u(rng), u(rng), u(rng)) * 8.0f;
    const float size = (i % 97 == 0) ? 20.0f : 0.3f;
    for (int k = 0; k < 3; ++k) {
      s.idx.push_back(uint32_t(s.p.size()));
      s.p.push_back(c + glm::vec3(u(rng), u(rng), u(rng)) * size);
    }
  }
  // A few duplicates with identical centroids (the median fallback).
  for (int k = 0; k < 40; ++k) s.idx.insert(s.idx.end(), {0, 1, 2});
  return s;
}

TEST(RtBvh, InvariantsHoldForMeshesAndTheTopLevel) {
  const Soup soup = random_soup(20000, 9);
  const WideBvh bvh = build_mesh_bvh(soup.p, soup.idx);
  check_invariants(bvh, soup.p, soup.idx);
  // The collapse fills nodes: on average at least 3.5 of the 8 slots are used.
  size_t used = 0;
  for (const WideNode& n : bvh.nodes)
    for (uint32_t ref : n.child) used += ref != kEmptyChild;
  EXPECT_GT(double(used) / double(bvh.nodes.size()), 3.5);
  // Single triangle and empty mesh.
  const std::vector<glm::vec3> one{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const std::vector<uint32_t> one_idx{0, 1, 2};
  check_invariants(build_mesh_bvh(one, one_idx), one, one_idx);
  EXPECT_TRUE(build_mesh_bvh(one, std::vector<uint32_t>{}).empty());

  // Top level over a grid of instances: each instance once.
  Scene s = single_mesh_scene(jittered_grid(4, 1, 0.1f), {});
  for (int i = 0; i < 300; ++i)
    s.instances.push_back(
        Instance{0, 0, glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 17), float(i / 17), 0.0f))});
  const auto as = AccelerationStructure::build(s);
  std::multiset<uint32_t> inst;
  for (const WideNode& n : as.layout().top.nodes)
    for (uint32_t ref : n.child)
      if (ref_kind(ref) == ChildKind::instance) inst.insert(ref_index(ref));
  ASSERT_EQ(inst.size(), 300u);
  EXPECT_EQ(std::set<uint32_t>(inst.begin(), inst.end()).size(), 300u);
}

TEST(RtBvh, IdenticalForAnyThreadCount) {
  const Soup soup = random_soup(150000, 21);  // large enough for parallel binning and subtrees
  WideBvh one;
  tbb::task_arena(1).execute([&] { one = build_mesh_bvh(soup.p, soup.idx); });
  // More threads than this machine may have cores: allow them explicitly.
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 8);
  for (int threads : {2, 8}) {
    WideBvh many;
    tbb::task_arena(threads).execute([&] { many = build_mesh_bvh(soup.p, soup.idx); });
    ASSERT_EQ(one.nodes.size(), many.nodes.size()) << threads << " threads";
    ASSERT_EQ(one.blocks.size(), many.blocks.size()) << threads << " threads";
    EXPECT_EQ(std::memcmp(one.nodes.data(), many.nodes.data(), one.nodes.size() * sizeof(WideNode)), 0)
        << threads << " threads";
    EXPECT_EQ(std::memcmp(one.blocks.data(), many.blocks.data(), one.blocks.size() * sizeof(TriangleBlock)), 0)
        << threads << " threads";
  }

  // The whole scene and a traced batch: same hits, same counters.
  Scene s = single_mesh_scene(jittered_grid(200, 4, 0.2f),
                              {glm::mat4(1.0f), glm::translate(glm::mat4(1.0f), glm::vec3(0.3f, 0.2f, -0.5f))});
  Camera cam;
  cam.position = {0.5f, -0.8f, 1.5f};
  cam.target = {0.5f, 0.5f, 0.0f};
  cam.up = {0.0f, 0.0f, 1.0f};
  std::vector<Ray> rays;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 96; ++x) rays.push_back(camera_ray(cam, 96, 64, float(x) + 0.5f, float(y) + 0.5f));
  auto run = [&](int threads, std::vector<Hit>& hits, Counters& c, std::vector<uint8_t>& occ, Counters& co) {
    tbb::task_arena(threads).execute([&] {
      const auto as = AccelerationStructure::build(s);
      hits.resize(rays.size());
      occ.resize(rays.size());
      as.intersect(rays, hits, RayType::primary, c);
      as.occluded(rays, occ, RayType::shadow, co);
    });
  };
  std::vector<Hit> h1, h8;
  std::vector<uint8_t> o1, o8;
  Counters c1, c8, co1, co8;
  run(1, h1, c1, o1, co1);
  run(8, h8, c8, o8, co8);
  EXPECT_EQ(c1.v, c8.v);
  EXPECT_EQ(co1.v, co8.v);
  EXPECT_EQ(o1, o8);
  int hits = 0;
  for (size_t i = 0; i < rays.size(); ++i) {
    ASSERT_EQ(h1[i].primitive, h8[i].primitive);
    ASSERT_EQ(h1[i].instance, h8[i].instance);
    ASSERT_EQ(h1[i].t, h8[i].t);
    hits += h1[i].hit();
    EXPECT_EQ(bool(o1[i]), h1[i].hit());
  }
  EXPECT_GT(hits, int(rays.size()) / 10);
  EXPECT_LT(hits, int(rays.size()));
  EXPECT_EQ(c1[Counters::rays_primary], rays.size());
  EXPECT_EQ(c1[Counters::rays_hit], uint64_t(hits));
}

// Freed BVH memory is reused by the next build of the same sizes (no page faults): a build on
// memory another mesh's build left behind must give the same bytes as on fresh memory, so
// nothing may read what an array held before it was written.
TEST(RtBvh, SameTreeOnReusedMemory) {
  const KeepBuildMemory keep;  // the standalone builds below free their trees with no structure alive
  const Soup a = random_soup(80000, 5), b = random_soup(80000, 6);  // arrays of 2 MiB and more
  std::vector<WideNode> nodes;
  std::vector<TriangleBlock> blocks;
  {
    const WideBvh first = build_mesh_bvh(a.p, a.idx);
    nodes.assign(first.nodes.begin(), first.nodes.end());
    blocks.assign(first.blocks.begin(), first.blocks.end());
  }
  size_t other_blocks = 0;
  {
    const WideBvh other = build_mesh_bvh(b.p, b.idx);  // same sizes, other contents
    other_blocks = other.blocks.size();
    ASSERT_GE(other.blocks.size() * sizeof(TriangleBlock), size_t(2) << 20);
  }
  const WideBvh again = build_mesh_bvh(a.p, a.idx);
  ASSERT_EQ(again.nodes.size(), nodes.size());
  ASSERT_EQ(again.blocks.size(), blocks.size());
  EXPECT_EQ(std::memcmp(again.nodes.data(), nodes.data(), nodes.size() * sizeof(WideNode)), 0);
  EXPECT_EQ(std::memcmp(again.blocks.data(), blocks.data(), blocks.size() * sizeof(TriangleBlock)), 0);
  EXPECT_GT(other_blocks, 0u);
}

// The freed-block cache gives its memory back once nothing can use it again: the last
// structure destroyed with no build running and no KeepBuildMemory held.
TEST(RtBvh, CachedBuildMemoryIsGivenBack) {
  const Soup a = random_soup(80000, 7);  // arrays (and build scratch) of 2 MiB and more
  Scene scene;
  scene.meshes.push_back(make_mesh(a.p, a.idx));
  scene.materials.push_back(Material{});
  scene.instances.push_back(Instance{0, 0, glm::mat4(1.0f)});
  ASSERT_EQ(cached_bvh_bytes(), 0u);
  {
    const AccelerationStructure as = AccelerationStructure::build(scene);
    EXPECT_GT(cached_bvh_bytes(), 0u);  // the build's scratch, kept while the structure lives
    {
      const AccelerationStructure again = AccelerationStructure::build(scene);
      EXPECT_GT(again.info().bytes, size_t(2) << 20);
    }
    EXPECT_GT(cached_bvh_bytes(), size_t(2) << 20);  // `again`'s arrays, kept for the next build
  }
  EXPECT_EQ(cached_bvh_bytes(), 0u);  // last structure gone: all given back
  {
    const KeepBuildMemory keep;
    { const AccelerationStructure as = AccelerationStructure::build(scene); }
    EXPECT_GT(cached_bvh_bytes(), size_t(2) << 20);                        // kept across the gap between builds
    const AccelerationStructure as = AccelerationStructure::build(scene);  // reuses it
  }
  EXPECT_EQ(cached_bvh_bytes(), 0u);
  // A standalone mesh build keeps nothing once it returns and its tree is gone.
  { const WideBvh bvh = build_mesh_bvh(a.p, a.idx); }
  EXPECT_EQ(cached_bvh_bytes(), 0u);
}

TEST(RtCounters, CountWhatTheQueryDid) {
  const Soup soup = random_soup(5000, 2);
  Mesh m;
  for (const glm::vec3& p : soup.p) m.vertices.push_back(Vertex{p, glm::vec3(0), glm::vec2(0)});
  m.indices = soup.idx;
  const auto as = AccelerationStructure::build(single_mesh_scene(m));
  Counters closest, any;
  const Ray r = ray_to({-100.0f, -100.0f, -100.0f}, soup.p[0]);
  const Hit h = as.intersect(r, RayType::diffuse, closest);
  ASSERT_TRUE(h.hit());
  EXPECT_TRUE(as.occluded(r, RayType::shadow, any));
  EXPECT_EQ(closest[Counters::rays_diffuse], 1u);
  EXPECT_EQ(closest[Counters::rays_primary], 0u);
  EXPECT_EQ(any[Counters::rays_shadow], 1u);
  EXPECT_EQ(closest[Counters::rays_hit], 1u);
  EXPECT_EQ(closest[Counters::nodes_instance], 1u);
  EXPECT_GE(closest[Counters::nodes_interior], 2u);  // top level root + mesh root at least
  EXPECT_GE(closest[Counters::nodes_leaf], 1u);
  EXPECT_GE(closest[Counters::triangles_tested], closest[Counters::triangles_hit]);
  EXPECT_GE(closest[Counters::triangles_hit], 1u);
  EXPECT_EQ(closest[Counters::node_bytes], closest[Counters::nodes_interior] * sizeof(WideNode));
  EXPECT_LE(any[Counters::nodes_interior] + any[Counters::nodes_leaf],
            closest[Counters::nodes_interior] + closest[Counters::nodes_leaf]);
  Stats stats;
  closest.publish(stats);
  as.publish(stats);
  EXPECT_EQ(stats.get_u64("rt.rays.diffuse"), 1u);
  EXPECT_EQ(stats.get_u64("rt.bvh.triangles"), soup.idx.size() / 3);
  EXPECT_STREQ(Counters::key(Counters::triangles_tested), "rt.triangles.tested");
}

TEST(RtBuild, BadInputIsAClearError) {
  const std::vector<glm::vec3> p{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  EXPECT_THROW(build_mesh_bvh(p, std::vector<uint32_t>{0, 1}), Error);
  try {
    build_mesh_bvh(p, std::vector<uint32_t>{0, 1, 7});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vertex 7"), std::string::npos) << e.what();
  }
  const std::vector<glm::vec3> nan{{0, 0, 0}, {1, 0, 0}, {0, std::nanf(""), 0}};
  try {
    build_mesh_bvh(nan, std::vector<uint32_t>{0, 1, 2});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
  }
  // An infinite coordinate, in the last vertex of the array, and the lowest bad triangle named.
  const std::vector<glm::vec3> inf{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {-std::numeric_limits<float>::infinity(), 0, 0}};
  try {
    build_mesh_bvh(inf, std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 1, 3, 2, 0, 3, 1});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("triangle 2"), std::string::npos) << e.what();
  }
  Scene s = single_mesh_scene(make_mesh(p, {0, 1, 2}));
  s.instances.push_back(Instance{5, 0, glm::mat4(1.0f)});
  EXPECT_THROW(AccelerationStructure::build(s), Error);
  // An empty scene traces to misses.
  const auto empty = AccelerationStructure::build(Scene{});
  Counters c;
  EXPECT_FALSE(empty.intersect(ray_to({0, 0, 1}, {0, 0, 0}), RayType::primary, c).hit());
  EXPECT_EQ(c[Counters::rays_primary], 1u);
}

}  // namespace
}  // namespace tessera::rt
