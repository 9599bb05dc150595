// The tessellation stage on real patch meshes: closed-form counts, watertight surfaces across
// patch edges (every kind), hull culling through the GPP array, thread independence.
#include "pipeline/tessellation_stage.h"

#include <gtest/gtest.h>

#include <map>
#include <tbb/task_arena.h>
#include <tuple>

#include "tessera/procedural.h"
#include "tessera/renderer.h"
#include "tessera/stats.h"

namespace tessera {
namespace {

Scene patch_scene(PatchMesh mesh, glm::vec3 eye = glm::vec3(0.0f, 12.0f, 14.0f)) {
  Scene scene;
  scene.patch_meshes.push_back(std::move(mesh));
  Material m;
  m.name = "m";
  scene.materials.push_back(m);
  scene.patch_instances.push_back(PatchInstance{0, 0, glm::mat4(1.0f)});
  scene.camera.position = eye;
  scene.camera.target = glm::vec3(0.0f);
  scene.lights.push_back(Light{});
  return scene;
}

TessellationView view_of(const Camera& camera, int w = 640, int h = 360) {
  TessellationView v;
  v.view_projection = camera_matrices(camera, w, h).view_projection;
  v.eye = camera.position;
  v.viewport = glm::vec2(float(w), float(h));
  return v;
}

TessellationStageResult run(const Scene& scene, TessellationConfig config = {}, int threads = 2) {
  tbb::task_arena arena(threads);
  TessellationStageResult r;
  arena.execute([&] { r = run_tessellation_stage(scene, config, view_of(scene.camera)); });
  return r;
}

TEST(TessellationStage, ConstantEqualLevelsGiveTheClosedFormCounts) {
  BezierGridParams p;
  p.patches = 3;
  PatchMesh mesh = make_bezier_grid(p);
  mesh.tessellation.mode = TessFactorMode::constant;
  mesh.tessellation.spacing = TessSpacing::kEqual;
  mesh.tessellation.cull = false;
  for (int level : {1, 2, 7, 8, 64}) {
    mesh.tessellation.level = float(level);
    const TessellationStageResult r = run(patch_scene(mesh));
    const uint64_t n = uint64_t(level);
    EXPECT_EQ(r.patches, 9u);
    EXPECT_EQ(r.domain_points, 9 * (n + 1) * (n + 1)) << level;
    EXPECT_EQ(r.triangles, 9 * 2 * n * n) << level;
    ASSERT_EQ(r.meshes.size(), 1u);
    EXPECT_EQ(r.meshes[0].mesh.triangle_count(), r.triangles);
    EXPECT_EQ(r.meshes[0].mesh.vertices.size(), r.domain_points);
  }
  // PN triangles: 1.5 N^2 triangles for even N per patch.
  PatchMesh pn = make_pn_triangles(make_sphere(1.0f, 8, 4));
  pn.tessellation.mode = TessFactorMode::constant;
  pn.tessellation.spacing = TessSpacing::kEqual;
  pn.tessellation.level = 6;
  pn.tessellation.cull = false;
  const TessellationStageResult r = run(patch_scene(pn));
  EXPECT_EQ(r.triangles, pn.patch_count() * 54u);
}

// Edges of the triangle soup keyed by their end positions (bit patterns, unordered).
using Key = std::tuple<float, float, float>;
std::map<std::pair<Key, Key>, int> edge_uses(const Mesh& m) {
  std::map<std::pair<Key, Key>, int> uses;
  auto key = [&](uint32_t i) {
    const glm::vec3 p = m.vertices[i].position;
    return Key(p.x, p.y, p.z);
  };
  for (size_t t = 0; t < m.indices.size(); t += 3) {
    for (int e = 0; e < 3; ++e) {
      Key a = key(m.indices[t + size_t(e)]), b = key(m.indices[t + size_t((e + 1) % 3)]);
      if (b < a) std::swap(a, b);
      ++uses[{a, b}];
    }
  }
  return uses;
}

// Watertight: every edge inside the surface is used by exactly two triangles, by position; an
// edge used once must lie on the surface's own border (a crack between patches would show up
// as single-use edges inside).
void expect_watertight(const Mesh& m, float half_size, const char* what) {
  size_t inner_single = 0, more = 0;
  for (const auto& [edge, count] : edge_uses(m)) {
    if (count > 2) ++more;
    if (count != 1) continue;
    auto on_border = [&](const Key& k) {
      return std::fabs(std::fabs(std::get<0>(k)) - half_size) < 1e-3f ||
             std::fabs(std::fabs(std::get<2>(k)) - half_size) < 1e-3f;
    };
    if (!(on_border(edge.first) && on_border(edge.second))) ++inner_single;
  }
  EXPECT_EQ(inner_single, 0u) << what;
  EXPECT_EQ(more, 0u) << what;
}

TEST(TessellationStage, BezierAndDisplacedSurfacesAreWatertightWithAdaptiveLevels) {
  for (TessSpacing spacing : {TessSpacing::kEqual, TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven}) {
    BezierGridParams p;
    p.size = 12.0f;
    p.patches = 4;
    p.height = 3.0f;
    PatchMesh bezier = make_bezier_grid(p);
    bezier.tessellation.mode = TessFactorMode::edge_length;  // a different level on every edge
    bezier.tessellation.edge_pixels = 7.0f;
    bezier.tessellation.spacing = spacing;
    bezier.tessellation.cull = false;
    const TessellationStageResult r = run(patch_scene(bezier));
    ASSERT_EQ(r.meshes.size(), 1u);
    expect_watertight(r.meshes[0].mesh, 6.0f, "bezier");

    TerrainParams t;
    t.size = 12.0f;
    t.resolution = 48;
    t.height = 2.0f;
    PatchMesh terrain = make_patch_terrain(t, 6);
    terrain.tessellation = bezier.tessellation;
    terrain.tessellation.mode = TessFactorMode::distance;
    terrain.tessellation.reference_distance = 12.0f;
    const TessellationStageResult rt = run(patch_scene(terrain));
    ASSERT_EQ(rt.meshes.size(), 1u);
    expect_watertight(rt.meshes[0].mesh, 6.0f, "terrain");
  }
}

TEST(TessellationStage, PnTrianglesAreWatertightOnAClosedMesh) {
  PatchMesh pn = make_pn_triangles(make_sphere(2.0f, 10, 6));
  pn.tessellation.mode = TessFactorMode::distance;
  pn.tessellation.reference_distance = 8.0f;
  pn.tessellation.level = 20.0f;
  pn.tessellation.cull = false;
  const TessellationStageResult r = run(patch_scene(pn, glm::vec3(0.0f, 3.0f, 7.0f)));
  ASSERT_EQ(r.meshes.size(), 1u);
  // A closed surface has no border: every edge is shared by two triangles. The sphere's seam
  // and poles duplicate vertices with different uvs but equal positions, so positions match.
  size_t single = 0;
  for (const auto& [edge, count] : edge_uses(r.meshes[0].mesh)) single += count == 1;
  EXPECT_EQ(single, 0u);
}

TEST(TessellationStage, HullCullsPatchesOutsideTheViewAndTheArrayDropsThem) {
  BezierGridParams p;
  p.size = 40.0f;
  p.patches = 8;
  PatchMesh mesh = make_bezier_grid(p);
  mesh.tessellation.mode = TessFactorMode::constant;
  mesh.tessellation.spacing = TessSpacing::kEqual;
  mesh.tessellation.level = 4;
  // Close to the surface, looking along it: many patches behind or beside the camera.
  Scene scene = patch_scene(mesh, glm::vec3(10.0f, 2.0f, 10.0f));
  scene.camera.target = glm::vec3(20.0f, 0.0f, 20.0f);
  const TessellationStageResult r = run(scene);
  EXPECT_GT(r.hull_culled, 10u);
  EXPECT_LT(r.hull_culled, r.patches);
  ASSERT_TRUE(r.onchip);
  uint64_t culled = 0, tessellated = 0;
  for (const auto& g : r.onchip->per_gpp) {
    culled += g[GppCounters::patches_culled];
    tessellated += g[GppCounters::patches_tessellated];
  }
  EXPECT_EQ(culled, r.hull_culled);
  EXPECT_EQ(tessellated, r.patches - r.hull_culled);
  EXPECT_EQ(r.triangles, (r.patches - r.hull_culled) * 32u);  // 2 x 4^2 per patch
  // Without culling every patch is tessellated.
  scene.patch_meshes[0].tessellation.cull = false;
  EXPECT_EQ(run(scene).hull_culled, 0u);
}

TEST(TessellationStage, ResultDoesNotDependOnThreadsOrGppCount) {
  TerrainParams t;
  t.size = 30.0f;
  t.resolution = 64;
  t.height = 5.0f;
  PatchMesh terrain = make_patch_terrain(t, 8);
  const Scene scene = patch_scene(terrain);
  TessellationConfig c1;
  c1.gpps = 1;
  TessellationConfig c8;
  c8.gpps = 8;
  const TessellationStageResult a = run(scene, c1, 1);
  const TessellationStageResult b = run(scene, c8, 3);
  ASSERT_EQ(a.meshes.size(), 1u);
  ASSERT_EQ(b.meshes.size(), 1u);
  const Mesh& ma = a.meshes[0].mesh;
  const Mesh& mb = b.meshes[0].mesh;
  ASSERT_EQ(ma.vertices.size(), mb.vertices.size());
  EXPECT_EQ(ma.indices, mb.indices);  // application order: the same primitives in the same order
  for (size_t i = 0; i < ma.vertices.size(); ++i) {
    ASSERT_EQ(ma.vertices[i].position, mb.vertices[i].position) << i;
    ASSERT_EQ(ma.vertices[i].normal, mb.vertices[i].normal) << i;
  }
  EXPECT_EQ(a.hull_math.instructions(), b.hull_math.instructions());
  EXPECT_EQ(a.domain_math.instructions(), b.domain_math.instructions());
  EXPECT_EQ(b.onchip->per_gpp.size(), 8u);
}

TEST(TessellationStage, FrameStatsAndGppMap) {
  BezierGridParams p;
  p.patches = 4;
  PatchMesh mesh = make_bezier_grid(p);
  mesh.tessellation.mode = TessFactorMode::constant;
  mesh.tessellation.spacing = TessSpacing::kEqual;
  mesh.tessellation.level = 6;
  mesh.tessellation.cull = false;
  const Scene scene = patch_scene(mesh);
  Config cfg;
  cfg.frame.width = 160;
  cfg.frame.height = 96;
  cfg.tessellation.gpps = 4;
  const Frame f = Renderer(cfg).render(scene, scene.camera);
  const Stats& s = f.stats;
  EXPECT_EQ(s.get_u64("tessellation.patches"), 16u);
  EXPECT_EQ(s.get_u64("tessellation.triangles"), 16u * 72u);
  EXPECT_EQ(s.get_u64("frame.triangles"), 16u * 72u);
  EXPECT_EQ(s.get_u64("geometry.gpp.onchip.gpps"), 4u);
  EXPECT_EQ(s.get_u64("geometry.gpp.onchip.all.primitives"), 16u * 72u);
  EXPECT_EQ(s.get_u64("geometry.gpp.onchip.offchip.bytes_written"), 0u);
  EXPECT_GT(s.get_u64("geometry.gpp.offchip.offchip.bytes_written"), 0u);
  // Round robin over 4 GPPs with 16 equal patches: 4 each.
  for (int g = 0; g < 4; ++g)
    EXPECT_EQ(s.get_u64("geometry.gpp.onchip.gpp" + std::to_string(g) + ".patches.tessellated"), 4u);
  EXPECT_GT(s.get_u64("eu.stage.domain.math.calls.rsqrt"), 0u);
  EXPECT_EQ(s.get_u64("eu.stage.domain.math.calls.rsqrt"),
            s.get_u64("tessellation.domain_points"));  // one normalisation each
  // The GPP map: four GPP colours on the surface.
  cfg.tessellation.gpp_map = true;
  const Frame map = Renderer(cfg).render(scene, scene.camera);
  std::map<uint32_t, int> colors;
  for (const Rgba8 px : map.color.pixels) ++colors[px];
  int big = 0;
  for (const auto& [c, n] : colors) big += n > 50;
  EXPECT_GE(big, 5);  // background + four GPPs
}

}  // namespace
}  // namespace tessera
