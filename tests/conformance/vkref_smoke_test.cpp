// The Vulkan reference renderer on its own: hand-made scenes whose pixels follow from the
// Lambert formula (shaders/lambert.h) computed here in double precision, culling and image
// orientation, texture levels used as given, error paths, and validation-layer cleanliness.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "conformance_scenes.h"
#include "tessera/error.h"
#include "tessera/image.h"
#include "tessera/scene.h"
#include "vkref/reference_renderer.h"

namespace tessera {
namespace {

using conformance::add_material;
using conformance::add_triangle;
using conformance::add_triangle_2d;
using conformance::pixel_camera;

constexpr int kW = 320;
constexpr int kH = 240;

vkref::ReferenceOptions options(int w = kW, int h = kH, bool cull = true) {
  vkref::ReferenceOptions o;
  o.width = w;
  o.height = h;
  o.cull_backface = cull;
  return o;
}

// One Vulkan device for the whole file: creating it costs more than all the renders here.
vkref::ReferenceRenderer& reference() {
  static std::unique_ptr<vkref::ReferenceRenderer> renderer = vkref::ReferenceRenderer::create();
  return *renderer;
}

// Largest per-channel difference over R, G, B.
int max_channel_diff(Rgba8 a, Rgba8 b) {
  int d = 0;
  for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int(channel(a, c)) - int(channel(b, c))));
  return d;
}

std::string rgb_text(Rgba8 c) {
  return "(" + std::to_string(channel(c, 0)) + ", " + std::to_string(channel(c, 1)) + ", " +
         std::to_string(channel(c, 2)) + ")";
}

Rgba8 encode(glm::dvec3 linear) {
  return pack_rgba8(encode_srgb8(float(linear.r)), encode_srgb8(float(linear.g)), encode_srgb8(float(linear.b)));
}

// The Lambert formula of shaders/lambert.h in double precision, untextured.
glm::dvec3 lambert(const Scene& scene, glm::dvec3 base_color, glm::dvec3 world, glm::dvec3 normal) {
  const glm::dvec3 n = glm::normalize(normal);
  glm::dvec3 radiance = glm::dvec3(scene.ambient);
  for (const Light& light : scene.lights) {
    glm::dvec3 l;
    double attenuation = 1.0;
    if (light.type == LightType::directional) {
      l = -glm::normalize(glm::dvec3(light.direction));
    } else {
      const glm::dvec3 d = glm::dvec3(light.position) - world;
      const double dist2 = glm::dot(d, d);
      l = d / std::sqrt(std::max(dist2, 1e-30));
      attenuation = 1.0 / std::max(dist2, 1e-4);
    }
    radiance += glm::dvec3(light.color) * (double(light.intensity) * attenuation * std::max(glm::dot(n, l), 0.0));
  }
  return base_color * radiance;
}

TEST(VkrefSmoke, OpensADevice) {
  const std::string name = reference().device_name();
  EXPECT_FALSE(name.empty());
  std::printf("vkref device: %s\n", name.c_str());
}

