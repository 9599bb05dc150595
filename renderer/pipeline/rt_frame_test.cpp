// rt and hybrid frames (docs/rt.md, Rendering): agreement with the raster path where both
// compute the same thing, shadows, mirrors, thread independence and config errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <tuple>

#include <unistd.h>

#include "tessera/config.h"
#include "tessera/error.h"
#include "tessera/image.h"
#include "tessera/procedural.h"
#include "tessera/renderer.h"
#include "tessera/scene.h"

namespace tessera {
namespace {

Scene load_asset(const std::string& path) { return load_scene(std::filesystem::path(TESSERA_SOURCE_DIR) / path); }

Config small_config(FrameMode mode, int width = 160, int height = 90) {
  Config c;
  c.frame.width = width;
  c.frame.height = height;
  c.frame.mode = mode;
  c.tiling.baselines = false;
  c.tessellation.baselines = false;
  return c;
}

Frame render(const Scene& scene, const Config& config, const Camera* camera = nullptr) {
  Renderer renderer(config);
  return renderer.render(scene, camera ? *camera : scene.camera);
}

glm::vec3 linear_at(const Image& image, int x, int y) {
  const Rgba8 c = image.pixels[size_t(y) * size_t(image.width) + size_t(x)];
  return glm::vec3(decode_srgb8(channel(c, 0)), decode_srgb8(channel(c, 1)), decode_srgb8(channel(c, 2)));
}

// With no shadow rays, no mirror and no diffuse bounce an rt frame computes the raster
// program's formula at the same visible points; differences are sampling (pixel centre vs
// raster coverage at silhouettes), perspective-correct vs exact attribute interpolation and
// the texture level of detail (per-pixel ray differentials vs 2x2 quad derivatives). The
// conformance scenes cover plain Lambert + point lights, textures, and highlights + fog +
// tone mapping. Shadows are off because the raster path has none: with them the lit-spheres
// floor differs wherever a sphere's shadow falls (checked below to lower the PSNR).
TEST(RtFrame, MatchesRasterWithoutShadowsOrBounces) {
  // patches.json: patch instances are traced as the view's tessellated meshes.
  for (const char* path : {"assets/conformance/lit_spheres.json", "assets/conformance/textured_box.json",
                           "assets/conformance/shiny_fog.json", "assets/patches.json"}) {
    const Scene scene = load_asset(path);
    Config rt = small_config(FrameMode::rt, 320, 180);
    rt.trace.shadows = false;
    rt.trace.reflections = false;
    rt.trace.diffuse_samples = 0;
    const Frame traced = render(scene, rt);
    const Frame raster = render(scene, small_config(FrameMode::raster, 320, 180));
    const double psnr = psnr_rgb(traced.color, raster.color);
    std::printf("%s: rt vs raster PSNR %.2f dB\n", path, psnr);
    EXPECT_GE(psnr, 50.0) << path;  // measured 62-84 dB at 320x180
    EXPECT_GT(traced.stats.get_number("rt.rays.primary"), 0.0);
    EXPECT_EQ(traced.stats.get_number("rt.rays.shadow"), 0.0);
    if (!scene.patch_instances.empty()) {
      EXPECT_EQ(traced.stats.get_u64("tessellation.triangles"), raster.stats.get_u64("tessellation.triangles"));
      EXPECT_GT(traced.stats.get_u64("tessellation.triangles"), 0u);
      EXPECT_EQ(traced.stats.get_u64("rt.bvh.instances"), scene.instances.size() + scene.patch_instances.size());
    }
    if (std::string(path).find("lit_spheres") != std::string::npos) {
      rt.trace.shadows = true;
      const Frame shadowed = render(scene, rt);
      const double with_shadows = psnr_rgb(shadowed.color, raster.color);
      std::printf("%s: with shadows %.2f dB\n", path, with_shadows);
      EXPECT_LT(with_shadows, psnr - 3.0);
      EXPECT_GT(shadowed.stats.get_number("rt.rays.shadow"), 0.0);
    }
  }
}

// A floor under a box, lit straight from above: the floor point under the box is in its
// shadow and gets the ambient term only; with shadows off it is lit.
TEST(RtFrame, ShadowRayDarkensOccludedPoint) {
  Scene scene;
  scene.meshes.push_back(make_plane(glm::vec2(20.0f)));
  scene.meshes.push_back(make_box(glm::vec3(1.0f)));
  Material floor;
  floor.name = "floor";
  floor.base_color = glm::vec3(0.5f);
  scene.materials.push_back(floor);
  Instance ground{0, 0, glm::mat4(1.0f)};
  Instance box{1, 0, glm::mat4(1.0f)};
  box.transform[3] = glm::vec4(0.0f, 3.0f, 0.0f, 1.0f);  // 2.5..3.5 above the floor point (0, 0, 0)
  scene.instances = {ground, box};
  Light sun;
  sun.direction = glm::vec3(0.0f, -1.0f, 0.0f);
  sun.intensity = 1.0f;
  scene.lights.push_back(sun);
  scene.ambient = glm::vec3(0.1f);
  scene.camera.position = glm::vec3(0.0f, 1.0f, 6.0f);  // sees (0, 0, 0) below the box
  scene.camera.target = glm::vec3(0.0f);
  Config config = small_config(FrameMode::rt, 65, 65);
  config.trace.diffuse_samples = 0;
  const Frame shadowed = render(scene, config);
  config.trace.shadows = false;
  const Frame lit = render(scene, config);
  const glm::vec3 dark = linear_at(shadowed.color, 32, 32), bright = linear_at(lit.color, 32, 32);
  // 8-bit sRGB quantisation: within 1% of the expected linear value.
  EXPECT_NEAR(dark.r, 0.5f * 0.1f, 0.01f);
  EXPECT_NEAR(bright.r, 0.5f * 1.1f, 0.01f);
  // Far from the box's shadow the floor is lit either way.
  EXPECT_NEAR(linear_at(shadowed.color, 32, 60).r, linear_at(lit.color, 32, 60).r, 0.005f);
  EXPECT_GT(shadowed.stats.get_number("rt.rays.shadow"), 0.0);
}

// A mirror at z = 0 facing the camera, a red wall behind the camera facing the mirror, an
// unlit scene (ambient 1): the centre pixel sees the wall's colour through the mirror, mixed
// with the mirror's own colour by its reflectivity.
TEST(RtFrame, MirrorReflectsKnownColour) {
  for (const float reflectivity : {1.0f, 0.5f}) {
    Scene scene;
    scene.ambient = glm::vec3(1.0f);
    scene.background = glm::vec3(0.0f, 0.0f, 1.0f);
    scene.meshes.push_back(make_box(glm::vec3(4.0f, 4.0f, 0.1f)));
    Material mirror;
    mirror.name = "mirror";
    mirror.base_color = glm::vec3(1.0f);
    mirror.reflectivity = reflectivity;
    Material red;
    red.name = "red";
    red.base_color = glm::vec3(0.8f, 0.1f, 0.1f);
    scene.materials = {mirror, red};
    Instance m{0, 0, glm::mat4(1.0f)};
    Instance wall{0, 1, glm::mat4(1.0f)};
    wall.transform[3] = glm::vec4(0.0f, 0.0f, 10.0f, 1.0f);
    scene.instances = {m, wall};
    scene.camera.position = glm::vec3(0.0f, 0.0f, 5.0f);
    scene.camera.target = glm::vec3(0.0f);
    scene.camera.fov_y_degrees = 20.0f;
    Config config = small_config(FrameMode::rt, 33, 33);
    config.trace.diffuse_samples = 0;  // the bounce would add the background's blue through the mirror's albedo
    const Frame frame = render(scene, config);
    const glm::vec3 c = linear_at(frame.color, 16, 16);
    const glm::vec3 expected = (1.0f - reflectivity) * glm::vec3(1.0f) + reflectivity * red.base_color;
    EXPECT_NEAR(c.r, expected.r, 0.01f) << reflectivity;
    EXPECT_NEAR(c.g, expected.g, 0.01f) << reflectivity;
    EXPECT_NEAR(c.b, expected.b, 0.01f) << reflectivity;
    EXPECT_GT(frame.stats.get_number("rt.rays.reflection"), 0.0);
    // Without reflections the mirror shows its own colour.
    config.trace.reflections = false;
    const glm::vec3 plain = linear_at(render(scene, config).color, 16, 16);
    EXPECT_NEAR(plain.r, 1.0f, 0.01f);
    EXPECT_NEAR(plain.g, 1.0f, 0.01f);
    // Hybrid finds the same visible point from the raster depth and reflects the same.
    config.trace.reflections = true;
    config.frame.mode = FrameMode::hybrid;
    const glm::vec3 h = linear_at(render(scene, config).color, 16, 16);
    EXPECT_NEAR(h.r, expected.r, 0.01f);
    EXPECT_NEAR(h.g, expected.g, 0.01f);
  }
}

// A floor under a white sky (background 1, no lights, no ambient): every diffuse bounce from
// the floor leaves the scene, so the bounce brings exactly the background times the albedo,
// whatever directions the pixel's seed picks.
TEST(RtFrame, DiffuseBounceBringsSkyLight) {
  Scene scene;
  scene.meshes.push_back(make_plane(glm::vec2(50.0f)));
  Material floor;
  floor.name = "floor";
  floor.base_color = glm::vec3(0.5f, 0.25f, 0.125f);
  scene.materials.push_back(floor);
  scene.instances.push_back(Instance{0, 0, glm::mat4(1.0f)});
  scene.ambient = glm::vec3(0.0f);
  scene.background = glm::vec3(1.0f);
  scene.camera.position = glm::vec3(0.0f, 2.0f, 3.0f);
  scene.camera.target = glm::vec3(0.0f);
  Config config = small_config(FrameMode::rt, 33, 33);
  config.trace.diffuse_samples = 4;
  const Frame frame = render(scene, config);
  const glm::vec3 c = linear_at(frame.color, 16, 16);
  EXPECT_NEAR(c.r, 0.5f, 0.01f);
  EXPECT_NEAR(c.g, 0.25f, 0.01f);
  EXPECT_NEAR(c.b, 0.125f, 0.005f);
  EXPECT_EQ(frame.stats.get_number("rt.rays.diffuse"), 4.0 * frame.stats.get_number("rt.pixels.hit"));
  config.trace.diffuse_samples = 0;
  EXPECT_NEAR(linear_at(render(scene, config).color, 16, 16).r, 0.0f, 0.002f);
}

// Pixels, depth and every statistic but the run-dependent ones are the same for any thread
// count, diffuse bounces (seeded by pixel) included.
TEST(RtFrame, IdenticalForAnyThreadCount) {
  const Scene scene = load_asset("assets/default.json");
  for (FrameMode mode : {FrameMode::rt, FrameMode::hybrid}) {
    Config config = small_config(mode, 96, 64);
    config.trace.diffuse_samples = 2;
    config.frame.threads = 1;
    const Frame one = render(scene, config);
    config.frame.threads = 3;
    const Frame three = render(scene, config);
    EXPECT_EQ(one.color.pixels, three.color.pixels) << choice_name(mode);
    EXPECT_EQ(one.depth, three.depth) << choice_name(mode);
    size_t compared = 0;
    for (const auto& [name, value] : one.stats.values()) {
      if (name.rfind("frame.time_ms", 0) == 0 || name == "frame.threads") continue;
      ASSERT_TRUE(three.stats.has(name)) << name;
      EXPECT_EQ(value, three.stats.get(name)) << choice_name(mode) << " " << name;
      ++compared;
    }
    EXPECT_GT(compared, 20u);
    EXPECT_GT(one.stats.get_number("rt.rays.shadow"), 0.0) << choice_name(mode);
    if (std::string(choice_name(mode)) == "rt") {
      EXPECT_GT(one.stats.get_number("rt.rays.diffuse"), 0.0);
    }
  }
}

// Hybrid shades the raster frame's visible points with the same programs: with the same
// rays (no diffuse bounce) it agrees with the rt frame except along silhouettes.
TEST(RtFrame, HybridAgreesWithRt) {
  const Scene scene = load_asset("assets/conformance/lit_spheres.json");
  Config config = small_config(FrameMode::rt, 320, 180);
  config.trace.diffuse_samples = 0;
  const Frame traced = render(scene, config);
  config.frame.mode = FrameMode::hybrid;
  const Frame hybrid = render(scene, config);
  const double psnr = psnr_rgb(traced.color, hybrid.color);
  std::printf("lit_spheres: hybrid vs rt PSNR %.2f dB, window hits %.0f, full rays %.0f, raster kept %.0f\n", psnr,
              hybrid.stats.get_number("rt.hybrid.window_hits"), hybrid.stats.get_number("rt.hybrid.full_primary_rays"),
              hybrid.stats.get_number("rt.hybrid.raster_kept"));
  EXPECT_GE(psnr, 35.0);
  EXPECT_GT(hybrid.stats.get_number("rt.hybrid.window_hits"), 0.9 * hybrid.stats.get_number("rt.pixels.hit"));
  EXPECT_GT(hybrid.stats.get_number("raster.triangles.in"), 0.0);  // the raster pass ran
  // With MSAA the depth buffer holds sample 0, off the pixel centre: the window ray goes
  // through that sample and the pixel is shaded at its centre on the same triangle.
  config.raster.msaa = 4;
  const Frame msaa = render(scene, config);
  EXPECT_GT(msaa.stats.get_number("rt.hybrid.window_hits"), 0.95 * msaa.stats.get_number("rt.pixels.hit"));
  const double msaa_psnr = psnr_rgb(msaa.color, hybrid.color);
  std::printf("lit_spheres: hybrid 4x vs 1x PSNR %.2f dB\n", msaa_psnr);
  EXPECT_GE(msaa_psnr, 30.0);  // only silhouettes (resolved edges) differ
}

// A sphere of radius 4 centred 12 in front of the camera, as a LOD group of two levels that
// change at distance 10.
Scene sphere_ahead() {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("tessera_sphere_ahead_" + std::to_string(::getpid()) + ".json");
  std::FILE* f = std::fopen(path.string().c_str(), "w");
  if (!f) throw Error("cannot write " + path.string());
  std::fputs(R"({"camera": {"position": [0, 0, 0], "target": [0, 0, -1], "fov_y_degrees": 20},
    "materials": [{"name": "m"}],
    "meshes": [{"name": "hi", "generator": "sphere", "radius": 4, "segments": 32, "rings": 16},
               {"name": "lo", "generator": "sphere", "radius": 4, "segments": 8, "rings": 4}],
    "lod_groups": [{"name": "ball", "levels": ["hi", "lo"], "ranges": [10, 1000]}],
    "instances": [{"lod_group": "ball", "material": "m", "transform": {"translate": [0, 0, -12]}}]})",
             f);
  std::fclose(f);
  Scene scene = load_scene(path);
  std::filesystem::remove(path);
  return scene;
}

