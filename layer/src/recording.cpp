// Recording: the vkCmd* commands the layer counts (draws, dispatches, render passes by sample
// count) or follows (bound pipeline, dynamic state, render pass instances, barriers, the
// application's own queries), and where the layer's query segments begin and end.

#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "layer_state.h"

namespace tessera::layer {
namespace {

// ---------------------------------------------------------------------------------------------
// CPU-side counting

uint64_t primitives_for(uint32_t topology, uint64_t n, uint32_t control_points) {
  switch (topology) {
    case 0: return n;                   // point list
    case 1: return n / 2;               // line list
    case 2: return n >= 2 ? n - 1 : 0;  // line strip
    case 3: return n / 3;               // triangle list
    case 4:
    case 5: return n >= 3 ? n - 2 : 0;                        // triangle strip, fan
    case 6: return n / 4;                                     // line list with adjacency
    case 7: return n >= 4 ? n - 3 : 0;                        // line strip with adjacency
    case 8: return n / 6;                                     // triangle list with adjacency
    case 9: return n >= 6 ? (n - 4) / 2 : 0;                  // triangle strip with adjacency
    case 10: return control_points ? n / control_points : 0;  // patch list
    default: return 0;
  }
}

// One direct draw of `n` vertices (or indices) per instance.
void count_geometry(CommandBufferState* cb, uint64_t n, uint64_t instances, bool indexed) {
  CpuCounters& c = cb->counters;
  c[CpuCounters::kInstances] += instances;
  c[CpuCounters::kVertices] += n * instances;
  if (indexed) c[CpuCounters::kIndices] += n * instances;
  const uint32_t topology =
      cb->pipe_dynamic_topology && cb->dyn_topology != kNoTopology ? cb->dyn_topology : cb->pipe_topology;
  if (topology >= kTopologyCount) return;
  const uint32_t cp = cb->pipe_dynamic_cp && cb->dyn_patch_cp ? cb->dyn_patch_cp : cb->pipe_patch_cp;
  const uint64_t prims = primitives_for(topology, n, cp) * instances;
  c[CpuCounters::topology(topology)] += prims;
  if (topology == VK_PRIMITIVE_TOPOLOGY_PATCH_LIST) {
    c[CpuCounters::kPatches] += prims;
    c[CpuCounters::kControlPoints] += prims * cp;
  }
}

// One draw command: its kind, and what the bound graphics pipeline makes of it.
void count_draw(CommandBufferState* cb, CpuCounters::Id kind) {
  CpuCounters& c = cb->counters;
  c[kind]++;
  if (cb->pipe_tessellation) c[CpuCounters::kTessellationDraws]++;
  if (cb->pipe_geometry) c[CpuCounters::kGeometryDraws]++;
  if (cb->pipe_samples > 1) c[CpuCounters::kMultisampledDraws]++;
}

uint32_t sample_bucket(uint32_t samples) {
  uint32_t b = 0;
  while ((1u << b) < samples && b + 1 < kSampleBuckets) ++b;
  return b;
}

// An indirect draw: counted as a command, its geometry is on the GPU.
template <typename Next, typename... Args>
void indirect_draw(CpuCounters::Id kind, capture::DrawCall call, Next DeviceTable::*next, VkCommandBuffer commandBuffer,
                   Args... args) {
  auto [cb, d] = recording(commandBuffer);
  bool xfb = false;
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, kind);
    if (cb->capture) xfb = capture_before_draw(d, commandBuffer, cb, {call, 0, 0, false});
  }
  (d->table.*next)(commandBuffer, args...);
  if (xfb) capture_after_draw(d, commandBuffer, cb);
}

// ---------------------------------------------------------------------------------------------
// Render pass instances

Where pass_where(bool multiview, bool secondary_contents) {
  if (secondary_contents) return Where::kSecondaryPass;
  return multiview ? Where::kNoQueryPass : Where::kInlinePass;
}

// A render pass instance begins: the segment outside it ends (a query may not span it).
void begin_pass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, uint32_t samples, VkExtent2D extent,
                Where inner, bool count, uint32_t subpasses) {
  end_segment(d, handle, cb);
  // Without host query reset, the pass's slots are reset now, before it begins (not between a
  // suspended and a resumed dynamic render pass, where no other command may lie).
  // Per-draw queries reserve a fixed number per pass: draws past it go unmeasured.
  if (inner != Where::kNoQueryPass && cb->primary && subpasses)
    reserve_slots(d, handle, cb,
                  settings().query_granularity == QueryGranularity::kDraw ? kDrawSlotsPerPass * subpasses : subpasses);
  if (count) {
    cb->counters[CpuCounters::render_passes(sample_bucket(samples))]++;
    if (samples > 1) cb->counters[CpuCounters::kMsaaCoveredPixels] += uint64_t(extent.width) * extent.height;
  }
  cb->where = inner;
}