TEST(VkrefSmoke, BackgroundAndLitColourFollowTheFormula) {
  Scene scene;
  scene.ambient = glm::vec3(0.05f, 0.06f, 0.07f);
  scene.background = glm::vec3(0.2f, 0.4f, 0.6f);
  Light sun;
  sun.type = LightType::directional;
  sun.direction = glm::vec3(0.3f, -0.2f, 1.0f);  // travels away from the camera, onto the face
  sun.color = glm::vec3(1.0f, 0.9f, 0.8f);
  sun.intensity = 0.5f;
  Light lamp;
  lamp.type = LightType::point;
  lamp.position = glm::vec3(170.0f, 110.0f, -30.0f);
  lamp.color = glm::vec3(0.6f, 0.7f, 1.0f);
  lamp.intensity = 400.0f;
  scene.lights = {sun, lamp};
  const glm::vec3 base(0.7f, 0.5f, 0.3f);
  const uint32_t material = add_material(scene, base);
  // Counter-clockwise on screen (y down), normal (0, 0, -1) towards the camera.
  add_triangle_2d(scene, {100, 60}, {100, 200}, {260, 60}, material);

  reference().upload(scene);
  const Image image = reference().render(pixel_camera(kW, kH), options());

  const Rgba8 background = encode(glm::dvec3(scene.background));
  for (auto [x, y] :
       {std::pair{0, 0}, std::pair{kW - 1, 0}, std::pair{0, kH - 1}, std::pair{kW - 1, kH - 1}, std::pair{200, 180}}) {
    EXPECT_LE(max_channel_diff(image.at(x, y), background), 1)
        << "background at (" << x << ", " << y << "): " << rgb_text(image.at(x, y)) << " expected "
        << rgb_text(background);
  }
  // Pixel centres map to world (x + 0.5, y + 0.5, 0); the face normal is (0, 0, -1).
  for (auto [x, y] : {std::pair{160, 120}, std::pair{110, 70}, std::pair{150, 90}}) {
    const glm::dvec3 world(x + 0.5, y + 0.5, 0.0);
    const Rgba8 expected = encode(lambert(scene, glm::dvec3(base), world, {0.0, 0.0, -1.0}));
    EXPECT_LE(max_channel_diff(image.at(x, y), expected), 2)
        << "lit pixel (" << x << ", " << y << "): " << rgb_text(image.at(x, y)) << " expected " << rgb_text(expected);
  }
}

// A triangle wound counter-clockwise in world space, seen from its front, is counter-clockwise
// on screen and must survive back-face culling; the reversed winding must not. The image is
// upright: world +y (camera up) is the top of the frame, world +x its right.
TEST(VkrefSmoke, CullingKeepsFrontFacesAndImageIsUpright) {
  Camera camera;
  camera.position = glm::vec3(0.0f, 0.0f, 5.0f);
  camera.target = glm::vec3(0.0f);
  camera.up = glm::vec3(0.0f, 1.0f, 0.0f);
  camera.fov_y_degrees = 60.0f;

  Scene front = conformance::flat_scene();
  const uint32_t white = add_material(front, glm::vec3(1.0f));
  // Counter-clockwise seen from +z (the camera side).
  add_triangle(front, {-1, -1, 0}, {1, -1, 0}, {0, 1, 0}, white);
  Scene back = front;
  std::swap(back.meshes[0].vertices[1], back.meshes[0].vertices[2]);

  reference().upload(front);
  const Image front_culled = reference().render(camera, options(kW, kH, true));
  reference().upload(back);
  const Image back_culled = reference().render(camera, options(kW, kH, true));
  const Image back_unculled = reference().render(camera, options(kW, kH, false));

  const Rgba8 lit = pack_rgba8(255, 255, 255);
  EXPECT_EQ(front_culled.at(kW / 2, kH / 2), lit) << "front face was culled";
  EXPECT_EQ(back_culled.at(kW / 2, kH / 2), pack_rgba8(0, 0, 0)) << "back face was drawn";
  EXPECT_EQ(back_unculled.at(kW / 2, kH / 2), lit) << "culling off must draw both windings";

  // Apex (0, 1, 0) is up: the column through the centre is covered just below the apex's row
  // and the base's corners are at the bottom.
  const glm::vec2 apex = conformance::project_to_pixels(camera, kW, kH, {0, 1, 0});
  const glm::vec2 base_left = conformance::project_to_pixels(camera, kW, kH, {-1, -1, 0});
  EXPECT_LT(apex.y, float(kH) / 2) << "world up must be the top of the image";
  EXPECT_LT(base_left.x, float(kW) / 2) << "world -x must be the left of the image";
  EXPECT_EQ(front_culled.at(kW / 2, int(apex.y) + 3), lit);
  EXPECT_EQ(front_culled.at(int(base_left.x) + 3, int(base_left.y) - 2), lit);
  EXPECT_EQ(front_culled.at(int(base_left.x) + 3, int(apex.y) + 3), pack_rgba8(0, 0, 0));
}

