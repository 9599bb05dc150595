// glTF loading: files written by the tests (gltf_test_writer.h) for each feature, the frames
// they render, and hostile files that must fail with the file and the JSON path.
#include <gtest/gtest.h>

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "scene/gltf_test_writer.h"
#include "scene/scene_test_support.h"
#include "tessera/config.h"
#include "tessera/gltf.h"
#include "tessera/renderer.h"
#include "tessera/sampler.h"
#include "tessera/scene.h"

namespace tessera {
namespace {

using gltf_testing::add_quad;
using gltf_testing::GltfWriter;
using gltf_testing::kFloat;
using gltf_testing::kUnsignedByte;
using gltf_testing::kUnsignedInt;
using gltf_testing::kUnsignedShort;
using scene_testing::expect_error;
using scene_testing::ScratchDir;

// PNG bytes of an image (written through the project's PNG writer).
std::string png_bytes(const ScratchDir& dir, const Image& image, const std::string& name = "tmp.png") {
  const auto path = dir.path() / name;
  write_png(path, image);
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ModelContent load_text(const std::string& text, const std::string& name = "mem.gltf") {
  return load_gltf_from_memory(text, name, std::filesystem::temp_directory_path());
}

void expect_near_mat(const glm::mat4& a, const glm::mat4& b) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(a[c][r], b[c][r], 1e-5f) << "element " << c << "," << r;
}

TEST(Gltf, EmbeddedQuadLoads) {
  GltfWriter w;
  const int mesh = add_quad(w);
  w.scene({w.node({{"mesh", mesh}, {"translation", {1, 2, 3}}})});
  const ModelContent c = load_text(w.gltf_embedded());
  ASSERT_EQ(c.meshes.size(), 1u);
  EXPECT_EQ(c.meshes[0].vertices.size(), 4u);
  EXPECT_EQ(c.meshes[0].triangle_count(), 2u);
  scene_testing::expect_well_formed(c.meshes[0]);
  ASSERT_EQ(c.instances.size(), 1u);
  expect_near_mat(c.instances[0].transform, glm::translate(glm::mat4(1.0f), glm::vec3(1, 2, 3)));
  // No material: the glTF default (white).
  EXPECT_EQ(c.materials[c.instances[0].material].base_color, glm::vec3(1.0f));
  EXPECT_EQ(c.meshes[0].vertices[3].uv, glm::vec2(0, 0));
}

TEST(Gltf, HierarchyComposesTrsAndMatrices) {
  GltfWriter w;
  const int mesh = add_quad(w);
  const int grandchild = w.node({{"mesh", mesh}, {"matrix", {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 5, 0, 0, 1}}});
  // 90 degrees about +Y: quaternion (0, sin 45, 0, cos 45).
  const float s = std::sqrt(0.5f);
  const int child =
      w.node({{"rotation", {0, s, 0, s}}, {"scale", {1, 3, 1}}, {"children", {grandchild}}, {"mesh", mesh}});
  const int root = w.node({{"translation", {0, 10, 0}}, {"children", {child}}});
  w.scene({root});
  const ModelContent c = load_text(w.gltf_embedded());
  ASSERT_EQ(c.instances.size(), 2u);
  const glm::mat4 t = glm::translate(glm::mat4(1.0f), glm::vec3(0, 10, 0));
  const glm::mat4 r = glm::rotate(glm::mat4(1.0f), glm::radians(90.0f), glm::vec3(0, 1, 0));
  const glm::mat4 sc = glm::scale(glm::mat4(1.0f), glm::vec3(1, 3, 1));
  glm::mat4 m(2.0f);
  m[3] = glm::vec4(5, 0, 0, 1);
  expect_near_mat(c.instances[0].transform, t * r * sc);
  expect_near_mat(c.instances[1].transform, t * r * sc * m);
  // A placement multiplies from the left.
  const glm::mat4 placement = glm::translate(glm::mat4(1.0f), glm::vec3(-1, 0, 0));
  const ModelContent placed = load_gltf_from_memory(w.gltf_embedded(), "p.gltf", ".", placement);
  expect_near_mat(placed.instances[1].transform, placement * t * r * sc * m);
}

TEST(Gltf, EveryComponentTypeAndStride) {
  // Interleaved float position + normalized ubyte uv (stride 16), normalized byte normals,
  // indices in each unsigned type: the same quad every time.
  for (int index_type : {kUnsignedByte, kUnsignedShort, kUnsignedInt}) {
    GltfWriter w;
    struct Packed {
      float p[3];
      uint8_t uv[2];
      uint8_t pad[2];
    };
    const Packed verts[4] = {
        {{-1, -1, 0}, {0, 255}, {}}, {{1, -1, 0}, {255, 255}, {}}, {{1, 1, 0}, {255, 0}, {}}, {{-1, 1, 0}, {0, 0}, {}}};
    const int v = w.view(verts, sizeof(verts), sizeof(Packed));
    const int pos = w.accessor(v, kFloat, 4, "VEC3");
    w.doc["accessors"][size_t(pos)]["min"] = {-1, -1, 0};
    w.doc["accessors"][size_t(pos)]["max"] = {1, 1, 0};
    const int uv = w.accessor(v, kUnsignedByte, 4, "VEC2", true, 12);
    const std::vector<int8_t> normals = {0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 127, 0};
    const int nv = w.view(normals.data(), normals.size(), 4);
    const int n = w.accessor(nv, gltf_testing::kByte, 4, "VEC3", true);
    const int mesh =
        w.mesh({{"POSITION", pos}, {"NORMAL", n}, {"TEXCOORD_0", uv}}, w.indices({0, 1, 2, 0, 2, 3}, index_type));
    w.scene({w.node({{"mesh", mesh}})});
    const ModelContent c = load_text(w.gltf_embedded());
    ASSERT_EQ(c.meshes.size(), 1u);
    const Mesh& m = c.meshes[0];
    ASSERT_EQ(m.vertices.size(), 4u);
    EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
    EXPECT_EQ(m.vertices[1].uv, glm::vec2(1, 1));
    EXPECT_EQ(m.vertices[3].uv, glm::vec2(0, 0));
    EXPECT_EQ(m.vertices[2].normal, glm::vec3(0, 0, 1));
    EXPECT_EQ(m.vertices[2].position, glm::vec3(1, 1, 0));
  }
  // Normalized unsigned short uvs and signed short positions (KHR_mesh_quantization style).
  GltfWriter w;
  const int pos = w.array(std::vector<int16_t>{0, 0, 0, 100, 0, 0, 0, 100, 0}, gltf_testing::kShort, "VEC3");
  const int uv = w.array(std::vector<uint16_t>{0, 0, 65535, 0, 0, 32768}, kUnsignedShort, "VEC2", true);
  const int mesh = w.mesh({{"POSITION", pos}, {"TEXCOORD_0", uv}});
  w.scene({w.node({{"mesh", mesh}})});
  const ModelContent c = load_text(w.gltf_embedded());
  ASSERT_EQ(c.meshes.size(), 1u);
  // Without indices and without normals: flat normals on unshared corners.
  ASSERT_EQ(c.meshes[0].vertices.size(), 3u);
  EXPECT_EQ(c.meshes[0].vertices[1].position, glm::vec3(100, 0, 0));
  EXPECT_EQ(c.meshes[0].vertices[1].uv, glm::vec2(1, 0));
  EXPECT_NEAR(c.meshes[0].vertices[2].uv.y, 32768.0f / 65535.0f, 1e-7f);
}

TEST(Gltf, MissingNormalsAreFlat) {
  GltfWriter w;
  // A tent of two triangles sharing an edge: flat normals differ per triangle.
  const int pos = w.positions({{0, 0, 0}, {1, 0, 0}, {0.5f, 1, 0}, {0.5f, 1, -1}});
  const int mesh = w.mesh({{"POSITION", pos}}, w.indices({0, 1, 2, 1, 3, 2}));
  w.scene({w.node({{"mesh", mesh}})});
  const ModelContent c = load_text(w.gltf_embedded());
  const Mesh& m = c.meshes[0];
  ASSERT_EQ(m.vertices.size(), 6u);
  scene_testing::expect_well_formed(m);
  EXPECT_EQ(m.vertices[0].normal, glm::vec3(0, 0, 1));
  EXPECT_NE(m.vertices[3].normal, m.vertices[0].normal);
}

TEST(Gltf, StripsFansConvertedPointsAndLinesSkipped) {
  GltfWriter w;
  const int pos = w.positions({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}});
  const int normal = w.vec3s({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}});
  nlohmann::json attributes = {{"POSITION", pos}, {"NORMAL", normal}};
  nlohmann::json mesh = {{"primitives",
                          {{{"attributes", attributes}, {"mode", 5}},
                           {{"attributes", attributes}, {"mode", 6}},
                           {{"attributes", attributes}, {"mode", 0}},
                           {{"attributes", attributes}, {"mode", 1}}}}};
  w.doc["meshes"].push_back(mesh);
  w.scene({w.node({{"mesh", 0}})});
  const ModelContent c = load_text(w.gltf_embedded());
  ASSERT_EQ(c.meshes.size(), 2u);
  // Strip 0 1 2 3 4: (0 1 2) (2 1 3) (2 3 4); fan: (1 2 0) (2 3 0) (3 4 0).
  EXPECT_EQ(c.meshes[0].indices, (std::vector<uint32_t>{0, 1, 2, 2, 1, 3, 2, 3, 4}));
  EXPECT_EQ(c.meshes[1].indices, (std::vector<uint32_t>{1, 2, 0, 2, 3, 0, 3, 4, 0}));
  EXPECT_EQ(c.report.primitives_skipped, 2u);
  ASSERT_FALSE(c.report.warnings.empty());
  EXPECT_NE(c.report.warnings[0].find("meshes[0].primitives[2]"), std::string::npos);
}

