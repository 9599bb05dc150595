// OBJ .mtl materials: each material key read, per-face materials split into draws, map_d
// folded into the texture's alpha, and the errors of a bad texture reference.
#include <gtest/gtest.h>

#include "scene/scene_test_support.h"
#include "tessera/gltf.h"
#include "tessera/scene.h"

namespace tessera {
namespace {

using scene_testing::expect_error;
using scene_testing::ScratchDir;

// Two quads side by side, the left one "red", the right one "leaf", and a triangle with no
// material at all.
constexpr const char* kObj = R"(mtllib two.mtl
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 2 0 0
v 2 1 0
v 3 1 0
vt 0 1
vt 1 1
vt 1 0
vt 0 0
vn 0 0 1
f 7/1/1 5/2/1 6/3/1
usemtl red
f 1/1/1 2/2/1 3/3/1 4/4/1
usemtl leaf
f 2/1/1 5/2/1 6/3/1 3/4/1
)";

constexpr const char* kMtl = R"(newmtl red
Kd 0.8 0.1 0.1
Ks 0.5 0.5 0.5
Ns 64
Tr 0.25
newmtl leaf
Kd 1 1 1
map_Kd leaf.png
map_d mask.png
)";

TEST(ObjMaterials, KeysAndPerFaceDraws) {
  ScratchDir dir;
  const auto path = dir.write("two.obj", kObj);
  dir.write("two.mtl", kMtl);
  Image leaf(4, 4, pack_rgba8(10, 200, 20));
  write_png(dir.path() / "leaf.png", leaf);
  Image mask(2, 2, pack_rgba8(0, 0, 0));
  mask.at(1, 0) = mask.at(1, 1) = pack_rgba8(255, 255, 255);
  write_png(dir.path() / "mask.png", mask);
  const ModelContent c = load_obj_model(path);
  // Draws in order of first use: no material, red, leaf.
  ASSERT_EQ(c.meshes.size(), 3u);
  ASSERT_EQ(c.instances.size(), 3u);
  EXPECT_EQ(c.meshes[0].triangle_count(), 1u);
  EXPECT_EQ(c.meshes[1].triangle_count(), 2u);
  EXPECT_EQ(c.meshes[2].triangle_count(), 2u);
  EXPECT_EQ(c.meshes[1].vertices.size(), 4u);
  const Material& def = c.materials[c.instances[0].material];
  EXPECT_EQ(def.alpha_mode, AlphaMode::opaque);
  const Material& red = c.materials[c.instances[1].material];
  EXPECT_EQ(red.name, "red");
  EXPECT_EQ(red.base_color, glm::vec3(0.8f, 0.1f, 0.1f));
  EXPECT_EQ(red.specular, glm::vec3(0.5f));
  EXPECT_EQ(red.shininess, 64.0f);
  EXPECT_FLOAT_EQ(red.base_alpha, 0.75f);  // Tr 0.25
  EXPECT_EQ(red.alpha_mode, AlphaMode::blend);
  EXPECT_EQ(red.texture, -1);
  const Material& leaf_mat = c.materials[c.instances[2].material];
  EXPECT_EQ(leaf_mat.alpha_mode, AlphaMode::mask);
  ASSERT_GE(leaf_mat.texture, 0);
  const Image& tex = c.textures[size_t(leaf_mat.texture)].levels[0];
  EXPECT_EQ(channel(tex.at(0, 0), 1), 200);
  EXPECT_EQ(channel(tex.at(0, 0), 3), 0);    // left half of the mask: black
  EXPECT_EQ(channel(tex.at(3, 3), 3), 255);  // right half: white
  // load_scene renders an OBJ directly with its materials.
  const Scene scene = load_scene(path);
  EXPECT_EQ(scene.instances.size(), 3u);
  EXPECT_EQ(scene.lights.size(), 1u);
  // load_obj still merges everything for scene meshes.
  EXPECT_EQ(load_obj(path).triangle_count(), 5u);
}

TEST(ObjMaterials, MissingTextureNamesMaterialAndKey) {
  ScratchDir dir;
  const auto path = dir.write("two.obj", kObj);
  dir.write("two.mtl", "newmtl leaf\nmap_Kd nowhere.png\nnewmtl red\nKd 1 0 0\n");
  expect_error([&] { load_obj_model(path); }, {"two.obj", "leaf", "map_Kd", "nowhere.png"});
}

TEST(ObjMaterials, MissingMtlWarnsAndUsesDefaults) {
  ScratchDir dir;
  const auto path = dir.write("two.obj", std::string(kObj).replace(std::string(kObj).find("f 7"), 20, ""));
  const ModelContent c = load_obj_model(path);
  EXPECT_FALSE(c.report.warnings.empty());
  for (const Instance& inst : c.instances) EXPECT_EQ(c.materials[inst.material].alpha_mode, AlphaMode::opaque);
}

}  // namespace
}  // namespace tessera
