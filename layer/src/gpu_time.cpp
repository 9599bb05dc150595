// GPU time per frame: in every gpu_time_interval-th frame, each application submission is
// bracketed by two timestamps, written by two layer-owned command buffers placed first and last
// in the submission (after its semaphore waits, before its signals), so a frame's gpu_ms is the
// sum over its submissions of the time the GPU spent on them, converted with timestampPeriod
// (docs/layer.md, "GPU time"). The other frames' submissions pass unchanged. The
// command buffers are recorded once per timer and resubmitted; the timer (its query pair) is
// reused once both results were read. Results are read without waiting, like the statistics.

#include <mutex>
#include <shared_mutex>

#include "layer_state.h"

namespace tessera::layer {
namespace {

// Under state_mutex. A new timer for queue family `family`, or nullptr.
GpuTimer* make_timer(DeviceData* d, uint32_t family) {
  const DeviceTable& t = d->table;
  VkCommandPool& pool = d->timer_command_pools[family];
  if (!pool) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = family;
    if (t.CreateCommandPool(d->device, &pci, d->alloc(), &pool) != VK_SUCCESS) {
      pool = VK_NULL_HANDLE;
      return nullptr;
    }
  }
  auto timer = std::make_unique<GpuTimer>();
  timer->family = family;
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = 2;
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 2;
  VkCommandBuffer cbs[2] = {};
  if (t.CreateQueryPool(d->device, &qci, d->alloc(), &timer->pool) != VK_SUCCESS) return nullptr;
  if (t.AllocateCommandBuffers(d->device, &cai, cbs) != VK_SUCCESS) {
    t.DestroyQueryPool(d->device, timer->pool, d->alloc());
    return nullptr;
  }
  timer->begin = cbs[0];
  timer->end = cbs[1];
  for (VkCommandBuffer cb : cbs) {
    // Dispatchable handles made below the loader need its dispatch pointer.
    if (d->set_loader_data)
      d->set_loader_data(d->device, cb);
    else
      *reinterpret_cast<void**>(cb) = *reinterpret_cast<void**>(d->device);
  }
  // SIMULTANEOUS_USE: a timer is reused once its timestamps are available, which the GPU may
  // report before the submission as a whole has completed.
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  bool ok = t.BeginCommandBuffer(timer->begin, &bi) == VK_SUCCESS;
  if (ok) {
    // Reset on the GPU: valid on any API version (no host query reset needed).
    t.CmdResetQueryPool(timer->begin, timer->pool, 0, 2);
    t.CmdWriteTimestamp(timer->begin, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timer->pool, 0);
    ok = t.EndCommandBuffer(timer->begin) == VK_SUCCESS && t.BeginCommandBuffer(timer->end, &bi) == VK_SUCCESS;
  }
  if (ok) {
    t.CmdWriteTimestamp(timer->end, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timer->pool, 1);
    ok = t.EndCommandBuffer(timer->end) == VK_SUCCESS;
  }
  if (!ok) {
    t.FreeCommandBuffers(d->device, pool, 2, cbs);
    t.DestroyQueryPool(d->device, timer->pool, d->alloc());
    return nullptr;
  }
  d->timers.push_back(std::move(timer));
  return d->timers.back().get();
}

// Under state_mutex: reads a pending timer; `wait`: the device is idle, read whatever is there.
bool read_timer(DeviceData* d, GpuTimer* timer, bool wait) {
  uint64_t v[4] = {};  // value, availability, value, availability
  const VkResult r = d->table.GetQueryPoolResults(d->device, timer->pool, 0, 2, sizeof v, v, 2 * sizeof(uint64_t),
                                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  const bool available = (r == VK_SUCCESS || r == VK_NOT_READY) && v[1] && v[3];
  if (!available && !wait) return false;
  Frame& f = frame_at(d, static_cast<uint64_t>(timer->frame));
  const uint32_t bits = d->families[timer->family].timestampValidBits;
  const uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  if (available) {
    const uint64_t ticks = (v[2] - v[0]) & mask;
    f.gpu_ms += double(ticks) * double(d->timestamp_period) * 1e-6;
    ++f.gpu_timed;
  } else {
    f.gpu_incomplete = true;
  }
  --f.pending_timers;
  timer->frame = -1;
  d->free_timers[timer->family].push_back(timer);
  return true;
}

}  // namespace

GpuTimer* acquire_timer(DeviceData* d, VkQueue queue) {
  if (!settings().gpu_time || d->timestamp_period <= 0.0f || !d->table.CmdWriteTimestamp) return nullptr;
  // Only every gpu_time_interval-th frame is timed: the others' submissions pass unchanged, with
  // no lock taken here (the open frame is checked again under the lock below).
  if (d->open_frame.load(std::memory_order_relaxed) % settings().gpu_time_interval != 0) return nullptr;
  uint32_t family = UINT32_MAX;
  {
    std::shared_lock lock(d->objects_mutex);
    auto q = d->queue_families.find(queue);
    if (q != d->queue_families.end()) family = q->second;
  }
  if (family >= d->families.size() || d->families[family].timestampValidBits == 0) return nullptr;
  std::lock_guard lock(d->state_mutex);
  if (d->frames.back().index % settings().gpu_time_interval != 0) return nullptr;  // it ended meanwhile
  auto& free = d->free_timers[family];
  GpuTimer* timer = nullptr;
  if (!free.empty()) {
    timer = free.back();
    free.pop_back();
  } else if (d->timers.size() < kMaxTimers) {
    timer = make_timer(d, family);
  }
  if (!timer) {
    d->frames.back().gpu_incomplete = true;  // this submission goes untimed
    return nullptr;
  }
  Frame& f = d->frames.back();
  timer->frame = static_cast<int64_t>(f.index);
  ++f.pending_timers;
  d->pending_timers.push_back(timer);
  return timer;
}

void poll_timers(DeviceData* d, bool wait) {
  std::vector<GpuTimer*> still;
  for (GpuTimer* t : d->pending_timers)
    if (!read_timer(d, t, wait)) still.push_back(t);
  d->pending_timers.swap(still);
}

// A timer acquired for a submission that then failed: nothing ran.
void release_timer(DeviceData* d, GpuTimer* timer) {
  std::lock_guard lock(d->state_mutex);
  for (size_t i = 0; i < d->pending_timers.size(); ++i)
    if (d->pending_timers[i] == timer) {
      d->pending_timers.erase(d->pending_timers.begin() + std::ptrdiff_t(i));
      break;
    }
  --frame_at(d, static_cast<uint64_t>(timer->frame)).pending_timers;
  timer->frame = -1;
  d->free_timers[timer->family].push_back(timer);
}

void destroy_timers(DeviceData* d) {
  for (auto& t : d->timers) d->table.DestroyQueryPool(d->device, t->pool, d->alloc());
  for (auto& [family, pool] : d->timer_command_pools) d->table.DestroyCommandPool(d->device, pool, d->alloc());
  d->timers.clear();
  d->free_timers.clear();
  d->pending_timers.clear();
}

}  // namespace tessera::layer
