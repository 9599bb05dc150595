// Tessera's units applied to the frames the layer sees (docs/layer.md, "Tessera's units on real
// frames"). No Vulkan here: the layer hands over what it measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/counter_set.h"

namespace tessera::layer {

// One query segment's tessellation as the GPU counted it: patches (tcs_patches) and
// tessellation evaluation invocations (tes_invocations).
struct TessSegment {
  uint64_t patches = 0;
  uint64_t invocations = 0;
};

// The frame's patches run through Tessera's GPP array (on-chip redistribution, round robin)
// with `count` GPPs, against one GPP and against the no-redistribution design.
struct GppFrameModel {
  bool valid = false;  // false: the frame had no tessellation (or no query results)
  int count = 0;
  uint64_t patches = 0;
  uint64_t domain_points = 0;       // points of the patches as modelled (the estimate)
  std::vector<double> busy_cycles;  // per GPP TEBE
  double max_busy_cycles = 0;
  double mean_busy_cycles = 0;
  double balance = 1;  // max / mean busy cycles
  double makespan_cycles = 0;
  double speedup_vs_1gpp = 1;      // makespan with 1 GPP / with `count`
  double speedup_vs_noredist = 1;  // makespan without redistribution / with it
  bool estimate_exact = true;      // every segment split evenly into representable counts
};

// Estimate per segment: every patch gets invocations / patches domain points (the remainder
// spread one each over the first patches), modelled as a patch whose factors give exactly that
// many points (the cost model charges points and patches, not the domain).
GppFrameModel model_gpp_frame(const std::vector<TessSegment>& segments, int gpp_count);

// The colour unit (docs/color.md) on read-back multisampled colour: every 8x4 tile stored as
// the unit stores it (store_tile with its index-bit palette attempt), counted per state.
// Summed over the frame's read-back images.
inline constexpr int kColorStateCodes = 16;

// Why a multisampled colour attachment of a read-back frame was not read (docs/layer.md).
// clang-format off
#define TESSERA_LAYER_MSAA_SKIP_REASONS(X)                                                                             \
  X(kStoreOpDontCare, "skipped_by_reason.store_op_dont_care", "stored DONT_CARE and no store copy of the pass")        \
  X(kStoreOpNone, "skipped_by_reason.store_op_none", "stored with STORE_OP_NONE (contents left as they were)")          \
  X(kTransient, "skipped_by_reason.transient", "TRANSIENT image on a device with lazily allocated memory")             \
  X(kFormat, "skipped_by_reason.format", "a colour format other than 8-bit UNORM RGBA/BGRA")                           \
  X(kNotReadable, "skipped_by_reason.not_readable", "image the layer could not make sampled (tiling, usage, limits)")  \
  X(kLayout, "skipped_by_reason.layout", "left in an undefined layout")                                               \
  X(kQueue, "skipped_by_reason.queue", "submitted on a queue family without compute")                                  \
  X(kResources, "skipped_by_reason.resources", "the layer's own objects could not be made")
// clang-format on
TESSERA_DEFINE_COUNTER_IDS(MsaaSkipIds, TESSERA_LAYER_MSAA_SKIP_REASONS);
using MsaaSkips = CounterSet<MsaaSkipIds>;
// Not a reason: the attachment is read.
inline constexpr int kMsaaRead = -1;

struct MsaaFrameStats {
  bool valid = false;  // false: no read-back in this frame
  uint64_t images = 0;
  uint64_t samples = 0;  // samples read (width x height x sample count, summed)
  uint64_t tiles = 0;
  uint64_t tiles_by_state[kColorStateCodes] = {};
  uint64_t stored_bytes = 0;        // planes + index bits + control, per image rounded up to bytes
  uint64_t uncompressed_bytes = 0;  // every plane raw
  uint64_t planes_only_bytes = 0;   // used planes raw + index bits
  uint64_t skipped = 0;             // attachments not read (see docs/layer.md)
  MsaaSkips skipped_by_reason;      // the same, by reason

  void add(const MsaaFrameStats& o);
};

// One image: `samples` pixel-major (pixel (x, y), sample s at (y * width + x) * n + s), RGBA8
// with R in the low byte, n in {2, 4, 8}. Tiles past the right or bottom edge are completed with
// `clear`. `tile_states`, when given, receives each tile's 4-bit state, row-major.
MsaaFrameStats analyse_msaa_samples(const uint32_t* samples, uint32_t width, uint32_t height, uint32_t n,
                                    uint32_t clear, std::vector<uint8_t>* tile_states);

// Writes the per-tile state map as a PNG (every pixel of a tile in its state's swatch, as
// `tessera render --color-state` colours them). False on failure.
bool write_state_image(const std::string& path, const std::vector<uint8_t>& tile_states, uint32_t width,
                       uint32_t height);

}  // namespace tessera::layer
