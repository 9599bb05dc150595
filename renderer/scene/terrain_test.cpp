#include <gtest/gtest.h>

#include "scene/scene_test_support.h"
#include "tessera/procedural.h"

namespace tessera {
namespace {

using scene_testing::expect_error;
using scene_testing::expect_well_formed;

TerrainParams small_terrain(int resolution) {
  TerrainParams p;
  p.size = 50.0f;
  p.resolution = resolution;
  p.height = 8.0f;
  p.seed = 7;
  return p;
}

TEST(TerrainGenerator, ResolutionRGivesTwoRSquaredTriangles) {
  for (int r : {1, 2, 7, 64, 100}) {
    const Mesh m = make_terrain(small_terrain(r));
    EXPECT_EQ(m.triangle_count(), size_t(2) * size_t(r) * size_t(r)) << r;
    EXPECT_EQ(m.vertices.size(), size_t(r + 1) * size_t(r + 1)) << r;
  }
}

TEST(TerrainGenerator, IsWellFormedWithUnitUpwardNormals) {
  const Mesh m = make_terrain(small_terrain(64));
  expect_well_formed(m);
  for (const Vertex& v : m.vertices) {
    EXPECT_GT(v.normal.y, 0.0f);
    EXPECT_GE(v.position.y, 0.0f);
    EXPECT_LE(v.position.y, 8.0f);
  }
  EXPECT_FLOAT_EQ(m.bounds_min.x, -25.0f);
  EXPECT_FLOAT_EQ(m.bounds_max.z, 25.0f);
  EXPECT_GT(m.bounds_max.y - m.bounds_min.y, 1.0f) << "terrain should not be flat";
}

TEST(TerrainGenerator, UvsTileByUvScale) {
  TerrainParams p = small_terrain(10);
  p.uv_scale = 3.0f;
  const Mesh m = make_terrain(p);
  EXPECT_EQ(m.vertices.front().uv, glm::vec2(0.0f));
  EXPECT_EQ(m.vertices.back().uv, glm::vec2(3.0f));
}

TEST(TerrainGenerator, HeightsMatchTerrainHeight) {
  const TerrainParams p = small_terrain(16);
  const Mesh m = make_terrain(p);
  for (const Vertex& v : m.vertices) {
    EXPECT_NEAR(v.position.y, terrain_height(p, v.position.x, v.position.z), 1e-4f);
  }
}

TEST(TerrainGenerator, NormalsFollowTheSlope) {
  // Compare the central-difference normal of an interior vertex with the face normals of
  // the triangles around it: they should agree closely on a finely sampled terrain.
  TerrainParams p = small_terrain(256);
  p.octaves = 2;
  const Mesh m = make_terrain(p);
  const size_t row = 257;
  double worst = 1.0;
  for (size_t j = 1; j < 256; j += 17) {
    for (size_t i = 1; i < 256; i += 13) {
      const glm::vec3 dx = m.vertices[j * row + i + 1].position - m.vertices[j * row + i - 1].position;
      const glm::vec3 dz = m.vertices[(j + 1) * row + i].position - m.vertices[(j - 1) * row + i].position;
      const glm::vec3 face = glm::normalize(glm::cross(dz, dx));
      worst = std::min(worst, double(glm::dot(face, m.vertices[j * row + i].normal)));
    }
  }
  EXPECT_GT(worst, 0.9999);
}

TEST(TerrainGenerator, FlatRadiusMakesAValleyFloor) {
  TerrainParams p = small_terrain(50);
  p.flat_radius = 10.0f;
  const Mesh m = make_terrain(p);
  const float cell = 50.0f / 50.0f;
  for (const Vertex& v : m.vertices) {
    const float r = glm::length(glm::vec2(v.position.x, v.position.z));
    if (r <= 10.0f) {
      EXPECT_EQ(v.position.y, 0.0f);
    }
    // Normals use the neighbours' heights, so they are exactly up one cell further in.
    if (r <= 10.0f - 1.5f * cell) {
      EXPECT_EQ(v.normal, glm::vec3(0.0f, 1.0f, 0.0f));
    }
  }
  EXPECT_GT(m.bounds_max.y, 1.0f);
}

TEST(TerrainGenerator, IsDeterministicAndSeedDependent) {
  const Mesh a = make_terrain(small_terrain(40));
  const Mesh b = make_terrain(small_terrain(40));
  TerrainParams other = small_terrain(40);
  other.seed = 8;
  const Mesh c = make_terrain(other);
  ASSERT_EQ(a.vertices.size(), b.vertices.size());
  size_t differ = 0;
  for (size_t i = 0; i < a.vertices.size(); ++i) {
    EXPECT_EQ(a.vertices[i].position, b.vertices[i].position);
    EXPECT_EQ(a.vertices[i].normal, b.vertices[i].normal);
    differ += a.vertices[i].position.y != c.vertices[i].position.y;
  }
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_GT(differ, a.vertices.size() / 2);
}

TEST(TerrainGenerator, RejectsBadParameters) {
  TerrainParams p = small_terrain(8);
  p.resolution = kMaxGeneratorResolution + 1;
  expect_error([&] { make_terrain(p); }, {"terrain", "resolution", "4097"});
  p = small_terrain(8);
  p.resolution = 0;
  expect_error([&] { make_terrain(p); }, {"terrain", "resolution"});
  p = small_terrain(8);
  p.size = -1.0f;
  expect_error([&] { make_terrain(p); }, {"terrain", "size"});
  p = small_terrain(8);
  p.height = NAN;
  expect_error([&] { make_terrain(p); }, {"terrain", "height"});
  p = small_terrain(8);
  p.octaves = 13;
  expect_error([&] { make_terrain(p); }, {"terrain", "octaves"});
}

}  // namespace
}  // namespace tessera
