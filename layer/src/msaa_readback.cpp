// MSAA read-back: every msaa_interval-th frame, the multisampled colour attachments the frame's
// submissions stored are copied sample by sample into host-visible buffers by the layer's own
// compute shader (shaders/glsl/msaa_readback.comp), in the layer's own command buffer submitted
// right after the application's on the same queue. Its fence is polled at later boundaries,
// never waited on (except at vkDestroyDevice, and at vkDestroyImage of an image still being
// read). The application's command buffers and bound state are never touched. What was read
// goes through Tessera's colour unit (units.cpp).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "layer_state.h"

namespace tessera::layer {
namespace {

const uint32_t kReadbackShader[] =
#include "msaa_readback.comp.inc"
    ;
const uint32_t kDepthReadbackShader[] =
#include "msaa_readback_depth.comp.inc"
    ;

uint32_t pack_clear(const VkClearColorValue& c) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(std::lround(std::clamp(c.float32[i], 0.0f, 1.0f) * 255.0f)) << (8 * i);
  return v;
}

std::string expand_pattern(std::string pattern, uint32_t device, uint64_t frame, uint32_t image) {
  const std::pair<const char*, std::string> keys[] = {
      {"{device}", std::to_string(device)}, {"{frame}", std::to_string(frame)}, {"{image}", std::to_string(image)}};
  for (const auto& [key, value] : keys)
    for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at + value.size()))
      pattern.replace(at, std::strlen(key), value);
  return pattern;
}

