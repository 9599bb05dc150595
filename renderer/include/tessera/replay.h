// Replay: a frame captured from a real Vulkan application (tessera/capture.h) through Tessera's
// units (docs/replay.md). Every captured draw enters the frame pipeline at the primitive stage
// (Renderer::render_clip_space) with its clip-space positions and state, per render pass;
// shaders are not executed: the colours the colour unit sees come from the captured colour
// attachment, and vertex and fragment work is estimated from the captured shaders' sizes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/capture.h"
#include "tessera/image.h"
#include "tessera/renderer.h"
#include "tessera/stats.h"

namespace tessera::replay {

// How one captured draw went through replay.
struct DrawReport {
  uint32_t pass = 0;
  bool replayed = false;               // false: skipped, `skip_reason` says why
  std::string skip_reason;             // the capture's reason (not captured) or replay's (rejected state)
  uint64_t triangles = 0;              // captured triangles (3 positions each)
  uint64_t vertices = 0;               // distinct (vertex id, instance id) pairs: vertex shader invocations
  uint32_t vertex_instructions = 0;    // the captured vertex shader's size (0: none captured)
  uint32_t fragment_instructions = 0;  // the captured fragment shader's size
  DrawWork work;                       // what the units did with it (zero when skipped)
};

// One render pass replayed.
struct PassReplay {
  uint32_t pass = 0;            // index into the captured frame's passes
  int samples = 1;              // samples the pass was replayed at
  std::vector<uint32_t> draws;  // captured draw indices replayed in this pass, in order
  // Tessera's frame: colour = each draw in its draw-ID colour, depth, stats, diagnostics (the
  // draw ids in FrameDiagnostics::sample_draw and ::draws index `draws` above).
  Frame frame;
  // The captured attachments, decoded (empty when the pass had none or it was not read back):
  // colour as RGBA8 (R in the low byte), per sample pixel-major, and resolved per pixel; depth
  // per sample pixel-major.
  int captured_samples = 0;
  std::vector<Rgba8> captured_color_samples;
  Image captured_color;
  std::vector<float> captured_depth;
  int captured_depth_samples = 0;
  // The captured depth format: 0 for float depth (tolerance 1e-6 in depth), else the bits of a
  // UNORM format (16 for D16), compared in the format's own units: the replayed depth converted
  // as Vulkan converts to UNORM (round to nearest) against the stored code, tolerance one step
  // (the two float depths may straddle a rounding boundary; docs/replay.md).
  int captured_depth_unorm_bits = 0;
  double captured_depth_tolerance = 1e-6;
  std::string color_note;  // why the colour attachment is not decoded, if so
  // Loaded attachments (format version 2, docs/replay.md "Loaded attachments"): the frame's
  // pass whose contents the colour (first colour attachment) and depth attachment started from,
  // -1 when they did not load (cleared, dont_care) or loaded contents from before the frame;
  // `load_note` says what happened in words ("" when nothing was loaded).
  int32_t color_loaded_from = -1, depth_loaded_from = -1;
  std::string load_note;
  // Coverage against the GPU's (multisampled captures of a pass that clears its colour): per
  // pixel, the samples Tessera covered (any draw wrote them) against the captured samples that
  // differ from the clear colour. `compared` false when the capture cannot say.
  struct CoverageAgreement {
    bool compared = false;
    uint64_t pixels = 0, pixels_differ = 0, pixels_partial = 0;  // partial: the GPU covered 1..n-1 samples
    uint64_t samples_replay = 0, samples_capture = 0;
  } coverage;
};

struct FrameReplay {
  std::vector<PassReplay> passes;  // the passes with at least one replayed draw, in order
  std::vector<DrawReport> draws;   // per captured draw
  size_t main_pass = 0;            // index into `passes`: the largest (last of equals), whose images tools show
  Stats stats;                     // `tessera render`'s schema plus capture.* (docs/replay.md)
};

struct ReplayOptions {
  // Keep the per-pixel draw diagnostics (FrameDiagnostics::sample_draw, overdraw) in the
  // passes' frames; per-draw work (DrawReport::work) is always counted. Nothing else depends on it.
  bool draw_diagnostics = true;
  // The viewer's scrubber: replay the captured draws 0..last_draw only.
  std::optional<size_t> last_draw;
  // Passes that load an attachment start from what the frame's earlier passes left in its
  // image; false: every pass starts from its clear values (format version 1's replay, kept to
  // show the difference).
  bool load_attachments = true;
};

// The draw-ID colour of captured draw `index` (distinct neighbours, never the clear black).
Rgba8 draw_id_color(uint32_t index);

// Replays frame `frame_index` of `capture` with `renderer`'s config. Single-sample passes are
// replayed at the config's raster.msaa (the colour unit then sees the captured colours at
// Tessera's coverage); multisampled passes at their own count. Throws tessera::Error naming the
// frame for a missing frame or a frame without any replayable pass; bad draws are skipped and
// counted (capture.draws.skipped.<reason>).
FrameReplay replay_frame(Renderer& renderer, const capture::Capture& capture, size_t frame_index,
                         const ReplayOptions& options = {});

}  // namespace tessera::replay