// Returns the render pass to begin: the application's, or in read-back frames (and recordings
// noted for capture) the layer's copy storing the multisampled attachments.
VkRenderPass begin_render_pass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb,
                               const VkRenderPassBeginInfo* begin, VkSubpassContents contents) {
  RenderPassInfo info = render_pass_info(d, begin->renderPass);
  cb->render_pass = begin->renderPass;
  if (cb->capture) capture_begin_render_pass(d, handle, cb, begin);
  begin_pass(d, handle, cb, info.max_samples, begin->renderArea.extent,
             pass_where(info.multiview, contents != VK_SUBPASS_CONTENTS_INLINE), true, info.subpasses);
  // A recording noted for capture runs the copy too: the capture reads its multisampled attachments.
  if (!msaa_on()) return info.store_copy && cb->capture ? info.store_copy : begin->renderPass;
  const bool stored_copy = info.store_copy && (readback_frame(d) || cb->capture);
  add_pass_targets(d, cb, begin, info, stored_copy);
  return stored_copy ? info.store_copy : begin->renderPass;
}

void next_subpass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, VkSubpassContents contents) {
  end_segment(d, handle, cb);  // a query begun in a subpass ends in the same subpass
  cb->where = pass_where(render_pass_info(d, cb->render_pass).multiview, contents != VK_SUBPASS_CONTENTS_INLINE);
}

