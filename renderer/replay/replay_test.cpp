// Replay of synthetic captures (tessera/replay.h) whose coverage, depth and counts are known
// analytically: rectangles in clip space, vertex reuse from captured ids, hostile values, and
// the same frame at 1 and 2 threads and fixed and adaptive tiling.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include <glm/gtc/matrix_transform.hpp>

#include "color/color_tile.h"
#include "color/tile_store.h"
#include "tessera/error.h"
#include "tessera/procedural.h"
#include "tessera/scene.h"
#include "tessera/replay.h"

namespace tessera::replay {
namespace {

constexpr int kW = 64, kH = 48;

// Pixel x -> clip x for a full-framebuffer viewport (pixel edges at integer positions).
float clip_x(float px, int width = kW) { return px / float(width) * 2.0f - 1.0f; }
float clip_y(float py, int height = kH) { return py / float(height) * 2.0f - 1.0f; }

capture::Draw rect_draw(float x0, float y0, float x1, float y1, float z, int samples = 1, int width = kW,
                        int height = kH) {
  capture::Draw d;
  d.captured = true;
  d.vertex_count = 6;
  d.instance_count = 1;
  const glm::vec4 a{clip_x(x0, width), clip_y(y0, height), z, 1}, b{clip_x(x0, width), clip_y(y1, height), z, 1};
  const glm::vec4 c{clip_x(x1, width), clip_y(y1, height), z, 1}, e{clip_x(x1, width), clip_y(y0, height), z, 1};
  d.positions = {a, b, c, a, c, e};
  d.vertex_ids = {0, 1, 2, 0, 2, 3};
  d.instance_ids = {0, 0, 0, 0, 0, 0};
  d.state.raster.cull = CullMode::none;
  d.state.raster.samples = samples;
  d.state.raster.viewport = ViewportState{0, 0, float(width), float(height), 0, 1};
  d.shaders = {{capture::ShaderStage::vertex, "main", 40, 1}, {capture::ShaderStage::fragment, "main", 25, 2}};
  return d;
}

capture::Capture one_pass(std::vector<capture::Draw> draws, int samples = 1, int width = kW, int height = kH) {
  capture::Capture cap;
  cap.application = "synthetic";
  cap.device = "none";
  capture::Frame f;
  f.number = 7;
  capture::RenderPass p;
  p.area_width = uint32_t(width);
  p.area_height = uint32_t(height);
  p.samples = uint32_t(samples);
  p.clears_depth = true;
  p.clear_depth = 1.0f;
  f.passes.push_back(p);
  f.draws = std::move(draws);
  cap.frames.push_back(std::move(f));
  return cap;
}

Config config(int threads = 0) {
  Config c;
  c.frame.threads = threads;
  c.frame.diagnostics = true;
  c.tiling.accounting = true;
  return c;
}

// Two passes on the same colour and depth images: pass 0 clears both and draws a near
// rectangle (its depth read back as the GPU would store it), pass 1 loads both and draws a
// farther full-frame rectangle (docs/replay.md, "Loaded attachments").
capture::Capture loading_passes() {
  capture::Capture cap = one_pass({rect_draw(16, 8, 48, 40, 0.25f), rect_draw(0, 0, kW, kH, 0.5f)});
  capture::Frame& f = cap.frames[0];
  capture::RenderPass& p0 = f.passes[0];
  p0.clear_colors = {glm::vec4(0, 0, 0, 1)};
  capture::Attachment colour;
  colour.vk_format = 37;
  colour.width = kW;
  colour.height = kH;
  colour.texel_bytes = 4;
  colour.skip_reason = "not_readable";
  colour.image = 0xC0;
  capture::Attachment depth = colour;
  depth.kind = capture::AttachmentKind::depth;
  depth.vk_format = 126;  // D32_SFLOAT
  depth.skip_reason.clear();
  depth.image = 0xD0;
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      const float z = x >= 16 && x < 48 && y >= 8 && y < 40 ? 0.25f : 1.0f;
      const auto* b = reinterpret_cast<const uint8_t*>(&z);
      depth.texels.insert(depth.texels.end(), b, b + 4);
    }
  }
  p0.attachments = {colour, depth};
  capture::RenderPass p1 = p0;
  p1.dynamic_rendering = true;
  p1.clear_colors = {glm::vec4(0.0f)};
  p1.clears_depth = false;
  for (capture::Attachment& a : p1.attachments) a.load_op = capture::LoadOp::load;
  p1.attachments[1].texels.clear();
  p1.attachments[1].skip_reason = "store_op_dont_care";
  p1.attachments[1].store_op = capture::StoreOp::dont_care;
  f.passes.push_back(p1);
  f.draws[1].pass = 1;
  return cap;
}

