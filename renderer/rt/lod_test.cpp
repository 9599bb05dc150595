// LOD nodes in the BVH: selection at each range value, biases and path length, the discard
// interval, ray-type modes, jitter, residency policies and thread-count independence.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include "rt/bvh_layout.h"
#include "tessera/config.h"
#include "tessera/error.h"
#include "tessera/lod.h"
#include "tessera/procedural.h"
#include "tessera/memory_ledger.h"
#include "tessera/rt.h"
#include "tessera/rt_residency.h"
#include "tessera/scene.h"
#include "tessera/stats.h"

namespace tessera::rt {
namespace {

// A quad facing +z: half-size `half` at height z, two triangles.
Mesh quad(float half, float z, const std::string& name) {
  Mesh m;
  m.name = name;
  for (glm::vec2 p : {glm::vec2(-half, -half), glm::vec2(half, -half), glm::vec2(half, half), glm::vec2(-half, half)})
    m.vertices.push_back(Vertex{glm::vec3(p, z), glm::vec3(0, 0, 1), glm::vec2(0)});
  m.indices = {0, 1, 2, 0, 2, 3};
  compute_bounds(m);
  return m;
}

constexpr float kRanges[4] = {10.0f, 20.0f, 40.0f, 80.0f};

// `groups` LOD groups of 4 levels; level l of every group is a quad of half-size 1 - 0.2 l at
// z = -0.1 l (so the hit distance tells which level's geometry was traversed). Instance g of
// group g sits at x = 10 g. A plain wall (half-size 50) at z = -5 lies behind them all.
Scene lod_scene(int groups = 1, bool wall = true) {
  Scene s;
  s.materials.push_back(Material{});
  for (int g = 0; g < groups; ++g) {
    LodGroup group;
    group.name = "g" + std::to_string(g);
    for (int l = 0; l < 4; ++l) {
      group.levels.push_back(uint32_t(s.meshes.size()));
      s.meshes.push_back(quad(1.0f - 0.2f * float(l), -0.1f * float(l), group.name + "_" + std::to_string(l)));
      group.ranges.push_back(kRanges[l]);
    }
    s.lod_groups.push_back(group);
    Instance inst;
    inst.mesh = group.levels[0];
    inst.lod_group = g;
    inst.transform[3] = glm::vec4(10.0f * float(g), 0.0f, 0.0f, 1.0f);
    s.instances.push_back(inst);
  }
  if (wall) {
    Instance w;
    w.mesh = uint32_t(s.meshes.size());
    s.meshes.push_back(quad(50.0f, -5.0f, "wall"));
    s.instances.push_back(w);
  }
  return s;
}

// Unit-direction ray straight down at (x, y) whose entry into the LOD node's box (top at z = 0)
// is `distance` away.
Ray down(float distance, float x = 0.0f, float y = 0.0f) {
  Ray r;
  r.origin = glm::vec3(x, y, distance);
  r.direction = glm::vec3(0, 0, -1);
  return r;
}

TEST(RtLod, EachRangeValuePicksTheRightChild) {
  const auto as = AccelerationStructure::build(lod_scene());
  ASSERT_EQ(as.info().lod_nodes, 1u);
  const LodSettings settings;
  for (int i = 0; i < 4; ++i) {
    for (const float d : {kRanges[i] - 0.01f, kRanges[i] + 0.01f}) {
      Counters c;
      const Hit h = as.intersect(down(d), RayType::primary, RayLod{}, settings, c);
      ASSERT_TRUE(h.hit()) << d;
      EXPECT_EQ(c[Counters::nodes_lod], 1u);
      const int expect = d < kRanges[i] ? i : i + 1;
      if (expect < 4) {
        EXPECT_EQ(h.lod_level, expect) << "distance " << d;
        EXPECT_EQ(h.instance, 0u);
        EXPECT_NEAR(h.t, d + 0.1f * float(expect), 1e-4f) << "the level's own geometry was hit";
        EXPECT_EQ(c[Counters::Id(Counters::lod_level0 + expect)], 1u);
        EXPECT_EQ(c[Counters::lod_discards], 0u);
      } else {
        EXPECT_EQ(h.instance, 1u) << "beyond the last range the object is discarded; the wall behind is hit";
        EXPECT_EQ(h.lod_level, -1);
        EXPECT_EQ(c[Counters::lod_discards], 1u);
      }
    }
  }
}

TEST(RtLod, SelectLevelWalksTheRangeTable) {
  LodRecord node;
  node.level_count = 3;
  node.range[0] = 1.0f, node.range[1] = 2.0f, node.range[2] = 3.0f;
  const LodSettings s;
  EXPECT_EQ(select_lod_level(node, 0.0f, RayType::primary, {}, s), 0);
  EXPECT_EQ(select_lod_level(node, 1.0f, RayType::primary, {}, s), 1);  // [range[0], range[1]) -> 1
  EXPECT_EQ(select_lod_level(node, 2.999f, RayType::primary, {}, s), 2);
  EXPECT_EQ(select_lod_level(node, 3.0f, RayType::primary, {}, s), -1);
  node.bias = 1.5f;
  EXPECT_EQ(select_lod_level(node, 0.0f, RayType::primary, {}, s), 1);
}

TEST(RtLod, BiasAndPathLengthMoveTheChoice) {
  Scene scene = lod_scene();
  const auto as = AccelerationStructure::build(scene);
  auto level = [&](const AccelerationStructure& a, float d, RayLod lod, const LodSettings& s,
                   RayType type = RayType::primary) {
    Counters c;
    return a.intersect(down(d), type, lod, s, c).lod_level;
  };
  const LodSettings s;
  EXPECT_EQ(level(as, 5.0f, {}, s), 0);
  EXPECT_EQ(level(as, 5.0f, RayLod{10.0f, 0.0f, 0}, s), 1) << "path length 10: r = 15";
  EXPECT_EQ(level(as, 5.0f, RayLod{0.0f, 30.0f, 0}, s), 2) << "ray bias 30: r = 35";
  EXPECT_EQ(level(as, 5.0f, RayLod{30.0f, 30.0f, 0}, s), 3) << "both: r = 65";
  EXPECT_EQ(level(as, 15.0f, RayLod{0.0f, -10.0f, 0}, s), 0) << "negative bias: finer";
  LodSettings diffuse_coarser;
  diffuse_coarser.type_bias[size_t(RayType::diffuse)] = 20.0f;
  EXPECT_EQ(level(as, 5.0f, {}, diffuse_coarser, RayType::diffuse), 2) << "diffuse rays r = 25";
  EXPECT_EQ(level(as, 5.0f, {}, diffuse_coarser, RayType::reflection), 0) << "mirror rays unchanged";
  // Node bias from the scene's LOD group.
  scene.lod_groups[0].bias = 16.0f;
  const auto biased = AccelerationStructure::build(scene);
  EXPECT_EQ(level(biased, 5.0f, {}, s), 2) << "node bias 16: r = 21";
  // LOD off: finest everywhere, never discarded.
  LodSettings off;
  off.enabled = false;
  EXPECT_EQ(level(as, 500.0f, {}, off), 0);
}

TEST(RtLod, DiscardIntervalTerminatesTheObject) {
  const auto as = AccelerationStructure::build(lod_scene(1, true));
  Counters lod_c, wall_c;
  const Hit h = as.intersect(down(100.0f), RayType::primary, RayLod{}, LodSettings{}, lod_c);
  ASSERT_TRUE(h.hit());
  EXPECT_EQ(h.instance, 1u);
  EXPECT_NEAR(h.t, 105.0f, 1e-3f);
  EXPECT_EQ(lod_c[Counters::lod_discards], 1u);
  EXPECT_EQ(lod_c[Counters::nodes_instance], 1u) << "only the wall was entered";
  EXPECT_EQ(lod_c[Counters::triangles_tested], 2u) << "only the wall's triangles were tested";
  // Without the wall the ray finds nothing.
  const auto lone = AccelerationStructure::build(lod_scene(1, false));
  Counters c;
  EXPECT_FALSE(lone.intersect(down(100.0f), RayType::primary, RayLod{}, LodSettings{}, c).hit());
  EXPECT_FALSE(lone.occluded(down(100.0f), RayType::shadow, RayLod{}, LodSettings{}, c));
  EXPECT_EQ(c[Counters::lod_discards], 2u);
  EXPECT_EQ(c[Counters::triangles_tested], 0u);
}

TEST(RtLod, RayTypeModeForcesTheLevel) {
  const auto as = AccelerationStructure::build(lod_scene(1, false));
  // At x = 0.7 the finest level (half-size 1) occludes, the coarsest (0.4) does not.
  const Ray shadow = down(5.0f, 0.7f);
  LodSettings distance;
  Counters c0;
  EXPECT_TRUE(as.occluded(shadow, RayType::shadow, RayLod{}, distance, c0));
  EXPECT_EQ(c0[Counters::lod_level0], 1u);
  LodSettings coarse_shadows;
  coarse_shadows.forced_level[size_t(RayType::shadow)] = kLodCoarsest;
  Counters c1;
  EXPECT_FALSE(as.occluded(shadow, RayType::shadow, RayLod{}, coarse_shadows, c1));
  EXPECT_EQ(c1[Counters::lod_level3], 1u);
  EXPECT_EQ(c1[Counters::lod_forced], 1u);
  EXPECT_TRUE(as.occluded(down(5.0f), RayType::shadow, RayLod{}, coarse_shadows, c1));
  // Primary rays keep the distance choice; a forced level also overrides the discard interval.
  Counters c2;
  EXPECT_EQ(as.intersect(down(5.0f), RayType::primary, RayLod{}, coarse_shadows, c2).lod_level, 0);
  EXPECT_EQ(c2[Counters::lod_forced], 0u);
  LodSettings level1;
  level1.forced_level[size_t(RayType::primary)] = 1;
  const Hit h = as.intersect(down(500.0f), RayType::primary, RayLod{}, level1, c2);
  EXPECT_EQ(h.lod_level, 1);
  EXPECT_NEAR(h.t, 500.1f, 1e-3f);
}

TEST(RtLod, JitterBlendsLevelsAcrossTheTransitionDeterministically) {
  const auto as = AccelerationStructure::build(lod_scene(1, false));
  LodSettings s;
  s.jitter = 10.0f;  // r = d + 10 (u - 1/2): at d = 20 half the rays fall on each side of range 20
  int level1 = 0, level2 = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    Counters c;
    const int l = as.intersect(down(20.0f), RayType::primary, RayLod{0, 0, seed}, s, c).lod_level;
    Counters again;
    EXPECT_EQ(as.intersect(down(20.0f), RayType::primary, RayLod{0, 0, seed}, s, again).lod_level, l);
    level1 += l == 1;
    level2 += l == 2;
  }
  EXPECT_EQ(level1 + level2, 2000);
  EXPECT_GT(level1, 850);
  EXPECT_GT(level2, 850);
  // Outside the band jitter changes nothing.
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Counters c;
    EXPECT_EQ(as.intersect(down(15.0f), RayType::primary, RayLod{0, 0, seed}, s, c).lod_level, 1);
  }
}

