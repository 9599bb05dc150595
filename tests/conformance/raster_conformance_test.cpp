// Differential tests: the software GPU (tessera::Renderer) against the Vulkan reference
// (lavapipe by default). Shipped scenes must agree to >= 40 dB PSNR; flat unlit analytic cases
// must give exactly the same coverage (8 sub-pixel bits, pixel centres at +0.5, top-left rule),
// and match hand-counted pixel totals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <glm/gtc/matrix_transform.hpp>
#include <string>
#include <vector>

#include "conformance_scenes.h"
#include "tessera/config.h"
#include "tessera/error.h"
#include "tessera/image.h"
#include "tessera/renderer.h"
#include "tessera/scene.h"
#include "vkref/reference_renderer.h"

namespace tessera {
namespace {

using conformance::add_material;
using conformance::add_triangle;
using conformance::add_triangle_2d;
using conformance::colour_class;
using conformance::pixel_camera;

constexpr int kCoverageW = 320;  // analytic cases: one world unit per pixel on z = 0
constexpr int kCoverageH = 240;
constexpr int kSceneW = 480;  // shipped scenes
constexpr int kSceneH = 270;
constexpr double kMinPsnrDb = 40.0;

vkref::ReferenceRenderer& reference() {
  static std::unique_ptr<vkref::ReferenceRenderer> renderer = vkref::ReferenceRenderer::create();
  return *renderer;
}

Image render_tessera(const Scene& scene, const Camera& camera, int w, int h, bool cull, int samples = 1) {
  Config cfg;
  cfg.frame.width = w;
  cfg.frame.height = h;
  cfg.raster.cull_backface = cull;
  cfg.raster.msaa = samples;
  Renderer renderer(cfg);
  return renderer.render(scene, camera).color;
}

Image render_reference(const Scene& scene, const Camera& camera, int w, int h, bool cull, int samples = 1) {
  vkref::ReferenceOptions options;
  options.width = w;
  options.height = h;
  options.cull_backface = cull;
  options.samples = samples;
  reference().upload(scene);
  return reference().render(camera, options);
}

// Renders a flat scene with both renderers (no culling unless asked) and requires identical
// colour classes at every pixel. Returns the reference image for hand-count checks.
Image expect_same_coverage(const std::string& name, const Scene& scene, bool cull = false) {
  const Camera camera = pixel_camera(kCoverageW, kCoverageH);
  const Image ref = render_reference(scene, camera, kCoverageW, kCoverageH, cull);
  const Image sw = render_tessera(scene, camera, kCoverageW, kCoverageH, cull);
  EXPECT_EQ(sw.width, ref.width);
  EXPECT_EQ(sw.height, ref.height);
  if (sw.pixels.size() != ref.pixels.size()) return ref;
  int mismatches = 0;
  std::string first;
  for (int y = 0; y < ref.height; ++y) {
    for (int x = 0; x < ref.width; ++x) {
      const int a = colour_class(sw.at(x, y));
      const int b = colour_class(ref.at(x, y));
      if (a == b) continue;
      if (++mismatches <= 8) {
        first += " (" + std::to_string(x) + "," + std::to_string(y) + "): tessera class " + std::to_string(a) +
                 ", reference class " + std::to_string(b) + ";";
      }
    }
  }
  if (mismatches != 0) {
    const auto dir = conformance::dump_images(name, sw, ref);
    ADD_FAILURE() << name << ": " << mismatches << " pixels differ in coverage:" << first << " images in "
                  << dir.string();
  }
  std::printf("coverage %s: %d covered pixels, %d mismatches\n", name.c_str(), conformance::covered_count(ref),
              mismatches);
  return ref;
}

// 26 base colours with channels in {0, 0.2, 1}, each its own colour class (black excluded).
glm::vec3 palette(int i) {
  static const float levels[3] = {0.0f, 0.2f, 1.0f};
  const int code = i % 26 + 1;
  return glm::vec3(levels[code % 3], levels[code / 3 % 3], levels[code / 9 % 3]);
}

// Deterministic xorshift generator; values are quantised to the 1/256 sub-pixel grid so both
// renderers snap every vertex to the same fixed-point position.
struct Rng {
  uint32_t state;
  uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  float uniform(float lo, float hi, float quantum) {
    const float steps = std::floor((hi - lo) / quantum);
    return lo + quantum * float(next() % (uint32_t(steps) + 1));
  }
};

TEST(RasterConformance, PixelCameraMapsWorldUnitsToPixels) {
  const Camera camera = pixel_camera(kCoverageW, kCoverageH);
  for (glm::vec2 p : {glm::vec2(0, 0), glm::vec2(10.5f, 20.5f), glm::vec2(319.75f, 239.25f), glm::vec2(160, 120)}) {
    const glm::vec2 q = conformance::project_to_pixels(camera, kCoverageW, kCoverageH, glm::vec3(p, 0.0f));
    EXPECT_NEAR(q.x, p.x, 1e-3f);
    EXPECT_NEAR(q.y, p.y, 1e-3f);
  }
}

// A square with corners on pixel corners, split along its diagonal into two triangles of
// different colours. Hand count: the square [10,20]^2 contains the centres (i+.5, j+.5) for
// i, j in 10..19 (100 pixels); its sides run between centres. The diagonal y = x passes through
// the 10 centres with i == j: it is the left edge of the upper-right triangle (red), which
// owns them, and the right edge of the lower-left one (green). Red: 45 + 10 = 55, green: 45.
TEST(RasterConformance, SharedDiagonalOnPixelCorners) {
  Scene scene = conformance::flat_scene();
  const uint32_t red = add_material(scene, {1, 0, 0});
  const uint32_t green = add_material(scene, {0, 1, 0});
  add_triangle_2d(scene, {10, 10}, {20, 20}, {20, 10}, red);
  add_triangle_2d(scene, {10, 10}, {10, 20}, {20, 20}, green);
  const Image ref = expect_same_coverage("shared_diagonal_corners", scene);
  EXPECT_EQ(conformance::covered_count(ref), 100);
  EXPECT_EQ(conformance::count_with_class(ref, conformance::class_of_color({1, 0, 0})), 55);
  EXPECT_EQ(conformance::count_with_class(ref, conformance::class_of_color({0, 1, 0})), 45);
}

// The same split square with corners on pixel centres, so all four sides and the diagonal run
// through centres. Hand count: centres with i, j in 30..40 lie on the closed square; the top
// (y = 30.5) and left (x = 30.5) sides are top/left edges and keep theirs, the bottom and
// right sides are not and lose row 40 and column 40: 10 x 10 = 100. The diagonal's 10 centres
// (30,30)..(39,39) go to red (its left edge) as above: red 55, green 45.
TEST(RasterConformance, SharedDiagonalOnPixelCentres) {
  Scene scene = conformance::flat_scene();
  const uint32_t red = add_material(scene, {1, 0, 0});
  const uint32_t green = add_material(scene, {0, 1, 0});
  add_triangle_2d(scene, {30.5f, 30.5f}, {40.5f, 40.5f}, {40.5f, 30.5f}, red);
  add_triangle_2d(scene, {30.5f, 30.5f}, {30.5f, 40.5f}, {40.5f, 40.5f}, green);
  const Image ref = expect_same_coverage("shared_diagonal_centres", scene);
  EXPECT_EQ(conformance::covered_count(ref), 100);
  EXPECT_EQ(conformance::count_with_class(ref, conformance::class_of_color({1, 0, 0})), 55);
  EXPECT_EQ(conformance::count_with_class(ref, conformance::class_of_color({0, 1, 0})), 45);
}

// One-pixel-wide strips whose long sides run through pixel centres. Hand count: the horizontal
// strip x in [10.5, 30.5], y in [50.5, 51.5] keeps row 50 (top edge) and loses row 51 (bottom
// edge), and keeps columns 10..29 (left edge in, right edge out): 20 pixels. The vertical strip
// x in [60.5, 61.5], y in [10.5, 30.5] likewise keeps column 60, rows 10..29: 20 pixels.
TEST(RasterConformance, HorizontalAndVerticalEdgesThroughCentres) {
  Scene scene = conformance::flat_scene();
  const uint32_t a = add_material(scene, palette(0));
  const uint32_t b = add_material(scene, palette(1));
  add_triangle_2d(scene, {10.5f, 50.5f}, {30.5f, 51.5f}, {30.5f, 50.5f}, a);
  add_triangle_2d(scene, {10.5f, 50.5f}, {10.5f, 51.5f}, {30.5f, 51.5f}, b);
  add_triangle_2d(scene, {60.5f, 10.5f}, {61.5f, 30.5f}, {61.5f, 10.5f}, a);
  add_triangle_2d(scene, {60.5f, 10.5f}, {60.5f, 30.5f}, {61.5f, 30.5f}, b);
  const Image ref = expect_same_coverage("unit_strips", scene);
  EXPECT_EQ(conformance::covered_count(ref), 40);
  for (int x = 10; x < 30; ++x) EXPECT_NE(colour_class(ref.at(x, 50)), 0) << x;
  for (int y = 10; y < 30; ++y) EXPECT_NE(colour_class(ref.at(60, y)), 0) << y;
}

// Eight triangles fanned around the pixel centre (100.5, 120.5), out to the square of
// half-size 10 (corners and side midpoints), each in its own colour; every edge runs through
// pixel centres (slopes 0, 1, infinite). The centre pixel belongs to exactly one triangle.
// Hand count: the square [90.5, 110.5] x [110.5, 130.5] keeps its top and left sides: 400.
TEST(RasterConformance, FanAroundAPixelCentre) {
  Scene scene = conformance::flat_scene();
  const glm::vec2 c(100.5f, 120.5f);
  // Counter-clockwise on screen (y down): right, up-right, up, ...
  const glm::vec2 ring[8] = {{10, 0}, {10, -10}, {0, -10}, {-10, -10}, {-10, 0}, {-10, 10}, {0, 10}, {10, 10}};
  for (int k = 0; k < 8; ++k) {
    add_triangle_2d(scene, c, c + ring[k], c + ring[(k + 1) % 8], add_material(scene, palette(k)));
  }
  const Image ref = expect_same_coverage("fan", scene);
  EXPECT_EQ(conformance::covered_count(ref), 400);
  EXPECT_NE(colour_class(ref.at(100, 120)), 0);
}

// Sub-pixel triangles at random positions on the 1/256 grid (each side at most 1.25 pixels),
// one per 3x3 pixel cell so none overlap: most miss every pixel centre, some cover one.
TEST(RasterConformance, TinySubPixelTriangles) {
  Scene scene = conformance::flat_scene();
  const uint32_t white = add_material(scene, glm::vec3(1.0f));
  Rng rng{12345u};
  for (int j = 0; j < 20; ++j) {
    for (int i = 0; i < 50; ++i) {
      const glm::vec2 cell(150.0f + 3.0f * float(i), 150.0f + 3.0f * float(j));
      glm::vec2 v[3];
      for (glm::vec2& p : v) {
        p = cell + glm::vec2(rng.uniform(0.0f, 1.25f, 1.0f / 256), rng.uniform(0.0f, 1.25f, 1.0f / 256));
      }
      add_triangle_2d(scene, v[0], v[1], v[2], white);
    }
  }
  const Image ref = expect_same_coverage("tiny", scene);
  const int covered = conformance::covered_count(ref);
  EXPECT_GT(covered, 0);
  EXPECT_LT(covered, 1000);
}

// A jittered triangulated grid with vertices on the half-pixel lattice: shared edges at many
// slopes pass through pixel centres, and every triangle has its own colour (neighbours never
// share one), so any disagreement in edge ownership shows. Jitter of at most 2 units per axis
// on 10-unit cells cannot fold a triangle (a vertex lies 7.07 units from the opposite
// diagonal; three vertices moving 2.83 each close at most 5.66 of it).
TEST(RasterConformance, JitteredMeshEdgeOwnership) {
  Scene scene = conformance::flat_scene();
  constexpr int kCols = 12, kRows = 8;
  Rng rng{777u};
  std::vector<glm::vec2> grid;
  for (int j = 0; j <= kRows; ++j) {
    for (int i = 0; i <= kCols; ++i) {
      glm::vec2 p(20.0f + 10.0f * i, 120.0f + 10.0f * j);
      if (i > 0 && i < kCols && j > 0 && j < kRows) {
        p += glm::vec2(rng.uniform(-2.0f, 2.0f, 0.5f), rng.uniform(-2.0f, 2.0f, 0.5f));
      }
      grid.push_back(p);
    }
  }
  int t = 0;
  for (int j = 0; j < kRows; ++j) {
    for (int i = 0; i < kCols; ++i) {
      const glm::vec2 p00 = grid[size_t(j * (kCols + 1) + i)];
      const glm::vec2 p10 = grid[size_t(j * (kCols + 1) + i + 1)];
      const glm::vec2 p01 = grid[size_t((j + 1) * (kCols + 1) + i)];
      const glm::vec2 p11 = grid[size_t((j + 1) * (kCols + 1) + i + 1)];
      add_triangle_2d(scene, p00, p01, p10, add_material(scene, palette(t++)));
      add_triangle_2d(scene, p10, p01, p11, add_material(scene, palette(t++)));
    }
  }
  // Hand count: the outer boundary is the rectangle [20, 140] x [120, 200] on pixel corners,
  // so exactly its 120 x 80 = 9600 centres are covered.
  const Image ref = expect_same_coverage("jittered_mesh", scene);
  EXPECT_EQ(conformance::covered_count(ref), 9600);
}

// Random triangles up to 24 pixels across with vertices on the 1/256 grid, overlapping; the
// union of their coverage must match.
TEST(RasterConformance, RandomTrianglesUnion) {
  Scene scene = conformance::flat_scene();
  const uint32_t white = add_material(scene, glm::vec3(1.0f));
  Rng rng{2024u};
  for (int k = 0; k < 300; ++k) {
    const glm::vec2 base(rng.uniform(160.0f, 296.0f, 1.0f / 256), rng.uniform(10.0f, 100.0f, 1.0f / 256));
    glm::vec2 v[3];
    for (glm::vec2& p : v) p = base + glm::vec2(rng.uniform(0, 24, 1.0f / 256), rng.uniform(0, 24, 1.0f / 256));
    add_triangle_2d(scene, v[0], v[1], v[2], white);
  }
  expect_same_coverage("random_union", scene);
}

// A triangle reaching behind the camera, clipped by the near plane. The camera sits at
// z = -120 (one unit per pixel on z = 0); V0 = (160, 80.5, 0) and V1 = (160, 159.5, 0) lie on
// the plane, V2 = (199.5, 120, -240) is 120 units behind the camera. Projected, edge V0-V2
// becomes the ray y = 80.5 - (x - 160) heading up-right, V1-V2 the ray y = 159.5 + (x - 160)
// heading down-right, and V0-V1 the vertical x = 160; the clip points land ~23,700 pixels to
// the right. None of these lines passes through a pixel centre, so float error in the clip
// cannot flip a pixel. Hand count: column 160 + k (k = 0..159, centre x = 160.5 + k) covers
// rows 80 - k .. 159 + k, i.e. 80 + 2k rows while k <= 80 (sum 12,960) and all 240 rows for
// k = 81..159 (79 x 240 = 18,960): 31,920 pixels.
TEST(RasterConformance, NearPlaneClippedTriangle) {
  Scene scene = conformance::flat_scene();
  add_triangle(scene, {160.0f, 80.5f, 0.0f}, {160.0f, 159.5f, 0.0f}, {199.5f, 120.0f, -240.0f},
               add_material(scene, glm::vec3(1.0f)));
  const Image ref = expect_same_coverage("near_clip", scene);
  EXPECT_EQ(conformance::covered_count(ref), 31920);
}

// Back-face culling: triangles counter-clockwise on screen (y down) survive, clockwise ones
// are dropped, in both renderers. Hand count: the two kept right triangles have legs of 20
// pixels on pixel corners; a right isosceles triangle with legs n on pixel corners covers
// n(n+1)/2 centres when its hypotenuse runs through centres and it owns them (left edge) and
// n(n-1)/2 when it does not. The first keeps its hypotenuse (210), the second loses it (190).
TEST(RasterConformance, BackFaceCullingAgrees) {
  Scene scene = conformance::flat_scene();
  const uint32_t red = add_material(scene, {1, 0, 0});
  const uint32_t green = add_material(scene, {0, 1, 0});
  const uint32_t blue = add_material(scene, {0, 0, 1});
  add_triangle_2d(scene, {10, 10}, {30, 30}, {30, 10}, red);      // CCW on screen: kept
  add_triangle_2d(scene, {50, 10}, {50, 30}, {70, 30}, green);    // CCW on screen: kept
  add_triangle_2d(scene, {100, 10}, {120, 10}, {120, 30}, blue);  // CW on screen: culled
  add_triangle_2d(scene, {140, 10}, {160, 30}, {140, 30}, blue);  // CW on screen: culled
  const Image ref = expect_same_coverage("backface_culling", scene, true);
  EXPECT_EQ(conformance::count_with_class(ref, conformance::class_of_color({1, 0, 0})), 210);
  EXPECT_EQ(conformance::count_with_class(ref, conformance::class_of_color({0, 1, 0})), 190);
  EXPECT_EQ(conformance::count_with_class(ref, conformance::class_of_color({0, 0, 1})), 0);
}

// A lit, textured hand-made scene (rotated cube, textured ground quad, directional and point
// lights) so shading and texturing are compared even without asset files.
TEST(RasterConformance, HandMadeLitTexturedScene) {
  Scene scene;
  scene.ambient = glm::vec3(0.1f);
  scene.background = glm::vec3(0.05f, 0.07f, 0.1f);
  Image checker(64, 64);
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const bool on = ((x / 8) + (y / 8)) % 2 == 0;
      checker.at(x, y) = on ? pack_rgba8(230, 200, 120) : pack_rgba8(40, 90, 160);
    }
  }
  scene.textures.push_back(make_texture("checker", checker));
  Material ground_material{"ground", glm::vec3(1.0f), 0};
  Material cube_material{"cube", glm::vec3(0.8f, 0.3f, 0.25f), -1};
  scene.materials = {ground_material, cube_material};

