#include "viewer/camera_control.h"

#include <cmath>

#include <glm/glm.hpp>
#include <gtest/gtest.h>

namespace tessera::viewer {
namespace {

Camera start() {
  Camera c;
  c.position = {0.0f, 6.5f, 17.0f};
  c.target = {0.0f, 1.2f, -1.0f};
  return c;
}

bool same(const Camera& a, const Camera& b) { return a.position == b.position && a.target == b.target && a.up == b.up; }

TEST(CameraControl, NoInputLeavesTheCameraBitIdentical) {
  Camera c = start();
  CameraInput in;
  in.dt = 0.016f;
  EXPECT_FALSE(apply_orbit(c, in, 600));
  EXPECT_FALSE(apply_fly(c, in, 5.0f));
  EXPECT_TRUE(same(c, start()));
}

TEST(CameraControl, OrbitKeepsTargetAndDistance) {
  Camera c = start();
  CameraInput in;
  in.left = true;
  in.mouse_dx = 120;
  in.mouse_dy = -40;
  EXPECT_TRUE(apply_orbit(c, in, 600));
  EXPECT_EQ(c.target, start().target);
  EXPECT_NEAR(camera_distance(c), camera_distance(start()), 1e-3f);
  EXPECT_GT(glm::length(c.position - start().position), 1.0f);
}

TEST(CameraControl, OrbitStopsShortOfThePole) {
  Camera c = start();
  CameraInput in;
  in.left = true;
  in.mouse_dy = 100;
  for (int i = 0; i < 100; ++i) apply_orbit(c, in, 600);
  const glm::vec3 dir = glm::normalize(c.position - c.target);
  EXPECT_LT(std::abs(glm::dot(dir, glm::vec3(0, 1, 0))), 0.9951f);
}

TEST(CameraControl, WheelZoomsTowardsTheTarget) {
  Camera c = start();
  CameraInput in;
  in.wheel = 2;
  EXPECT_TRUE(apply_orbit(c, in, 600));
  EXPECT_NEAR(camera_distance(c), camera_distance(start()) * 0.81f, 1e-3f);
}

TEST(CameraControl, PanMovesPositionAndTargetTogether) {
  Camera c = start();
  CameraInput in;
  in.middle = true;
  in.mouse_dx = 50;
  EXPECT_TRUE(apply_orbit(c, in, 600));
  EXPECT_NEAR(glm::length((c.position - c.target) - (start().position - start().target)), 0.0f, 1e-4f);
  EXPECT_GT(glm::length(c.target - start().target), 0.1f);
}

TEST(CameraControl, FlyMovesAlongTheViewAndShiftIsFaster) {
  Camera slow = start(), fast = start();
  CameraInput in;
  in.forward = true;
  in.dt = 0.5f;
  EXPECT_TRUE(apply_fly(slow, in, 2.0f));
  in.fast = true;
  EXPECT_TRUE(apply_fly(fast, in, 2.0f));
  EXPECT_NEAR(glm::length(slow.position - start().position), 1.0f, 1e-4f);
  EXPECT_NEAR(glm::length(fast.position - start().position), 4.0f, 1e-4f);
  const glm::vec3 forward = glm::normalize(start().target - start().position);
  EXPECT_GT(glm::dot(glm::normalize(slow.position - start().position), forward), 0.999f);
}

TEST(CameraControl, FlyLookTurnsAboutThePosition) {
  Camera c = start();
  CameraInput in;
  in.right = true;
  in.mouse_dx = 200;
  EXPECT_TRUE(apply_fly(c, in, 2.0f));
  EXPECT_EQ(c.position, start().position);
  EXPECT_NEAR(camera_distance(c), camera_distance(start()), 1e-3f);
}

}  // namespace
}  // namespace tessera::viewer
