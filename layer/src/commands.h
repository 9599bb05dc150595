// The commands the layer intercepts or calls, written once. Each X-list entry is one of:
//   INTERCEPT(name)        the layer defines `name` (declared here from PFN_vk<name>);
//   SHARED(name, body)     core, KHR, EXT and AMD names of one command share `body`, which takes the
//                          next layer's entry of the name called as its first argument;
//   CALL(name)             the layer only calls the next layer's entry.
// From the lists come the dispatch tables (filled from the next layer's vkGet*ProcAddr; an entry
// it does not provide stays null and the layer then does not expose its intercept either), the
// declarations of the intercepts, and the name -> function lookup of dispatch.cpp. Adding an
// intercept is one line here plus its definition. Written by hand (not generated from vk.xml):
// every command not listed is returned straight from the next layer.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <type_traits>

#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

namespace tessera::layer {

// vkCreateInstance, vkGetInstanceProcAddr and vkGetDeviceProcAddr are the loader interface
// (dispatch.cpp, device.cpp), not entries of these lists' lookups.
// clang-format off
#define TESSERA_INSTANCE_COMMANDS(INTERCEPT, SHARED, CALL)                                                             \
  INTERCEPT(DestroyInstance) INTERCEPT(CreateDevice) INTERCEPT(EnumerateDeviceExtensionProperties)                     \
  CALL(GetPhysicalDeviceFeatures) CALL(GetPhysicalDeviceProperties) CALL(GetPhysicalDeviceQueueFamilyProperties)       \
  CALL(GetPhysicalDeviceMemoryProperties) CALL(GetPhysicalDeviceFormatProperties) CALL(GetPhysicalDeviceFeatures2)  \
  CALL(GetPhysicalDeviceProperties2) CALL(GetPhysicalDeviceFeatures2KHR) CALL(GetPhysicalDeviceProperties2KHR)
// clang-format on

// clang-format off
#define TESSERA_DEVICE_COMMANDS(INTERCEPT, SHARED, CALL)                                                               \
  CALL(GetDeviceProcAddr) INTERCEPT(DestroyDevice)                                                                     \
  /* command pools and buffers (command_buffers.cpp) */                                                                \
  INTERCEPT(CreateCommandPool) INTERCEPT(DestroyCommandPool) INTERCEPT(ResetCommandPool)                               \
  INTERCEPT(AllocateCommandBuffers) INTERCEPT(FreeCommandBuffers) INTERCEPT(BeginCommandBuffer)                        \
  INTERCEPT(EndCommandBuffer) INTERCEPT(ResetCommandBuffer) INTERCEPT(CmdExecuteCommands)                              \
  /* objects (objects.cpp) */                                                                                          \
  INTERCEPT(CreateGraphicsPipelines) INTERCEPT(DestroyPipeline)                                                        \
  INTERCEPT(CreateRenderPass) SHARED(CreateRenderPass2, create_render_pass2)                                           \
  SHARED(CreateRenderPass2KHR, create_render_pass2) INTERCEPT(DestroyRenderPass)                                       \
  INTERCEPT(CreateImage) INTERCEPT(DestroyImage) INTERCEPT(CreateImageView) INTERCEPT(DestroyImageView)                \
  INTERCEPT(CreateFramebuffer) INTERCEPT(DestroyFramebuffer) INTERCEPT(GetDeviceQueue)                                 \
  INTERCEPT(GetDeviceQueue2) INTERCEPT(CreateQueryPool) INTERCEPT(DestroyQueryPool)                                    \
  INTERCEPT(CreateSwapchainKHR) INTERCEPT(DestroySwapchainKHR)                                                         \
  /* recording (recording.cpp) */                                                                                      \
  INTERCEPT(CmdBindPipeline) SHARED(CmdSetPrimitiveTopology, cmd_set_primitive_topology)                               \
  SHARED(CmdSetPrimitiveTopologyEXT, cmd_set_primitive_topology) INTERCEPT(CmdSetPatchControlPointsEXT)                \
  INTERCEPT(CmdBeginRenderPass) SHARED(CmdBeginRenderPass2, cmd_begin_render_pass2)                                    \
  SHARED(CmdBeginRenderPass2KHR, cmd_begin_render_pass2) INTERCEPT(CmdNextSubpass)                                     \
  SHARED(CmdNextSubpass2, cmd_next_subpass2) SHARED(CmdNextSubpass2KHR, cmd_next_subpass2)                             \
  INTERCEPT(CmdEndRenderPass) SHARED(CmdEndRenderPass2, cmd_end_render_pass2)                                          \
  SHARED(CmdEndRenderPass2KHR, cmd_end_render_pass2) SHARED(CmdBeginRendering, cmd_begin_rendering)                    \
  SHARED(CmdBeginRenderingKHR, cmd_begin_rendering) SHARED(CmdEndRendering, cmd_end_rendering)                         \
  SHARED(CmdEndRenderingKHR, cmd_end_rendering)                                                                        \
  INTERCEPT(CmdDraw) INTERCEPT(CmdDrawIndexed) INTERCEPT(CmdDrawIndirect) INTERCEPT(CmdDrawIndexedIndirect)            \
  SHARED(CmdDrawIndirectCount, cmd_draw_indirect_count) SHARED(CmdDrawIndirectCountKHR, cmd_draw_indirect_count)       \
  SHARED(CmdDrawIndirectCountAMD, cmd_draw_indirect_count)                                                             \
  SHARED(CmdDrawIndexedIndirectCount, cmd_draw_indexed_indirect_count)                                                 \
  SHARED(CmdDrawIndexedIndirectCountKHR, cmd_draw_indexed_indirect_count)                                              \
  SHARED(CmdDrawIndexedIndirectCountAMD, cmd_draw_indexed_indirect_count)                                              \
  INTERCEPT(CmdDrawMultiEXT) INTERCEPT(CmdDrawMultiIndexedEXT) INTERCEPT(CmdDispatch)                                  \
  INTERCEPT(CmdDispatchIndirect) SHARED(CmdDispatchBase, cmd_dispatch_base)                                            \
  SHARED(CmdDispatchBaseKHR, cmd_dispatch_base) INTERCEPT(CmdBeginQuery) INTERCEPT(CmdEndQuery)                        \
  INTERCEPT(CmdPipelineBarrier) SHARED(CmdPipelineBarrier2, cmd_pipeline_barrier2)                                     \
  SHARED(CmdPipelineBarrier2KHR, cmd_pipeline_barrier2)                                                                \
  /* submission and frame boundaries (frames.cpp) */                                                                   \
  INTERCEPT(QueueSubmit) SHARED(QueueSubmit2, queue_submit2) SHARED(QueueSubmit2KHR, queue_submit2)                    \
  INTERCEPT(QueuePresentKHR) INTERCEPT(QueueInsertDebugUtilsLabelEXT)                                                  \
  /* called only: pipeline statistics (queries.cpp) and MSAA read-back (msaa_readback.cpp) */                          \
  CALL(CreateComputePipelines) CALL(GetQueryPoolResults) CALL(CmdResetQueryPool) CALL(CmdWriteTimestamp)            \
  /* frame capture (capture*.cpp; the HUD calls the swapchain and shader module ones too) */                           \
  INTERCEPT(CreateShaderModule) INTERCEPT(DestroyShaderModule) INTERCEPT(GetSwapchainImagesKHR)                        \
  INTERCEPT(CmdSetViewport) INTERCEPT(CmdSetScissor) CALL(CmdCopyImageToBuffer) CALL(QueueWaitIdle)                    \
  SHARED(CmdSetCullMode, cmd_set_cull_mode) SHARED(CmdSetCullModeEXT, cmd_set_cull_mode)                               \
  SHARED(CmdSetFrontFace, cmd_set_front_face) SHARED(CmdSetFrontFaceEXT, cmd_set_front_face)                           \
  SHARED(CmdSetDepthTestEnable, cmd_set_depth_test_enable)                                                             \
  SHARED(CmdSetDepthTestEnableEXT, cmd_set_depth_test_enable)                                                          \
  SHARED(CmdSetDepthWriteEnable, cmd_set_depth_write_enable)                                                           \
  SHARED(CmdSetDepthWriteEnableEXT, cmd_set_depth_write_enable)                                                        \
  SHARED(CmdSetDepthCompareOp, cmd_set_depth_compare_op) SHARED(CmdSetDepthCompareOpEXT, cmd_set_depth_compare_op)     \
  SHARED(CmdSetViewportWithCount, cmd_set_viewport_with_count)                                                         \
  SHARED(CmdSetViewportWithCountEXT, cmd_set_viewport_with_count)                                                      \
  SHARED(CmdSetScissorWithCount, cmd_set_scissor_with_count)                                                           \
  SHARED(CmdSetScissorWithCountEXT, cmd_set_scissor_with_count)                                                        \
  INTERCEPT(CmdDrawMeshTasksEXT) INTERCEPT(CmdDrawMeshTasksIndirectEXT) INTERCEPT(CmdDrawMeshTasksIndirectCountEXT)    \
  CALL(CreateDescriptorSetLayout) CALL(DestroyDescriptorSetLayout) CALL(CreatePipelineLayout)                          \
  CALL(DestroyPipelineLayout) CALL(CreateDescriptorPool) CALL(DestroyDescriptorPool)                                   \
  CALL(AllocateDescriptorSets) CALL(FreeDescriptorSets) CALL(UpdateDescriptorSets) CALL(CreateSampler)                 \
  CALL(DestroySampler) CALL(CreateBuffer) CALL(DestroyBuffer) CALL(GetBufferMemoryRequirements)                        \
  CALL(AllocateMemory) CALL(FreeMemory) CALL(BindBufferMemory) CALL(MapMemory) CALL(UnmapMemory)                       \
  CALL(CreateFence) CALL(DestroyFence) CALL(GetFenceStatus) CALL(WaitForFences) CALL(CmdBindDescriptorSets)            \
  CALL(CmdPushConstants)                                                                                               \
  /* called only: the HUD (hud.cpp) */                                                                                 \
  CALL(CreateSemaphore) CALL(DestroySemaphore) CALL(ResetFences)
// clang-format on

#define TESSERA_TABLE_ENTRY(name) PFN_vk##name name = nullptr;
#define TESSERA_SHARED_TABLE_ENTRY(name, body) TESSERA_TABLE_ENTRY(name)
#define TESSERA_LOAD_ENTRY(name) name = reinterpret_cast<PFN_vk##name>(gpa(handle, "vk" #name));
#define TESSERA_SHARED_LOAD_ENTRY(name, body) TESSERA_LOAD_ENTRY(name)

struct InstanceTable {
  PFN_vkGetInstanceProcAddr GetInstanceProcAddr = nullptr;
  TESSERA_INSTANCE_COMMANDS(TESSERA_TABLE_ENTRY, TESSERA_SHARED_TABLE_ENTRY, TESSERA_TABLE_ENTRY)

