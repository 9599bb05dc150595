// VK_LAYER_TESSERA_stats: an implicit Vulkan layer that counts what an application asks the GPU
// to do (draws, vertices, primitives by topology, patches, dispatches, render passes by sample
// count) per frame, and reads the GPU's own pipeline statistics for the same frames. See
// docs/layer.md.
//
// Dispatch: the layer keeps small hand-written dispatch tables (dispatch_tables.h) holding only
// the functions it intercepts or calls; every other command is resolved by the next layer's
// vkGet*ProcAddr and never passes through here.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dispatch_tables.h"
#include "stats.h"

#define TESSERA_EXPORT extern "C" __attribute__((visibility("default")))

namespace tessera::layer {
namespace {

constexpr const char* kLayerName = "VK_LAYER_TESSERA_stats";
constexpr uint32_t kPoolSize = 128;  // queries per layer-owned query pool
constexpr VkQueryPipelineStatisticFlags kGraphicsBits = 0x3FF;  // IA .. TES invocations
constexpr VkQueryPipelineStatisticFlags kComputeBits = VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;
constexpr uint32_t kNoTopology = UINT32_MAX;

using Clock = std::chrono::steady_clock;

void* dispatch_key(const void* handle) { return *static_cast<void* const*>(handle); }

// ---------------------------------------------------------------------------------------------
// Global state

Settings& settings() {
  static Settings s = load_settings();
  return s;
}

Output& output() {
  static Output o(settings());
  return o;
}

struct InstanceData {
  VkInstance instance = VK_NULL_HANDLE;
  uint32_t api_version = VK_API_VERSION_1_0;
  InstanceTable table;
};

struct PipelineInfo {
  uint32_t topology = kNoTopology;
  bool dynamic_topology = false;
  uint32_t patch_control_points = 0;
  bool dynamic_patch_control_points = false;
  bool tessellation = false;
  bool geometry = false;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
};

// What the MSAA read-back needs of a render pass attachment.
struct AttachmentDesc {
  VkFormat format = VK_FORMAT_UNDEFINED;
  uint32_t samples = 1;
  VkAttachmentLoadOp load = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  VkAttachmentStoreOp store = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  VkImageLayout final_layout = VK_IMAGE_LAYOUT_UNDEFINED;
};

struct RenderPassInfo {
  uint32_t subpasses = 1;
  uint32_t max_samples = 1;
  bool multiview = false;
  std::vector<AttachmentDesc> attachments;
};

// MSAA read-back (settings().msaa_interval > 0).
struct MsaaImage {  // a multisampled colour image created readable by the layer's compute shader
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkExtent3D extent{};
  uint32_t samples = 1;
};

struct MsaaTarget {  // an attachment a recording stores, with the layout it is left in
  VkImage image = VK_NULL_HANDLE;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
  uint32_t clear = 0;  // the pass's clear colour (RGBA8), 0 when it does not clear
};

struct ReadbackEntry {
  VkImage image = VK_NULL_HANDLE;
  uint32_t width = 0, height = 0, samples = 0, clear = 0, index = 0;
  VkImageView view = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDescriptorSet set = VK_NULL_HANDLE;
};

struct ReadbackBatch {  // one layer submission, right after an application submission
  uint64_t frame = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::vector<ReadbackEntry> entries;
};

struct MsaaResources {
  bool tried = false, ok = false;
  VkShaderModule module = VK_NULL_HANDLE;
  VkSampler sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  std::unordered_map<uint32_t, VkCommandPool> command_pools;  // per queue family
  VkPhysicalDeviceMemoryProperties memory{};
};

// Where recording stands, for deciding whether a query may be active.
enum class Where { kOutside, kInlinePass, kSecondaryPass, kNoQueryPass };

struct CommandBufferState {
  VkCommandPool pool = VK_NULL_HANDLE;
  bool primary = true;
  VkQueryPipelineStatisticFlags mask = 0;  // 0: queries impossible for this pool's family

  // Per recording.
  bool queries_ok = false;   // this recording may use layer queries
  bool simultaneous = false; // recorded with SIMULTANEOUS_USE: may be pending more than once
  bool incomplete = false;   // some work of this recording is not covered by a query
  CpuCounters counters;      // this recording, including executed secondaries
  std::vector<uint32_t> own_slots;  // slots allocated by this recording
  std::vector<uint32_t> all_slots;  // own slots plus those of executed secondaries
  bool query_active = false;
  uint32_t active_slot = 0;
  bool app_stats_active = false;
  Where where = Where::kOutside;
  std::vector<MsaaTarget> msaa_targets;  // multisampled attachments stored (MSAA read-back on)
  VkRenderPass render_pass = VK_NULL_HANDLE;
  uint32_t pipe_topology = kNoTopology;
  bool pipe_dynamic_topology = false;
  uint32_t pipe_patch_cp = 0;
  bool pipe_dynamic_cp = false;
  bool pipe_tessellation = false;
  bool pipe_geometry = false;
  uint32_t pipe_samples = 1;
  uint32_t dyn_topology = kNoTopology;
  uint32_t dyn_patch_cp = 0;

  void reset_recording() {
    queries_ok = false;
    simultaneous = false;
    incomplete = false;
    counters = CpuCounters{};
    own_slots.clear();
    all_slots.clear();
    query_active = false;
    app_stats_active = false;
    where = Where::kOutside;
    render_pass = VK_NULL_HANDLE;
    pipe_topology = kNoTopology;
    pipe_dynamic_topology = false;
    pipe_patch_cp = 0;
    pipe_dynamic_cp = false;
    pipe_tessellation = false;
    pipe_geometry = false;
    pipe_samples = 1;
    dyn_topology = kNoTopology;
    dyn_patch_cp = 0;
    msaa_targets.clear();
  }
};

struct Frame {
  uint64_t index = 0;
  Clock::time_point start;
  double cpu_ms = 0.0;
  bool ended = false;
  bool has_work = false;
  uint64_t submits = 0;
  uint64_t command_buffers = 0;
  CpuCounters cpu;
  uint32_t pending = 0;
  bool query_incomplete = false;
  uint64_t segments = 0;
  uint64_t query[kQueryCounterCount] = {};
  std::vector<TessSegment> tess;  // graphics segments in submission order, for the GPP model
  uint32_t pending_readbacks = 0;  // MSAA read-back submissions not yet consumed
  uint32_t readback_images = 0;    // images read back so far (numbers the dumps)
  MsaaFrameStats msaa;
};

struct QueryPoolSlab {
  VkQueryPool pool = VK_NULL_HANDLE;
  VkQueryPipelineStatisticFlags mask = 0;
};

struct SlotState {
  int64_t pending_frame = -1;  // frame the last submitted use belongs to, -1 when none
  uint64_t submit_serial = 0;  // serial of the submission that last reset it
  bool listed = false;         // present in DeviceData::pending
  int64_t segment = -1;        // its entry in the pending frame's `tess`, -1 for compute slots
};

struct DeviceData {
  VkDevice device = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  uint32_t index = 0;
  InstanceData* instance = nullptr;
  DeviceTable table;
  VkAllocationCallbacks allocator{};
  bool has_allocator = false;
  const VkAllocationCallbacks* alloc() const { return has_allocator ? &allocator : nullptr; }
  std::vector<VkQueueFamilyProperties> families;

  // Queries.
  bool queries = false;
  std::string query_note;
  PFN_vkResetQueryPool reset_query_pool = nullptr;

  // Object tracking (shared lock for lookups).
  std::shared_mutex objects_mutex;
  std::unordered_map<VkCommandBuffer, std::unique_ptr<CommandBufferState>> command_buffers;
  std::unordered_map<VkCommandPool, std::pair<uint32_t, std::unordered_set<VkCommandBuffer>>> pools;
  std::unordered_map<VkPipeline, PipelineInfo> pipelines;
  std::unordered_map<VkRenderPass, RenderPassInfo> render_passes;
  std::unordered_map<VkImage, uint32_t> image_samples;
  std::unordered_map<VkImageView, uint32_t> view_samples;
  std::unordered_map<VkQueryPool, VkQueryType> app_query_pools;

  // Frames and query slots (state_mutex).
  std::mutex state_mutex;
  std::vector<QueryPoolSlab> slabs;
  std::vector<SlotState> slots;  // slab * kPoolSize + query
  std::unordered_map<VkQueryPipelineStatisticFlags, std::vector<uint32_t>> free_slots;
  std::vector<uint32_t> pending;  // each slot at most once; may hold slots no longer pending
  std::deque<Frame> frames;       // unwritten frames; back() is the open frame
  uint64_t submit_serial = 0;
  uint64_t submits_in_frame = 0;
  uint64_t frames_written = 0;
  uint64_t query_lost = 0;
  FrameRecord totals;