  Mesh ground;
  ground.name = "ground";
  const glm::vec3 up(0, 1, 0);
  ground.vertices = {
      {{-6, 0, -6}, up, {0, 0}}, {{-6, 0, 6}, up, {0, 6}}, {{6, 0, 6}, up, {6, 6}}, {{6, 0, -6}, up, {6, 0}}};
  ground.indices = {0, 1, 2, 0, 2, 3};
  compute_bounds(ground);

  Mesh cube;
  cube.name = "cube";
  const glm::vec3 normals[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (const glm::vec3& n : normals) {
    const glm::vec3 u = std::abs(n.y) > 0.5f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    const glm::vec3 v = glm::cross(n, u);
    const uint32_t first = uint32_t(cube.vertices.size());
    for (glm::vec2 s : {glm::vec2(-1, -1), glm::vec2(1, -1), glm::vec2(1, 1), glm::vec2(-1, 1)}) {
      cube.vertices.push_back({n + s.x * u + s.y * v, n, (s + 1.0f) * 0.5f});
    }
    // (u, v, n) is right-handed (v = n x u), so corners in this order are counter-clockwise
    // seen from outside.
    cube.indices.insert(cube.indices.end(), {first, first + 1, first + 2, first, first + 2, first + 3});
  }
  compute_bounds(cube);
  scene.meshes = {ground, cube};
  glm::mat4 cube_transform(1.0f);
  cube_transform = glm::translate(cube_transform, glm::vec3(0.5f, 1.2f, 0.0f));
  cube_transform = glm::rotate(cube_transform, 0.6f, glm::normalize(glm::vec3(0.3f, 1.0f, 0.2f)));
  cube_transform = glm::scale(cube_transform, glm::vec3(1.0f, 0.8f, 1.2f));
  scene.instances = {{0, 0, glm::mat4(1.0f)}, {1, 1, cube_transform}};

  Light sun;
  sun.type = LightType::directional;
  sun.direction = glm::vec3(-0.4f, -1.0f, -0.3f);
  sun.color = glm::vec3(1.0f, 0.95f, 0.85f);
  sun.intensity = 0.8f;
  Light lamp;
  lamp.type = LightType::point;
  lamp.position = glm::vec3(-2.0f, 2.5f, 2.0f);
  lamp.color = glm::vec3(0.5f, 0.7f, 1.0f);
  lamp.intensity = 6.0f;
  scene.lights = {sun, lamp};
  scene.camera.position = glm::vec3(3.5f, 3.0f, 6.0f);
  scene.camera.target = glm::vec3(0.0f, 0.7f, 0.0f);

  const Image ref = render_reference(scene, scene.camera, kSceneW, kSceneH, true);
  const Image sw = render_tessera(scene, scene.camera, kSceneW, kSceneH, true);
  const double psnr = psnr_rgb(sw, ref);
  std::printf("psnr hand-made lit textured scene: %.2f dB\n", psnr);
  if (!(psnr >= kMinPsnrDb)) {
    const auto dir = conformance::dump_images("hand_made_lit_textured", sw, ref);
    ADD_FAILURE() << "PSNR " << psnr << " dB < " << kMinPsnrDb << " dB; images in " << dir.string();
  }
}

// --- Shipped scenes --------------------------------------------------------------------------

std::filesystem::path assets_dir() { return std::filesystem::path(TESSERA_SOURCE_DIR) / "assets"; }

// assets/default.json and every assets/conformance/*.json, relative to assets/. Listed at
// start-up so each scene is its own test case; a missing file fails its case.
std::vector<std::string> shipped_scenes() {
  std::vector<std::string> scenes = {"default.json"};
  std::error_code ec;
  const auto dir = assets_dir() / "conformance";
  if (std::filesystem::is_directory(dir, ec)) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") found.push_back("conformance/" + entry.path().filename().string());
    }
    std::sort(found.begin(), found.end());
    scenes.insert(scenes.end(), found.begin(), found.end());
  }
  return scenes;
}