TEST(RtResidency, LazySubstitutesMarksWantedAndLoadsForTheNextFrame) {
  const auto as = AccelerationStructure::build(lod_scene());
  Residency res(as, ResidencyPolicy::lazy, uint64_t(1) << 30);
  for (int l = 0; l < 3; ++l) EXPECT_FALSE(res.resident(0, l));
  EXPECT_TRUE(res.resident(0, 3)) << "the coarsest level stays resident";
  LodSettings s;
  s.residency = &res;
  Counters c;
  Hit h = as.intersect(down(5.0f), RayType::primary, RayLod{}, s, c);
  EXPECT_EQ(h.lod_level, 3) << "substituted by the resident (coarser) level";
  EXPECT_NEAR(h.t, 5.3f, 1e-4f);
  EXPECT_EQ(c[Counters::lod_substitutions], 1u);
  EXPECT_TRUE(res.wanted(0, 0));
  EXPECT_TRUE(res.used(0, 3));
  EXPECT_FALSE(res.used(0, 0));
  const ResidencyFrame f = res.end_frame();
  EXPECT_EQ(f.counts[ResidencyCounters::loads], 1u);
  EXPECT_EQ(f.counts[ResidencyCounters::loaded_bytes], res.level_bytes(0, 0));
  EXPECT_EQ(f.counts[ResidencyCounters::wanted_levels], 1u);
  EXPECT_TRUE(res.resident(0, 0));
  EXPECT_FALSE(res.wanted(0, 0)) << "registers clear after the frame";
  Counters c2;
  h = as.intersect(down(5.0f), RayType::primary, RayLod{}, s, c2);
  EXPECT_EQ(h.lod_level, 0) << "the next frame uses the wanted level";
  EXPECT_NEAR(h.t, 5.0f, 1e-4f);
  EXPECT_EQ(c2[Counters::lod_substitutions], 0u);
  EXPECT_TRUE(res.used(0, 0));
  EXPECT_EQ(res.end_frame().counts[ResidencyCounters::loads], 0u);
  // Ledger and stats.
  Stats stats;
  Residency::publish(f, stats);
  MemoryLedger ledger;
  Residency::record(f, ledger);
  record(c, ledger);
  EXPECT_EQ(ledger.written[size_t(MemoryClient::rt)], f.counts[ResidencyCounters::loaded_bytes]);
  EXPECT_EQ(ledger.read[size_t(MemoryClient::rt)],
            c[Counters::node_bytes] + c[Counters::triangle_bytes] + c[Counters::lod_bytes]);
  EXPECT_GT(c[Counters::lod_bytes], 0u);
}

