// Frame capture, submission side: in a capture frame, each application submission is waited
// for (the capture frame alone takes longer), its noted recordings' transform-feedback queries
// and buffers are read into the frame's draws, and the attachments its render passes stored are
// copied out by the layer's own command buffer on the same queue. At the frame's end the frame
// goes to the device's writer thread, which writes one .tcap file per frame
// (tessera::capture::write_capture) so that presentation does not wait for compression and I/O.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>

#include "layer_state.h"
#include "spirv_patch.h"

namespace tessera::layer {
namespace {

std::string expand(std::string pattern, uint32_t device, uint64_t frame) {
  const std::pair<const char*, std::string> keys[] = {{"{device}", std::to_string(device)},
                                                      {"{frame}", std::to_string(frame)}};
  for (const auto& [key, value] : keys)
    for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at + value.size()))
      pattern.replace(at, std::strlen(key), value);
  return pattern;
}

void writer_loop(CaptureDevice* c) {
  for (;;) {
    std::pair<std::string, capture::Capture> job;
    {
      std::unique_lock lock(c->queue_mutex);
      c->queue_cv.wait(lock, [&] { return c->stop || !c->queue.empty(); });
      if (c->queue.empty()) return;
      job = std::move(c->queue.front());
      c->queue.pop_front();
    }
    try {
      capture::write_capture(job.first, job.second);
      std::lock_guard lock(c->mutex);
      ++c->written;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "VK_LAYER_TESSERA_stats: capture of frame %llu not written: %s\n",
                   static_cast<unsigned long long>(job.second.frames.empty() ? 0 : job.second.frames[0].number),
                   e.what());
      std::lock_guard lock(c->mutex);
      ++c->write_failed;
    }
  }
}

// Hands the open frame to the writer thread (c.mutex held).
void queue_frame(DeviceData* d, CaptureDevice& c) {
  capture::Capture cap = c.header;
  cap.frames.push_back(std::move(c.frame));
  c.frame = capture::Frame{};
  c.frame_open = false;
  const std::string path = expand(settings().capture_path, d->index, cap.frames[0].number);
  std::lock_guard lock(c.queue_mutex);
  c.queue.emplace_back(path, std::move(cap));
  if (!c.writer.joinable()) c.writer = std::thread(writer_loop, &c);
  c.queue_cv.notify_one();
}

struct Copy {
  size_t pass = 0, attachment = 0;  // in the frame
  VkImage image = VK_NULL_HANDLE;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
  uint32_t copy_bytes = 0;  // per texel as copied
  // Multisampled: every sample read by the compute read-back (msaa_readback.cpp) into `entry`.
  uint32_t samples = 1;
  ReadbackEntry entry;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
};

uint32_t memory_type(const VkPhysicalDeviceMemoryProperties& mp, uint32_t bits, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
  return UINT32_MAX;
}

void barrier(DeviceData* d, VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
             VkImageLayout to, VkAccessFlags src, VkAccessFlags dst) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {aspect, 0, 1, 0, 1};
  d->table.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr,
                              0, nullptr, 1, &b);
}

// The words the per-sample read-back wrote (width * height * samples, pixel-major) as the
// capture stores the attachment's texels: colour in the format's byte order (the shader packs
// R in the low byte, whatever the format), D16 as 16 bits, other depth as float32.
void store_samples(capture::Attachment& a, const uint32_t* words) {
  const size_t n = size_t(a.width) * a.height * a.samples;
  const VkFormat f = VkFormat(a.vk_format);
  a.texels.resize(n * a.texel_bytes);
  uint8_t* out = a.texels.data();
  if (a.kind == capture::AttachmentKind::depth) {
    for (size_t i = 0; i < n; ++i) {
      float v = 0;
      std::memcpy(&v, &words[i], 4);
      if (a.texel_bytes == 2) {
        const auto w = uint16_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 65535.0f));
        std::memcpy(out + 2 * i, &w, 2);
      } else {
        std::memcpy(out + 4 * i, &v, 4);
      }
    }
    return;
  }
  const bool bgra = f == VK_FORMAT_B8G8R8A8_UNORM;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t w = words[i];
    const uint8_t r = uint8_t(w), g = uint8_t(w >> 8), b = uint8_t(w >> 16), al = uint8_t(w >> 24);
    out[4 * i + 0] = bgra ? b : r;
    out[4 * i + 1] = g;
    out[4 * i + 2] = bgra ? r : b;
    out[4 * i + 3] = al;
  }
}

