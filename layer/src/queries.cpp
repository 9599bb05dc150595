// Pipeline-statistics queries: the layer's query slots (slabs of layer-owned query pools), the
// segments a recording covers with them, and reading their results into the frames they belong
// to (docs/layer.md, "How the GPU counters are taken").

#include <mutex>

#include "layer_state.h"

namespace tessera::layer {
namespace {

void add_results(Frame& f, VkQueryPipelineStatisticFlags mask, const uint64_t* values, int64_t segment) {
  int k = 0;
  for (int bit = 0; bit < QueryCounters::count; ++bit) {
    if (!(mask & (1u << bit))) continue;
    f.query.v[size_t(bit)] += values[k];
    if (segment >= 0 && bit == QueryCounters::kTcsPatches) f.tess[size_t(segment)].patches = values[k];
    if (segment >= 0 && bit == QueryCounters::kTesInvocations) f.tess[size_t(segment)].invocations = values[k];
    ++k;
  }
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Results (under state_mutex)

// Reads a pending slot without waiting. `force`: the work is known to be finished (its command
// buffer is being reused or freed), so unavailable results are counted as lost.
bool harvest(DeviceData* d, uint32_t slot, bool force) {
  SlotState& s = d->slots[slot];
  if (s.pending_frame < 0) return true;
  const QueryPoolSlab& slab = d->slabs[slot / kPoolSize];
  uint64_t values[QueryCounters::count + 1] = {};
  const uint32_t n = static_cast<uint32_t>(__builtin_popcount(slab.mask));
  VkResult r =
      d->table.GetQueryPoolResults(d->device, slab.pool, slot % kPoolSize, 1, sizeof values, values, sizeof values,
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
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

// Reads every pending slot whose result is available.
void poll_queries(DeviceData* d) {
  std::vector<uint32_t> still;
  still.reserve(d->pending.size());
  for (uint32_t slot : d->pending) {
    if (d->slots[slot].pending_frame >= 0 && !harvest(d, slot, false))
      still.push_back(slot);
    else
      d->slots[slot].listed = false;
  }
  d->pending.swap(still);
}

// The device is idle and being destroyed: every result still pending is final.
void harvest_all(DeviceData* d) {
  for (uint32_t slot : d->pending) harvest(d, slot, true);
  d->pending.clear();
}

void destroy_query_pools(DeviceData* d) {
  for (const QueryPoolSlab& s : d->slabs) d->table.DestroyQueryPool(d->device, s.pool, d->alloc());
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
  if (!d->queries) return;
  if (cb->query_active) {
    // query_granularity = draw: every draw (and dispatch) its own query.
    if (settings().query_granularity != QueryGranularity::kDraw) return;
    end_segment(d, handle, cb);
  }
  if (!cb->queries_ok || cb->app_stats_active || cb->where == Where::kNoQueryPass ||
      cb->where == Where::kSecondaryPass) {
    cb->incomplete = true;
    return;
  }
  uint32_t slot = 0;
  if (cb->gpu_reset && cb->where != Where::kOutside) {
    // Inside a render pass instance a slot cannot be reset: one reset before it began, if any.
    if (cb->reserved.empty()) {
      cb->incomplete = true;
      return;
    }
    slot = cb->reserved.back();
    cb->reserved.pop_back();
  } else {
    {
      std::lock_guard lock(d->state_mutex);
      if (!allocate_slot(d, cb->mask, slot)) {
        cb->incomplete = true;
        return;
      }
      d->slots[slot].gpu_reset = cb->gpu_reset;
      d->slots[slot].reusable = cb->reusable;
    }
    cb->own_slots.push_back(slot);
    if (cb->gpu_reset) d->table.CmdResetQueryPool(handle, slot_pool(d, slot), slot % kPoolSize, 1);
  }
  d->table.CmdBeginQuery(handle, slot_pool(d, slot), slot % kPoolSize, 0);
  cb->all_slots.push_back(slot);
  cb->active_slot = slot;
  cb->query_active = true;
}

void reserve_slots(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, uint32_t count) {
  if (!cb->gpu_reset || !cb->queries_ok || cb->app_stats_active || cb->reserved.size() >= count) return;
  count -= static_cast<uint32_t>(cb->reserved.size());
  std::lock_guard lock(d->state_mutex);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t slot = 0;
    if (!allocate_slot(d, cb->mask, slot)) return;
    d->slots[slot].gpu_reset = true;
    d->slots[slot].reusable = cb->reusable;
    cb->own_slots.push_back(slot);
    cb->reserved.push_back(slot);
    d->table.CmdResetQueryPool(handle, slot_pool(d, slot), slot % kPoolSize, 1);
  }
}

void end_segment(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb) {
  if (!cb->query_active) return;
  d->table.CmdEndQuery(handle, slot_pool(d, cb->active_slot), cb->active_slot % kPoolSize);
  cb->query_active = false;
}

}  // namespace tessera::layer