  // MSAA read-back. Maps under objects_mutex, the rest under state_mutex.
  PFN_vkSetDeviceLoaderData set_loader_data = nullptr;
  std::unordered_map<VkImage, MsaaImage> msaa_images;
  std::unordered_map<VkImageView, VkImage> view_images;
  std::unordered_map<VkFramebuffer, std::vector<VkImageView>> framebuffers;
  std::unordered_map<VkQueue, uint32_t> queue_families;
  MsaaResources msaa;
  std::deque<ReadbackBatch> readbacks;
};

std::mutex g_instances_mutex;
std::unordered_map<void*, InstanceData*> g_instances;
std::shared_mutex g_devices_mutex;
std::unordered_map<void*, DeviceData*> g_devices;
std::atomic<uint32_t> g_device_count{0};

InstanceData* get_instance(const void* handle) {
  std::lock_guard lock(g_instances_mutex);
  auto it = g_instances.find(dispatch_key(handle));
  return it == g_instances.end() ? nullptr : it->second;
}

DeviceData* get_device(const void* handle) {
  std::shared_lock lock(g_devices_mutex);
  auto it = g_devices.find(dispatch_key(handle));
  return it == g_devices.end() ? nullptr : it->second;
}

CommandBufferState* get_cb(DeviceData* d, VkCommandBuffer cb) {
  std::shared_lock lock(d->objects_mutex);
  auto it = d->command_buffers.find(cb);
  return it == d->command_buffers.end() ? nullptr : it->second.get();
}

template <typename T>
const T* find_in_chain(const void* pNext, VkStructureType type) {
  for (auto* p = static_cast<const VkBaseInStructure*>(pNext); p; p = p->pNext)
    if (p->sType == type) return reinterpret_cast<const T*>(p);
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Frames and query slots. All under DeviceData::state_mutex.

Frame& frame_at(DeviceData* d, uint64_t index) { return d->frames[index - d->frames.front().index]; }

constexpr int kTcsPatchesBit = 8, kTesInvocationsBit = 9;  // VkQueryPipelineStatisticFlagBits

void add_results(Frame& f, VkQueryPipelineStatisticFlags mask, const uint64_t* values, int64_t segment) {
  int k = 0;
  for (int bit = 0; bit < kQueryCounterCount; ++bit) {
    if (!(mask & (1u << bit))) continue;
    f.query[bit] += values[k];
    if (segment >= 0 && bit == kTcsPatchesBit) f.tess[size_t(segment)].patches = values[k];
    if (segment >= 0 && bit == kTesInvocationsBit) f.tess[size_t(segment)].invocations = values[k];
    ++k;
  }
}

// Reads a pending slot without waiting. `force`: the work is known to be finished (its command
// buffer is being reused or freed), so unavailable results are counted as lost.
bool harvest(DeviceData* d, uint32_t slot, bool force) {
  SlotState& s = d->slots[slot];
  if (s.pending_frame < 0) return true;
  const QueryPoolSlab& slab = d->slabs[slot / kPoolSize];
  uint64_t values[kQueryCounterCount + 1] = {};
  const uint32_t n = static_cast<uint32_t>(__builtin_popcount(slab.mask));
  VkResult r = d->table.GetQueryPoolResults(d->device, slab.pool, slot % kPoolSize, 1, sizeof values, values,
                                            sizeof values, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  const bool available = (r == VK_SUCCESS || r == VK_NOT_READY) && values[n] != 0;
  if (!available && !force) return false;
  Frame& f = frame_at(d, static_cast<uint64_t>(s.pending_frame));
  if (available) {
    add_results(f, slab.mask, values, s.segment);
  } else {
    f.query_incomplete = true;
    ++d->query_lost;
  }
  --f.pending;
  s.pending_frame = -1;
  return true;
}

void write_ready_frames(DeviceData* d) {
  while (!d->frames.empty() && d->frames.front().ended && d->frames.front().pending == 0 &&
         d->frames.front().pending_readbacks == 0) {
    Frame& f = d->frames.front();
    FrameRecord r;
    r.device = d->index;
    r.frame = f.index;
    r.cpu_frame_time_ms = f.cpu_ms;
    r.submits = f.submits;
    r.command_buffers = f.command_buffers;
    r.cpu = f.cpu;
    r.query_enabled = d->queries;
    r.query_complete = d->queries && !f.query_incomplete;
    r.query_segments = f.segments;
    std::copy(std::begin(f.query), std::end(f.query), r.query);
    r.msaa = f.msaa;
    const bool selected = settings().selected(f.index);
    // Tessera's GPP model, only for frames that are written (it costs CPU time per patch).
    if (selected && d->queries && settings().gpps > 0 && !f.tess.empty()) {
      try {
        r.gpp = model_gpp_frame(f.tess, settings().gpps);
      } catch (const std::exception&) {
        r.gpp = GppFrameModel{};  // never take the application down
      }
    }
    // Totals over every frame, written or not.
    d->totals.submits += r.submits;
    d->totals.command_buffers += r.command_buffers;
    d->totals.cpu.add(r.cpu);
    d->totals.query_segments += r.query_segments;
    for (int i = 0; i < kQueryCounterCount; ++i) d->totals.query[i] += r.query[i];
    if (selected) {
      output().write_frame(r);
      ++d->frames_written;
    }
    uint64_t next = f.index + 1;
    Clock::time_point start = f.start;
    d->frames.pop_front();
    if (d->frames.empty()) {  // never happens while the device lives: the open frame stays
      Frame open;
      open.index = next;
      open.start = start;
      d->frames.push_back(open);
    }
  }
}

void poll_readbacks(DeviceData* d, bool wait);

void poll(DeviceData* d) {
  poll_readbacks(d, false);
  std::vector<uint32_t> still;
  still.reserve(d->pending.size());
  for (uint32_t slot : d->pending) {
    if (d->slots[slot].pending_frame >= 0 && !harvest(d, slot, false)) still.push_back(slot);
    else d->slots[slot].listed = false;
  }
  d->pending.swap(still);
  write_ready_frames(d);
}

void end_frame(DeviceData* d) {
  Frame& f = d->frames.back();
  Clock::time_point now = Clock::now();
  f.cpu_ms = std::chrono::duration<double, std::milli>(now - f.start).count();
  f.ended = true;
  Frame next;
  next.index = f.index + 1;
  next.start = now;
  d->frames.push_back(next);
  d->submits_in_frame = 0;
  poll(d);
}

bool allocate_slot(DeviceData* d, VkQueryPipelineStatisticFlags mask, uint32_t& slot) {
  auto& list = d->free_slots[mask];
  if (list.empty()) {
    if (d->slabs.size() == d->slabs.capacity()) return false;
    VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    ci.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
    ci.queryCount = kPoolSize;
    ci.pipelineStatistics = mask;
    VkQueryPool pool = VK_NULL_HANDLE;
    if (d->table.CreateQueryPool(d->device, &ci, d->alloc(), &pool) != VK_SUCCESS) return false;
    const uint32_t slab = static_cast<uint32_t>(d->slabs.size());
    d->slabs.push_back({pool, mask});
    d->slots.resize(d->slots.size() + kPoolSize);
    // Fresh queries must be reset before use; they are reset on the host at each submission.
    for (uint32_t i = kPoolSize; i-- > 0;) list.push_back(slab * kPoolSize + i);
  }
  slot = list.back();
  list.pop_back();
  return true;
}

// Gives back the slots of a recording that is being reset or freed. The command buffer is not
// pending (the application guarantees it), so any result still unread is final.
void release_slots(DeviceData* d, CommandBufferState* cb) {
  if (cb->own_slots.empty()) return;
  std::lock_guard lock(d->state_mutex);
  for (uint32_t slot : cb->own_slots) {
    harvest(d, slot, true);
    d->free_slots[d->slabs[slot / kPoolSize].mask].push_back(slot);
  }
  cb->own_slots.clear();
  write_ready_frames(d);
}

// ---------------------------------------------------------------------------------------------
// Query segments inside a command buffer

// The slab vector never reallocates (capacity reserved at device creation), so a pool handle
// may be read without the state lock once its slot was handed out.
VkQueryPool slot_pool(DeviceData* d, uint32_t slot) { return d->slabs[slot / kPoolSize].pool; }

void begin_segment(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb) {
  if (cb->query_active || !d->queries) return;
  if (!cb->queries_ok || cb->app_stats_active || cb->where == Where::kNoQueryPass ||
      cb->where == Where::kSecondaryPass) {
    cb->incomplete = true;
    return;
  }
  uint32_t slot = 0;
  {
    std::lock_guard lock(d->state_mutex);
    if (!allocate_slot(d, cb->mask, slot)) {
      cb->incomplete = true;
      return;
    }
  }
  d->table.CmdBeginQuery(handle, slot_pool(d, slot), slot % kPoolSize, 0);
  cb->own_slots.push_back(slot);
  cb->all_slots.push_back(slot);
  cb->active_slot = slot;
  cb->query_active = true;
}

void end_segment(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb) {
  if (!cb->query_active) return;
  d->table.CmdEndQuery(handle, slot_pool(d, cb->active_slot), cb->active_slot % kPoolSize);
  cb->query_active = false;
}

// ---------------------------------------------------------------------------------------------
// CPU-side counting

uint64_t primitives_for(uint32_t topology, uint64_t n, uint32_t control_points) {
  switch (topology) {
    case 0: return n;                              // point list
    case 1: return n / 2;                          // line list
    case 2: return n >= 2 ? n - 1 : 0;             // line strip
    case 3: return n / 3;                          // triangle list
    case 4: case 5: return n >= 3 ? n - 2 : 0;     // triangle strip, fan
    case 6: return n / 4;                          // line list with adjacency
    case 7: return n >= 4 ? n - 3 : 0;             // line strip with adjacency
    case 8: return n / 6;                          // triangle list with adjacency
    case 9: return n >= 6 ? (n - 4) / 2 : 0;       // triangle strip with adjacency
    case 10: return control_points ? n / control_points : 0;  // patch list
    default: return 0;
  }
}

// One direct draw of `n` vertices (or indices) per instance.
void count_geometry(CommandBufferState* cb, uint64_t n, uint64_t instances, bool indexed) {
  CpuCounters& c = cb->counters;
  c.instances += instances;
  c.vertices += n * instances;
  if (indexed) c.indices += n * instances;
  const uint32_t topology =
      cb->pipe_dynamic_topology && cb->dyn_topology != kNoTopology ? cb->dyn_topology : cb->pipe_topology;
  if (topology >= kTopologyCount) return;
  const uint32_t cp = cb->pipe_dynamic_cp && cb->dyn_patch_cp ? cb->dyn_patch_cp : cb->pipe_patch_cp;
  const uint64_t prims = primitives_for(topology, n, cp) * instances;
  c.primitives_by_topology[topology] += prims;
  if (topology == kPatchListTopology) {
    c.patches += prims;
    c.control_points += prims * cp;
  }
}

// One draw command: its kind, and what the bound graphics pipeline makes of it.
void count_draw(CommandBufferState* cb, DrawKind kind) {
  CpuCounters& c = cb->counters;
  c.draws_by_kind[kind]++;
  if (cb->pipe_tessellation) c.tessellation_draws++;
  if (cb->pipe_geometry) c.geometry_draws++;
  if (cb->pipe_samples > 1) c.multisampled_draws++;
}

uint32_t sample_bucket(uint32_t samples) {
  uint32_t b = 0;
  while ((1u << b) < samples && b + 1 < kSampleBuckets) ++b;
  return b;
}

#define TESSERA_CB_PROLOGUE                                  \
  DeviceData* d = get_device(commandBuffer);                 \
  CommandBufferState* cb = get_cb(d, commandBuffer);

// ---------------------------------------------------------------------------------------------
// Draws and dispatches

VKAPI_ATTR void VKAPI_CALL CmdDraw(VkCommandBuffer commandBuffer, uint32_t vertexCount, uint32_t instanceCount,
                                   uint32_t firstVertex, uint32_t firstInstance) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, kDraw);
    count_geometry(cb, vertexCount, instanceCount, false);
  }
  d->table.CmdDraw(commandBuffer, vertexCount, instanceCount, firstVertex, firstInstance);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndexed(VkCommandBuffer commandBuffer, uint32_t indexCount, uint32_t instanceCount,
                                          uint32_t firstIndex, int32_t vertexOffset, uint32_t firstInstance) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, kDrawIndexed);
    count_geometry(cb, indexCount, instanceCount, true);
  }
  d->table.CmdDrawIndexed(commandBuffer, indexCount, instanceCount, firstIndex, vertexOffset, firstInstance);
}

template <PFN_vkCmdDrawIndirect DeviceTable::*Next, DrawKind Kind>
VKAPI_ATTR void VKAPI_CALL CmdDrawIndirectT(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset,
                                            uint32_t drawCount, uint32_t stride) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, Kind);
  }
  (d->table.*Next)(commandBuffer, buffer, offset, drawCount, stride);
}

template <PFN_vkCmdDrawIndirectCount DeviceTable::*Next, DrawKind Kind>
VKAPI_ATTR void VKAPI_CALL CmdDrawIndirectCountT(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset,
                                                 VkBuffer countBuffer, VkDeviceSize countBufferOffset,
                                                 uint32_t maxDrawCount, uint32_t stride) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, Kind);
  }
  (d->table.*Next)(commandBuffer, buffer, offset, countBuffer, countBufferOffset, maxDrawCount, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMultiEXT(VkCommandBuffer commandBuffer, uint32_t drawCount,
                                           const VkMultiDrawInfoEXT* pVertexInfo, uint32_t instanceCount,
                                           uint32_t firstInstance, uint32_t stride) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, kDrawMulti);
    auto* p = reinterpret_cast<const unsigned char*>(pVertexInfo);
    for (uint32_t i = 0; i < drawCount && p; ++i)
      count_geometry(cb, reinterpret_cast<const VkMultiDrawInfoEXT*>(p + size_t(i) * stride)->vertexCount,
                     instanceCount, false);
  }
  d->table.CmdDrawMultiEXT(commandBuffer, drawCount, pVertexInfo, instanceCount, firstInstance, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMultiIndexedEXT(VkCommandBuffer commandBuffer, uint32_t drawCount,
                                                  const VkMultiDrawIndexedInfoEXT* pIndexInfo, uint32_t instanceCount,
                                                  uint32_t firstInstance, uint32_t stride,
                                                  const int32_t* pVertexOffset) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, kDrawMultiIndexed);
    auto* p = reinterpret_cast<const unsigned char*>(pIndexInfo);
    for (uint32_t i = 0; i < drawCount && p; ++i)
      count_geometry(cb, reinterpret_cast<const VkMultiDrawIndexedInfoEXT*>(p + size_t(i) * stride)->indexCount,
                     instanceCount, true);
  }
  d->table.CmdDrawMultiIndexedEXT(commandBuffer, drawCount, pIndexInfo, instanceCount, firstInstance, stride,
                                  pVertexOffset);
}

VKAPI_ATTR void VKAPI_CALL CmdDispatch(VkCommandBuffer commandBuffer, uint32_t x, uint32_t y, uint32_t z) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    cb->counters.dispatches_by_kind[kDispatch]++;
    cb->counters.workgroups += uint64_t(x) * y * z;
  }
  d->table.CmdDispatch(commandBuffer, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL CmdDispatchIndirect(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    cb->counters.dispatches_by_kind[kDispatchIndirect]++;
  }
  d->table.CmdDispatchIndirect(commandBuffer, buffer, offset);
}

template <PFN_vkCmdDispatchBase DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdDispatchBaseT(VkCommandBuffer commandBuffer, uint32_t bx, uint32_t by, uint32_t bz,
                                            uint32_t x, uint32_t y, uint32_t z) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    cb->counters.dispatches_by_kind[kDispatchBase]++;
    cb->counters.workgroups += uint64_t(x) * y * z;
  }
  (d->table.*Next)(commandBuffer, bx, by, bz, x, y, z);
}

// ---------------------------------------------------------------------------------------------
// Pipelines and dynamic state

