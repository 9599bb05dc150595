// `tessera bench timing`: each specification's mechanism on and off on the same modelled GPU,
// in the timing model's frame time (docs/timing.md): adaptive supertiles against the best fixed
// tiles, MSAA colour compression against an uncompressed target, on-chip GPP redistribution
// against none and off-chip, per-ray LOD against LOD off. Modelled times are deterministic, so
// one frame of each suffices.
#include <cstdio>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "files.h"
#include "tessera/renderer.h"

namespace tessera::cli {

namespace {

struct Modelled {
  double ms = 0;
  std::string limiter;
};

Modelled model(const Scene& scene, const Config& config) {
  Renderer renderer(config);
  const Frame frame = renderer.render(scene, scene.camera);
  return {frame.stats.get_number("timing.frame.ms"), std::get<std::string>(frame.stats.get("timing.bottleneck.frame"))};
}

struct Comparison {
  std::string mechanism, on_label, off_label;
  Modelled on, off;
};

}  // namespace

int run_timing_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes) {
  Config base;
  base.frame.width = args.width;
  base.frame.height = args.height;
  base.frame.threads = args.threads;
  base.tiling.baselines = false;
  base.tessellation.baselines = false;
  base.hardware = hardware_preset(parse_choice<HardwarePreset>("hardware.preset", args.hardware));
  apply_config_settings(base, args.settings);  // --set: the base; the suite sets what it compares
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::printf("hardware: %s (%.0f MHz, %d EUs x %d lanes, %d slices, %.0f B/clock)\n", args.hardware.c_str(),
              base.hardware.clock_mhz, base.hardware.eus, base.hardware.eu_lanes, base.hardware.raster_slices,
              base.hardware.memory_bytes_per_clock);
  std::printf("%-14s %-20s %-18s %10s %-18s %10s %7s  %s\n", "scene", "mechanism", "on", "ms", "off", "ms", "on/off",
              "limited by (on / off)");
  for (const auto& path : scenes) {
    const Scene scene = load_scene(path);
    std::vector<Comparison> rows;
    // Adaptive supertiles against the best of the fixed tile sizes, at 1x.
    {
      Config adaptive = base;
      adaptive.tiling.mode = TilingMode::adaptive;
      Comparison c{"supertiles", "adaptive", "", model(scene, adaptive), {std::numeric_limits<double>::infinity(), ""}};
      for (int size = 16; size <= 256; size *= 2) {
        Config fixed = base;
        fixed.raster.tile_size = size;
        const Modelled m = model(scene, fixed);
        if (m.ms < c.off.ms) {
          c.off = m;
          c.off_label = "best fixed (" + std::to_string(size) + " px)";
        }
      }
      rows.push_back(c);
    }
    // Colour compression at 4x.
    {
      Config on = base;
      on.raster.msaa = 4;
      Config off = on;
      off.color.compression = false;
      rows.push_back({"color compression", "4x compressed", "4x uncompressed", model(scene, on), model(scene, off)});
    }
    // GPP redistribution, where the scene tessellates.
    if (!scene.patch_instances.empty()) {
      Config on = base;
      const Modelled onchip = model(scene, on);
      for (TessellationDesign d : {TessellationDesign::noredist, TessellationDesign::offchip}) {
        Config off = base;
        off.tessellation.design = d;
        rows.push_back({"gpp redistribution", "on-chip", std::string(choice_name(d)), onchip, model(scene, off)});
      }
    }
    // The branch-free EU math library against the branchy baseline.
    {
      Config off = base;
      off.hardware.math_library = MathLibrary::baseline;
      rows.push_back({"eu math", "branch-free", "branchy baseline", model(scene, base), model(scene, off)});
    }
    // Per-ray LOD, where the scene has LOD groups (ray-traced frames).
    if (!scene.lod_groups.empty()) {
      Config on = base;
      on.frame.mode = FrameMode::rt;
      Config off = on;
      off.rt.lod = false;
      rows.push_back({"rt lod", "per-ray LOD", "LOD off", model(scene, on), model(scene, off)});
    }
    for (const Comparison& c : rows) {
      const double ratio = c.off.ms > 0 ? c.on.ms / c.off.ms : 0.0;
      std::printf("%-14s %-20s %-18s %10.4f %-18s %10.4f %7.3f  %s / %s\n", path.stem().string().c_str(),
                  c.mechanism.c_str(), c.on_label.c_str(), c.on.ms, c.off_label.c_str(), c.off.ms, ratio,
                  c.on.limiter.c_str(), c.off.limiter.c_str());
      nlohmann::ordered_json r;
      r["name"] = path.stem().string();
      r["mechanism"] = c.mechanism;
      r["on"] = c.on_label;
      r["on_ms"] = c.on.ms;
      r["on_limiter"] = c.on.limiter;
      r["off"] = c.off_label;
      r["off_ms"] = c.off.ms;
      r["off_limiter"] = c.off.limiter;
      r["ratio"] = ratio;
      results.push_back(r);
    }
    std::fflush(stdout);
  }
  nlohmann::ordered_json doc;
  doc["suite"] = "timing";
  doc["hardware"] = args.hardware;
  doc["width"] = args.width;
  doc["height"] = args.height;
  doc["results"] = results;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

}  // namespace tessera::cli