// Copies the attachments out on `queue` and waits; fills the frame's texels (c.mutex held).
// Also the host read barrier for the submission's transform-feedback buffers and counters
// (a fence alone does not make device writes visible to the host), so it runs even without
// copies, before those are read.
void read_attachments(DeviceData* d, VkQueue queue, std::vector<Copy>& copies, capture::Frame& frame) {
  const DeviceTable& t = d->table;
  CaptureDevice& c = *d->capture;
  uint32_t family = UINT32_MAX;
  {
    std::shared_lock lock(d->objects_mutex);
    auto q = d->queue_families.find(queue);
    if (q != d->queue_families.end()) family = q->second;
  }
  auto fail_all = [&](const char* why) {
    for (Copy& cp : copies) frame.passes[cp.pass].attachments[cp.attachment].skip_reason = why;
  };
  if (family == UINT32_MAX || !d->set_loader_data) return fail_all("no_queue");
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pci.queueFamilyIndex = family;
  VkCommandPool pool = VK_NULL_HANDLE;
  if (t.CreateCommandPool(d->device, &pci, d->alloc(), &pool) != VK_SUCCESS) return fail_all("out_of_memory");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  bool ok = t.AllocateCommandBuffers(d->device, &ai, &cb) == VK_SUCCESS &&
            d->set_loader_data(d->device, cb) == VK_SUCCESS &&
            t.CreateFence(d->device, &fci, d->alloc(), &fence) == VK_SUCCESS;
  if (ok) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    ok = t.BeginCommandBuffer(cb, &bi) == VK_SUCCESS;
  }
  for (Copy& cp : copies) {
    if (!ok) break;
    capture::Attachment& a = frame.passes[cp.pass].attachments[cp.attachment];
    if (cp.samples > 1) {
      SampleReadback what;
      what.image = cp.image;
      what.format = VkFormat(a.vk_format);
      what.width = a.width;
      what.height = a.height;
      what.samples = cp.samples;
      what.layout = cp.layout;
      what.depth = a.kind == capture::AttachmentKind::depth;
      if (!record_sample_readback(d, what.depth ? c.depth_samples : c.colour_samples, cb, what, cp.entry))
        a.skip_reason = "out_of_memory";
      continue;
    }
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = VkDeviceSize(a.width) * a.height * cp.copy_bytes;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkMemoryRequirements req{};
    bool made = bci.size > 0 && t.CreateBuffer(d->device, &bci, d->alloc(), &cp.buffer) == VK_SUCCESS;
    if (made) {
      t.GetBufferMemoryRequirements(d->device, cp.buffer, &req);
      VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
      mai.allocationSize = req.size;
      mai.memoryTypeIndex = memory_type(c.memory, req.memoryTypeBits,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
      made = mai.memoryTypeIndex != UINT32_MAX &&
             t.AllocateMemory(d->device, &mai, d->alloc(), &cp.memory) == VK_SUCCESS &&
             t.BindBufferMemory(d->device, cp.buffer, cp.memory, 0) == VK_SUCCESS &&
             t.MapMemory(d->device, cp.memory, 0, VK_WHOLE_SIZE, 0, &cp.mapped) == VK_SUCCESS;
    }
    if (!made) {
      a.skip_reason = "out_of_memory";
      continue;
    }
    barrier(d, cb, cp.image, cp.aspect, cp.layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_MEMORY_WRITE_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {cp.aspect, 0, 0, 1};
    region.imageExtent = {a.width, a.height, 1};
    t.CmdCopyImageToBuffer(cb, cp.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, cp.buffer, 1, &region);
    barrier(d, cb, cp.image, cp.aspect, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, cp.layout, VK_ACCESS_TRANSFER_READ_BIT,
            VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  }
  if (ok) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    t.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                         nullptr);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    ok = t.EndCommandBuffer(cb) == VK_SUCCESS && t.QueueSubmit(queue, 1, &si, fence) == VK_SUCCESS &&
         t.WaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
  }
  for (Copy& cp : copies) {
    capture::Attachment& a = frame.passes[cp.pass].attachments[cp.attachment];
    if (cp.samples > 1) {
      if (ok && cp.entry.mapped)
        store_samples(a, static_cast<const uint32_t*>(cp.entry.mapped));
      else if (a.skip_reason.empty())
        a.skip_reason = "copy_failed";
      if (cp.entry.set)
        release_sample_readback(d, a.kind == capture::AttachmentKind::depth ? c.depth_samples : c.colour_samples,
                                cp.entry);
      continue;
    }
    if (ok && cp.mapped) {
      const size_t texels = size_t(a.width) * a.height;
      const auto* src = static_cast<const uint8_t*>(cp.mapped);
      const VkFormat f = VkFormat(a.vk_format);
      a.texels.resize(texels * a.texel_bytes);
      if (f == VK_FORMAT_D24_UNORM_S8_UINT || f == VK_FORMAT_X8_D24_UNORM_PACK32) {
        // The depth aspect of D24 comes as 32-bit words with 24 bits of depth: stored as float32.
        for (size_t i = 0; i < texels; ++i) {
          uint32_t w = 0;
          std::memcpy(&w, src + i * 4, 4);
          const float v = float(w & 0xFFFFFFu) / 16777215.0f;
          std::memcpy(a.texels.data() + i * 4, &v, 4);
        }
      } else if (f == VK_FORMAT_D16_UNORM_S8_UINT) {
        for (size_t i = 0; i < texels; ++i) {
          uint16_t w = 0;
          std::memcpy(&w, src + i * 2, 2);
          const float v = float(w) / 65535.0f;
          std::memcpy(a.texels.data() + i * 4, &v, 4);
        }
      } else {
        std::memcpy(a.texels.data(), src, a.texels.size());
      }
    } else if (a.skip_reason.empty()) {
      a.skip_reason = "copy_failed";
    }
    if (cp.mapped) t.UnmapMemory(d->device, cp.memory);
    if (cp.buffer) t.DestroyBuffer(d->device, cp.buffer, d->alloc());
    if (cp.memory) t.FreeMemory(d->device, cp.memory, d->alloc());
  }
  if (fence) t.DestroyFence(d->device, fence, d->alloc());
  if (cb) t.FreeCommandBuffers(d->device, pool, 1, &cb);
  t.DestroyCommandPool(d->device, pool, d->alloc());
}