VKAPI_ATTR VkResult VKAPI_CALL CreateGraphicsPipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                       const VkGraphicsPipelineCreateInfo* infos,
                                                       const VkAllocationCallbacks* pAllocator, VkPipeline* pipelines) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateGraphicsPipelines(device, cache, count, infos, pAllocator, pipelines);
  std::unique_lock lock(d->objects_mutex);
  for (uint32_t i = 0; i < count; ++i) {
    if (pipelines[i] == VK_NULL_HANDLE) continue;
    const VkGraphicsPipelineCreateInfo& ci = infos[i];
    PipelineInfo info;
    // Graphics pipeline libraries: start from what the linked libraries said.
    if (auto* libs = find_in_chain<VkPipelineLibraryCreateInfoKHR>(ci.pNext,
                                                                   VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR)) {
      for (uint32_t l = 0; l < libs->libraryCount; ++l) {
        auto it = d->pipelines.find(libs->pLibraries[l]);
        if (it == d->pipelines.end()) continue;
        const PipelineInfo& li = it->second;
        if (li.topology != kNoTopology) info.topology = li.topology;
        info.dynamic_topology |= li.dynamic_topology;
        if (li.patch_control_points) info.patch_control_points = li.patch_control_points;
        info.dynamic_patch_control_points |= li.dynamic_patch_control_points;
        info.tessellation |= li.tessellation;
        info.geometry |= li.geometry;
        if (li.samples > info.samples) info.samples = li.samples;
      }
    }
    if (ci.pInputAssemblyState) info.topology = static_cast<uint32_t>(ci.pInputAssemblyState->topology);
    if (ci.pTessellationState) info.patch_control_points = ci.pTessellationState->patchControlPoints;
    if (ci.pMultisampleState) info.samples = ci.pMultisampleState->rasterizationSamples;
    for (uint32_t s = 0; s < ci.stageCount; ++s) {
      const VkShaderStageFlagBits st = ci.pStages[s].stage;
      if (st & (VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT | VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT))
        info.tessellation = true;
      if (st & VK_SHADER_STAGE_GEOMETRY_BIT) info.geometry = true;
    }
    if (ci.pDynamicState) {
      for (uint32_t s = 0; s < ci.pDynamicState->dynamicStateCount; ++s) {
        const VkDynamicState ds = ci.pDynamicState->pDynamicStates[s];
        if (ds == VK_DYNAMIC_STATE_PRIMITIVE_TOPOLOGY) info.dynamic_topology = true;
        if (ds == VK_DYNAMIC_STATE_PATCH_CONTROL_POINTS_EXT) info.dynamic_patch_control_points = true;
      }
    }
    d->pipelines[pipelines[i]] = info;
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyPipeline(VkDevice device, VkPipeline pipeline, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  {
    std::unique_lock lock(d->objects_mutex);
    d->pipelines.erase(pipeline);
  }
  d->table.DestroyPipeline(device, pipeline, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL CmdBindPipeline(VkCommandBuffer commandBuffer, VkPipelineBindPoint bindPoint,
                                           VkPipeline pipeline) {
  TESSERA_CB_PROLOGUE
  if (cb && bindPoint == VK_PIPELINE_BIND_POINT_GRAPHICS) {
    PipelineInfo info;
    {
      std::shared_lock lock(d->objects_mutex);
      auto it = d->pipelines.find(pipeline);
      if (it != d->pipelines.end()) info = it->second;
    }
    cb->pipe_topology = info.topology;
    cb->pipe_dynamic_topology = info.dynamic_topology;
    cb->pipe_patch_cp = info.patch_control_points;
    cb->pipe_dynamic_cp = info.dynamic_patch_control_points;
    cb->pipe_tessellation = info.tessellation;
    cb->pipe_geometry = info.geometry;
    cb->pipe_samples = info.samples;
  }
  d->table.CmdBindPipeline(commandBuffer, bindPoint, pipeline);
}

template <PFN_vkCmdSetPrimitiveTopology DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdSetPrimitiveTopologyT(VkCommandBuffer commandBuffer, VkPrimitiveTopology topology) {
  TESSERA_CB_PROLOGUE
  if (cb) cb->dyn_topology = static_cast<uint32_t>(topology);
  (d->table.*Next)(commandBuffer, topology);
}

VKAPI_ATTR void VKAPI_CALL CmdSetPatchControlPointsEXT(VkCommandBuffer commandBuffer, uint32_t points) {
  TESSERA_CB_PROLOGUE
  if (cb) cb->dyn_patch_cp = points;
  d->table.CmdSetPatchControlPointsEXT(commandBuffer, points);
}

// ---------------------------------------------------------------------------------------------
// Images and render passes

void wait_for_readbacks_of(DeviceData* d, VkImage image);

bool msaa_on() { return settings().msaa_interval > 0; }

// Formats the read-back handles: 8-bit UNORM RGBA (the colour unit's RGBA8). texelFetch on a
// BGRA view returns RGBA, so both store the same words.
bool msaa_format(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_B8G8R8A8_UNORM; }

VKAPI_ATTR VkResult VKAPI_CALL CreateImage(VkDevice device, const VkImageCreateInfo* ci,
                                           const VkAllocationCallbacks* pAllocator, VkImage* image) {
  DeviceData* d = get_device(device);
  // MSAA read-back: a multisampled colour attachment the compute shader can sample. The
  // application's create info is never written: a copy carries the extra usage bit.
  bool readable = false;
  VkImageCreateInfo copy;
  const VkImageCreateInfo* use = ci;
  if (msaa_on() && ci->samples >= VK_SAMPLE_COUNT_2_BIT && ci->samples <= VK_SAMPLE_COUNT_8_BIT &&
      ci->imageType == VK_IMAGE_TYPE_2D && (ci->usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) &&
      ci->tiling == VK_IMAGE_TILING_OPTIMAL && msaa_format(ci->format) && d->instance->table.GetPhysicalDeviceFormatProperties) {
    VkFormatProperties fp{};
    d->instance->table.GetPhysicalDeviceFormatProperties(d->physical, ci->format, &fp);
    readable = fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    if (readable && !(ci->usage & VK_IMAGE_USAGE_SAMPLED_BIT)) {
      copy = *ci;
      copy.usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
      use = &copy;
    }
  }
  VkResult r = d->table.CreateImage(device, use, pAllocator, image);
  if (r != VK_SUCCESS && use != ci) {  // the extra usage was refused: exactly as asked, unread
    readable = false;
    r = d->table.CreateImage(device, ci, pAllocator, image);
  }
  if (r == VK_SUCCESS) {
    std::unique_lock lock(d->objects_mutex);
    d->image_samples[*image] = ci->samples;
    if (readable) d->msaa_images[*image] = {ci->format, ci->extent, uint32_t(ci->samples)};
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  if (msaa_on()) wait_for_readbacks_of(d, image);
  {
    std::unique_lock lock(d->objects_mutex);
    d->image_samples.erase(image);
    d->msaa_images.erase(image);
  }
  d->table.DestroyImage(device, image, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateImageView(VkDevice device, const VkImageViewCreateInfo* ci,
                                               const VkAllocationCallbacks* pAllocator, VkImageView* view) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateImageView(device, ci, pAllocator, view);
  if (r == VK_SUCCESS) {
    std::unique_lock lock(d->objects_mutex);
    auto it = d->image_samples.find(ci->image);
    d->view_samples[*view] = it == d->image_samples.end() ? 1 : it->second;  // swapchain images: 1
    if (msaa_on()) d->view_images[*view] = ci->image;
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyImageView(VkDevice device, VkImageView view, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  {
    std::unique_lock lock(d->objects_mutex);
    d->view_samples.erase(view);
    d->view_images.erase(view);
  }
  d->table.DestroyImageView(device, view, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateRenderPass(VkDevice device, const VkRenderPassCreateInfo* ci,
                                                const VkAllocationCallbacks* pAllocator, VkRenderPass* rp) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateRenderPass(device, ci, pAllocator, rp);
  if (r == VK_SUCCESS) {
    RenderPassInfo info;
    info.subpasses = ci->subpassCount;
    for (uint32_t i = 0; i < ci->attachmentCount; ++i) {
      const VkAttachmentDescription& a = ci->pAttachments[i];
      info.max_samples = std::max<uint32_t>(info.max_samples, a.samples);
      info.attachments.push_back({a.format, uint32_t(a.samples), a.loadOp, a.storeOp, a.finalLayout});
    }
    if (auto* mv = find_in_chain<VkRenderPassMultiviewCreateInfo>(ci->pNext,
                                                                  VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO))
      for (uint32_t i = 0; i < mv->subpassCount; ++i) info.multiview |= mv->pViewMasks[i] != 0;
    std::unique_lock lock(d->objects_mutex);
    d->render_passes[*rp] = info;
  }
  return r;
}

template <PFN_vkCreateRenderPass2 DeviceTable::*Next>
VKAPI_ATTR VkResult VKAPI_CALL CreateRenderPass2T(VkDevice device, const VkRenderPassCreateInfo2* ci,
                                                  const VkAllocationCallbacks* pAllocator, VkRenderPass* rp) {
  DeviceData* d = get_device(device);
  VkResult r = (d->table.*Next)(device, ci, pAllocator, rp);
  if (r == VK_SUCCESS) {
    RenderPassInfo info;
    info.subpasses = ci->subpassCount;
    for (uint32_t i = 0; i < ci->attachmentCount; ++i) {
      const VkAttachmentDescription2& a = ci->pAttachments[i];
      info.max_samples = std::max<uint32_t>(info.max_samples, a.samples);
      info.attachments.push_back({a.format, uint32_t(a.samples), a.loadOp, a.storeOp, a.finalLayout});
    }
    for (uint32_t i = 0; i < ci->subpassCount; ++i) info.multiview |= ci->pSubpasses[i].viewMask != 0;
    std::unique_lock lock(d->objects_mutex);
    d->render_passes[*rp] = info;
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyRenderPass(VkDevice device, VkRenderPass rp, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  {
    std::unique_lock lock(d->objects_mutex);
    d->render_passes.erase(rp);
  }
  d->table.DestroyRenderPass(device, rp, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateFramebuffer(VkDevice device, const VkFramebufferCreateInfo* ci,
                                                 const VkAllocationCallbacks* pAllocator, VkFramebuffer* fb) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateFramebuffer(device, ci, pAllocator, fb);
  if (r == VK_SUCCESS && msaa_on() && !(ci->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT)) {
    std::unique_lock lock(d->objects_mutex);
    d->framebuffers[*fb].assign(ci->pAttachments, ci->pAttachments + ci->attachmentCount);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyFramebuffer(VkDevice device, VkFramebuffer fb, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  {
    std::unique_lock lock(d->objects_mutex);
    d->framebuffers.erase(fb);
  }
  d->table.DestroyFramebuffer(device, fb, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue* queue) {
  DeviceData* d = get_device(device);
  d->table.GetDeviceQueue(device, family, index, queue);
  if (*queue) {
    std::unique_lock lock(d->objects_mutex);
    d->queue_families[*queue] = family;
  }
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2* info, VkQueue* queue) {
  DeviceData* d = get_device(device);
  d->table.GetDeviceQueue2(device, info, queue);
  if (*queue) {
    std::unique_lock lock(d->objects_mutex);
    d->queue_families[*queue] = info->queueFamilyIndex;
  }
}

uint32_t pack_clear(const VkClearColorValue& c) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(std::lround(std::clamp(c.float32[i], 0.0f, 1.0f) * 255.0f)) << (8 * i);
  return v;
}

// Remembers a stored multisampled colour attachment of a recording (the last use of an image
// in the recording wins: its layout is where the recording leaves it).
void add_msaa_target(DeviceData* d, CommandBufferState* cb, VkImageView view, VkImageLayout layout, bool clears,
                     const VkClearColorValue& clear) {
  VkImage image = VK_NULL_HANDLE;
  {
    std::shared_lock lock(d->objects_mutex);
    auto it = d->view_images.find(view);
    if (it == d->view_images.end() || !d->msaa_images.count(it->second)) return;
    image = it->second;
  }
  MsaaTarget t{image, layout, clears ? pack_clear(clear) : 0u};
  for (MsaaTarget& old : cb->msaa_targets)
    if (old.image == image) {
      if (!clears) t.clear = old.clear;  // loaded on top of an earlier clear in this recording
      old = t;
      return;
    }
  cb->msaa_targets.push_back(t);
}

void add_pass_targets(DeviceData* d, CommandBufferState* cb, const VkRenderPassBeginInfo* begin,
                      const RenderPassInfo& info) {
  std::vector<VkImageView> views;
  if (auto* ab = find_in_chain<VkRenderPassAttachmentBeginInfo>(begin->pNext,
                                                                VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO)) {
    views.assign(ab->pAttachments, ab->pAttachments + ab->attachmentCount);  // imageless framebuffer
  } else {
    std::shared_lock lock(d->objects_mutex);
    auto it = d->framebuffers.find(begin->framebuffer);
    if (it != d->framebuffers.end()) views = it->second;
  }
  for (size_t i = 0; i < info.attachments.size() && i < views.size(); ++i) {
    const AttachmentDesc& a = info.attachments[i];
    if (a.samples < 2 || a.store != VK_ATTACHMENT_STORE_OP_STORE || !msaa_format(a.format)) continue;
    const bool clears = a.load == VK_ATTACHMENT_LOAD_OP_CLEAR && i < begin->clearValueCount && begin->pClearValues;
    add_msaa_target(d, cb, views[i], a.final_layout, clears, clears ? begin->pClearValues[i].color : VkClearColorValue{});
  }
}

// An image barrier recorded after a pass: the read-back must start from the layout the
// recording really leaves the attachment in.
void track_msaa_layout(CommandBufferState* cb, VkImage image, VkImageLayout layout) {
  for (MsaaTarget& t : cb->msaa_targets)
    if (t.image == image) t.layout = layout;
}

VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier(VkCommandBuffer commandBuffer, VkPipelineStageFlags src,
                                              VkPipelineStageFlags dst, VkDependencyFlags flags, uint32_t memory_count,
                                              const VkMemoryBarrier* memory, uint32_t buffer_count,
                                              const VkBufferMemoryBarrier* buffers, uint32_t image_count,
                                              const VkImageMemoryBarrier* images) {
  TESSERA_CB_PROLOGUE
  if (cb && !cb->msaa_targets.empty())
    for (uint32_t i = 0; i < image_count; ++i) track_msaa_layout(cb, images[i].image, images[i].newLayout);
  d->table.CmdPipelineBarrier(commandBuffer, src, dst, flags, memory_count, memory, buffer_count, buffers, image_count,
                              images);
}

template <PFN_vkCmdPipelineBarrier2 DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier2T(VkCommandBuffer commandBuffer, const VkDependencyInfo* info) {
  TESSERA_CB_PROLOGUE
  if (cb && !cb->msaa_targets.empty())
    for (uint32_t i = 0; i < info->imageMemoryBarrierCount; ++i)
      track_msaa_layout(cb, info->pImageMemoryBarriers[i].image, info->pImageMemoryBarriers[i].newLayout);
  (d->table.*Next)(commandBuffer, info);
}

RenderPassInfo render_pass_info(DeviceData* d, VkRenderPass rp) {
  std::shared_lock lock(d->objects_mutex);
  auto it = d->render_passes.find(rp);
  return it == d->render_passes.end() ? RenderPassInfo{} : it->second;
}

Where pass_where(bool multiview, bool secondary_contents) {
  if (secondary_contents) return Where::kSecondaryPass;
  return multiview ? Where::kNoQueryPass : Where::kInlinePass;
}

// A render pass instance begins: the segment outside it ends (a query may not span it).
void begin_pass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, uint32_t samples, VkExtent2D extent,
                Where inner, bool count) {
  end_segment(d, handle, cb);
  if (count) {
    cb->counters.render_passes_by_samples[sample_bucket(samples)]++;
    if (samples > 1) cb->counters.msaa_covered_pixels += uint64_t(extent.width) * extent.height;
  }
  cb->where = inner;
}

VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass(VkCommandBuffer commandBuffer, const VkRenderPassBeginInfo* begin,
                                              VkSubpassContents contents) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    RenderPassInfo info = render_pass_info(d, begin->renderPass);
    cb->render_pass = begin->renderPass;
    begin_pass(d, commandBuffer, cb, info.max_samples, begin->renderArea.extent,
               pass_where(info.multiview, contents != VK_SUBPASS_CONTENTS_INLINE), true);
    if (msaa_on()) add_pass_targets(d, cb, begin, info);
  }
  d->table.CmdBeginRenderPass(commandBuffer, begin, contents);
}

template <PFN_vkCmdBeginRenderPass2 DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass2T(VkCommandBuffer commandBuffer, const VkRenderPassBeginInfo* begin,
                                                const VkSubpassBeginInfo* subpass) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    RenderPassInfo info = render_pass_info(d, begin->renderPass);
    cb->render_pass = begin->renderPass;
    begin_pass(d, commandBuffer, cb, info.max_samples, begin->renderArea.extent,
               pass_where(info.multiview, subpass->contents != VK_SUBPASS_CONTENTS_INLINE), true);
    if (msaa_on()) add_pass_targets(d, cb, begin, info);
  }
  (d->table.*Next)(commandBuffer, begin, subpass);
}

void next_subpass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, VkSubpassContents contents) {
  end_segment(d, handle, cb);  // a query begun in a subpass ends in the same subpass
  cb->where = pass_where(render_pass_info(d, cb->render_pass).multiview, contents != VK_SUBPASS_CONTENTS_INLINE);
}

VKAPI_ATTR void VKAPI_CALL CmdNextSubpass(VkCommandBuffer commandBuffer, VkSubpassContents contents) {
  TESSERA_CB_PROLOGUE
  if (cb) next_subpass(d, commandBuffer, cb, contents);
  d->table.CmdNextSubpass(commandBuffer, contents);
}

template <PFN_vkCmdNextSubpass2 DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdNextSubpass2T(VkCommandBuffer commandBuffer, const VkSubpassBeginInfo* begin,
                                            const VkSubpassEndInfo* end) {
  TESSERA_CB_PROLOGUE
  if (cb) next_subpass(d, commandBuffer, cb, begin->contents);
  (d->table.*Next)(commandBuffer, begin, end);
}

void end_pass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb) {
  end_segment(d, handle, cb);
  cb->where = Where::kOutside;
  cb->render_pass = VK_NULL_HANDLE;
}

VKAPI_ATTR void VKAPI_CALL CmdEndRenderPass(VkCommandBuffer commandBuffer) {
  TESSERA_CB_PROLOGUE
  if (cb) end_pass(d, commandBuffer, cb);
  d->table.CmdEndRenderPass(commandBuffer);
}

template <PFN_vkCmdEndRenderPass2 DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdEndRenderPass2T(VkCommandBuffer commandBuffer, const VkSubpassEndInfo* end) {
  TESSERA_CB_PROLOGUE
  if (cb) end_pass(d, commandBuffer, cb);
  (d->table.*Next)(commandBuffer, end);
}

template <PFN_vkCmdBeginRendering DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderingT(VkCommandBuffer commandBuffer, const VkRenderingInfo* info) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    uint32_t samples = 1;
    {
      std::shared_lock lock(d->objects_mutex);
      auto view = [&](VkImageView v) {
        if (v == VK_NULL_HANDLE) return;
        auto it = d->view_samples.find(v);
        if (it != d->view_samples.end()) samples = std::max(samples, it->second);
      };
      for (uint32_t i = 0; i < info->colorAttachmentCount; ++i) view(info->pColorAttachments[i].imageView);
      if (info->pDepthAttachment) view(info->pDepthAttachment->imageView);
      if (info->pStencilAttachment) view(info->pStencilAttachment->imageView);
    }
    begin_pass(d, commandBuffer, cb, samples, info->renderArea.extent,
               pass_where(info->viewMask != 0, info->flags & VK_RENDERING_CONTENTS_SECONDARY_COMMAND_BUFFERS_BIT),
               !(info->flags & VK_RENDERING_RESUMING_BIT));
    if (msaa_on()) {
      for (uint32_t i = 0; i < info->colorAttachmentCount; ++i) {
        const VkRenderingAttachmentInfo& a = info->pColorAttachments[i];
        if (a.imageView == VK_NULL_HANDLE || a.storeOp != VK_ATTACHMENT_STORE_OP_STORE) continue;
        const bool clears = a.loadOp == VK_ATTACHMENT_LOAD_OP_CLEAR && !(info->flags & VK_RENDERING_RESUMING_BIT);
        add_msaa_target(d, cb, a.imageView, a.imageLayout, clears, a.clearValue.color);
      }
    }
  }
  (d->table.*Next)(commandBuffer, info);
}

template <PFN_vkCmdEndRendering DeviceTable::*Next>
VKAPI_ATTR void VKAPI_CALL CmdEndRenderingT(VkCommandBuffer commandBuffer) {
  TESSERA_CB_PROLOGUE
  if (cb) end_pass(d, commandBuffer, cb);
  (d->table.*Next)(commandBuffer);
}

// ---------------------------------------------------------------------------------------------
// Command pools and buffers

VkQueryPipelineStatisticFlags family_mask(DeviceData* d, uint32_t family) {
  if (!d->queries || family >= d->families.size()) return 0;
  VkQueryPipelineStatisticFlags m = 0;
  if (d->families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT) m |= kGraphicsBits;
  if (d->families[family].queueFlags & VK_QUEUE_COMPUTE_BIT) m |= kComputeBits;
  return m;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo* ci,
                                                 const VkAllocationCallbacks* pAllocator, VkCommandPool* pool) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateCommandPool(device, ci, pAllocator, pool);
  if (r == VK_SUCCESS) {
    std::unique_lock lock(d->objects_mutex);
    d->pools[*pool].first = ci->queueFamilyIndex;
  }
  return r;
}

// Forgets command buffers (their recordings end; results already read stay counted).
void forget_command_buffers(DeviceData* d, const VkCommandBuffer* cbs, uint32_t count) {
  std::vector<std::unique_ptr<CommandBufferState>> gone;
  {
    std::unique_lock lock(d->objects_mutex);
    for (uint32_t i = 0; i < count; ++i) {
      auto it = d->command_buffers.find(cbs[i]);
      if (it == d->command_buffers.end()) continue;
      auto pit = d->pools.find(it->second->pool);
      if (pit != d->pools.end()) pit->second.second.erase(cbs[i]);
      gone.push_back(std::move(it->second));
      d->command_buffers.erase(it);
    }
  }
  for (auto& cb : gone) release_slots(d, cb.get());
}

VKAPI_ATTR void VKAPI_CALL DestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  std::vector<VkCommandBuffer> cbs;
  {
    std::unique_lock lock(d->objects_mutex);
    auto it = d->pools.find(pool);
    if (it != d->pools.end()) {
      cbs.assign(it->second.second.begin(), it->second.second.end());
      d->pools.erase(it);
    }
  }
  forget_command_buffers(d, cbs.data(), static_cast<uint32_t>(cbs.size()));
  d->table.DestroyCommandPool(device, pool, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags) {
  DeviceData* d = get_device(device);
  std::vector<CommandBufferState*> states;
  {
    std::shared_lock lock(d->objects_mutex);
    auto it = d->pools.find(pool);
    if (it != d->pools.end())
      for (VkCommandBuffer cb : it->second.second) states.push_back(d->command_buffers.at(cb).get());
  }
  for (CommandBufferState* cb : states) {
    release_slots(d, cb);
    cb->reset_recording();
  }
  return d->table.ResetCommandPool(device, pool, flags);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* ai,
                                                      VkCommandBuffer* cbs) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.AllocateCommandBuffers(device, ai, cbs);
  if (r != VK_SUCCESS) return r;
  std::unique_lock lock(d->objects_mutex);
  auto pit = d->pools.find(ai->commandPool);
  const uint32_t family = pit == d->pools.end() ? UINT32_MAX : pit->second.first;
  for (uint32_t i = 0; i < ai->commandBufferCount; ++i) {
    auto st = std::make_unique<CommandBufferState>();
    st->pool = ai->commandPool;
    st->primary = ai->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    st->mask = family_mask(d, family);
    d->command_buffers[cbs[i]] = std::move(st);
    if (pit != d->pools.end()) pit->second.second.insert(cbs[i]);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                              const VkCommandBuffer* cbs) {
  DeviceData* d = get_device(device);
  forget_command_buffers(d, cbs, count);
  d->table.FreeCommandBuffers(device, pool, count, cbs);
}

bool render_pass_multiview(DeviceData* d, const VkCommandBufferInheritanceInfo* inh) {
  if (!inh) return false;
  if (inh->renderPass != VK_NULL_HANDLE) return render_pass_info(d, inh->renderPass).multiview;
  auto* ri = find_in_chain<VkCommandBufferInheritanceRenderingInfo>(
      inh->pNext, VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_RENDERING_INFO);
  return ri && ri->viewMask != 0;
}

VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(VkCommandBuffer commandBuffer, const VkCommandBufferBeginInfo* info) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    release_slots(d, cb);  // beginning resets the command buffer
    cb->reset_recording();
    cb->queries_ok = d->queries && cb->mask != 0;
    cb->simultaneous = info->flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
    if (!cb->primary) {
      const VkCommandBufferInheritanceInfo* inh = info->pInheritanceInfo;
      // Executed inside an application's own pipeline-statistics query: leave it alone.
      if (inh && inh->pipelineStatistics) cb->queries_ok = false;
      if (info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT) {
        cb->where = render_pass_multiview(d, inh) ? Where::kNoQueryPass : Where::kInlinePass;
        if (inh) cb->render_pass = inh->renderPass;
      }
    }
  }
  return d->table.BeginCommandBuffer(commandBuffer, info);
}

VKAPI_ATTR VkResult VKAPI_CALL EndCommandBuffer(VkCommandBuffer commandBuffer) {
  TESSERA_CB_PROLOGUE
  if (cb) end_segment(d, commandBuffer, cb);
  return d->table.EndCommandBuffer(commandBuffer);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandBuffer(VkCommandBuffer commandBuffer, VkCommandBufferResetFlags flags) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    release_slots(d, cb);
    cb->reset_recording();
  }
  return d->table.ResetCommandBuffer(commandBuffer, flags);
}

