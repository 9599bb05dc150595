// `tessera bench tess`: the tessellator's throughput on this CPU, and the GPP array's
// modelled speedup on a uniform and on a very uneven patch stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// One domain and spacing: random mixed factors in [1, 64], tessellated on one core.
struct TessThroughputReport {
  std::string domain;   // "tri", "quad", "isoline"
  std::string spacing;  // "equal", "fractional_odd", "fractional_even"
  uint64_t patches = 0;
  uint64_t points = 0;
  uint64_t primitives = 0;
  double seconds = 0;
  double points_per_second = 0;
  double primitives_per_second = 0;
};

// Tessellates for about `seconds_per_case` of wall time per case (at least one pass over the
// patch set), single-threaded.
std::vector<TessThroughputReport> run_tessellator_throughput(double seconds_per_case, uint64_t seed);

// One workload, design, policy and GPP count through the GPP array model.
struct GppSpeedupReport {
  std::string workload;  // "uniform" (64x64 quad patches at level 16), "uneven_terrain"
  std::string design;    // "onchip", "noredist", "offchip"
  std::string policy;    // "roundrobin", "leastloaded"
  int gpp_count = 1;
  uint64_t patches = 0;
  double makespan_cycles = 0;
  double speedup = 0;       // 1-GPP makespan of the same design / this makespan
  double vs_noredist = 0;   // no-redistribution makespan at the same N / this makespan
  double load_balance = 1;  // max / mean TEBE busy cycles
  uint64_t trb_bytes = 0;
  uint64_t offchip_bytes = 0;  // written + read
};

std::vector<GppSpeedupReport> run_gpp_speedups(int batch_size);

}  // namespace tessera
