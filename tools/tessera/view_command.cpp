// `tessera view`: the interactive viewer (tools/viewer), or a scripted screenshot of it.
#include <filesystem>

#include "camera_spec.h"
#include "commands.h"
#include "files.h"
#include "tessera/error.h"
#include "viewer/viewer.h"

namespace tessera::cli {

namespace {

// The shipped default scene: from the source tree the tool was built in, else from the CWD.
std::filesystem::path default_scene() {
  const std::filesystem::path installed = std::filesystem::path(TESSERA_SOURCE_DIR) / "assets" / "default.json";
  std::error_code ec;
  if (std::filesystem::exists(installed, ec)) return installed;
  return std::filesystem::path("assets") / "default.json";
}

}  // namespace

void add_view_command(CLI::App& app, ViewArgs& args) {
  CLI::App* cmd = app.add_subcommand("view", "Interactive viewer: the frame, per-unit statistics, plots and overlays");
  cmd->add_option("scene", args.scene, "Scene JSON file (default: assets/default.json)");
  cmd->add_option("--screenshot", args.screenshot,
                  "Render --frames frames, write the frame buffer to this PNG, the window to NAME.window.png and "
                  "the stats to NAME.stats.json, then exit");
  cmd->add_option("--frames", args.frames, "Frames rendered before --screenshot captures")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--width", args.width, "Window width (the frame buffer is the window size x --scale)")
      ->check(CLI::Range(64, 16384));
  cmd->add_option("--height", args.height, "Window height")->check(CLI::Range(64, 16384));
  cmd->add_option("--scale", args.scale, "Resolution scale of the frame buffer against the window, 0.25..2")
      ->check(CLI::Range(0.25f, 2.0f));
  cmd->add_option("--config", args.config, "Config JSON (docs/config.md); flags below override it");
  cmd->add_option("--threads", args.threads, "Worker threads, 0 = all (results never depend on it)");
  cmd->add_option("--tile-size", args.tile_size, "Fixed binning tile size in pixels (multiple of 8)");
  cmd->add_option("--tiling", args.tiling, "fixed[:N] or adaptive (supertiles), as in render");
  cmd->add_option("--msaa", args.msaa, "Samples per pixel: 1, 2, 4 or 8");
  std::vector<std::string> overlays;
  for (const viewer::OverlayInfo& info : viewer::kOverlays) overlays.push_back(info.key);
  cmd->add_option("--overlay", args.overlay, "Overlay shown at start")->check(CLI::IsMember(overlays));
  cmd->add_option("--camera", args.camera,
                  "Start view: a name or index from the scene's \"cameras\", or px,py,pz,tx,ty,tz[,fov]");
  cmd->add_option("--memory-limit", args.memory_limit,
                  "Memory a scene may be estimated to need, e.g. 8G (default: half of physical memory)");
  add_set_option(cmd, args.settings);
}

int run_view(const ViewArgs& args) {
  if (!args.memory_limit.empty()) apply_memory_limit_option(args.memory_limit);
  // The screenshot and its companions (NAME.window.png, NAME.stats.json) are checked before a
  // window opens or anything renders.
  if (!args.screenshot.empty()) {
    check_outputs({{"--screenshot", args.screenshot, true},
                   {"--screenshot (window)", viewer::window_screenshot_path(args.screenshot), true},
                   {"--screenshot (stats)", viewer::stats_screenshot_path(args.screenshot), false}});
  }
  viewer::ViewerOptions options;
  options.config = args.config.empty() ? Config{} : load_config(args.config);
  if (args.threads) options.config.frame.threads = *args.threads;
  if (args.tile_size) options.config.raster.tile_size = *args.tile_size;
  if (!args.tiling.empty()) apply_tiling_option(args.tiling, options.config);
  if (args.msaa) options.config.raster.msaa = *args.msaa;
  // frame.width/height follow the window and --scale; every other key keeps its --set value.
  apply_config_settings(options.config, args.settings);
  options.scene = args.scene.empty() ? default_scene() : args.scene;
  if (!args.camera.empty()) {
    const std::string spec = args.camera;
    options.pick_camera = [spec](const Scene& scene) { return parse_camera(spec, scene); };
  }
  options.window_width = args.width;
  options.window_height = args.height;
  options.resolution_scale = args.scale;
  for (const viewer::OverlayInfo& info : viewer::kOverlays) {
    if (args.overlay == info.key) options.overlay = info.kind;
  }
  options.screenshot = args.screenshot;
  options.frames = args.frames;
  return viewer::run_viewer(options);
}

}  // namespace tessera::cli
