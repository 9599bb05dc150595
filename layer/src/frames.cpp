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
    r.query = f.query;
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
    d->totals.cpu.merge(r.cpu);
    d->totals.query_segments += r.query_segments;
    d->totals.query.merge(r.query);
    d->totals.msaa.add(r.msaa);
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
  poll_readbacks(d, false);
  poll_queries(d);
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
      // Without host reset the recording resets its slots itself (vkCmdResetQueryPool).
      if (d->reset_query_pool) d->reset_query_pool(d->device, slot_pool(d, slot), slot % kPoolSize, 1);
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

}  // namespace

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

VkResult queue_submit2(PFN_vkQueueSubmit2 DeviceTable::*next, VkQueue queue, uint32_t count,
                       const VkSubmitInfo2* submits, VkFence fence) {
  DeviceData* d = get_device(queue);
  std::vector<VkCommandBuffer> cbs;
  for (uint32_t i = 0; i < count; ++i)
    for (uint32_t j = 0; j < submits[i].commandBufferInfoCount; ++j)
      cbs.push_back(submits[i].pCommandBufferInfos[j].commandBuffer);
  account_submission(d, cbs);
  VkResult r = (d->table.*next)(queue, count, submits, fence);
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

}  // namespace tessera::layer
