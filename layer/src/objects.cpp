// Object tracking: what the layer remembers of pipelines, render passes, images, views,
// framebuffers, queues and the application's query pools, for counting draws and passes and for
// the MSAA read-back. Maps under DeviceData::objects_mutex.

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "layer_state.h"
#include "msaa_image_plan.h"

namespace tessera::layer {

// ---------------------------------------------------------------------------------------------
// Pipelines

VKAPI_ATTR VkResult VKAPI_CALL CreateGraphicsPipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                       const VkGraphicsPipelineCreateInfo* infos,
                                                       const VkAllocationCallbacks* pAllocator, VkPipeline* pipelines) {
  DeviceData* d = get_device(device);
  VkResult r = d->capture ? capture_create_graphics_pipelines(d, device, cache, count, infos, pAllocator, pipelines)
                          : d->table.CreateGraphicsPipelines(device, cache, count, infos, pAllocator, pipelines);
  std::unique_lock lock(d->objects_mutex);
  for (uint32_t i = 0; i < count; ++i) {
    if (pipelines[i] == VK_NULL_HANDLE) continue;
    const VkGraphicsPipelineCreateInfo& ci = infos[i];
    PipelineInfo info;
    // Graphics pipeline libraries: start from what the linked libraries said.
    if (auto* libs = find_in_chain<VkPipelineLibraryCreateInfoKHR>(
            ci.pNext, VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR)) {
      for (uint32_t l = 0; l < libs->libraryCount; ++l) {
        auto it = d->pipelines.find(libs->pLibraries[l]);
        if (it == d->pipelines.end()) continue;
        const PipelineInfo& li = it->second;
        if (li.topology != kNoTopology) info.topology = li.topology;
        info.dynamic_topology |= li.dynamic_topology;
        if (li.patch_control_points) info.patch_control_points = li.patch_control_points;
        info.dynamic_patch_control_points |= li.dynamic_patch_control_points;
        info.tessellation |= li.tessellation;
        info.geometry |= li.geometry;
        if (li.samples > info.samples) info.samples = li.samples;
      }
    }
    if (ci.pInputAssemblyState) info.topology = static_cast<uint32_t>(ci.pInputAssemblyState->topology);
    if (ci.pTessellationState) info.patch_control_points = ci.pTessellationState->patchControlPoints;
    if (ci.pMultisampleState) info.samples = ci.pMultisampleState->rasterizationSamples;
    for (uint32_t s = 0; s < ci.stageCount; ++s) {
      const VkShaderStageFlagBits st = ci.pStages[s].stage;
      if (st & (VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT | VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT))
        info.tessellation = true;
      if (st & VK_SHADER_STAGE_GEOMETRY_BIT) info.geometry = true;
    }
    if (ci.pDynamicState) {
      for (uint32_t s = 0; s < ci.pDynamicState->dynamicStateCount; ++s) {
        const VkDynamicState ds = ci.pDynamicState->pDynamicStates[s];
        if (ds == VK_DYNAMIC_STATE_PRIMITIVE_TOPOLOGY) info.dynamic_topology = true;
        if (ds == VK_DYNAMIC_STATE_PATCH_CONTROL_POINTS_EXT) info.dynamic_patch_control_points = true;
      }
    }
    d->pipelines[pipelines[i]] = info;
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyPipeline(VkDevice device, VkPipeline pipeline,
                                           const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  forget(d, pipeline, d->pipelines);
  if (d->capture) capture_forget_pipeline(d, pipeline);
  d->table.DestroyPipeline(device, pipeline, pAllocator);
}

// ---------------------------------------------------------------------------------------------
// Images and views

VKAPI_ATTR VkResult VKAPI_CALL CreateImage(VkDevice device, const VkImageCreateInfo* ci,
                                           const VkAllocationCallbacks* pAllocator, VkImage* image) {
  DeviceData* d = get_device(device);
  // MSAA read-back: a multisampled colour attachment the compute shader can sample. The
  // application's create info is never written: a copy carries the extra usage bit.
  const bool msaa_colour = msaa_on() && ci->samples >= VK_SAMPLE_COUNT_2_BIT &&
                           (ci->usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) && !depth_stencil_format(ci->format);
  int reason = MsaaSkips::kNotReadable;
  VkImageCreateInfo copy, capture_copy;
  // Frame capture reads attachments: TRANSFER_SRC (single-sample) or SAMPLED (multisampled)
  // usage on a copy of the info.
  const VkImageCreateInfo* use = d->capture ? capture_image_info(d, ci, capture_copy) : ci;
  if (msaa_colour && d->instance->table.GetPhysicalDeviceFormatProperties &&
      d->instance->table.GetPhysicalDeviceMemoryProperties) {
    VkFormatProperties fp{};
    d->instance->table.GetPhysicalDeviceFormatProperties(d->physical, ci->format, &fp);
    VkPhysicalDeviceMemoryProperties mp{};
    d->instance->table.GetPhysicalDeviceMemoryProperties(d->physical, &mp);
    const MsaaImagePlan plan = plan_msaa_image(*ci, fp.optimalTilingFeatures, mp);
    reason = plan.reason;
    if (plan.usage != ci->usage) {
      copy = *ci;
      copy.usage = plan.usage;
      use = &copy;
    }
  }
  VkResult r = d->table.CreateImage(device, use, pAllocator, image);
  if (r != VK_SUCCESS && use != ci) {  // the extra usage was refused: exactly as asked, unread
    reason = MsaaSkips::kNotReadable;
    use = ci;
    r = d->table.CreateImage(device, ci, pAllocator, image);
  }
  if (r == VK_SUCCESS) {
    std::unique_lock lock(d->objects_mutex);
    d->image_samples[*image] = ci->samples;
    if (msaa_colour) d->msaa_images[*image] = {ci->format, ci->extent, uint32_t(ci->samples), reason};
  }
  if (r == VK_SUCCESS && d->capture) capture_image_created(d, *image, *ci, use->usage);
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  if (msaa_on()) wait_for_readbacks_of(d, image);
  forget(d, image, d->image_samples, d->msaa_images);
  if (d->capture) capture_forget_image(d, image);
  d->table.DestroyImage(device, image, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateImageView(VkDevice device, const VkImageViewCreateInfo* ci,
                                               const VkAllocationCallbacks* pAllocator, VkImageView* view) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateImageView(device, ci, pAllocator, view);
  if (r == VK_SUCCESS) {
    std::unique_lock lock(d->objects_mutex);
    auto it = d->image_samples.find(ci->image);
    d->view_samples[*view] = it == d->image_samples.end() ? 1 : it->second;  // swapchain images: 1
    if (msaa_on() || d->capture) d->view_images[*view] = ci->image;
    if (d->capture)
      d->view_subresources[*view] = {ci->subresourceRange.baseMipLevel, ci->subresourceRange.baseArrayLayer};
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyImageView(VkDevice device, VkImageView view,
                                            const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  forget(d, view, d->view_samples, d->view_images, d->view_subresources);
  d->table.DestroyImageView(device, view, pAllocator);
}

// ---------------------------------------------------------------------------------------------
// Render passes

namespace {

// Which attachments a store copy stores: multisampled ones of a format the MSAA read-back
// reads, and with frame capture on every one (capture reads single-sample attachments by copy,
// multisampled colour and depth per sample). Only recordings noted for capture and read-back
// frames begin the copy, so other frames store what the application asked.
template <typename Attachment>
bool stored_by_copy(const Attachment& a) {
  return capture_on() || (a.samples > VK_SAMPLE_COUNT_1_BIT && msaa_on() && msaa_format(a.format));
}

// Whether a pass needs a store copy for the MSAA read-back or frame capture: such an attachment
// not stored.
// Single-sample attachments only from DONT_CARE (STORE_OP_NONE marks read-only use).
template <typename Attachment>
bool store_in_copy(const Attachment& a) {
  return stored_by_copy(a) && a.storeOp != VK_ATTACHMENT_STORE_OP_STORE &&
         (a.samples > VK_SAMPLE_COUNT_1_BIT || a.storeOp == VK_ATTACHMENT_STORE_OP_DONT_CARE);
}

template <typename Attachment>
bool wants_store_copy(const Attachment* atts, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (store_in_copy(atts[i])) return true;
  return false;
}

// The create info with those attachments stored (store ops do not affect render pass
// compatibility, so the application's framebuffers and pipelines work with the copy).
template <typename Info, typename Attachment, typename Create>
VkRenderPass make_store_copy(DeviceData* d, const Info* ci, Create create) {
  std::vector<Attachment> atts(ci->pAttachments, ci->pAttachments + ci->attachmentCount);
  for (Attachment& a : atts)
    if (store_in_copy(a)) a.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  Info copy = *ci;
  copy.pAttachments = atts.data();
  VkRenderPass rp = VK_NULL_HANDLE;
  if (create(d->device, &copy, d->alloc(), &rp) != VK_SUCCESS) return VK_NULL_HANDLE;
  return rp;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL CreateRenderPass(VkDevice device, const VkRenderPassCreateInfo* ci,
                                                const VkAllocationCallbacks* pAllocator, VkRenderPass* rp) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateRenderPass(device, ci, pAllocator, rp);
  if (r == VK_SUCCESS) {
    RenderPassInfo info;
    info.subpasses = ci->subpassCount;
    for (uint32_t i = 0; i < ci->attachmentCount; ++i) {
      const VkAttachmentDescription& a = ci->pAttachments[i];
      info.max_samples = std::max<uint32_t>(info.max_samples, a.samples);
      info.attachments.push_back({a.format, uint32_t(a.samples), a.loadOp, a.storeOp, a.finalLayout});
    }
    if (auto* mv = find_in_chain<VkRenderPassMultiviewCreateInfo>(ci->pNext,
                                                                  VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO))
      for (uint32_t i = 0; i < mv->subpassCount; ++i) info.multiview |= mv->pViewMasks[i] != 0;
    if (wants_store_copy(ci->pAttachments, ci->attachmentCount))
      info.store_copy =
          make_store_copy<VkRenderPassCreateInfo, VkAttachmentDescription>(d, ci, d->table.CreateRenderPass);
    remember(d, d->render_passes, *rp, std::move(info));
  }
  return r;
}

VkResult create_render_pass2(PFN_vkCreateRenderPass2 DeviceTable::*next, VkDevice device,
                             const VkRenderPassCreateInfo2* ci, const VkAllocationCallbacks* pAllocator,
                             VkRenderPass* rp) {
  DeviceData* d = get_device(device);
  VkResult r = (d->table.*next)(device, ci, pAllocator, rp);
  if (r == VK_SUCCESS) {
    RenderPassInfo info;
    info.subpasses = ci->subpassCount;
    for (uint32_t i = 0; i < ci->attachmentCount; ++i) {
      const VkAttachmentDescription2& a = ci->pAttachments[i];
      info.max_samples = std::max<uint32_t>(info.max_samples, a.samples);
      info.attachments.push_back({a.format, uint32_t(a.samples), a.loadOp, a.storeOp, a.finalLayout});
    }
    for (uint32_t i = 0; i < ci->subpassCount; ++i) info.multiview |= ci->pSubpasses[i].viewMask != 0;
    if (wants_store_copy(ci->pAttachments, ci->attachmentCount))
      info.store_copy = make_store_copy<VkRenderPassCreateInfo2, VkAttachmentDescription2>(d, ci, d->table.*next);
    remember(d, d->render_passes, *rp, std::move(info));
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyRenderPass(VkDevice device, VkRenderPass rp,
                                             const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  VkRenderPass store_copy = VK_NULL_HANDLE;
  {
    std::unique_lock lock(d->objects_mutex);
    auto it = d->render_passes.find(rp);
    if (it != d->render_passes.end()) {
      store_copy = it->second.store_copy;
      d->render_passes.erase(it);
    }
  }
  // The application may destroy a pass while command buffers using it are pending; so may the
  // layer its copy (a render pass is only needed while recording).
  if (store_copy) d->table.DestroyRenderPass(device, store_copy, d->alloc());
  d->table.DestroyRenderPass(device, rp, pAllocator);
}

RenderPassInfo render_pass_info(DeviceData* d, VkRenderPass rp) {
  std::shared_lock lock(d->objects_mutex);
  auto it = d->render_passes.find(rp);
  return it == d->render_passes.end() ? RenderPassInfo{} : it->second;
}

// ---------------------------------------------------------------------------------------------
// Framebuffers and queues (what the MSAA read-back needs)

VKAPI_ATTR VkResult VKAPI_CALL CreateFramebuffer(VkDevice device, const VkFramebufferCreateInfo* ci,
                                                 const VkAllocationCallbacks* pAllocator, VkFramebuffer* fb) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateFramebuffer(device, ci, pAllocator, fb);
  if (r == VK_SUCCESS && (msaa_on() || d->capture) && !(ci->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT)) {
    std::unique_lock lock(d->objects_mutex);
    d->framebuffers[*fb].assign(ci->pAttachments, ci->pAttachments + ci->attachmentCount);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyFramebuffer(VkDevice device, VkFramebuffer fb,
                                              const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  forget(d, fb, d->framebuffers);
  d->table.DestroyFramebuffer(device, fb, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue* queue) {
  DeviceData* d = get_device(device);
  d->table.GetDeviceQueue(device, family, index, queue);
  if (*queue) {
    std::unique_lock lock(d->objects_mutex);
    d->queue_families[*queue] = family;
  }
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2* info, VkQueue* queue) {
  DeviceData* d = get_device(device);
  d->table.GetDeviceQueue2(device, info, queue);
  if (*queue) {
    std::unique_lock lock(d->objects_mutex);
    d->queue_families[*queue] = info->queueFamilyIndex;
  }
}

// ---------------------------------------------------------------------------------------------
// Swapchains (the HUD draws into their images)

VKAPI_ATTR VkResult VKAPI_CALL CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR* ci,
                                                  const VkAllocationCallbacks* pAllocator, VkSwapchainKHR* swapchain) {
  DeviceData* d = get_device(device);
  VkResult r = d->capture ? capture_create_swapchain(d, device, ci, pAllocator, swapchain)
                          : d->table.CreateSwapchainKHR(device, ci, pAllocator, swapchain);
  if (r == VK_SUCCESS && settings().hud) hud_create_swapchain(d, ci, *swapchain);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL GetSwapchainImagesKHR(VkDevice device, VkSwapchainKHR swapchain, uint32_t* count,
                                                     VkImage* images) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.GetSwapchainImagesKHR(device, swapchain, count, images);
  if (d->capture && images && (r == VK_SUCCESS || r == VK_INCOMPLETE))
    capture_swapchain_images(d, swapchain, *count, images);
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                               const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  if (settings().hud && swapchain != VK_NULL_HANDLE) hud_destroy_swapchain(d, swapchain);
  if (d->capture) capture_destroy_swapchain(d, swapchain);
  d->table.DestroySwapchainKHR(device, swapchain, pAllocator);
}

// ---------------------------------------------------------------------------------------------
// The application's own query pools

VKAPI_ATTR VkResult VKAPI_CALL CreateQueryPool(VkDevice device, const VkQueryPoolCreateInfo* ci,
                                               const VkAllocationCallbacks* pAllocator, VkQueryPool* pool) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateQueryPool(device, ci, pAllocator, pool);
  if (r == VK_SUCCESS) remember(d, d->app_query_pools, *pool, ci->queryType);
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyQueryPool(VkDevice device, VkQueryPool pool,
                                            const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  forget(d, pool, d->app_query_pools);
  d->table.DestroyQueryPool(device, pool, pAllocator);
}

bool is_stats_pool(DeviceData* d, VkQueryPool pool) {
  std::shared_lock lock(d->objects_mutex);
  auto it = d->app_query_pools.find(pool);
  return it != d->app_query_pools.end() && it->second == VK_QUERY_TYPE_PIPELINE_STATISTICS;
}

}  // namespace tessera::layer