TEST(RasterConformance, ConformanceScenesArePresent) {
  const auto dir = assets_dir() / "conformance";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir.string() << " is missing";
  EXPECT_GT(shipped_scenes().size(), 1u) << "no *.json scene in " << dir.string();
}

class ShippedScene : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScene, MatchesReferenceAbove40Db) {
  const std::filesystem::path path = assets_dir() / GetParam();
  ASSERT_TRUE(std::filesystem::exists(path)) << path.string() << " is missing";
  const Scene scene = load_scene(path);
  const Image ref = render_reference(scene, scene.camera, kSceneW, kSceneH, true);
  const Image sw = render_tessera(scene, scene.camera, kSceneW, kSceneH, true);
  const double psnr = psnr_rgb(sw, ref);
  std::printf("psnr %s: %.2f dB\n", GetParam().c_str(), psnr);
  if (!(psnr >= kMinPsnrDb)) {
    std::string name = GetParam();
    std::replace(name.begin(), name.end(), '/', '_');
    const auto dir = conformance::dump_images(name, sw, ref);
    ADD_FAILURE() << GetParam() << ": PSNR " << psnr << " dB < " << kMinPsnrDb << " dB; images in " << dir.string();
  }
}

std::string scene_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Assets, ShippedScene, ::testing::ValuesIn(shipped_scenes()), scene_test_name);

