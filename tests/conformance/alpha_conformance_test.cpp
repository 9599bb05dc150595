// Alpha against the Vulkan reference: an analytic alpha-mask case that must give exactly the
// same coverage (and the hand-counted total), blended and masked materials at 1x and 4x, and
// the shipped glTF example (textures, MASK, BLEND, double-sided, emissive) at >= 40 dB.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "conformance_scenes.h"
#include "tessera/config.h"
#include "tessera/image.h"
#include "tessera/renderer.h"
#include "tessera/scene.h"
#include "vkref/reference_renderer.h"

namespace tessera {
namespace {

using conformance::colour_class;
using conformance::pixel_camera;

constexpr double kMinPsnrDb = 40.0;

vkref::ReferenceRenderer& reference() {
  static std::unique_ptr<vkref::ReferenceRenderer> renderer = vkref::ReferenceRenderer::create();
  return *renderer;
}

bool reference_supports(int samples) {
  const std::vector<int> counts = reference().supported_sample_counts();
  return std::find(counts.begin(), counts.end(), samples) != counts.end();
}

struct Pair {
  Image tessera;
  Image reference;
};

Pair render_both(const Scene& scene, const Camera& camera, int w, int h, int samples, bool cull = true) {
  Config cfg;
  cfg.frame.width = w;
  cfg.frame.height = h;
  cfg.raster.cull_backface = cull;
  cfg.raster.msaa = samples;
  Renderer renderer(cfg);
  vkref::ReferenceOptions options;
  options.width = w;
  options.height = h;
  options.cull_backface = cull;
  options.samples = samples;
  reference().upload(scene);
  return {renderer.render(scene, camera).color, reference().render(camera, options)};
}

void expect_psnr(const std::string& name, const Pair& p) {
  const double psnr = psnr_rgb(p.tessera, p.reference);
  std::printf("psnr %s: %.2f dB\n", name.c_str(), psnr);
  if (!(psnr >= kMinPsnrDb)) {
    const auto dir = conformance::dump_images(name, p.tessera, p.reference);
    ADD_FAILURE() << name << ": PSNR " << psnr << " dB < " << kMinPsnrDb << " dB; images in " << dir.string();
  }
}

// A W x H rectangle on z = 0 (pixel_camera's plane) with uv 0..1 across it, facing the camera.
uint32_t add_rect(Scene& scene, glm::vec2 lo, glm::vec2 hi, uint32_t material, float z = 0.0f) {
  Mesh mesh;
  mesh.name = "rect" + std::to_string(scene.meshes.size());
  const glm::vec3 n(0, 0, -1);
  mesh.vertices = {{{lo.x, lo.y, z}, n, {0, 0}},
                   {{hi.x, lo.y, z}, n, {1, 0}},
                   {{hi.x, hi.y, z}, n, {1, 1}},
                   {{lo.x, hi.y, z}, n, {0, 1}}};
  mesh.indices = {0, 1, 2, 0, 2, 3};
  compute_bounds(mesh);
  scene.meshes.push_back(std::move(mesh));
  Instance inst;
  inst.mesh = uint32_t(scene.meshes.size() - 1);
  inst.material = material;
  scene.instances.push_back(inst);
  return inst.mesh;
}

uint32_t add_material(Scene& scene, glm::vec3 color, AlphaMode mode, float alpha = 1.0f, int texture = -1) {
  Material m;
  m.name = "m" + std::to_string(scene.materials.size());
  m.base_color = color;
  m.alpha_mode = mode;
  m.base_alpha = alpha;
  m.texture = texture;
  m.double_sided = true;
  scene.materials.push_back(m);
  return uint32_t(scene.materials.size() - 1);
}

// A 40x30 texture of random opaque and transparent texels, sampled nearest at 8x8 pixels a
// texel over the whole 320x240 frame: the mask's coverage is known pixel by pixel.
TEST(AlphaConformance, AnalyticMaskCoverageIsExact) {
  constexpr int kW = 320, kH = 240, kCell = 8;
  Image mask(kW / kCell, kH / kCell);
  uint32_t state = 12345;
  int opaque_texels = 0;
  for (Rgba8& p : mask.pixels) {
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    const bool opaque = (state >> 7) % 3 != 0;
    opaque_texels += opaque;
    // Colour varies so a wrong texel would also show; alpha 255 or 0 (the cutoff is 0.5).
    p = pack_rgba8(255, opaque ? 255 : 0, 255, opaque ? 255 : 0);
  }
  Scene scene = conformance::flat_scene();
  scene.textures.push_back(make_texture("mask", mask));
  scene.textures[0].sampler.mag = scene.textures[0].sampler.min = TextureFilter::nearest;
  scene.textures[0].sampler.mip = MipFilter::none;
  add_rect(scene, {0, 0}, {kW, kH}, add_material(scene, glm::vec3(1.0f), AlphaMode::mask, 1.0f, 0));
  for (int samples : {1, 4}) {
    if (!reference_supports(samples)) continue;
    const Pair p = render_both(scene, pixel_camera(kW, kH), kW, kH, samples, false);
    int mismatches = 0;
    for (size_t i = 0; i < p.reference.pixels.size(); ++i) {
      mismatches += colour_class(p.tessera.pixels[i]) != colour_class(p.reference.pixels[i]);
    }
    EXPECT_EQ(mismatches, 0) << samples << "x";
    EXPECT_EQ(conformance::covered_count(p.reference), opaque_texels * kCell * kCell) << samples << "x";
    EXPECT_EQ(conformance::covered_count(p.tessera), opaque_texels * kCell * kCell) << samples << "x";
    if (mismatches) conformance::dump_images("alpha_mask_" + std::to_string(samples), p.tessera, p.reference);
  }
}

// Overlapping blended rectangles over an opaque one and a textured mask (a disc) with linear
// filtering, at 1x and 4x.
TEST(AlphaConformance, BlendedAndMaskedLayers) {
  constexpr int kW = 320, kH = 240;
  Scene scene = conformance::flat_scene();
  scene.background = glm::vec3(0.1f, 0.15f, 0.2f);
  Image disc(64, 64);
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const float r = std::hypot(float(x) - 31.5f, float(y) - 31.5f);
      // A disc: one cut edge, so only a handful of pixels sit where the two filters' rounding
      // can put alpha on different sides of the cutoff.
      const uint8_t a = r < 20.0f ? 255 : 0;
      disc.at(x, y) = pack_rgba8(uint8_t(x * 4), 180, uint8_t(255 - y * 4), a);
    }
  }
  scene.textures.push_back(make_texture("disc", disc));
  add_rect(scene, {20, 20}, {200, 160}, add_material(scene, glm::vec3(0.9f, 0.8f, 0.2f), AlphaMode::opaque), 5.0f);
  add_rect(scene, {140, 40}, {300, 220}, add_material(scene, glm::vec3(1.0f), AlphaMode::mask, 1.0f, 0), 4.0f);
  // Blended, drawn after the opaque ones in file order; the second overlaps the first.
  add_rect(scene, {60, 60}, {260, 200}, add_material(scene, glm::vec3(0.2f, 0.4f, 1.0f), AlphaMode::blend, 0.4f), 2.0f);
  add_rect(scene, {100, 10}, {180, 230}, add_material(scene, glm::vec3(1.0f, 0.1f, 0.1f), AlphaMode::blend, 0.6f, 0),
           1.0f);
  // A blended rectangle behind the opaque one: hidden by the depth test where they overlap.
  add_rect(scene, {0, 100}, {120, 180}, add_material(scene, glm::vec3(0.1f, 1.0f, 0.1f), AlphaMode::blend, 0.5f), 8.0f);
  for (int samples : {1, 4}) {
    if (!reference_supports(samples)) {
      std::printf("reference has no %dx MSAA: skipped\n", samples);
      continue;
    }
    expect_psnr("alpha_layers_" + std::to_string(samples) + "x",
                render_both(scene, pixel_camera(kW, kH), kW, kH, samples, false));
  }
}

// The shipped glTF example from its two cameras at 1x and 4x.
TEST(AlphaConformance, GltfCourtyard) {
  const auto path = std::filesystem::path(TESSERA_SOURCE_DIR) / "assets" / "gltf" / "courtyard.glb";
  ASSERT_TRUE(std::filesystem::exists(path)) << path.string();
  const Scene scene = load_scene(path);
  ASSERT_EQ(scene.cameras.size(), 2u);
  for (int samples : {1, 4}) {
    if (!reference_supports(samples)) continue;
    for (const Camera& camera : scene.cameras) {
      expect_psnr("courtyard_" + camera.name + "_" + std::to_string(samples) + "x",
                  render_both(scene, camera, 480, 270, samples));
    }
  }
}

}  // namespace
}  // namespace tessera
