// The layer's private state, shared by its files: what it knows of instances, devices and the
// objects it tracks, per command buffer recording, and the frames it has not written yet. Which
// lock guards what is said at each member; the functions each file offers the others are declared
// at the end, by file.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "capture.h"
#include "command_buffer_index.h"
#include "commands.h"
#include "hud.h"
#include "msaa_readback.h"
#include "stats.h"

namespace tessera::layer {

constexpr const char* kLayerName = "VK_LAYER_TESSERA_stats";
constexpr uint32_t kPoolSize = 128;  // queries per layer-owned query pool
constexpr uint32_t kNoTopology = UINT32_MAX;
// Without host query reset and with query_granularity = draw: slots reset ahead of each subpass.
constexpr uint32_t kDrawSlotsPerPass = 32;
constexpr uint64_t kHudGppInterval = 30;  // frames between GPP model runs for the HUD alone

using Clock = std::chrono::steady_clock;

// The loader's dispatch table pointer at the start of every dispatchable handle: the key of
// per-instance and per-device data.
inline void* dispatch_key(const void* handle) { return *static_cast<void* const*>(handle); }

template <typename T>
const T* find_in_chain(const void* pNext, VkStructureType type) {
  for (auto* p = static_cast<const VkBaseInStructure*>(pNext); p; p = p->pNext)
    if (p->sType == type) return reinterpret_cast<const T*>(p);
  return nullptr;
}

struct InstanceData {
  VkInstance instance = VK_NULL_HANDLE;
  uint32_t api_version = VK_API_VERSION_1_0;
  std::string application, engine;  // VkApplicationInfo names (frame capture's files)
  // VK_KHR_get_physical_device_properties2 is enabled: by the application, or by the layer for
  // frame capture on a Vulkan 1.0 application (device.cpp's CreateInstance).
  bool properties2 = false;
  InstanceTable table;
};

// What the application's choices let the layer enable on a device it creates (device.cpp): the
// device-level API version (the lower of the instance's apiVersion and the device's) and whether
// extension feature structures may be chained (Vulkan 1.1, or VK_KHR_get_physical_device_properties2
// enabled on the instance). The layer never adds an extension whose requirements the application
// did not meet, so that the application stays valid (docs/layer.md, "Versions and extensions").
struct DeviceAllowance {
  uint32_t api = 1000;               // major * 1000 + minor
  bool feature_chains = false;       // VkPhysicalDeviceFeatures2 and extension feature structs allowed
  std::vector<std::string> offered;  // the physical device's extensions

  bool core(uint32_t major, uint32_t minor) const { return api >= major * 1000 + minor; }
  bool offers(const char* extension) const;
  // A device extension that depends only on VK_KHR_get_physical_device_properties2 (as
  // VK_EXT_host_query_reset and VK_EXT_transform_feedback do): offered, and its dependency met.
  bool may_enable(const char* extension) const { return feature_chains && offers(extension); }
};
DeviceAllowance device_allowance(const InstanceData* inst, VkPhysicalDevice physical);

// ---------------------------------------------------------------------------------------------
// Tracked objects (objects.cpp)

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
  // MSAA read-back: the layer's copy of the pass storing its multisampled colour attachments
  // (STORE instead of DONT_CARE; render-pass compatible), used in read-back frames only.
  VkRenderPass store_copy = VK_NULL_HANDLE;
};

// ---------------------------------------------------------------------------------------------
// Command buffers (command_buffers.cpp, recording.cpp)

struct DeviceData;

// Where recording stands, for deciding whether a query may be active.
enum class Where { kOutside, kInlinePass, kSecondaryPass, kNoQueryPass };

// One command buffer. Its recording state is touched only by the thread recording it (the
// application synchronises each command buffer externally), so it needs no lock.
struct CommandBufferState {
  DeviceData* device = nullptr;
  VkCommandPool pool = VK_NULL_HANDLE;
  bool primary = true;
  VkQueryPipelineStatisticFlags mask = 0;  // 0: queries impossible for this pool's family

