// Frames: submissions accounted to the open frame, frame boundaries (present, submission count
// or debug label), and frames written once every result of theirs is in. Under state_mutex
// unless said.

#include <algorithm>
#include <exception>
#include <mutex>

#include "layer_state.h"

namespace tessera::layer {

Frame& frame_at(DeviceData* d, uint64_t index) { return d->frames[index - d->frames.front().index]; }

void write_ready_frames(DeviceData* d) {
  while (!d->frames.empty() && d->frames.front().ended && d->frames.front().pending == 0 &&
         d->frames.front().pending_readbacks == 0 && d->frames.front().pending_timers == 0) {
    Frame& f = d->frames.front();
    FrameRecord r;
    r.device = d->index;
    r.frame = f.index;
    r.cpu_frame_time_ms = f.cpu_ms;
    if (f.gpu_timed) r.gpu_ms = f.gpu_ms;
    r.gpu_complete = f.gpu_timed && !f.gpu_incomplete;
    d->cpu_times.add(f.cpu_ms);
    if (f.gpu_timed) d->gpu_times.add(f.gpu_ms);
    r.submits = f.submits;
    r.command_buffers = f.command_buffers;
    r.cpu = f.cpu;
    // A frame outside the query_interval sampling has no statistics (null) unless a command
    // buffer recorded in a sampled frame brought some.
    r.query_enabled = d->queries && (f.index % settings().query_interval == 0 || f.segments > 0);
    r.query_complete = r.query_enabled && !f.query_incomplete;
    r.query_segments = f.segments;
    r.query = f.query;
    r.msaa = f.msaa;
    const bool selected = settings().selected(f.index);
    // Tessera's GPP model, only for frames that are written (it costs CPU time per patch).
    // The HUD shows it too, refreshed every kHudGppInterval frames.
    const bool for_hud = settings().hud && f.index % kHudGppInterval == 0;
    const bool written = selected && !settings().output.empty();
    if ((written || for_hud) && r.query_enabled && settings().gpps > 0 && !f.tess.empty()) {
      try {
        r.gpp = model_gpp_frame(f.tess, settings().gpps);
      } catch (const std::exception&) {
        r.gpp = GppFrameModel{};  // never take the application down
      }
    }
    // Totals over every frame, written or not.
    d->totals.submits += r.submits;
    d->totals.command_buffers += r.command_buffers;
    d->totals.cpu.merge(r.cpu);
    d->totals.query_segments += r.query_segments;
    d->totals.query.merge(r.query);
    d->totals.msaa.add(r.msaa);
    if (settings().hud) d->hud.add(r);
    if (selected) {
      // Counted only when the record reached the file (the output may have failed to open).
      if (output().write_frame(r)) ++d->frames_written;
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

void poll(DeviceData* d) {
  poll_timers(d, false);
  poll_readbacks(d, false);
  poll_queries(d);
  write_ready_frames(d);
}

void end_frame(DeviceData* d) {
  Frame& f = d->frames.back();
  if (d->capture && settings().hud && settings().capture.contains(f.index)) hud_note_capture(d, f.index);
  if (d->capture) capture_end_frame(d, f.index);
  Clock::time_point now = Clock::now();
  f.cpu_ms = std::chrono::duration<double, std::milli>(now - f.start).count();
  f.ended = true;
  Frame next;
  next.index = f.index + 1;
  next.start = now;
  d->frames.push_back(next);
  d->open_frame.store(next.index, std::memory_order_relaxed);
  d->submits_in_frame = 0;
  poll(d);
}

// ---------------------------------------------------------------------------------------------
// Submissions (these take state_mutex)

namespace {

// The submitted command buffers' counts and query segments go to the open frame.
void account_submission(DeviceData* d, const std::vector<VkCommandBuffer>& handles) {
  std::vector<CommandBufferState*> states;
  states.reserve(handles.size());
  for (VkCommandBuffer h : handles)
    if (CommandBufferState* s = get_cb(h)) states.push_back(s);
  std::lock_guard lock(d->state_mutex);
  const uint64_t serial = ++d->submit_serial;
  Frame& f = d->frames.back();
  const bool sampled = f.index % settings().query_interval == 0;
  for (CommandBufferState* cb : states) {
    for (uint32_t slot : cb->all_slots) {
      SlotState& s = d->slots[slot];
      if (s.submit_serial == serial) continue;
      if (s.reusable && s.gpu_reset && !sampled) {
        // A reusable recording that resets its own queries, submitted outside the sampling: its
        // statistics are not read this time, so there is no host work. A sampled use not read
        // yet is read now (this execution resets it), or lost if a SIMULTANEOUS_USE command
        // buffer's earlier execution has not finished.
        if (s.pending_frame >= 0) harvest(d, slot, true);
        s.submit_serial = serial;
        continue;
      }
      // The previous use has finished (the command buffer is not pending): read it before the
      // reset below overwrites it. A SIMULTANEOUS_USE command buffer may still be pending: its
      // query is reused only once its previous result is available, else this use goes unmeasured.
      if (!harvest(d, slot, !cb->simultaneous || s.gpu_reset)) {
        f.query_incomplete = true;
        frame_at(d, static_cast<uint64_t>(s.pending_frame)).query_incomplete = true;
        continue;
      }
      // Else the recording resets its slots itself (vkCmdResetQueryPool).
      if (!s.gpu_reset) d->reset_query_pool(d->device, slot_pool(d, slot), slot % kPoolSize, 1);
      s.pending_frame = static_cast<int64_t>(f.index);
      s.submit_serial = serial;
      const VkQueryPipelineStatisticFlags tess_bits =
          (1u << QueryCounters::kTcsPatches) | (1u << QueryCounters::kTesInvocations);
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
    f.cpu.merge(cb->counters);
    ++f.command_buffers;
  }
  ++f.submits;
  f.has_work = true;
}

// A submission may end the frame (frame_delimiter = submit); else finished results are read.
void after_submission(DeviceData* d) {
  std::lock_guard lock(d->state_mutex);
  if (settings().delimiter == FrameDelimiter::kSubmit && ++d->submits_in_frame >= settings().submits_per_frame)
    end_frame(d);
  else
    poll(d);
}

// Structures that tie a count to the command buffer list: the layer's timer command buffers
// cannot be added to such a submission.
bool timeable(const void* pNext) {
  for (auto* p = static_cast<const VkBaseInStructure*>(pNext); p; p = p->pNext)
    if (p->sType == VK_STRUCTURE_TYPE_DEVICE_GROUP_SUBMIT_INFO || p->sType == VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO)
      return false;
  return true;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  DeviceData* d = get_device(queue);
  std::vector<VkCommandBuffer> cbs;
  bool can_time = true;
  int first = -1, last = -1;  // the first and last batch with command buffers
  for (uint32_t i = 0; i < count; ++i) {
    cbs.insert(cbs.end(), submits[i].pCommandBuffers, submits[i].pCommandBuffers + submits[i].commandBufferCount);
    can_time &= timeable(submits[i].pNext);
    if (submits[i].commandBufferCount) {
      if (first < 0) first = int(i);
      last = int(i);
    }
  }
  if (d->capture) capture_note_submission(d, cbs);
  account_submission(d, cbs);
  // GPU time: copies of the first and last batch with the timer's command buffers added.
  GpuTimer* timer = can_time && first >= 0 ? acquire_timer(d, queue) : nullptr;
  std::vector<VkSubmitInfo> copies;
  std::vector<VkCommandBuffer> first_cbs, last_cbs;
  if (timer) {
    copies.assign(submits, submits + count);
    const VkSubmitInfo& a = submits[first];
    first_cbs.push_back(timer->begin);
    first_cbs.insert(first_cbs.end(), a.pCommandBuffers, a.pCommandBuffers + a.commandBufferCount);
    const VkSubmitInfo& b = submits[last];
    if (last == first) {
      first_cbs.push_back(timer->end);
    } else {
      last_cbs.assign(b.pCommandBuffers, b.pCommandBuffers + b.commandBufferCount);
      last_cbs.push_back(timer->end);
      copies[size_t(last)].commandBufferCount = uint32_t(last_cbs.size());
      copies[size_t(last)].pCommandBuffers = last_cbs.data();
    }
    copies[size_t(first)].commandBufferCount = uint32_t(first_cbs.size());
    copies[size_t(first)].pCommandBuffers = first_cbs.data();
    submits = copies.data();
  }
  VkResult r = d->table.QueueSubmit(queue, count, submits, fence);
  if (r != VK_SUCCESS && timer) release_timer(d, timer);
  if (r == VK_SUCCESS && msaa_on()) maybe_read_back(d, queue, cbs);
  if (r == VK_SUCCESS && d->capture) capture_after_submit(d, queue, cbs);
  after_submission(d);
  return r;
}

VkResult queue_submit2(PFN_vkQueueSubmit2 DeviceTable::*next, VkQueue queue, uint32_t count,
                       const VkSubmitInfo2* submits, VkFence fence) {
  DeviceData* d = get_device(queue);
  std::vector<VkCommandBuffer> cbs;
  bool can_time = true;
  int first = -1, last = -1;
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t j = 0; j < submits[i].commandBufferInfoCount; ++j)
      cbs.push_back(submits[i].pCommandBufferInfos[j].commandBuffer);
    can_time &= !(submits[i].flags & VK_SUBMIT_PROTECTED_BIT);
    if (submits[i].commandBufferInfoCount) {
      if (first < 0) first = int(i);
      last = int(i);
    }
  }
  if (d->capture) capture_note_submission(d, cbs);
  account_submission(d, cbs);
  GpuTimer* timer = can_time && first >= 0 ? acquire_timer(d, queue) : nullptr;
  std::vector<VkSubmitInfo2> copies;
  std::vector<VkCommandBufferSubmitInfo> first_cbs, last_cbs;
  if (timer) {
    copies.assign(submits, submits + count);
    VkCommandBufferSubmitInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO}, end = begin;
    begin.commandBuffer = timer->begin;
    end.commandBuffer = timer->end;
    const VkSubmitInfo2& a = submits[first];
    first_cbs.push_back(begin);
    first_cbs.insert(first_cbs.end(), a.pCommandBufferInfos, a.pCommandBufferInfos + a.commandBufferInfoCount);
    const VkSubmitInfo2& b = submits[last];
    if (last == first) {
      first_cbs.push_back(end);
    } else {
      last_cbs.assign(b.pCommandBufferInfos, b.pCommandBufferInfos + b.commandBufferInfoCount);
      last_cbs.push_back(end);
      copies[size_t(last)].commandBufferInfoCount = uint32_t(last_cbs.size());
      copies[size_t(last)].pCommandBufferInfos = last_cbs.data();
    }
    copies[size_t(first)].commandBufferInfoCount = uint32_t(first_cbs.size());
    copies[size_t(first)].pCommandBufferInfos = first_cbs.data();
    submits = copies.data();
  }
  VkResult r = (d->table.*next)(queue, count, submits, fence);
  if (r != VK_SUCCESS && timer) release_timer(d, timer);
  if (r == VK_SUCCESS && msaa_on()) maybe_read_back(d, queue, cbs);
  if (r == VK_SUCCESS && d->capture) capture_after_submit(d, queue, cbs);
  after_submission(d);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR* info) {
  DeviceData* d = get_device(queue);
  HudPresent storage;
  if (settings().hud) info = hud_present(d, queue, info, storage);
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

}  // namespace tessera::layer
