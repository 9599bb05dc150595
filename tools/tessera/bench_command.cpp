// `tessera bench raster`: frame time of Tessera and of the Vulkan reference on the system
// driver (lavapipe here), same scenes, same camera, same resolution, in one run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "bench/color_codec_bench.h"
#include "bench/eu_bench.h"
#include "commands.h"
#include "files.h"
#include "tessera/error.h"
#include "tessera/renderer.h"
#include "vkref/reference_renderer.h"

namespace tessera::cli {

// bench_rt.cpp
int run_rt_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes);

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string peer_label(const std::string& device) {
  return device.find("llvmpipe") != std::string::npos ? "lavapipe" : device;
}

std::vector<std::filesystem::path> default_scenes() {
  const std::filesystem::path root = TESSERA_SOURCE_DIR;
  return {root / "assets/default.json", root / "assets/bench/objects.json", root / "assets/bench/terrain_1m.json",
          root / "assets/bench/instances_1m.json"};
}

}  // namespace

void add_bench_command(CLI::App& app, BenchArgs& args) {
  CLI::App* cmd = app.add_subcommand("bench", "Benchmarks against peers in the same run (ratios)");
  cmd->add_option(
         "suite", args.suite,
         "Suite: raster (frame time vs the Vulkan reference), color (colour-unit codecs and bandwidth) or eu "
         "(branch-free math vs the branchy baseline on the modelled FMA datapath) or tiling (redundant vertex shading, "
         "adaptive supertiles vs fixed tiles) or tess (tessellator throughput, GPP array speedup) or layer "
         "(frame time with VK_LAYER_TESSERA_stats vs no layer, MangoHud, the Mesa overlay) or rt (ray throughput and "
         "BVH build vs Embree) or timing (each mechanism on and off in the timing model's frame time) or replay (a "
         "capture of the scene's "
         "view replayed vs rendering the scene)")
      ->required()
      ->check(CLI::IsMember({"raster", "color", "eu", "tiling", "tess", "layer", "rt", "timing", "replay"}));
  cmd->add_option("--json", args.json, "Write results as JSON");
  cmd->add_option("--scene", args.scenes, "Scene(s) to run instead of the built-in benchmark set");
  cmd->add_option("--width", args.width, "Frame width")->check(CLI::Range(1, 16384));
  cmd->add_option("--height", args.height, "Frame height")->check(CLI::Range(1, 16384));
  cmd->add_option("--repetitions", args.repetitions, "Timed repetitions (median is reported)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--warmup", args.warmup, "Untimed warm-up frames")->check(CLI::Range(0, 100));
  cmd->add_option("--threads", args.threads, "Tessera worker threads, 0 = all");
  cmd->add_option("--msaa", args.msaa,
                  "raster: samples per pixel for both renderers; color: one sample count instead of 4x and 8x")
      ->check(CLI::IsMember({1, 2, 4, 8}));
  cmd->add_option("--hardware", args.hardware, "timing: the hardware preset (small, medium, large)");
  cmd->add_option("--memory-limit", args.memory_limit,
                  "Memory a scene may be estimated to need, e.g. 8G (default: half of physical memory), as in render");
  cmd->add_option("--capture", args.capture,
                  "replay: a capture written by the layer (frame 0) replayed instead of a capture made from the "
                  "scene; the scene (one) is the render peer, with the same triangle count");
  add_set_option(cmd, args.settings);
  add_layer_bench_options(cmd, args);
}