TEST(Replay, LoadedAttachmentsStartFromTheEarlierPass) {
  const capture::Capture cap = loading_passes();
  Renderer renderer(config(1));
  const FrameReplay r = replay_frame(renderer, cap, 0);
  ASSERT_EQ(r.passes.size(), 2u);
  const PassReplay& p1 = r.passes[1];
  EXPECT_EQ(p1.color_loaded_from, 0);
  EXPECT_EQ(p1.depth_loaded_from, 0);
  EXPECT_EQ(p1.load_note, "colour continues pass 0; depth continues pass 0");
  EXPECT_EQ(r.stats.get_u64("capture.loads.seeded"), 2u);
  EXPECT_EQ(r.stats.get_u64("capture.loads.unknown"), 0u);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      const bool near = x >= 16 && x < 48 && y >= 8 && y < 40;
      const size_t i = size_t(y) * kW + size_t(x);
      // The far rectangle fails the depth test against the loaded near one (LESS).
      ASSERT_EQ(p1.frame.depth[i], near ? 0.25f : 0.5f) << x << "," << y;
      ASSERT_EQ(p1.frame.diagnostics.sample_draw[i], near ? 0u : 1u) << x << "," << y;
      // The draw-ID image continues pass 0's: its draw shows where pass 1 drew nothing.
      ASSERT_EQ(p1.frame.color.at(x, y), near ? draw_id_color(0) : draw_id_color(1)) << x << "," << y;
    }
  }
  EXPECT_EQ(r.draws[1].work.depth_passed, uint64_t(kW * kH - 32 * 32));

  // As format version 1 replayed it: every pass from its clear values.
  ReplayOptions old;
  old.load_attachments = false;
  const FrameReplay v1 = replay_frame(renderer, cap, 0, old);
  EXPECT_EQ(v1.passes[1].color_loaded_from, -1);
  EXPECT_EQ(v1.passes[1].frame.depth[size_t(20) * kW + 20], 0.5f);
  EXPECT_EQ(v1.draws[1].work.depth_passed, uint64_t(kW * kH));

  // The first pass on an image that loads: contents from before the frame, unknown.
  capture::Capture first = cap;
  first.frames[0].passes[0].attachments[1].load_op = capture::LoadOp::load;
  first.frames[0].passes[0].clears_depth = false;
  const FrameReplay u = replay_frame(renderer, first, 0);
  EXPECT_EQ(u.passes[0].depth_loaded_from, -1);
  EXPECT_EQ(u.passes[0].load_note, "depth loads contents from before the frame: started from 1.0");
  EXPECT_EQ(u.stats.get_u64("capture.loads.unknown"), 1u);
  // Pass 1 still continues pass 0 (its replayed depth).
  EXPECT_EQ(u.passes[1].depth_loaded_from, 0);

  // Pass 0 not replayed (its draw was not captured): pass 1's depth starts from the depth the
  // GPU stored, its colour from black (no replayed image to continue).
  capture::Capture unreplayed = cap;
  capture::Draw& d0 = unreplayed.frames[0].draws[0];
  d0.captured = false;
  d0.skip_reason = "overflow";
  d0.positions.clear();
  d0.vertex_ids.clear();
  d0.instance_ids.clear();
  const FrameReplay g = replay_frame(renderer, unreplayed, 0);
  ASSERT_EQ(g.passes.size(), 1u);
  EXPECT_EQ(g.passes[0].depth_loaded_from, 0);
  EXPECT_EQ(g.passes[0].color_loaded_from, -1);
  EXPECT_EQ(g.passes[0].load_note,
            "colour loads pass 0's contents, not replayed at this shape: started from black; depth continues pass 0");
  EXPECT_EQ(g.stats.get_u64("capture.loads.seeded"), 1u);
  EXPECT_EQ(g.stats.get_u64("capture.loads.unknown"), 1u);
  EXPECT_EQ(g.passes[0].frame.depth[size_t(20) * kW + 20], 0.25f);
  EXPECT_EQ(g.passes[0].frame.depth[size_t(2) * kW + 2], 0.5f);
  EXPECT_EQ(g.draws[1].work.depth_passed, uint64_t(kW * kH - 32 * 32));
}