void end_pass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb) {
  end_segment(d, handle, cb);
  if (cb->capture) capture_end_pass(cb);
  cb->where = Where::kOutside;
  cb->render_pass = VK_NULL_HANDLE;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Draws and dispatches

VKAPI_ATTR void VKAPI_CALL CmdDraw(VkCommandBuffer commandBuffer, uint32_t vertexCount, uint32_t instanceCount,
                                   uint32_t firstVertex, uint32_t firstInstance) {
  auto [cb, d] = recording(commandBuffer);
  bool xfb = false;
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, CpuCounters::kDraw);
    count_geometry(cb, vertexCount, instanceCount, false);
    if (cb->capture)
      xfb = capture_before_draw(d, commandBuffer, cb, {capture::DrawCall::draw, vertexCount, instanceCount, true});
  }
  d->table.CmdDraw(commandBuffer, vertexCount, instanceCount, firstVertex, firstInstance);
  if (xfb) capture_after_draw(d, commandBuffer, cb);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndexed(VkCommandBuffer commandBuffer, uint32_t indexCount, uint32_t instanceCount,
                                          uint32_t firstIndex, int32_t vertexOffset, uint32_t firstInstance) {
  auto [cb, d] = recording(commandBuffer);
  bool xfb = false;
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, CpuCounters::kDrawIndexed);
    count_geometry(cb, indexCount, instanceCount, true);
    if (cb->capture)
      xfb =
          capture_before_draw(d, commandBuffer, cb, {capture::DrawCall::draw_indexed, indexCount, instanceCount, true});
  }
  d->table.CmdDrawIndexed(commandBuffer, indexCount, instanceCount, firstIndex, vertexOffset, firstInstance);
  if (xfb) capture_after_draw(d, commandBuffer, cb);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndirect(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset,
                                           uint32_t drawCount, uint32_t stride) {
  indirect_draw(CpuCounters::kDrawIndirect, capture::DrawCall::draw_indirect, &DeviceTable::CmdDrawIndirect,
                commandBuffer, buffer, offset, drawCount, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndexedIndirect(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset,
                                                  uint32_t drawCount, uint32_t stride) {
  indirect_draw(CpuCounters::kDrawIndexedIndirect, capture::DrawCall::draw_indexed_indirect,
                &DeviceTable::CmdDrawIndexedIndirect, commandBuffer, buffer, offset, drawCount, stride);
}

void cmd_draw_indirect_count(PFN_vkCmdDrawIndirectCount DeviceTable::*next, VkCommandBuffer commandBuffer,
                             VkBuffer buffer, VkDeviceSize offset, VkBuffer countBuffer, VkDeviceSize countBufferOffset,
                             uint32_t maxDrawCount, uint32_t stride) {
  indirect_draw(CpuCounters::kDrawIndirectCount, capture::DrawCall::draw_indirect_count, next, commandBuffer, buffer,
                offset, countBuffer, countBufferOffset, maxDrawCount, stride);
}

void cmd_draw_indexed_indirect_count(PFN_vkCmdDrawIndexedIndirectCount DeviceTable::*next,
                                     VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset,
                                     VkBuffer countBuffer, VkDeviceSize countBufferOffset, uint32_t maxDrawCount,
                                     uint32_t stride) {
  indirect_draw(CpuCounters::kDrawIndexedIndirectCount, capture::DrawCall::draw_indexed_indirect_count, next,
                commandBuffer, buffer, offset, countBuffer, countBufferOffset, maxDrawCount, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMultiEXT(VkCommandBuffer commandBuffer, uint32_t drawCount,
                                           const VkMultiDrawInfoEXT* pVertexInfo, uint32_t instanceCount,
                                           uint32_t firstInstance, uint32_t stride) {
  auto [cb, d] = recording(commandBuffer);
  bool xfb = false;
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, CpuCounters::kDrawMulti);
    auto* p = reinterpret_cast<const unsigned char*>(pVertexInfo);
    for (uint32_t i = 0; i < drawCount && p; ++i)
      count_geometry(cb, reinterpret_cast<const VkMultiDrawInfoEXT*>(p + size_t(i) * stride)->vertexCount,
                     instanceCount, false);
    if (cb->capture) xfb = capture_before_multi_draw(d, commandBuffer, cb, false, drawCount, p, stride, instanceCount);
  }
  d->table.CmdDrawMultiEXT(commandBuffer, drawCount, pVertexInfo, instanceCount, firstInstance, stride);
  if (xfb) capture_after_draw(d, commandBuffer, cb);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMultiIndexedEXT(VkCommandBuffer commandBuffer, uint32_t drawCount,
                                                  const VkMultiDrawIndexedInfoEXT* pIndexInfo, uint32_t instanceCount,
                                                  uint32_t firstInstance, uint32_t stride,
                                                  const int32_t* pVertexOffset) {
  auto [cb, d] = recording(commandBuffer);
  bool xfb = false;
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    count_draw(cb, CpuCounters::kDrawMultiIndexed);
    auto* p = reinterpret_cast<const unsigned char*>(pIndexInfo);
    for (uint32_t i = 0; i < drawCount && p; ++i)
      count_geometry(cb, reinterpret_cast<const VkMultiDrawIndexedInfoEXT*>(p + size_t(i) * stride)->indexCount,
                     instanceCount, true);
    if (cb->capture) xfb = capture_before_multi_draw(d, commandBuffer, cb, true, drawCount, p, stride, instanceCount);
  }
  d->table.CmdDrawMultiIndexedEXT(commandBuffer, drawCount, pIndexInfo, instanceCount, firstInstance, stride,
                                  pVertexOffset);
  if (xfb) capture_after_draw(d, commandBuffer, cb);
}

VKAPI_ATTR void VKAPI_CALL CmdDispatch(VkCommandBuffer commandBuffer, uint32_t x, uint32_t y, uint32_t z) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    cb->counters[CpuCounters::kDispatch]++;
    cb->counters[CpuCounters::kWorkgroups] += uint64_t(x) * y * z;
  }
  d->table.CmdDispatch(commandBuffer, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL CmdDispatchIndirect(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    cb->counters[CpuCounters::kDispatchIndirect]++;
  }
  d->table.CmdDispatchIndirect(commandBuffer, buffer, offset);
}

void cmd_dispatch_base(PFN_vkCmdDispatchBase DeviceTable::*next, VkCommandBuffer commandBuffer, uint32_t bx,
                       uint32_t by, uint32_t bz, uint32_t x, uint32_t y, uint32_t z) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) {
    begin_segment(d, commandBuffer, cb);
    cb->counters[CpuCounters::kDispatchBase]++;
    cb->counters[CpuCounters::kWorkgroups] += uint64_t(x) * y * z;
  }
  (d->table.*next)(commandBuffer, bx, by, bz, x, y, z);
}

// ---------------------------------------------------------------------------------------------
// Pipelines and dynamic state

VKAPI_ATTR void VKAPI_CALL CmdBindPipeline(VkCommandBuffer commandBuffer, VkPipelineBindPoint bindPoint,
                                           VkPipeline pipeline) {
  auto [cb, d] = recording(commandBuffer);
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
    // Noted recordings bind frame capture's patched twin of the pipeline (capture.h).
    if (cb->capture) pipeline = capture_bind_pipeline(d, cb, pipeline);
  }
  d->table.CmdBindPipeline(commandBuffer, bindPoint, pipeline);
}