namespace {

// Colour unit: for each scene at 4x and 8x (or --msaa when given), the modelled colour bytes
// against the uncompressed and planes-only baselines, and codec throughput per core against a
// raw copy of the same blocks.
int run_color_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  const std::vector<int> sample_counts = args.msaa > 1 ? std::vector<int>{args.msaa} : std::vector<int>{4, 8};
  std::printf("%-24s %8s %10s %10s %12s %12s %12s\n", "scene", "tiles", "vs raw", "vs planes", "compress/s",
              "decompress/s", "copy/s");
  for (const auto& path : scenes) {
    const Scene scene = load_scene(path);
    for (int msaa : sample_counts) {
      Config config;
      config.frame.width = args.width;
      config.frame.height = args.height;
      config.frame.threads = args.threads;
      config.frame.keep_samples = true;
      config.raster.msaa = msaa;
      apply_config_settings(config, args.settings);
      config.raster.msaa = msaa;  // the suite's sample count wins over --set
      Renderer renderer(config);
      const Frame frame = renderer.render(scene, scene.camera);
      const Rgba8 clear = pack_rgba8(encode_srgb8(scene.background.r), encode_srgb8(scene.background.g),
                                     encode_srgb8(scene.background.b), 255);
      const ColorCodecRun run = run_color_codecs(frame, clear, std::max(1, args.repetitions));
      const std::string name = path.stem().string() + "_" + std::to_string(msaa) + "x";
      auto add = [&](const char* metric, double value, const char* peer, double peer_value) {
        nlohmann::ordered_json r;
        r["name"] = name;
        r["metric"] = metric;
        r["tessera"] = value;
        r["peer"] = peer;
        r["peer_value"] = peer_value;
        r["ratio"] = peer_value > 0 ? value / peer_value : 0.0;
        r["tiles"] = run.tiles;
        r["width"] = args.width;
        r["height"] = args.height;
        r["msaa"] = msaa;
        results.push_back(r);
      };
      add("color_bytes", double(run.stored_bytes), "uncompressed", double(run.uncompressed_bytes));
      // The frame's own colour-cache model (config color.*): hit rate and bytes moved.
      results.back()["cache_hit_rate"] = frame.stats.get_number("color.cache.hit_rate");
      results.back()["cache_traffic_bytes"] = frame.stats.get_u64("color.traffic.planes.read_bytes") +
                                              frame.stats.get_u64("color.traffic.planes.written_bytes") +
                                              frame.stats.get_u64("color.traffic.index.read_bytes") +
                                              frame.stats.get_u64("color.traffic.index.written_bytes") +
                                              frame.stats.get_u64("color.traffic.control.read_bytes") +
                                              frame.stats.get_u64("color.traffic.control.written_bytes");
      add("color_bytes", double(run.stored_bytes), "planes_only", double(run.planes_only_bytes));
      add("compress_tiles_per_s", run.compress_tiles_per_s, "raw_copy", run.copy_tiles_per_s);
      add("decompress_tiles_per_s", run.decompress_tiles_per_s, "raw_copy", run.copy_tiles_per_s);
      std::printf("%-24s %8llu %10.3f %10.3f %12.3g %12.3g %12.3g\n", name.c_str(), (unsigned long long)run.tiles,
                  double(run.stored_bytes) / double(run.uncompressed_bytes),
                  double(run.stored_bytes) / double(run.planes_only_bytes), run.compress_tiles_per_s,
                  run.decompress_tiles_per_s, run.copy_tiles_per_s);
      std::fflush(stdout);
    }
  }
  nlohmann::ordered_json doc;
  doc["suite"] = "color";
  doc["results"] = results;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

}  // namespace