TEST(Replay, RectangleCoverageAndDepthAreAnalytic) {
  capture::Capture cap = one_pass({rect_draw(16, 8, 48, 40, 0.25f), rect_draw(0, 0, 32, 24, 0.5f)});
  Renderer renderer(config());
  const FrameReplay r = replay_frame(renderer, cap, 0);
  ASSERT_EQ(r.passes.size(), 1u);
  const Frame& f = r.passes[0].frame;
  ASSERT_EQ(f.color.width, kW);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      const bool near = x >= 16 && x < 48 && y >= 8 && y < 40;
      const bool far = x < 32 && y < 24;
      const float expect = near ? 0.25f : far ? 0.5f : 1.0f;
      ASSERT_EQ(f.depth[size_t(y) * kW + size_t(x)], expect) << x << "," << y;
      // The draw ID that wrote the pixel last (LESS: the far draw loses where they overlap).
      const uint32_t id = f.diagnostics.sample_draw[size_t(y) * kW + size_t(x)];
      ASSERT_EQ(id, near ? 1u : far ? 2u : 0u) << x << "," << y;
      ASSERT_EQ(f.color.at(x, y), near ? draw_id_color(0) : far ? draw_id_color(1) : pack_rgba8(0, 0, 0));
      // Overdraw: fragments that passed the depth test (the far draw fails under the near one).
      ASSERT_EQ(f.diagnostics.overdraw[size_t(y) * kW + size_t(x)], (near || far) ? 1 : 0);
    }
  }
  ASSERT_EQ(r.draws.size(), 2u);
  EXPECT_EQ(r.draws[0].work.primitives_in, 2u);
  EXPECT_EQ(r.draws[0].work.culled, 0u);
  EXPECT_EQ(r.draws[0].work.fragments_covered, 32u * 32u);
  EXPECT_EQ(r.draws[0].work.depth_passed, 32u * 32u);
  EXPECT_EQ(r.draws[1].work.fragments_covered, 32u * 24u);
  // The second draw overlaps the first on [16, 32) x [8, 24): those fail the depth test.
  EXPECT_EQ(r.draws[1].work.depth_passed, 32u * 24u - 16u * 16u);
  EXPECT_GT(r.draws[0].work.tiles_touched, 0u);
  EXPECT_GT(r.draws[0].work.picb, 0u);
  // Vertex reuse recovered from the ids: 4 distinct vertices of 6 captured.
  EXPECT_EQ(r.draws[0].vertices, 4u);
  EXPECT_EQ(r.stats.get_u64("capture.vertices.captured"), 12u);
  EXPECT_EQ(r.stats.get_u64("capture.vertices.unique"), 8u);
  EXPECT_EQ(r.stats.get_u64("raster.vs.invocations"), 8u);
  EXPECT_EQ(r.stats.get_u64("raster.triangles.in"), 4u);
  EXPECT_EQ(r.stats.get_u64("raster.fragments.covered"), 32u * 32u + 32u * 24u);
  EXPECT_EQ(r.stats.get_u64("capture.draws.replayed"), 2u);
  EXPECT_EQ(r.stats.get_u64("capture.frame"), 7u);
  // EU estimates: the captured shaders' sizes per invocation.
  EXPECT_EQ(r.stats.get_u64("eu.stage.vertex.dynamic_instructions"), 8u * 40u);
  EXPECT_EQ(r.stats.get_u64("eu.stage.fragment.dynamic_instructions"),
            25u * (r.draws[0].work.fs_invocations + r.draws[1].work.fs_invocations));
  EXPECT_EQ(r.stats.get_u64("shader.vertex.instructions_per_invocation"), 40u);
  EXPECT_EQ(std::get<std::string>(r.stats.get("capture.application")), "synthetic");
}

TEST(Replay, MultisampledCoverageCountsSamples) {
  // A triangle's diagonal edge at 4x: covered samples per pixel come from the standard positions.
  capture::Capture cap = one_pass({rect_draw(8, 8, 24, 24, 0.5f, 4)}, 4);
  capture::Draw& d = cap.frames[0].draws[0];
  d.positions.resize(3);  // the lower-left half of the square only
  d.vertex_ids.resize(3);
  d.instance_ids.resize(3);
  Renderer renderer(config());
  const FrameReplay r = replay_frame(renderer, cap, 0);
  const Frame& f = r.passes[0].frame;
  ASSERT_EQ(r.passes[0].samples, 4);
  uint64_t samples = 0;
  for (uint32_t s : f.diagnostics.sample_draw) samples += s != 0;
  // Half of a 16x16 square: 128 pixels' worth of samples (the diagonal splits samples evenly
  // by symmetry of the pattern about the pixel centre only up to the tie rule; allow the edge).
  EXPECT_NEAR(double(samples), 128.0 * 4.0, 16.0 * 4.0);
  EXPECT_EQ(samples, r.draws[0].work.samples_covered);
}