TEST(RtResidency, LazyStaysWithinBudgetAndReportsWhatItWouldHaveNeeded) {
  const int groups = 6;
  const auto as = AccelerationStructure::build(lod_scene(groups, false));
  const uint64_t level0 = Residency(as, ResidencyPolicy::all_resident, 0).level_bytes(0, 0);
  Residency probe(as, ResidencyPolicy::lazy, uint64_t(1) << 40);
  const uint64_t start = probe.resident_bytes();            // base + the coarsest levels
  const uint64_t budget = start + 2 * level0 + level0 / 2;  // room for two finest levels
  Residency res(as, ResidencyPolicy::lazy, budget);
  LodSettings s;
  s.residency = &res;
  uint64_t needed = 0;
  for (int frame = 0; frame < 3; ++frame) {
    Counters c;
    for (int g = 0; g < groups; ++g) as.intersect(down(5.0f, 10.0f * float(g)), RayType::primary, RayLod{}, s, c);
    const ResidencyFrame f = res.end_frame();
    EXPECT_LE(f.resident_bytes, budget) << "frame " << frame;
    EXPECT_LE(f.peak_bytes, budget);
    EXPECT_GT(f.needed_bytes, budget) << "the frame wanted more than fits";
    if (frame == 0) {
      EXPECT_EQ(f.counts[ResidencyCounters::loads], 2u);
      EXPECT_EQ(f.counts[ResidencyCounters::deferred], uint64_t(groups - 2));
      needed = f.needed_bytes;
      EXPECT_EQ(needed, start + uint64_t(groups) * level0) << "base, coarsest levels used, finest wanted";
    }
  }
  // Demand loading serves every ray its level at once (stalls) and trims after the frame.
  Residency demand(as, ResidencyPolicy::demand, budget);
  s.residency = &demand;
  Counters c;
  for (int g = 0; g < groups; ++g)
    EXPECT_EQ(as.intersect(down(5.0f, 10.0f * float(g)), RayType::primary, RayLod{}, s, c).lod_level, 0);
  EXPECT_EQ(c[Counters::lod_substitutions], 0u);
  const ResidencyFrame f = demand.end_frame();
  EXPECT_EQ(f.counts[ResidencyCounters::stall_loads], uint64_t(groups));
  EXPECT_EQ(f.peak_bytes, demand.base_bytes() + uint64_t(groups) * level0);
  EXPECT_LE(f.resident_bytes, budget + level0) << "trimmed back toward the budget";
}