// One noted draw as captured (c.mutex held): its transform-feedback results when it was
// bracketed, else the note with its reason.
capture::Draw read_draw(DeviceData* d, CaptureDevice& c, const CaptureRecording& rec, const CaptureDrawNote& n,
                        uint32_t pass) {
  capture::Draw draw = n.draw;
  draw.pass = pass;
  if (!n.instrumented) return draw;
  const auto* base = static_cast<const uint8_t*>(rec.chunks[n.chunk].mapped);
  uint64_t written = 0, needed = 0;
  if (n.counter) {
    // Bytes written to buffer 0; a full buffer may have overflowed (no query says how much).
    uint32_t bytes = 0;
    std::memcpy(&bytes, base + n.counter_offset, 4);
    written = bytes / (3 * kXfbPositionStride);
    needed = (written + 1) * 3 > n.capacity ? written + 1 : written;
  } else {
    uint64_t q[2] = {0, 0};  // primitives written, primitives needed
    const VkResult r = d->table.GetQueryPoolResults(d->device, n.pool, n.query, 1, sizeof q, q, sizeof q,
                                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) {
      draw.skip_reason = "query_failed";
      return draw;
    }
    written = q[0];
    needed = q[1];
  }
  draw.primitives_written = written;
  draw.primitives_needed = needed;
  if (!n.counter && needed > written && needed * 3 <= n.capacity) {
    // Room for every primitive, yet fewer written: the driver's transform feedback did not
    // carry on through the whole call (e.g. between the draws of one vkCmdDrawMultiEXT). A
    // bigger buffer would not help: recorded with its own reason, nothing grown.
    draw.skip_reason = "transform_feedback_incomplete";
    return draw;
  }
  if (needed > written || written * 3 > n.capacity) {
    draw.skip_reason = "overflow";
    // Later recordings get room for it (the next eligible frame captures it).
    const uint64_t want = std::min<uint64_t>(std::max<uint64_t>(needed * 3 * 2, uint64_t(n.capacity) * 2), UINT32_MAX);
    uint32_t& budget = c.budgets[n.pipeline];
    budget = std::max<uint32_t>(budget, uint32_t(want));
    return draw;
  }
  draw.captured = true;
  const size_t vertices = size_t(written) * 3;
  draw.positions.resize(vertices);
  std::memcpy(draw.positions.data(), base + n.position_offset, vertices * kXfbPositionStride);
  if (n.ids) {
    draw.vertex_ids.resize(vertices);
    draw.instance_ids.resize(vertices);
    const auto* ids = reinterpret_cast<const uint32_t*>(base + n.id_offset);
    for (size_t i = 0; i < vertices; ++i) {
      draw.vertex_ids[i] = ids[2 * i];
      draw.instance_ids[i] = ids[2 * i + 1];
    }
  }
  return draw;
}

}  // namespace