// Execution unit: per function and precision, dynamic instructions of the branch-free library
// against the branchy baseline on inputs with 5% special values (ratio below 1 is the saving;
// the goal is <= 0.7), accuracy in ULP on those inputs and on a 1,000,000-input sweep with hard
// cases (native path, long double reference), model and native-path throughput per core.
int run_eu_bench_suite(const BenchArgs& args) {
  const int samples = std::max(1000, args.repetitions * 200000);
  constexpr int kSweepSamples = 1000000;
  const std::vector<EuFunctionReport> reports = run_eu_bench(samples, 1, kSweepSamples);
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::printf("%-6s %-9s %12s %10s %7s %9s %9s %10s %12s %12s\n", "func", "precision", "branch-free", "branchy",
              "ratio", "max ulp", "mean ulp", "sweep ulp", "model res/s", "native res/s");
  for (const EuFunctionReport& r : reports) {
    nlohmann::ordered_json j;
    j["name"] = r.name + "_" + r.precision;
    j["metric"] = "instructions_per_call";
    j["tessera"] = r.branch_free_instructions_per_call;
    j["peer"] = "branchy_baseline";
    j["peer_value"] = r.branchy_instructions_per_call;
    j["ratio"] = r.branch_free_instructions_per_call / r.branchy_instructions_per_call;
    j["max_ulp"] = std::isfinite(r.max_ulp) ? nlohmann::ordered_json(r.max_ulp) : nlohmann::ordered_json("inf");
    j["mean_ulp"] = r.mean_ulp;
    j["results_per_second"] = r.results_per_second;
    j["native_results_per_second"] = r.native_results_per_second;
    j["sweep_max_ulp"] =
        std::isfinite(r.sweep_max_ulp) ? nlohmann::ordered_json(r.sweep_max_ulp) : nlohmann::ordered_json("inf");
    j["sweep_samples"] = r.sweep_samples;
    j["samples"] = samples;
    results.push_back(j);
    std::printf("%-6s %-9s %12.1f %10.1f %7.2f %9.2f %9.3f %10.3f %12.3g %12.3g\n", r.name.c_str(), r.precision.c_str(),
                r.branch_free_instructions_per_call, r.branchy_instructions_per_call,
                r.branch_free_instructions_per_call / r.branchy_instructions_per_call, r.max_ulp, r.mean_ulp,
                r.sweep_max_ulp, r.results_per_second, r.native_results_per_second);
  }
  nlohmann::ordered_json doc;
  doc["suite"] = "eu";
  doc["results"] = results;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

int run_bench(const BenchArgs& args) {
  if (!args.memory_limit.empty()) apply_memory_limit_option(args.memory_limit);
  if (!args.settings.empty()) {
    // Checked before any work; suites that render no frame from the config would ignore them.
    Config probe;
    apply_config_settings(probe, args.settings);
    if (args.suite == "eu" || args.suite == "tess" || args.suite == "layer") {
      throw Error("--set: bench " + args.suite +
                  " renders no frame from the config; --set applies to raster, color, tiling, rt and timing");
    }
  }
  if (args.suite == "eu") return run_eu_bench_suite(args);
  if (args.suite == "tess") return run_tess_bench(args);
  if (args.suite == "layer") return run_layer_bench(args);
  const std::vector<std::filesystem::path> scenes = args.scenes.empty() ? default_scenes() : args.scenes;
  if (args.suite == "color") return run_color_bench(args, scenes);
  if (args.suite == "rt") {
    std::vector<std::filesystem::path> rt_scenes = scenes;
    if (args.scenes.empty())
      rt_scenes.push_back(std::filesystem::path(TESSERA_SOURCE_DIR) / "assets/bench/far_field.json");
    return run_rt_bench(args, rt_scenes);
  }
  if (args.suite == "timing") {
    std::vector<std::filesystem::path> timing_scenes = args.scenes;
    if (args.scenes.empty()) {
      for (const char* s :
           {"assets/default.json", "assets/patches.json", "assets/bench/objects.json", "assets/bench/lod_field.json"}) {
        timing_scenes.push_back(std::filesystem::path(TESSERA_SOURCE_DIR) / s);
      }
    }
    return run_timing_bench(args, timing_scenes);
  }
  if (args.suite == "replay") {
    std::vector<std::filesystem::path> replay_scenes = args.scenes;
    if (args.scenes.empty())
      replay_scenes.push_back(std::filesystem::path(TESSERA_SOURCE_DIR) / "assets/bench/terrain_1m.json");
    return run_replay_bench(args, replay_scenes);
  }
  if (args.suite == "tiling") {
    std::vector<std::filesystem::path> tiling_scenes = scenes;
    if (args.scenes.empty())
      tiling_scenes.push_back(std::filesystem::path(TESSERA_SOURCE_DIR) / "assets/bench/clouds.json");
    return run_tiling_bench(args, tiling_scenes);
  }
  Config config;
  config.frame.width = args.width;
  config.frame.height = args.height;
  config.frame.threads = args.threads;
  config.raster.msaa = args.msaa;
  apply_config_settings(config, args.settings);
  Renderer renderer(config);

  std::unique_ptr<vkref::ReferenceRenderer> peer;
  std::string peer_error;
  try {
    peer = vkref::ReferenceRenderer::create();
  } catch (const Error& e) {
    peer_error = e.what();
    std::cerr << "tessera bench: no Vulkan peer (" << peer_error << "); reporting Tessera alone\n";
  }
  const std::string peer_name = peer ? peer_label(peer->device_name()) : "none";
  if (peer) std::printf("peer device: %s\n", peer->device_name().c_str());

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::printf("%-22s %10s %12s %12s %8s %8s\n", "scene", "triangles", "tessera ms", (peer_name + " ms").c_str(),
              "ratio", "PSNR dB");
  for (const auto& path : scenes) {
    const Scene scene = load_scene(path);
    std::vector<double> times;
    Frame frame;
    for (int i = 0; i < args.warmup + args.repetitions; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      frame = renderer.render(scene, scene.camera);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (i >= args.warmup) times.push_back(ms);
    }
    const double tessera_ms = median(times);
    nlohmann::ordered_json r;
    r["name"] = path.stem().string();
    r["metric"] = "frame_ms";
    r["tessera"] = tessera_ms;
    r["peer"] = peer_name;
    double peer_ms = 0.0, psnr = 0.0;
    if (peer) {
      peer->upload(scene);
      vkref::ReferenceOptions opt{args.width, args.height, config.raster.cull_backface, args.msaa};
      std::vector<double> peer_times;
      // Same warm-up and repetitions as Tessera; render_timed does one more untimed submit.
      peer_ms = peer->render_timed(scene.camera, opt, args.repetitions, &peer_times);
      psnr = psnr_rgb(frame.color, peer->render(scene.camera, opt));
      r["peer_value"] = peer_ms;
      r["ratio"] = tessera_ms / peer_ms;
      r["psnr_db"] = std::isfinite(psnr) ? nlohmann::ordered_json(psnr) : nlohmann::ordered_json("inf");
      r["peer_samples_ms"] = peer_times;
    } else {
      r["peer_value"] = nullptr;
      r["ratio"] = nullptr;
    }
    r["samples_ms"] = times;
    r["triangles"] = frame.stats.get_u64("frame.triangles");
    r["width"] = args.width;
    r["height"] = args.height;
    r["threads"] = frame.stats.get_u64("frame.threads");
    r["msaa"] = args.msaa;
    results.push_back(r);
    std::printf("%-22s %10llu %12.2f %12.2f %8.3f %8.2f\n", path.stem().string().c_str(),
                (unsigned long long)frame.stats.get_u64("frame.triangles"), tessera_ms, peer_ms,
                peer ? tessera_ms / peer_ms : 0.0, psnr);
    std::fflush(stdout);
  }
  nlohmann::ordered_json doc;
  doc["suite"] = "raster";
  doc["results"] = results;
  if (!peer_error.empty()) doc["peer_error"] = peer_error;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

}  // namespace tessera::cli