// A 4x4 texture magnified 32x: at each texel centre bilinear filtering returns that texel, so
// the pixel is base_color * decode(texel) (ambient 1, no lights).
TEST(VkrefSmoke, MagnifiedTextureReturnsTexelsAtTheirCentres) {
  Image base(4, 4);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      base.at(x, y) = pack_rgba8(uint8_t(30 + 60 * x), uint8_t(220 - 50 * y), uint8_t((x + y) % 2 ? 200 : 40));
    }
  }
  Scene scene = conformance::flat_scene();
  scene.textures.push_back(make_texture("checker", base));
  const glm::vec3 tint(1.0f, 0.8f, 0.6f);
  const uint32_t material = add_material(scene, tint);
  scene.materials[material].texture = 0;
  // Quad from (100.5, 50.5) to (228.5, 178.5): 32 pixels per texel, so pixel centre
  // (116.5 + 32i, 66.5 + 32j) is the centre of texel (i, j). uv (0,0) at the top-left corner.
  Mesh quad;
  quad.name = "quad";
  const glm::vec3 n(0, 0, -1);
  const float x0 = 100.5f, y0 = 50.5f, s = 128.0f;
  quad.vertices = {{{x0, y0, 0}, n, {0, 0}},
                   {{x0, y0 + s, 0}, n, {0, 1}},
                   {{x0 + s, y0 + s, 0}, n, {1, 1}},
                   {{x0 + s, y0, 0}, n, {1, 0}}};
  quad.indices = {0, 1, 2, 0, 2, 3};
  compute_bounds(quad);
  scene.meshes.push_back(quad);
  scene.instances.push_back({0, material, glm::mat4(1.0f)});

  reference().upload(scene);
  const Image image = reference().render(pixel_camera(kW, kH), options());
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      const Rgba8 texel = base.at(i, j);
      const glm::dvec3 linear(double(decode_srgb8(channel(texel, 0))) * tint.r,
                              double(decode_srgb8(channel(texel, 1))) * tint.g,
                              double(decode_srgb8(channel(texel, 2))) * tint.b);
      const Rgba8 expected = encode(linear);
      const Rgba8 got = image.at(116 + 32 * i, 66 + 32 * j);
      EXPECT_LE(max_channel_diff(got, expected), 2)
          << "texel (" << i << ", " << j << "): " << rgb_text(got) << " expected " << rgb_text(expected);
    }
  }
}

// Mip levels are uploaded exactly as given (never regenerated): level 1 is a different colour
// from a box filter of level 0, and a quad drawn at exactly lod 1 shows level 1.
TEST(VkrefSmoke, UsesTheGivenMipLevels) {
  Texture texture;
  texture.name = "levels";
  texture.levels.emplace_back(8, 8, pack_rgba8(255, 0, 0));
  texture.levels.emplace_back(4, 4, pack_rgba8(0, 255, 0));
  texture.levels.emplace_back(2, 2, pack_rgba8(0, 0, 255));
  texture.levels.emplace_back(1, 1, pack_rgba8(255, 255, 255));
  Scene scene = conformance::flat_scene();
  scene.textures.push_back(texture);
  const uint32_t material = add_material(scene, glm::vec3(1.0f));
  scene.materials[material].texture = 0;
  // 8 texels over 4 pixels in x and y: d(u * 8)/dx = 2, lod = log2(2) = 1, on 2x2-aligned
  // quads so coarse and fine derivatives agree.
  Mesh quad;
  quad.name = "quad";
  const glm::vec3 n(0, 0, -1);
  quad.vertices = {
      {{200, 40, 0}, n, {0, 0}}, {{200, 44, 0}, n, {0, 1}}, {{204, 44, 0}, n, {1, 1}}, {{204, 40, 0}, n, {1, 0}}};
  quad.indices = {0, 1, 2, 0, 2, 3};
  compute_bounds(quad);
  scene.meshes.push_back(quad);
  scene.instances.push_back({0, material, glm::mat4(1.0f)});

  reference().upload(scene);
  const Image image = reference().render(pixel_camera(kW, kH), options());
  for (int y = 40; y < 44; ++y) {
    for (int x = 200; x < 204; ++x) {
      EXPECT_LE(max_channel_diff(image.at(x, y), pack_rgba8(0, 255, 0)), 2)
          << "pixel (" << x << ", " << y << "): " << rgb_text(image.at(x, y));
    }
  }
}

