// `tessera bench rt`: the ray-tracing unit against Embree 3 in the same run, same scenes, same
// rays: Mrays/s for primary, shadow (any hit) and diffuse rays, one thread and all threads,
// one ray per call on both sides (rt::AccelerationStructure::intersect/occluded vs
// rtcIntersect1/rtcOccluded1); build time per million triangles against Embree's MEDIUM
// quality build. Goals tracked: primary >= 1.0x, diffuse >= 0.8x, build time <= 0.5x.
// Scenes with LOD groups also get the far-field comparison: whole rt frames with LOD off, one
// level per object from the camera distance, and per-ray LOD nodes (trace time, resident
// bytes, PSNR against LOD off); goal: per ray >= 3x faster at >= 35 dB with <= 5% of LOD off's resident bytes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "bench/rt_embree_peer.h"
#include "commands.h"
#include "files.h"
#include "tessera/config.h"
#include "tessera/image.h"
#include "tessera/renderer.h"
#include "tessera/rt.h"
#include "tessera/rt_residency.h"
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

// One way of choosing LOD levels. The RT unit's time is measured on the workload's rays alone
// (primary, shadow, diffuse, each with its path length), in the steady state of lazy
// residency with no budget pressure (resident = what the view needs); the images for PSNR are
// whole rt frames (closest-hit and miss programs, shadow rays; with and without a diffuse
// bounce), the second frame of a renderer so that lazy residency has loaded what it wanted.
struct LodVariant {
  const char* label;
  bool lod;
  const char* selection;  // config rt.lod_selection
};

struct LodRays {
  const rt::RayWorkload& rays;
  std::vector<rt::RayLod> primary_lod, secondary_lod;
  explicit LodRays(const rt::RayWorkload& w) : rays(w) {
    for (size_t i = 0; i < w.primary.size(); ++i) primary_lod.push_back(rt::RayLod{0.0f, 0.0f, i});
    for (size_t i = 0; i < w.secondary_path.size(); ++i)
      secondary_lod.push_back(rt::RayLod{w.secondary_path[i], 0.0f, i});
  }
};

// Traces every ray of `r` once with `settings` (chunks of kChunk on `arena`); returns counters
// merged in chunk order.
rt::Counters trace_lod_rays(const rt::AccelerationStructure& as, const LodRays& r, const rt::LodSettings& settings,
                            tbb::task_arena* arena) {
  struct Set {
    const std::vector<rt::Ray>* rays;
    const std::vector<rt::RayLod>* lod;
    rt::RayType type;
  };
  const Set sets[] = {{&r.rays.primary, &r.primary_lod, rt::RayType::primary},
                      {&r.rays.shadow, &r.secondary_lod, rt::RayType::shadow},
                      {&r.rays.diffuse, &r.secondary_lod, rt::RayType::diffuse}};
  rt::Counters total;
  for (const Set& set : sets) {
    std::vector<rt::Counters> counters((set.rays->size() + kChunk - 1) / kChunk);
    for_rays(set.rays->size(), arena, [&](size_t b, size_t e) {
      rt::Counters& c = counters[b / kChunk];
      for (size_t j = b; j < e; ++j) {
        if (set.type == rt::RayType::shadow)
          (void)as.occluded((*set.rays)[j], set.type, (*set.lod)[j], settings, c);
        else
          (void)as.intersect((*set.rays)[j], set.type, (*set.lod)[j], settings, c);
      }
    });
    for (const rt::Counters& c : counters) total.merge(c);
  }
  return total;
}

Frame render_lod_frame(const Scene& scene, const BenchArgs& args, const LodVariant& v, int diffuse_samples) {
  Config config;
  config.trace.diffuse_samples = diffuse_samples;
  config.frame.mode = FrameMode::rt;
  config.frame.width = args.width;
  config.frame.height = args.height;
  config.frame.threads = args.threads;
  apply_config_settings(config, args.settings);  // --set: the base; the suite sets what it compares
  config.rt.lod = v.lod;
  config.rt.lod_selection = parse_choice<LodSelection>("rt.lod_selection", v.selection);
  config.rt.residency = rt::ResidencyPolicy::lazy;
  config.rt.budget_mib = 1024.0 * 1024.0;
  Renderer renderer(config);
  renderer.render(scene, scene.camera);  // lazy: substitutes and marks what it wants
  return renderer.render(scene, scene.camera);
}

