#include <gtest/gtest.h>

#include "scene/scene_test_support.h"
#include "tessera/procedural.h"
#include "tessera/scene.h"

namespace tessera {
namespace {

using scene_testing::expect_error;

Scene valid_scene() {
  Scene s;
  s.meshes.push_back(make_box(glm::vec3(1.0f)));
  s.textures.push_back(make_texture("t", Image(4, 4, pack_rgba8(1, 2, 3))));
  s.materials.push_back({"m", glm::vec3(0.5f), 0});
  s.instances.push_back({0, 0, glm::mat4(1.0f)});
  s.lights.push_back(Light{});
  return s;
}

TEST(SceneValidation, AcceptsAValidScene) {
  EXPECT_NO_THROW(validate_scene(valid_scene(), "test"));
  EXPECT_EQ(valid_scene().triangle_count(), 12u);
}

TEST(SceneValidation, CameraChecksAreSharedWithTheCommandLine) {
  Camera c;
  EXPECT_NO_THROW(validate_camera(c, "--camera x"));
  c.position = {0.0f, 5.0f, 0.0f};  // looking straight down the default up axis
  c.target = {0.0f, 0.0f, 0.0f};
  expect_error([&] { validate_camera(c, "--camera 0,5,0,0,0,0"); },
               {"--camera 0,5,0,0,0,0: up is parallel to the view direction"});
  c.up = {0.0f, 0.0f, -1.0f};
  EXPECT_NO_THROW(validate_camera(c, "--camera 0,5,0,0,0,0"));
  c.fov_y_degrees = 180.0f;
  expect_error([&] { validate_camera(c, "v"); }, {"v: fov_y_degrees must be in (0, 180)"});
}

TEST(SceneValidation, TriangleCountSumsOverInstances) {
  Scene s = valid_scene();
  s.meshes.push_back(make_sphere(1.0f, 8, 4));  // 2*8*3 = 48 triangles
  s.instances.push_back({1, 0, glm::mat4(1.0f)});
  s.instances.push_back({1, 0, glm::mat4(1.0f)});
  EXPECT_EQ(s.triangle_count(), 12u + 96u);
}

TEST(SceneValidation, RejectsBrokenMeshes) {
  Scene s = valid_scene();
  s.meshes[0].indices[7] = 24;
  expect_error([&] { validate_scene(s, "scene.json"); }, {"scene.json", "meshes[0] \"box\"", "indices[7] = 24"});
  s = valid_scene();
  s.meshes[0].indices.pop_back();
  expect_error([&] { validate_scene(s, "x"); }, {"not a multiple of 3"});
  s = valid_scene();
  s.meshes[0].vertices[3].position.y = NAN;
  expect_error([&] { validate_scene(s, "x"); }, {"vertices[3]", "position"});
  s = valid_scene();
  s.meshes[0].vertices[5].normal.x = INFINITY;
  expect_error([&] { validate_scene(s, "x"); }, {"vertices[5]", "normal"});
}

TEST(SceneValidation, RejectsBadReferences) {
  Scene s = valid_scene();
  s.instances[0].mesh = 3;
  expect_error([&] { validate_scene(s, "x"); }, {"instances[0]", "mesh index 3"});
  s = valid_scene();
  s.instances[0].material = 1;
  expect_error([&] { validate_scene(s, "x"); }, {"instances[0]", "material index 1"});
  s = valid_scene();
  s.materials[0].texture = 1;
  expect_error([&] { validate_scene(s, "x"); }, {"materials[0] \"m\"", "texture index 1"});
}

TEST(SceneValidation, RejectsBadTexturesTransformsAndLights) {
  Scene s = valid_scene();
  s.textures[0].levels.pop_back();
  expect_error([&] { validate_scene(s, "x"); }, {"textures[0]", "1x1"});
  s = valid_scene();
  s.instances[0].transform[3][1] = NAN;
  expect_error([&] { validate_scene(s, "x"); }, {"instances[0]", "not finite"});
  s = valid_scene();
  s.instances[0].transform[1][1] = 0.0f;
  expect_error([&] { validate_scene(s, "x"); }, {"instances[0]", "singular"});
  s = valid_scene();
  s.lights.resize(kMaxLights + 1);
  expect_error([&] { validate_scene(s, "x"); }, {"lights", "at most 8"});
  s = valid_scene();
  s.lights[0].direction = glm::vec3(0.0f);
  expect_error([&] { validate_scene(s, "x"); }, {"lights[0]", "direction"});
  s = valid_scene();
  s.lights[0].intensity = -1.0f;
  expect_error([&] { validate_scene(s, "x"); }, {"lights[0]", "intensity"});
}

TEST(SceneValidation, RejectsBadCameras) {
  Scene s = valid_scene();
  s.camera.fov_y_degrees = 180.0f;
  expect_error([&] { validate_scene(s, "x"); }, {"camera", "fov_y_degrees"});
  s = valid_scene();
  s.camera.near_plane = 0.0f;
  expect_error([&] { validate_scene(s, "x"); }, {"camera", "near"});
  s = valid_scene();
  s.camera.far_plane = s.camera.near_plane;
  expect_error([&] { validate_scene(s, "x"); }, {"camera", "near < far"});
  s = valid_scene();
  s.camera.target = s.camera.position;
  expect_error([&] { validate_scene(s, "x"); }, {"camera", "coincide"});
  s = valid_scene();
  s.camera.up = s.camera.target - s.camera.position;
  expect_error([&] { validate_scene(s, "x"); }, {"camera", "parallel"});
  s = valid_scene();
  s.cameras.push_back(Camera{});
  s.cameras.back().fov_y_degrees = 0.0f;
  expect_error([&] { validate_scene(s, "x"); }, {"cameras[0]", "fov_y_degrees"});
}

}  // namespace
}  // namespace tessera
