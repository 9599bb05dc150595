// Frame capture, recording side: which recordings are noted, the render pass instances and
// attachments they use, and each draw bracketed by transform feedback (positions to buffer 0,
// vertex and instance index to buffer 1) and a transform-feedback stream query (primitives
// written and needed). The buffers and queries belong to the recording and live until it is
// reset or freed; they are read only when it is submitted in a capture frame.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <tuple>

#include "layer_state.h"
#include "spirv_patch.h"

namespace tessera::layer {
namespace {

constexpr uint32_t kMaxQueriesPerPass = 1u << 16;  // the most the per-pass pool grows to
constexpr VkDeviceSize kChunkBytes = 4u << 20;     // transform-feedback memory per allocation
constexpr uint32_t kDefaultBudget = 1u << 16;      // vertices for draws of unknown size

bool is_depth(VkFormat f) {
  switch (f) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT:
    case VK_FORMAT_D16_UNORM_S8_UINT:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT: return true;
    default: return false;
  }
}

// Bytes per texel as read back: colour formats the units know, depth as copied (combined
// depth/stencil converted to float32 later).
uint32_t texel_bytes(VkFormat f) {
  switch (f) {
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB:
    case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
    case VK_FORMAT_A2R10G10B10_UNORM_PACK32:
    case VK_FORMAT_B10G11R11_UFLOAT_PACK32:
    case VK_FORMAT_R32_SFLOAT: return 4;
    case VK_FORMAT_R16G16B16A16_SFLOAT:
    case VK_FORMAT_R16G16B16A16_UNORM: return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT: return 16;
    case VK_FORMAT_D16_UNORM: return 2;
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT:
    case VK_FORMAT_D16_UNORM_S8_UINT:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT: return 4;
    default: return 0;
  }
}

// Triangles of `n` vertices per instance in an application topology (an upper bound with
// primitive restart); 0 for points and lines.
uint64_t triangles(uint32_t topology, uint64_t n) {
  switch (topology) {
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST: return n / 3;
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN: return n >= 3 ? n - 2 : 0;
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY: return n / 6;
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY: return n >= 6 ? (n - 4) / 2 : 0;
    default: return 0;
  }
}

CaptureImage image_info(DeviceData* d, VkImage image) {
  std::lock_guard lock(d->capture->mutex);
  auto it = d->capture->images.find(image);
  return it == d->capture->images.end() ? CaptureImage{} : it->second;
}

// One attachment of a pass instance, as far as the recording knows it.
CaptureAttachmentNote attachment_note(DeviceData* d, VkImage image, VkFormat format, VkImageLayout layout,
                                      VkAttachmentStoreOp store) {
  CaptureAttachmentNote a;
  a.image = image;
  a.layout = layout;
  const CaptureImage img = image_info(d, image);
  if (format == VK_FORMAT_UNDEFINED) format = img.format;
  a.info.kind = is_depth(format) ? capture::AttachmentKind::depth : capture::AttachmentKind::color;
  a.info.vk_format = uint32_t(format);
  a.info.width = img.extent.width;
  a.info.height = img.extent.height;
  a.info.samples = img.samples;
  a.info.texel_bytes = texel_bytes(format);
  if (store != VK_ATTACHMENT_STORE_OP_STORE)
    a.info.skip_reason = "store_op_dont_care";
  else if (image == VK_NULL_HANDLE || img.format == VK_FORMAT_UNDEFINED)
    a.info.skip_reason = "unknown_image";
  else if (img.samples > 1 && !is_depth(format) && !msaa_format(format))
    a.info.skip_reason = "format";  // the per-sample read-back packs 8-bit UNORM RGBA only
  else if (!img.readable)
    a.info.skip_reason = "not_readable";
  else if (a.info.texel_bytes == 0)
    a.info.skip_reason = "format";
  return a;
}

// The attachment's load and store ops and identity (format version 2): the view's image and
// first mip level and layer.
void note_ops(DeviceData* d, CaptureAttachmentNote& n, VkImageView view, VkAttachmentLoadOp load,
              VkAttachmentStoreOp store) {
  switch (load) {
    case VK_ATTACHMENT_LOAD_OP_LOAD: n.info.load_op = capture::LoadOp::load; break;
    case VK_ATTACHMENT_LOAD_OP_CLEAR: n.info.load_op = capture::LoadOp::clear; break;
    case VK_ATTACHMENT_LOAD_OP_NONE_EXT: n.info.load_op = capture::LoadOp::none; break;
    default: n.info.load_op = capture::LoadOp::dont_care; break;
  }
  n.info.store_op = store == VK_ATTACHMENT_STORE_OP_STORE      ? capture::StoreOp::store
                    : store == VK_ATTACHMENT_STORE_OP_NONE_EXT ? capture::StoreOp::none
                                                               : capture::StoreOp::dont_care;
  n.info.image = uint64_t(reinterpret_cast<uintptr_t>(n.image));
  std::shared_lock lock(d->objects_mutex);
  auto it = d->view_subresources.find(view);
  if (it != d->view_subresources.end()) std::tie(n.info.mip_level, n.info.base_layer) = it->second;
}

// Queries for the pass instance about to begin: reset outside it, as Vulkan requires.
void open_pass_queries(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb) {
  CaptureRecording& rec = *cb->capture;
  rec.pass_pool = VK_NULL_HANDLE;
  rec.pass_queries_used = 0;
  if (!d->capture->xfb || !cb->primary) return;
  VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT;
  // Sized by the device's current allowance (grown when a pass instance ran out of queries).
  const uint32_t queries = d->capture->queries_per_pass.load(std::memory_order_relaxed);
  qi.queryCount = queries;
  VkQueryPool pool = VK_NULL_HANDLE;
  if (d->table.CreateQueryPool(d->device, &qi, d->alloc(), &pool) != VK_SUCCESS) return;
  rec.pools.push_back(pool);
  d->table.CmdResetQueryPool(handle, pool, 0, queries);
  rec.pass_pool = pool;
  rec.pass_query_capacity = queries;
}

// Transform-feedback memory for `bytes`: a region of the recording's chunks (16-byte aligned).
bool allocate(DeviceData* d, CaptureRecording& rec, VkDeviceSize bytes, uint32_t& chunk, VkDeviceSize& offset) {
  bytes = (bytes + 15) & ~VkDeviceSize(15);
  if (rec.chunks.empty() || rec.chunks.back().used + bytes > rec.chunks.back().size) {
    CaptureChunk c;
    c.size = std::max(kChunkBytes, bytes);
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = c.size;
    bi.usage =
        VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT | VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT;
    const DeviceTable& t = d->table;
    if (t.CreateBuffer(d->device, &bi, d->alloc(), &c.buffer) != VK_SUCCESS) return false;
    VkMemoryRequirements req{};
    t.GetBufferMemoryRequirements(d->device, c.buffer, &req);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkPhysicalDeviceMemoryProperties& mp = d->capture->memory;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; ++i)
      if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) type = i;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    if (type == UINT32_MAX || t.AllocateMemory(d->device, &ai, d->alloc(), &c.memory) != VK_SUCCESS ||
        t.BindBufferMemory(d->device, c.buffer, c.memory, 0) != VK_SUCCESS ||
        t.MapMemory(d->device, c.memory, 0, VK_WHOLE_SIZE, 0, &c.mapped) != VK_SUCCESS) {
      if (c.memory) t.FreeMemory(d->device, c.memory, d->alloc());
      t.DestroyBuffer(d->device, c.buffer, d->alloc());
      return false;
    }
    rec.chunks.push_back(c);
  }
  chunk = uint32_t(rec.chunks.size() - 1);
  offset = rec.chunks.back().used;
  rec.chunks.back().used += bytes;
  return true;
}

}  // namespace

