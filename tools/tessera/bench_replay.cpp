// `tessera bench replay`: the time to replay a captured frame against `tessera render`'s time
// for the same geometry, in one run. The capture is made from the scene itself: every
// instance's triangles transformed to clip space with the scene camera (as the layer captures
// a real application's draws: three positions per triangle with their vertex ids), so both
// sides rasterize the same triangles at the same size; the ratio is replay / render (median of
// the repetitions). docs/replay.md, "Speed".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "files.h"
#include "tessera/error.h"
#include "tessera/replay.h"

namespace tessera::cli {

namespace {

// The scene's instances as one captured frame (one draw per instance, one render pass).
capture::Capture capture_of_scene(const Scene& scene, int width, int height, int samples) {
  const CameraMatrices cam = camera_matrices(scene.camera, width, height);
  capture::Capture cap;
  cap.application = "tessera bench replay: " + scene.source.stem().string();
  cap.device = "Tessera (synthetic capture)";
  capture::Frame frame;
  capture::RenderPass pass;
  pass.area_width = uint32_t(width);
  pass.area_height = uint32_t(height);
  pass.samples = uint32_t(samples);
  pass.clears_depth = true;
  frame.passes.push_back(pass);
  for (const Instance& inst : scene.instances) {
    const Mesh& mesh = scene.meshes[inst.mesh];
    capture::Draw d;
    d.captured = true;
    d.call = capture::DrawCall::draw_indexed;
    d.vertex_count = uint32_t(mesh.indices.size());
    d.instance_count = 1;
    d.shaders = {{capture::ShaderStage::vertex, "main", 60, 0}, {capture::ShaderStage::fragment, "main", 80, 0}};
    d.state.raster.samples = samples;
    d.state.raster.viewport = ViewportState{0, 0, float(width), float(height), 0, 1};
    d.positions.reserve(mesh.indices.size());
    for (uint32_t i : mesh.indices) {
      // As the vertex program computes it (shaders/lambert.h): world first, then clip.
      const glm::vec4 world = inst.transform * glm::vec4(mesh.vertices[i].position, 1.0f);
      d.positions.push_back(cam.view_projection * world);
      d.vertex_ids.push_back(i);
      d.instance_ids.push_back(0);
    }
    frame.draws.push_back(std::move(d));
  }
  cap.frames.push_back(std::move(frame));
  return cap;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int run_replay_bench(const BenchArgs& args, const std::vector<std::filesystem::path>& scenes) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  // A real capture (the layer's, e.g. the layer test application's `scene` mode) is read once,
  // outside the timed runs; it is timed against the one scene given.
  std::optional<capture::Capture> real;
  if (!args.capture.empty()) {
    if (scenes.size() != 1) throw Error("bench replay --capture: give exactly one --scene (the render peer)");
    real = capture::read_capture(args.capture);
    if (real->frames.empty()) throw Error(args.capture.string() + ": the capture holds no frame");
  }
  for (const auto& path : scenes) {
    const Scene scene = load_scene(path);
    Config config;
    config.frame.width = args.width;
    config.frame.height = args.height;
    config.frame.threads = args.threads;
    config.raster.msaa = args.msaa;
    Renderer renderer(config);
    const capture::Capture cap = real ? std::move(*real) : capture_of_scene(scene, args.width, args.height, args.msaa);
    using Clock = std::chrono::steady_clock;
    std::vector<double> render_ms, replay_ms;
    uint64_t render_triangles = 0, replay_triangles = 0, render_fragments = 0, replay_fragments = 0;
    // Alternate the two so drift in the machine's load touches both alike.
    for (int i = 0; i < args.warmup + args.repetitions; ++i) {
      auto t0 = Clock::now();
      const Frame frame = renderer.render(scene, scene.camera);
      const double a = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      t0 = Clock::now();
      const replay::FrameReplay r = replay::replay_frame(renderer, cap, 0);
      const double b = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (i >= args.warmup) {
        render_ms.push_back(a);
        replay_ms.push_back(b);
      }
      render_triangles = frame.stats.get_u64("raster.triangles.in");
      replay_triangles = r.stats.get_u64("raster.triangles.in");
      render_fragments = frame.stats.get_u64("raster.fragments.covered");
      replay_fragments = r.stats.get_u64("raster.fragments.covered");
    }
    const double ra = median(render_ms), rb = median(replay_ms);
    const std::string name = path.stem().string();
    std::printf("%s: %dx%d, %dx MSAA, %d threads (0 = all)\n", name.c_str(), args.width, args.height, args.msaa,
                args.threads);
    std::printf("  render  %10.2f ms  %llu triangles, %llu fragments\n", ra, (unsigned long long)render_triangles,
                (unsigned long long)render_fragments);
    std::printf("  replay  %10.2f ms  %llu triangles, %llu fragments (%s)\n", rb, (unsigned long long)replay_triangles,
                (unsigned long long)replay_fragments,
                args.capture.empty()
                    ? "capture of the same view"
                    : ("capture " + args.capture.string() + ", " + cap.application + " on " + cap.device).c_str());
    std::printf("  replay / render: %.3f\n", rb / ra);
    std::fflush(stdout);
    results.push_back({{"name", name},
                       {"width", args.width},
                       {"height", args.height},
                       {"msaa", args.msaa},
                       {"render_ms", ra},
                       {"replay_ms", rb},
                       {"ratio", rb / ra},
                       {"render_triangles", render_triangles},
                       {"replay_triangles", replay_triangles},
                       {"capture", args.capture.empty() ? std::string("synthetic") : args.capture.string()},
                       {"render_fragments", render_fragments},
                       {"replay_fragments", replay_fragments}});
  }
  nlohmann::ordered_json doc;
  doc["suite"] = "replay";
  doc["results"] = results;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return 0;
}

}  // namespace tessera::cli