  // Per recording.
  bool queries_ok = false;          // this recording may use layer queries
  // Its slots are reset by vkCmdResetQueryPool in the recording, not on the host at submission:
  // without host query reset, and in primaries that may be submitted again (no ONE_TIME_SUBMIT),
  // so that their submissions in frames outside the query_interval sampling cost no host work.
  bool gpu_reset = false;
  bool reusable = false;            // a primary recorded without ONE_TIME_SUBMIT
  bool simultaneous = false;        // recorded with SIMULTANEOUS_USE: may be pending more than once
  bool incomplete = false;          // some work of this recording is not covered by a query
  CpuCounters counters;             // this recording, including executed secondaries
  std::vector<uint32_t> own_slots;  // slots allocated by this recording
  std::vector<uint32_t> all_slots;  // own slots plus those of executed secondaries
  std::vector<uint32_t> reserved;   // own slots reset in the recording, not begun yet (no host reset)
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
  std::unique_ptr<CaptureRecording> capture;  // frame capture's notes (capture.h), when noted
  uint64_t capture_begun_frame = 0;           // with capture on: the frame the recording began in

  void reset_recording();
};

// ---------------------------------------------------------------------------------------------
// Frames and query slots (frames.cpp, queries.cpp)

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
  QueryCounters query;
  std::vector<TessSegment> tess;   // graphics segments in submission order, for the GPP model
  double gpu_ms = 0.0;             // GPU time of the submissions timed so far (gpu_time.cpp)
  uint32_t gpu_timed = 0;          // submissions timed
  bool gpu_incomplete = false;     // some submission could not be timed
  uint32_t pending_timers = 0;     // timed submissions whose timestamps are not read yet
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
  bool gpu_reset = false;      // reset in the recording that uses it (CommandBufferState::gpu_reset)
  bool reusable = false;       // ... a reusable primary: read only in sampled frames
};

// Two timestamps around one submission (gpu_time.cpp): a query pool of 2 and the layer's two
// command buffers writing them, recorded once for the queue family.
struct GpuTimer {
  uint32_t family = 0;
  VkQueryPool pool = VK_NULL_HANDLE;
  VkCommandBuffer begin = VK_NULL_HANDLE, end = VK_NULL_HANDLE;
  int64_t frame = -1;  // frame of the pending submission, -1 when free
};
constexpr size_t kMaxTimers = 256;  // submissions timed at once; more go untimed

// ---------------------------------------------------------------------------------------------
// A device

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
  // Host query reset (Vulkan 1.2 or VK_EXT_host_query_reset, when the application's versions
  // allow it); null: slots are reset by vkCmdResetQueryPool in the recording (queries.cpp).
  PFN_vkResetQueryPool reset_query_pool = nullptr;

  // Object tracking (shared lock for lookups). The command buffers' states are owned here; the
  // recording hot path finds them through the lock-free CommandBufferIndex instead.
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
  std::vector<QueryPoolSlab> slabs;  // never reallocates: capacity reserved at device creation
  std::vector<SlotState> slots;      // slab * kPoolSize + query
  std::unordered_map<VkQueryPipelineStatisticFlags, std::vector<uint32_t>> free_slots;
  std::vector<uint32_t> pending;        // each slot at most once; may hold slots no longer pending
  std::deque<Frame> frames;             // unwritten frames; back() is the open frame
  std::atomic<uint64_t> open_frame{0};  // frames.back().index, for recording threads without the lock
  uint64_t submit_serial = 0;
  uint64_t submits_in_frame = 0;
  uint64_t frames_written = 0;
  uint64_t query_lost = 0;
  FrameRecord totals;

  // GPU time (state_mutex).
  float timestamp_period = 0.0f;  // ns per tick; 0: no timestamps
  std::unordered_map<uint32_t, VkCommandPool> timer_command_pools;
  std::vector<std::unique_ptr<GpuTimer>> timers;
  std::unordered_map<uint32_t, std::vector<GpuTimer*>> free_timers;
  std::vector<GpuTimer*> pending_timers;
  FrameTimes cpu_times, gpu_times;  // per frame, for the summary's mean and percentiles (bounded)

  // The HUD: what it shows (state_mutex) and its swapchains (hud.cpp's lock).
  HudStats hud;
  std::unordered_map<VkSwapchainKHR, std::shared_ptr<HudSwapchain>> hud_swapchains;

  // MSAA read-back. Maps under objects_mutex, the rest under state_mutex.
  PFN_vkSetDeviceLoaderData set_loader_data = nullptr;
  std::unordered_map<VkImage, MsaaImage> msaa_images;
  std::unordered_map<VkImageView, VkImage> view_images;
  // Frame capture: each view's first mip level and array layer (the capture's attachment identity).
  std::unordered_map<VkImageView, std::pair<uint32_t, uint32_t>> view_subresources;
  std::unordered_map<VkFramebuffer, std::vector<VkImageView>> framebuffers;
  std::unordered_map<VkQueue, uint32_t> queue_families;
  MsaaResources msaa;
  std::deque<ReadbackBatch> readbacks;

  // Frame capture (capture.h), when the capture setting is on.
  std::unique_ptr<CaptureDevice> capture;
};