void capture_begin_recording(DeviceData* d, CommandBufferState* cb, const VkCommandBufferBeginInfo* info) {
  capture_release_recording(d, cb);
  if (!d->capture) return;
  // Secondaries: those continuing a render pass (draws outside one are never captured).
  if (!cb->primary && !(info && (info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT))) return;
  uint64_t frame = 0;
  {
    std::lock_guard lock(d->state_mutex);
    frame = d->frames.back().index;
  }
  cb->capture_begun_frame = frame;
  const CaptureFrames& frames = settings().capture;
  // A one-time recording is submitted in the frame it is made in, or the next one by an
  // application that records ahead: for recordings begun in frames 0 and 1 (before a submission
  // could show it) or once a one-time recording was seen submitted in a later frame than it began
  // in, a capture frame next is reason enough; otherwise the frame before a capture frame runs
  // unnoted (as without capture). Any other recording may be submitted again in a later capture
  // frame.
  const bool one_time = info && (info->flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
  const bool ahead = frame < 2 || d->capture->records_ahead.load(std::memory_order_relaxed);
  const bool noted = one_time ? frames.contains(frame) || (ahead && frames.contains(frame + 1)) : frames.ahead(frame);
  if (!noted) return;
  cb->capture = std::make_unique<CaptureRecording>();
  if (!cb->primary) cb->capture->open_pass = 0;  // the executing primary's pass
}

void capture_note_submission(DeviceData* d, const std::vector<VkCommandBuffer>& handles) {
  CaptureDevice& c = *d->capture;
  if (c.records_ahead.load(std::memory_order_relaxed)) return;
  const uint64_t frame = d->open_frame.load(std::memory_order_relaxed);
  for (VkCommandBuffer h : handles) {
    const CommandBufferState* cb = get_cb(h);
    if (cb && cb->primary && !cb->reusable && cb->capture_begun_frame < frame) {
      c.records_ahead.store(true, std::memory_order_relaxed);
      return;
    }
  }
}

void capture_execute_commands(CommandBufferState* cb, uint32_t count, const VkCommandBuffer* secondaries) {
  for (uint32_t i = 0; i < count; ++i) {
    CommandBufferState* s = get_cb(secondaries[i]);
    if (!s || !s->capture) continue;
    CaptureDrawNote n;
    n.secondary = s;
    n.draw.pass = cb->capture->open_pass < 0 ? 0 : uint32_t(cb->capture->open_pass);
    cb->capture->draws.push_back(std::move(n));
  }
}

void capture_release_recording(DeviceData* d, CommandBufferState* cb) {
  if (!cb->capture) return;
  const DeviceTable& t = d->table;
  for (CaptureChunk& c : cb->capture->chunks) {
    if (c.mapped) t.UnmapMemory(d->device, c.memory);
    t.DestroyBuffer(d->device, c.buffer, d->alloc());
    t.FreeMemory(d->device, c.memory, d->alloc());
  }
  for (VkQueryPool p : cb->capture->pools) t.DestroyQueryPool(d->device, p, d->alloc());
  cb->capture.reset();
}

VkPipeline capture_bind_pipeline(DeviceData* d, CommandBufferState* cb, VkPipeline pipeline) {
  cb->capture->pipeline = pipeline;  // draws are noted with the application's handle
  VkPipeline twin = VK_NULL_HANDLE;
  {
    std::lock_guard lock(d->capture->mutex);
    auto it = d->capture->pipelines.find(pipeline);
    if (it != d->capture->pipelines.end()) twin = it->second->twin;
  }
  if (!twin) return pipeline;
  // The twin has the application's create info but for the patched stages, so it is
  // compatible with everything bound and set around it, dynamic state included (the same
  // states are dynamic, so what the recording set before the bind still applies).
  cb->counters[CpuCounters::kCapturePatchedBinds]++;
  return twin;
}

void capture_begin_render_pass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb,
                               const VkRenderPassBeginInfo* begin) {
  CaptureRecording& rec = *cb->capture;
  const RenderPassInfo info = render_pass_info(d, begin->renderPass);
  CapturePassNote note;
  note.multiview = info.multiview;
  capture::RenderPass& p = note.pass;
  p.area_x = begin->renderArea.offset.x;
  p.area_y = begin->renderArea.offset.y;
  p.area_width = begin->renderArea.extent.width;
  p.area_height = begin->renderArea.extent.height;
  p.samples = info.max_samples;
  std::vector<VkImageView> views;
  if (auto* ab = find_in_chain<VkRenderPassAttachmentBeginInfo>(begin->pNext,
                                                                VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO))
    views.assign(ab->pAttachments, ab->pAttachments + ab->attachmentCount);
  std::vector<VkImage> images;
  {
    std::shared_lock lock(d->objects_mutex);
    if (views.empty()) {
      auto it = d->framebuffers.find(begin->framebuffer);
      if (it != d->framebuffers.end()) views = it->second;
    }
    for (VkImageView v : views) {
      auto it = d->view_images.find(v);
      images.push_back(it == d->view_images.end() ? VK_NULL_HANDLE : it->second);
    }
  }
  // Colour attachments in order, then depth (capture.h's RenderPass).
  std::vector<CaptureAttachmentNote> colour, depth;
  for (size_t i = 0; i < info.attachments.size(); ++i) {
    const AttachmentDesc& a = info.attachments[i];
    // Noted recordings begin the layer's store copy where there is one (recording.cpp): with
    // capture on it stores every multisampled attachment and the single-sample DONT_CARE ones.
    const bool copied = info.store_copy && (a.samples > 1 || a.store == VK_ATTACHMENT_STORE_OP_DONT_CARE);
    const VkAttachmentStoreOp store = copied ? VK_ATTACHMENT_STORE_OP_STORE : a.store;
    CaptureAttachmentNote n =
        attachment_note(d, i < images.size() ? images[i] : VK_NULL_HANDLE, a.format, a.final_layout, store);
    // The pass instance holds every subpass: an attachment's load op acts at its first use.
    note_ops(d, n, i < views.size() ? views[i] : VK_NULL_HANDLE, a.load, store);
    const bool clears = a.load == VK_ATTACHMENT_LOAD_OP_CLEAR && begin->pClearValues && i < begin->clearValueCount;
    if (n.info.kind == capture::AttachmentKind::depth) {
      p.clears_depth = a.load == VK_ATTACHMENT_LOAD_OP_CLEAR;
      if (clears) p.clear_depth = begin->pClearValues[i].depthStencil.depth;
      depth.push_back(n);
    } else {
      const VkClearColorValue cv = clears ? begin->pClearValues[i].color : VkClearColorValue{};
      p.clear_colors.push_back({cv.float32[0], cv.float32[1], cv.float32[2], cv.float32[3]});
      colour.push_back(n);
    }
  }
  note.attachments = colour;
  note.attachments.insert(note.attachments.end(), depth.begin(), depth.end());
  open_pass_queries(d, handle, cb);
  rec.open_pass = int32_t(rec.passes.size());
  rec.passes.push_back(std::move(note));
}

