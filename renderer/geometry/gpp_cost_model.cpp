#include "geometry/gpp_cost_model.h"

#include <algorithm>

#include "tessera/error.h"

namespace tessera {

GppTiming model_gpp_timing(std::span<const GppCounters> per_gpp, const GppDesignCounters& design,
                           const GppCostRates& rates) {
  TS_CHECK(!per_gpp.empty(), "the GPP array has at least one GPP");
  TS_CHECK(rates.tefe_patches_per_clock > 0 && rates.trb_bytes_per_clock > 0 && rates.tebe_patches_per_clock > 0 &&
               rates.domain_points_per_clock > 0 && rates.offchip_bytes_per_clock > 0,
           "GPP cost rates must be positive");
  GppTiming t;
  double points = 0;
  for (const GppCounters& c : per_gpp) {
    t.tefe_cycles.push_back(double(c[GppCounters::patches_received]) / rates.tefe_patches_per_clock +
                            double(c[GppCounters::dpm_sent]) * rates.dpm_generate_cycles);
    t.busy_cycles.push_back(double(c[GppCounters::dpm_processed]) * rates.dpm_process_cycles +
                            double(c[GppCounters::patches_tessellated]) / rates.tebe_patches_per_clock +
                            double(c[GppCounters::domain_points]) / rates.domain_points_per_clock +
                            double(c[GppCounters::patch_cost_cycles]));
    points += double(c[GppCounters::domain_points]);
  }
  t.trb_cycles = double(design[GppDesignCounters::trb_bytes]) / rates.trb_bytes_per_clock;
  t.offchip_cycles =
      double(design[GppDesignCounters::offchip_bytes_written] + design[GppDesignCounters::offchip_bytes_read]) /
      rates.offchip_bytes_per_clock;
  const double max_tefe = *std::max_element(t.tefe_cycles.begin(), t.tefe_cycles.end());
  const double max_busy = *std::max_element(t.busy_cycles.begin(), t.busy_cycles.end());
  t.makespan_cycles = std::max({max_tefe, max_busy, t.trb_cycles, t.offchip_cycles});
  double sum_busy = 0;
  for (double b : t.busy_cycles) {
    sum_busy += b;
    t.idle_cycles.push_back(t.makespan_cycles - b);
  }
  const double mean_busy = sum_busy / double(per_gpp.size());
  t.load_balance = mean_busy > 0 ? max_busy / mean_busy : 1.0;
  t.domain_points_per_cycle = t.makespan_cycles > 0 ? points / t.makespan_cycles : 0.0;
  return t;
}

}  // namespace tessera
