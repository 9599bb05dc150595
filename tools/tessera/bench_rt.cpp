// `tessera bench rt`: the ray-tracing unit against Embree 3 in the same run, same scenes, same
// rays: Mrays/s for primary, shadow (any hit) and diffuse rays, one thread and all threads,
// one ray per call on both sides (rt::AccelerationStructure::intersect/occluded vs
// rtcIntersect1/rtcOccluded1); build time per million triangles against Embree's MEDIUM
// quality build. Goals tracked: primary >= 1.0x, diffuse >= 0.8x, build time <= 0.5x.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "commands.h"
#include "files.h"
#include "tessera/rt.h"
#include "tessera/rt_embree_peer.h"
#include "tessera/scene.h"

namespace tessera::cli {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

double time_ms(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

constexpr size_t kChunk = 256;  // rays per task, both sides

// Runs `trace(i)` for every ray, on the calling thread or over fixed chunks on `arena`.
void for_rays(size_t count, tbb::task_arena* arena, const std::function<void(size_t, size_t)>& trace) {
  if (!arena) {
    trace(0, count);
    return;
  }
  arena->execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, (count + kChunk - 1) / kChunk, 1),
                      [&](const tbb::blocked_range<size_t>& r) {
                        for (size_t c = r.begin(); c != r.end(); ++c)
                          trace(c * kChunk, std::min(count, (c + 1) * kChunk));
                      });
  });
}

}  // namespace