void capture_begin_rendering(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb,
                             const VkRenderingInfo* info) {
  CaptureRecording& rec = *cb->capture;
  CapturePassNote note;
  note.multiview = info->viewMask != 0;
  capture::RenderPass& p = note.pass;
  p.dynamic_rendering = true;
  p.area_x = info->renderArea.offset.x;
  p.area_y = info->renderArea.offset.y;
  p.area_width = info->renderArea.extent.width;
  p.area_height = info->renderArea.extent.height;
  auto image_of = [&](VkImageView v) {
    std::shared_lock lock(d->objects_mutex);
    auto it = d->view_images.find(v);
    return it == d->view_images.end() ? VK_NULL_HANDLE : it->second;
  };
  const bool resuming = info->flags & VK_RENDERING_RESUMING_BIT;
  p.resumes = resuming;
  for (uint32_t i = 0; i < info->colorAttachmentCount; ++i) {
    const VkRenderingAttachmentInfo& a = info->pColorAttachments[i];
    if (a.imageView == VK_NULL_HANDLE) continue;
    note.attachments.push_back(
        attachment_note(d, image_of(a.imageView), VK_FORMAT_UNDEFINED, a.imageLayout, a.storeOp));
    // A resumed pass continues the suspended one's contents: load.
    note_ops(d, note.attachments.back(), a.imageView, resuming ? VK_ATTACHMENT_LOAD_OP_LOAD : a.loadOp, a.storeOp);
    p.samples = std::max(p.samples, note.attachments.back().info.samples);
    const bool clears = a.loadOp == VK_ATTACHMENT_LOAD_OP_CLEAR && !resuming;
    const VkClearColorValue cv = clears ? a.clearValue.color : VkClearColorValue{};
    p.clear_colors.push_back({cv.float32[0], cv.float32[1], cv.float32[2], cv.float32[3]});
  }
  if (const VkRenderingAttachmentInfo* a = info->pDepthAttachment; a && a->imageView != VK_NULL_HANDLE) {
    note.attachments.push_back(
        attachment_note(d, image_of(a->imageView), VK_FORMAT_UNDEFINED, a->imageLayout, a->storeOp));
    note_ops(d, note.attachments.back(), a->imageView, resuming ? VK_ATTACHMENT_LOAD_OP_LOAD : a->loadOp, a->storeOp);
    if (a->loadOp == VK_ATTACHMENT_LOAD_OP_CLEAR && !resuming) {
      p.clears_depth = true;
      p.clear_depth = a->clearValue.depthStencil.depth;
    }
  }
  open_pass_queries(d, handle, cb);
  rec.open_pass = int32_t(rec.passes.size());
  rec.passes.push_back(std::move(note));
}

