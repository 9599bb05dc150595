// Command pools and command buffers: their states, from allocation to free, and the lifecycle of
// a recording (begin, end, reset, secondaries executed). The vkCmd* commands are in recording.cpp.

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "layer_state.h"

namespace tessera::layer {

CommandBufferIndex g_command_buffers;

// ---------------------------------------------------------------------------------------------
// States

void CommandBufferState::reset_recording() {
  queries_ok = false;
  gpu_reset = false;
  reusable = false;
  simultaneous = false;
  incomplete = false;
  counters = CpuCounters{};
  own_slots.clear();
  all_slots.clear();
  reserved.clear();
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

namespace {

constexpr VkQueryPipelineStatisticFlags kGraphicsBits = 0x3FF;  // IA .. TES invocations
constexpr VkQueryPipelineStatisticFlags kComputeBits = VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;

VkQueryPipelineStatisticFlags family_mask(DeviceData* d, uint32_t family) {
  if (!d->queries || family >= d->families.size()) return 0;
  VkQueryPipelineStatisticFlags m = 0;
  if (d->families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT) m |= kGraphicsBits;
  if (d->families[family].queueFlags & VK_QUEUE_COMPUTE_BIT) m |= kComputeBits;
  return m;
}

bool render_pass_multiview(DeviceData* d, const VkCommandBufferInheritanceInfo* inh) {
  if (!inh) return false;
  if (inh->renderPass != VK_NULL_HANDLE) return render_pass_info(d, inh->renderPass).multiview;
  auto* ri = find_in_chain<VkCommandBufferInheritanceRenderingInfo>(
      inh->pNext, VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_RENDERING_INFO);
  return ri && ri->viewMask != 0;
}

}  // namespace

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
      g_command_buffers.erase(cbs[i]);
      gone.push_back(std::move(it->second));
      d->command_buffers.erase(it);
    }
  }
  for (auto& cb : gone) {
    release_slots(d, cb.get());
    capture_release_recording(d, cb.get());
  }
}

// ---------------------------------------------------------------------------------------------
// Pools

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

VKAPI_ATTR void VKAPI_CALL DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                              const VkAllocationCallbacks* pAllocator) {
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
    capture_release_recording(d, cb);
    cb->reset_recording();
  }
  return d->table.ResetCommandPool(device, pool, flags);
}

// ---------------------------------------------------------------------------------------------
// Command buffers

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
    st->device = d;
    st->pool = ai->commandPool;
    st->primary = ai->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    st->mask = family_mask(d, family);
    g_command_buffers.insert(cbs[i], st.get());
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

VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(VkCommandBuffer commandBuffer, const VkCommandBufferBeginInfo* info) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) {
    release_slots(d, cb);  // beginning resets the command buffer
    cb->reset_recording();
    // Pipeline statistics in every query_interval-th frame's recordings (a command buffer
    // recorded once and resubmitted keeps what it was recorded with).
    cb->queries_ok =
        d->queries && cb->mask != 0 && d->open_frame.load(std::memory_order_relaxed) % settings().query_interval == 0;
    cb->simultaneous = info->flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
    cb->reusable = cb->primary && !(info->flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    cb->gpu_reset = cb->queries_ok && (!d->reset_query_pool || cb->reusable);
    if (!cb->primary) {
      const VkCommandBufferInheritanceInfo* inh = info->pInheritanceInfo;
      // Executed inside an application's own pipeline-statistics query: leave it alone.
      if (inh && inh->pipelineStatistics) cb->queries_ok = false;
      if (info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT) {
        cb->where = render_pass_multiview(d, inh) ? Where::kNoQueryPass : Where::kInlinePass;
        if (inh) cb->render_pass = inh->renderPass;
      }
    }
    if (capture_on()) capture_begin_recording(d, cb, info);
  }
  return d->table.BeginCommandBuffer(commandBuffer, info);
}

VKAPI_ATTR VkResult VKAPI_CALL EndCommandBuffer(VkCommandBuffer commandBuffer) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) end_segment(d, commandBuffer, cb);
  return d->table.EndCommandBuffer(commandBuffer);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandBuffer(VkCommandBuffer commandBuffer, VkCommandBufferResetFlags flags) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) {
    release_slots(d, cb);
    capture_release_recording(d, cb);
    cb->reset_recording();
  }
  return d->table.ResetCommandBuffer(commandBuffer, flags);
}

VKAPI_ATTR void VKAPI_CALL CmdExecuteCommands(VkCommandBuffer commandBuffer, uint32_t count,
                                              const VkCommandBuffer* secondaries) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) {
    // No query may be active across vkCmdExecuteCommands without inheritedQueries; secondaries
    // carry their own segments instead.
    end_segment(d, commandBuffer, cb);
    if (cb->capture) capture_execute_commands(cb, count, secondaries);
    for (uint32_t i = 0; i < count; ++i) {
      CommandBufferState* sc = get_cb(secondaries[i]);
      if (!sc) continue;
      cb->counters.merge(sc->counters);
      cb->counters[CpuCounters::kSecondaryExecutions]++;
      cb->all_slots.insert(cb->all_slots.end(), sc->all_slots.begin(), sc->all_slots.end());
      cb->incomplete |= sc->incomplete;
    }
  }
  d->table.CmdExecuteCommands(commandBuffer, count, secondaries);
}

}  // namespace tessera::layer
