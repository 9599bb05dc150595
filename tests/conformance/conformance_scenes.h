// Hand-made scenes and image helpers shared by the conformance tests: a camera that maps the
// world plane z = 0 onto pixels one unit per pixel, flat unlit geometry whose colour is its
// material's base colour, coverage classes, and failure dumps.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <glm/glm.hpp>
#include <string>
#include <vector>

#include "tessera/image.h"
#include "tessera/scene.h"

namespace tessera::conformance {

// Camera for a width x height frame that maps world (x, y, 0) to framebuffer (x, y): pixel
// centres at (i + 0.5, j + 0.5), y down. It sits at (W/2, H/2, -D) looking down +z with
// up = -y, so world +x is screen right and world +y is screen down. With a 90-degree vertical
// field of view, tan(45) = 1 and the plane at distance D spans 2D world units over H pixels;
// D = H/2 gives one unit per pixel vertically, and since the projection divides x by the
// aspect W/H over a half-width of W/2 pixels, horizontally too.
inline Camera pixel_camera(int width, int height) {
  Camera camera;
  const float d = 0.5f * float(height);
  camera.position = glm::vec3(0.5f * float(width), 0.5f * float(height), -d);
  camera.target = glm::vec3(0.5f * float(width), 0.5f * float(height), 0.0f);
  camera.up = glm::vec3(0.0f, -1.0f, 0.0f);
  camera.fov_y_degrees = 90.0f;
  camera.near_plane = 0.1f;
  camera.far_plane = 1000.0f;
  return camera;
}

// Framebuffer position of a world point under camera_matrices (viewport 0..W, 0..H).
inline glm::vec2 project_to_pixels(const Camera& camera, int width, int height, glm::vec3 p) {
  const glm::vec4 clip = camera_matrices(camera, width, height).view_projection * glm::vec4(p, 1.0f);
  return glm::vec2((clip.x / clip.w + 1.0f) * 0.5f * float(width), (clip.y / clip.w + 1.0f) * 0.5f * float(height));
}

// Unlit scene: ambient 1, no lights, black background, so a pixel's linear colour is exactly
// its material's base colour.
inline Scene flat_scene() {
  Scene scene;
  scene.ambient = glm::vec3(1.0f);
  scene.background = glm::vec3(0.0f);
  return scene;
}

inline uint32_t add_material(Scene& scene, glm::vec3 color) {
  Material material;
  material.name = "flat" + std::to_string(scene.materials.size());
  material.base_color = color;
  scene.materials.push_back(material);
  return uint32_t(scene.materials.size() - 1);
}

// Adds one triangle as its own mesh and instance, in the order given (no winding change).
inline void add_triangle(Scene& scene, glm::vec3 a, glm::vec3 b, glm::vec3 c, uint32_t material) {
  Mesh mesh;
  mesh.name = "tri" + std::to_string(scene.meshes.size());
  const glm::vec3 n = glm::normalize(glm::cross(b - a, c - a));
  mesh.vertices = {{a, n, {0, 0}}, {b, n, {1, 0}}, {c, n, {0, 1}}};
  mesh.indices = {0, 1, 2};
  compute_bounds(mesh);
  scene.meshes.push_back(std::move(mesh));
  Instance instance;
  instance.mesh = uint32_t(scene.meshes.size() - 1);
  instance.material = material;
  scene.instances.push_back(instance);
}

inline void add_triangle_2d(Scene& scene, glm::vec2 a, glm::vec2 b, glm::vec2 c, uint32_t material) {
  add_triangle(scene, glm::vec3(a, 0.0f), glm::vec3(b, 0.0f), glm::vec3(c, 0.0f), material);
}

// Colour class of a flat-shaded pixel: each channel 0 (< 64), 1 (mid) or 2 (>= 192), packed
// base 3. Base colours with channels in {0, 0.2, 1} land in distinct classes whatever
// rounding the sRGB encoder uses; 0 is background.
inline int colour_class(Rgba8 c) {
  int code = 0;
  for (int i = 2; i >= 0; --i) {
    const int v = channel(c, i);
    code = code * 3 + (v < 64 ? 0 : v < 192 ? 1 : 2);
  }
  return code;
}

inline std::vector<int> class_image(const Image& image) {
  std::vector<int> classes(image.pixels.size());
  for (size_t i = 0; i < classes.size(); ++i) classes[i] = colour_class(image.pixels[i]);
  return classes;
}

// Pixels whose class is not background.
inline int covered_count(const Image& image) {
  int count = 0;
  for (Rgba8 p : image.pixels) count += colour_class(p) != 0;
  return count;
}

inline int count_with_class(const Image& image, int cls) {
  int count = 0;
  for (Rgba8 p : image.pixels) count += colour_class(p) == cls;
  return count;
}

inline int class_of_color(glm::vec3 linear) {
  return colour_class(pack_rgba8(encode_srgb8(linear.r), encode_srgb8(linear.g), encode_srgb8(linear.b)));
}

// Per-channel absolute difference scaled by `gain`, for eyeballing failures.
inline Image diff_image(const Image& a, const Image& b, int gain = 8) {
  Image out(a.width, a.height);
  for (size_t i = 0; i < a.pixels.size() && i < b.pixels.size(); ++i) {
    uint8_t d[3];
    for (int c = 0; c < 3; ++c) {
      const int v = std::abs(int(channel(a.pixels[i], c)) - int(channel(b.pixels[i], c))) * gain;
      d[c] = uint8_t(v > 255 ? 255 : v);
    }
    out.pixels[i] = pack_rgba8(d[0], d[1], d[2]);
  }
  return out;
}

// Writes tessera.png, reference.png and diff.png into the test temp folder under `name`;
// returns the folder.
inline std::filesystem::path dump_images(const std::string& name, const Image& tessera_image,
                                         const Image& reference_image) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "tessera_conformance" / name;
  std::filesystem::create_directories(dir);
  write_png(dir / "tessera.png", tessera_image);
  write_png(dir / "reference.png", reference_image);
  if (tessera_image.width == reference_image.width && tessera_image.height == reference_image.height) {
    write_png(dir / "diff.png", diff_image(tessera_image, reference_image));
  }
  return dir;
}

}  // namespace tessera::conformance
