// Subcommands of the `tessera` tool.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tessera::cli {

struct RenderArgs {
  std::filesystem::path scene;
  std::filesystem::path output;        // PNG
  std::filesystem::path stats;         // stats JSON (optional)
  std::filesystem::path csv;           // one row of numeric stats per frame (optional)
  std::filesystem::path config;        // config JSON (optional)
  std::optional<int> width, height, threads, tile_size;
  std::vector<std::string> cameras;    // explicit views: index into the scene's "cameras" or px,py,pz,tx,ty,tz[,fov]
  bool all_cameras = false;            // the scene camera plus every entry of "cameras"
  int orbit = 0;                       // N turntable frames around the camera target
  bool quiet = false;
};

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
};

void add_bench_command(CLI::App& app, BenchArgs& args);
int run_bench(const BenchArgs& args);

}  // namespace tessera::cli
