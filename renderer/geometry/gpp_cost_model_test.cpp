#include "geometry/gpp_cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "geometry/gpp_array.h"
#include "geometry/gpp_workloads.h"

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
  const std::vector<SpeedupRow> rows = speedup_table(uneven_terrain_patches(), "uneven terrain");
  // rows: onchip round-robin, onchip least-loaded, no redistribution, off-chip; column 3 is N = 8.
  EXPECT_GE(rows[1].speedup[3], 7.0) << "on-chip redistribution, cost-weighted, 8 GPPs";
  EXPECT_GE(rows[0].speedup[3], 6.0) << "on-chip redistribution, round-robin, 8 GPPs";
  EXPECT_LT(rows[2].speedup[3], 0.7 * rows[1].speedup[3]) << "no redistribution stays far lower";
  EXPECT_LT(rows[3].speedup[3], 0.7 * rows[1].speedup[3]) << "off-chip redistribution is bandwidth-bound";
}

}  // namespace
}  // namespace tessera
