// `tessera render`: offline capture of one view or a batch of views to PNG + stats JSON.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <variant>

#include <glm/gtc/constants.hpp>

#include "camera_spec.h"
#include "color_state_image.h"
#include "tiling_images.h"
#include "commands.h"
#include "files.h"
#include "progress.h"
#include "summary.h"
#include "tessera/error.h"
#include "tessera/renderer.h"

namespace tessera::cli {

namespace {

// Turntable: N views around the camera's target, about the up axis, at the same height.
std::vector<Camera> orbit_cameras(const Camera& base, int frames) {
  std::vector<Camera> cams;
  const glm::vec3 up = glm::normalize(base.up);
  const glm::vec3 offset = base.position - base.target;
  const float height = glm::dot(offset, up);
  const glm::vec3 radial = offset - up * height;
  const glm::vec3 side = glm::cross(up, radial);
  for (int i = 0; i < frames; ++i) {
    const float a = glm::two_pi<float>() * float(i) / float(frames);
    Camera c = base;
    c.position = base.target + up * height + radial * std::cos(a) + side * std::sin(a);
    cams.push_back(c);
  }
  return cams;
}

// Per-frame series: a header of statistic names from the first frame, then one row per
// frame, flushed as it is written so an interrupted batch keeps every finished frame.
class StatsCsv {
 public:
  // Rows go to a temporary next to the target; the first finished frame renames it into place,
  // so a run that fails before any frame leaves an earlier series untouched.
  explicit StatsCsv(const std::filesystem::path& path) : path_(path), tmp_(temporary_path_next_to(path)) {
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) throw Error(path.string() + ": cannot open for writing");
  }
  ~StatsCsv() {
    std::error_code ec;
    if (!renamed_) std::filesystem::remove(tmp_, ec);
  }
  StatsCsv(const StatsCsv&) = delete;
  StatsCsv& operator=(const StatsCsv&) = delete;

  void add(const Stats& stats) {
    if (columns_.empty()) {
      for (const auto& [name, value] : stats.values()) {
        if (!std::holds_alternative<std::string>(value)) columns_.push_back(name);
      }
      for (size_t i = 0; i < columns_.size(); ++i) out_ << (i ? "," : "") << columns_[i];
      out_ << "\n";
    }
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (i) out_ << ',';
      if (!stats.has(columns_[i])) continue;  // empty cell: not measured in this frame
      const Stats::Value& v = stats.get(columns_[i]);
      if (const auto* u = std::get_if<uint64_t>(&v))
        out_ << *u;
      else if (const auto* n = std::get_if<int64_t>(&v))
        out_ << *n;
      else if (const auto* d = std::get_if<double>(&v); d && std::isfinite(*d))
        out_ << *d;
    }
    out_ << "\n";
    out_.flush();
    if (!out_) throw Error(path_.string() + ": write failed");
    // The open stream keeps appending to the renamed file: an interrupted batch keeps its rows.
    if (!renamed_) {
      std::error_code ec;
      std::filesystem::rename(tmp_, path_, ec);
      if (ec) throw Error(path_.string() + ": cannot replace file: " + ec.message());
      renamed_ = true;
    }
  }

 private:
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  std::ofstream out_;
  std::vector<std::string> columns_;
  bool renamed_ = false;
};

}  // namespace

void add_set_option(CLI::App* cmd, std::vector<std::string>& settings) {
  cmd->add_option("--set", settings,
                  "KEY=VALUE: any config key by its dotted path, typed and checked as in a config file, e.g. "
                  "--set tessellation.gpps=8 (repeatable; applied in order after --config and the other options)")
      ->allow_extra_args(false);
}