void cmd_set_primitive_topology(PFN_vkCmdSetPrimitiveTopology DeviceTable::*next, VkCommandBuffer commandBuffer,
                                VkPrimitiveTopology topology) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) cb->dyn_topology = static_cast<uint32_t>(topology);
  (d->table.*next)(commandBuffer, topology);
}

VKAPI_ATTR void VKAPI_CALL CmdSetPatchControlPointsEXT(VkCommandBuffer commandBuffer, uint32_t points) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) cb->dyn_patch_cp = points;
  d->table.CmdSetPatchControlPointsEXT(commandBuffer, points);
}

// ---------------------------------------------------------------------------------------------
// Render passes and dynamic rendering

VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass(VkCommandBuffer commandBuffer, const VkRenderPassBeginInfo* begin,
                                              VkSubpassContents contents) {
  auto [cb, d] = recording(commandBuffer);
  VkRenderPassBeginInfo copy;
  if (cb) {
    const VkRenderPass rp = begin_render_pass(d, commandBuffer, cb, begin, contents);
    if (rp != begin->renderPass) {
      copy = *begin;
      copy.renderPass = rp;
      begin = &copy;
    }
  }
  d->table.CmdBeginRenderPass(commandBuffer, begin, contents);
}

void cmd_begin_render_pass2(PFN_vkCmdBeginRenderPass2 DeviceTable::*next, VkCommandBuffer commandBuffer,
                            const VkRenderPassBeginInfo* begin, const VkSubpassBeginInfo* subpass) {
  auto [cb, d] = recording(commandBuffer);
  VkRenderPassBeginInfo copy;
  if (cb) {
    const VkRenderPass rp = begin_render_pass(d, commandBuffer, cb, begin, subpass->contents);
    if (rp != begin->renderPass) {
      copy = *begin;
      copy.renderPass = rp;
      begin = &copy;
    }
  }
  (d->table.*next)(commandBuffer, begin, subpass);
}

VKAPI_ATTR void VKAPI_CALL CmdNextSubpass(VkCommandBuffer commandBuffer, VkSubpassContents contents) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) next_subpass(d, commandBuffer, cb, contents);
  d->table.CmdNextSubpass(commandBuffer, contents);
}

void cmd_next_subpass2(PFN_vkCmdNextSubpass2 DeviceTable::*next, VkCommandBuffer commandBuffer,
                       const VkSubpassBeginInfo* begin, const VkSubpassEndInfo* end) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) next_subpass(d, commandBuffer, cb, begin->contents);
  (d->table.*next)(commandBuffer, begin, end);
}

VKAPI_ATTR void VKAPI_CALL CmdEndRenderPass(VkCommandBuffer commandBuffer) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) end_pass(d, commandBuffer, cb);
  d->table.CmdEndRenderPass(commandBuffer);
}

void cmd_end_render_pass2(PFN_vkCmdEndRenderPass2 DeviceTable::*next, VkCommandBuffer commandBuffer,
                          const VkSubpassEndInfo* end) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) end_pass(d, commandBuffer, cb);
  (d->table.*next)(commandBuffer, end);
}

