#include "bench/tess_bench.h"

#include <chrono>
#include <random>

#include "geometry/gpp_array.h"
#include "geometry/gpp_workloads.h"
#include "tessera/tessellator.h"

namespace tessera {

std::vector<TessThroughputReport> run_tessellator_throughput(double seconds_per_case, uint64_t seed) {
  std::vector<TessThroughputReport> out;
  const TessDomain domains[] = {TessDomain::kTriangle, TessDomain::kQuad, TessDomain::kIsoline};
  const TessSpacing spacings[] = {TessSpacing::kEqual, TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven};
  for (TessDomain domain : domains) {
    for (TessSpacing spacing : spacings) {
      std::mt19937_64 rng(seed);
      std::uniform_real_distribution<float> level(1.0f, 64.0f);
      std::vector<TessFactors> set(512);
      for (TessFactors& f : set) {
        f.outer = {level(rng), level(rng), level(rng), level(rng)};
        f.inner = {level(rng), level(rng)};
      }
      TessThroughputReport r;
      r.domain = std::string(tess_domain_name(domain));
      r.spacing = std::string(tess_spacing_name(spacing));
      using Clock = std::chrono::steady_clock;
      const auto t0 = Clock::now();
      // One patch reused as a streaming caller would: its storage grows to the largest patch once.
      TessellatedPatch p;
      do {
        for (const TessFactors& f : set) {
          tessellate(domain, spacing, f, p);
          r.points += p.points.size();
          r.primitives += p.primitive_count();
          ++r.patches;
        }
        r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      } while (r.seconds < seconds_per_case);
      r.points_per_second = double(r.points) / r.seconds;
      r.primitives_per_second = double(r.primitives) / r.seconds;
      out.push_back(r);
    }
  }
  return out;
}

std::vector<GppSpeedupReport> run_gpp_speedups(int batch_size) {
  struct Workload {
    const char* name;
    std::vector<GppPatch> patches;
  };
  const Workload workloads[] = {{"uniform", uniform_patch_grid(16.0f)}, {"uneven_terrain", uneven_terrain_patches()}};
  struct Variant {
    GppDesign design;
    GppPolicy policy;
  };
  const Variant variants[] = {{GppDesign::kNoRedistribution, GppPolicy::kRoundRobin},
                              {GppDesign::kOnChip, GppPolicy::kRoundRobin},
                              {GppDesign::kOnChip, GppPolicy::kLeastLoaded},
                              {GppDesign::kOffChip, GppPolicy::kRoundRobin}};
  const int counts[] = {1, 2, 4, 8, 16};
  std::vector<GppSpeedupReport> out;
  for (const Workload& w : workloads) {
    double noredist[5] = {};
    for (const Variant& v : variants) {
      double base = 0;
      for (int i = 0; i < 5; ++i) {
        GppArrayConfig cfg;
        cfg.gpp_count = counts[i];
        cfg.batch_size = batch_size;
        cfg.dpm_buffer_depth = std::max(cfg.dpm_buffer_depth, batch_size);
        cfg.policy = v.policy;
        cfg.build_primitives = false;  // tess_counts gives tessellate()'s counts
        const GppRunResult r = run_gpp_array(v.design, w.patches, cfg);
        GppSpeedupReport rep;
        rep.workload = w.name;
        rep.design = std::string(gpp_design_name(v.design));
        rep.policy = std::string(gpp_policy_name(v.policy));
        rep.gpp_count = counts[i];
        rep.patches = w.patches.size();
        rep.makespan_cycles = r.timing.makespan_cycles;
        if (i == 0) base = rep.makespan_cycles;
        if (v.design == GppDesign::kNoRedistribution) noredist[i] = rep.makespan_cycles;
        rep.speedup = rep.makespan_cycles > 0 ? base / rep.makespan_cycles : 0.0;
        rep.vs_noredist = rep.makespan_cycles > 0 ? noredist[i] / rep.makespan_cycles : 0.0;
        rep.load_balance = r.timing.load_balance;
        rep.trb_bytes = r.totals[GppDesignCounters::trb_bytes];
        rep.offchip_bytes =
            r.totals[GppDesignCounters::offchip_bytes_written] + r.totals[GppDesignCounters::offchip_bytes_read];
        out.push_back(rep);
      }
    }
  }
  return out;
}

}  // namespace tessera
