// The patch path against the Vulkan reference: assets/conformance/tessellation.json rendered by
// Tessera (hull program -> tessellator -> domain program, shaders/patch_programs.h) and by the
// reference renderer through a real tessellation pipeline (shaders/glsl/patch.*). The images
// must agree to >= 50 dB PSNR, and the driver's pipeline statistics must equal Tessera's frame
// counters exactly, for each spacing on its own: evaluation shader invocations = unique domain
// points of each patch (lavapipe, docs/tessellator.md) = tessellation.domain_points, control
// shader patches = tessellation.patches (culled ones included), clipping invocations = the
// instances' triangles + tessellation.triangles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
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

constexpr int kWidth = 480;
constexpr int kHeight = 270;
// 50 dB, not the 40 dB of flat scenes: the tessellator places the same points and triangles as
// lavapipe's (docs/tessellator.md), so only shading and rasterisation differ (measured 54-61 dB;
// 43-52 dB with the earlier, non-reference pattern).
constexpr double kMinPsnrDb = 50.0;

vkref::ReferenceRenderer& reference() {
  static std::unique_ptr<vkref::ReferenceRenderer> renderer = vkref::ReferenceRenderer::create();
  return *renderer;
}

const Scene& tessellation_scene() {
  static const Scene scene =
      load_scene(std::filesystem::path(TESSERA_SOURCE_DIR) / "assets" / "conformance" / "tessellation.json");
  return scene;
}

struct Counts {
  uint64_t patches = 0, hull_culled = 0, domain_points = 0, triangles = 0;
};

// Both renderers on one scene and camera; the reference's statistics through `stats`.
struct Pair {
  Image tessera, reference;
  Counts counts;  // Tessera's frame counters
  vkref::ReferenceStats stats;
  uint64_t stored_triangles = 0;  // the instances' triangles (not tessellated)
};

Pair render_both(const Scene& scene, const Camera& camera) {
  Pair out;
  Config cfg;
  cfg.frame.width = kWidth;
  cfg.frame.height = kHeight;
  Renderer renderer(cfg);
  const Frame frame = renderer.render(scene, camera);
  out.tessera = frame.color;
  out.counts.patches = frame.stats.get_u64("tessellation.patches");
  out.counts.hull_culled = frame.stats.get_u64("tessellation.hull_culled");
  out.counts.domain_points = frame.stats.get_u64("tessellation.domain_points");
  out.counts.triangles = frame.stats.get_u64("tessellation.triangles");
  vkref::ReferenceOptions options;
  options.width = kWidth;
  options.height = kHeight;
  reference().upload(scene);
  out.reference = reference().render(camera, options);
  out.stats = reference().last_stats();
  for (const Instance& instance : scene.instances) out.stored_triangles += scene.meshes[instance.mesh].triangle_count();
  return out;
}

// Skips (returns false) when the device cannot draw or count patches.
bool reference_counts_tessellation() {
  if (!reference().supports_tessellation()) return false;
  vkref::ReferenceOptions options;
  options.width = 16;
  options.height = 16;
  reference().upload(Scene{});
  reference().render(tessellation_scene().camera, options);
  return reference().last_stats().available && reference().last_stats().tessellation;
}

void expect_psnr(const std::string& name, const Pair& pair) {
  const double psnr = psnr_rgb(pair.tessera, pair.reference);
  std::printf("psnr %s: %.2f dB\n", name.c_str(), psnr);
  if (!(psnr >= kMinPsnrDb)) {
    const auto dir = conformance::dump_images(name, pair.tessera, pair.reference);
    ADD_FAILURE() << name << ": PSNR " << psnr << " dB < " << kMinPsnrDb << " dB; images in " << dir.string();
  }
}

void expect_counts(const std::string& name, const Pair& pair) {
  const Counts& c = pair.counts;
  const vkref::ReferenceStats& s = pair.stats;
  std::printf(
      "counts %s: %llu patches (%llu culled), %llu domain points, %llu triangles; reference %llu patches, "
      "%llu evaluation invocations, %llu clipping invocations (%llu stored triangles)\n",
      name.c_str(), (unsigned long long)c.patches, (unsigned long long)c.hull_culled,
      (unsigned long long)c.domain_points, (unsigned long long)c.triangles,
      (unsigned long long)s.tessellation_control_patches, (unsigned long long)s.tessellation_evaluation_invocations,
      (unsigned long long)s.clipping_invocations, (unsigned long long)pair.stored_triangles);
  EXPECT_EQ(s.tessellation_control_patches, c.patches) << name;
  EXPECT_EQ(s.tessellation_evaluation_invocations, c.domain_points) << name;
  EXPECT_EQ(s.clipping_invocations, pair.stored_triangles + c.triangles) << name;
}

