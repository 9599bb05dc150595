// `tessera bench tiling`: on each scene's frame, redundant pass-2 vertex shading and vertex
// bytes under adaptive supertiles against fixed 16..256-pixel tiles of the same tile-buffer
// budget (ratios adaptive / best fixed), the parameter-buffer design's traffic, and the
// supertile generation time per frame (the generator runs on one core).
#include <algorithm>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "files.h"
#include "tessera/renderer.h"

namespace tessera::cli {

namespace {

struct Row {
  std::string tiling;
  bool within_budget = false;
  uint64_t render_tiles = 0, crossings = 0, pass2 = 0, redundant = 0, vertex_bytes = 0, pb_written = 0, pb_read = 0;
  double redundant_percent = 0;
};

Row read_row(const Stats& s, const std::string& name) {
  const std::string p = "tiling.baseline." + name;
  Row r;
  r.tiling = name;
  r.within_budget = s.get_u64(p + ".tile_buffer.within_budget") != 0;
  r.render_tiles = s.get_u64(p + ".render_tiles");
  r.crossings = s.get_u64(p + ".crossings");
  r.pass2 = s.get_u64(p + ".vs.pass2_invocations");
  r.redundant = s.get_u64(p + ".vs.redundant_invocations");
  r.redundant_percent = s.get_number(p + ".vs.redundant_percent");
  r.vertex_bytes = s.get_u64(p + ".vertex_fetch_bytes");
  r.pb_written = s.get_u64(p + ".parameter_buffer.written_bytes");
  r.pb_read = s.get_u64(p + ".parameter_buffer.read_bytes");
  return r;
}

}  // namespace

int run_tiling_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& path : scenes) {
    const Scene scene = load_scene(path);
    Config config;
    config.frame.width = args.width;
    config.frame.height = args.height;
    config.frame.threads = args.threads;
    config.raster.msaa = args.msaa;
    apply_config_settings(config, args.settings);  // --set: the base; the suite sets what it compares
    config.tiling.mode = TilingMode::adaptive;
    config.tiling.baselines = true;
    Renderer renderer(config);
    Frame frame;
    std::vector<double> generation_ms;
    for (int i = 0; i < args.warmup + args.repetitions; ++i) {
      frame = renderer.render(scene, scene.camera);
      if (i >= args.warmup) generation_ms.push_back(frame.stats.get_number("frame.time_ms.supertile_generation"));
    }
    std::sort(generation_ms.begin(), generation_ms.end());
    const double generation = generation_ms[generation_ms.size() / 2];
    const Stats& s = frame.stats;
    std::vector<Row> rows;
    for (int size = 16; size <= 256; size *= 2) {
      const std::string name = "fixed_" + std::to_string(size);
      if (s.has("tiling.baseline." + name + ".render_tiles")) rows.push_back(read_row(s, name));
    }
    const Row adaptive = read_row(s, "adaptive");
    const Row* best = nullptr;
    for (const Row& r : rows) {
      if (r.within_budget && (!best || r.redundant < best->redundant)) best = &r;
    }
    const std::string name = path.stem().string();
    std::printf(
        "%s: %dx%d, %llu triangles, %dx MSAA, tile buffer %d KiB, %llu supertiles (capacity %llu atomic tiles)\n",
        name.c_str(), args.width, args.height, (unsigned long long)s.get_u64("frame.triangles"), args.msaa,
        config.tiling.tile_buffer_bytes / 1024, (unsigned long long)s.get_u64("tiling.supertiles.count"),
        (unsigned long long)s.get_u64("tiling.supertiles.capacity"));
    std::printf("  %-10s %6s %8s %10s %12s %10s %12s %12s %12s\n", "tiling", "fits", "tiles", "crossings", "pass-2 VS",
                "redundant", "VS bytes", "PB written", "PB read");
    nlohmann::ordered_json tilings = nlohmann::ordered_json::array();
    auto print = [&](const Row& r) {
      std::printf("  %-10s %6s %8llu %10llu %12llu %9.2f%% %12llu %12llu %12llu\n", r.tiling.c_str(),
                  r.within_budget ? "yes" : "no", (unsigned long long)r.render_tiles, (unsigned long long)r.crossings,
                  (unsigned long long)r.pass2, r.redundant_percent, (unsigned long long)r.vertex_bytes,
                  (unsigned long long)r.pb_written, (unsigned long long)r.pb_read);
      tilings.push_back({{"tiling", r.tiling},
                         {"within_budget", r.within_budget},
                         {"render_tiles", r.render_tiles},
                         {"crossings", r.crossings},
                         {"pass2_invocations", r.pass2},
                         {"redundant_invocations", r.redundant},
                         {"redundant_percent", r.redundant_percent},
                         {"vertex_fetch_bytes", r.vertex_bytes},
                         {"parameter_buffer_written_bytes", r.pb_written},
                         {"parameter_buffer_read_bytes", r.pb_read}});
    };
    for (const Row& r : rows) print(r);
    print(adaptive);
    nlohmann::ordered_json result;
    result["name"] = name;
    result["width"] = args.width;
    result["height"] = args.height;
    result["msaa"] = args.msaa;
    result["triangles"] = s.get_u64("frame.triangles");
    result["tilings"] = tilings;
    result["supertile_generation_ms"] = generation;
    if (best) {
      const double redundant_ratio = best->redundant
                                         ? double(adaptive.redundant) / double(best->redundant)
                                         : (adaptive.redundant ? std::numeric_limits<double>::infinity() : 1.0);
      const double bytes_ratio = double(adaptive.vertex_bytes) / double(best->vertex_bytes);
      std::printf("  adaptive / best fixed (%s): redundant VS %.3f, vertex bytes %.3f; generation %.2f ms per frame\n",
                  best->tiling.c_str(), redundant_ratio, bytes_ratio, generation);
      result["best_fixed"] = best->tiling;
      result["redundant_ratio"] = redundant_ratio;
      result["vertex_bytes_ratio"] = bytes_ratio;
    } else {
      std::printf("  no fixed tiling fits the tile buffer; generation %.2f ms per frame\n", generation);
    }
    std::fflush(stdout);
    results.push_back(result);
  }
  nlohmann::ordered_json doc;
  doc["suite"] = "tiling";
  doc["results"] = results;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

}  // namespace tessera::cli
