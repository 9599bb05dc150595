// Writes a synthetic capture for the replay CLI tests (tests/replay): what the layer would
// write for two frames of a known scene, with attachments computed analytically.
//   frame 0: one single-sample 64x48 pass, two rectangles at depths 0.25 and 0.5 (the second
//            partly behind the first), one draw the layer could not capture; a D32 depth
//            attachment and an RGBA8 colour attachment holding exactly what a GPU draws.
//   frame 1: one 4x 64x48 pass, one triangle; its colour attachment's samples.
//   make_capture OUT.tcap
#include <cstdio>
#include <cstring>
#include <exception>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_capture OUT.tcap\n");
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