int run_rt_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes) {
  const int threads = args.threads > 0 ? args.threads : tbb::this_task_arena::max_concurrency();
  std::optional<tbb::global_control> allow;
  if (args.threads > 0) allow.emplace(tbb::global_control::max_allowed_parallelism, size_t(args.threads));
  tbb::task_arena all(threads);
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::printf("rays from a %dx%d view, median of %d runs; ratio = Tessera / Embree (throughput), Tessera / Embree "
              "time (build); %d threads\n", args.width, args.height, args.repetitions, threads);
  std::printf("%-16s %-8s %8s %9s %12s %12s %7s %10s %10s\n", "scene", "rays", "threads", "rays", "tessera Mr/s",
              "embree Mr/s", "ratio", "nodes/ray", "tris/ray");
  for (const auto& path : scenes) {
    const Scene scene = load_scene(path);
    const std::string name = path.stem().string();

    // Build times: all threads on both sides.
    std::vector<double> ours_build, peer_build;
    std::optional<rt::AccelerationStructure> as;
    for (int i = 0; i < args.warmup + args.repetitions; ++i) {
      const double ms = time_ms([&] { all.execute([&] { as.emplace(rt::AccelerationStructure::build(scene)); }); });
      if (i >= args.warmup) ours_build.push_back(ms);
    }
    std::optional<rt::EmbreePeer> peer;
    const std::string embree_config = "threads=" + std::to_string(threads);
    for (int i = 0; i < args.warmup + args.repetitions; ++i) {
      peer.reset();
      const double ms = time_ms([&] { peer.emplace(scene, RTC_BUILD_QUALITY_MEDIUM, embree_config); });
      if (i >= args.warmup) peer_build.push_back(ms);
    }
    const double mtris = double(as->info().triangles) / 1e6;
    const double ours_ms_per_m = median_of(ours_build) / mtris, peer_ms_per_m = median_of(peer_build) / mtris;
    {
      nlohmann::ordered_json r;
      r["name"] = name;
      r["metric"] = "build_ms_per_mtri";
      r["tessera"] = ours_ms_per_m;
      r["peer"] = "embree_medium";
      r["peer_value"] = peer_ms_per_m;
      r["ratio"] = ours_ms_per_m / peer_ms_per_m;  // time: lower is better
      r["goal"] = "<= 0.5";
      r["goal_met"] = ours_ms_per_m / peer_ms_per_m <= 0.5;
      r["triangles"] = as->info().triangles;
      r["instances"] = as->info().instances;
      r["bvh_bytes"] = as->info().bytes;
      r["threads"] = threads;
      r["samples_ms"] = ours_build;
      r["peer_samples_ms"] = peer_build;
      results.push_back(r);
      std::printf("%-16s %-8s %8d %9.3g %12s %12s %7.3f   build ms/Mtri: tessera %.1f embree %.1f (%llu tris)\n",
                  name.c_str(), "build", threads, double(as->info().triangles), "", "", ours_ms_per_m / peer_ms_per_m,
                  ours_ms_per_m, peer_ms_per_m, (unsigned long long)as->info().triangles);
    }

    const rt::RayWorkload w = rt::make_ray_workload(*as, scene, scene.camera, args.width, args.height);
    struct Kind {
      const char* label;
      const std::vector<rt::Ray>* rays;
      rt::RayType type;
      bool any_hit;
      const char* goal;
      double goal_ratio;
    };
    const Kind kinds[] = {{"primary", &w.primary, rt::RayType::primary, false, ">= 1.0", 1.0},
                          {"shadow", &w.shadow, rt::RayType::shadow, true, "", 0.0},
                          {"diffuse", &w.diffuse, rt::RayType::diffuse, false, ">= 0.8", 0.8}};
    for (const Kind& k : kinds) {
      const std::vector<rt::Ray>& rays = *k.rays;
      if (rays.empty()) continue;
      for (tbb::task_arena* arena : {static_cast<tbb::task_arena*>(nullptr), &all}) {
        std::vector<double> ours, theirs;
        std::vector<rt::Counters> counters((rays.size() + kChunk - 1) / kChunk);
        std::vector<uint32_t> sink((rays.size() + kChunk - 1) / kChunk, 0);
        for (int i = 0; i < args.warmup + args.repetitions; ++i) {
          std::fill(counters.begin(), counters.end(), rt::Counters{});
          const double a = time_ms([&] {
            for_rays(rays.size(), arena, [&](size_t b, size_t e) {
              rt::Counters& c = counters[b / kChunk];
              uint32_t s = 0;
              for (size_t j = b; j < e; ++j)
                s += k.any_hit ? uint32_t(as->occluded(rays[j], k.type, c)) : as->intersect(rays[j], k.type, c).primitive;
              sink[b / kChunk] += s;
            });
          });
          const double bms = time_ms([&] {
            for_rays(rays.size(), arena, [&](size_t b, size_t e) {
              uint32_t s = 0;
              for (size_t j = b; j < e; ++j)
                s += k.any_hit ? uint32_t(peer->occluded(rays[j])) : peer->intersect(rays[j]).primitive;
              sink[b / kChunk] += s;
            });
          });
          if (i >= args.warmup) {
            ours.push_back(double(rays.size()) / (a * 1e3));
            theirs.push_back(double(rays.size()) / (bms * 1e3));
          }
        }
        rt::Counters total;
        for (const rt::Counters& c : counters) total.merge(c);
        const double n = double(rays.size());
        const double nodes_per_ray = double(total[rt::Counters::nodes_interior] + total[rt::Counters::nodes_leaf]) / n;
        const double tris_per_ray = double(total[rt::Counters::triangles_tested]) / n;
        const double ours_m = median_of(ours), peer_m = median_of(theirs);
        const int t = arena ? threads : 1;
        nlohmann::ordered_json r;
        r["name"] = name;
        r["metric"] = std::string(k.label) + "_mrays_per_s";
        r["tessera"] = ours_m;
        r["peer"] = k.any_hit ? "embree_rtcOccluded1" : "embree_rtcIntersect1";
        r["peer_value"] = peer_m;
        r["ratio"] = ours_m / peer_m;
        if (*k.goal) {
          r["goal"] = k.goal;
          r["goal_met"] = ours_m / peer_m >= k.goal_ratio;
        }
        r["threads"] = t;
        r["rays"] = rays.size();
        r["rays_hit_fraction"] = double(total[rt::Counters::rays_hit]) / n;  // counters of the last run
        r["interior_nodes_per_ray"] = double(total[rt::Counters::nodes_interior]) / n;
        r["leaves_per_ray"] = double(total[rt::Counters::nodes_leaf]) / n;
        r["triangles_per_ray"] = tris_per_ray;
        r["samples"] = ours;
        r["peer_samples"] = theirs;
        results.push_back(r);
        std::printf("%-16s %-8s %8d %9zu %12.2f %12.2f %7.3f %10.1f %10.1f\n", name.c_str(), k.label, t, rays.size(),
                    ours_m, peer_m, ours_m / peer_m, nodes_per_ray, tris_per_ray);
        std::fflush(stdout);
      }
    }
  }
  nlohmann::ordered_json doc;
  doc["suite"] = "rt";
  doc["width"] = args.width;
  doc["height"] = args.height;
  doc["results"] = results;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

}  // namespace tessera::cli