TEST(Replay, SkipsBadDrawsAndCountsThem) {
  std::vector<capture::Draw> draws;
  draws.push_back(rect_draw(0, 0, 32, 32, 0.5f));  // good
  capture::Draw not_captured;
  not_captured.captured = false;
  not_captured.skip_reason = "no_transform_feedback";
  draws.push_back(not_captured);
  capture::Draw zero_viewport = rect_draw(0, 0, 8, 8, 0.5f);
  zero_viewport.state.raster.viewport.width = 0;
  draws.push_back(zero_viewport);
  capture::Draw nan_viewport = rect_draw(0, 0, 8, 8, 0.5f);
  nan_viewport.state.raster.viewport.x = std::numeric_limits<float>::quiet_NaN();
  draws.push_back(nan_viewport);
  capture::Draw odd = rect_draw(0, 0, 8, 8, 0.5f);
  odd.positions.pop_back();
  draws.push_back(odd);
  capture::Draw wrong_pass = rect_draw(0, 0, 8, 8, 0.5f);
  wrong_pass.pass = 99;
  draws.push_back(wrong_pass);
  capture::Draw wrong_samples = rect_draw(0, 0, 8, 8, 0.5f, 8);
  draws.push_back(wrong_samples);
  capture::Draw bad_enum = rect_draw(0, 0, 8, 8, 0.5f);
  bad_enum.state.raster.depth.compare = CompareOp(200);
  draws.push_back(bad_enum);
  capture::Draw depth_range = rect_draw(0, 0, 8, 8, 0.5f);
  depth_range.state.raster.viewport.max_depth = 2.0f;
  draws.push_back(depth_range);
  // Replayed, but drawing nothing: non-finite positions, a scissor outside the attachment.
  capture::Draw nan_positions = rect_draw(40, 0, 60, 20, 0.1f);
  nan_positions.positions[0].x = std::numeric_limits<float>::infinity();
  nan_positions.positions[4].y = std::numeric_limits<float>::quiet_NaN();
  draws.push_back(nan_positions);
  capture::Draw outside = rect_draw(0, 0, 64, 48, 0.05f);
  outside.state.raster.scissor = ScissorRect{5000, 5000, 100, 100};
  draws.push_back(outside);
  capture::Draw huge_scissor = rect_draw(40, 30, 50, 40, 0.2f);
  huge_scissor.state.raster.scissor = ScissorRect{-100, -100, 4000000000u, 4000000000u};
  draws.push_back(huge_scissor);
  capture::Draw weird_reason;
  weird_reason.skip_reason = "Bad.Reason/with dots";
  draws.push_back(weird_reason);

  capture::Capture cap = one_pass(draws);
  Renderer renderer(config());
  const FrameReplay r = replay_frame(renderer, cap, 0);
  const Stats& s = r.stats;
  EXPECT_EQ(s.get_u64("capture.draws.total"), 13u);
  EXPECT_EQ(s.get_u64("capture.draws.replayed"), 4u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.no_transform_feedback"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.zero_area_viewport"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.viewport_not_finite"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.positions_not_triangles"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.pass_out_of_range"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.sample_count_mismatch"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.state_out_of_range"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.depth_range"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped.bad_reason_with_dots"), 1u);
  EXPECT_EQ(s.get_u64("capture.draws.skipped_total"), 9u);
  EXPECT_FALSE(r.draws[1].replayed);
  EXPECT_EQ(r.draws[1].skip_reason, "no_transform_feedback");
  // Both triangles of the NaN draw are dropped; the scissored draw is culled whole.
  EXPECT_EQ(r.draws[9].work.culled, 2u);
  EXPECT_EQ(r.draws[9].work.fragments_covered, 0u);
  EXPECT_EQ(r.draws[10].work.fragments_covered, 0u);
  EXPECT_EQ(r.draws[10].work.culled, 2u);
  // The scissor reaching past the framebuffer clamps to it: the rectangle is drawn whole.
  EXPECT_EQ(r.draws[11].work.fragments_covered, 100u);
  EXPECT_EQ(s.get_u64("raster.triangles.culled_nonfinite"), 2u);
  EXPECT_EQ(r.draws[0].work.fragments_covered, 32u * 32u);
}

// Per-draw clipping and culling counts (compared with the GPU's clipping statistics in
// layer.capture_clipping): a rectangle with a corner behind the near plane (each of its two
// triangles clipped into two), a rectangle culled as back faces, one wholly outside.
TEST(Replay, PerDrawClippingAndCullingCounts) {
  capture::Draw near = rect_draw(8, 8, 40, 40, 0.5f);
  near.positions[0].z = near.positions[3].z = -0.5f;  // corner a, in both triangles
  capture::Draw back = rect_draw(0, 0, 16, 16, 0.25f);
  back.state.raster.cull = CullMode::back;
  // Vulkan's signed area of the rectangle's triangles is positive (counter-clockwise): with
  // clockwise front faces they are back faces.
  back.state.raster.front_face = FrontFace::clockwise;
  capture::Draw outside = rect_draw(0, 0, 16, 16, 0.25f);
  for (glm::vec4& v : outside.positions) v.x += 5.0f;
  Config c = config();
  for (float guard_band : {8192.0f, 0.0f}) {
    c.raster.guard_band = guard_band;
    Renderer renderer(c);
    const FrameReplay r = replay_frame(renderer, one_pass({near, back, outside}), 0);
    const DrawWork& n = r.draws[0].work;
    EXPECT_EQ(n.primitives_in, 2u);
    EXPECT_EQ(n.clipped, 2u);
    EXPECT_EQ(n.clip_output, 4u) << "one vertex behind the near plane: a quadrilateral, two triangles";
    EXPECT_EQ(n.after_clipping(), 4u);
    EXPECT_EQ(n.after_face_culling(), 4u);
    EXPECT_EQ(n.setup, 4u);
    const DrawWork& b = r.draws[1].work;
    EXPECT_EQ(b.culled_facing, 2u);
    EXPECT_EQ(b.after_clipping(), 2u);
    EXPECT_EQ(b.after_face_culling(), 0u);
    EXPECT_EQ(b.setup, 0u);
    const DrawWork& o = r.draws[2].work;
    EXPECT_EQ(o.culled_frustum, 2u);
    EXPECT_EQ(o.after_clipping(), 0u);
    // The identity every draw keeps: what leaves clipping is set up or culled by facing, scissor
    // or degeneracy.
    for (const DrawReport& d : r.draws) {
      EXPECT_GE(d.work.after_face_culling(), d.work.setup + d.work.culled_scissor);
      EXPECT_EQ(d.work.culled, d.work.culled_nonfinite + d.work.culled_frustum + d.work.culled_facing +
                                   d.work.culled_scissor +
                                   (d.work.after_face_culling() - d.work.culled_scissor - d.work.setup));
    }
  }
}

TEST(Replay, HostileFramesGiveClearErrors) {
  Renderer renderer(config());
  capture::Capture cap = one_pass({rect_draw(0, 0, 8, 8, 0.5f)});
  try {
    replay_frame(renderer, cap, 3);
    FAIL() << "no error for a missing frame";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("frame 3 does not exist"), std::string::npos) << e.what();
  }
  // A pass too large, of zero area, with a NaN clear depth or an odd sample count: its draws are
  // skipped, and a frame with nothing replayable is an error naming it.
  for (int variant = 0; variant < 4; ++variant) {
    capture::Capture bad = one_pass({rect_draw(0, 0, 8, 8, 0.5f)});
    capture::RenderPass& p = bad.frames[0].passes[0];
    const char* reason = "";
    switch (variant) {
      case 0: p.area_width = 100000, reason = "pass_too_large"; break;
      case 1: p.area_width = 0, reason = "zero_area_pass"; break;
      case 2: p.clear_depth = std::numeric_limits<float>::quiet_NaN(), reason = "clear_depth_out_of_range"; break;
      default: p.samples = 3, reason = "pass_sample_count"; break;
    }
    try {
      replay_frame(renderer, bad, 0);
      FAIL() << "no error for " << reason;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("no replayable draw"), std::string::npos) << e.what();
    }
    bad.frames[0].draws.push_back(rect_draw(0, 0, 8, 8, 0.5f));
    bad.frames[0].draws.back().pass = 1;
    capture::RenderPass good;
    good.area_width = 16;
    good.area_height = 16;
    bad.frames[0].passes.push_back(good);
    const FrameReplay r = replay_frame(renderer, bad, 0);
    EXPECT_EQ(r.stats.get_u64(std::string("capture.draws.skipped.") + reason), 1u) << reason;
    EXPECT_EQ(r.passes.size(), 1u);
  }
}