const VkRenderingInfo* capture_rendering_info(DeviceData* d, const VkRenderingInfo* info, VkRenderingInfo& copy,
                                              std::vector<VkRenderingAttachmentInfo>& colours,
                                              VkRenderingAttachmentInfo& depth) {
  // Stored where the application does not care, as the render pass path's copies do: the
  // attachment's contents at the end of the pass are the ones the capture reads.
  auto storable = [&](const VkRenderingAttachmentInfo& a) {
    if (a.imageView == VK_NULL_HANDLE || a.storeOp != VK_ATTACHMENT_STORE_OP_DONT_CARE) return false;
    VkImage image = VK_NULL_HANDLE;
    {
      std::shared_lock lock(d->objects_mutex);
      auto it = d->view_images.find(a.imageView);
      if (it != d->view_images.end()) image = it->second;
    }
    const CaptureImage img = image_info(d, image);
    return img.readable && texel_bytes(img.format) != 0;
  };
  const VkRenderingInfo* out = info;
  for (uint32_t i = 0; i < info->colorAttachmentCount; ++i) {
    if (!storable(info->pColorAttachments[i])) continue;
    if (out == info) {
      copy = *info;
      out = &copy;
    }
    if (colours.empty()) {
      colours.assign(info->pColorAttachments, info->pColorAttachments + info->colorAttachmentCount);
      copy.pColorAttachments = colours.data();
    }
    colours[i].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  }
  if (info->pDepthAttachment && storable(*info->pDepthAttachment)) {
    if (out == info) {
      copy = *info;
      out = &copy;
    }
    depth = *info->pDepthAttachment;
    depth.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    copy.pDepthAttachment = &depth;
  }
  return out;
}

