// Writes a synthetic capture for the replay CLI tests (tests/replay): what the layer would
// write for two frames of a known scene, with attachments computed analytically.
//   frame 0: one single-sample 64x48 pass, two rectangles at depths 0.25 and 0.5 (the second
//            partly behind the first), one draw the layer could not capture; a D32 depth
//            attachment and an RGBA8 colour attachment holding exactly what a GPU draws.
//   frame 1: one 4x 64x48 pass, one triangle; its colour attachment's samples.
//   make_capture OUT.tcap
//   make_capture --hostile DIR
//       captures that are valid files but hostile to replay, one per file (replay_cli.sh says
//       what `tessera replay` must make of each): only skipped draws, a zero-area viewport, a
//       scissor outside the attachment, NaN and infinite positions, absurd counts and extents.
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tessera/capture.h"

using namespace tessera;

namespace {

constexpr int kW = 64, kH = 48;

capture::Draw rect(float x0, float y0, float x1, float y1, float z, int samples) {
  auto cx = [](float px) { return px / float(kW) * 2.0f - 1.0f; };
  auto cy = [](float py) { return py / float(kH) * 2.0f - 1.0f; };
  capture::Draw d;
  d.captured = true;
  d.call = capture::DrawCall::draw_indexed;
  d.vertex_count = 6;
  d.instance_count = 1;
  const glm::vec4 a{cx(x0), cy(y0), z, 1}, b{cx(x0), cy(y1), z, 1}, c{cx(x1), cy(y1), z, 1}, e{cx(x1), cy(y0), z, 1};
  d.positions = {a, b, c, a, c, e};
  d.vertex_ids = {0, 1, 2, 0, 2, 3};
  d.instance_ids = {0, 0, 0, 0, 0, 0};
  d.state.raster.cull = CullMode::none;
  d.state.raster.samples = samples;
  d.state.raster.viewport = ViewportState{0, 0, float(kW), float(kH), 0, 1};
  d.shaders = {{capture::ShaderStage::vertex, "main", 30, 11}, {capture::ShaderStage::fragment, "main", 12, 12}};
  return d;
}

capture::Attachment attachment(capture::AttachmentKind kind, int samples) {
  capture::Attachment a;
  a.kind = kind;
  a.vk_format = kind == capture::AttachmentKind::color ? 37 : 126;  // R8G8B8A8_UNORM, D32_SFLOAT
  a.width = kW;
  a.height = kH;
  a.samples = uint32_t(samples);
  a.texel_bytes = 4;
  a.texels.resize(size_t(kW) * kH * size_t(samples) * 4);
  return a;
}

// A capture of one 64x48 single-sample pass (D32 depth read back) holding `draws`.
capture::Capture one_pass(std::vector<capture::Draw> draws) {
  capture::Capture cap;
  cap.application = "replay-cli-hostile";
  capture::Frame f;
  f.number = 7;
  capture::RenderPass p;
  p.area_width = kW;
  p.area_height = kH;
  p.clears_depth = true;
  capture::Attachment depth = attachment(capture::AttachmentKind::depth, 1);
  const float one = 1.0f;
  for (size_t i = 0; i < size_t(kW) * kH; ++i) std::memcpy(&depth.texels[i * 4], &one, 4);
  p.attachments = {depth};
  f.passes.push_back(p);
  f.draws = std::move(draws);
  cap.frames.push_back(f);
  return cap;
}

int write_hostile(const std::string& dir) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::pair<std::string, capture::Capture>> files;
  {  // every draw skipped by the layer: nothing to replay
    capture::Draw a, b;
    a.skip_reason = "no_transform_feedback";
    b.skip_reason = "overflow";
    b.call = capture::DrawCall::draw_indexed_indirect;
    files.push_back({"only_skipped", one_pass({a, b})});
  }
  {  // a zero-area viewport beside a good draw
    capture::Draw bad = rect(0, 0, 8, 8, 0.5f, 1);
    bad.state.raster.viewport.width = 0;
    bad.state.raster.viewport.height = 0;
    files.push_back({"zero_viewport", one_pass({bad, rect(8, 8, 24, 24, 0.5f, 1)})});
  }
  {  // only zero-area viewports: nothing replayable
    capture::Draw bad = rect(0, 0, 8, 8, 0.5f, 1);
    bad.state.raster.viewport.height = 0;
    files.push_back({"only_zero_viewport", one_pass({bad})});
  }
  {  // scissors wholly outside the attachment, and one reaching far past it
    capture::Draw out = rect(0, 0, 64, 48, 0.25f, 1);
    out.state.raster.scissor = ScissorRect{100000, 100000, 16, 16};
    capture::Draw negative = rect(0, 0, 64, 48, 0.25f, 1);
    negative.state.raster.scissor = ScissorRect{-5000, -5000, 100, 100};
    capture::Draw past = rect(40, 30, 50, 40, 0.5f, 1);
    past.state.raster.scissor = ScissorRect{-2000000000, -2000000000, 4000000000u, 4000000000u};
    files.push_back({"scissor_outside", one_pass({out, negative, past})});
  }
  {  // NaN and infinite positions (one triangle each) beside finite ones
    capture::Draw d = rect(0, 0, 32, 32, 0.5f, 1);
    d.positions[0].x = nan;
    d.positions[4].w = inf;
    capture::Draw all = rect(0, 0, 64, 48, 0.1f, 1);
    for (glm::vec4& v : all.positions) v = glm::vec4(-inf, nan, inf, nan);
    files.push_back({"nonfinite", one_pass({d, all})});
  }
  {  // absurd counts and extents: counts the positions do not back, a viewport of 3e38
     // pixels, huge w, a pass larger than replay accepts beside a normal one
    capture::Draw counts = rect(0, 0, 16, 16, 0.5f, 1);
    counts.vertex_count = 4000000000u;
    counts.instance_count = 4000000000u;
    counts.primitives_needed = ~uint64_t(0);
    counts.primitives_written = ~uint64_t(0);
    capture::Draw huge_viewport = rect(0, 0, 16, 16, 0.5f, 1);
    huge_viewport.state.raster.viewport = ViewportState{-3e38f, -3e38f, 3e38f, 3e38f, 0, 1};
    capture::Draw huge_w = rect(0, 0, 16, 16, 0.5f, 1);
    for (glm::vec4& v : huge_w.positions) v *= 1e30f;
    capture::Capture cap = one_pass({counts, huge_viewport, huge_w});
    capture::RenderPass big;
    big.area_width = 65536;
    big.area_height = 65536;
    cap.frames[0].passes.push_back(big);
    capture::Draw in_big = rect(0, 0, 16, 16, 0.5f, 1);
    in_big.pass = 1;
    cap.frames[0].draws.push_back(in_big);
    files.push_back({"absurd", cap});
  }
  for (const auto& [name, cap] : files) capture::write_capture(dir + "/" + name + ".tcap", cap);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--hostile") {
    try {
      return write_hostile(argv[2]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "make_capture: %s\n", e.what());
      return 1;
    }
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_capture OUT.tcap | --hostile DIR\n");
    return 2;
  }
  capture::Capture cap;
  cap.application = "replay-cli-test";
  cap.engine = "none";
  cap.device = "analytic";
  cap.driver = "make_capture";
  // Frame 0: two rectangles, the near one drawn first.
  {
    capture::Frame f;
    f.number = 3;
    capture::RenderPass p;
    p.area_width = kW;
    p.area_height = kH;
    p.clears_depth = true;
    p.clear_colors = {glm::vec4(0, 0, 0, 1)};
    capture::Attachment color = attachment(capture::AttachmentKind::color, 1);
    capture::Attachment depth = attachment(capture::AttachmentKind::depth, 1);
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        const bool near = x >= 16 && x < 48 && y >= 8 && y < 40, far = x < 32 && y < 24;
        const float z = near ? 0.25f : far ? 0.5f : 1.0f;
        const size_t i = size_t(y) * kW + size_t(x);
        std::memcpy(&depth.texels[i * 4], &z, 4);
        const uint8_t rgba[4] = {uint8_t(near ? 200 : 0), uint8_t(far && !near ? 180 : 0), 40, 255};
        std::memcpy(&color.texels[i * 4], rgba, 4);
      }
    }
    p.attachments = {color, depth};
    f.passes.push_back(p);
    f.draws.push_back(rect(16, 8, 48, 40, 0.25f, 1));
    capture::Draw skipped;
    skipped.call = capture::DrawCall::draw_indirect;
    skipped.skip_reason = "no_transform_feedback";
    f.draws.push_back(skipped);
    f.draws.push_back(rect(0, 0, 32, 24, 0.5f, 1));
    cap.frames.push_back(f);
  }
  // Frame 1: a 4x pass whose colour samples alternate per sample inside a rectangle.
  {
    capture::Frame f;
    f.number = 4;
    capture::RenderPass p;
    p.area_width = kW;
    p.area_height = kH;
    p.samples = 4;
    p.clears_depth = true;
    p.clear_colors = {glm::vec4(0, 0, 0, 1)};
    capture::Attachment color = attachment(capture::AttachmentKind::color, 4);
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        for (int s = 0; s < 4; ++s) {
          const bool in = x >= 8 && x < 40 && y >= 4 && y < 30;
          const uint8_t rgba[4] = {uint8_t(in ? 90 + 10 * (s % 2) : 0), uint8_t(in ? 20 : 0), 0, 255};
          std::memcpy(&color.texels[((size_t(y) * kW + size_t(x)) * 4 + size_t(s)) * 4], rgba, 4);
        }
      }
    }
    p.attachments = {color};
    f.passes.push_back(p);
    f.draws.push_back(rect(8, 4, 40, 30, 0.5f, 4));
    cap.frames.push_back(f);
  }
  try {
    capture::write_capture(argv[1], cap);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
