// `tessera replay`: captured frames (.tcap, docs/capture.md) through Tessera's
// units, to images, statistics in `tessera render`'s schema plus capture.*, and
// per-draw statistics (docs/replay.md).
#include <fstream>
#include <iostream>
#include <sstream>

#include "color_state_image.h"
#include "commands.h"
#include "files.h"
#include "progress.h"
#include "replay_images.h"
#include "stats_csv.h"
#include "summary.h"
#include "tessera/capture.h"
#include "tessera/error.h"
#include "tessera/replay.h"
#include "tiling_images.h"

namespace tessera::cli {

namespace {

// One replayed frame of the batch: which capture, which frame.
struct Item {
  size_t capture = 0;
  size_t frame = 0;
};

// --frame N | all
std::vector<size_t> selected_frames(const std::string& spec, const capture::Capture& cap,
                                    const std::filesystem::path& path) {
  std::vector<size_t> out;
  if (spec == "all") {
    for (size_t i = 0; i < cap.frames.size(); ++i) out.push_back(i);
    if (out.empty()) throw Error(path.string() + ": the capture holds no frame");
    return out;
  }
  size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(spec, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (spec.empty() || used != spec.size() || spec[0] == '-')
    throw Error("--frame " + spec + ": expected a frame index (0 = the first frame in the file) or all");
  if (n >= cap.frames.size()) {
    throw Error(path.string() + ": --frame " + spec + " does not exist (the capture holds " +
                std::to_string(cap.frames.size()) + " frame" + (cap.frames.size() == 1 ? "" : "s") + ")");
  }
  return {size_t(n)};
}

std::string draws_csv(const replay::FrameReplay& r) {
  std::ostringstream o;
  o << "draw,pass,replayed,skip_reason,triangles,vertices,vertex_instructions,"
       "fragment_instructions,"
       "primitives_in,culled,culled_nonfinite,culled_frustum,culled_facing,culled_scissor,clipped,clip_output,"
       "after_clipping,after_face_culling,setup,bin_entries,tiles_touched,atomic_entries,picb,fragments_covered,"
       "samples_covered,depth_passed,quads_shaded,fs_invocations\n";
  for (size_t i = 0; i < r.draws.size(); ++i) {
    const replay::DrawReport& d = r.draws[i];
    const DrawWork& w = d.work;
    o << i << ',' << d.pass << ',' << (d.replayed ? 1 : 0) << ',' << d.skip_reason << ',' << d.triangles << ','
      << d.vertices << ',' << d.vertex_instructions << ',' << d.fragment_instructions << ',' << w.primitives_in << ','
      << w.culled << ',' << w.culled_nonfinite << ',' << w.culled_frustum << ',' << w.culled_facing << ','
      << w.culled_scissor << ',' << w.clipped << ',' << w.clip_output << ',' << w.after_clipping() << ','
      << w.after_face_culling() << ',' << w.setup << ',' << w.bin_entries << ',' << w.tiles_touched << ','
      << w.atomic_entries << ',' << w.picb << ',' << w.fragments_covered << ',' << w.samples_covered << ','
      << w.depth_passed << ',' << w.quads_shaded << ',' << w.fs_invocations << '\n';
  }
  return o.str();
}

}  // namespace

void add_replay_command(CLI::App& app, ReplayArgs& args) {
  CLI::App* cmd = app.add_subcommand("replay",
                                     "Replay captured frames (.tcap) through Tessera's units: "
                                     "images, statistics, per-draw statistics");
  cmd->add_option("captures", args.captures, "Capture files written by the layer (docs/capture.md)")->required();
  cmd->add_option("--frame", args.frame, "Frame to replay: its index in each file (0 = the first) or all");
  cmd->add_option("-o,--output", args.output,
                  "Output PNG: captured colour, draw ID, depth and overdraw "
                  "side by side (batches insert _NNNN)");
  cmd->add_option("--stats", args.stats, "Statistics JSON (render's schema plus capture.*; docs/replay.md)");
  cmd->add_option("--csv", args.csv, "One CSV row of numeric statistics per replayed frame");
  cmd->add_option("--draws", args.draws, "Per-draw statistics CSV (one row per captured draw)");
  cmd->add_option("--depth", args.depth, "Replayed depth, visualised, with legend");
  cmd->add_option("--draw-id", args.draw_id, "The draw that wrote each pixel, one colour per draw");
  cmd->add_option("--overdraw", args.overdraw, "Overdraw heat map (fragments passing depth per pixel) with legend");
  cmd->add_option("--tile-map", args.tile_map, "Tile workload: triangles binned per tile, heat map with legend");
  cmd->add_option("--color-state", args.color_state,
                  "Per-tile colour-unit state map on the captured colours "
                  "(multisampled capture or --msaa > 1)");
  cmd->add_option("--picb", args.picb, "PICB heat map over the frame, with legend");
  cmd->add_option("--supertiles", args.supertiles, "Supertile partition generated from the PICB, borders drawn");
  cmd->add_option("--bottleneck-map", args.bottleneck_map, "The timing model's limiting unit of every tile");
  cmd->add_option("--config", args.config, "Config JSON (docs/config.md); flags below override it");
  cmd->add_option("--threads", args.threads, "Worker threads, 0 = all (results never depend on it)");
  cmd->add_option("--tile-size", args.tile_size, "Fixed binning tile size in pixels (multiple of 8)");
  cmd->add_option("--tiling", args.tiling, "fixed[:N] or adaptive (supertiles), as in render");
  cmd->add_option("--msaa", args.msaa,
                  "Samples per pixel for single-sample passes (1, 2, 4 or 8); "
                  "multisampled passes keep their own");
  cmd->add_option("--hardware", args.hardware, "GPU class the timing model charges: small, medium or large");
  add_set_option(cmd, args.settings);
  cmd->add_flag("-q,--quiet", args.quiet, "No summary");
}

int run_replay(const ReplayArgs& args) {
  Config config = args.config.empty() ? Config{} : load_config(args.config);
  if (args.threads) config.frame.threads = *args.threads;
  if (args.tile_size) config.raster.tile_size = *args.tile_size;
  if (!args.tiling.empty()) apply_tiling_option(args.tiling, config);
  if (args.msaa) config.raster.msaa = *args.msaa;
  if (!args.hardware.empty())
    config.hardware = hardware_preset(parse_choice<HardwarePreset>("hardware.preset", args.hardware));
  apply_config_settings(config, args.settings);  // validates the whole config
  // The images draw the frame's diagnostics; the PICB and supertiles need the
  // tiler's accounting.
  config.frame.diagnostics = true;
  if (!args.picb.empty() || !args.supertiles.empty()) config.tiling.accounting = true;

  const bool default_output = args.output.empty();
  const std::filesystem::path output =
      default_output ? std::filesystem::path("out") / (args.captures.front().stem().string() + "_replay.png")
                     : args.output;
  if (default_output) {
    std::error_code ec;
    std::filesystem::create_directories(output.parent_path(), ec);
  }
  std::vector<OutputFile> outputs = {{"-o", output, true}};
  const std::pair<const char*, const std::filesystem::path*> images[] = {{"--depth", &args.depth},
                                                                         {"--draw-id", &args.draw_id},
                                                                         {"--overdraw", &args.overdraw},
                                                                         {"--tile-map", &args.tile_map},
                                                                         {"--color-state", &args.color_state},
                                                                         {"--picb", &args.picb},
                                                                         {"--supertiles", &args.supertiles},
                                                                         {"--bottleneck-map", &args.bottleneck_map}};
  for (const auto& [option, path] : images) {
    if (!path->empty()) outputs.push_back({option, *path, true});
  }
  if (!args.stats.empty()) outputs.push_back({"--stats", args.stats, false});
  if (!args.csv.empty()) outputs.push_back({"--csv", args.csv, false});
  if (!args.draws.empty()) outputs.push_back({"--draws", args.draws, false});
  std::vector<OutputFile> inputs = {{"--config", args.config, false}};
  for (const std::filesystem::path& c : args.captures) inputs.push_back({"capture", c, false});
  check_outputs(outputs, inputs);

  std::vector<capture::Capture> captures;
  std::vector<Item> items;
  for (size_t c = 0; c < args.captures.size(); ++c) {
    captures.push_back(capture::read_capture(args.captures[c]));
    for (size_t f : selected_frames(args.frame, captures.back(), args.captures[c])) items.push_back({c, f});
  }
  const bool batch = items.size() > 1;
  auto name = [&](const std::filesystem::path& p, size_t i) { return batch ? numbered(p, i) : p; };

  Renderer renderer(config);
  std::optional<StatsCsv> csv;
  if (!args.csv.empty()) csv.emplace(args.csv);
  ProgressBar progress("replay", items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const capture::Capture& cap = captures[items[i].capture];
    replay::FrameReplay r;
    try {
      r = replay::replay_frame(renderer, cap, items[i].frame);
    } catch (const Error& e) {
      throw Error(args.captures[items[i].capture].string() + ": " + e.what());  // name the file in a batch
    }
    r.stats.set("capture.file", args.captures[items[i].capture].string());
    r.stats.set("frame.index", uint64_t(i));
    const replay::PassReplay& main = r.passes[r.main_pass];
    const capture::RenderPass& pass = cap.frames[items[i].frame].passes[main.pass];
    const float clear_depth = pass.clears_depth ? pass.clear_depth : 1.0f;
    const Frame& frame = main.frame;
    write_png(name(output, i), replay_sheet(main, clear_depth));
    if (!args.depth.empty()) write_png(name(args.depth, i), replay_depth_image(frame, clear_depth));
    if (!args.draw_id.empty()) write_png(name(args.draw_id, i), replay_draw_id_image(frame, main));
    if (!args.overdraw.empty()) write_png(name(args.overdraw, i), replay_overdraw_image(frame));
    if (!args.tile_map.empty()) write_png(name(args.tile_map, i), replay_tile_map_image(frame));
    if (!args.color_state.empty()) write_png(name(args.color_state, i), color_state_image(frame));
    if (!args.picb.empty()) write_png(name(args.picb, i), picb_image(frame));
    if (!args.supertiles.empty()) write_png(name(args.supertiles, i), supertile_image(frame));
    if (!args.bottleneck_map.empty()) write_png(name(args.bottleneck_map, i), bottleneck_image(frame));
    if (!args.stats.empty()) write_text_file(name(args.stats, i), r.stats.to_json_text() + "\n");
    if (!args.draws.empty()) write_text_file(name(args.draws, i), draws_csv(r));
    if (csv) csv->add(r.stats);
    if (batch) progress.update(i + 1);
    if (!args.quiet && (!batch || i + 1 == items.size())) {
      std::cout << "replayed " << args.captures[items[i].capture].string() << " frame " << items[i].frame << " ("
                << r.stats.get_u64("capture.draws.replayed") << " of " << r.stats.get_u64("capture.draws.total")
                << " draws, " << r.stats.get_u64("capture.passes_replayed") << " pass(es)); wrote "
                << name(output, i).string();
      if (!args.stats.empty()) std::cout << " and " << name(args.stats, i).string();
      std::cout << (batch ? " (last of the batch)" : "") << "\n" << frame_summary(r.stats);
      // Loaded attachments: where each pass that loads started from (docs/replay.md).
      for (const replay::PassReplay& p : r.passes)
        if (!p.load_note.empty()) std::cout << "pass " << p.pass << ": " << p.load_note << "\n";
    }
  }
  return 0;
}

}  // namespace tessera::cli