// The scene with only the patch instances whose mesh uses `spacing`.
Scene with_spacing(const Scene& scene, TessSpacing spacing) {
  Scene out = scene;
  out.patch_instances.clear();
  for (const PatchInstance& instance : scene.patch_instances) {
    if (scene.patch_meshes[instance.patch_mesh].tessellation.spacing == spacing)
      out.patch_instances.push_back(instance);
  }
  return out;
}

TEST(TessellationConformance, SceneUsesEverySpacingAndKind) {
  const Scene& scene = tessellation_scene();
  bool spacing[3] = {}, kind[3] = {};
  for (const PatchInstance& instance : scene.patch_instances) {
    const PatchMesh& mesh = scene.patch_meshes[instance.patch_mesh];
    spacing[int(mesh.tessellation.spacing)] = true;
    kind[int(mesh.kind)] = true;
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(spacing[i]) << "spacing " << i << " unused";
    EXPECT_TRUE(kind[i]) << "patch kind " << i << " unused";
  }
}

TEST(TessellationConformance, WholeSceneMatchesReference) {
  if (!reference_counts_tessellation()) {
    GTEST_SKIP() << reference().device_name() << " lacks tessellationShader or pipelineStatisticsQuery";
  }
  const Scene& scene = tessellation_scene();
  const Pair pair = render_both(scene, scene.camera);
  EXPECT_GT(pair.counts.hull_culled, 0u) << "the scene should exercise the hull program's frustum cull";
  EXPECT_LT(pair.counts.hull_culled, pair.counts.patches);
  expect_psnr("tessellation", pair);
  expect_counts("tessellation", pair);
}

class TessellationSpacing : public ::testing::TestWithParam<TessSpacing> {};

TEST_P(TessellationSpacing, CountsEqualDomainPointsExactly) {
  if (!reference_counts_tessellation()) {
    GTEST_SKIP() << reference().device_name() << " lacks tessellationShader or pipelineStatisticsQuery";
  }
  const Scene scene = with_spacing(tessellation_scene(), GetParam());
  ASSERT_FALSE(scene.patch_instances.empty());
  const std::string name = "tessellation_" + std::string(tess_spacing_name(GetParam()));
  const Pair pair = render_both(scene, scene.camera);
  EXPECT_GT(pair.counts.domain_points, 0u);
  expect_counts(name, pair);
  expect_psnr(name, pair);
}

INSTANTIATE_TEST_SUITE_P(Spacings, TessellationSpacing,
                         ::testing::Values(TessSpacing::kEqual, TessSpacing::kFractionalOdd,
                                           TessSpacing::kFractionalEven),
                         [](const ::testing::TestParamInfo<TessSpacing>& param) {
                           return std::string(tess_spacing_name(param.param));
                         });

// A second view: looking along the terrain from its side, so most of it is culled by the hull
// program or tessellated at grazing angles; the counts must still agree exactly.
TEST(TessellationConformance, SideViewMatchesReference) {
  if (!reference_counts_tessellation()) {
    GTEST_SKIP() << reference().device_name() << " lacks tessellationShader or pipelineStatisticsQuery";
  }
  const Scene& scene = tessellation_scene();
  Camera camera = scene.camera;
  camera.position = glm::vec3(-14.0f, 6.0f, 6.0f);
  camera.target = glm::vec3(6.0f, 1.0f, -6.0f);
  const Pair pair = render_both(scene, camera);
  EXPECT_GT(pair.counts.hull_culled, 0u);
  expect_psnr("tessellation_side", pair);
  expect_counts("tessellation_side", pair);
}

// The reference really draws the patch surfaces (with the wrong domain winding, back-face
// culling would remove them all): its frame differs from the same scene without patch
// instances over most of the landscape.
TEST(TessellationConformance, ReferenceDrawsPatchSurfaces) {
  if (!reference().supports_tessellation()) GTEST_SKIP() << reference().device_name() << " lacks tessellationShader";
  const Scene& scene = tessellation_scene();
  vkref::ReferenceOptions options;
  options.width = kWidth;
  options.height = kHeight;
  reference().upload(scene);
  const Image with_patches = reference().render(scene.camera, options);
  Scene without = scene;
  without.patch_instances.clear();
  reference().upload(without);
  const Image without_patches = reference().render(scene.camera, options);
  size_t differing = 0;
  for (size_t i = 0; i < with_patches.pixels.size(); ++i)
    differing += with_patches.pixels[i] != without_patches.pixels[i];
  // The landscape covers most of the lower part of the frame.
  EXPECT_GT(differing, with_patches.pixels.size() / 3);
}

