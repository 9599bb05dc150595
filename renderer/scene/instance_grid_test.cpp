#include <gtest/gtest.h>

#include <cmath>

#include "scene/scene_test_support.h"
#include "tessera/procedural.h"

namespace tessera {
namespace {

using scene_testing::expect_error;

TEST(InstanceGrid, PlacesCountProductInstancesXFastest) {
  InstanceGridParams p;
  p.mesh = 2;
  p.material = 1;
  p.count = glm::ivec3(3, 2, 4);
  p.spacing = glm::vec3(2.0f, 5.0f, 3.0f);
  p.origin = glm::vec3(-1.0f, 0.0f, 10.0f);
  const std::vector<Instance> g = make_instance_grid(p);
  ASSERT_EQ(g.size(), 24u);
  for (const Instance& inst : g) {
    EXPECT_EQ(inst.mesh, 2u);
    EXPECT_EQ(inst.material, 1u);
  }
  EXPECT_EQ(glm::vec3(g[0].transform[3]), glm::vec3(-1.0f, 0.0f, 10.0f));
  EXPECT_EQ(glm::vec3(g[1].transform[3]), glm::vec3(1.0f, 0.0f, 10.0f));
  EXPECT_EQ(glm::vec3(g[3].transform[3]), glm::vec3(-1.0f, 5.0f, 10.0f));
  EXPECT_EQ(glm::vec3(g[23].transform[3]), glm::vec3(3.0f, 5.0f, 19.0f));
  // No jitter: pure translation times uniform scale 1.
  EXPECT_EQ(glm::mat3(g[5].transform), glm::mat3(1.0f));
}

TEST(InstanceGrid, JitterStaysInItsBoundsAndIsDeterministic) {
  InstanceGridParams p;
  p.count = glm::ivec3(10, 1, 10);
  p.spacing = glm::vec3(4.0f);
  p.scale = 2.0f;
  p.random_rotation_y = true;
  p.scale_jitter = 0.25f;
  p.position_jitter = 0.5f;
  p.seed = 42;
  const std::vector<Instance> a = make_instance_grid(p);
  const std::vector<Instance> b = make_instance_grid(p);
  ASSERT_EQ(a.size(), 100u);
  float min_scale = 10.0f, max_scale = 0.0f;
  int rotated = 0;
  for (size_t n = 0; n < a.size(); ++n) {
    EXPECT_EQ(a[n].transform, b[n].transform);
    const glm::mat3 m(a[n].transform);
    const float s = glm::length(m[1]);  // Y axis: rotation about Y keeps it, only scales
    EXPECT_NEAR(glm::length(m[0]), s, 1e-5f);
    EXPECT_NEAR(m[1].y, s, 1e-5f);
    min_scale = std::min(min_scale, s);
    max_scale = std::max(max_scale, s);
    rotated += std::fabs(m[0].x / s - 1.0f) > 1e-3f;
    const size_t i = n % 10, k = n / 10;
    const glm::vec3 t(a[n].transform[3]);
    EXPECT_LE(std::fabs(t.x - 4.0f * float(i)), 2.0f + 1e-5f);
    EXPECT_LE(std::fabs(t.z - 4.0f * float(k)), 2.0f + 1e-5f);
    EXPECT_EQ(t.y, 0.0f);
  }
  EXPECT_GE(min_scale, 1.5f - 1e-5f);
  EXPECT_LE(max_scale, 2.5f + 1e-5f);
  EXPECT_LT(min_scale, 1.7f) << "jitter should spread the scales";
  EXPECT_GT(max_scale, 2.3f);
  EXPECT_GT(rotated, 90);
  p.seed = 43;
  const std::vector<Instance> c = make_instance_grid(p);
  EXPECT_NE(a[7].transform, c[7].transform);
}

TEST(InstanceGrid, RejectsBadCountsAndJitter) {
  InstanceGridParams p;
  p.count = glm::ivec3(0, 1, 1);
  expect_error([&] { make_instance_grid(p); }, {"instance grid", "count"});
  p.count = glm::ivec3(4096, 4096, 2);  // 2^25 > 2^24
  expect_error([&] { make_instance_grid(p); }, {"count product"});
  p.count = glm::ivec3(1);
  p.scale_jitter = 1.0f;
  expect_error([&] { make_instance_grid(p); }, {"scale_jitter"});
  p.scale_jitter = 0.0f;
  p.scale = 0.0f;
  expect_error([&] { make_instance_grid(p); }, {"scale"});
}

}  // namespace
}  // namespace tessera