  void load(VkInstance handle, PFN_vkGetInstanceProcAddr gpa) {
    GetInstanceProcAddr = gpa;
    TESSERA_INSTANCE_COMMANDS(TESSERA_LOAD_ENTRY, TESSERA_SHARED_LOAD_ENTRY, TESSERA_LOAD_ENTRY)
  }
};

struct DeviceTable {
  TESSERA_DEVICE_COMMANDS(TESSERA_TABLE_ENTRY, TESSERA_SHARED_TABLE_ENTRY, TESSERA_TABLE_ENTRY)

  void load(VkDevice handle, PFN_vkGetDeviceProcAddr gpa) {
    TESSERA_DEVICE_COMMANDS(TESSERA_LOAD_ENTRY, TESSERA_SHARED_LOAD_ENTRY, TESSERA_LOAD_ENTRY)
    GetDeviceProcAddr = gpa;
  }
};

// The body of a SHARED intercept: the command's parameters after the next layer's entry (a
// member of DeviceTable) of the name the application called.
template <typename Fn>
struct WithNext;
template <typename R, typename... Args>
struct WithNext<R(Args...)> {
  using type = R(R (*DeviceTable::*next)(Args...), Args...);
};

// The entry point of a SHARED intercept: `Body` with the next layer's entry `Next`.
template <auto Body, auto Next, typename Fn>
struct SharedIntercept;
template <auto Body, auto Next, typename R, typename... Args>
struct SharedIntercept<Body, Next, R(Args...)> {
  static VKAPI_ATTR R VKAPI_CALL call(Args... args) { return Body(Next, args...); }
};

// Declarations of every intercept (functions declared through their PFN's function type).
#define TESSERA_DECLARE_INTERCEPT(name) std::remove_pointer_t<PFN_vk##name> name;
#define TESSERA_DECLARE_SHARED(name, body) WithNext<std::remove_pointer_t<PFN_vk##name>>::type body;
#define TESSERA_DECLARE_NOTHING(name)
TESSERA_INSTANCE_COMMANDS(TESSERA_DECLARE_INTERCEPT, TESSERA_DECLARE_SHARED, TESSERA_DECLARE_NOTHING)
TESSERA_DEVICE_COMMANDS(TESSERA_DECLARE_INTERCEPT, TESSERA_DECLARE_SHARED, TESSERA_DECLARE_NOTHING)
#undef TESSERA_DECLARE_INTERCEPT
#undef TESSERA_DECLARE_SHARED
#undef TESSERA_DECLARE_NOTHING
#undef TESSERA_TABLE_ENTRY
#undef TESSERA_SHARED_TABLE_ENTRY
#undef TESSERA_LOAD_ENTRY
#undef TESSERA_SHARED_LOAD_ENTRY

// The loader interface's own entry points (dispatch.cpp, device.cpp).
VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* pAllocator,
                                              VkInstance* pInstance);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name);

}  // namespace tessera::layer
