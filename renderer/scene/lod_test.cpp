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

// Coarse levels keep the shape: a UV sphere's seam and pole vertices (split by attributes
// only) must not pin the simplifier, nor may it reach a count by wrecking the surface. Every
// level of a radius-1 sphere keeps nearly its area, and no triangle cuts through the inside.
TEST(Lod, CoarseLevelsKeepTheShape) {
  ScratchDir dir;
  const Scene s = load_scene(dir.write("sphere.json", R"({"camera": {"position": [0, 2, 5], "target": [0, 0, 0]},
    "materials": [{"name": "m"}],
    "meshes": [{"name": "ball", "generator": "sphere", "radius": 1, "segments": 256, "rings": 128}],
    "instances": [{"mesh": "ball", "material": "m"}]})"));
  for (float keep : {0.5f, 0.25f, 0.1f}) {
    const auto levels = simplify_lod_levels(s.meshes[0], 4, keep);
    for (size_t l = 0; l < levels.size(); ++l) {
      const Mesh& m = levels[l];
      double area = 0.0, nearest = 1.0;
      for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
        const glm::vec3 a = m.vertices[m.indices[t]].position, b = m.vertices[m.indices[t + 1]].position,
                        c = m.vertices[m.indices[t + 2]].position;
        area += 0.5 * double(glm::length(glm::cross(b - a, c - a)));
        nearest = std::min(nearest, double(glm::length((a + b + c) / 3.0f)));
      }
      const double sphere = 4.0 * 3.14159265358979;
      EXPECT_GT(area, 0.88 * sphere) << "keep " << keep << " level " << l + 1 << ": " << m.triangle_count()
                                     << " triangles";
      EXPECT_LT(area, 1.001 * sphere) << "keep " << keep << " level " << l + 1;
      EXPECT_GT(nearest, 0.8) << "keep " << keep << " level " << l + 1 << ": a triangle cuts through the sphere";
    }
    // Reached the count where that keeps the shape (1/10 per level stops early at level 3).
    if (keep >= 0.25f) {
      EXPECT_LT(levels.back().triangle_count(),
                size_t(double(s.meshes[0].triangle_count()) * keep * keep * keep * 1.5));
    }
    for (size_t l = 1; l < levels.size(); ++l) EXPECT_LE(levels[l].triangle_count(), levels[l - 1].triangle_count());
  }
  EXPECT_THROW(simplify_lod_levels(s.meshes[0], 4, 0.0f), Error);
  EXPECT_THROW(simplify_lod_levels(s.meshes[0], 4, 0.95f), Error);
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
  expect_error(
      [&] { load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["ball", "small"], "ranges": [5, 5]}]})"); },
      {"lod_groups[0].ranges[1]", "increase"});
  expect_error([&] { load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["nope"], "ranges": [5]}]})"); },
               {"unknown mesh \"nope\""});
  expect_error(
      [&] { load_text(dir, R"("lod_groups": [{"name": "g", "mesh": "ball", "generate": 9, "ranges": [5]}]})"); },
      {"generate"});
  expect_error(
      [&] {
        load_text(dir, R"("lod_groups": [{"name": "g", "mesh": "ball", "reduction": 0.95, "ranges": [1, 2, 3, 4]}]})");
      },
      {"lod_groups[0].reduction"});
  expect_error(
      [&] {
        load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["ball"], "reduction": 0.25, "ranges": [5]}]})");
      },
      {"reduction", "only with"});
  {
    const Scene s = load_text(
        dir,
        R"("lod_groups": [{"name": "g", "mesh": "ball", "generate": 3, "reduction": 0.25, "ranges": [1, 2, 3]}]})");
    const size_t finest = s.meshes[0].triangle_count();
    ASSERT_EQ(s.lod_groups[0].levels.size(), 3u);
    EXPECT_LE(s.meshes[s.lod_groups[0].levels[1]].triangle_count(), finest * 3 / 8);
    EXPECT_GE(s.meshes[s.lod_groups[0].levels[1]].triangle_count(), finest / 8);
  }
  expect_error(
      [&] { load_text(dir, R"("lod_groups": [{"name": "g", "mesh": "ball", "levels": ["ball"], "ranges": [5]}]})"); },
      {"exactly one of"});
  expect_error([&] { load_text(dir, R"("instances": [{"lod_group": "none", "material": "m"}]})"); },
               {"unknown LOD group \"none\""});
  expect_error(
      [&] {
        load_text(dir, R"("lod_groups": [{"name": "g", "levels": ["ball"], "ranges": [5]}],
                      "instances": [{"lod_group": "g", "mesh": "ball", "material": "m"}]})");
      },
      {"exactly one of \"mesh\" or \"lod_group\""});
}

}  // namespace
}  // namespace tessera