VKAPI_ATTR void VKAPI_CALL CmdExecuteCommands(VkCommandBuffer commandBuffer, uint32_t count,
                                              const VkCommandBuffer* secondaries) {
  TESSERA_CB_PROLOGUE
  if (cb) {
    // No query may be active across vkCmdExecuteCommands without inheritedQueries; secondaries
    // carry their own segments instead.
    end_segment(d, commandBuffer, cb);
    for (uint32_t i = 0; i < count; ++i) {
      CommandBufferState* sc = get_cb(d, secondaries[i]);
      if (!sc) continue;
      cb->counters.add(sc->counters);
      cb->counters.secondary_executions++;
      cb->all_slots.insert(cb->all_slots.end(), sc->all_slots.begin(), sc->all_slots.end());
      cb->incomplete |= sc->incomplete;
    }
  }
  d->table.CmdExecuteCommands(commandBuffer, count, secondaries);
}

// ---------------------------------------------------------------------------------------------
// The application's own queries

VKAPI_ATTR VkResult VKAPI_CALL CreateQueryPool(VkDevice device, const VkQueryPoolCreateInfo* ci,
                                               const VkAllocationCallbacks* pAllocator, VkQueryPool* pool) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateQueryPool(device, ci, pAllocator, pool);
  if (r == VK_SUCCESS) {
    std::unique_lock lock(d->objects_mutex);
    d->app_query_pools[*pool] = ci->queryType;
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyQueryPool(VkDevice device, VkQueryPool pool, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  {
    std::unique_lock lock(d->objects_mutex);
    d->app_query_pools.erase(pool);
  }
  d->table.DestroyQueryPool(device, pool, pAllocator);
}

bool is_stats_pool(DeviceData* d, VkQueryPool pool) {
  std::shared_lock lock(d->objects_mutex);
  auto it = d->app_query_pools.find(pool);
  return it != d->app_query_pools.end() && it->second == VK_QUERY_TYPE_PIPELINE_STATISTICS;
}

VKAPI_ATTR void VKAPI_CALL CmdBeginQuery(VkCommandBuffer commandBuffer, VkQueryPool pool, uint32_t query,
                                         VkQueryControlFlags flags) {
  TESSERA_CB_PROLOGUE
  if (cb && is_stats_pool(d, pool)) {
    end_segment(d, commandBuffer, cb);  // two pipeline-statistics queries may not be active at once
    cb->app_stats_active = true;
  }
  d->table.CmdBeginQuery(commandBuffer, pool, query, flags);
}

VKAPI_ATTR void VKAPI_CALL CmdEndQuery(VkCommandBuffer commandBuffer, VkQueryPool pool, uint32_t query) {
  TESSERA_CB_PROLOGUE
  d->table.CmdEndQuery(commandBuffer, pool, query);
  if (cb && is_stats_pool(d, pool)) cb->app_stats_active = false;
}

// ---------------------------------------------------------------------------------------------
// MSAA read-back: every msaa_interval-th frame, the multisampled colour attachments the frame's
// submissions stored are copied sample by sample into host-visible buffers by the layer's own
// compute shader (shaders/glsl/msaa_readback.comp), in the layer's own command buffer submitted
// right after the application's on the same queue. Its fence is polled at later boundaries,
// never waited on (except at vkDestroyDevice, and at vkDestroyImage of an image still being
// read). The application's command buffers and bound state are never touched.

const uint32_t kReadbackShader[] =
#include "msaa_readback.comp.inc"
    ;

std::string expand_pattern(std::string pattern, uint32_t device, uint64_t frame, uint32_t image) {
  const std::pair<const char*, std::string> keys[] = {
      {"{device}", std::to_string(device)}, {"{frame}", std::to_string(frame)}, {"{image}", std::to_string(image)}};
  for (const auto& [key, value] : keys)
    for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at + value.size()))
      pattern.replace(at, std::strlen(key), value);
  return pattern;
}