// Over two million triangles (a 1024 x 1024 quad grid, 33.6 MB of vertices: more than the
// 32 MiB staging buffer, so the upload streams in chunks) covering the frame.
TEST(VkrefSmoke, DrawsMeshesOfMillionsOfTriangles) {
  constexpr int kGrid = 1024;
  Scene scene = conformance::flat_scene();
  const uint32_t material = add_material(scene, glm::vec3(0.2f, 1.0f, 0.2f));
  Mesh grid;
  grid.name = "grid";
  grid.vertices.reserve(size_t(kGrid + 1) * (kGrid + 1));
  for (int j = 0; j <= kGrid; ++j) {
    for (int i = 0; i <= kGrid; ++i) {
      const glm::vec3 p(-10.0f + float(kW + 20) * float(i) / kGrid, -10.0f + float(kH + 20) * float(j) / kGrid, 0.0f);
      grid.vertices.push_back({p, {0, 0, -1}, {float(i) / kGrid, float(j) / kGrid}});
    }
  }
  grid.indices.reserve(size_t(kGrid) * kGrid * 6);
  for (int j = 0; j < kGrid; ++j) {
    for (int i = 0; i < kGrid; ++i) {
      const uint32_t v = uint32_t(j * (kGrid + 1) + i);
      const uint32_t below = v + uint32_t(kGrid + 1);
      grid.indices.insert(grid.indices.end(), {v, below, v + 1, v + 1, below, below + 1});
    }
  }
  compute_bounds(grid);
  scene.meshes.push_back(std::move(grid));
  scene.instances.push_back({0, material, glm::mat4(1.0f)});
  ASSERT_GT(scene.meshes[0].triangle_count(), 2'000'000u);

  reference().upload(scene);
  const Image image = reference().render(pixel_camera(kW, kH), options());
  const Rgba8 expected = encode(glm::dvec3(0.2, 1.0, 0.2));
  int wrong = 0;
  for (Rgba8 p : image.pixels) wrong += max_channel_diff(p, expected) > 1;
  EXPECT_EQ(wrong, 0) << "pixels not covered by the grid";
}

TEST(VkrefSmoke, RenderTimedReportsEveryRepetition) {
  Scene scene = conformance::flat_scene();
  add_triangle_2d(scene, {10, 10}, {10, 200}, {300, 10}, add_material(scene, glm::vec3(1.0f)));
  reference().upload(scene);
  std::vector<double> frame_ms;
  const double median = reference().render_timed(pixel_camera(kW, kH), options(), 5, &frame_ms);
  ASSERT_EQ(frame_ms.size(), 5u);
  EXPECT_GT(median, 0.0);
  for (double ms : frame_ms) EXPECT_GT(ms, 0.0);
  EXPECT_THROW(reference().render_timed(pixel_camera(kW, kH), options(), 0, nullptr), Error);
  // Rendering after a timed run still reads back the frame.
  const Image image = reference().render(pixel_camera(kW, kH), options());
  EXPECT_EQ(image.at(20, 20), pack_rgba8(255, 255, 255));
}

TEST(VkrefSmoke, ResizesBetweenFrames) {
  Scene scene = conformance::flat_scene();
  add_triangle_2d(scene, {0, 0}, {0, 64}, {64, 0}, add_material(scene, glm::vec3(1.0f)));
  reference().upload(scene);
  for (auto [w, h] : {std::pair{64, 48}, std::pair{1, 1}, std::pair{333, 17}, std::pair{64, 48}}) {
    const Image image = reference().render(pixel_camera(w, h), options(w, h));
    ASSERT_EQ(image.width, w);
    ASSERT_EQ(image.height, h);
    EXPECT_EQ(image.at(0, 0), pack_rgba8(255, 255, 255)) << w << "x" << h;
  }
  EXPECT_THROW(reference().render(pixel_camera(kW, kH), options(0, 10)), Error);
  EXPECT_THROW(reference().render(pixel_camera(kW, kH), options(1 << 20, 10)), Error);
}

