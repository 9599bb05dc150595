// Subcommands of the `tessera` tool.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tessera/config.h"

namespace tessera::cli {

struct RenderArgs {
  std::filesystem::path scene;
  std::filesystem::path output;       // PNG
  std::filesystem::path stats;        // stats JSON (optional)
  std::filesystem::path csv;          // one row of numeric stats per frame (optional)
  std::filesystem::path color_state;  // per-tile colour-unit state map (optional, MSAA)
  std::filesystem::path picb;         // PICB heat map (optional)
  std::filesystem::path supertiles;   // supertile partition (optional)
  std::filesystem::path gpp_map;      // triangles coloured by the GPP that tessellated them (optional)
  std::filesystem::path lod_map;      // LOD level hit per pixel (optional, rt mode)
  std::optional<int> gpps;            // tessellation.gpps override
  std::filesystem::path config;       // config JSON (optional)
  std::optional<int> width, height, threads, tile_size, msaa;
  std::string tiling;                  // --tiling fixed[:N] | adaptive
  std::string mode;                    // --mode raster | rt | hybrid (frame.mode)
  std::optional<int> diffuse_samples;  // trace.diffuse_samples override
  std::vector<std::string> cameras;    // explicit views: index into the scene's "cameras" or px,py,pz,tx,ty,tz[,fov]
  bool all_cameras = false;            // the scene camera plus every entry of "cameras"
  int orbit = 0;                       // N turntable frames around the camera target
  bool quiet = false;
  std::string memory_limit;              // --memory-limit: bytes with an optional K, M, G or T suffix
  std::string hardware;                  // --hardware small | medium | large (hardware.preset)
  std::filesystem::path bottleneck_map;  // timing model's limiting unit per tile (optional)
  std::vector<std::string> settings;     // --set KEY=VALUE, applied after every other option
};

// --set KEY=VALUE (repeatable): any config key by its dotted path (apply_config_settings).
void add_set_option(CLI::App* cmd, std::vector<std::string>& settings);

// --tiling fixed | fixed:N | adaptive into config (tiling.mode, raster.tile_size).
void apply_tiling_option(const std::string& spec, Config& config);
// --memory-limit 8G | 512M | 1073741824: the process's scene memory budget (set_memory_limit).
void apply_memory_limit_option(const std::string& spec);
void add_render_command(CLI::App& app, RenderArgs& args);
int run_render(const RenderArgs& args);

struct BenchArgs {
  std::string suite;
  std::filesystem::path json;
  std::vector<std::filesystem::path> scenes;
  int width = 1920;
  int height = 1080;
  int repetitions = 5;
  int warmup = 1;
  int threads = 0;
  int msaa = 1;
  std::string hardware = "medium";  // timing suite: the preset
  std::string memory_limit;         // --memory-limit, as in render
  std::filesystem::path capture;    // replay suite: a layer capture replayed instead of a synthetic one
  // layer suite (bench_layer.cpp)
  int frames = 300;
  std::filesystem::path layer_app;     // the layer's test application
  std::filesystem::path layer_prefix;  // an install prefix of the layer instead of the build tree
  std::string driver;                  // ICD manifest, "system", empty = lavapipe
  std::vector<std::string> settings;   // --set KEY=VALUE: the base config of the rendering suites
};

void add_bench_command(CLI::App& app, BenchArgs& args);
int run_bench(const BenchArgs& args);
// bench_tess.cpp
int run_tess_bench(const BenchArgs& args);
// bench_tiling.cpp
int run_tiling_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes);
// bench_timing.cpp
int run_timing_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes);
// bench_replay.cpp
int run_replay_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes);
// bench_layer.cpp
void add_layer_bench_options(CLI::App* bench, BenchArgs& args);
int run_layer_bench(const BenchArgs& args);

struct ViewArgs {
  std::filesystem::path scene;       // default: assets/default.json
  std::filesystem::path screenshot;  // screenshot mode: frame-buffer PNG (+ .window.png, .stats.json)
  std::filesystem::path config;      // config JSON (optional)
  int frames = 1;                    // screenshot mode: frames rendered before the capture
  int width = 1280;                  // window size
  int height = 800;
  float scale = 1.0f;  // frame buffer = window framebuffer x scale
  std::optional<int> threads, tile_size, msaa;
  std::string camera;                 // start view, as render --camera
  std::string overlay = "none";       // start overlay: a key of viewer::kOverlays
  std::string tiling;                 // --tiling fixed[:N] | adaptive
  std::string memory_limit;           // --memory-limit, as in render
  std::vector<std::string> settings;  // --set KEY=VALUE, as in render
  size_t capture_frame = 0;           // captures (.tcap): the frame to replay
  std::optional<size_t> draw;         // captures: the scrubber's start (default: the last draw)
};

void add_view_command(CLI::App& app, ViewArgs& args);
int run_view(const ViewArgs& args);

struct ReplayArgs {
  std::vector<std::filesystem::path> captures;  // .tcap files
  std::string frame = "0";                      // --frame N | all
  std::filesystem::path output;                 // sheet PNG: captured colour, draw ID, depth, overdraw
  std::filesystem::path stats, csv, draws;      // stats JSON, per-frame CSV, per-draw CSV
  std::filesystem::path depth, draw_id, overdraw, tile_map, color_state, picb, supertiles, bottleneck_map;
  std::filesystem::path config;
  std::optional<int> threads, tile_size, msaa;
  std::string tiling, hardware;
  std::vector<std::string> settings;  // --set KEY=VALUE, as in render
  bool quiet = false;
};

void add_replay_command(CLI::App& app, ReplayArgs& args);
int run_replay(const ReplayArgs& args);

// capture_command.cpp: `tessera capture info FILE` and `tessera capture export FILE --frame N
// --draw K --obj OUT.obj` (docs/capture.md).
struct CaptureArgs {
  std::string action;  // "info" or "export" (the subcommand given)
  std::filesystem::path file;
  bool json = false;
  uint64_t frame = 0;  // export: Frame::number
  size_t draw = 0;     // export: index into the frame's draws
  std::filesystem::path obj;
  std::string memory_limit;  // --memory-limit, as in render
};

void add_capture_command(CLI::App& app, CaptureArgs& args);
int run_capture(const CaptureArgs& args);

}  // namespace tessera::cli