void capture_end_pass(CommandBufferState* cb) {
  cb->capture->open_pass = -1;
  cb->capture->pass_pool = VK_NULL_HANDLE;
}

void capture_track_layout(CommandBufferState* cb, VkImage image, VkImageLayout layout) {
  for (CapturePassNote& p : cb->capture->passes)
    for (CaptureAttachmentNote& a : p.attachments)
      if (a.image == image) a.layout = layout;
}

bool capture_before_draw(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, const CaptureDrawCall& call) {
  CaptureRecording& rec = *cb->capture;
  CaptureDevice& c = *d->capture;
  CaptureDrawNote n;
  n.pipeline = rec.pipeline;
  capture::Draw& draw = n.draw;
  draw.pass = rec.open_pass < 0 ? 0 : uint32_t(rec.open_pass);
  draw.pipeline = uint64_t(reinterpret_cast<uintptr_t>(rec.pipeline));
  draw.call = call.call;
  draw.vertex_count = call.vertex_count;
  draw.instance_count = call.instance_count;
  std::shared_ptr<const CapturePipeline> pipe;
  uint32_t budget = kDefaultBudget;
  {
    std::lock_guard lock(c.mutex);
    auto it = c.pipelines.find(rec.pipeline);
    if (it != c.pipelines.end()) pipe = it->second;
    auto b = c.budgets.find(rec.pipeline);
    if (b != c.budgets.end()) budget = b->second;
  }
  if (pipe) {
    draw.shaders = pipe->shaders;
    draw.state = pipe->state;
    if (pipe->dynamic_viewport) draw.state.viewports = rec.viewports;
    if (pipe->dynamic_scissor) draw.state.scissors = rec.scissors;
    if (!draw.state.viewports.empty()) draw.state.raster.viewport = draw.state.viewports[0];
    if (!draw.state.scissors.empty()) draw.state.raster.scissor = draw.state.scissors[0];
    // Dynamic state, where the pipeline declares it (a value set before the pipeline was bound
    // still applies: Vulkan keeps dynamic state across binds of pipelines that declare it).
    ClipSpaceState& r = draw.state.raster;
    if (pipe->dynamic_cull && rec.cull >= 0) r.cull = CullMode(rec.cull & 3);
    if (pipe->dynamic_front_face && rec.front_face >= 0)
      r.front_face = rec.front_face == VK_FRONT_FACE_CLOCKWISE ? FrontFace::clockwise : FrontFace::counter_clockwise;
    if (pipe->dynamic_depth_test && rec.depth_test >= 0) r.depth.test = rec.depth_test != 0;
    if (pipe->dynamic_depth_write && rec.depth_write >= 0) r.depth.write = rec.depth_write != 0;
    if (pipe->dynamic_depth_compare && rec.depth_compare >= 0)
      r.depth.compare = CompareOp(std::min(rec.depth_compare, 7));
    if (pipe->dynamic_topology && cb->dyn_topology != kNoTopology) draw.state.application_topology = cb->dyn_topology;
  }
  // Whether transform feedback can bracket this draw, else why not.
  const bool multiview =
      rec.open_pass >= 0 && size_t(rec.open_pass) < rec.passes.size() && rec.passes[size_t(rec.open_pass)].multiview;
  const bool known_size = call.direct && pipe && !pipe->tessellation && !pipe->geometry;
  uint64_t vertices = budget;
  if (known_size) {
    const uint32_t topology = draw.state.application_topology;
    uint64_t tris = call.multi.empty() ? triangles(topology, call.vertex_count) : 0;
    for (uint32_t part : call.multi) tris += triangles(topology, part);  // each draw restarts the strip or fan
    vertices = tris * 3 * uint64_t(call.instance_count);
  }
  std::string& why = draw.skip_reason;
  if (!c.xfb)
    why = "no_transform_feedback";
  else if (!pipe)
    why = "unknown_pipeline";
  else if (!pipe->patched)
    why = pipe->skip_reason;
  else if (rec.open_pass < 0 || (cb->primary && rec.pass_pool == VK_NULL_HANDLE))
    why = "outside_render_pass";
  else if (multiview)
    why = "multiview";
  else if (known_size && triangles(draw.state.application_topology, 3) == 0)
    why = "not_triangles";
  else if (cb->primary && rec.pass_queries_used >= rec.pass_query_capacity) {
    why = "query_limit";
    // Later pass instances get twice the queries (the next eligible frame captures these
    // draws); counted in the device's summary.
    uint32_t q = c.queries_per_pass.load(std::memory_order_relaxed);
    while (q <= rec.pass_query_capacity && q < kMaxQueriesPerPass &&
           !c.queries_per_pass.compare_exchange_weak(q, std::min(rec.pass_query_capacity * 2, kMaxQueriesPerPass))) {
    }
    c.query_limit_draws.fetch_add(1, std::memory_order_relaxed);
  }
  if (why.empty() && known_size && vertices == 0) draw.captured = true;  // nothing to rasterize
  if (!why.empty() || draw.captured) {
    rec.draws.push_back(std::move(n));
    return false;
  }
  // Without a query (secondaries) a full buffer is the only sign of overflow: one triangle of
  // room more than the draw needs, so an exactly sized draw does not fill it.
  if (!cb->primary) vertices += 3;
  const VkDeviceSize max_bytes = c.xfb_props.maxTransformFeedbackBufferSize;
  vertices = std::min<uint64_t>(vertices, max_bytes / kXfbPositionStride);
  n.ids = pipe->ids;
  const VkDeviceSize position_bytes = vertices * kXfbPositionStride;
  const VkDeviceSize id_bytes = n.ids ? vertices * kXfbIdStride : 0;
  uint32_t chunk = 0;
  VkDeviceSize offset = 0;
  if (vertices == 0 || !allocate(d, rec, position_bytes + id_bytes + 16, chunk, offset)) {
    why = "out_of_memory";
    rec.draws.push_back(std::move(n));
    return false;
  }
  n.instrumented = true;
  n.chunk = chunk;
  n.position_offset = offset;
  n.id_offset = offset + position_bytes;
  n.capacity = uint32_t(vertices);
  n.counter_offset = n.id_offset + id_bytes;
  const VkBuffer buffers[2] = {rec.chunks[chunk].buffer, rec.chunks[chunk].buffer};
  const VkDeviceSize offsets[2] = {n.position_offset, n.id_offset};
  const VkDeviceSize sizes[2] = {position_bytes, id_bytes};
  c.bind_xfb(handle, 0, n.ids ? 2 : 1, buffers, offsets, sizes);
  if (cb->primary) {
    n.pool = rec.pass_pool;
    n.query = rec.pass_queries_used++;
    c.begin_query(handle, n.pool, n.query, 0, 0);
  } else {
    n.counter = true;
  }
  c.begin_xfb(handle, 0, 0, nullptr, nullptr);
  rec.draws.push_back(std::move(n));
  return true;
}