// Created on first use; false when anything is missing (no read-back then). Under state_mutex
// for the MSAA read-back's resources, under the capture mutex for frame capture's (each has its
// own: a descriptor pool needs one owner at a time). `depth`: the depth shader instead of the
// colour one (one set of resources reads one kind).
bool ensure_resources(DeviceData* d, MsaaResources& m, bool depth) {
  if (m.tried) return m.ok;
  m.tried = true;
  const DeviceTable& t = d->table;
  if (!t.CreateShaderModule || !t.CreateComputePipelines || !t.CmdPipelineBarrier || !t.GetFenceStatus ||
      !t.CreateDescriptorPool || !t.CmdPushConstants || !d->instance->table.GetPhysicalDeviceMemoryProperties)
    return false;
  d->instance->table.GetPhysicalDeviceMemoryProperties(d->physical, &m.memory);
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = depth ? sizeof kDepthReadbackShader : sizeof kReadbackShader;
  smci.pCode = depth ? kDepthReadbackShader : kReadbackShader;
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

bool ensure_msaa_resources(DeviceData* d) { return ensure_resources(d, d->msaa, false); }

void destroy_entry(DeviceData* d, const MsaaResources& m, ReadbackEntry& e) {
  const DeviceTable& t = d->table;
  if (e.set) t.FreeDescriptorSets(d->device, m.descriptor_pool, 1, &e.set);
  if (e.mapped) t.UnmapMemory(d->device, e.memory);
  if (e.buffer) t.DestroyBuffer(d->device, e.buffer, d->alloc());
  if (e.memory) t.FreeMemory(d->device, e.memory, d->alloc());
  if (e.view) t.DestroyImageView(d->device, e.view, d->alloc());
  e = ReadbackEntry{};
}

void destroy_batch(DeviceData* d, ReadbackBatch& b) {
  for (ReadbackEntry& e : b.entries) destroy_entry(d, d->msaa, e);
  if (b.fence) d->table.DestroyFence(d->device, b.fence, d->alloc());
  if (b.cb) d->table.FreeCommandBuffers(d->device, b.pool, 1, &b.cb);
  b = ReadbackBatch{};
}

// Buffer, view and descriptor set for reading one image. False (and nothing left) on failure.
bool make_entry(DeviceData* d, const MsaaResources& m, const MsaaImage& info, VkImageAspectFlags aspect,
                ReadbackEntry& e) {
  const DeviceTable& t = d->table;
  e.width = info.extent.width;
  e.height = info.extent.height;
  e.samples = info.samples;
  VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vi.image = e.image;
  vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vi.format = info.format;
  vi.subresourceRange = {aspect, 0, 1, 0, 1};
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
    for (uint32_t i = 0; i < m.memory.memoryTypeCount && type == UINT32_MAX; ++i)
      if ((req.memoryTypeBits & (1u << i)) && (m.memory.memoryTypes[i].propertyFlags & want) == want) type = i;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    ok = type != UINT32_MAX && t.AllocateMemory(d->device, &ai, d->alloc(), &e.memory) == VK_SUCCESS &&
         t.BindBufferMemory(d->device, e.buffer, e.memory, 0) == VK_SUCCESS &&
         t.MapMemory(d->device, e.memory, 0, VK_WHOLE_SIZE, 0, &e.mapped) == VK_SUCCESS;
  }
  if (ok) {
    VkDescriptorSetAllocateInfo dsa{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsa.descriptorPool = m.descriptor_pool;
    dsa.descriptorSetCount = 1;
    dsa.pSetLayouts = &m.set_layout;
    ok = t.AllocateDescriptorSets(d->device, &dsa, &e.set) == VK_SUCCESS;
  }
  if (!ok) {
    destroy_entry(d, m, e);
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
                   VkAccessFlags dst_access, VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {aspect, 0, 1, 0, 1};
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
      if (t.reason != kMsaaRead)
        count_skip(f.msaa, t.reason);
      else if (it == d->msaa_images.end() || it->second.reason != kMsaaRead)
        count_skip(f.msaa, it == d->msaa_images.end() ? MsaaSkips::kNotReadable : it->second.reason);
      else if (!layout_ok)
        count_skip(f.msaa, MsaaSkips::kLayout);
      else
        work.emplace_back(t, it->second);
    }
  }
  if (work.empty()) return;
  if (family >= d->families.size() || !(d->families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
    count_skip(f.msaa, MsaaSkips::kQueue, work.size());
    return;
  }
  if (!ensure_msaa_resources(d)) {
    count_skip(f.msaa, MsaaSkips::kResources, work.size());
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
    count_skip(f.msaa, MsaaSkips::kResources, work.size());
    return;
  }
  // A dispatchable handle made below the loader: it needs the loader's dispatch pointer.
  if (d->set_loader_data)
    d->set_loader_data(d->device, b.cb);
  else
    *reinterpret_cast<void**>(b.cb) = *reinterpret_cast<void**>(d->device);
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
      if (!make_entry(d, d->msaa, info, VK_IMAGE_ASPECT_COLOR_BIT, e)) {
        count_skip(f.msaa, MsaaSkips::kResources);
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
    count_skip(f.msaa, MsaaSkips::kResources, b.entries.size());
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
      count_skip(f.msaa, MsaaSkips::kResources);
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Targets: what a recording stores

bool readback_frame(const DeviceData* d) {
  return d->open_frame.load(std::memory_order_relaxed) % settings().msaa_interval == 0;
}

// Remembers a multisampled colour attachment of a recording, read or skipped (the last use of an
// image in the recording wins: its layout is where the recording leaves it).
void add_msaa_target(DeviceData* d, CommandBufferState* cb, VkImageView view, VkImageLayout layout, bool clears,
                     const VkClearColorValue& clear, VkFormat format, VkAttachmentStoreOp store) {
  if (depth_stencil_format(format)) return;  // not colour: not the colour unit's
  VkImage image = VK_NULL_HANDLE;
  int reason = kMsaaRead;
  {
    std::shared_lock lock(d->objects_mutex);
    auto it = d->view_images.find(view);
    if (it == d->view_images.end()) return;  // a view the layer did not see made: not known to be multisampled
    image = it->second;
    auto im = d->msaa_images.find(image);
    if (im == d->msaa_images.end()) return;  // single-sampled
    reason = im->second.reason;
  }
  if (!msaa_format(format))
    reason = MsaaSkips::kFormat;
  else if (store == VK_ATTACHMENT_STORE_OP_DONT_CARE)
    reason = MsaaSkips::kStoreOpDontCare;
  else if (store != VK_ATTACHMENT_STORE_OP_STORE)
    reason = MsaaSkips::kStoreOpNone;
  MsaaTarget t{image, layout, clears ? pack_clear(clear) : 0u, reason};
  for (MsaaTarget& old : cb->msaa_targets)
    if (old.image == image) {
      if (!clears) t.clear = old.clear;  // loaded on top of an earlier clear in this recording
      old = t;
      return;
    }
  cb->msaa_targets.push_back(t);
}

void add_pass_targets(DeviceData* d, CommandBufferState* cb, const VkRenderPassBeginInfo* begin,
                      const RenderPassInfo& info, bool stored_copy) {
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
    if (a.samples < 2) continue;
    const bool clears = a.load == VK_ATTACHMENT_LOAD_OP_CLEAR && i < begin->clearValueCount && begin->pClearValues;
    add_msaa_target(d, cb, views[i], a.final_layout, clears,
                    clears ? begin->pClearValues[i].color : VkClearColorValue{}, a.format,
                    stored_copy && msaa_format(a.format) ? VK_ATTACHMENT_STORE_OP_STORE : a.store);
  }
}

// An image barrier recorded after a pass: the read-back must start from the layout the
// recording really leaves the attachment in.
void track_msaa_layout(CommandBufferState* cb, VkImage image, VkImageLayout layout) {
  for (MsaaTarget& t : cb->msaa_targets)
    if (t.image == image) t.layout = layout;
}

// ---------------------------------------------------------------------------------------------
// Read-backs after submissions

// The application destroys an image: a read-back of it still running must finish first.
void wait_for_readbacks_of(DeviceData* d, VkImage image) {
  std::lock_guard lock(d->state_mutex);
  for (auto it = d->readbacks.begin(); it != d->readbacks.end();) {
    const bool reads =
        std::any_of(it->entries.begin(), it->entries.end(), [&](const ReadbackEntry& e) { return e.image == image; });
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
    if (CommandBufferState* cb = get_cb(h))
      for (const MsaaTarget& t : cb->msaa_targets) {
        auto it = std::find_if(targets.begin(), targets.end(), [&](const MsaaTarget& o) { return o.image == t.image; });
        if (it != targets.end())
          *it = t;  // a later command buffer leaves it last
        else
          targets.push_back(t);
      }
  if (targets.empty()) return;
  std::lock_guard lock(d->state_mutex);
  if (d->frames.back().index % settings().msaa_interval == 0) submit_readback(d, queue, targets);
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

// ---------------------------------------------------------------------------------------------
// Frame capture: every sample of a multisampled attachment, recorded in the capture's own
// command buffer (which waits for it)

bool record_sample_readback(DeviceData* d, MsaaResources& m, VkCommandBuffer cb, const SampleReadback& what,
                            ReadbackEntry& e) {
  if (!ensure_resources(d, m, what.depth)) return false;
  MsaaImage info;
  info.format = what.format;
  info.extent = {what.width, what.height, 1};
  info.samples = what.samples;
  e.image = what.image;
  if (!make_entry(d, m, info, what.depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT, e)) return false;
  // Layout transitions name every aspect of a combined depth/stencil image; the view samples
  // only its depth.
  VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
  if (what.depth)
    aspect = what.format == VK_FORMAT_D16_UNORM || what.format == VK_FORMAT_X8_D24_UNORM_PACK32 ||
                     what.format == VK_FORMAT_D32_SFLOAT
                 ? VK_IMAGE_ASPECT_DEPTH_BIT
                 : VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
  const DeviceTable& t = d->table;
  t.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, m.pipeline);
  image_barrier(d, cb, e.image, what.layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT, aspect);
  t.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, m.layout, 0, 1, &e.set, 0, nullptr);
  const uint32_t push[3] = {e.width, e.height, e.samples};
  t.CmdPushConstants(cb, m.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
  t.CmdDispatch(cb, (e.width + 7) / 8, (e.height + 7) / 8, 1);
  image_barrier(d, cb, e.image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, what.layout,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, aspect);
  return true;
}

void release_sample_readback(DeviceData* d, MsaaResources& m, ReadbackEntry& e) { destroy_entry(d, m, e); }

void destroy_msaa_resources(DeviceData* d) { destroy_readback_resources(d, d->msaa); }

void destroy_readback_resources(DeviceData* d, MsaaResources& m) {
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

}  // namespace tessera::layer