TEST(VkrefSmoke, RejectsInvalidScenes) {
  Scene scene = conformance::flat_scene();
  add_triangle_2d(scene, {0, 0}, {0, 64}, {64, 0}, add_material(scene, glm::vec3(1.0f)));

  Scene bad_index = scene;
  bad_index.meshes[0].indices[2] = 7;
  EXPECT_THROW(reference().upload(bad_index), Error);

  Scene bad_mesh = scene;
  bad_mesh.instances[0].mesh = 3;
  EXPECT_THROW(reference().upload(bad_mesh), Error);

  Scene bad_texture = scene;
  bad_texture.materials[0].texture = 0;
  EXPECT_THROW(reference().upload(bad_texture), Error);

  Scene bad_levels = scene;
  Texture texture;
  texture.levels.emplace_back(4, 4, 0u);
  texture.levels.emplace_back(3, 2, 0u);  // level 1 of 4x4 must be 2x2
  bad_levels.textures.push_back(texture);
  EXPECT_THROW(reference().upload(bad_levels), Error);

  Scene many_lights = scene;
  many_lights.lights.resize(kMaxLights + 1);
  EXPECT_THROW(reference().upload(many_lights), Error);

  // The renderer stays usable after rejected uploads.
  reference().upload(scene);
  EXPECT_EQ(reference().render(pixel_camera(kW, kH), options()).at(1, 1), pack_rgba8(255, 255, 255));
}

// Sets an environment variable for the scope and restores the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

TEST(VkrefSmoke, NoDriverThrowsAClearError) {
  const ScopedEnv drivers("VK_DRIVER_FILES", "/nonexistent/tessera_no_driver.json");
  const ScopedEnv icds("VK_ICD_FILENAMES", "/nonexistent/tessera_no_driver.json");
  try {
    auto renderer = vkref::ReferenceRenderer::create();
    FAIL() << "create() succeeded without a driver on " << renderer->device_name();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vkref"), std::string::npos) << e.what();
  }
}

TEST(VkrefSmoke, UnknownDeviceNameThrows) {
  vkref::DeviceOptions device;
  device.device_name_contains = "no such device, tessera";
  EXPECT_THROW(vkref::ReferenceRenderer::create(device), Error);
}

// Everything above, once more under VK_LAYER_KHRONOS_validation: no message at all, including
// object leaks reported when the device and instance are destroyed.
TEST(VkrefSmoke, ValidationLayerReportsNothing) {
  std::vector<std::string> messages;
  {
    vkref::DeviceOptions device;
    device.validation = true;
    device.on_validation_message = [&messages](const std::string& m) { messages.push_back(m); };
    // tools/setup-deps.sh installs vulkan-validationlayers, so a missing layer is a failure.
    std::unique_ptr<vkref::ReferenceRenderer> renderer = vkref::ReferenceRenderer::create(device);
    Scene scene = conformance::flat_scene();
    Image base(8, 8);
    for (int i = 0; i < 64; ++i) base.pixels[size_t(i)] = pack_rgba8(uint8_t(i * 4), 128, 255 - uint8_t(i * 4));
    scene.textures.push_back(make_texture("tex", base));
    const uint32_t plain = add_material(scene, glm::vec3(1.0f, 0.0f, 0.0f));
    const uint32_t textured = add_material(scene, glm::vec3(1.0f));
    scene.materials[textured].texture = 0;
    add_triangle_2d(scene, {0, 0}, {0, 100}, {100, 0}, plain);
    add_triangle_2d(scene, {100, 100}, {100, 200}, {200, 100}, textured);
    scene.meshes.push_back(Mesh{});  // empty mesh: no buffers, no draw
    scene.instances.push_back({uint32_t(scene.meshes.size() - 1), plain, glm::mat4(1.0f)});
    Light lamp;
    lamp.type = LightType::point;
    lamp.position = glm::vec3(100, 100, -50);
    scene.lights.push_back(lamp);
    renderer->upload(scene);
    renderer->render(pixel_camera(kW, kH), options());
    renderer->render(pixel_camera(64, 32), options(64, 32, false));
    renderer->render_timed(pixel_camera(kW, kH), options(), 2, nullptr);
    renderer->upload(scene);  // re-upload releases the previous scene
    renderer->render(pixel_camera(kW, kH), options());
  }
  for (const std::string& m : messages) ADD_FAILURE() << m;
}

}  // namespace
}  // namespace tessera