// A frame of many overlapping random triangles in two passes, with a captured 4x attachment.
capture::Capture random_capture(int samples) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> pos(-1.3f, 1.3f), depth(-0.2f, 1.1f), w(0.5f, 2.0f);
  capture::Capture cap = one_pass({}, samples, 200, 120);
  capture::Frame& f = cap.frames[0];
  capture::RenderPass second = f.passes[0];
  second.area_width = 96;
  second.area_height = 64;
  f.passes.push_back(second);
  for (int d = 0; d < 40; ++d) {
    capture::Draw draw = rect_draw(0, 0, 1, 1, 0.5f, samples, d % 5 == 4 ? 96 : 200, d % 5 == 4 ? 64 : 120);
    draw.pass = d % 5 == 4 ? 1 : 0;
    draw.positions.clear();
    draw.vertex_ids.clear();
    draw.instance_ids.clear();
    draw.state.raster.cull = CullMode(d % 3);
    draw.state.raster.depth.compare = d % 7 == 3 ? CompareOp::greater : CompareOp::less_or_equal;
    draw.state.raster.depth.write = d % 4 != 1;
    for (int t = 0; t < 150; ++t) {
      for (int k = 0; k < 3; ++k) {
        const float ww = w(rng);
        draw.positions.push_back({pos(rng) * ww, pos(rng) * ww, depth(rng) * ww, ww});
        draw.vertex_ids.push_back(uint32_t(t + k));  // strip-like reuse of ids
        draw.instance_ids.push_back(0);
      }
    }
    f.draws.push_back(draw);
  }
  // The captured colour attachment of the first pass: a gradient with hard edges.
  capture::Attachment a;
  a.kind = capture::AttachmentKind::color;
  a.vk_format = 37;
  a.width = 200;
  a.height = 120;
  a.samples = uint32_t(samples);
  a.texel_bytes = 4;
  for (uint32_t y = 0; y < a.height; ++y) {
    for (uint32_t x = 0; x < a.width; ++x) {
      for (uint32_t s = 0; s < a.samples; ++s) {
        const bool edge = (x + 2 * y + s) % 37 < 9;
        a.texels.insert(a.texels.end(), {uint8_t(edge ? 255 : x), uint8_t(edge ? 0 : y), uint8_t(x / 8 * 8), 255});
      }
    }
  }
  f.passes[0].attachments.push_back(a);
  f.passes[0].clear_colors.push_back(glm::vec4(0, 0, 0, 1));
  return cap;
}

void expect_same_images(const FrameReplay& a, const FrameReplay& b, bool same_tiling) {
  ASSERT_EQ(a.passes.size(), b.passes.size());
  for (size_t p = 0; p < a.passes.size(); ++p) {
    const Frame& fa = a.passes[p].frame;
    const Frame& fb = b.passes[p].frame;
    EXPECT_EQ(fa.color.pixels, fb.color.pixels) << "pass " << p;
    EXPECT_EQ(fa.depth, fb.depth) << "pass " << p;
    EXPECT_EQ(fa.diagnostics.sample_draw, fb.diagnostics.sample_draw) << "pass " << p;
    EXPECT_EQ(fa.diagnostics.overdraw, fb.diagnostics.overdraw) << "pass " << p;
    if (same_tiling) {
      EXPECT_EQ(fa.diagnostics.color_states, fb.diagnostics.color_states) << "pass " << p;
    }
  }
  for (size_t d = 0; d < a.draws.size(); ++d) {
    const DrawWork& x = a.draws[d].work;
    const DrawWork& y = b.draws[d].work;
    EXPECT_EQ(x.primitives_in, y.primitives_in);
    EXPECT_EQ(x.culled, y.culled);
    EXPECT_EQ(x.clipped, y.clipped);
    EXPECT_EQ(x.fragments_covered, y.fragments_covered);
    EXPECT_EQ(x.samples_covered, y.samples_covered);
    EXPECT_EQ(x.depth_passed, y.depth_passed);
    if (same_tiling) {
      EXPECT_EQ(x, y) << "draw " << d;
    }
  }
}