// Residency::select answers a resident wanted level inline and everything else out of line;
// both together must follow the rules for every policy: checked call by call against a model
// built from the registers and resident set just before the call, on random calls.
TEST(RtResidency, SelectFollowsTheRulesCallByCall) {
  const int groups = 3;
  const auto as = AccelerationStructure::build(lod_scene(groups, false));
  for (ResidencyPolicy policy : {ResidencyPolicy::all_resident, ResidencyPolicy::demand, ResidencyPolicy::lazy}) {
    Residency res(as, policy, uint64_t(1) << 30);
    uint64_t state = 12345;
    auto next = [&] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
    for (int frame = 0; frame < 6; ++frame) {
      for (int call = 0; call < 40; ++call) {
        const uint32_t object = uint32_t(next() % groups);
        const int wanted = int(next() % 4);
        bool resident[4], used[4], want[4];
        for (int l = 0; l < 4; ++l)
          resident[l] = res.resident(object, l), used[l] = res.used(object, l), want[l] = res.wanted(object, l);
        int expect = -1;
        bool expect_sub = false;
        if (resident[wanted] || policy == ResidencyPolicy::demand) {
          expect = wanted;
        } else {
          for (int l = wanted + 1; l < 4 && expect < 0; ++l)
            if (resident[l]) expect = l;
          for (int l = wanted - 1; l >= 0 && expect < 0; --l)
            if (resident[l]) expect = l;
          expect_sub = expect >= 0;
          want[wanted] = true;
        }
        if (expect >= 0) used[expect] = true;
        bool sub = true;
        const int got = res.select(object, wanted, sub);
        ASSERT_EQ(got, expect) << residency_policy_name(policy) << " frame " << frame << " call " << call;
        EXPECT_EQ(sub, expect_sub);
        EXPECT_TRUE(res.resident(object, got));
        for (int l = 0; l < 4; ++l) {
          EXPECT_EQ(res.used(object, l), used[l]) << "level " << l;
          EXPECT_EQ(res.wanted(object, l), want[l]) << "level " << l;
        }
      }
      (void)res.end_frame();
    }
  }
}

