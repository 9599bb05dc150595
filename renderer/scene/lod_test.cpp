// LOD chains: simplified levels, LOD groups in the scene JSON, the camera-distance choice.
#include <gtest/gtest.h>

#include "scene/scene_test_support.h"
#include "tessera/lod.h"
#include "tessera/procedural.h"
#include "tessera/scene.h"

namespace tessera {
namespace {

using scene_testing::expect_error;
using scene_testing::ScratchDir;

constexpr const char* kHead = R"({"camera": {"position": [0, 2, 5], "target": [0, 0, 0]},
  "materials": [{"name": "m"}],
  "meshes": [{"name": "ball", "generator": "sphere", "segments": 48, "rings": 24},
             {"name": "small", "generator": "sphere", "segments": 8, "rings": 4}],)";

Scene load_text(const ScratchDir& dir, const std::string& body) {
  return load_scene(dir.write("scene.json", std::string(kHead) + body));
}

TEST(Lod, SimplifiedLevelsHalveTheTrianglesDeterministically) {
  ScratchDir dir;
  const Scene s = load_text(dir, R"("instances": [{"mesh": "ball", "material": "m"}]})");
  const Mesh& ball = s.meshes[0];
  const auto levels = simplify_lod_levels(ball, 4);
  ASSERT_EQ(levels.size(), 3u);
  size_t previous = ball.triangle_count();
  for (size_t i = 0; i < levels.size(); ++i) {
    const size_t n = levels[i].triangle_count();
    EXPECT_LE(n, previous * 3 / 4) << "level " << i + 1;
    EXPECT_GE(n, previous / 4) << "level " << i + 1;
    EXPECT_EQ(levels[i].name, "ball@lod" + std::to_string(i + 1));
    for (uint32_t index : levels[i].indices) ASSERT_LT(index, levels[i].vertices.size());
    previous = n;
  }
  const auto again = simplify_lod_levels(ball, 4);
  for (size_t i = 0; i < levels.size(); ++i) EXPECT_EQ(levels[i].indices, again[i].indices);
  EXPECT_THROW(simplify_lod_levels(ball, 1), Error);
  EXPECT_THROW(simplify_lod_levels(ball, 5), Error);
}

TEST(Lod, GroupsFromTheSceneFileAndTheirInstances) {
  ScratchDir dir;
  const Scene s = load_text(dir, R"(
    "lod_groups": [{"name": "gen", "mesh": "ball", "generate": 3, "ranges": [5, 10, 20], "bias": 1},
                   {"name": "named", "levels": ["ball", "small"], "ranges": [8, 30]}],
    "instances": [{"lod_group": "gen", "material": "m", "transform": {"translate": [0, 0, -10]}},
                  {"mesh": "small", "material": "m"}],
    "grids": [{"lod_group": "named", "material": "m", "count": [2, 1, 2]}]})");
  ASSERT_EQ(s.lod_groups.size(), 2u);
  const LodGroup& gen = s.lod_groups[0];
  ASSERT_EQ(gen.levels.size(), 3u);
  EXPECT_EQ(gen.levels[0], 0u);
  EXPECT_EQ(s.meshes.size(), 4u) << "two generated levels appended";
  EXPECT_EQ(s.meshes[gen.levels[2]].name, "ball@lod2");
  EXPECT_EQ(gen.ranges, (std::vector<float>{5, 10, 20}));
  EXPECT_EQ(gen.bias, 1.0f);
  EXPECT_EQ(s.lod_groups[1].levels, (std::vector<uint32_t>{0, 1}));
  ASSERT_EQ(s.instances.size(), 6u);
  EXPECT_EQ(s.instances[0].lod_group, 0);
  EXPECT_EQ(s.instances[0].mesh, 0u);
  EXPECT_EQ(s.instances[1].lod_group, -1);
  for (size_t i = 2; i < 6; ++i) EXPECT_EQ(s.instances[i].lod_group, 1);
  // Camera-distance choice (per object): centre at distance 10 from the eye, plus bias 1.
  EXPECT_EQ(camera_lod_mesh(s, s.instances[0], glm::vec3(0, 0, -6.5f)), gen.levels[0]);  // 3.5 + 1 < 5
  EXPECT_EQ(camera_lod_mesh(s, s.instances[0], glm::vec3(0, 0, 0)), gen.levels[2]);      // 11 -> [10, 20)
  EXPECT_EQ(camera_lod_mesh(s, s.instances[0], glm::vec3(0, 0, 30)), kLodDiscarded);     // 41 beyond 20
  EXPECT_EQ(camera_lod_mesh(s, s.instances[1], glm::vec3(0, 0, 1000)), 1u) << "plain instances keep their mesh";
}

TEST(Lod, BadGroupsAreClearErrors) {
  ScratchDir dir;
  expect_error([&] { load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["ball"], "ranges": [5, 6]}]})"); },
               {"lod_groups[0].ranges", "2 ranges for 1 levels"});
  expect_error([&] { load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["ball", "small"], "ranges": [5, 5]}]})"); },
               {"lod_groups[0].ranges[1]", "increase"});
  expect_error([&] { load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["nope"], "ranges": [5]}]})"); },
               {"unknown mesh \"nope\""});
  expect_error([&] { load_text(dir, R"("lod_groups": [{"name": "g", "mesh": "ball", "generate": 9, "ranges": [5]}]})"); },
               {"generate"});
  expect_error([&] { load_text(dir, R"("lod_groups": [{"name": "g", "mesh": "ball", "levels": ["ball"], "ranges": [5]}]})"); },
               {"exactly one of"});
  expect_error([&] { load_text(dir, R"("instances": [{"lod_group": "none", "material": "m"}]})"); },
               {"unknown LOD group \"none\""});
  expect_error([&] {
    load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["ball"], "ranges": [5]}],
                      "instances": [{"lod_group": "g", "mesh": "ball", "material": "m"}]})");
  }, {"exactly one of \"mesh\" or \"lod_group\""});
}

}  // namespace
}  // namespace tessera