bool capture_before_multi_draw(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, bool indexed,
                               uint32_t count, const unsigned char* infos, uint32_t stride, uint32_t instances) {
  // Both info structs hold the draw's vertex (index) count second, after its first vertex (index).
  static_assert(offsetof(VkMultiDrawInfoEXT, vertexCount) == offsetof(VkMultiDrawIndexedInfoEXT, indexCount));
  std::vector<uint32_t> counts;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count && infos; ++i) {
    uint32_t n = 0;
    std::memcpy(&n, infos + size_t(i) * stride + offsetof(VkMultiDrawInfoEXT, vertexCount), sizeof n);
    counts.push_back(n);
    total += n;
  }
  CaptureDrawCall call{indexed ? capture::DrawCall::draw_multi_indexed : capture::DrawCall::draw_multi,
                       uint32_t(std::min<uint64_t>(total, UINT32_MAX)), instances, true, counts};
  return capture_before_draw(d, handle, cb, call);
}

void capture_after_draw(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb) {
  const CaptureDrawNote& n = cb->capture->draws.back();
  if (n.counter) {
    const VkBuffer counter = cb->capture->chunks[n.chunk].buffer;
    d->capture->end_xfb(handle, 0, 1, &counter, &n.counter_offset);
    return;
  }
  d->capture->end_xfb(handle, 0, 0, nullptr, nullptr);
  d->capture->end_query(handle, n.pool, n.query, 0);
}