TEST(RtResidency, SameResultsForAnyThreadCount) {
  const int groups = 5;
  const auto as = AccelerationStructure::build(lod_scene(groups, true));
  std::vector<Ray> rays;
  std::vector<RayLod> lod;
  for (int i = 0; i < 3000; ++i) {
    const float x = -2.0f + float(i % 60) * 0.8f, y = -1.0f + float(i / 60) * 0.04f;
    rays.push_back(down(2.0f + float(i % 97), x, y));
    lod.push_back(RayLod{float(i % 7), float(i % 5) - 2.0f, uint64_t(i)});
  }
  auto run = [&](int threads, std::vector<Hit>& hits, std::vector<uint8_t>& occ, Counters& c,
                 std::vector<ResidencyFrame>& frames) {
    Residency res(as, ResidencyPolicy::lazy, uint64_t(1) << 30);
    LodSettings s;
    s.jitter = 4.0f;
    s.residency = &res;
    s.forced_level[size_t(RayType::shadow)] = 2;
    tbb::task_arena arena(threads);
    arena.execute([&] {
      for (int frame = 0; frame < 2; ++frame) {
        hits.resize(rays.size());
        occ.resize(rays.size());
        as.intersect(rays, lod, hits, RayType::primary, s, c);
        as.occluded(rays, {}, occ, RayType::shadow, s, c);
        frames.push_back(res.end_frame());
      }
    });
  };
  std::vector<Hit> h1, h4;
  std::vector<uint8_t> o1, o4;
  Counters c1, c4;
  std::vector<ResidencyFrame> f1, f4;
  run(1, h1, o1, c1, f1);
  run(4, h4, o4, c4, f4);
  EXPECT_EQ(c1.v, c4.v);
  EXPECT_GT(c1[Counters::lod_substitutions], 0u);
  EXPECT_GT(c1[Counters::lod_discards], 0u);
  ASSERT_EQ(f1.size(), f4.size());
  for (size_t i = 0; i < f1.size(); ++i) {
    EXPECT_EQ(f1[i].counts[ResidencyCounters::loads], f4[i].counts[ResidencyCounters::loads]);
    EXPECT_EQ(f1[i].resident_bytes, f4[i].resident_bytes);
    EXPECT_EQ(f1[i].counts[ResidencyCounters::used_levels], f4[i].counts[ResidencyCounters::used_levels]);
    EXPECT_EQ(f1[i].counts[ResidencyCounters::wanted_levels], f4[i].counts[ResidencyCounters::wanted_levels]);
  }
  EXPECT_EQ(o1, o4);
  for (size_t i = 0; i < h1.size(); ++i) {
    EXPECT_EQ(h1[i].t, h4[i].t) << i;
    EXPECT_EQ(h1[i].lod_level, h4[i].lod_level) << i;
    EXPECT_EQ(h1[i].instance, h4[i].instance) << i;
  }
}