// More than 65,536 domain points in one patch instance: the terrain alone at a constant level
// 20 (fractional_odd: 21 segments per edge, 484 points per patch, 256 patches). lavapipe
// numbers a draw's evaluated points with 16 bits, so vkref splits such instances into several
// draws; without that the triangles join wrong points and the PSNR falls to about 20 dB.
TEST(TessellationConformance, ManyPointsPerInstanceMatchReference) {
  if (!reference_counts_tessellation()) {
    GTEST_SKIP() << reference().device_name() << " lacks tessellationShader or pipelineStatisticsQuery";
  }
  Scene scene = tessellation_scene();
  std::vector<PatchInstance> terrain;
  for (const PatchInstance& instance : scene.patch_instances) {
    PatchMesh& mesh = scene.patch_meshes[instance.patch_mesh];
    if (mesh.kind != PatchKind::displaced_quad) continue;
    mesh.tessellation.mode = TessFactorMode::constant;
    mesh.tessellation.level = 20.0f;
    mesh.tessellation.spacing = TessSpacing::kFractionalOdd;
    terrain.push_back(instance);
  }
  ASSERT_FALSE(terrain.empty());
  scene.patch_instances = terrain;
  const Pair pair = render_both(scene, scene.camera);
  EXPECT_GT(pair.counts.domain_points, 65536u);
  expect_counts("tessellation_many_points", pair);
  expect_psnr("tessellation_many_points", pair);
}

// The patch path under VK_LAYER_KHRONOS_validation: no message at all (pipelines for every
// kind and spacing, both culling states, 1x and 4x, render_timed, re-upload, object leaks).
TEST(TessellationConformance, ValidationLayerReportsNothing) {
  std::vector<std::string> messages;
  {
    vkref::DeviceOptions device;
    device.validation = true;
    device.on_validation_message = [&messages](const std::string& m) { messages.push_back(m); };
    std::unique_ptr<vkref::ReferenceRenderer> renderer = vkref::ReferenceRenderer::create(device);
    if (!renderer->supports_tessellation()) GTEST_SKIP() << renderer->device_name() << " lacks tessellationShader";
    const Scene& scene = tessellation_scene();
    vkref::ReferenceOptions options;
    options.width = 160;
    options.height = 90;
    renderer->upload(scene);
    renderer->render(scene.camera, options);
    options.cull_backface = false;
    renderer->render(scene.camera, options);
    options.samples = 4;
    if (std::find(renderer->supported_sample_counts().begin(), renderer->supported_sample_counts().end(), 4) !=
        renderer->supported_sample_counts().end()) {
      renderer->render(scene.camera, options);
    }
    options.samples = 1;
    renderer->render_timed(scene.camera, options, 1, nullptr);
    renderer->upload(scene);  // re-upload releases the previous patch buffers
    renderer->render(scene.camera, options);
  }
  for (const std::string& m : messages) ADD_FAILURE() << m;
}

// Malformed patch meshes are rejected with an error naming them; the renderer stays usable.
TEST(TessellationConformance, RejectsMalformedPatchMeshes) {
  if (!reference().supports_tessellation()) GTEST_SKIP() << reference().device_name() << " lacks tessellationShader";
  const Scene& good = tessellation_scene();
  auto expect_rejected = [&](Scene scene, const std::string& what) {
    try {
      reference().upload(scene);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("patch"), std::string::npos) << e.what();
    }
  };
  Scene bad_index = good;
  bad_index.patch_meshes[0].indices[5] = uint32_t(bad_index.patch_meshes[0].control_points.size());
  expect_rejected(bad_index, "an index past the control points");
  Scene bad_count = good;
  bad_count.patch_meshes[0].indices.pop_back();
  expect_rejected(bad_count, "an index count that is not a multiple of 16");
  Scene bad_kind = good;
  bad_kind.patch_meshes[1].control_points_per_patch = 4;
  expect_rejected(bad_kind, "PN triangles with 4 control points per patch");
  Scene bad_field = good;
  auto field = std::make_shared<Heightfield>(*bad_field.patch_meshes[2].displacement);
  field->normals.pop_back();
  bad_field.patch_meshes[2].displacement = field;
  expect_rejected(bad_field, "a height field missing a normal");
  Scene bad_instance = good;
  bad_instance.patch_instances[0].patch_mesh = 7;
  expect_rejected(bad_instance, "a patch instance of a missing patch mesh");
  reference().upload(good);
  vkref::ReferenceOptions options;
  options.width = 64;
  options.height = 36;
  reference().render(good.camera, options);
  EXPECT_GT(reference().last_stats().tessellation_evaluation_invocations, 0u);
}

}  // namespace
}  // namespace tessera
