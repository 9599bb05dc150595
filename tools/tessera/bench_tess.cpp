// `tessera bench tess`: tessellator throughput per domain and spacing on one core, and the
// GPP array's modelled speedup for N = 1..16 on a uniform and a very uneven patch stream,
// against the no-redistribution baseline.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "bench/tess_bench.h"
#include "commands.h"
#include "files.h"

namespace tessera::cli {

int run_tess_bench(const BenchArgs& args) {
  nlohmann::ordered_json throughput = nlohmann::ordered_json::array();
  const double seconds = 0.1 * std::max(1, args.repetitions);
  std::printf("Tessellator, one core, random factors in [1, 64] (%.1f s per case)\n", seconds);
  std::printf("  %-8s %-16s %10s %14s %14s\n", "domain", "spacing", "patches", "points/s", "primitives/s");
  for (const TessThroughputReport& r : run_tessellator_throughput(seconds, 1)) {
    std::printf("  %-8s %-16s %10llu %14.4g %14.4g\n", r.domain.c_str(), r.spacing.c_str(),
                (unsigned long long)r.patches, r.points_per_second, r.primitives_per_second);
    throughput.push_back({{"domain", r.domain},
                          {"spacing", r.spacing},
                          {"patches", r.patches},
                          {"points", r.points},
                          {"primitives", r.primitives},
                          {"seconds", r.seconds},
                          {"points_per_second", r.points_per_second},
                          {"primitives_per_second", r.primitives_per_second}});
  }
  std::fflush(stdout);
  nlohmann::ordered_json gpp = nlohmann::ordered_json::array();
  const int batch = 32;
  std::printf(
      "\nGPP array model, batch %d: speedup over 1 GPP of the same design; [x no-redistribution at the same N]; "
      "(load balance max/mean)\n",
      batch);
  std::string current;
  for (const GppSpeedupReport& r : run_gpp_speedups(batch)) {
    const std::string row = r.workload + " " + r.design + " " + r.policy;
    if (row != current) {
      if (!current.empty()) std::printf("\n");
      std::printf("  %-15s %-9s %-12s", r.workload.c_str(), r.design.c_str(), r.policy.c_str());
      current = row;
    }
    std::printf("  N=%-2d %5.2fx [%4.2f] (%.2f)", r.gpp_count, r.speedup, r.vs_noredist, r.load_balance);
    gpp.push_back({{"workload", r.workload},
                   {"design", r.design},
                   {"policy", r.policy},
                   {"gpp_count", r.gpp_count},
                   {"patches", r.patches},
                   {"makespan_cycles", r.makespan_cycles},
                   {"speedup", r.speedup},
                   {"vs_noredist", r.vs_noredist},
                   {"load_balance", r.load_balance},
                   {"trb_bytes", r.trb_bytes},
                   {"offchip_bytes", r.offchip_bytes}});
  }
  std::printf("\n");
  nlohmann::ordered_json doc;
  doc["suite"] = "tess";
  doc["tessellator"] = throughput;
  doc["gpp"] = gpp;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

}  // namespace tessera::cli