TEST(RtLod, NormalsAndBadInput) {
  Scene scene = lod_scene(1, false);
  const auto as = AccelerationStructure::build(scene);
  Counters c;
  const Hit h = as.intersect(down(15.0f), RayType::primary, RayLod{}, LodSettings{}, c);
  ASSERT_EQ(h.lod_level, 1);
  EXPECT_GT(as.geometric_normal(h).z, 0.0f);
  EXPECT_THROW(parse_choice<ResidencyPolicy>("rt.residency", "sometimes"), Error);
  EXPECT_EQ(parse_choice<ResidencyPolicy>("rt.residency", "lazy"), ResidencyPolicy::lazy);
  Scene bad = scene;
  bad.lod_groups[0].ranges = {10.0f, 5.0f, 40.0f, 80.0f};
  EXPECT_THROW(AccelerationStructure::build(bad), Error);
  bad = scene;
  bad.lod_groups[0].ranges.pop_back();
  EXPECT_THROW(AccelerationStructure::build(bad), Error);
  bad = scene;
  bad.instances[0].lod_group = 3;
  EXPECT_THROW(AccelerationStructure::build(bad), Error);
  bad = scene;
  bad.lod_groups[0].levels[2] = 99;
  EXPECT_THROW(AccelerationStructure::build(bad), Error);
}

}  // namespace
}  // namespace tessera::rt

namespace tessera::rt {
namespace {

TEST(RtResidency, SettingsFromTheConfig) {
  const Config c = config_from_json_text(
      R"({"rt": {"lod": true, "residency": "lazy", "budget_mib": 2, "lod_jitter": 3, "diffuse_lod_bias": 7,
                 "shadow_lod_level": 3}})",
      "test");
  EXPECT_EQ(residency_policy(c.rt), ResidencyPolicy::lazy);
  EXPECT_EQ(residency_budget_bytes(c.rt), uint64_t(2) << 20);
  const LodSettings s = lod_settings(c.rt, nullptr);
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.jitter, 3.0f);
  EXPECT_EQ(s.type_bias[size_t(RayType::diffuse)], 7.0f);
  EXPECT_EQ(s.forced_level[size_t(RayType::shadow)], 3);
  EXPECT_EQ(s.forced_level[size_t(RayType::primary)], kLodByDistance);
  EXPECT_THROW(config_from_json_text(R"({"rt": {"residency": "never"}})", "test"), Error);
  EXPECT_THROW(config_from_json_text(R"({"rt": {"budget_mib": 0}})", "test"), Error);
  EXPECT_THROW(config_from_json_text(R"({"rt": {"shadow_lod_level": 4}})", "test"), Error);
  EXPECT_THROW(config_from_json_text(R"({"rt": {"lods": true}})", "test"), Error);
  const Config round = config_from_json_text(config_to_json_text(c), "round trip");
  EXPECT_EQ(round.rt.residency, ResidencyPolicy::lazy);
  EXPECT_EQ(round.rt.shadow_lod_level, 3);
}

}  // namespace
}  // namespace tessera::rt

namespace tessera::rt {
namespace {

TEST(RtLod, PerObjectCameraLevelsMatchTheRasterizersChoice) {
  const auto as = AccelerationStructure::build(lod_scene(3, false));
  // Eye above object 0 at height 15: distances to the centres (x = 0, 10, 20; z ~ 0) are
  // 15, ~18 and ~25.
  const std::vector<int8_t> levels = as.camera_lod_levels(glm::vec3(0, 0, 15));
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0], 1);
  EXPECT_EQ(levels[1], 1);
  EXPECT_EQ(levels[2], 2);
  EXPECT_EQ(as.camera_lod_levels(glm::vec3(0, 0, 500))[0], -1);
  LodSettings s;
  s.object_levels = levels;
  Counters c;
  // A ray from right above object 2 still uses the per-object level (2), not its own distance.
  EXPECT_EQ(as.intersect(down(1.0f, 20.0f), RayType::primary, RayLod{}, s, c).lod_level, 2);
  const std::vector<int8_t> too_few(1, 0);
  s.object_levels = too_few;
  EXPECT_THROW(as.intersect(down(1.0f), RayType::primary, RayLod{}, s, c), Error);
}

}  // namespace
}  // namespace tessera::rt

