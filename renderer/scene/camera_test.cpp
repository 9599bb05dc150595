#include <gtest/gtest.h>

#include "tessera/scene.h"

namespace tessera {
namespace {

glm::vec3 to_ndc(const glm::mat4& vp, glm::vec3 world) {
  const glm::vec4 clip = vp * glm::vec4(world, 1.0f);
  return glm::vec3(clip) / clip.w;
}

Camera test_camera() {
  Camera c;
  c.position = glm::vec3(0.0f, 0.0f, 10.0f);
  c.target = glm::vec3(0.0f);
  c.up = glm::vec3(0.0f, 1.0f, 0.0f);
  c.fov_y_degrees = 90.0f;
  c.near_plane = 1.0f;
  c.far_plane = 100.0f;
  return c;
}

TEST(CameraMatrices, TargetProjectsToTheCentre) {
  const CameraMatrices m = camera_matrices(test_camera(), 640, 480);
  const glm::vec3 ndc = to_ndc(m.view_projection, glm::vec3(0.0f));
  EXPECT_NEAR(ndc.x, 0.0f, 1e-6f);
  EXPECT_NEAR(ndc.y, 0.0f, 1e-6f);
  EXPECT_EQ(m.view_projection, m.projection * m.view);
}

TEST(CameraMatrices, WorldUpIsTheTopRowAndRightIsRight) {
  const CameraMatrices m = camera_matrices(test_camera(), 640, 480);
  // Vulkan framebuffer: NDC y = -1 is the top row.
  EXPECT_LT(to_ndc(m.view_projection, glm::vec3(0.0f, 1.0f, 0.0f)).y, 0.0f);
  EXPECT_GT(to_ndc(m.view_projection, glm::vec3(1.0f, 0.0f, 0.0f)).x, 0.0f);
}

TEST(CameraMatrices, DepthRunsFromZeroAtNearToOneAtFar) {
  const CameraMatrices m = camera_matrices(test_camera(), 640, 480);
  EXPECT_NEAR(to_ndc(m.view_projection, glm::vec3(0.0f, 0.0f, 9.0f)).z, 0.0f, 1e-6f);
  EXPECT_NEAR(to_ndc(m.view_projection, glm::vec3(0.0f, 0.0f, -90.0f)).z, 1.0f, 1e-5f);
  const glm::vec4 clip = m.view_projection * glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
  EXPECT_NEAR(clip.w, 10.0f, 1e-5f);  // w is the view-space distance
}

TEST(CameraMatrices, FieldOfViewAndAspect) {
  // 90 degrees vertical: a point at 45 degrees above the axis lands on the top edge; the
  // horizontal extent is wider by width / height.
  const CameraMatrices m = camera_matrices(test_camera(), 800, 400);
  EXPECT_NEAR(to_ndc(m.view_projection, glm::vec3(0.0f, 5.0f, 5.0f)).y, -1.0f, 1e-5f);
  EXPECT_NEAR(to_ndc(m.view_projection, glm::vec3(10.0f, 0.0f, 5.0f)).x, 1.0f, 1e-5f);
}

}  // namespace
}  // namespace tessera