TEST(Replay, ThreadsAndTilingDoNotChangeResults) {
  for (int samples : {1, 4}) {
    const capture::Capture cap = random_capture(samples);
    Config one = config(1), two = config(2), adaptive = config(2);
    one.raster.msaa = two.raster.msaa = adaptive.raster.msaa = 2;  // single-sample passes replay at 2x
    adaptive.tiling.mode = TilingMode::adaptive;
    Renderer r1(one), r2(two), ra(adaptive);
    const FrameReplay a = replay_frame(r1, cap, 0), b = replay_frame(r2, cap, 0), c = replay_frame(ra, cap, 0);
    expect_same_images(a, b, true);
    expect_same_images(a, c, false);
    for (const auto& [key, value] : a.stats.values()) {
      if (key == "frame.threads" || key.find("time_ms") != std::string::npos) continue;
      if (std::holds_alternative<double>(value) && key.rfind("timing.", 0) == 0) continue;
      ASSERT_TRUE(b.stats.has(key)) << key;
      EXPECT_EQ(value, b.stats.get(key)) << key;
    }
    EXPECT_GT(a.stats.get_u64("raster.triangles.clipped"), 0u);
    EXPECT_GT(a.stats.get_u64("color.tiles.total"), 0u);
    EXPECT_EQ(a.stats.get_u64("capture.passes_replayed"), 2u);
    // The two passes' counts add up; the frame's own keys are the main (larger) pass's.
    EXPECT_EQ(a.stats.get_u64("raster.triangles.in"), 40u * 150u);
    EXPECT_EQ(a.stats.get_u64("frame.width"), 200u);
    EXPECT_EQ(a.stats.get_u64("capture.main_pass"), 0u);
  }
}

TEST(Replay, ColourUnitSeesTheCapturedSamples) {
  // A 4x capture: the colour unit stores the captured samples, so every 8x4 block's final form is
  // what store_tile makes of the captured block (as the layer's msaa record computes it).
  const capture::Capture cap = random_capture(4);
  Config c = config(2);
  Renderer renderer(c);
  const FrameReplay r = replay_frame(renderer, cap, 0);
  const PassReplay& p = r.passes[0];
  ASSERT_EQ(p.captured_samples, 4);
  ASSERT_FALSE(p.captured_color.pixels.empty());
  const Rgba8 clear = pack_rgba8(0, 0, 0, 255);
  std::array<uint64_t, 16> by_state{};
  size_t block = 0;
  const FrameDiagnostics& d = p.frame.diagnostics;
  for (int by = 0; by < 120; by += color::kTileHeight) {
    for (int bx = 0; bx < 200; bx += color::kTileWidth, ++block) {
      const color::ColorTile t = color::gather_tile(p.captured_color_samples.data(), 200, 120, 4, bx, by, clear);
      const color::StoredTile s = color::store_tile(t, clear);
      ++by_state[size_t(s.state)];
      ASSERT_EQ(d.color_states[block], uint8_t(s.state)) << bx << "," << by;
    }
  }
  EXPECT_EQ(p.frame.stats.get_u64("color.tiles.total"), uint64_t(25 * 30));
  EXPECT_EQ(std::get<std::string>(r.stats.get("capture.color.source")), "captured_samples");
}

TEST(Replay, CoverageAgreementComparesSamplesPerPixel) {
  // A 4x triangle (slanted edges: partly covered pixels), and a captured 4x colour attachment
  // made from Tessera's own coverage: every pixel agrees. One sample changed: one pixel differs.
  capture::Draw tri = rect_draw(4, 4, 60, 44, 0.5f, 4);
  tri.positions.resize(3);  // one triangle of the rectangle: a diagonal edge
  tri.vertex_ids.resize(3);
  tri.instance_ids.resize(3);
  capture::Capture cap = one_pass({tri}, 4);
  capture::RenderPass& pass = cap.frames[0].passes[0];
  pass.clear_colors = {glm::vec4(0.1f, 0.2f, 0.3f, 1.0f)};
  Renderer renderer(config());
  const FrameReplay first = replay_frame(renderer, cap, 0);
  const std::vector<uint32_t>& covered = first.passes[0].frame.diagnostics.sample_draw;
  ASSERT_EQ(covered.size(), size_t(kW) * kH * 4);
  capture::Attachment a;
  a.vk_format = 37;  // R8G8B8A8_UNORM
  a.width = kW;
  a.height = kH;
  a.samples = 4;
  a.texel_bytes = 4;
  for (uint32_t id : covered) {
    // The clear colour as a driver might store it (25, not round-to-nearest's 26), the draw red.
    const uint8_t texel[4] = {uint8_t(id ? 255 : 25), uint8_t(id ? 0 : 51), uint8_t(id ? 0 : 77), 255};
    a.texels.insert(a.texels.end(), texel, texel + 4);
  }
  pass.attachments.push_back(a);
  const FrameReplay same = replay_frame(renderer, cap, 0);
  EXPECT_EQ(same.stats.get_u64("capture.coverage_agreement.pixels"), uint64_t(kW) * kH);
  EXPECT_EQ(same.stats.get_u64("capture.coverage_agreement.pixels_differ"), 0u);
  EXPECT_GT(same.stats.get_u64("capture.coverage_agreement.pixels_partial"), 0u);
  EXPECT_EQ(same.stats.get_u64("capture.coverage_agreement.samples_replay"),
            same.stats.get_u64("capture.coverage_agreement.samples_capture"));
  // A covered sample shown as clear on the GPU side: exactly that pixel differs.
  size_t at = 0;
  while (covered[at] == 0) ++at;
  uint8_t* t = &pass.attachments[0].texels[at * 4];
  t[0] = 25, t[1] = 51, t[2] = 77;
  const FrameReplay changed = replay_frame(renderer, cap, 0);
  EXPECT_EQ(changed.stats.get_u64("capture.coverage_agreement.pixels_differ"), 1u);
  EXPECT_EQ(changed.stats.get_u64("capture.coverage_agreement.samples_capture") + 1,
            changed.stats.get_u64("capture.coverage_agreement.samples_replay"));
}

