#include "tessera/procedural.h"

#include <gtest/gtest.h>

#include "scene/scene_test_support.h"

namespace tessera {
namespace {

using scene_testing::expect_error;
using scene_testing::expect_well_formed;

bool same_mesh(const Mesh& a, const Mesh& b) {
  if (a.vertices.size() != b.vertices.size() || a.indices != b.indices) return false;
  for (size_t i = 0; i < a.vertices.size(); ++i) {
    if (a.vertices[i].position != b.vertices[i].position || a.vertices[i].normal != b.vertices[i].normal ||
        a.vertices[i].uv != b.vertices[i].uv) {
      return false;
    }
  }
  return true;
}

TEST(SphereGenerator, CountsAreClosedForm) {
  for (int segments : {3, 8, 33}) {
    for (int rings : {2, 3, 17}) {
      const Mesh m = make_sphere(2.0f, segments, rings);
      EXPECT_EQ(m.vertices.size(), size_t(segments + 1) * size_t(rings + 1));
      EXPECT_EQ(m.triangle_count(), size_t(2 * segments * (rings - 1))) << segments << " " << rings;
    }
  }
}

TEST(SphereGenerator, VerticesLieOnTheSphereWithRadialNormals) {
  const Mesh m = make_sphere(2.5f, 24, 12);
  expect_well_formed(m);
  for (const Vertex& v : m.vertices) {
    EXPECT_NEAR(glm::length(v.position), 2.5f, 1e-5f);
    EXPECT_NEAR(glm::dot(v.normal, glm::normalize(v.position)), 1.0f, 1e-5f);
    EXPECT_GE(v.uv.x, 0.0f);
    EXPECT_LE(v.uv.x, 1.0f);
    EXPECT_GE(v.uv.y, 0.0f);
    EXPECT_LE(v.uv.y, 1.0f);
  }
  EXPECT_NEAR(m.bounds_max.y, 2.5f, 1e-6f);
  EXPECT_NEAR(m.bounds_min.y, -2.5f, 1e-6f);
}

TEST(SphereGenerator, NorthPoleIsAtTheTopOfTheTexture) {
  const Mesh m = make_sphere(1.0f, 8, 4);
  EXPECT_EQ(m.vertices.front().position, glm::vec3(0.0f, 1.0f, 0.0f));
  EXPECT_EQ(m.vertices.front().uv.y, 0.0f);
  EXPECT_EQ(m.vertices.back().position, glm::vec3(0.0f, -1.0f, 0.0f));
  EXPECT_EQ(m.vertices.back().uv.y, 1.0f);
}

TEST(SphereGenerator, RejectsBadParameters) {
  expect_error([] { make_sphere(0.0f); }, {"sphere", "radius"});
  expect_error([] { make_sphere(-1.0f); }, {"sphere", "radius"});
  expect_error([] { make_sphere(NAN); }, {"sphere", "radius"});
  expect_error([] { make_sphere(1.0f, 2, 8); }, {"sphere", "segments"});
  expect_error([] { make_sphere(1.0f, 8, 1); }, {"sphere", "rings"});
  expect_error([] { make_sphere(1.0f, kMaxGeneratorResolution + 1, 8); }, {"segments"});
}

TEST(BoxGenerator, HasFourVerticesAndTwoTrianglesPerFace) {
  const Mesh m = make_box(glm::vec3(2.0f, 4.0f, 6.0f));
  EXPECT_EQ(m.vertices.size(), 24u);
  EXPECT_EQ(m.triangle_count(), 12u);
  expect_well_formed(m);
  EXPECT_EQ(m.bounds_min, glm::vec3(-1.0f, -2.0f, -3.0f));
  EXPECT_EQ(m.bounds_max, glm::vec3(1.0f, 2.0f, 3.0f));
}

TEST(BoxGenerator, FaceNormalsPointOutOfTheirFaceAndUvsCoverTheSquare) {
  const Mesh m = make_box(glm::vec3(1.0f));
  for (size_t f = 0; f < 6; ++f) {
    const glm::vec3 n = m.vertices[f * 4].normal;
    glm::vec2 uv_min(1.0f), uv_max(0.0f);
    for (size_t k = 0; k < 4; ++k) {
      const Vertex& v = m.vertices[f * 4 + k];
      EXPECT_EQ(v.normal, n);
      EXPECT_FLOAT_EQ(glm::dot(v.position, n), 0.5f);  // on the face the normal names
      uv_min = glm::min(uv_min, v.uv);
      uv_max = glm::max(uv_max, v.uv);
    }
    EXPECT_EQ(uv_min, glm::vec2(0.0f));
    EXPECT_EQ(uv_max, glm::vec2(1.0f));
  }
}

TEST(BoxGenerator, RejectsNonPositiveSize) {
  expect_error([] { make_box(glm::vec3(1.0f, 0.0f, 1.0f)); }, {"box", "size.y"});
  expect_error([] { make_box(glm::vec3(-1.0f)); }, {"box", "size.x"});
}

TEST(PlaneGenerator, CountsUvsAndOrientation) {
  const Mesh m = make_plane(glm::vec2(4.0f, 2.0f), glm::ivec2(3, 5), 2.0f);
  EXPECT_EQ(m.vertices.size(), 4u * 6u);
  EXPECT_EQ(m.triangle_count(), 2u * 3u * 5u);
  expect_well_formed(m);
  for (const Vertex& v : m.vertices) {
    EXPECT_EQ(v.normal, glm::vec3(0.0f, 1.0f, 0.0f));
    EXPECT_EQ(v.position.y, 0.0f);
  }
  EXPECT_EQ(m.bounds_min, glm::vec3(-2.0f, 0.0f, -1.0f));
  EXPECT_EQ(m.bounds_max, glm::vec3(2.0f, 0.0f, 1.0f));
  EXPECT_EQ(m.vertices.back().uv, glm::vec2(2.0f, 2.0f));
}

TEST(PlaneGenerator, RejectsBadParameters) {
  expect_error([] { make_plane(glm::vec2(1.0f), glm::ivec2(0, 1)); }, {"plane", "cells.x"});
  expect_error([] { make_plane(glm::vec2(1.0f, -1.0f)); }, {"plane", "size.y"});
  expect_error([] { make_plane(glm::vec2(1.0f), glm::ivec2(1), 0.0f); }, {"plane", "uv_scale"});
}

TEST(TorusGenerator, CountsGeometryAndOrientation) {
  const Mesh m = make_torus(2.0f, 0.5f, 12, 7);
  EXPECT_EQ(m.vertices.size(), 13u * 8u);
  EXPECT_EQ(m.triangle_count(), 2u * 12u * 7u);
  expect_well_formed(m);
  for (const Vertex& v : m.vertices) {
    // Distance from the tube's centre circle is the minor radius, along the normal.
    const glm::vec3 ring = glm::normalize(glm::vec3(v.position.x, 0.0f, v.position.z)) * 2.0f;
    EXPECT_NEAR(glm::length(v.position - ring), 0.5f, 1e-5f);
    EXPECT_NEAR(glm::dot(glm::normalize(v.position - ring), v.normal), 1.0f, 1e-5f);
  }
  // With 8 tube segments the outer equator and the top circle are sampled exactly.
  const Mesh even = make_torus(2.0f, 0.5f, 12, 8);
  EXPECT_NEAR(even.bounds_max.x, 2.5f, 1e-5f);
  EXPECT_NEAR(even.bounds_max.y, 0.5f, 1e-5f);
  EXPECT_NEAR(even.bounds_min.y, -0.5f, 1e-5f);
}

TEST(TorusGenerator, RejectsBadParameters) {
  expect_error([] { make_torus(1.0f, 0.0f); }, {"torus", "minor_radius"});
  expect_error([] { make_torus(1.0f, 0.2f, 2, 8); }, {"torus", "major_segments"});
}

TEST(ShapeGenerators, AreDeterministic) {
  EXPECT_TRUE(same_mesh(make_sphere(1.5f, 20, 10), make_sphere(1.5f, 20, 10)));
  EXPECT_TRUE(same_mesh(make_torus(1.0f, 0.3f, 20, 10), make_torus(1.0f, 0.3f, 20, 10)));
  EXPECT_TRUE(same_mesh(make_plane(glm::vec2(3.0f), glm::ivec2(4)), make_plane(glm::vec2(3.0f), glm::ivec2(4))));
  EXPECT_FALSE(same_mesh(make_sphere(1.5f, 20, 10), make_sphere(1.5f, 20, 11)));
}

}  // namespace
}  // namespace tessera
