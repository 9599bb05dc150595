#include <gtest/gtest.h>

#include <cmath>

#include "scene/scene_test_support.h"
#include "tessera/scene.h"

namespace tessera {
namespace {

using scene_testing::expect_error;
using scene_testing::expect_well_formed;
using scene_testing::ScratchDir;
using scene_testing::source_dir;

// Unit cube with per-face normals and a 4-corner uv set: 24 distinct (v, vt, vn) triples.
constexpr const char* kCubeObj = R"(# unit cube
v -0.5 -0.5  0.5
v  0.5 -0.5  0.5
v  0.5  0.5  0.5
v -0.5  0.5  0.5
v -0.5 -0.5 -0.5
v  0.5 -0.5 -0.5
v  0.5  0.5 -0.5
v -0.5  0.5 -0.5
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
vn 0 0 -1
vn 1 0 0
vn -1 0 0
vn 0 1 0
vn 0 -1 0
o cube
f 1/1/1 2/2/1 3/3/1 4/4/1
f 6/1/2 5/2/2 8/3/2 7/4/2
f 2/1/3 6/2/3 7/3/3 3/4/3
f 5/1/4 1/2/4 4/3/4 8/4/4
f 4/1/5 3/2/5 7/3/5 8/4/5
f 5/1/6 6/2/6 2/3/6 1/4/6
)";

// The same cube with positions only: 8 vertices, normals computed.
constexpr const char* kBareCubeObj = R"(v -0.5 -0.5  0.5
v  0.5 -0.5  0.5
v  0.5  0.5  0.5
v -0.5  0.5  0.5
v -0.5 -0.5 -0.5
v  0.5 -0.5 -0.5
v  0.5  0.5 -0.5
v -0.5  0.5 -0.5
f 1 2 3 4
f 6 5 8 7
f 2 6 7 3
f 5 1 4 8
f 4 3 7 8
f 5 6 2 1
)";

TEST(ObjLoader, DegenerateOnlyFilesAreRefusedLongPolygonsAccepted) {
  ScratchDir dir;
  // Collinear and coincident corners: triangles without area, as a 3-gon and as a 40-gon.
  std::string collinear = "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n";
  std::string long_collinear, long_round;
  for (int i = 0; i < 40; ++i) {
    long_collinear += "v " + std::to_string(i) + " 0 0\n";
    const double a = 6.283185307179586 * i / 40;
    long_round += "v " + std::to_string(std::cos(a)) + " " + std::to_string(std::sin(a)) + " 0\n";
  }
  std::string face = "f";
  for (int i = 1; i <= 40; ++i) face += " " + std::to_string(i);
  long_collinear += face + "\n";
  long_round += face + "\n";
  expect_error([&] { load_obj(dir.write("flat.obj", collinear)); },
               {"flat.obj: OBJ file has no triangles with area (all 1 are degenerate)"});
  expect_error([&] { load_obj(dir.write("long_flat.obj", long_collinear)); },
               {"long_flat.obj: OBJ file has no triangles with area (all 38 are degenerate)"});
  // A 40-corner polygon with area is triangulated; degenerate faces next to real ones stay.
  EXPECT_EQ(load_obj(dir.write("round.obj", long_round)).triangle_count(), 38u);
  const Mesh mixed = load_obj(dir.write("mixed.obj", collinear + "v 0 1 0\nf 1 2 4\n"));
  EXPECT_EQ(mixed.triangle_count(), 2u);
}

TEST(ObjLoader, CubeWithNormalsAndUvsDeduplicatesToTwentyFourVertices) {
  ScratchDir dir;
  const Mesh m = load_obj(dir.write("cube.obj", kCubeObj));
  EXPECT_EQ(m.name, "cube");
  EXPECT_EQ(m.vertices.size(), 24u);
  EXPECT_EQ(m.triangle_count(), 12u);
  expect_well_formed(m);
  EXPECT_EQ(m.bounds_min, glm::vec3(-0.5f));
  EXPECT_EQ(m.bounds_max, glm::vec3(0.5f));
  // Normals come from the file unchanged, and uvs are not flipped: the +Z face's corner
  // (-0.5, -0.5, 0.5) carries vt 1 = (0, 0), its corner (0.5, 0.5, 0.5) vt 3 = (1, 1).
  int found = 0;
  for (const Vertex& v : m.vertices) {
    if (v.normal != glm::vec3(0.0f, 0.0f, 1.0f)) continue;
    if (v.position == glm::vec3(-0.5f, -0.5f, 0.5f)) found += v.uv == glm::vec2(0.0f, 0.0f);
    if (v.position == glm::vec3(0.5f, 0.5f, 0.5f)) found += v.uv == glm::vec2(1.0f, 1.0f);
  }
  EXPECT_EQ(found, 2);
}

TEST(ObjLoader, BareCubeSharesPositionsAndGetsSmoothNormals) {
  ScratchDir dir;
  const Mesh m = load_obj(dir.write("bare.obj", kBareCubeObj));
  EXPECT_EQ(m.vertices.size(), 8u);
  EXPECT_EQ(m.triangle_count(), 12u);
  expect_well_formed(m);
  for (const Vertex& v : m.vertices) {
    // Each corner's normal leans outwards along all three axes.
    for (int a = 0; a < 3; ++a) EXPECT_GT(v.normal[a] * v.position[a], 0.0f);
    EXPECT_EQ(v.uv, glm::vec2(0.0f));
  }
}

