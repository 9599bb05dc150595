// Counters of one frame (or one command buffer recording), the layer's settings, and the
// per-frame record writer (CSV or JSON Lines). No Vulkan calls here (the headers only for the
// enum values the counters follow).
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "capture_frames.h"
#include "frame_times.h"
#include "tessera/counter_set.h"
#include "units.h"

namespace tessera::layer {

// What the CPU side sees while commands are recorded, counted per command buffer recording and
// added to a frame each time the command buffer is submitted. The stats key is the CSV column;
// the JSON record nests "group.name" keys as "group":{"name":...}. The order is the order of the
// output fields; the draw and dispatch totals are derived (CpuCounters::draws, dispatches).
// clang-format off
#define TESSERA_LAYER_CPU_COUNTERS(X)                                                                                  \
  X(kDraw, "draws_by_kind.draw", "vkCmdDraw commands")                                                                 \
  X(kDrawIndexed, "draws_by_kind.draw_indexed", "vkCmdDrawIndexed commands")                                           \
  X(kDrawIndirect, "draws_by_kind.draw_indirect", "vkCmdDrawIndirect commands")                                        \
  X(kDrawIndexedIndirect, "draws_by_kind.draw_indexed_indirect", "vkCmdDrawIndexedIndirect commands")                  \
  X(kDrawIndirectCount, "draws_by_kind.draw_indirect_count", "vkCmdDrawIndirectCount commands (any suffix)")           \
  X(kDrawIndexedIndirectCount, "draws_by_kind.draw_indexed_indirect_count",                                            \
    "vkCmdDrawIndexedIndirectCount commands (any suffix)")                                                             \
  X(kDrawMulti, "draws_by_kind.draw_multi", "vkCmdDrawMultiEXT commands")                                              \
  X(kDrawMultiIndexed, "draws_by_kind.draw_multi_indexed", "vkCmdDrawMultiIndexedEXT commands")                        \
  X(kTessellationDraws, "draws_by_pipeline.tessellation", "draws with a tessellation pipeline bound")                  \
  X(kGeometryDraws, "draws_by_pipeline.geometry", "draws with a geometry-shader pipeline bound")                       \
  X(kMultisampledDraws, "draws_by_pipeline.multisampled", "draws with a pipeline of rasterizationSamples > 1")         \
  X(kInstances, "instances", "instances of direct draws")                                                              \
  X(kVertices, "vertices", "vertices (or indices) x instances of direct draws")                                        \
  X(kIndices, "indices", "indices x instances of direct indexed draws")                                                \
  X(kPointList, "primitives_by_topology.point_list", "point list primitives of direct draws")                          \
  X(kLineList, "primitives_by_topology.line_list", "line list primitives of direct draws")                             \
  X(kLineStrip, "primitives_by_topology.line_strip", "line strip primitives of direct draws")                          \
  X(kTriangleList, "primitives_by_topology.triangle_list", "triangle list primitives of direct draws")                 \
  X(kTriangleStrip, "primitives_by_topology.triangle_strip", "triangle strip primitives of direct draws")              \
  X(kTriangleFan, "primitives_by_topology.triangle_fan", "triangle fan primitives of direct draws")                    \
  X(kLineListWithAdjacency, "primitives_by_topology.line_list_with_adjacency",                                         \
    "line list with adjacency primitives of direct draws")                                                             \
  X(kLineStripWithAdjacency, "primitives_by_topology.line_strip_with_adjacency",                                       \
    "line strip with adjacency primitives of direct draws")                                                            \
  X(kTriangleListWithAdjacency, "primitives_by_topology.triangle_list_with_adjacency",                                 \
    "triangle list with adjacency primitives of direct draws")                                                         \
  X(kTriangleStripWithAdjacency, "primitives_by_topology.triangle_strip_with_adjacency",                               \
    "triangle strip with adjacency primitives of direct draws")                                                        \
  X(kPatchList, "primitives_by_topology.patch_list", "patch list primitives of direct draws")                          \
  X(kPatches, "patches", "patches of direct draws")                                                                    \
  X(kControlPoints, "control_points", "control points of those patches")                                               \
  X(kDispatch, "dispatches_by_kind.dispatch", "vkCmdDispatch commands")                                                \
  X(kDispatchIndirect, "dispatches_by_kind.dispatch_indirect", "vkCmdDispatchIndirect commands")                       \
  X(kDispatchBase, "dispatches_by_kind.dispatch_base", "vkCmdDispatchBase commands (any suffix)")                      \
  X(kWorkgroups, "workgroups", "workgroups of direct dispatches")                                                      \
  X(kRenderPasses1, "render_passes.1", "render pass instances of 1 sample")                                            \
  X(kRenderPasses2, "render_passes.2", "render pass instances of 2 samples")                                           \
  X(kRenderPasses4, "render_passes.4", "render pass instances of 4 samples")                                           \
  X(kRenderPasses8, "render_passes.8", "render pass instances of 8 samples")                                           \
  X(kRenderPasses16, "render_passes.16", "render pass instances of 16 samples")                                        \
  X(kRenderPasses32, "render_passes.32", "render pass instances of 32 samples")                                        \
  X(kRenderPasses64, "render_passes.64", "render pass instances of 64 samples")                                        \
  X(kMsaaCoveredPixels, "msaa_covered_pixels", "render area pixels of multisampled passes")                            \
  X(kSecondaryExecutions, "secondary_executions", "secondary command buffers executed")                                \
  X(kCapturePatchedBinds, "capture_patched_binds", "binds of frame capture's patched pipelines (noted recordings)")
// clang-format on
TESSERA_DEFINE_COUNTER_IDS(CpuCounterIds, TESSERA_LAYER_CPU_COUNTERS);

// VkPrimitiveTopology values 0..10 are the topology counters in enum order.
inline constexpr uint32_t kTopologyCount = 11;
static_assert(CpuCounterIds::kPatchList - CpuCounterIds::kPointList == VK_PRIMITIVE_TOPOLOGY_PATCH_LIST);
// Render passes by sample count 1, 2, 4, ..., 64 (bucket = log2 of the count).
inline constexpr uint32_t kSampleBuckets = 7;
static_assert(CpuCounterIds::kRenderPasses64 - CpuCounterIds::kRenderPasses1 + 1 == kSampleBuckets);

struct CpuCounters : CounterSet<CpuCounterIds> {
  static Id topology(uint32_t t) { return Id(kPointList + int(t)); }
  static Id render_passes(uint32_t bucket) { return Id(kRenderPasses1 + int(bucket)); }
  uint64_t draws() const;       // every draw kind
  uint64_t dispatches() const;  // every dispatch kind
};

// Pipeline-statistics counters in VkQueryPipelineStatisticFlagBits order (bit i = counter i).
// clang-format off
#define TESSERA_LAYER_QUERY_COUNTERS(X)                                                                                \
  X(kIaVertices, "query.ia_vertices", "input assembly vertices")                                                       \
  X(kIaPrimitives, "query.ia_primitives", "input assembly primitives")                                                 \
  X(kVsInvocations, "query.vs_invocations", "vertex shader invocations")                                               \
  X(kGsInvocations, "query.gs_invocations", "geometry shader invocations")                                             \
  X(kGsPrimitives, "query.gs_primitives", "geometry shader primitives")                                                \
  X(kClippingInvocations, "query.clipping_invocations", "clipping invocations")                                        \
  X(kClippingPrimitives, "query.clipping_primitives", "clipping output primitives")                                    \
  X(kFsInvocations, "query.fs_invocations", "fragment shader invocations")                                             \
  X(kTcsPatches, "query.tcs_patches", "tessellation control shader patches")                                           \
  X(kTesInvocations, "query.tes_invocations", "tessellation evaluation shader invocations")                            \
  X(kCsInvocations, "query.cs_invocations", "compute shader invocations")
// clang-format on
TESSERA_DEFINE_COUNTER_IDS(QueryCounterIds, TESSERA_LAYER_QUERY_COUNTERS);
using QueryCounters = CounterSet<QueryCounterIds>;
static_assert(1u << QueryCounterIds::kTcsPatches ==
              VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_CONTROL_SHADER_PATCHES_BIT);
static_assert(1u << QueryCounterIds::kCsInvocations == VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT);

struct FrameRecord {
  uint32_t device = 0;
  uint64_t frame = 0;
  double cpu_frame_time_ms = 0.0;
  double gpu_ms = -1.0;       // GPU time of the frame's submissions; < 0: not measured (null)
  bool gpu_complete = false;  // every submission of the frame was timed
  uint64_t submits = 0;
  uint64_t command_buffers = 0;
  CpuCounters cpu;
  bool query_enabled = false;   // the device collects pipeline statistics
  bool query_complete = false;  // every segment of the frame's work was read back
  uint64_t query_segments = 0;
  QueryCounters query;
  GppFrameModel gpp;    // Tessera's GPP model on the frame's tessellation (written frames only)
  MsaaFrameStats msaa;  // the colour unit on the frame's read-back MSAA attachments
};

enum class FrameDelimiter { kPresent, kSubmit, kLabel };
// What one pipeline-statistics query covers: the draws of a subpass (or of the work between
// boundaries outside passes), or each draw (two pipelines in one pass are then told apart).
enum class QueryGranularity { kRenderPass, kDraw };
enum class HudPosition { kTopLeft, kTopRight, kBottomLeft, kBottomRight };
// The HUD's panels, in display order (hud_panels setting: a comma list of these names).
inline constexpr int kHudPanelCount = 5;
inline constexpr const char* kHudPanelNames[kHudPanelCount] = {"frame_time", "draws", "gpp", "msaa", "capture"};

struct Settings {
  std::string output;  // empty: no per-frame file, summary on stderr only
  uint64_t first_frame = 0;
  uint64_t last_frame = UINT64_MAX;
  uint64_t interval = 1;
  FrameDelimiter delimiter = FrameDelimiter::kPresent;
  uint64_t submits_per_frame = 1;
  std::string frame_label = "tessera.frame";
  bool summary = true;           // one summary line per device on stderr at vkDestroyDevice
  bool queries = true;           // pipeline-statistics queries (GPU counts); off leaves the CPU-side counts
  uint64_t query_interval = 10;  // pipeline statistics in every Nth frame's recordings (cost, docs/layer.md)
  QueryGranularity query_granularity = QueryGranularity::kRenderPass;
  bool gpu_time = true;             // timestamps around the submissions of sampled frames (gpu_ms)
  uint64_t gpu_time_interval = 10;  // frames 0, N, 2N, ... are timed; the others cost nothing (gpu_ms null)
  bool hud = false;      // the in-game HUD, drawn into presented images (hud.cpp)
  HudPosition hud_position = HudPosition::kTopLeft;
  float hud_scale = 1.0f;                            // 0.25 .. 4
  float hud_opacity = 0.8f;                          // background alpha, 0 .. 1
  uint32_t hud_panels = (1u << kHudPanelCount) - 1;  // bit i: kHudPanelNames[i] shown
  uint64_t hud_refresh_ms = 100;                     // the panel rebuilt at most this often (0: every frame)
  int gpps = 4;                                      // GPPs of the modelled array (1..16; 0: no GPP model)
  uint64_t msaa_interval = 0;                        // read back MSAA colour every Nth frame (0: never)
  std::string msaa_dump;         // per read-back image sample dump, "{device}", "{frame}", "{image}" replaced
  std::string msaa_state_image;  // per read-back image tile-state PNG, same placeholders
  CaptureFrames capture;         // frames captured to files (capture.h), off by default
  std::string capture_path = "tessera_capture_{device}_{frame}.tcap";  // "{device}", "{frame}" replaced
  bool capture_xfb = true;       // transform feedback for captured geometry (0: forced off, for tests)
  std::string source;            // settings file used, if any

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
  // False when the record could not be written (no output, or it failed to open).
  bool write_frame(const FrameRecord& r);
  void write_summary(const FrameRecord& totals, uint64_t frames, uint64_t frames_written, uint64_t query_lost,
                     const std::string& query_note, const TimeSummary& cpu_times, const TimeSummary& gpu_times);

 private:
  bool ensure_open();
  const Settings& settings_;
  std::mutex mutex_;
  FILE* file_ = nullptr;
  bool failed_ = false;
  bool csv_ = false;
};

// A path setting with "{device}", "{frame}" and "{image}" replaced (image < 0: "{image}" kept, as
// for capture_path, which has no image number).
std::string expand_path(std::string pattern, uint32_t device, uint64_t frame, int64_t image = -1);

// The process's settings (read once, at the first vkCreateInstance) and its record writer
// (defined in device.cpp).
const Settings& settings();
Output& output();

}  // namespace tessera::layer