// ---------------------------------------------------------------------------------------------
// Dynamic viewport and scissor

VKAPI_ATTR void VKAPI_CALL CmdSetViewport(VkCommandBuffer commandBuffer, uint32_t first, uint32_t count,
                                          const VkViewport* viewports) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && cb->capture) {
    auto& v = cb->capture->viewports;
    if (v.size() < first + count) v.resize(first + count);
    for (uint32_t i = 0; i < count; ++i) {
      const VkViewport& s = viewports[i];
      v[first + i] = {s.x, s.y, s.width, s.height, s.minDepth, s.maxDepth};
    }
  }
  d->table.CmdSetViewport(commandBuffer, first, count, viewports);
}

VKAPI_ATTR void VKAPI_CALL CmdSetScissor(VkCommandBuffer commandBuffer, uint32_t first, uint32_t count,
                                         const VkRect2D* scissors) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && cb->capture) {
    auto& v = cb->capture->scissors;
    if (v.size() < first + count) v.resize(first + count);
    for (uint32_t i = 0; i < count; ++i)
      v[first + i] = {scissors[i].offset.x, scissors[i].offset.y, scissors[i].extent.width, scissors[i].extent.height};
  }
  d->table.CmdSetScissor(commandBuffer, first, count, scissors);
}

// ---------------------------------------------------------------------------------------------
// Dynamic rasterization and depth state (Vulkan 1.3 core and VK_EXT_extended_dynamic_state)

namespace {

// Notes the value in a noted recording; returns the device for the call down.
DeviceData* note_state(VkCommandBuffer commandBuffer, int CaptureRecording::*field, int value) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && cb->capture) cb->capture.get()->*field = value;
  return d;
}

}  // namespace

void cmd_set_cull_mode(PFN_vkCmdSetCullMode DeviceTable::*next, VkCommandBuffer commandBuffer, VkCullModeFlags mode) {
  (note_state(commandBuffer, &CaptureRecording::cull, int(mode & 3))->table.*next)(commandBuffer, mode);
}

void cmd_set_front_face(PFN_vkCmdSetFrontFace DeviceTable::*next, VkCommandBuffer commandBuffer, VkFrontFace face) {
  (note_state(commandBuffer, &CaptureRecording::front_face, int(face))->table.*next)(commandBuffer, face);
}

