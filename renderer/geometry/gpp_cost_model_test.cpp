#include "geometry/gpp_cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "geometry/gpp_array.h"

namespace tessera {
namespace {

TEST(GppCostModel, HandComputedCycles) {
  std::vector<GppCounters> gpps(2);
  gpps[0][GppCounters::patches_received] = 8;
  gpps[0][GppCounters::dpm_sent] = 2;
  gpps[0][GppCounters::dpm_processed] = 3;
  gpps[0][GppCounters::patches_tessellated] = 4;
  gpps[0][GppCounters::domain_points] = 100;
  gpps[0][GppCounters::patch_cost_cycles] = 10;
  gpps[1][GppCounters::dpm_processed] = 3;
  gpps[1][GppCounters::patches_tessellated] = 2;
  gpps[1][GppCounters::domain_points] = 20;
  GppDesignCounters design;
  design[GppDesignCounters::trb_bytes] = 64;
  design[GppDesignCounters::offchip_bytes_written] = 1000;
  design[GppDesignCounters::offchip_bytes_read] = 1000;
  const GppTiming t = model_gpp_timing(gpps, design, GppCostRates{});
  EXPECT_DOUBLE_EQ(t.tefe_cycles[0], 8.0 + 2 * 2.0);
  EXPECT_DOUBLE_EQ(t.tefe_cycles[1], 0.0);
  EXPECT_DOUBLE_EQ(t.busy_cycles[0], 3 * 1.0 + 4 / 0.5 + 100 / 4.0 + 10);  // 46
  EXPECT_DOUBLE_EQ(t.busy_cycles[1], 3 * 1.0 + 2 / 0.5 + 20 / 4.0);        // 12
  EXPECT_DOUBLE_EQ(t.trb_cycles, 2.0);
  EXPECT_DOUBLE_EQ(t.offchip_cycles, 2000.0 / 128.0);
  EXPECT_DOUBLE_EQ(t.makespan_cycles, 46.0);
  EXPECT_DOUBLE_EQ(t.idle_cycles[1], 34.0);
  EXPECT_DOUBLE_EQ(t.load_balance, 46.0 / 29.0);
  EXPECT_DOUBLE_EQ(t.domain_points_per_cycle, 120.0 / 46.0);
  GppCostRates slow_memory;
  slow_memory.offchip_bytes_per_clock = 10;
  EXPECT_DOUBLE_EQ(model_gpp_timing(gpps, design, slow_memory).makespan_cycles, 200.0);
}

// A displacement-mapped terrain of 64 x 64 unit quad patches seen from a camera above one
// corner, with distance-adaptive edge levels (160 / distance to the edge midpoint, so 64 near
// the camera and under 2 at the far corner) and the hull shader's view-cone cull (outer level
// 0 outside a cone of 34 degrees either side of the view direction: the strips along the two
// grid edges that meet at the camera's corner). Drawn chunk by chunk (8 x 8 patches per chunk), as terrain
// engines do, so consecutive batches have very different costs.
std::vector<GppPatch> uneven_terrain() {
  constexpr int kGrid = 64, kChunk = 8;
  constexpr float kHalfCone = 0.6f;  // radians, about 34 degrees either side of the view direction
  const glm::vec3 eye(-2.0f, -2.0f, 1.5f);
  const glm::vec2 view_dir = glm::normalize(glm::vec2(1.0f, 1.0f));
  auto level = [&](float x, float y) {
    return std::clamp(160.0f / glm::length(glm::vec3(x, y, 0.0f) - eye), 1.0f, 64.0f);
  };
  std::vector<GppPatch> patches;
  for (int cy = 0; cy < kGrid / kChunk; ++cy)
    for (int cx = 0; cx < kGrid / kChunk; ++cx)
      for (int py = 0; py < kChunk; ++py)
        for (int px = 0; px < kChunk; ++px) {
          const float x = float(cx * kChunk + px), y = float(cy * kChunk + py);
          GppPatch p;
          p.domain = TessDomain::kQuad;
          p.spacing = TessSpacing::kFractionalEven;
          // Edges u=0, v=0, u=1, v=1 of the patch [x, x+1] x [y, y+1].
          p.factors.outer = {level(x, y + 0.5f), level(x + 0.5f, y), level(x + 1, y + 0.5f), level(x + 0.5f, y + 1)};
          p.factors.inner = {std::max(p.factors.outer[1], p.factors.outer[3]),
                             std::max(p.factors.outer[0], p.factors.outer[2])};
          const glm::vec2 to_patch = glm::vec2(x + 0.5f, y + 0.5f) - glm::vec2(eye);
          if (glm::dot(glm::normalize(to_patch), view_dir) < std::cos(kHalfCone)) p.factors.outer[0] = 0.0f;
          p.id = uint32_t(patches.size());
          patches.push_back(p);
        }
  return patches;
}

// Modelled speedup over 1 GPP of each design and policy at N = 1, 2, 4, 8, 16, printed as the
// table docs/gpp.md quotes.
struct SpeedupRow {
  GppDesign design;
  GppPolicy policy;
  double speedup[5];
  double balance[5];
};

std::vector<SpeedupRow> speedup_table(const std::vector<GppPatch>& patches, const char* title) {
  GppArrayConfig cfg;
  cfg.batch_size = 32;
  cfg.build_primitives = false;  // counts only: tess_counts gives tessellate()'s counts
  const int kCounts[] = {1, 2, 4, 8, 16};
  std::vector<SpeedupRow> rows = {{GppDesign::kOnChip, GppPolicy::kRoundRobin, {}, {}},
                                  {GppDesign::kOnChip, GppPolicy::kLeastLoaded, {}, {}},
                                  {GppDesign::kNoRedistribution, GppPolicy::kRoundRobin, {}, {}},
                                  {GppDesign::kOffChip, GppPolicy::kRoundRobin, {}, {}}};
  std::printf("%s, %zu patches, batch %d: speedup over 1 GPP (load balance max/mean)\n", title, patches.size(),
              cfg.batch_size);
  for (SpeedupRow& row : rows) {
    double base = 0;
    cfg.policy = row.policy;
    for (int ni = 0; ni < 5; ++ni) {
      cfg.gpp_count = kCounts[ni];
      const GppRunResult r = run_gpp_array(row.design, patches, cfg);
      if (ni == 0) {
        base = r.timing.makespan_cycles;
        std::printf("  [%s %s: 1 GPP %.0f cycles, off-chip %llu bytes written, %llu read, TRB %llu bytes]\n",
                    std::string(gpp_design_name(row.design)).c_str(), std::string(gpp_policy_name(row.policy)).c_str(),
                    base, (unsigned long long)r.totals[GppDesignCounters::offchip_bytes_written],
                    (unsigned long long)r.totals[GppDesignCounters::offchip_bytes_read],
                    (unsigned long long)r.totals[GppDesignCounters::trb_bytes]);
      }
      row.speedup[ni] = base / r.timing.makespan_cycles;
      row.balance[ni] = r.timing.load_balance;
    }
    std::printf("  %-9s %-12s", std::string(gpp_design_name(row.design)).c_str(),
                std::string(gpp_policy_name(row.policy)).c_str());
    for (int ni = 0; ni < 5; ++ni) std::printf("  N=%-2d %5.2fx (%.2f)", kCounts[ni], row.speedup[ni], row.balance[ni]);
    std::printf("\n");
  }
  return rows;
}

TEST(GppCostModel, UnevenTerrainSpeedup) {
  const std::vector<SpeedupRow> rows = speedup_table(uneven_terrain(), "uneven terrain");
  // rows: onchip round-robin, onchip least-loaded, no redistribution, off-chip; column 3 is N = 8.
  EXPECT_GE(rows[1].speedup[3], 7.0) << "on-chip redistribution, cost-weighted, 8 GPPs";
  EXPECT_GE(rows[0].speedup[3], 6.0) << "on-chip redistribution, round-robin, 8 GPPs";
  EXPECT_LT(rows[2].speedup[3], 0.7 * rows[1].speedup[3]) << "no redistribution stays far lower";
  EXPECT_LT(rows[3].speedup[3], 0.7 * rows[1].speedup[3]) << "off-chip redistribution is bandwidth-bound";
}

}  // namespace
}  // namespace tessera
