// The `tessera` command-line tool: offline capture (render), the interactive viewer (view),
// benchmarks (bench) and design-space sweeps (sweep).
#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "sweep.h"
#include "tessellate_command.h"
#include "tessera_build_commit.h"
#include "tessera/config.h"
#include "tessera/error.h"
#include "tessera/lane_target.h"

namespace {
// For --version: the SIMD target the lane code runs on and the others it could (a bad
// TESSERA_LANE_TARGET is reported there rather than ending the program before parsing).
std::string lane_target_line() {
  std::string runnable;
  for (const std::string& t : tessera::lane_targets()) runnable += (runnable.empty() ? "" : ", ") + t;
  try {
    return "lane target: " + tessera::lane_target() + " (runnable: " + runnable + ")";
  } catch (const tessera::Error& e) {
    return std::string("lane target: ") + e.what();
  }
}
}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::cli;
  CLI::App app{"Tessera: a software GPU that renders through modelled hardware units and reports what they did"};
  app.require_subcommand(1);
  RenderArgs render_args;
  BenchArgs bench_args;
  ViewArgs view_args;
  TessellateArgs tessellate_args;
  ReplayArgs replay_args;
  CaptureArgs capture_args;
  add_render_command(app, render_args);
  add_bench_command(app, bench_args);
  add_view_command(app, view_args);
  add_tessellate_command(app, tessellate_args);
  add_replay_command(app, replay_args);
  add_capture_command(app, capture_args);
  SweepArgs sweep_args;
  const SweepCommands sweep_commands = add_sweep_command(app, sweep_args);
  CLI::App* config_cmd = app.add_subcommand("config", "Print the full default configuration as JSON");
  const std::string commit = TESSERA_GIT_COMMIT;
  app.set_version_flag("--version", std::string("tessera ") + TESSERA_VERSION +
                                        (commit.empty() ? "" : " (commit " + commit + ")") + "\n" + lane_target_line());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end parsing "successfully": CLI11 prints them and exits 0.
    if (e.get_exit_code() == int(CLI::ExitCodes::Success)) return app.exit(e);
    // Every other parse failure is bad input like any other (docs/cli.md): one prefixed line,
    // status 1, instead of CLI11's own codes (104-109).
    std::cerr << "tessera: error: " << e.what() << "\n";
    std::cerr << "Run with --help for more information.\n";
    return 1;
  }
  try {
    if (app.got_subcommand("render")) return run_render(render_args);
    if (app.got_subcommand("bench")) return run_bench(bench_args);
    if (app.got_subcommand("view")) return run_view(view_args);
    if (app.got_subcommand("tessellate")) return run_tessellate(tessellate_args);
    if (app.got_subcommand("replay")) return run_replay(replay_args);
    if (app.got_subcommand("capture")) return run_capture(capture_args);
    if (app.got_subcommand("sweep")) return run_sweep(sweep_commands, sweep_args);
    if (config_cmd->parsed()) {
      std::cout << tessera::config_to_json_text(tessera::Config{}) << "\n";
      return 0;
    }
  } catch (const tessera::Error& e) {
    std::cerr << "tessera: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tessera: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