namespace tessera::rt {
namespace {

// LOD off traces exactly what a structure of the finest levels alone traces (the structure the
// Embree agreement tests check), though the top level holds LOD nodes with combined boxes.
TEST(RtLod, LodOffMatchesTheFinestLevelsExactly) {
  Scene scene;
  scene.materials.push_back(Material{});
  scene.meshes.push_back(make_torus(1.0f, 0.35f, 48, 24));
  LodGroup group;
  group.name = "torus";
  group.levels = {0};
  for (Mesh& m : simplify_lod_levels(scene.meshes[0], 4)) {
    group.levels.push_back(uint32_t(scene.meshes.size()));
    scene.meshes.push_back(std::move(m));
  }
  group.ranges = {3, 6, 12, 24};
  scene.lod_groups.push_back(group);
  for (int i = 0; i < 12; ++i) {
    Instance inst;
    inst.lod_group = 0;
    inst.transform = glm::mat4(1.0f);
    inst.transform[0][0] = inst.transform[1][1] = inst.transform[2][2] = 1.0f + 0.1f * float(i % 3);
    inst.transform[3] = glm::vec4(float(i % 4) * 3.0f, float(i / 4) * 2.5f, -float(i) * 2.0f, 1.0f);
    scene.instances.push_back(inst);
  }
  Scene plain = scene;
  for (Instance& inst : plain.instances) inst.lod_group = -1;
  plain.lod_groups.clear();
  const auto lod = AccelerationStructure::build(scene);
  const auto finest = AccelerationStructure::build(plain);
  ASSERT_EQ(lod.info().lod_nodes, 12u);
  ASSERT_EQ(finest.info().lod_nodes, 0u);
  LodSettings off;
  off.enabled = false;
  uint64_t seed = 12345, hits = 0;
  auto rnd = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return float(seed >> 40) * 0x1.0p-24f;
  };
  for (int i = 0; i < 4000; ++i) {
    Ray r;
    r.origin = glm::vec3(rnd() * 12.0f - 2.0f, rnd() * 8.0f - 1.0f, 6.0f);
    r.direction = glm::vec3(rnd() - 0.5f, rnd() - 0.5f, -1.0f);
    Counters a, b;
    const Hit x = lod.intersect(r, RayType::primary, RayLod{}, off, a);
    const Hit y = finest.intersect(r, RayType::primary, b);
    ASSERT_EQ(x.hit(), y.hit()) << i;
    if (!x.hit()) continue;
    ++hits;
    EXPECT_EQ(x.t, y.t) << i;
    EXPECT_EQ(x.instance, y.instance) << i;
    EXPECT_EQ(x.primitive, y.primitive) << i;
    EXPECT_EQ(x.lod_level, 0);
    EXPECT_EQ(lod.occluded(r, RayType::shadow, RayLod{}, off, a), finest.occluded(r, RayType::shadow, b)) << i;
  }
  EXPECT_GT(hits, 400u);
  // With LOD on the far instances use coarser levels.
  Counters c;
  for (int i = 0; i < 500; ++i) {
    Ray r;
    r.origin = glm::vec3(rnd() * 12.0f - 2.0f, rnd() * 8.0f - 1.0f, 6.0f);
    r.direction = glm::vec3(rnd() - 0.5f, rnd() - 0.5f, -1.0f);
    lod.intersect(r, RayType::primary, RayLod{}, LodSettings{}, c);
  }
  EXPECT_GT(c[Counters::lod_level1] + c[Counters::lod_level2] + c[Counters::lod_level3], 0u);
}

}  // namespace
}  // namespace tessera::rt