// --tiling fixed | fixed:N | adaptive
void apply_tiling_option(const std::string& spec, Config& config) {
  if (spec == "adaptive" || spec == "fixed") {
    config.tiling.mode = parse_choice<TilingMode>("tiling.mode", spec);
    return;
  }
  if (spec.rfind("fixed:", 0) == 0) {
    const std::string n = spec.substr(6);
    size_t used = 0;
    int size = 0;
    try {
      size = std::stoi(n, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != n.size() || n.empty())
      throw Error("--tiling " + spec + ": expected fixed:N with N a tile size in pixels");
    config.tiling.mode = TilingMode::fixed;
    config.raster.tile_size = size;
    return;
  }
  throw Error("--tiling " + spec + ": expected fixed, fixed:N or adaptive");
}

void apply_memory_limit_option(const std::string& spec) {
  const std::string problem =
      "--memory-limit " + spec + ": expected a size in bytes with an optional K, M, G or T suffix, e.g. 8G";
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(spec, &used);
  } catch (const std::exception&) {
    throw Error(problem);
  }
  std::string suffix = spec.substr(used);
  if (suffix.size() > 1 && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.pop_back();  // "8GB", "8GiB"
  if (suffix.size() > 1 && suffix.back() == 'i') suffix.pop_back();
  int shift = 0;
  if (suffix.size() == 1) {
    const size_t at = std::string("KMGT").find(char(std::toupper(static_cast<unsigned char>(suffix[0]))));
    if (at == std::string::npos) throw Error(problem);
    shift = 10 * int(at + 1);
  } else if (!suffix.empty()) {
    throw Error(problem);
  }
  const double bytes = std::ldexp(value, shift);
  // At least 1 MiB (below it no scene loads), at most 2^60.
  if (!(bytes >= double(1 << 20) && bytes <= std::ldexp(1.0, 60))) {
    throw Error("--memory-limit " + spec + ": out of range [1M, 1048576T]");
  }
  set_memory_limit(uint64_t(bytes));
}

void add_render_command(CLI::App& app, RenderArgs& args) {
  CLI::App* cmd = app.add_subcommand("render", "Render a scene to PNG and write per-unit statistics (offline capture)");
  cmd->add_option("scene", args.scene, "Scene JSON file (docs/scene-format.md)")->required();
  cmd->add_option("-o,--output", args.output, "Output PNG (batches insert _NNNN before the extension)");
  cmd->add_option("--stats", args.stats, "Statistics JSON (docs/stats.md)");
  cmd->add_option("--color-state", args.color_state, "Per-tile colour-unit state map with legend (needs --msaa > 1)");
  cmd->add_option("--picb", args.picb, "PICB heat map over the frame (adaptive tiling), with legend");
  cmd->add_option("--supertiles", args.supertiles, "Supertile partition generated from the PICB, borders drawn");
  cmd->add_option("--lod-map", args.lod_map,
                  "LOD level each pixel's primary ray hit (needs --mode rt), tinted over the frame, with a legend");
  cmd->add_option("--gpp-map", args.gpp_map,
                  "Second image of the frame: tessellated triangles in the colour of the GPP that tessellated them, "
                  "the rest grey (flat, unlit)");
  cmd->add_option("--gpps", args.gpps, "Geometry processing pipelines for tessellation (1..16)");
  cmd->add_option("--csv", args.csv, "Per-frame series: one CSV row of numeric statistics per frame");
  cmd->add_option("--config", args.config, "Config JSON (docs/config.md); flags below override it");
  cmd->add_option("--width", args.width, "Frame width in pixels (1..16384)");
  cmd->add_option("--height", args.height, "Frame height in pixels (1..16384)");
  cmd->add_option("--threads", args.threads, "Worker threads, 0 = all (results never depend on it)");
  cmd->add_option("--tile-size", args.tile_size, "Fixed binning tile size in pixels (multiple of 8)");
  cmd->add_option("--tiling", args.tiling,
                  "What the raster path renders: fixed[:N] (tiles of N pixels, default raster.tile_size) or adaptive "
                  "(supertiles of atomic tiles)");
  cmd->add_option("--mode", args.mode,
                  "raster (default), rt (every pixel by rays: primary, shadow, mirror and diffuse bounces) or hybrid "
                  "(raster visibility, rays for shadows and mirror reflections); docs/rt.md");
  cmd->add_option("--diffuse-samples", args.diffuse_samples, "Diffuse bounce rays per pixel in rt mode (0..64)");
  cmd->add_option("--msaa", args.msaa, "Samples per pixel: 1, 2, 4 or 8 (Vulkan standard positions, box resolve)");
  cmd->add_option("--camera", args.cameras,
                  "View: a name or index from the scene's \"cameras\", or px,py,pz,tx,ty,tz[,fov]; repeat for a batch");
  cmd->add_flag("--all-cameras", args.all_cameras, "Batch: the scene camera, then every entry of \"cameras\"");
  cmd->add_option("--orbit", args.orbit, "Batch: N turntable frames around the camera target")
      ->check(CLI::Range(0, 100000));
  cmd->add_flag("-q,--quiet", args.quiet, "No summary");
  cmd->add_option("--hardware", args.hardware,
                  "GPU class the timing model charges the frame to: small, medium or large (the whole hardware section "
                  "from that preset, docs/timing.md)");
  cmd->add_option("--bottleneck-map", args.bottleneck_map,
                  "The timing model's limiting unit of every tile, tinted over the frame, with a legend");
  cmd->add_option("--memory-limit", args.memory_limit,
                  "Memory a scene may be estimated to need, e.g. 8G (default: half of physical memory); a larger "
                  "scene is refused before it is built");
  add_set_option(cmd, args.settings);
}

int run_render(const RenderArgs& args) {
  if (!args.memory_limit.empty()) apply_memory_limit_option(args.memory_limit);
  Config config = args.config.empty() ? Config{} : load_config(args.config);
  if (args.width) config.frame.width = *args.width;
  if (args.height) config.frame.height = *args.height;
  if (args.threads) config.frame.threads = *args.threads;
  if (args.tile_size) config.raster.tile_size = *args.tile_size;
  if (!args.tiling.empty()) apply_tiling_option(args.tiling, config);
  if (args.msaa) config.raster.msaa = *args.msaa;
  if (args.gpps) config.tessellation.gpps = *args.gpps;
  if (!args.mode.empty()) config.frame.mode = parse_choice<FrameMode>("frame.mode", args.mode);
  if (args.diffuse_samples) config.trace.diffuse_samples = *args.diffuse_samples;
  if (!args.hardware.empty())
    config.hardware = hardware_preset(parse_choice<HardwarePreset>("hardware.preset", args.hardware));
  apply_config_settings(config, args.settings);  // validates the whole config
  // The maps draw the frame's diagnostics (the PICB and supertiles need the tiler's accounting).
  if (!args.picb.empty() || !args.supertiles.empty() || !args.color_state.empty() || !args.lod_map.empty() ||
      !args.bottleneck_map.empty()) {
    config.frame.diagnostics = true;
  }
  if (!args.picb.empty() || !args.supertiles.empty()) config.tiling.accounting = true;
  if (config.frame.mode != FrameMode::raster && !args.bottleneck_map.empty()) {
    throw Error("--bottleneck-map shows the raster path's tiles: use --mode raster");
  }
  if (config.frame.mode != FrameMode::rt && !args.lod_map.empty())
    throw Error("--lod-map shows the ray-traced path: use --mode rt");
  if (config.frame.mode == FrameMode::rt &&
      (!args.picb.empty() || !args.supertiles.empty() || !args.color_state.empty())) {
    throw Error("--picb, --supertiles and --color-state show the raster path: use --mode raster or hybrid");
  }

  // Every output is checked before the scene loads or anything renders, so a bad path fails at
  // once and never after -o has been replaced.
  const bool default_output = args.output.empty();
  const std::filesystem::path output =
      default_output ? std::filesystem::path("out") / (args.scene.stem().string() + ".png") : args.output;
  if (default_output) {
    // Only the default folder is made: an explicit path's folder must exist.
    std::error_code ec;
    std::filesystem::create_directories(output.parent_path(), ec);
  }
  std::vector<OutputFile> outputs = {{"-o", output, true}};
  const std::pair<const char*, const std::filesystem::path*> maps[] = {
      {"--color-state", &args.color_state}, {"--picb", &args.picb},       {"--supertiles", &args.supertiles},
      {"--gpp-map", &args.gpp_map},         {"--lod-map", &args.lod_map}, {"--bottleneck-map", &args.bottleneck_map}};
  for (const auto& [option, path] : maps) {
    if (!path->empty()) outputs.push_back({option, *path, true});
  }
  if (!args.stats.empty()) outputs.push_back({"--stats", args.stats, false});
  if (!args.csv.empty()) outputs.push_back({"--csv", args.csv, false});
  check_outputs(outputs, {{"scene", args.scene, false}, {"--config", args.config, false}});

  const Scene scene = load_scene(args.scene);

  std::vector<Camera> views;
  for (const std::string& spec : args.cameras) views.push_back(parse_camera(spec, scene));
  if (args.all_cameras) {
    views.push_back(scene.camera);
    views.insert(views.end(), scene.cameras.begin(), scene.cameras.end());
  }
  if (args.orbit > 0) {
    const std::vector<Camera> orbit = orbit_cameras(views.empty() ? scene.camera : views.front(), args.orbit);
    if (!views.empty()) views.erase(views.begin());
    views.insert(views.begin(), orbit.begin(), orbit.end());
  }
  if (views.empty()) views.push_back(scene.camera);
  // An orbit about a camera looking along its up axis would have no defined orientation.
  if (args.orbit > 0) {
    for (size_t i = 0; i < size_t(args.orbit); ++i) validate_camera(views[i], "--orbit view " + std::to_string(i));
  }
  const bool batch = views.size() > 1;

  Renderer renderer(config);
  std::optional<Renderer> map_renderer;
  if (!args.gpp_map.empty()) {
    Config map_config = config;
    map_config.tessellation.gpp_map = true;
    map_config.frame.mode = FrameMode::raster;  // the GPP map is a raster image
    map_config.tessellation.baselines = false;
    map_config.tiling.baselines = false;
    map_renderer.emplace(map_config);
  }
  std::optional<StatsCsv> csv;
  if (!args.csv.empty()) csv.emplace(args.csv);
  ProgressBar progress("render", views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    Frame frame = renderer.render(scene, views[i]);
    frame.stats.set("frame.scene", args.scene.string());
    frame.stats.set("frame.index", uint64_t(i));
    const std::filesystem::path png = batch ? numbered(output, i) : output;
    write_png(png, frame.color);
    if (!args.color_state.empty())
      write_png(batch ? numbered(args.color_state, i) : args.color_state, color_state_image(frame));
    if (!args.picb.empty()) write_png(batch ? numbered(args.picb, i) : args.picb, picb_image(frame));
    if (!args.lod_map.empty()) write_png(batch ? numbered(args.lod_map, i) : args.lod_map, lod_image(frame));
    if (!args.bottleneck_map.empty()) {
      write_png(batch ? numbered(args.bottleneck_map, i) : args.bottleneck_map, bottleneck_image(frame));
    }
    if (!args.supertiles.empty())
      write_png(batch ? numbered(args.supertiles, i) : args.supertiles, supertile_image(frame));
    if (map_renderer)
      write_png(batch ? numbered(args.gpp_map, i) : args.gpp_map, map_renderer->render(scene, views[i]).color);
    if (!args.stats.empty()) {
      write_text_file(batch ? numbered(args.stats, i) : args.stats, frame.stats.to_json_text() + "\n");
    }
    if (csv) csv->add(frame.stats);
    if (batch) progress.update(i + 1);
    if (!args.quiet && (!batch || i + 1 == views.size())) {
      std::cout << "wrote " << png.string();
      if (!args.stats.empty()) std::cout << " and " << (batch ? numbered(args.stats, i) : args.stats).string();
      std::cout << (batch ? " (last of the batch)" : "") << "\n" << frame_summary(frame.stats);
    }
  }
  return 0;
}

}  // namespace tessera::cli