void cmd_begin_rendering(PFN_vkCmdBeginRendering DeviceTable::*next, VkCommandBuffer commandBuffer,
                         const VkRenderingInfo* info) {
  auto [cb, d] = recording(commandBuffer);
  VkRenderingInfo rendering_copy, capture_copy;
  std::vector<VkRenderingAttachmentInfo> colour_copy, capture_colours;
  VkRenderingAttachmentInfo capture_depth;
  if (cb) {
    if (cb->capture) {
      // Noted recordings store what the capture reads (resolve-style DONT_CARE attachments too).
      info = capture_rendering_info(d, info, capture_copy, capture_colours, capture_depth);
      capture_begin_rendering(d, commandBuffer, cb, info);
    }
    uint32_t samples = 1;
    {
      std::shared_lock lock(d->objects_mutex);
      auto view = [&, d = d](VkImageView v) {
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
               !(info->flags & VK_RENDERING_RESUMING_BIT), info->flags & VK_RENDERING_RESUMING_BIT ? 0 : 1);
    if (msaa_on() && samples > 1) {
      // In read-back frames a copy of the rendering info stores the multisampled colour
      // attachments the application does not (a resolve-style pass stores DONT_CARE).
      const bool store_all = readback_frame(d);
      for (uint32_t i = 0; i < info->colorAttachmentCount; ++i) {
        const VkRenderingAttachmentInfo& a = info->pColorAttachments[i];
        if (a.imageView == VK_NULL_HANDLE) continue;
        VkFormat format = VK_FORMAT_UNDEFINED;
        {
          std::shared_lock lock(d->objects_mutex);
          auto v = d->view_images.find(a.imageView);
          auto im = v == d->view_images.end() ? d->msaa_images.end() : d->msaa_images.find(v->second);
          if (im != d->msaa_images.end()) format = im->second.format;
        }
        if (format == VK_FORMAT_UNDEFINED) continue;  // not multisampled
        VkAttachmentStoreOp store = a.storeOp;
        if (store_all && store == VK_ATTACHMENT_STORE_OP_DONT_CARE && msaa_format(format)) {
          if (colour_copy.empty()) {
            colour_copy.assign(info->pColorAttachments, info->pColorAttachments + info->colorAttachmentCount);
            rendering_copy = *info;
            rendering_copy.pColorAttachments = colour_copy.data();
            info = &rendering_copy;
          }
          colour_copy[i].storeOp = store = VK_ATTACHMENT_STORE_OP_STORE;
        }
        const bool clears = a.loadOp == VK_ATTACHMENT_LOAD_OP_CLEAR && !(info->flags & VK_RENDERING_RESUMING_BIT);
        add_msaa_target(d, cb, a.imageView, a.imageLayout, clears, a.clearValue.color, format, store);
      }
    }
  }
  (d->table.*next)(commandBuffer, info);
}

void cmd_end_rendering(PFN_vkCmdEndRendering DeviceTable::*next, VkCommandBuffer commandBuffer) {
  auto [cb, d] = recording(commandBuffer);
  if (cb) end_pass(d, commandBuffer, cb);
  (d->table.*next)(commandBuffer);
}

// ---------------------------------------------------------------------------------------------
// Barriers: where the recording leaves a read-back attachment's layout

VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier(VkCommandBuffer commandBuffer, VkPipelineStageFlags src,
                                              VkPipelineStageFlags dst, VkDependencyFlags flags, uint32_t memory_count,
                                              const VkMemoryBarrier* memory, uint32_t buffer_count,
                                              const VkBufferMemoryBarrier* buffers, uint32_t image_count,
                                              const VkImageMemoryBarrier* images) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && !cb->msaa_targets.empty())
    for (uint32_t i = 0; i < image_count; ++i) track_msaa_layout(cb, images[i].image, images[i].newLayout);
  if (cb && cb->capture)
    for (uint32_t i = 0; i < image_count; ++i) capture_track_layout(cb, images[i].image, images[i].newLayout);
  d->table.CmdPipelineBarrier(commandBuffer, src, dst, flags, memory_count, memory, buffer_count, buffers, image_count,
                              images);
}

void cmd_pipeline_barrier2(PFN_vkCmdPipelineBarrier2 DeviceTable::*next, VkCommandBuffer commandBuffer,
                           const VkDependencyInfo* info) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && !cb->msaa_targets.empty())
    for (uint32_t i = 0; i < info->imageMemoryBarrierCount; ++i)
      track_msaa_layout(cb, info->pImageMemoryBarriers[i].image, info->pImageMemoryBarriers[i].newLayout);
  if (cb && cb->capture)
    for (uint32_t i = 0; i < info->imageMemoryBarrierCount; ++i)
      capture_track_layout(cb, info->pImageMemoryBarriers[i].image, info->pImageMemoryBarriers[i].newLayout);
  (d->table.*next)(commandBuffer, info);
}

// ---------------------------------------------------------------------------------------------
// The application's own queries

VKAPI_ATTR void VKAPI_CALL CmdBeginQuery(VkCommandBuffer commandBuffer, VkQueryPool pool, uint32_t query,
                                         VkQueryControlFlags flags) {
  auto [cb, d] = recording(commandBuffer);
  if (cb && is_stats_pool(d, pool)) {
    end_segment(d, commandBuffer, cb);  // two pipeline-statistics queries may not be active at once
    cb->app_stats_active = true;
  }
  d->table.CmdBeginQuery(commandBuffer, pool, query, flags);
}

VKAPI_ATTR void VKAPI_CALL CmdEndQuery(VkCommandBuffer commandBuffer, VkQueryPool pool, uint32_t query) {
  auto [cb, d] = recording(commandBuffer);
  d->table.CmdEndQuery(commandBuffer, pool, query);
  if (cb && is_stats_pool(d, pool)) cb->app_stats_active = false;
}

}  // namespace tessera::layer