void run_lod_comparison(const std::string& name, const Scene& scene, const rt::AccelerationStructure& as,
                        const rt::RayWorkload& workload, const BenchArgs& args, tbb::task_arena& arena,
                        nlohmann::ordered_json& results) {
  const LodVariant variants[] = {{"lod_off", false, "ray"}, {"per_object", true, "object"}, {"per_ray", true, "ray"}};
  const LodRays rays(workload);
  const uint64_t ray_count = workload.primary.size() + workload.shadow.size() + workload.diffuse.size();
  const std::vector<int8_t> object_levels = as.camera_lod_levels(scene.camera.position);
  std::printf(
      "%-16s far field: %llu rays (primary, shadow, diffuse), %d threads, lazy residency; PSNR of rt frames "
      "without / with a 1-sample diffuse bounce\n",
      name.c_str(), (unsigned long long)ray_count, arena.max_concurrency());
  std::printf("%-16s %-11s %9s %9s %8s %12s %8s %13s %9s %9s  %s\n", "scene", "lod", "rays ms", "Mrays/s", "speedup",
              "resident MB", "vs off", "PSNR dB", "nodes/ray", "tris/ray", "LOD levels 0/1/2/3, discards");
  double off_ms = 0.0;
  uint64_t off_resident = 0;
  Frame off_frame, off_frame_diffuse;
  for (const LodVariant& v : variants) {
    const bool is_off = std::string(v.label) == "lod_off";
    rt::Residency residency(as, rt::ResidencyPolicy::lazy, uint64_t(1) << 50);
    // The timed rays take the same rt settings as the frames (--set rt.diffuse_lod_bias,
    // rt.shadow_lod_level, rt.lod_jitter: a coarser selection for the bench), the suite's
    // variant deciding only LOD on/off and who selects.
    Config config;
    apply_config_settings(config, args.settings);
    rt::LodSettings settings = rt::lod_settings(config.rt, &residency);
    settings.enabled = v.lod;
    if (std::string(v.selection) == "object") settings.object_levels = object_levels;
    settings.residency = &residency;
    // Warm-up: the first pass substitutes and marks, its end of frame loads the wanted levels.
    for (int i = 0; i < std::max(args.warmup, 1); ++i) {
      (void)trace_lod_rays(as, rays, settings, &arena);
      (void)residency.end_frame();
    }
    std::vector<double> samples;
    rt::Counters counters;
    rt::ResidencyFrame frame_residency;
    for (int i = 0; i < args.repetitions; ++i) {
      samples.push_back(time_ms([&] { counters = trace_lod_rays(as, rays, settings, &arena); }));
      frame_residency = residency.end_frame();
    }
    const double ms = median_of(samples);
    // PSNR on frames without the diffuse bounce: one sample per pixel decorrelates wherever a
    // level moves a normal slightly (another direction, another object), which measures noise
    // rather than the level's error; the 1-sample figure is reported beside it.
    const Frame frame = render_lod_frame(scene, args, v, 0);
    const Frame frame_diffuse = render_lod_frame(scene, args, v, 1);
    if (is_off) {
      off_ms = ms;
      off_resident = frame_residency.resident_bytes;
      off_frame = frame;
      off_frame_diffuse = frame_diffuse;
    }
    const double speedup = off_ms / ms;
    const double resident_ratio = double(frame_residency.resident_bytes) / double(off_resident);
    const double psnr = psnr_rgb(frame.color, off_frame.color);
    const double psnr_diffuse = psnr_rgb(frame_diffuse.color, off_frame_diffuse.color);
    const double n = double(ray_count);
    const double nodes_per_ray =
        double(counters[rt::Counters::nodes_interior] + counters[rt::Counters::nodes_leaf]) / n;
    const double tris_per_ray = double(counters[rt::Counters::triangles_tested]) / n;
    nlohmann::ordered_json r;
    r["name"] = name;
    r["metric"] = std::string("far_field_") + v.label;
    r["lod"] = v.lod;
    r["lod_selection"] = v.selection;
    r["threads"] = arena.max_concurrency();
    r["rays"] = ray_count;
    r["rays_ms"] = ms;
    r["samples_ms"] = samples;
    r["mrays_per_s"] = n / (ms * 1e3);
    r["resident_bytes"] = frame_residency.resident_bytes;
    r["needed_bytes"] = frame_residency.needed_bytes;
    r["interior_nodes_per_ray"] = double(counters[rt::Counters::nodes_interior]) / n;
    r["leaves_per_ray"] = double(counters[rt::Counters::nodes_leaf]) / n;
    r["triangles_per_ray"] = tris_per_ray;
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (int l = 0; l < rt::kLodLevels; ++l) levels.push_back(counters[rt::Counters::Id(rt::Counters::lod_level0 + l)]);
    r["lod_levels"] = levels;
    r["lod_discards"] = counters[rt::Counters::lod_discards];
    r["frame_time_ms"] = frame_diffuse.stats.get_number("frame.time_ms.trace");
    if (!is_off) {
      r["speedup_vs_lod_off"] = speedup;
      r["resident_vs_lod_off"] = resident_ratio;
      r["psnr_vs_lod_off_db"] = psnr;
      r["psnr_with_diffuse_bounce_db"] = psnr_diffuse;
      if (std::string(v.label) == "per_ray") {
        r["goal"] = ">= 3x faster than lod_off at >= 35 dB with <= 0.05x the resident bytes";
        r["goal_met"] = speedup >= 3.0 && psnr >= 35.0 && resident_ratio <= 0.05;
      }
    }
    results.push_back(r);
    char psnr_text[64] = "-";
    if (!is_off) std::snprintf(psnr_text, sizeof psnr_text, "%.1f / %.1f", psnr, psnr_diffuse);  // inf prints as inf
    std::printf(
        "%-16s %-11s %9.1f %9.2f %8.2f %12.1f %8.3f %13s %9.1f %9.1f  %llu/%llu/%llu/%llu, %llu\n", name.c_str(),
        v.label, ms, n / (ms * 1e3), speedup, double(frame_residency.resident_bytes) / 1e6, resident_ratio, psnr_text,
        nodes_per_ray, tris_per_ray, (unsigned long long)counters[rt::Counters::lod_level0],
        (unsigned long long)counters[rt::Counters::lod_level1], (unsigned long long)counters[rt::Counters::lod_level2],
        (unsigned long long)counters[rt::Counters::lod_level3],
        (unsigned long long)counters[rt::Counters::lod_discards]);
    std::fflush(stdout);
  }
}

}  // namespace