TEST(Replay, DepthAgreementAllowsTheSnappedPlane) {
  // A sloped 4x triangle off the 1/256 grid. The "GPU" depth is the plane through the unsnapped
  // vertices at each standard sample position (lavapipe's way); Tessera's is the plane through
  // the snapped vertices: they differ, within the slope times half a subpixel step. Depth taken
  // at the pixel centre, or a sample moved off its plane, is beyond it.
  const glm::vec3 v[3] = {{3.3f, 2.71f, 0.1f}, {60.17f, 9.43f, 0.9f}, {17.59f, 45.11f, 0.45f}};
  capture::Draw tri = rect_draw(0, 0, 1, 1, 0.5f, 4);
  for (int i = 0; i < 3; ++i) tri.positions[size_t(i)] = {clip_x(v[i].x), clip_y(v[i].y), v[i].z, 1.0f};
  tri.positions.resize(3);
  tri.vertex_ids.resize(3);
  tri.instance_ids.resize(3);
  capture::Capture cap = one_pass({tri}, 4);
  Renderer renderer(config());
  const std::vector<uint32_t> covered = replay_frame(renderer, cap, 0).passes[0].frame.diagnostics.sample_draw;
  ASSERT_EQ(covered.size(), size_t(kW) * kH * 4);
  // The plane through the unsnapped vertices, in double.
  auto plane = [&](double x, double y) {
    double e[3];
    for (int i = 0; i < 3; ++i) {
      const glm::vec3 &a = v[(i + 1) % 3], &b = v[(i + 2) % 3];
      e[i] = (double(b.x) - a.x) * (y - a.y) - (double(b.y) - a.y) * (x - a.x);
    }
    return (e[0] * v[0].z + e[1] * v[1].z + e[2] * v[2].z) / (e[0] + e[1] + e[2]);
  };
  const double sx[4] = {0.375, 0.875, 0.125, 0.625}, sy[4] = {0.125, 0.375, 0.625, 0.875};
  auto depth_attachment = [&](bool at_centre) {
    capture::Attachment a;
    a.kind = capture::AttachmentKind::depth;
    a.vk_format = 126;  // D32_SFLOAT
    a.width = kW;
    a.height = kH;
    a.samples = 4;
    a.texel_bytes = 4;
    for (size_t i = 0; i < covered.size(); ++i) {
      const int k = int(i % 4), x = int(i / 4) % kW, y = int(i / 4) / kW;
      const float z = covered[i] ? float(at_centre ? plane(x + 0.5, y + 0.5) : plane(x + sx[k], y + sy[k])) : 1.0f;
      uint8_t bytes[4];
      std::memcpy(bytes, &z, 4);
      a.texels.insert(a.texels.end(), bytes, bytes + 4);
    }
    return a;
  };
  auto agreement = [&](const capture::Attachment& a) {
    capture::Capture c = cap;
    c.frames[0].passes[0].attachments = {a};
    return replay_frame(renderer, c, 0).stats;
  };
  const Stats exact = agreement(depth_attachment(false));
  ASSERT_TRUE(exact.has("capture.depth_agreement.covered_both"));
  EXPECT_GT(exact.get_u64("capture.depth_agreement.covered_both"), 500u);
  EXPECT_EQ(exact.get_u64("capture.depth_agreement.covered_replay_only"), 0u);
  EXPECT_EQ(exact.get_u64("capture.depth_agreement.covered_capture_only"), 0u);
  EXPECT_EQ(exact.get_u64("capture.depth_agreement.beyond_tolerance"), 0u);
  // The snapping difference is real (beyond float precision) and within the allowance.
  const double max_diff = std::get<double>(exact.get("capture.depth_agreement.max_abs_difference"));
  const double slope = std::get<double>(exact.get("capture.depth_agreement.max_depth_slope"));
  EXPECT_GT(max_diff, 1e-6);
  EXPECT_LE(std::get<double>(exact.get("capture.depth_agreement.max_difference_over_tolerance")), 1.0);
  // The triangle's own slope |dz/dx| + |dz/dy|, to float precision of the samples.
  const double gx = plane(1, 0) - plane(0, 0), gy = plane(0, 1) - plane(0, 0);
  EXPECT_NEAR(slope, std::abs(gx) + std::abs(gy), 1e-4);

  const Stats centre = agreement(depth_attachment(true));
  EXPECT_GT(centre.get_u64("capture.depth_agreement.beyond_tolerance"),
            centre.get_u64("capture.depth_agreement.covered_both") / 2);

  // One fully covered pixel's sample 0 moved by twice the frame's allowance: that pixel only.
  capture::Attachment moved = depth_attachment(false);
  size_t at = 0;
  while (at + 4 < covered.size() && !(covered[at] && covered[at + 1] && covered[at + 2] && covered[at + 3])) at += 4;
  ASSERT_TRUE(covered[at] && covered[at + 3]);
  float z0 = 0;
  std::memcpy(&z0, &moved.texels[at * 4], 4);
  z0 -= float(2.0 * std::get<double>(exact.get("capture.depth_agreement.tolerance")));
  std::memcpy(&moved.texels[at * 4], &z0, 4);
  EXPECT_EQ(agreement(moved).get_u64("capture.depth_agreement.beyond_tolerance"), 1u);
}