// Under state_mutex. Created on first use; false when anything is missing (no read-back then).
bool ensure_msaa_resources(DeviceData* d) {
  MsaaResources& m = d->msaa;
  if (m.tried) return m.ok;
  m.tried = true;
  const DeviceTable& t = d->table;
  if (!t.CreateShaderModule || !t.CreateComputePipelines || !t.CmdPipelineBarrier || !t.GetFenceStatus ||
      !t.CreateDescriptorPool || !t.CmdPushConstants || !d->instance->table.GetPhysicalDeviceMemoryProperties)
    return false;
  d->instance->table.GetPhysicalDeviceMemoryProperties(d->physical, &m.memory);
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = sizeof kReadbackShader;
  smci.pCode = kReadbackShader;
  if (t.CreateShaderModule(d->device, &smci, d->alloc(), &m.module) != VK_SUCCESS) return false;
  VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  if (t.CreateSampler(d->device, &sci, d->alloc(), &m.sampler) != VK_SUCCESS) return false;
  const VkDescriptorSetLayoutBinding bindings[2] = {
      {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, &m.sampler},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dl.bindingCount = 2;
  dl.pBindings = bindings;
  if (t.CreateDescriptorSetLayout(d->device, &dl, d->alloc(), &m.set_layout) != VK_SUCCESS) return false;
  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 3 * sizeof(uint32_t)};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &m.set_layout;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &range;
  if (t.CreatePipelineLayout(d->device, &pl, d->alloc(), &m.layout) != VK_SUCCESS) return false;
  VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cp.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cp.stage.module = m.module;
  cp.stage.pName = "main";
  cp.layout = m.layout;
  if (t.CreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &cp, d->alloc(), &m.pipeline) != VK_SUCCESS) return false;
  constexpr uint32_t kSets = 64;  // images being read at once
  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, kSets},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSets}};
  VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dp.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  dp.maxSets = kSets;
  dp.poolSizeCount = 2;
  dp.pPoolSizes = sizes;
  if (t.CreateDescriptorPool(d->device, &dp, d->alloc(), &m.descriptor_pool) != VK_SUCCESS) return false;
  m.ok = true;
  return true;
}

void destroy_msaa_resources(DeviceData* d) {
  MsaaResources& m = d->msaa;
  const DeviceTable& t = d->table;
  for (auto& [family, pool] : m.command_pools) t.DestroyCommandPool(d->device, pool, d->alloc());
  if (m.descriptor_pool) t.DestroyDescriptorPool(d->device, m.descriptor_pool, d->alloc());
  if (m.pipeline) t.DestroyPipeline(d->device, m.pipeline, d->alloc());
  if (m.layout) t.DestroyPipelineLayout(d->device, m.layout, d->alloc());
  if (m.set_layout) t.DestroyDescriptorSetLayout(d->device, m.set_layout, d->alloc());
  if (m.sampler) t.DestroySampler(d->device, m.sampler, d->alloc());
  if (m.module) t.DestroyShaderModule(d->device, m.module, d->alloc());
  m = MsaaResources{};
}

void destroy_entry(DeviceData* d, ReadbackEntry& e) {
  const DeviceTable& t = d->table;
  if (e.set) t.FreeDescriptorSets(d->device, d->msaa.descriptor_pool, 1, &e.set);
  if (e.mapped) t.UnmapMemory(d->device, e.memory);
  if (e.buffer) t.DestroyBuffer(d->device, e.buffer, d->alloc());
  if (e.memory) t.FreeMemory(d->device, e.memory, d->alloc());
  if (e.view) t.DestroyImageView(d->device, e.view, d->alloc());
  e = ReadbackEntry{};
}

void destroy_batch(DeviceData* d, ReadbackBatch& b) {
  for (ReadbackEntry& e : b.entries) destroy_entry(d, e);
  if (b.fence) d->table.DestroyFence(d->device, b.fence, d->alloc());
  if (b.cb) d->table.FreeCommandBuffers(d->device, b.pool, 1, &b.cb);
  b = ReadbackBatch{};
}