int run_rt_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes) {
  const int threads = args.threads > 0 ? args.threads : tbb::this_task_arena::max_concurrency();
  std::optional<tbb::global_control> allow;
  if (args.threads > 0) allow.emplace(tbb::global_control::max_allowed_parallelism, size_t(args.threads));
  tbb::task_arena all(threads);
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::printf(
      "rays from a %dx%d view, median of %d runs; ratio = Tessera / Embree (throughput), Tessera / Embree "
      "time (build); %d threads\n",
      args.width, args.height, args.repetitions, threads);
  std::printf("%-16s %-8s %8s %9s %12s %12s %7s %10s %10s\n", "scene", "rays", "threads", "rays", "tessera Mr/s",
              "embree Mr/s", "ratio", "nodes/ray", "tris/ray");
  for (const auto& path : scenes) {
    const Scene scene = load_scene(path);
    const std::string name = path.stem().string();

    // Build times: all threads on both sides.
    std::vector<double> ours_build, peer_build;
    std::optional<rt::AccelerationStructure> as;
    // Each repetition frees the previous structure first: keep its memory for the next build
    // (what a Renderer's rebuild gets, since it holds a structure throughout).
    const rt::KeepBuildMemory keep_build_memory;
    for (int i = 0; i < args.warmup + args.repetitions; ++i) {
      as.reset();  // freeing the previous one is not part of the build (Embree's side likewise)
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

    // Against Embree, LOD off: both trace the finest level of every object.
    rt::LodSettings lod_off;
    lod_off.enabled = false;
    const rt::RayWorkload w = rt::make_ray_workload(*as, scene, scene.camera, args.width, args.height, 1, lod_off);
    struct Kind {
      const char* label;
      const std::vector<rt::Ray>* rays;
      rt::RayType type;
      bool any_hit;
      const char* goal;
      double goal_ratio;
    };
    const Kind kinds[] = {{"primary", &w.primary, rt::RayType::primary, false, ">= 1.0", 1.0},
                          {"shadow", &w.shadow, rt::RayType::shadow, true, ">= 1.0", 1.0},
                          {"diffuse", &w.diffuse, rt::RayType::diffuse, false, ">= 0.9", 0.9}};
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
                s += k.any_hit ? uint32_t(as->occluded(rays[j], k.type, rt::RayLod{}, lod_off, c))
                               : as->intersect(rays[j], k.type, rt::RayLod{}, lod_off, c).primitive;
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
    if (as->info().lod_nodes > 0) {
      peer.reset();
      run_lod_comparison(name, scene, *as, w, args, all, results);
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