void cmd_set_depth_test_enable(PFN_vkCmdSetDepthTestEnable DeviceTable::*next, VkCommandBuffer commandBuffer,
                               VkBool32 enable) {
  (note_state(commandBuffer, &CaptureRecording::depth_test, enable ? 1 : 0)->table.*next)(commandBuffer, enable);
}

void cmd_set_depth_write_enable(PFN_vkCmdSetDepthWriteEnable DeviceTable::*next, VkCommandBuffer commandBuffer,
                                VkBool32 enable) {
  (note_state(commandBuffer, &CaptureRecording::depth_write, enable ? 1 : 0)->table.*next)(commandBuffer, enable);
}

void cmd_set_depth_compare_op(PFN_vkCmdSetDepthCompareOp DeviceTable::*next, VkCommandBuffer commandBuffer,
                              VkCompareOp op) {
  (note_state(commandBuffer, &CaptureRecording::depth_compare, int(op))->table.*next)(commandBuffer, op);
}

void cmd_set_viewport_with_count(PFN_vkCmdSetViewportWithCount DeviceTable::*next, VkCommandBuffer commandBuffer,
                                 uint32_t count, const VkViewport* viewports) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && cb->capture) {
    auto& v = cb->capture->viewports;
    v.clear();  // the count is part of the state
    for (uint32_t i = 0; i < count; ++i) {
      const VkViewport& s = viewports[i];
      v.push_back({s.x, s.y, s.width, s.height, s.minDepth, s.maxDepth});
    }
  }
  (d->table.*next)(commandBuffer, count, viewports);
}

void cmd_set_scissor_with_count(PFN_vkCmdSetScissorWithCount DeviceTable::*next, VkCommandBuffer commandBuffer,
                                uint32_t count, const VkRect2D* scissors) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && cb->capture) {
    auto& v = cb->capture->scissors;
    v.clear();
    for (uint32_t i = 0; i < count; ++i)
      v.push_back({scissors[i].offset.x, scissors[i].offset.y, scissors[i].extent.width, scissors[i].extent.height});
  }
  (d->table.*next)(commandBuffer, count, scissors);
}

// ---------------------------------------------------------------------------------------------
// Mesh shading: recorded in noted recordings as not captured (transform feedback does not see
// mesh shader output), so the capture says what it left out.

namespace {

DeviceData* note_mesh_draw(VkCommandBuffer commandBuffer, capture::DrawCall call) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && cb->capture) {
    CaptureRecording& rec = *cb->capture;
    CaptureDrawNote n;
    n.pipeline = rec.pipeline;
    n.draw.pass = rec.open_pass < 0 ? 0 : uint32_t(rec.open_pass);
    n.draw.pipeline = uint64_t(reinterpret_cast<uintptr_t>(rec.pipeline));
    n.draw.call = call;
    n.draw.skip_reason = "mesh_shader";
    {
      std::lock_guard lock(d->capture->mutex);
      auto it = d->capture->pipelines.find(rec.pipeline);
      if (it != d->capture->pipelines.end()) n.draw.shaders = it->second->shaders;
    }
    rec.draws.push_back(std::move(n));
  }
  return d;
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL CmdDrawMeshTasksEXT(VkCommandBuffer commandBuffer, uint32_t x, uint32_t y, uint32_t z) {
  note_mesh_draw(commandBuffer, capture::DrawCall::draw_mesh_tasks)->table.CmdDrawMeshTasksEXT(commandBuffer, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMeshTasksIndirectEXT(VkCommandBuffer commandBuffer, VkBuffer buffer,
                                                       VkDeviceSize offset, uint32_t count, uint32_t stride) {
  note_mesh_draw(commandBuffer, capture::DrawCall::draw_mesh_tasks_indirect)
      ->table.CmdDrawMeshTasksIndirectEXT(commandBuffer, buffer, offset, count, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMeshTasksIndirectCountEXT(VkCommandBuffer commandBuffer, VkBuffer buffer,
                                                            VkDeviceSize offset, VkBuffer count_buffer,
                                                            VkDeviceSize count_offset, uint32_t max_count,
                                                            uint32_t stride) {
  note_mesh_draw(commandBuffer, capture::DrawCall::draw_mesh_tasks_indirect_count)
      ->table.CmdDrawMeshTasksIndirectCountEXT(commandBuffer, buffer, offset, count_buffer, count_offset, max_count,
                                               stride);
}

}  // namespace tessera::layer