TEST(ObjLoader, SmoothNormalsAreAreaWeighted) {
  // A roof: two triangles meeting at 90 degrees along the edge 1-2. The first has twice the
  // area of the second, so the ridge normal leans 2:1 towards it.
  ScratchDir dir;
  const Mesh m = load_obj(dir.write("roof.obj", R"(v 0 0 0
v 0 0 1
v 2 0 0
v 0 -1 0
f 1 2 3
f 2 1 4
)"));
  ASSERT_EQ(m.vertices.size(), 4u);
  const glm::vec3 up = m.vertices[2].normal;     // only in the first triangle
  const glm::vec3 side = m.vertices[3].normal;   // only in the second
  const glm::vec3 ridge = m.vertices[0].normal;  // in both
  EXPECT_NEAR(glm::dot(up, side), 0.0f, 1e-6f);
  const glm::vec3 expected = glm::normalize(2.0f * up + side);
  EXPECT_NEAR(glm::dot(ridge, expected), 1.0f, 1e-6f);
  EXPECT_NEAR(glm::dot(m.vertices[1].normal, expected), 1.0f, 1e-6f);
}

TEST(ObjLoader, PolygonsAreTriangulatedAndShapesMerged) {
  ScratchDir dir;
  const Mesh m = load_obj(dir.write("shapes.obj", R"(mtllib missing.mtl
o pentagon
v 0 0 0
v 1 0 0
v 1.3 1 0
v 0.5 1.6 0
v -0.3 1 0
usemtl whatever
f 1 2 3 4 5
g second
v 0 0 1
v 1 0 1
v 0 1 1
f -3 -2 -1
)"));
  EXPECT_EQ(m.triangle_count(), 3u + 1u);
  EXPECT_EQ(m.vertices.size(), 8u);
  expect_well_formed(m);
}

TEST(ObjLoader, AcceptsCrlfCommentsAndNormalisesFileNormals) {
  ScratchDir dir;
  const Mesh m = load_obj(dir.write("crlf.obj",
                                    "# comment\r\nv 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nvn 0 0 5\r\n"
                                    "vt 0.25 0.75\r\nf 1/1/1 2/1/1 3/1/1\r\n"));
  ASSERT_EQ(m.vertices.size(), 3u);
  EXPECT_EQ(m.vertices[0].normal, glm::vec3(0.0f, 0.0f, 1.0f));
  EXPECT_EQ(m.vertices[1].uv, glm::vec2(0.25f, 0.75f));
}

TEST(ObjLoader, ShippedMeshesLoad) {
  for (const char* name : {"assets/meshes/rock.obj"}) {
    const Mesh m = load_obj(source_dir() / name);
    EXPECT_GT(m.triangle_count(), 100u) << name;
    expect_well_formed(m);
  }
}

// Each malformed file must raise tessera::Error naming the file and saying what is wrong.
struct BadObj {
  const char* file;
  const char* says;
};

class ObjLoaderBadInput : public ::testing::TestWithParam<BadObj> {};

TEST_P(ObjLoaderBadInput, ThrowsNamingTheFile) {
  const std::filesystem::path path = source_dir() / "tests/data/bad" / GetParam().file;
  if (std::string(GetParam().file) != "does_not_exist.obj") {
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
  }
  expect_error([&] { load_obj(path); }, {path.string(), GetParam().says});
}

INSTANTIATE_TEST_SUITE_P(
    BadFiles, ObjLoaderBadInput,
    ::testing::Values(
        BadObj{"does_not_exist.obj", "not found"}, BadObj{"obj_garbage.obj", "no triangles"},
        BadObj{"obj_empty.obj", "no triangles"}, BadObj{"obj_truncated_face.obj", ":4: face with 2 corners"},
        BadObj{"obj_truncated_vertex.obj", ":3: malformed 'v' line"},
        BadObj{"obj_index_out_of_range.obj", ":4: position index 9 is out of range"},
        BadObj{"obj_negative_index_out_of_range.obj", "reaches before the first"},
        BadObj{"obj_normal_index_out_of_range.obj", "normal index 4 is out of range"},
        BadObj{"obj_zero_index.obj", "malformed index"}, BadObj{"obj_nan_vertex.obj", ":1: non-finite position 'nan'"},
        BadObj{"obj_inf_normal.obj", "non-finite normal"}, BadObj{"obj_huge_uv.obj", "non-finite uv"},
        BadObj{"obj_bad_number.obj", "malformed number in position '0.5x'"}, BadObj{"obj_binary.obj", "no triangles"}),
    [](const ::testing::TestParamInfo<BadObj>& param_info) {
      std::string name = param_info.param.file;
      return name.substr(0, name.find('.'));
    });

TEST(ObjLoader, FolderInsteadOfFileNamesThePath) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "folder.obj");
  expect_error([&] { load_obj(dir.path() / "folder.obj"); }, {"folder.obj"});
}

}  // namespace
}  // namespace tessera
