// The layer's dispatch tables: only the commands it intercepts or calls itself. They are filled
// from the next layer's vkGetInstanceProcAddr / vkGetDeviceProcAddr; an entry the next layer
// does not provide stays null and the layer then does not expose its own intercept either.
// Written by hand (not generated from vk.xml) because the list is short and each entry is
// also used by name in the intercept table of layer.cpp.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

namespace tessera::layer {

#define TESSERA_INSTANCE_COMMANDS(X)                                                                     \
  X(DestroyInstance) X(CreateDevice) X(EnumerateDeviceExtensionProperties) X(GetPhysicalDeviceFeatures) \
  X(GetPhysicalDeviceProperties) X(GetPhysicalDeviceQueueFamilyProperties)                            \
  X(GetPhysicalDeviceMemoryProperties) X(GetPhysicalDeviceFormatProperties)

#define TESSERA_DEVICE_COMMANDS(X)                                                                       \
  X(GetDeviceProcAddr) X(DestroyDevice)                                                                 \
  X(CreateCommandPool) X(DestroyCommandPool) X(ResetCommandPool)                                        \
  X(AllocateCommandBuffers) X(FreeCommandBuffers)                                                       \
  X(BeginCommandBuffer) X(EndCommandBuffer) X(ResetCommandBuffer) X(CmdExecuteCommands)                 \
  X(CreateGraphicsPipelines) X(CreateComputePipelines) X(DestroyPipeline) X(CmdBindPipeline)            \
  X(CmdSetPrimitiveTopology) X(CmdSetPrimitiveTopologyEXT) X(CmdSetPatchControlPointsEXT)               \
  X(CreateRenderPass) X(CreateRenderPass2) X(CreateRenderPass2KHR) X(DestroyRenderPass)                 \
  X(CreateImage) X(DestroyImage) X(CreateImageView) X(DestroyImageView)                                 \
  X(CmdBeginRenderPass) X(CmdBeginRenderPass2) X(CmdBeginRenderPass2KHR)                                \
  X(CmdNextSubpass) X(CmdNextSubpass2) X(CmdNextSubpass2KHR)                                            \
  X(CmdEndRenderPass) X(CmdEndRenderPass2) X(CmdEndRenderPass2KHR)                                      \
  X(CmdBeginRendering) X(CmdBeginRenderingKHR) X(CmdEndRendering) X(CmdEndRenderingKHR)                 \
  X(CmdDraw) X(CmdDrawIndexed) X(CmdDrawIndirect) X(CmdDrawIndexedIndirect)                             \
  X(CmdDrawIndirectCount) X(CmdDrawIndirectCountKHR) X(CmdDrawIndirectCountAMD)                         \
  X(CmdDrawIndexedIndirectCount) X(CmdDrawIndexedIndirectCountKHR) X(CmdDrawIndexedIndirectCountAMD)    \
  X(CmdDrawMultiEXT) X(CmdDrawMultiIndexedEXT)                                                          \
  X(CmdDispatch) X(CmdDispatchIndirect) X(CmdDispatchBase) X(CmdDispatchBaseKHR)                        \
  X(CreateQueryPool) X(DestroyQueryPool) X(GetQueryPoolResults) X(CmdBeginQuery) X(CmdEndQuery)         \
  X(QueueSubmit) X(QueueSubmit2) X(QueueSubmit2KHR) X(QueuePresentKHR) X(QueueInsertDebugUtilsLabelEXT) \
  /* MSAA read-back: the layer's own objects and commands */                                           \
  X(GetDeviceQueue) X(GetDeviceQueue2) X(CreateFramebuffer) X(DestroyFramebuffer)                       \
  X(CreateShaderModule) X(DestroyShaderModule) X(CreateDescriptorSetLayout) X(DestroyDescriptorSetLayout) \
  X(CreatePipelineLayout) X(DestroyPipelineLayout) X(CreateDescriptorPool) X(DestroyDescriptorPool)     \
  X(AllocateDescriptorSets) X(FreeDescriptorSets) X(UpdateDescriptorSets) X(CreateSampler) X(DestroySampler) \
  X(CreateBuffer) X(DestroyBuffer) X(GetBufferMemoryRequirements) X(AllocateMemory) X(FreeMemory)       \
  X(BindBufferMemory) X(MapMemory) X(UnmapMemory) X(CreateFence) X(DestroyFence) X(GetFenceStatus)      \
  X(WaitForFences) X(CmdPipelineBarrier) X(CmdPipelineBarrier2) X(CmdPipelineBarrier2KHR)              \
  X(CmdBindDescriptorSets) X(CmdPushConstants)

struct InstanceTable {
  PFN_vkGetInstanceProcAddr GetInstanceProcAddr = nullptr;
#define TESSERA_MEMBER(name) PFN_vk##name name = nullptr;
  TESSERA_INSTANCE_COMMANDS(TESSERA_MEMBER)
#undef TESSERA_MEMBER

  void load(VkInstance instance, PFN_vkGetInstanceProcAddr gipa) {
    GetInstanceProcAddr = gipa;
#define TESSERA_LOAD(name) name = reinterpret_cast<PFN_vk##name>(gipa(instance, "vk" #name));
    TESSERA_INSTANCE_COMMANDS(TESSERA_LOAD)
#undef TESSERA_LOAD
  }
};

struct DeviceTable {
#define TESSERA_MEMBER(name) PFN_vk##name name = nullptr;
  TESSERA_DEVICE_COMMANDS(TESSERA_MEMBER)
#undef TESSERA_MEMBER

  void load(VkDevice device, PFN_vkGetDeviceProcAddr gdpa) {
#define TESSERA_LOAD(name) name = reinterpret_cast<PFN_vk##name>(gdpa(device, "vk" #name));
    TESSERA_DEVICE_COMMANDS(TESSERA_LOAD)
#undef TESSERA_LOAD
    GetDeviceProcAddr = gdpa;
  }
};

}  // namespace tessera::layer