// Buffer, view and descriptor set for reading one image. False (and nothing left) on failure.
bool make_entry(DeviceData* d, const MsaaImage& info, ReadbackEntry& e) {
  const DeviceTable& t = d->table;
  e.width = info.extent.width;
  e.height = info.extent.height;
  e.samples = info.samples;
  VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vi.image = e.image;
  vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vi.format = info.format;
  vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = VkDeviceSize(e.width) * e.height * e.samples * sizeof(uint32_t);
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  bool ok = t.CreateImageView(d->device, &vi, d->alloc(), &e.view) == VK_SUCCESS &&
            t.CreateBuffer(d->device, &bi, d->alloc(), &e.buffer) == VK_SUCCESS;
  if (ok) {
    VkMemoryRequirements req{};
    t.GetBufferMemoryRequirements(d->device, e.buffer, &req);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < d->msaa.memory.memoryTypeCount && type == UINT32_MAX; ++i)
      if ((req.memoryTypeBits & (1u << i)) && (d->msaa.memory.memoryTypes[i].propertyFlags & want) == want) type = i;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    ok = type != UINT32_MAX && t.AllocateMemory(d->device, &ai, d->alloc(), &e.memory) == VK_SUCCESS &&
         t.BindBufferMemory(d->device, e.buffer, e.memory, 0) == VK_SUCCESS &&
         t.MapMemory(d->device, e.memory, 0, VK_WHOLE_SIZE, 0, &e.mapped) == VK_SUCCESS;
  }
  if (ok) {
    VkDescriptorSetAllocateInfo dsa{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsa.descriptorPool = d->msaa.descriptor_pool;
    dsa.descriptorSetCount = 1;
    dsa.pSetLayouts = &d->msaa.set_layout;
    ok = t.AllocateDescriptorSets(d->device, &dsa, &e.set) == VK_SUCCESS;
  }
  if (!ok) {
    destroy_entry(d, e);
    return false;
  }
  VkDescriptorImageInfo ii{VK_NULL_HANDLE, e.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkDescriptorBufferInfo bf{e.buffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
  w[0].dstSet = w[1].dstSet = e.set;
  w[0].dstBinding = 0;
  w[0].descriptorCount = 1;
  w[0].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  w[0].pImageInfo = &ii;
  w[1].dstBinding = 1;
  w[1].descriptorCount = 1;
  w[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w[1].pBufferInfo = &bf;
  t.UpdateDescriptorSets(d->device, 2, w, 0, nullptr);
  return true;
}

void image_barrier(DeviceData* d, VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to,
                   VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                   VkAccessFlags dst_access) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  d->table.CmdPipelineBarrier(cb, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
}

// Under state_mutex, right after the application's submission on `queue`: reads `targets`
// back for the current frame.
void submit_readback(DeviceData* d, VkQueue queue, const std::vector<MsaaTarget>& targets) {
  Frame& f = d->frames.back();
  f.msaa.valid = true;
  uint32_t family = UINT32_MAX;
  std::vector<std::pair<MsaaTarget, MsaaImage>> work;
  {
    std::shared_lock lock(d->objects_mutex);
    auto q = d->queue_families.find(queue);
    if (q != d->queue_families.end()) family = q->second;
    for (const MsaaTarget& t : targets) {
      auto it = d->msaa_images.find(t.image);
      const bool layout_ok = t.layout != VK_IMAGE_LAYOUT_UNDEFINED && t.layout != VK_IMAGE_LAYOUT_PREINITIALIZED;
      if (it != d->msaa_images.end() && layout_ok) work.emplace_back(t, it->second);
      else ++f.msaa.skipped;
    }
  }
  if (work.empty()) return;
  if (family >= d->families.size() || !(d->families[family].queueFlags & VK_QUEUE_COMPUTE_BIT) ||
      !ensure_msaa_resources(d)) {
    f.msaa.skipped += work.size();
    return;
  }
  const DeviceTable& t = d->table;
  ReadbackBatch b;
  b.frame = f.index;
  VkCommandPool& pool = d->msaa.command_pools[family];
  if (!pool) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pci.queueFamilyIndex = family;
    if (t.CreateCommandPool(d->device, &pci, d->alloc(), &pool) != VK_SUCCESS) pool = VK_NULL_HANDLE;
  }
  b.pool = pool;
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (!pool || t.AllocateCommandBuffers(d->device, &cai, &b.cb) != VK_SUCCESS) {
    b.cb = VK_NULL_HANDLE;
    f.msaa.skipped += work.size();
    return;
  }
  // A dispatchable handle made below the loader: it needs the loader's dispatch pointer.
  if (d->set_loader_data) d->set_loader_data(d->device, b.cb);
  else *reinterpret_cast<void**>(b.cb) = *reinterpret_cast<void**>(d->device);
  VkCommandBufferBeginInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  cbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  bool ok = t.CreateFence(d->device, &fci, d->alloc(), &b.fence) == VK_SUCCESS &&
            t.BeginCommandBuffer(b.cb, &cbi) == VK_SUCCESS;
  if (ok) {
    t.CmdBindPipeline(b.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->msaa.pipeline);
    for (const auto& [target, info] : work) {
      ReadbackEntry e;
      e.image = target.image;
      e.clear = target.clear;
      if (!make_entry(d, info, e)) {
        ++f.msaa.skipped;
        continue;
      }
      e.index = f.readback_images++;
      // From wherever the application left it (its render pass's final layout) to sampling,
      // and back: everything earlier on the queue is finished writing it first.
      image_barrier(d, b.cb, e.image, target.layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                    VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
      t.CmdBindDescriptorSets(b.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->msaa.layout, 0, 1, &e.set, 0, nullptr);
      const uint32_t push[3] = {e.width, e.height, e.samples};
      t.CmdPushConstants(b.cb, d->msaa.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
      t.CmdDispatch(b.cb, (e.width + 7) / 8, (e.height + 7) / 8, 1);
      image_barrier(d, b.cb, e.image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, target.layout,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                    VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
      b.entries.push_back(e);
    }
    VkMemoryBarrier host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    t.CmdPipelineBarrier(b.cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0,
                         nullptr, 0, nullptr);
    ok = t.EndCommandBuffer(b.cb) == VK_SUCCESS && !b.entries.empty();
  }
  if (ok) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &b.cb;
    ok = t.QueueSubmit(queue, 1, &si, b.fence) == VK_SUCCESS;
  }
  if (!ok) {
    f.msaa.skipped += b.entries.size();
    destroy_batch(d, b);
    return;
  }
  ++f.pending_readbacks;
  d->readbacks.push_back(std::move(b));
}

void write_dump(const std::string& path, const ReadbackEntry& e) {
  FILE* file = std::fopen(path.c_str(), "wb");
  bool ok = file != nullptr;
  if (ok) {
    // "TSMSAA1\n", then width, height, samples, clear colour (uint32, little-endian), then the
    // samples as the shader wrote them.
    const uint32_t header[4] = {e.width, e.height, e.samples, e.clear};
    ok = std::fwrite("TSMSAA1\n", 1, 8, file) == 8 && std::fwrite(header, sizeof header, 1, file) == 1 &&
         std::fwrite(e.mapped, sizeof(uint32_t), size_t(e.width) * e.height * e.samples, file) ==
             size_t(e.width) * e.height * e.samples;
    ok &= std::fclose(file) == 0;
  }
  if (!ok) std::fprintf(stderr, "VK_LAYER_TESSERA_stats: cannot write MSAA dump '%s'\n", path.c_str());
}

// Under state_mutex: the colour unit on a finished read-back.
void consume_batch(DeviceData* d, ReadbackBatch& b) {
  Frame& f = frame_at(d, b.frame);
  const Settings& s = settings();
  for (ReadbackEntry& e : b.entries) {
    const auto* samples = static_cast<const uint32_t*>(e.mapped);
    std::vector<uint8_t> states;
    const bool want_states = !s.msaa_state_image.empty();
    try {
      f.msaa.add(analyse_msaa_samples(samples, e.width, e.height, e.samples, e.clear, want_states ? &states : nullptr));
    } catch (const std::exception&) {
      ++f.msaa.skipped;
      continue;
    }
    if (!s.msaa_dump.empty()) write_dump(expand_pattern(s.msaa_dump, d->index, b.frame, e.index), e);
    if (want_states) {
      const std::string path = expand_pattern(s.msaa_state_image, d->index, b.frame, e.index);
      if (!write_state_image(path, states, e.width, e.height))
        std::fprintf(stderr, "VK_LAYER_TESSERA_stats: cannot write MSAA state image '%s'\n", path.c_str());
    }
  }
  --f.pending_readbacks;
  destroy_batch(d, b);
}

// Under state_mutex. Consumes every finished read-back; `wait`: waits for all of them.
void poll_readbacks(DeviceData* d, bool wait) {
  for (auto it = d->readbacks.begin(); it != d->readbacks.end();) {
    const VkResult r = wait ? d->table.WaitForFences(d->device, 1, &it->fence, VK_TRUE, UINT64_MAX)
                            : d->table.GetFenceStatus(d->device, it->fence);
    if (r == VK_NOT_READY || r == VK_TIMEOUT) {
      ++it;
      continue;
    }
    consume_batch(d, *it);  // also on device loss: the samples are then whatever was written
    it = d->readbacks.erase(it);
  }
}

// The application destroys an image: a read-back of it still running must finish first.
void wait_for_readbacks_of(DeviceData* d, VkImage image) {
  std::lock_guard lock(d->state_mutex);
  for (auto it = d->readbacks.begin(); it != d->readbacks.end();) {
    const bool reads = std::any_of(it->entries.begin(), it->entries.end(),
                                   [&](const ReadbackEntry& e) { return e.image == image; });
    if (!reads) {
      ++it;
      continue;
    }
    d->table.WaitForFences(d->device, 1, &it->fence, VK_TRUE, UINT64_MAX);
    consume_batch(d, *it);
    it = d->readbacks.erase(it);
  }
  write_ready_frames(d);
}

// After the application's submission of `handles` on `queue`: the read-back, in read-back frames.
void maybe_read_back(DeviceData* d, VkQueue queue, const std::vector<VkCommandBuffer>& handles) {
  std::vector<MsaaTarget> targets;
  for (VkCommandBuffer h : handles)
    if (CommandBufferState* cb = get_cb(d, h))
      for (const MsaaTarget& t : cb->msaa_targets) {
        auto it = std::find_if(targets.begin(), targets.end(), [&](const MsaaTarget& o) { return o.image == t.image; });
        if (it != targets.end()) *it = t;  // a later command buffer leaves it last
        else targets.push_back(t);
      }
  if (targets.empty()) return;
  std::lock_guard lock(d->state_mutex);
  if (d->frames.back().index % settings().msaa_interval == 0) submit_readback(d, queue, targets);
}

// ---------------------------------------------------------------------------------------------
// Submission and frame boundaries

void account_submission(DeviceData* d, const std::vector<VkCommandBuffer>& handles) {
  std::vector<CommandBufferState*> states;
  states.reserve(handles.size());
  for (VkCommandBuffer h : handles)
    if (CommandBufferState* s = get_cb(d, h)) states.push_back(s);
  std::lock_guard lock(d->state_mutex);
  const uint64_t serial = ++d->submit_serial;
  Frame& f = d->frames.back();
  for (CommandBufferState* cb : states) {
    for (uint32_t slot : cb->all_slots) {
      SlotState& s = d->slots[slot];
      if (s.submit_serial == serial) continue;
      // The previous use has finished (the command buffer is not pending): read it before the
      // reset below overwrites it. A SIMULTANEOUS_USE command buffer may still be pending: its
      // query is reused only once its previous result is available, else this use goes unmeasured.
      if (!harvest(d, slot, !cb->simultaneous)) {
        f.query_incomplete = true;
        frame_at(d, static_cast<uint64_t>(s.pending_frame)).query_incomplete = true;
        continue;
      }
      d->reset_query_pool(d->device, slot_pool(d, slot), slot % kPoolSize, 1);
      s.pending_frame = static_cast<int64_t>(f.index);
      s.submit_serial = serial;
      const VkQueryPipelineStatisticFlags tess_bits = (1u << kTcsPatchesBit) | (1u << kTesInvocationsBit);
      s.segment = -1;
      if ((d->slabs[slot / kPoolSize].mask & tess_bits) == tess_bits) {
        s.segment = static_cast<int64_t>(f.tess.size());
        f.tess.push_back({});
      }
      ++f.pending;
      ++f.segments;
      if (!s.listed) {
        d->pending.push_back(slot);
        s.listed = true;
      }
    }
    if (d->queries && cb->incomplete) f.query_incomplete = true;
    f.cpu.add(cb->counters);
    ++f.command_buffers;
  }
  ++f.submits;
  f.has_work = true;
}

void after_submission(DeviceData* d) {
  std::lock_guard lock(d->state_mutex);
  if (settings().delimiter == FrameDelimiter::kSubmit && ++d->submits_in_frame >= settings().submits_per_frame)
    end_frame(d);
  else
    poll(d);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  DeviceData* d = get_device(queue);
  std::vector<VkCommandBuffer> cbs;
  for (uint32_t i = 0; i < count; ++i)
    cbs.insert(cbs.end(), submits[i].pCommandBuffers, submits[i].pCommandBuffers + submits[i].commandBufferCount);
  account_submission(d, cbs);
  VkResult r = d->table.QueueSubmit(queue, count, submits, fence);
  if (r == VK_SUCCESS && msaa_on()) maybe_read_back(d, queue, cbs);
  after_submission(d);
  return r;
}

template <PFN_vkQueueSubmit2 DeviceTable::*Next>
VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2T(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits, VkFence fence) {
  DeviceData* d = get_device(queue);
  std::vector<VkCommandBuffer> cbs;
  for (uint32_t i = 0; i < count; ++i)
    for (uint32_t j = 0; j < submits[i].commandBufferInfoCount; ++j)
      cbs.push_back(submits[i].pCommandBufferInfos[j].commandBuffer);
  account_submission(d, cbs);
  VkResult r = (d->table.*Next)(queue, count, submits, fence);
  if (r == VK_SUCCESS && msaa_on()) maybe_read_back(d, queue, cbs);
  after_submission(d);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR* info) {
  DeviceData* d = get_device(queue);
  VkResult r = d->table.QueuePresentKHR(queue, info);
  if (settings().delimiter == FrameDelimiter::kPresent) {
    std::lock_guard lock(d->state_mutex);
    end_frame(d);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL QueueInsertDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT* label) {
  DeviceData* d = get_device(queue);
  d->table.QueueInsertDebugUtilsLabelEXT(queue, label);
  if (settings().delimiter == FrameDelimiter::kLabel && label && label->pLabelName &&
      settings().frame_label == label->pLabelName) {
    std::lock_guard lock(d->state_mutex);
    end_frame(d);
  }
}

// ---------------------------------------------------------------------------------------------
// Instance

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* pAllocator,
                                              VkInstance* pInstance) {
  // The loader's link info: find it, take the next layer's vkGetInstanceProcAddr, and advance
  // the link for the layer below.
  auto* link = const_cast<VkLayerInstanceCreateInfo*>(
      find_in_chain<VkLayerInstanceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO));
  while (link && link->function != VK_LAYER_LINK_INFO)
    link = const_cast<VkLayerInstanceCreateInfo*>(
        find_in_chain<VkLayerInstanceCreateInfo>(link->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO));
  if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  if (!create) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;

  settings();  // read the settings once, before any device exists
  VkResult r = create(ci, pAllocator, pInstance);
  if (r != VK_SUCCESS) return r;
  auto* data = new InstanceData;
  data->instance = *pInstance;
  if (ci->pApplicationInfo && ci->pApplicationInfo->apiVersion) data->api_version = ci->pApplicationInfo->apiVersion;
  data->table.load(*pInstance, gipa);
  std::lock_guard lock(g_instances_mutex);
  g_instances[dispatch_key(*pInstance)] = data;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* pAllocator) {
  if (instance == VK_NULL_HANDLE) return;
  InstanceData* data = nullptr;
  {
    std::lock_guard lock(g_instances_mutex);
    auto it = g_instances.find(dispatch_key(instance));
    if (it == g_instances.end()) return;
    data = it->second;
    g_instances.erase(it);
  }
  data->table.DestroyInstance(instance, pAllocator);
  delete data;
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice, const char* pLayerName,
                                                                  uint32_t* pCount, VkExtensionProperties* pProperties) {
  if (pLayerName && std::strcmp(pLayerName, kLayerName) == 0) {
    *pCount = 0;  // the layer adds no extensions
    return VK_SUCCESS;
  }
  InstanceData* inst = get_instance(physicalDevice);
  if (!inst) return VK_ERROR_INITIALIZATION_FAILED;
  return inst->table.EnumerateDeviceExtensionProperties(physicalDevice, pLayerName, pCount, pProperties);
}

// ---------------------------------------------------------------------------------------------
// Device creation: enabling what the queries need without touching the application's structs.

size_t known_struct_size(VkStructureType t) {
  switch (t) {
#define TESSERA_SIZE(type, stype) \
  case stype:                     \
    return sizeof(type);
    TESSERA_SIZE(VkLayerDeviceCreateInfo, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO)
    TESSERA_SIZE(VkPhysicalDeviceFeatures2, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
    TESSERA_SIZE(VkPhysicalDeviceVulkan11Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceVulkan12Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceVulkan13Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceHostQueryResetFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceDynamicRenderingFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceSynchronization2Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceTimelineSemaphoreFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceBufferDeviceAddressFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceDescriptorIndexingFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceMultiDrawFeaturesEXT, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT)
    TESSERA_SIZE(VkPhysicalDeviceExtendedDynamicStateFeaturesEXT,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_FEATURES_EXT)
    TESSERA_SIZE(VkPhysicalDeviceExtendedDynamicState2FeaturesEXT,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_2_FEATURES_EXT)
    TESSERA_SIZE(VkPhysicalDeviceMultiviewFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceShaderDrawParametersFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES)
    TESSERA_SIZE(VkPhysicalDevice16BitStorageFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES)
    TESSERA_SIZE(VkPhysicalDevice8BitStorageFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceScalarBlockLayoutFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceShaderFloat16Int8Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceMaintenance4Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceImagelessFramebufferFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceVulkanMemoryModelFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceRobustness2FeaturesEXT, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT)
    TESSERA_SIZE(VkDeviceGroupDeviceCreateInfo, VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO)
    TESSERA_SIZE(VkDevicePrivateDataCreateInfo, VK_STRUCTURE_TYPE_DEVICE_PRIVATE_DATA_CREATE_INFO)
#undef TESSERA_SIZE
    default:
      return 0;
  }
}

// A copy of the front of a pNext chain, up to and including the last structure of interest; the
// rest of the chain is shared with the application. Fails (leaving the chain untouched) when a
// structure of unknown size precedes one of interest.
struct ChainCopy {
  std::vector<std::unique_ptr<unsigned char[]>> nodes;
  const void* head = nullptr;

  bool build(const void* app_head, std::initializer_list<VkStructureType> wanted) {
    head = app_head;
    int last = -1, i = 0;
    for (auto* p = static_cast<const VkBaseInStructure*>(app_head); p; p = p->pNext, ++i)
      if (std::find(wanted.begin(), wanted.end(), p->sType) != wanted.end()) last = i;
    if (last < 0) return true;
    VkBaseOutStructure* prev = nullptr;
    i = 0;
    for (auto* p = static_cast<const VkBaseInStructure*>(app_head); i <= last; p = p->pNext, ++i) {
      const size_t size = known_struct_size(p->sType);
      if (size == 0) {
        nodes.clear();
        head = app_head;
        return false;
      }
      nodes.emplace_back(new unsigned char[size]);
      std::memcpy(nodes.back().get(), p, size);
      auto* copy = reinterpret_cast<VkBaseOutStructure*>(nodes.back().get());
      if (prev) prev->pNext = copy;
      else head = copy;
      prev = copy;
    }
    return true;
  }

  template <typename T>
  T* find(VkStructureType type) {
    for (auto& n : nodes)
      if (reinterpret_cast<VkBaseOutStructure*>(n.get())->sType == type) return reinterpret_cast<T*>(n.get());
    return nullptr;
  }
};

uint32_t minor_version(uint32_t v) { return VK_API_VERSION_MAJOR(v) * 1000 + VK_API_VERSION_MINOR(v); }

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* pAllocator, VkDevice* pDevice) {
  InstanceData* inst = get_instance(physicalDevice);
  auto* link = const_cast<VkLayerDeviceCreateInfo*>(
      find_in_chain<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO));
  while (link && link->function != VK_LAYER_LINK_INFO)
    link = const_cast<VkLayerDeviceCreateInfo*>(
        find_in_chain<VkLayerDeviceCreateInfo>(link->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO));
  if (!inst || !link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(inst->instance, "vkCreateDevice"));
  if (!create || !gdpa) return VK_ERROR_INITIALIZATION_FAILED;
  VkLayerDeviceLink* next_link = link->u.pLayerInfo->pNext;
  link->u.pLayerInfo = next_link;
  // The loader's callback for dispatchable objects the layer makes itself (read-back command
  // buffers).
  PFN_vkSetDeviceLoaderData set_loader_data = nullptr;
  for (auto* cb = find_in_chain<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO); cb;
       cb = find_in_chain<VkLayerDeviceCreateInfo>(cb->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO))
    if (cb->function == VK_LOADER_DATA_CALLBACK) set_loader_data = cb->u.pfnSetDeviceLoaderData;

  // What the device offers.
  VkPhysicalDeviceFeatures supported{};
  inst->table.GetPhysicalDeviceFeatures(physicalDevice, &supported);
  VkPhysicalDeviceProperties props{};
  inst->table.GetPhysicalDeviceProperties(physicalDevice, &props);
  const uint32_t effective = std::min(minor_version(inst->api_version), minor_version(props.apiVersion));
  bool has_reset_ext = false;
  {
    uint32_t n = 0;
    inst->table.EnumerateDeviceExtensionProperties(physicalDevice, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    inst->table.EnumerateDeviceExtensionProperties(physicalDevice, nullptr, &n, exts.data());
    for (const auto& e : exts) has_reset_ext |= std::strcmp(e.extensionName, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME) == 0;
  }

  // Plan: pipelineStatisticsQuery plus host query reset (core 1.2, else VK_EXT_host_query_reset).
  std::string note;
  bool want = true;
  if (!settings().queries) {
    want = false;
    note = "turned off (setting queries = 0)";
  } else if (!supported.pipelineStatisticsQuery) {
    want = false;
    note = "device lacks pipelineStatisticsQuery";
  }
  const bool core_reset = effective >= 1002;
  if (want && !core_reset && !has_reset_ext) {
    want = false;
    note = "device lacks host query reset (Vulkan 1.2 or VK_EXT_host_query_reset)";
  }

  VkDeviceCreateInfo modified = *ci;
  ChainCopy chain;
  VkPhysicalDeviceFeatures features{};
  VkPhysicalDeviceHostQueryResetFeatures reset_features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
  std::vector<const char*> extensions;
  bool modified_any = false;
  if (want) {
    if (!chain.build(ci->pNext, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES})) {
      want = false;
      note = "unknown structure in VkDeviceCreateInfo::pNext ahead of the features to enable";
    }
  }
  if (want) {
    modified.pNext = chain.head;
    // pipelineStatisticsQuery
    if (auto* f2 = chain.find<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)) {
      modified_any |= !f2->features.pipelineStatisticsQuery;
      f2->features.pipelineStatisticsQuery = VK_TRUE;
    } else {
      if (ci->pEnabledFeatures) features = *ci->pEnabledFeatures;
      modified_any |= !features.pipelineStatisticsQuery;
      features.pipelineStatisticsQuery = VK_TRUE;
      modified.pEnabledFeatures = &features;
    }
    // hostQueryReset
    auto* v12 = core_reset ? chain.find<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
                           : nullptr;
    auto* hqr = chain.find<VkPhysicalDeviceHostQueryResetFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES);
    if (v12) {
      modified_any |= !v12->hostQueryReset;
      v12->hostQueryReset = VK_TRUE;
    } else if (hqr) {
      modified_any |= !hqr->hostQueryReset;
      hqr->hostQueryReset = VK_TRUE;
    } else {
      reset_features.hostQueryReset = VK_TRUE;
      reset_features.pNext = const_cast<void*>(modified.pNext);
      modified.pNext = &reset_features;
      modified_any = true;
    }
    if (!core_reset) {
      extensions.assign(ci->ppEnabledExtensionNames, ci->ppEnabledExtensionNames + ci->enabledExtensionCount);
      bool present = false;
      for (const char* e : extensions) present |= std::strcmp(e, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME) == 0;
      if (!present) {
        extensions.push_back(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
        modified.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
        modified.ppEnabledExtensionNames = extensions.data();
        modified_any = true;
      }
    }
  }

  VkResult r = create(physicalDevice, want ? &modified : ci, pAllocator, pDevice);
  if (r != VK_SUCCESS && want && modified_any) {
    // The additions were refused: create the device exactly as asked, without queries.
    link->u.pLayerInfo = next_link;
    want = false;
    note = "enabling pipelineStatisticsQuery/hostQueryReset failed";
    r = create(physicalDevice, ci, pAllocator, pDevice);
  }
  if (r != VK_SUCCESS) return r;

  void* mem = pAllocator ? pAllocator->pfnAllocation(pAllocator->pUserData, sizeof(DeviceData), alignof(DeviceData),
                                                     VK_SYSTEM_ALLOCATION_SCOPE_DEVICE)
                         : ::operator new(sizeof(DeviceData), std::nothrow);
  if (!mem) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDevice>(gdpa(*pDevice, "vkDestroyDevice"));
    if (destroy) destroy(*pDevice, pAllocator);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  auto* d = new (mem) DeviceData;
  d->device = *pDevice;
  d->physical = physicalDevice;
  d->instance = inst;
  d->index = g_device_count.fetch_add(1);
  if (pAllocator) {
    d->allocator = *pAllocator;
    d->has_allocator = true;
  }
  d->table.load(*pDevice, gdpa);
  d->set_loader_data = set_loader_data;
  uint32_t nf = 0;
  inst->table.GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &nf, nullptr);
  d->families.resize(nf);
  inst->table.GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &nf, d->families.data());
  d->reset_query_pool = reinterpret_cast<PFN_vkResetQueryPool>(
      gdpa(*pDevice, core_reset ? "vkResetQueryPool" : "vkResetQueryPoolEXT"));
  d->queries = want && d->reset_query_pool && d->table.CreateQueryPool && d->table.GetQueryPoolResults &&
               d->table.CmdBeginQuery && d->table.CmdEndQuery;
  if (want && !d->queries) note = "query commands unavailable";
  d->query_note = note;
  d->slabs.reserve(4096);
  Frame first;
  first.index = 0;
  first.start = Clock::now();
  d->frames.push_back(first);
  d->totals.device = d->index;
  d->totals.query_enabled = d->queries;

  std::unique_lock lock(g_devices_mutex);
  g_devices[dispatch_key(*pDevice)] = d;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* pAllocator) {
  if (device == VK_NULL_HANDLE) return;
  DeviceData* d = nullptr;
  {
    std::unique_lock lock(g_devices_mutex);
    auto it = g_devices.find(dispatch_key(device));
    if (it == g_devices.end()) return;
    d = it->second;
    g_devices.erase(it);
  }
  {
    // All work has finished (the application must not destroy a busy device): read every
    // result still pending, close the open frame if it holds work, write everything.
    std::lock_guard lock(d->state_mutex);
    poll_readbacks(d, true);
    for (uint32_t slot : d->pending) harvest(d, slot, true);
    d->pending.clear();
    if (d->frames.back().has_work) end_frame(d);
    d->frames.back().ended = true;  // the empty open frame: not written
    const uint64_t frames = d->frames.back().index;
    d->frames.pop_back();
    write_ready_frames(d);
    output().write_summary(d->totals, frames, d->frames_written, d->query_lost, d->query_note);
    for (const QueryPoolSlab& s : d->slabs) d->table.DestroyQueryPool(device, s.pool, d->alloc());
    destroy_msaa_resources(d);
  }
  PFN_vkDestroyDevice destroy = d->table.DestroyDevice;
  const bool has_allocator = d->has_allocator;
  VkAllocationCallbacks allocator = d->allocator;
  d->~DeviceData();
  if (has_allocator) allocator.pfnFree(allocator.pUserData, d);
  else ::operator delete(d);
  destroy(device, pAllocator);
}