// MSAA comparisons need the sample count on the reference device; lavapipe in Debian 12
// (Mesa 22.3) offers 1x and 4x only. Other counts are checked against the standard positions
// by the raster unit tests and run here on drivers that have them.
bool reference_supports(int samples) {
  const std::vector<int> counts = reference().supported_sample_counts();
  return std::find(counts.begin(), counts.end(), samples) != counts.end();
}

// MSAA: the same scenes at 2x, 4x and 8x, compared after the box resolve.
class MsaaScene : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(MsaaScene, MatchesReferenceAbove40DbAfterResolve) {
  const auto& [scene_name, samples] = GetParam();
  if (!reference_supports(samples)) {
    GTEST_SKIP() << reference().device_name() << " has no " << samples << "x MSAA";
  }
  const Scene scene = load_scene(assets_dir() / scene_name);
  const Image ref = render_reference(scene, scene.camera, kSceneW, kSceneH, true, samples);
  const Image sw = render_tessera(scene, scene.camera, kSceneW, kSceneH, true, samples);
  const double psnr = psnr_rgb(sw, ref);
  std::printf("psnr %s at %dx MSAA: %.2f dB\n", scene_name.c_str(), samples, psnr);
  if (!(psnr >= kMinPsnrDb)) {
    std::string name = scene_name + "_msaa" + std::to_string(samples);
    std::replace(name.begin(), name.end(), '/', '_');
    const auto dir = conformance::dump_images(name, sw, ref);
    ADD_FAILURE() << scene_name << " at " << samples << "x: PSNR " << psnr << " dB < " << kMinPsnrDb
                  << " dB; images in " << dir.string();
  }
}