void capture_after_submit(DeviceData* d, VkQueue queue, const std::vector<VkCommandBuffer>& handles) {
  uint64_t frame = 0;
  {
    std::lock_guard lock(d->state_mutex);
    frame = d->frames.back().index;
  }
  if (!settings().capture.contains(frame)) return;
  std::vector<CommandBufferState*> noted;
  for (VkCommandBuffer h : handles)
    if (CommandBufferState* s = get_cb(h); s && s->capture) noted.push_back(s);
  CaptureDevice& c = *d->capture;
  // The submission's results are needed now: the capture frame waits for it.
  d->table.QueueWaitIdle(queue);
  std::lock_guard lock(c.mutex);
  if (!c.frame_open) {
    c.frame = capture::Frame{};
    c.frame.number = frame;
    c.frame_open = true;
  }
  capture::Frame& out = c.frame;
  std::vector<Copy> copies;
  std::vector<uint32_t> bases;  // each recording's first pass in the frame
  for (CommandBufferState* cb : noted) {
    CaptureRecording& rec = *cb->capture;
    const uint32_t base = uint32_t(out.passes.size());
    for (const CapturePassNote& p : rec.passes) {
      capture::RenderPass rp = p.pass;
      for (const CaptureAttachmentNote& a : p.attachments) {
        rp.attachments.push_back(a.info);
        capture::Attachment& att = rp.attachments.back();
        if (!att.skip_reason.empty()) continue;
        if (a.layout == VK_IMAGE_LAYOUT_UNDEFINED || a.layout == VK_IMAGE_LAYOUT_PREINITIALIZED) {
          att.skip_reason = "layout";
          continue;
        }
        Copy cp;
        cp.pass = out.passes.size();
        cp.attachment = rp.attachments.size() - 1;
        cp.image = a.image;
        cp.layout = a.layout;
        const VkFormat f = VkFormat(att.vk_format);
        cp.samples = att.samples;
        if (att.kind == capture::AttachmentKind::depth) {
          cp.aspect = VK_IMAGE_ASPECT_DEPTH_BIT;
          cp.copy_bytes = f == VK_FORMAT_D16_UNORM || f == VK_FORMAT_D16_UNORM_S8_UINT ? 2 : 4;
        } else {
          cp.copy_bytes = att.texel_bytes;
        }
        copies.push_back(cp);
      }
      out.passes.push_back(std::move(rp));
    }
    bases.push_back(base);
  }
  read_attachments(d, queue, copies, out);
  for (size_t k = 0; k < noted.size(); ++k) {
    const CaptureRecording& rec = *noted[k]->capture;
    const uint32_t base = bases[k];
    for (const CaptureDrawNote& n : rec.draws) {
      if (!n.secondary) {
        out.draws.push_back(read_draw(d, c, rec, n, n.draw.pass + base));
        continue;
      }
      // A noted secondary executed here: its draws, in the primary's pass.
      const CaptureRecording& sec = *n.secondary->capture;
      for (const CaptureDrawNote& sn : sec.draws) out.draws.push_back(read_draw(d, c, sec, sn, n.draw.pass + base));
    }
  }
}

void capture_end_frame(DeviceData* d, uint64_t frame) {
  CaptureDevice& c = *d->capture;
  std::lock_guard lock(c.mutex);
  if (!settings().capture.contains(frame)) return;
  if (!c.frame_open) {  // a capture frame without submissions: an empty frame says so
    c.frame = capture::Frame{};
    c.frame.number = frame;
  }
  queue_frame(d, c);
}

void destroy_capture_device(DeviceData* d) {
  CaptureDevice& c = *d->capture;
  {
    std::lock_guard lock(c.mutex);
    if (c.frame_open) queue_frame(d, c);  // the device ends inside a capture frame
  }
  {
    std::lock_guard lock(c.queue_mutex);
    c.stop = true;
    c.queue_cv.notify_one();
  }
  if (c.writer.joinable()) c.writer.join();
  destroy_readback_resources(d, c.colour_samples);
  destroy_readback_resources(d, c.depth_samples);
  // Recordings still allocated go with the device: their objects first.
  for (auto& [handle, state] : d->command_buffers) capture_release_recording(d, state.get());
  if (settings().summary)
    std::fprintf(stderr,
                 "VK_LAYER_TESSERA_stats: device %u capture: %llu pipelines patched, %llu not, %llu frames written, "
                 "%llu failed, %llu draws past a pass's queries (now %u per pass)%s%s\n",
                 d->index, static_cast<unsigned long long>(c.patched), static_cast<unsigned long long>(c.patch_failed),
                 static_cast<unsigned long long>(c.written), static_cast<unsigned long long>(c.write_failed),
                 static_cast<unsigned long long>(c.query_limit_draws.load()), c.queries_per_pass.load(),
                 c.xfb ? "" : "; no geometry: ", c.xfb ? "" : c.note.c_str());
  d->capture.reset();
}

}  // namespace tessera::layer