// ---------------------------------------------------------------------------------------------
// What each file offers the others (msaa_readback.h for the read-back)

// device.cpp: instances and devices by dispatch key.
InstanceData* get_instance(const void* handle);
DeviceData* get_device(const void* handle);

// command_buffers.cpp: the state of a command buffer allocated through the layer (nullptr for
// any other), without a lock; see CommandBufferIndex.
extern CommandBufferIndex g_command_buffers;
inline CommandBufferState* get_cb(VkCommandBuffer cb) { return g_command_buffers.find(cb); }
// The prologue of the intercepts taking a command buffer: its state and its device, without a
// lock when the layer allocated it (the device lookup is the fallback for any other).
struct Recording {
  CommandBufferState* cb;
  DeviceData* d;
};
inline Recording recording(VkCommandBuffer handle) {
  CommandBufferState* cb = get_cb(handle);
  return {cb, cb ? cb->device : get_device(handle)};
}
void forget_command_buffers(DeviceData* d, const VkCommandBuffer* cbs, uint32_t count);

// objects.cpp
RenderPassInfo render_pass_info(DeviceData* d, VkRenderPass rp);
bool is_stats_pool(DeviceData* d, VkQueryPool pool);

// queries.cpp: query segments of a recording, slots and their results (state_mutex where said).
VkQueryPool slot_pool(DeviceData* d, uint32_t slot);
void begin_segment(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb);
void end_segment(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb);
// Without host query reset: `count` slots reset in the recording before a render pass instance
// begins (vkCmdResetQueryPool may not be recorded inside one).
void reserve_slots(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, uint32_t count);
void release_slots(DeviceData* d, CommandBufferState* cb);  // takes state_mutex
bool harvest(DeviceData* d, uint32_t slot, bool force);     // under state_mutex
void poll_queries(DeviceData* d);                           // under state_mutex
void harvest_all(DeviceData* d);                            // under state_mutex
void destroy_query_pools(DeviceData* d);                    // under state_mutex

// gpu_time.cpp: a timer for a submission on `queue` (nullptr: untimed; takes state_mutex),
// given back when the submission failed (takes state_mutex); reading and teardown under it.
GpuTimer* acquire_timer(DeviceData* d, VkQueue queue);
void release_timer(DeviceData* d, GpuTimer* timer);
void poll_timers(DeviceData* d, bool wait);
void destroy_timers(DeviceData* d);

// frames.cpp (under state_mutex)
Frame& frame_at(DeviceData* d, uint64_t index);
void write_ready_frames(DeviceData* d);
void poll(DeviceData* d);
void end_frame(DeviceData* d);

// The device's object tables (objects_mutex): an object is remembered at creation and forgotten
// before the next layer destroys it, so its handle can be reused at once.
template <typename Map, typename Key, typename Value>
void remember(DeviceData* d, Map& table, const Key& key, Value value) {
  std::unique_lock lock(d->objects_mutex);
  table[key] = std::move(value);
}
template <typename Key, typename... Maps>
void forget(DeviceData* d, const Key& key, Maps&... tables) {
  std::unique_lock lock(d->objects_mutex);
  (tables.erase(key), ...);
}

}  // namespace tessera::layer