INSTANTIATE_TEST_SUITE_P(Assets, MsaaScene,
                         ::testing::Combine(::testing::Values("default.json", "conformance/lit_spheres.json"),
                                            ::testing::Values(2, 4, 8)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, int>>& p) {
                           std::string name = std::get<0>(p.param);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name + "_" + std::to_string(std::get<1>(p.param)) + "x";
                         });

// Per-sample coverage at the standard sample positions: white triangles on black, so each
// resolved pixel holds encode(covered samples / N). Both renderers must agree on the number
// of covered samples of every pixel.
class MsaaCoverage : public ::testing::TestWithParam<int> {};

TEST_P(MsaaCoverage, CoveredSampleCountsMatchReference) {
  const int samples = GetParam();
  if (!reference_supports(samples)) {
    GTEST_SKIP() << reference().device_name() << " has no " << samples << "x MSAA";
  }
  Scene scene = conformance::flat_scene();
  const uint32_t white = add_material(scene, glm::vec3(1.0f));
  Rng rng{0x9e3779b9u + uint32_t(samples)};
  for (int i = 0; i < 60; ++i) {
    const glm::vec2 c{rng.uniform(20, 300, 1.0f / 16), rng.uniform(20, 220, 1.0f / 16)};
    auto corner = [&] { return c + glm::vec2(rng.uniform(-30, 30, 1.0f / 16), rng.uniform(-30, 30, 1.0f / 16)); };
    add_triangle_2d(scene, corner(), corner(), corner(), white);
  }
  const Camera camera = pixel_camera(kCoverageW, kCoverageH);
  const Image ref = render_reference(scene, camera, kCoverageW, kCoverageH, false, samples);
  const Image sw = render_tessera(scene, camera, kCoverageW, kCoverageH, false, samples);
  // Covered-sample count from a resolved grey level: the nearest k / N in linear space.
  auto count = [&](Rgba8 c) { return int(std::lround(decode_srgb8(channel(c, 1)) * float(samples))); };
  int mismatches = 0, partial = 0;
  for (int y = 0; y < ref.height; ++y) {
    for (int x = 0; x < ref.width; ++x) {
      const int a = count(sw.at(x, y)), b = count(ref.at(x, y));
      partial += a > 0 && a < samples;
      if (a != b && ++mismatches <= 5)
        ADD_FAILURE() << "pixel (" << x << "," << y << "): tessera " << a << " samples, reference " << b;
    }
  }
  std::printf("msaa %dx coverage: %d partially covered pixels, %d mismatches\n", samples, partial, mismatches);
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(partial, 100) << "the case must exercise partial coverage";
}

INSTANTIATE_TEST_SUITE_P(Samples, MsaaCoverage, ::testing::Values(2, 4, 8));

// The device this suite runs on in CI (lavapipe) must offer 4x, so the 4x cases above are
// never skipped there.
TEST(RasterConformance, ReferenceOffersFourTimesMsaa) {
  EXPECT_TRUE(reference_supports(4)) << reference().device_name();
}

}  // namespace
}  // namespace tessera