// Primary rays start at the near plane and end at the far plane, as raster clipping does.
TEST(RtFrame, NearAndFarPlanesClipPrimaryRays) {
  Scene scene = sphere_ahead();
  Config config = small_config(FrameMode::rt, 16, 16);
  config.trace.diffuse_samples = 0;
  const auto hits = [&](const Frame& f) { return f.stats.get_u64("rt.rays.hit"); };
  const Frame open = render(scene, config);
  EXPECT_GT(hits(open), 100u);
  for (const auto& [near_plane, far_plane, expect_hits] :
       {std::tuple{0.1f, 7.9f, false}, std::tuple{16.1f, 100.0f, false}, std::tuple{7.9f, 8.1f, true}}) {
    scene.camera.near_plane = near_plane;
    scene.camera.far_plane = far_plane;
    const Frame clipped = render(scene, config);
    EXPECT_EQ(hits(clipped) > 0, expect_hits) << near_plane << " .. " << far_plane;
    EXPECT_LT(hits(clipped), hits(open));
  }
  // Between the front (8) and the back (16) of the sphere: the back faces inside are hit.
  scene.camera.near_plane = 12.0f;
  scene.camera.far_plane = 100.0f;
  EXPECT_GT(hits(render(scene, config)), 0u);
}

// rt.lod_selection: a ray picks the level from its own distance to the object's box, the
// per-object way from the camera's distance to the object's centre. The centre ray enters
// the sphere's box at 8 (level 0) while the centre is at 12 (level 1).
TEST(RtFrame, LodSelectionPerRayOrPerObject) {
  const Scene scene = sphere_ahead();
  Config config = small_config(FrameMode::rt, 32, 32);
  config.trace.diffuse_samples = 0;
  config.frame.diagnostics = true;
  const size_t centre = 16 * 32 + 16;
  const Frame by_ray = render(scene, config);
  ASSERT_EQ(by_ray.diagnostics.lod_levels.size(), 32u * 32u);
  EXPECT_EQ(by_ray.diagnostics.lod_levels[centre], 0);
  config.rt.lod_selection = LodSelection::object;
  const Frame by_object = render(scene, config);
  EXPECT_EQ(by_object.diagnostics.lod_levels[centre], 1);
  // One level for the whole object: every hit pixel shows it.
  size_t hits = 0;
  for (int8_t level : by_object.diagnostics.lod_levels) {
    if (level < 0) continue;
    ++hits;
    EXPECT_EQ(level, 1);
  }
  EXPECT_GT(hits, 100u);
  EXPECT_EQ(by_object.stats.get_u64("rt.lod.level0"), 0u);
  EXPECT_GT(by_ray.stats.get_u64("rt.lod.level0"), 0u);
  EXPECT_THROW(config_from_json_text(R"({"rt": {"lod_selection": "camera"}})", "test"), Error);
  EXPECT_EQ(config_from_json_text(R"({"rt": {"lod_selection": "object"}})", "test").rt.lod_selection,
            LodSelection::object);
}

TEST(RtFrame, BadModeNamesRejected) {
  Config config;
  try {
    config.frame.mode = parse_choice<FrameMode>("frame.mode", "raytrace");
    FAIL() << "accepted frame.mode = raytrace";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("frame.mode"), std::string::npos) << e.what();
  }
  EXPECT_THROW(config_from_json_text(R"({"frame": {"mode": "RT"}})", "test"), Error);
  EXPECT_THROW(config_from_json_text(R"({"frame": {"mode": 1}})", "test"), Error);
  EXPECT_THROW(config_from_json_text(R"({"trace": {"diffuse_samples": 65}})", "test"), Error);
  EXPECT_THROW(config_from_json_text(R"({"trace": {"mirrors": true}})", "test"), Error);
  const Config ok = config_from_json_text(R"({"frame": {"mode": "hybrid"}, "trace": {"shadows": false}})", "test");
  EXPECT_EQ(ok.frame.mode, FrameMode::hybrid);
  EXPECT_FALSE(ok.trace.shadows);
  EXPECT_EQ(config_from_json_text(config_to_json_text(ok), "roundtrip").frame.mode, FrameMode::hybrid);
}

}  // namespace
}  // namespace tessera