TEST(Replay, DrawDiagnosticsChangeNothing) {
  const capture::Capture cap = random_capture(4);
  Renderer renderer(config(2));
  ReplayOptions off;
  off.draw_diagnostics = false;
  const FrameReplay a = replay_frame(renderer, cap, 0), b = replay_frame(renderer, cap, 0, off);
  ASSERT_EQ(a.passes.size(), b.passes.size());
  for (size_t p = 0; p < a.passes.size(); ++p) {
    EXPECT_EQ(a.passes[p].frame.color.pixels, b.passes[p].frame.color.pixels);
    EXPECT_EQ(a.passes[p].frame.depth, b.passes[p].frame.depth);
  }
  EXPECT_TRUE(b.passes[0].frame.diagnostics.sample_draw.empty());
  EXPECT_FALSE(a.passes[0].frame.diagnostics.sample_draw.empty());
  for (const auto& [key, value] : a.stats.values()) {
    if (key.find("time_ms") != std::string::npos || key.rfind("timing.", 0) == 0) continue;
    EXPECT_EQ(value, b.stats.get(key)) << key;
  }
}

TEST(Replay, CaptureOfASceneReplaysAsTheSceneRenders) {
  // What the layer would capture from Tessera itself: every instance's triangles transformed to
  // clip space as the vertex program does (shaders/lambert.h). Replay must give the same depth
  // buffer bit for bit, and the same coverage and culling, as rendering the scene.
  Scene scene;
  scene.meshes = {make_sphere(1.0f, 24, 12), make_box(glm::vec3(1.5f))};
  scene.materials = {Material{}};
  Instance sphere, box;
  box.mesh = 1;
  box.transform = glm::translate(glm::mat4(1.0f), glm::vec3(1.2f, -0.3f, -1.0f));
  scene.instances = {sphere, box};
  scene.camera.position = glm::vec3(0.5f, 1.5f, 4.0f);
  Config c = config(2);
  c.frame.width = 96;
  c.frame.height = 64;
  Renderer renderer(c);
  const Frame rendered = renderer.render(scene, scene.camera);
  const CameraMatrices cam = camera_matrices(scene.camera, c.frame.width, c.frame.height);
  capture::Capture cap = one_pass({}, 1, c.frame.width, c.frame.height);
  for (const Instance& inst : scene.instances) {
    capture::Draw d = rect_draw(0, 0, 1, 1, 0.5f, 1, c.frame.width, c.frame.height);
    d.state.raster.cull = CullMode::back;
    d.positions.clear();
    d.vertex_ids.clear();
    d.instance_ids.clear();
    for (uint32_t i : scene.meshes[inst.mesh].indices) {
      const glm::vec4 world = inst.transform * glm::vec4(scene.meshes[inst.mesh].vertices[i].position, 1.0f);
      d.positions.push_back(cam.view_projection * world);
      d.vertex_ids.push_back(i);
      d.instance_ids.push_back(0);
    }
    cap.frames[0].draws.push_back(d);
  }
  const FrameReplay r = replay_frame(renderer, cap, 0);
  ASSERT_GT(rendered.stats.get_u64("raster.fragments.covered"), 500u);  // 932: the sphere and the box in view
  EXPECT_EQ(r.passes[0].frame.depth, rendered.depth);
  for (const char* key :
       {"raster.triangles.in", "raster.triangles.culled_backface", "raster.triangles.clipped", "raster.triangles.setup",
        "raster.fragments.covered", "raster.depth.passed", "raster.bins.entries", "tiling.picb.total"}) {
    if (!rendered.stats.has(key)) continue;
    EXPECT_EQ(r.stats.get(key), rendered.stats.get(key)) << key;
  }
  // Vertex reuse: the meshes' shared vertices are recovered from the ids.
  size_t used = 0;
  for (const Mesh& m : scene.meshes) used += std::set<uint32_t>(m.indices.begin(), m.indices.end()).size();
  EXPECT_EQ(r.stats.get_u64("capture.vertices.unique"), used);
}

TEST(Replay, ScrubberReplaysAPrefix) {
  capture::Capture cap = one_pass({rect_draw(16, 8, 48, 40, 0.25f), rect_draw(0, 0, 32, 24, 0.5f)});
  Renderer renderer(config());
  ReplayOptions o;
  o.last_draw = 0;
  const FrameReplay r = replay_frame(renderer, cap, 0, o);
  EXPECT_EQ(r.stats.get_u64("capture.draws.replayed"), 1u);
  EXPECT_EQ(r.stats.get_u64("capture.draws.beyond_last"), 1u);
  EXPECT_EQ(r.stats.get_u64("raster.fragments.covered"), 32u * 32u);
  EXPECT_EQ(r.draws[1].work.fragments_covered, 0u);
}

}  // namespace
}  // namespace tessera::replay