// ---------------------------------------------------------------------------------------------
// vkGet*ProcAddr

struct Intercept {
  const char* name;
  PFN_vkVoidFunction fn;
};

#define TESSERA_FN(name, fn) {name, reinterpret_cast<PFN_vkVoidFunction>(fn)}

const Intercept kDeviceIntercepts[] = {
    TESSERA_FN("vkDestroyDevice", DestroyDevice),
    TESSERA_FN("vkCreateCommandPool", CreateCommandPool),
    TESSERA_FN("vkDestroyCommandPool", DestroyCommandPool),
    TESSERA_FN("vkResetCommandPool", ResetCommandPool),
    TESSERA_FN("vkAllocateCommandBuffers", AllocateCommandBuffers),
    TESSERA_FN("vkFreeCommandBuffers", FreeCommandBuffers),
    TESSERA_FN("vkBeginCommandBuffer", BeginCommandBuffer),
    TESSERA_FN("vkEndCommandBuffer", EndCommandBuffer),
    TESSERA_FN("vkResetCommandBuffer", ResetCommandBuffer),
    TESSERA_FN("vkCmdExecuteCommands", CmdExecuteCommands),
    TESSERA_FN("vkCreateGraphicsPipelines", CreateGraphicsPipelines),
    TESSERA_FN("vkDestroyPipeline", DestroyPipeline),
    TESSERA_FN("vkCmdBindPipeline", CmdBindPipeline),
    TESSERA_FN("vkCmdSetPrimitiveTopology", CmdSetPrimitiveTopologyT<&DeviceTable::CmdSetPrimitiveTopology>),
    TESSERA_FN("vkCmdSetPrimitiveTopologyEXT", CmdSetPrimitiveTopologyT<&DeviceTable::CmdSetPrimitiveTopologyEXT>),
    TESSERA_FN("vkCmdSetPatchControlPointsEXT", CmdSetPatchControlPointsEXT),
    TESSERA_FN("vkCreateImage", CreateImage),
    TESSERA_FN("vkDestroyImage", DestroyImage),
    TESSERA_FN("vkCreateImageView", CreateImageView),
    TESSERA_FN("vkDestroyImageView", DestroyImageView),
    TESSERA_FN("vkCreateRenderPass", CreateRenderPass),
    TESSERA_FN("vkCreateRenderPass2", CreateRenderPass2T<&DeviceTable::CreateRenderPass2>),
    TESSERA_FN("vkCreateRenderPass2KHR", CreateRenderPass2T<&DeviceTable::CreateRenderPass2KHR>),
    TESSERA_FN("vkDestroyRenderPass", DestroyRenderPass),
    TESSERA_FN("vkCmdBeginRenderPass", CmdBeginRenderPass),
    TESSERA_FN("vkCmdBeginRenderPass2", CmdBeginRenderPass2T<&DeviceTable::CmdBeginRenderPass2>),
    TESSERA_FN("vkCmdBeginRenderPass2KHR", CmdBeginRenderPass2T<&DeviceTable::CmdBeginRenderPass2KHR>),
    TESSERA_FN("vkCmdNextSubpass", CmdNextSubpass),
    TESSERA_FN("vkCmdNextSubpass2", CmdNextSubpass2T<&DeviceTable::CmdNextSubpass2>),
    TESSERA_FN("vkCmdNextSubpass2KHR", CmdNextSubpass2T<&DeviceTable::CmdNextSubpass2KHR>),
    TESSERA_FN("vkCmdEndRenderPass", CmdEndRenderPass),
    TESSERA_FN("vkCmdEndRenderPass2", CmdEndRenderPass2T<&DeviceTable::CmdEndRenderPass2>),
    TESSERA_FN("vkCmdEndRenderPass2KHR", CmdEndRenderPass2T<&DeviceTable::CmdEndRenderPass2KHR>),
    TESSERA_FN("vkCmdBeginRendering", CmdBeginRenderingT<&DeviceTable::CmdBeginRendering>),
    TESSERA_FN("vkCmdBeginRenderingKHR", CmdBeginRenderingT<&DeviceTable::CmdBeginRenderingKHR>),
    TESSERA_FN("vkCmdEndRendering", CmdEndRenderingT<&DeviceTable::CmdEndRendering>),
    TESSERA_FN("vkCmdEndRenderingKHR", CmdEndRenderingT<&DeviceTable::CmdEndRenderingKHR>),
    TESSERA_FN("vkCmdDraw", CmdDraw),
    TESSERA_FN("vkCmdDrawIndexed", CmdDrawIndexed),
    TESSERA_FN("vkCmdDrawIndirect", (CmdDrawIndirectT<&DeviceTable::CmdDrawIndirect, kDrawIndirect>)),
    TESSERA_FN("vkCmdDrawIndexedIndirect", (CmdDrawIndirectT<&DeviceTable::CmdDrawIndexedIndirect, kDrawIndexedIndirect>)),
    TESSERA_FN("vkCmdDrawIndirectCount", (CmdDrawIndirectCountT<&DeviceTable::CmdDrawIndirectCount, kDrawIndirectCount>)),
    TESSERA_FN("vkCmdDrawIndirectCountKHR",
               (CmdDrawIndirectCountT<&DeviceTable::CmdDrawIndirectCountKHR, kDrawIndirectCount>)),
    TESSERA_FN("vkCmdDrawIndirectCountAMD",
               (CmdDrawIndirectCountT<&DeviceTable::CmdDrawIndirectCountAMD, kDrawIndirectCount>)),
    TESSERA_FN("vkCmdDrawIndexedIndirectCount",
               (CmdDrawIndirectCountT<&DeviceTable::CmdDrawIndexedIndirectCount, kDrawIndexedIndirectCount>)),
    TESSERA_FN("vkCmdDrawIndexedIndirectCountKHR",
               (CmdDrawIndirectCountT<&DeviceTable::CmdDrawIndexedIndirectCountKHR, kDrawIndexedIndirectCount>)),
    TESSERA_FN("vkCmdDrawIndexedIndirectCountAMD",
               (CmdDrawIndirectCountT<&DeviceTable::CmdDrawIndexedIndirectCountAMD, kDrawIndexedIndirectCount>)),
    TESSERA_FN("vkCmdDrawMultiEXT", CmdDrawMultiEXT),
    TESSERA_FN("vkCmdDrawMultiIndexedEXT", CmdDrawMultiIndexedEXT),
    TESSERA_FN("vkCmdDispatch", CmdDispatch),
    TESSERA_FN("vkCmdDispatchIndirect", CmdDispatchIndirect),
    TESSERA_FN("vkCmdDispatchBase", CmdDispatchBaseT<&DeviceTable::CmdDispatchBase>),
    TESSERA_FN("vkCmdDispatchBaseKHR", CmdDispatchBaseT<&DeviceTable::CmdDispatchBaseKHR>),
    TESSERA_FN("vkCreateQueryPool", CreateQueryPool),
    TESSERA_FN("vkDestroyQueryPool", DestroyQueryPool),
    TESSERA_FN("vkCmdBeginQuery", CmdBeginQuery),
    TESSERA_FN("vkCmdEndQuery", CmdEndQuery),
    TESSERA_FN("vkQueueSubmit", QueueSubmit),
    TESSERA_FN("vkQueueSubmit2", QueueSubmit2T<&DeviceTable::QueueSubmit2>),
    TESSERA_FN("vkQueueSubmit2KHR", QueueSubmit2T<&DeviceTable::QueueSubmit2KHR>),
    TESSERA_FN("vkQueuePresentKHR", QueuePresentKHR),
    TESSERA_FN("vkQueueInsertDebugUtilsLabelEXT", QueueInsertDebugUtilsLabelEXT),
    TESSERA_FN("vkGetDeviceQueue", GetDeviceQueue),
    TESSERA_FN("vkGetDeviceQueue2", GetDeviceQueue2),
    TESSERA_FN("vkCreateFramebuffer", CreateFramebuffer),
    TESSERA_FN("vkCmdPipelineBarrier", CmdPipelineBarrier),
    TESSERA_FN("vkCmdPipelineBarrier2", CmdPipelineBarrier2T<&DeviceTable::CmdPipelineBarrier2>),
    TESSERA_FN("vkCmdPipelineBarrier2KHR", CmdPipelineBarrier2T<&DeviceTable::CmdPipelineBarrier2KHR>),
    TESSERA_FN("vkDestroyFramebuffer", DestroyFramebuffer),
};

