// The shaders take their square roots, reciprocal square roots, divisions, pow and exp from the
// execution unit's math
// library: every frame's EU counters must match the work the shading formulas (shaders/lambert.h)
// call for, per stage, and add up across stages.
#include <gtest/gtest.h>

#include <string>

#include <glm/gtc/matrix_transform.hpp>

#include "tessera/renderer.h"

namespace tessera {
namespace {

// A quad facing the camera with a plain material; two lights of the given kinds.
Scene quad_scene(glm::vec3 specular, float fog_density, ToneMapping tone, bool point_light) {
  Scene scene;
  Mesh quad;
  quad.name = "quad";
  const glm::vec3 n(0.0f, 0.0f, 1.0f);
  quad.vertices = {{{-1.0f, -1.0f, 0.0f}, n, {0.0f, 0.0f}},
                   {{1.0f, -1.0f, 0.0f}, n, {1.0f, 0.0f}},
                   {{1.0f, 1.0f, 0.0f}, n, {1.0f, 1.0f}},
                   {{-1.0f, 1.0f, 0.0f}, n, {0.0f, 1.0f}}};
  quad.indices = {0, 1, 2, 0, 2, 3};
  compute_bounds(quad);
  scene.meshes.push_back(quad);
  Material m;
  m.name = "m";
  m.base_color = glm::vec3(0.6f, 0.4f, 0.2f);
  m.specular = specular;
  m.shininess = 40.0f;
  scene.materials.push_back(m);
  scene.instances.push_back(Instance{0, 0, glm::mat4(1.0f)});
  Light sun;
  sun.direction = glm::vec3(0.2f, -0.3f, -1.0f);
  scene.lights.push_back(sun);
  Light second = sun;
  if (point_light) {
    second.type = LightType::point;
    second.position = glm::vec3(0.5f, 0.5f, 2.0f);
    second.intensity = 3.0f;
  }
  scene.lights.push_back(second);
  scene.camera.position = glm::vec3(0.0f, 0.0f, 3.0f);
  scene.camera.target = glm::vec3(0.0f);
  scene.fog.density = fog_density;
  scene.tone_mapping = tone;
  return scene;
}

Stats render(const Scene& scene, int threads = 0) {
  Config cfg;
  cfg.frame.width = 96;
  cfg.frame.height = 64;
  cfg.frame.threads = threads;
  return Renderer(cfg).render(scene, scene.camera).stats;
}

uint64_t calls(const Stats& s, const std::string& stage, const char* fn) {
  return s.get_u64("eu.stage." + stage + ".math.calls." + fn);
}

TEST(ShaderEu, PlainLambertCallsRsqrtAndDivPerLivePixelAndVertex) {
  const Stats s = render(quad_scene(glm::vec3(0.0f), 0.0f, ToneMapping::clamp, true));
  const uint64_t live = s.get_u64("raster.fs.invocations") - s.get_u64("raster.fs.helper_invocations");
  const uint64_t vertices = s.get_u64("raster.vs.invocations");
  ASSERT_GT(live, 1000u);
  ASSERT_EQ(vertices, 4u);
  // Normal normalisation (rsqrt) and one point light (rsqrt for l, div for the attenuation).
  EXPECT_EQ(calls(s, "fragment", "rsqrt"), 2 * live);
  EXPECT_EQ(calls(s, "fragment", "div"), live);
  EXPECT_EQ(calls(s, "fragment", "sqrt"), 0u);
  EXPECT_EQ(calls(s, "fragment", "pow"), 0u);
  EXPECT_EQ(calls(s, "fragment", "exp"), 0u);
  // The vertex program normalises the normal once per invocation.
  EXPECT_EQ(calls(s, "vertex", "rsqrt"), vertices);
  EXPECT_EQ(calls(s, "vertex", "div"), 0u);
  EXPECT_EQ(s.get_u64("eu.stage.vertex.dynamic_instructions"),
            vertices * s.get_u64("shader.vertex.instructions_per_invocation"));
}

TEST(ShaderEu, HighlightsFogAndToneMappingAddTheirCalls) {
  const Stats s = render(quad_scene(glm::vec3(0.5f), 0.2f, ToneMapping::reinhard, false));
  const uint64_t live = s.get_u64("raster.fs.invocations") - s.get_u64("raster.fs.helper_invocations");
  ASSERT_GT(live, 1000u);
  // Two directional lights. rsqrt: normal, eye direction, one half-vector per light; sqrt: the
  // eye distance for fog.
  EXPECT_EQ(calls(s, "fragment", "rsqrt"), 4 * live);
  EXPECT_EQ(calls(s, "fragment", "sqrt"), live);
  // div: Reinhard per channel.
  EXPECT_EQ(calls(s, "fragment", "div"), 3 * live);
  EXPECT_EQ(calls(s, "fragment", "pow"), 2 * live);  // one highlight per light
  EXPECT_EQ(calls(s, "fragment", "exp"), live);      // fog
  const Stats e = render(quad_scene(glm::vec3(0.0f), 0.0f, ToneMapping::exponential, false));
  const uint64_t live_e = e.get_u64("raster.fs.invocations") - e.get_u64("raster.fs.helper_invocations");
  EXPECT_EQ(calls(e, "fragment", "exp"), 3 * live_e);  // per channel
  EXPECT_EQ(calls(e, "fragment", "pow"), 0u);
}

TEST(ShaderEu, FrameCountersAreTheSumOfTheStages) {
  const Stats s = render(quad_scene(glm::vec3(0.5f), 0.2f, ToneMapping::reinhard, true));
  uint64_t all = 0;
  for (const char* op : {"fma", "add", "mul", "getexp", "getmant", "scalef", "getexpdiff", "getmantdiv"}) {
    const uint64_t v = s.get_u64(std::string("eu.stage.vertex.instructions.") + op);
    const uint64_t f = s.get_u64(std::string("eu.stage.fragment.instructions.") + op);
    EXPECT_EQ(s.get_u64(std::string("eu.instructions.") + op), v + f) << op;
    all += v + f;
  }
  EXPECT_EQ(s.get_u64("eu.dynamic_instructions"), all);
  EXPECT_EQ(s.get_u64("eu.dynamic_instructions"),
            s.get_u64("eu.stage.vertex.dynamic_instructions") + s.get_u64("eu.stage.fragment.dynamic_instructions"));
  // The library's own opcodes appear: a frame of this scene is not just fma/mul/add.
  EXPECT_GT(s.get_u64("eu.instructions.getmant"), 0u);
  EXPECT_GT(s.get_u64("eu.instructions.scalef"), 0u);
  EXPECT_GT(s.get_u64("eu.fma.multiplier"), s.get_u64("eu.instructions.fma"));
}

// The fragment program's lanes on the modelled 16-lane EU: every invocation is a live, masked
// (covered, depth failed) or helper lane; a triangle's quads fill groups of four; live lanes
// are the pixels that called the library. A second quad behind the first makes masked lanes.
TEST(ShaderEu, LaneCountersAccountForEveryLane) {
  Scene scene = quad_scene(glm::vec3(0.0f), 0.0f, ToneMapping::clamp, true);
  // The front quad turned about the view axis: its edges cut the back quad's 2x2 quads.
  scene.instances[0].transform = glm::rotate(glm::mat4(1.0f), 0.4f, glm::vec3(0.0f, 0.0f, 1.0f));
  scene.instances.push_back(Instance{0, 0, glm::translate(glm::mat4(1.0f), glm::vec3(0.3f, 0.2f, -0.5f))});
  const Stats s = render(scene);
  const uint64_t invocations = s.get_u64("raster.fs.invocations");
  const uint64_t live = s.get_u64("raster.fs.lanes.live");
  const uint64_t masked = s.get_u64("raster.fs.lanes.masked");
  const uint64_t groups = s.get_u64("raster.fs.lane_groups");
  const uint64_t empty = s.get_u64("raster.fs.lanes.empty");
  ASSERT_GT(live, 1000u);
  EXPECT_GT(masked, 0u);
  EXPECT_EQ(live + masked + s.get_u64("raster.fs.helper_invocations"), invocations);
  EXPECT_EQ(16 * groups, invocations + empty);
  EXPECT_LE(empty, 12 * s.get_u64("raster.bins.entries"));  // only a triangle's last group is partial
  EXPECT_EQ(live, s.get_u64("raster.depth.passed"));        // 1x: a live pixel is a passed sample
  EXPECT_EQ(calls(s, "fragment", "rsqrt"), 2 * live);       // the library runs on live lanes only
  const Stats one = render(scene, 1);
  for (const char* k :
       {"raster.fs.lanes.live", "raster.fs.lanes.masked", "raster.fs.lane_groups", "raster.fs.lanes.empty"})
    EXPECT_EQ(one.get_u64(k), s.get_u64(k)) << k;
}

TEST(ShaderEu, CountersDoNotDependOnThreads) {
  const Scene scene = quad_scene(glm::vec3(0.5f), 0.2f, ToneMapping::reinhard, true);
  const Stats one = render(scene, 1);
  const Stats three = render(scene, 3);
  for (const auto& [k, v] : one.values()) {
    if (k.rfind("eu.", 0) == 0) {
      EXPECT_EQ(one.get_u64(k), three.get_u64(k)) << k;
    }
  }
}

}  // namespace
}  // namespace tessera