TEST(Gltf, MaterialsAlphaModesAndSamplers) {
  ScratchDir dir;
  GltfWriter w;
  Image img(4, 4, pack_rgba8(255, 0, 0, 128));
  const std::string png = png_bytes(dir, img);
  w.doc["samplers"].push_back({{"magFilter", 9728}, {"minFilter", 9728}, {"wrapS", 33071}, {"wrapT", 33648}});
  const int tex = w.texture_from_bytes(png, 0);
  const int opaque = w.material(
      {{"pbrMetallicRoughness", {{"baseColorFactor", {0.5, 0.25, 1, 0.5}}}}, {"emissiveFactor", {0.1, 0.2, 0.3}}});
  const int mask = w.material({{"alphaMode", "MASK"},
                               {"alphaCutoff", 0.25},
                               {"doubleSided", true},
                               {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", tex}}}}}});
  const int blend = w.material({{"alphaMode", "BLEND"}, {"name", "glass"}});
  const int q0 = add_quad(w, opaque), q1 = add_quad(w, mask), q2 = add_quad(w, blend);
  w.scene({w.node({{"mesh", q0}}), w.node({{"mesh", q1}}), w.node({{"mesh", q2}})});
  const ModelContent c = load_gltf_from_memory(w.glb(), "m.glb", dir.path());
  ASSERT_EQ(c.materials.size(), 3u);
  EXPECT_EQ(c.materials[0].alpha_mode, AlphaMode::opaque);
  EXPECT_EQ(c.materials[0].base_alpha, 0.5f);
  EXPECT_EQ(c.materials[0].base_color, glm::vec3(0.5f, 0.25f, 1.0f));
  EXPECT_EQ(c.materials[0].emissive, glm::vec3(0.1f, 0.2f, 0.3f));
  EXPECT_EQ(c.materials[1].alpha_mode, AlphaMode::mask);
  EXPECT_EQ(c.materials[1].alpha_cutoff, 0.25f);
  EXPECT_TRUE(c.materials[1].double_sided);
  EXPECT_EQ(c.materials[2].alpha_mode, AlphaMode::blend);
  EXPECT_EQ(c.materials[2].name, "glass");
  ASSERT_EQ(c.textures.size(), 1u);
  EXPECT_EQ(c.materials[1].texture, 0);
  EXPECT_EQ(c.textures[0].sampler.mag, TextureFilter::nearest);
  EXPECT_EQ(c.textures[0].sampler.mip, MipFilter::none);
  EXPECT_EQ(c.textures[0].sampler.wrap_u, TextureWrap::clamp_to_edge);
  EXPECT_EQ(c.textures[0].sampler.wrap_v, TextureWrap::mirrored_repeat);
  EXPECT_EQ(channel(c.textures[0].levels[0].at(1, 1), 3), 128);
  EXPECT_EQ(c.report.images_decoded, 1u);
  EXPECT_GT(c.report.texture_bytes, 0u);
}

TEST(Gltf, ExternalResourcesAndGlbAgree) {
  ScratchDir dir;
  GltfWriter w;
  const std::string png = png_bytes(dir, Image(2, 2, pack_rgba8(10, 200, 30)), "tex.png");
  const int tex = w.texture_from_uri("tex.png");
  const int mat = w.material({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", tex}}}}}});
  w.scene({w.node({{"mesh", add_quad(w, mat)}})});
  std::ofstream(dir.path() / "model.bin", std::ios::binary) << w.bin;
  const auto gltf = dir.write("model.gltf", w.gltf_external("model.bin"));
  const ModelContent external = load_gltf(gltf);
  ASSERT_EQ(external.textures.size(), 1u);
  EXPECT_EQ(external.textures[0].levels[0].at(0, 0), pack_rgba8(10, 200, 30));
  const auto glb = dir.write("model.glb", w.glb());
  const ModelContent binary = load_gltf(glb);
  EXPECT_EQ(binary.meshes[0].vertices.size(), external.meshes[0].vertices.size());
  EXPECT_EQ(binary.textures[0].levels[0].pixels, external.textures[0].levels[0].pixels);
  // load_scene takes glTF directly: a framing camera and a default light.
  const Scene scene = load_scene(glb);
  EXPECT_EQ(scene.instances.size(), 1u);
  EXPECT_EQ(scene.lights.size(), 1u);
  EXPECT_GT(glm::length(scene.camera.position - scene.camera.target), 0.5f);
}

TEST(Gltf, CamerasAndLightsPunctual) {
  GltfWriter w;
  w.doc["cameras"].push_back(
      {{"type", "perspective"}, {"name", "front"}, {"perspective", {{"yfov", 0.5}, {"znear", 0.05}, {"zfar", 50}}}});
  w.doc["extensionsUsed"] = {"KHR_lights_punctual"};
  w.doc["extensions"]["KHR_lights_punctual"]["lights"] = {
      {{"type", "point"}, {"color", {1, 0.5, 0.25}}, {"intensity", 20}}, {{"type", "directional"}, {"intensity", 2}}};
  const int cam = w.node({{"camera", 0}, {"translation", {0, 1, 5}}});
  const int lamp = w.node({{"translation", {3, 4, 5}}, {"extensions", {{"KHR_lights_punctual", {{"light", 0}}}}}});
  // Directional light pointing down: rotate -90 degrees about X (its -Z becomes -Y).
  const float s = std::sqrt(0.5f);
  const int sun = w.node({{"rotation", {-s, 0, 0, s}}, {"extensions", {{"KHR_lights_punctual", {{"light", 1}}}}}});
  w.scene({w.node({{"mesh", add_quad(w)}}), cam, lamp, sun});
  ScratchDir dir;
  const auto path = dir.write("cams.gltf", w.gltf_embedded());
  const Scene scene = load_scene(path);
  ASSERT_EQ(scene.cameras.size(), 1u);
  EXPECT_EQ(scene.cameras[0].name, "front");
  EXPECT_EQ(scene.camera.position, glm::vec3(0, 1, 5));
  EXPECT_NEAR(scene.camera.target.z, 4.0f, 1e-6f);
  EXPECT_NEAR(scene.camera.fov_y_degrees, 0.5f * 180.0f / 3.14159265f, 1e-4f);
  EXPECT_EQ(scene.camera.far_plane, 50.0f);
  ASSERT_EQ(scene.lights.size(), 2u);
  EXPECT_EQ(scene.lights[0].type, LightType::point);
  EXPECT_EQ(scene.lights[0].position, glm::vec3(3, 4, 5));
  EXPECT_EQ(scene.lights[0].intensity, 20.0f);
  EXPECT_EQ(scene.lights[0].color, glm::vec3(1, 0.5f, 0.25f));
  EXPECT_EQ(scene.lights[1].type, LightType::directional);
  EXPECT_NEAR(scene.lights[1].direction.y, -1.0f, 1e-5f);
}

TEST(Gltf, SceneJsonPlacesModels) {
  ScratchDir dir;
  GltfWriter w;
  w.scene({w.node({{"mesh", add_quad(w)}})});
  dir.write("m.glb", w.glb());
  const auto scene_path = dir.write("s.json", R"({
    "meshes": [{"name": "ball", "generator": "sphere"}],
    "materials": [{"name": "red", "base_color": [1, 0, 0], "alpha": 0.5, "alpha_mode": "blend", "double_sided": true}],
    "instances": [{"mesh": "ball", "material": "red"}],
    "models": [{"gltf": "m.glb", "transform": {"translate": [0, 0, -3], "scale": 2}}],
    "camera": {"position": [0, 0, 5], "target": [0, 0, 0]}})");
  const Scene scene = load_scene(scene_path);
  ASSERT_EQ(scene.instances.size(), 2u);
  EXPECT_EQ(scene.instances[1].mesh, 1u);
  EXPECT_EQ(scene.instances[1].material, 1u);
  EXPECT_EQ(scene.instances[1].transform[3], glm::vec4(0, 0, -3, 1));
  EXPECT_EQ(scene.instances[1].transform[0][0], 2.0f);
  EXPECT_EQ(scene.materials[0].alpha_mode, AlphaMode::blend);
  EXPECT_EQ(scene.materials[0].base_alpha, 0.5f);
  EXPECT_TRUE(scene.materials[0].double_sided);
  const auto bad = dir.write("bad.json", R"({"models": [{"gltf": "missing.glb"}],
    "camera": {"position": [0, 0, 5], "target": [0, 0, 0]}})");
  expect_error([&] { load_scene(bad); }, {"bad.json", "models[0].gltf", "missing.glb"});
}

// ---- Hostile files: each fails with the file name and the JSON path, never a crash. ----

GltfWriter valid_model() {
  GltfWriter w;
  w.scene({w.node({{"mesh", add_quad(w)}})});
  return w;
}

TEST(GltfHostile, TruncatedAndMalformed) {
  const std::string glb = valid_model().glb();
  for (size_t cut : {size_t(3), size_t(11), size_t(20), glb.size() / 2, glb.size() - 1}) {
    expect_error([&] { load_gltf_from_memory(glb.substr(0, cut), "cut.glb", "."); }, {"cut.glb"});
  }
  expect_error([&] { load_text("{\"asset\": ", "half.gltf"); }, {"half.gltf", "invalid glTF"});
  expect_error([&] { load_text("[1, 2]", "array.gltf"); }, {"array.gltf"});
}

TEST(GltfHostile, WrongByteLengths) {
  GltfWriter w = valid_model();
  nlohmann::json d = nlohmann::json::parse(w.gltf_embedded());
  d["bufferViews"][0]["byteLength"] = 4096;
  expect_error([&] { load_text(d.dump(), "len.gltf"); }, {"len.gltf", "bufferViews[0]"});
  nlohmann::json e = nlohmann::json::parse(w.gltf_embedded());
  e["buffers"][0]["byteLength"] = 1 << 20;
  expect_error([&] { load_text(e.dump(), "buf.gltf"); }, {"buf.gltf"});
}

TEST(GltfHostile, OutOfRangeAccessorsAndIndices) {
  {
    GltfWriter w = valid_model();
    w.doc["accessors"][0]["count"] = 1000;
    expect_error([&] { load_text(w.gltf_embedded(), "count.gltf"); }, {"count.gltf", "accessors[0].count"});
  }
  {
    GltfWriter w = valid_model();
    w.doc["accessors"][0]["count"] = uint64_t(1) << 40;
    expect_error([&] { load_text(w.gltf_embedded(), "huge.gltf"); }, {"huge.gltf", "accessors[0].count"});
  }
  {
    GltfWriter w = valid_model();
    w.doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 99;
    expect_error([&] { load_text(w.gltf_embedded(), "acc.gltf"); }, {"acc.gltf", "POSITION", "accessors"});
  }
  {
    GltfWriter w;
    const int pos = w.positions({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}});
    w.scene({w.node({{"mesh", w.mesh({{"POSITION", pos}}, w.indices({0, 1, 7}))}})});
    expect_error([&] { load_text(w.gltf_embedded(), "idx.gltf"); },
                 {"idx.gltf", "meshes[0].primitives[0].indices", "7"});
  }
  {
    GltfWriter w = valid_model();
    w.doc["nodes"][0]["mesh"] = 5;
    expect_error([&] { load_text(w.gltf_embedded(), "mesh.gltf"); }, {"mesh.gltf", "nodes[0].mesh"});
  }
}

TEST(GltfHostile, MissingImages) {
  ScratchDir dir;
  GltfWriter w;
  const int tex = w.texture_from_uri("nowhere.png");
  w.scene({w.node(
      {{"mesh", add_quad(w, w.material({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", tex}}}}}}))}})});
  const auto path = dir.write("img.gltf", w.gltf_embedded());
  expect_error([&] { load_gltf(path); }, {"img.gltf", "nowhere.png"});
  GltfWriter bad;
  const int t2 = bad.texture_from_bytes("not a png at all");
  bad.scene({bad.node(
      {{"mesh", add_quad(bad, bad.material({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", t2}}}}}}))}})});
  expect_error([&] { load_text(bad.gltf_embedded(), "junk.gltf"); }, {"junk.gltf", "images[0]"});
}

TEST(GltfHostile, CyclicAndSharedNodes) {
  GltfWriter w = valid_model();
  w.node({{"children", {2}}});
  w.node({{"children", {1}}});
  w.doc["scenes"][0]["nodes"] = {0, 1};
  expect_error([&] { load_text(w.gltf_embedded(), "cycle.gltf"); }, {"cycle.gltf", "nodes[1]", "cycle"});
  GltfWriter self = valid_model();
  self.doc["nodes"][0]["children"] = {0};
  expect_error([&] { load_text(self.gltf_embedded(), "self.gltf"); }, {"self.gltf", "nodes[0]"});
  GltfWriter nosc = valid_model();
  nosc.doc.erase("scenes");
  nosc.doc.erase("scene");
  nosc.doc["nodes"][0]["children"] = {0};
  expect_error([&] { load_text(nosc.gltf_embedded(), "noscene.gltf"); }, {"noscene.gltf", "nodes[0]"});
}

TEST(GltfHostile, ExtensionsAndSparse) {
  GltfWriter w = valid_model();
  w.doc["extensionsUsed"] = {"KHR_draco_mesh_compression", "EXT_fancy"};
  w.doc["extensionsRequired"] = {"KHR_draco_mesh_compression"};
  expect_error([&] { load_text(w.gltf_embedded(), "ext.gltf"); },
               {"ext.gltf", "extensionsRequired[0]", "KHR_draco_mesh_compression"});
  GltfWriter optional = valid_model();
  optional.doc["extensionsUsed"] = {"EXT_fancy", "KHR_texture_transform"};
  const ModelContent c = load_text(optional.gltf_embedded(), "opt.gltf");
  ASSERT_EQ(c.report.warnings.size(), 2u);
  EXPECT_NE(c.report.warnings[0].find("EXT_fancy"), std::string::npos);
  GltfWriter sparse = valid_model();
  const std::vector<uint32_t> idx = {0};
  const std::vector<float> val = {5, 5, 5};
  const int iv = sparse.view(idx.data(), 4), vv = sparse.view(val.data(), 12);
  sparse.doc["accessors"][0]["sparse"] = {{"count", 1},
                                          {"indices", {{"bufferView", iv}, {"componentType", kUnsignedInt}}},
                                          {"values", {{"bufferView", vv}}}};
  expect_error([&] { load_text(sparse.gltf_embedded(), "sparse.gltf"); }, {"sparse.gltf", "accessors[0].sparse"});
}

// ---- The sampler states glTF samplers map to (tessera::sample_texture). ----

TEST(GltfSampler, WrapAndFilterModes) {
  Image row(4, 1);
  for (int x = 0; x < 4; ++x) row.at(x, 0) = pack_rgba8(uint8_t(x * 85), 0, 0);
  Texture t = make_texture("row", row);
  t.sampler.mag = t.sampler.min = TextureFilter::nearest;
  t.sampler.mip = MipFilter::none;
  SamplerCounters counters;
  auto texel = [&](float u) {
    const float r = sample_texture(t, glm::vec2(u, 0.5f), 0.0f, counters).r;
    for (int x = 0; x < 4; ++x) {
      if (r == decode_srgb8(uint8_t(x * 85))) return x;
    }
    return -1;
  };
  EXPECT_EQ(texel(0.1f), 0);
  EXPECT_EQ(texel(1.1f), 0);  // repeat
  t.sampler.wrap_u = TextureWrap::clamp_to_edge;
  EXPECT_EQ(texel(1.1f), 3);
  EXPECT_EQ(texel(-3.0f), 0);
  t.sampler.wrap_u = TextureWrap::mirrored_repeat;
  EXPECT_EQ(texel(1.1f), 3);
  EXPECT_EQ(texel(1.3f), 2);
  EXPECT_EQ(texel(-0.1f), 0);
  EXPECT_EQ(counters.texel_fetches, 7u);  // nearest: one texel per lookup, seven lookups
  // Linear without mip maps reads level 0 whatever the lod.
  t.sampler.min = TextureFilter::linear;
  t.sampler.wrap_u = TextureWrap::repeat;
  const glm::vec4 far = sample_texture(t, glm::vec2(0.5f, 0.5f), 5.0f, counters);
  EXPECT_NEAR(far.r, 0.5f * (decode_srgb8(85) + decode_srgb8(170)), 1e-6f);
  // The default state is sample_trilinear, bit for bit.
  Texture d = make_texture("row", row);
  for (float u : {0.0f, 0.13f, 0.77f, 1.5f, -2.25f}) {
    for (float lod : {0.0f, 0.4f, 1.0f, 3.0f}) {
      EXPECT_EQ(sample_texture(d, glm::vec2(u, 0.3f), lod, counters),
                sample_trilinear(d, glm::vec2(u, 0.3f), lod, counters));
    }
  }
}

// ---- Rendering: alpha modes and double-sided materials through the pipeline. ----

Config small_frame(int msaa, int threads) {
  Config cfg;
  cfg.frame.width = 64;
  cfg.frame.height = 64;
  cfg.frame.threads = threads;
  cfg.raster.msaa = msaa;
  cfg.raster.tile_size = 32;
  return cfg;
}

// A scene of one glTF quad facing the camera filling the middle of the frame.
Scene quad_scene(const nlohmann::json& material, const Image* texture, const ScratchDir& dir,
                 const glm::vec3& background = glm::vec3(0.0f)) {
  GltfWriter w;
  nlohmann::json m = material;
  if (texture) {
    const int tex = w.texture_from_bytes(png_bytes(dir, *texture));
    m["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", tex}};
  }
  w.scene({w.node({{"mesh", add_quad(w, w.material(m))}})});
  ModelContent c = load_gltf_from_memory(w.glb(), "q.glb", dir.path());
  Scene scene;
  append_model(scene, std::move(c), "q.glb");
  scene.camera.position = glm::vec3(0, 0, 2);
  scene.camera.target = glm::vec3(0, 0, 0);
  scene.camera.fov_y_degrees = 53.130102f;  // the unit quad covers the middle half of the frame
  scene.ambient = glm::vec3(1.0f);          // unlit: the colour is the albedo
  scene.background = background;
  return scene;
}

TEST(GltfRender, MaskDiscardsExactlyBelowCutoff) {
  ScratchDir dir;
  // Left half of the texture alpha 0, right half alpha 255; nearest filtering keeps it exact.
  Image tex(2, 1);
  tex.at(0, 0) = pack_rgba8(255, 255, 255, 0);
  tex.at(1, 0) = pack_rgba8(255, 255, 255, 255);
  Scene scene = quad_scene({{"alphaMode", "MASK"}, {"alphaCutoff", 0.5}}, &tex, dir);
  scene.textures[0].sampler.mag = scene.textures[0].sampler.min = TextureFilter::nearest;
  scene.textures[0].sampler.mip = MipFilter::none;
  for (int msaa : {1, 4}) {
    Renderer r(small_frame(msaa, 1));
    const Frame f = r.render(scene, scene.camera);
    // The quad spans pixels [16, 48) in both axes; its left half (x < 32) is cut out.
    int wrong = 0;
    for (int y = 0; y < 64; ++y) {
      for (int x = 0; x < 64; ++x) {
        const bool inside = x >= 16 && x < 48 && y >= 16 && y < 48;
        const bool drawn = inside && x >= 32;
        const Rgba8 want = drawn ? pack_rgba8(255, 255, 255) : pack_rgba8(0, 0, 0);
        if (f.color.at(x, y) != want) ++wrong;
        // A discarded pixel leaves the depth untouched too.
        if (!drawn && f.depth[size_t(y) * 64 + size_t(x)] != 1.0f) ++wrong;
      }
    }
    EXPECT_EQ(wrong, 0) << "msaa " << msaa;
  }
}

TEST(GltfRender, BlendIsSourceOverInLinearSpace) {
  ScratchDir dir;
  const glm::vec3 background(0.2f, 0.4f, 0.6f);
  Scene scene = quad_scene({{"alphaMode", "BLEND"}, {"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 0.25}}}}},
                           nullptr, dir, background);
  for (int msaa : {1, 4}) {
    Renderer r(small_frame(msaa, 2));
    const Frame f = r.render(scene, scene.camera);
    // The stored background is what blending reads: its sRGB bytes decoded.
    glm::vec3 dst;
    for (int k = 0; k < 3; ++k) dst[k] = decode_srgb8(encode_srgb8(background[k]));
    const glm::vec3 want = glm::vec3(1, 0, 0) * 0.25f + dst * 0.75f;
    const Rgba8 c = f.color.at(32, 32);
    for (int k = 0; k < 3; ++k) {
      // The 4x resolve averages four equal samples in linear space: at most one code apart.
      EXPECT_NEAR(channel(c, k), encode_srgb8(want[k]), msaa == 1 ? 0 : 1) << "msaa " << msaa << " channel " << k;
    }
    // The blended quad does not write depth.
    EXPECT_EQ(f.depth[32 * 64 + 32], 1.0f);
  }
}

TEST(GltfRender, DoubleSidedShowsBackFacesOneSidedCulls) {
  ScratchDir dir;
  for (bool two_sided : {false, true}) {
    Scene scene = quad_scene({{"doubleSided", two_sided}}, nullptr, dir);
    scene.camera.position = glm::vec3(0, 0, -2);  // behind the quad
    Renderer r(small_frame(1, 1));
    const Frame f = r.render(scene, scene.camera);
    EXPECT_EQ(f.color.at(32, 32) != pack_rgba8(0, 0, 0), two_sided);
  }
}

TEST(GltfRender, ThreadCountDoesNotChangeAlphaFrames) {
  ScratchDir dir;
  Image tex(8, 8);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) tex.at(x, y) = pack_rgba8(uint8_t(x * 30), 90, uint8_t(y * 30), uint8_t((x + y) * 16));
  Scene scene = quad_scene({{"alphaMode", "BLEND"}, {"doubleSided", true}}, &tex, dir, glm::vec3(0.1f, 0.3f, 0.2f));
  ModelContent mask = load_gltf_from_memory(
      [&] {
        GltfWriter w;
        w.scene(
            {w.node({{"mesh", add_quad(w, w.material({{"alphaMode", "MASK"}}))}, {"translation", {0.2, 0.1, -0.5}}})});
        return w.glb();
      }(),
      "mask.glb", dir.path());
  append_model(scene, std::move(mask), "mask.glb");
  for (int msaa : {1, 4}) {
    Renderer one(small_frame(msaa, 1)), many(small_frame(msaa, 4));
    EXPECT_EQ(one.render(scene, scene.camera).color.pixels, many.render(scene, scene.camera).color.pixels);
  }
}

}  // namespace
}  // namespace tessera
