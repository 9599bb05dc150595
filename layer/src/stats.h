// Counters of one frame (or one command buffer recording), the layer's settings, and the
// per-frame record writer (CSV or JSON Lines). No Vulkan calls here.
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include "units.h"

namespace tessera::layer {

// Draw commands by kind; the order is the order of the output fields.
enum DrawKind : int {
  kDraw, kDrawIndexed, kDrawIndirect, kDrawIndexedIndirect, kDrawIndirectCount,
  kDrawIndexedIndirectCount, kDrawMulti, kDrawMultiIndexed, kDrawKindCount
};
inline constexpr const char* kDrawKindNames[kDrawKindCount] = {
    "draw", "draw_indexed", "draw_indirect", "draw_indexed_indirect", "draw_indirect_count",
    "draw_indexed_indirect_count", "draw_multi", "draw_multi_indexed"};

enum DispatchKind : int { kDispatch, kDispatchIndirect, kDispatchBase, kDispatchKindCount };
inline constexpr const char* kDispatchKindNames[kDispatchKindCount] = {"dispatch", "dispatch_indirect",
                                                                      "dispatch_base"};

// VkPrimitiveTopology values 0..10, in enum order.
inline constexpr int kTopologyCount = 11;
inline constexpr const char* kTopologyNames[kTopologyCount] = {
    "point_list", "line_list", "line_strip", "triangle_list", "triangle_strip", "triangle_fan",
    "line_list_with_adjacency", "line_strip_with_adjacency", "triangle_list_with_adjacency",
    "triangle_strip_with_adjacency", "patch_list"};
inline constexpr int kPatchListTopology = 10;

// Render passes by sample count: 1, 2, 4, ..., 64 (index = log2 of the count).
inline constexpr int kSampleBuckets = 7;

// Pipeline-statistics counters in VkQueryPipelineStatisticFlagBits order (bit i = entry i).
inline constexpr int kQueryCounterCount = 11;
inline constexpr const char* kQueryCounterNames[kQueryCounterCount] = {
    "ia_vertices", "ia_primitives", "vs_invocations", "gs_invocations", "gs_primitives",
    "clipping_invocations", "clipping_primitives", "fs_invocations", "tcs_patches",
    "tes_invocations", "cs_invocations"};

// What the CPU side sees while commands are recorded. Counted per command buffer recording
// and added to a frame each time the command buffer is submitted.
struct CpuCounters {
  uint64_t draws_by_kind[kDrawKindCount] = {};
  uint64_t tessellation_draws = 0;  // draws with a tessellation pipeline bound
  uint64_t geometry_draws = 0;      // draws with a geometry-shader pipeline bound
  uint64_t multisampled_draws = 0;  // draws with a pipeline of rasterizationSamples > 1
  uint64_t instances = 0;
  uint64_t vertices = 0;
  uint64_t indices = 0;
  uint64_t primitives_by_topology[kTopologyCount] = {};
  uint64_t patches = 0;
  uint64_t control_points = 0;
  uint64_t dispatches_by_kind[kDispatchKindCount] = {};
  uint64_t workgroups = 0;
  uint64_t render_passes_by_samples[kSampleBuckets] = {};
  uint64_t msaa_covered_pixels = 0;
  uint64_t secondary_executions = 0;

  uint64_t draws() const;
  uint64_t dispatches() const;
  void add(const CpuCounters& o);
};

struct FrameRecord {
  uint32_t device = 0;
  uint64_t frame = 0;
  double cpu_frame_time_ms = 0.0;
  uint64_t submits = 0;
  uint64_t command_buffers = 0;
  CpuCounters cpu;
  bool query_enabled = false;   // the device collects pipeline statistics
  bool query_complete = false;  // every segment of the frame's work was read back
  uint64_t query_segments = 0;
  uint64_t query[kQueryCounterCount] = {};
  GppFrameModel gpp;  // Tessera's GPP model on the frame's tessellation (written frames only)
  MsaaFrameStats msaa;  // the colour unit on the frame's read-back MSAA attachments
};

enum class FrameDelimiter { kPresent, kSubmit, kLabel };

struct Settings {
  std::string output;  // empty: no per-frame file, summary on stderr only
  uint64_t first_frame = 0;
  uint64_t last_frame = UINT64_MAX;
  uint64_t interval = 1;
  FrameDelimiter delimiter = FrameDelimiter::kPresent;
  uint64_t submits_per_frame = 1;
  std::string frame_label = "tessera.frame";
  bool summary = true;  // one summary line per device on stderr at vkDestroyDevice
  bool queries = true;  // pipeline-statistics queries (GPU counts); off leaves the CPU-side counts
  int gpps = 4;         // GPPs of the modelled array (1..16; 0: no GPP model)
  uint64_t msaa_interval = 0;    // read back MSAA colour every Nth frame (0: never)
  std::string msaa_dump;         // per read-back image sample dump, "{device}", "{frame}", "{image}" replaced
  std::string msaa_state_image;  // per read-back image tile-state PNG, same placeholders
  std::string source;   // settings file used, if any

  bool selected(uint64_t frame) const {
    return frame >= first_frame && frame <= last_frame && (frame - first_frame) % interval == 0;
  }
};

// Reads vk_layer_settings.txt (VK_LAYER_SETTINGS_PATH, a file or a folder, else the current
// folder), then the TESSERA_LAYER_* environment variables, which win. Problems are reported on
// stderr and the default kept.
Settings load_settings();

// Process-wide record writer: one file for every device of the process, opened on first use.
class Output {
 public:
  explicit Output(const Settings& s) : settings_(s) {}
  ~Output();
  void write_frame(const FrameRecord& r);
  void write_summary(const FrameRecord& totals, uint64_t frames, uint64_t frames_written,
                     uint64_t query_lost, const std::string& query_note);

 private:
  bool ensure_open();
  const Settings& settings_;
  std::mutex mutex_;
  FILE* file_ = nullptr;
  bool failed_ = false;
  bool csv_ = false;
};

}  // namespace tessera::layer