PFN_vkVoidFunction find_device_intercept(const char* name) {
  for (const Intercept& i : kDeviceIntercepts)
    if (std::strcmp(i.name, name) == 0) return i.fn;
  return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  if (!name) return nullptr;
  if (!std::strcmp(name, "vkGetInstanceProcAddr")) return reinterpret_cast<PFN_vkVoidFunction>(GetInstanceProcAddr);
  if (!std::strcmp(name, "vkCreateInstance")) return reinterpret_cast<PFN_vkVoidFunction>(CreateInstance);
  if (instance == VK_NULL_HANDLE) return nullptr;  // other global commands: the loader's business
  InstanceData* inst = get_instance(instance);
  if (!inst) return nullptr;
  if (!std::strcmp(name, "vkDestroyInstance")) return reinterpret_cast<PFN_vkVoidFunction>(DestroyInstance);
  if (!std::strcmp(name, "vkCreateDevice")) return reinterpret_cast<PFN_vkVoidFunction>(CreateDevice);
  if (!std::strcmp(name, "vkGetDeviceProcAddr")) return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  if (!std::strcmp(name, "vkEnumerateDeviceExtensionProperties"))
    return reinterpret_cast<PFN_vkVoidFunction>(EnumerateDeviceExtensionProperties);
  PFN_vkVoidFunction next = inst->table.GetInstanceProcAddr(instance, name);
  if (!next) return nullptr;
  if (PFN_vkVoidFunction mine = find_device_intercept(name)) return mine;
  return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  if (!name || device == VK_NULL_HANDLE) return nullptr;
  if (!std::strcmp(name, "vkGetDeviceProcAddr")) return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  DeviceData* d = get_device(device);
  if (!d) return nullptr;
  PFN_vkVoidFunction next = d->table.GetDeviceProcAddr(device, name);
  if (!next) return nullptr;  // not enabled on this device: neither is our intercept
  if (PFN_vkVoidFunction mine = find_device_intercept(name)) return mine;
  return next;
}

}  // namespace
}  // namespace tessera::layer

// ---------------------------------------------------------------------------------------------
// Exported loader interface (the only symbols the library exports; see tessera_stats.map).

TESSERA_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* p) {
  if (!p || p->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
  if (p->loaderLayerInterfaceVersion > 2) p->loaderLayerInterfaceVersion = 2;
  if (p->loaderLayerInterfaceVersion >= 2) {
    p->pfnGetInstanceProcAddr = tessera::layer::GetInstanceProcAddr;
    p->pfnGetDeviceProcAddr = tessera::layer::GetDeviceProcAddr;
    p->pfnGetPhysicalDeviceProcAddr = nullptr;  // no physical-device commands of our own
  }
  return VK_SUCCESS;
}

TESSERA_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char* name) {
  return tessera::layer::GetInstanceProcAddr(instance, name);
}

TESSERA_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name) {
  return tessera::layer::GetDeviceProcAddr(device, name);
}
