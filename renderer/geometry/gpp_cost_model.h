// Cost model of the GPP array: turns the counters a run produced (facts) into modelled cycles
// per GPP, the makespan, throughput and load balance (assumptions). docs/gpp.md explains the
// model and its default rates.
#pragma once

#include <span>
#include <vector>

#include "geometry/gpp_counters.h"

namespace tessera {

// Throughput rates of the units. Plain struct with documented defaults; rates are per clock of
// one unit unless marked shared.
struct GppCostRates {
  double tefe_patches_per_clock = 1.0;     // patch handles one TEFE culls and buffers per clock
  double dpm_generate_cycles = 2.0;        // TEFE cycles to build and launch one DPM
  double trb_bytes_per_clock = 32.0;       // shared: the TRB broadcasts this many bytes per clock
  double dpm_process_cycles = 1.0;         // TEBE cycles to process one DPM (every TEBE sees every DPM)
  double tebe_patches_per_clock = 0.5;     // patch setups one tessellator starts per clock
  double domain_points_per_clock = 4.0;    // domain points one tessellator emits per clock
  double offchip_bytes_per_clock = 128.0;  // shared: memory bandwidth available to redistribution
};

// Modelled time of one run.
struct GppTiming {
  double makespan_cycles = 0;          // max of every unit's busy time and the shared resources
  std::vector<double> tefe_cycles;     // per GPP: cull, DPM generation
  std::vector<double> busy_cycles;     // per GPP TEBE: DPM processing, patch setup, points, patch cost
  std::vector<double> idle_cycles;     // per GPP TEBE: makespan - busy
  double trb_cycles = 0;               // shared TRB occupancy
  double offchip_cycles = 0;           // shared memory occupancy for redistribution traffic
  double load_balance = 1;             // max / mean of TEBE busy cycles (1 = perfectly even)
  double domain_points_per_cycle = 0;  // modelled tessellation throughput of the whole array
};

// Charges the counters of one run. per_gpp has one entry per GPP; design holds the shared
// counts (TRB bytes, off-chip bytes).
GppTiming model_gpp_timing(std::span<const GppCounters> per_gpp, const GppDesignCounters& design,
                           const GppCostRates& rates);

}  // namespace tessera
