// Headless Vulkan context for the reference renderer: instance, one physical device with a
// graphics queue, a logical device, a command pool and a fence for blocking submissions.
// No surface and no swapchain. Private to tools/vkref.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <string>

namespace tessera::vkref {

// Name of a VkResult ("VK_ERROR_DEVICE_LOST"), or its number when unknown.
std::string vk_result_name(VkResult result);

// Throws tessera::Error naming the call and the result when `result` is not VK_SUCCESS.
void check_vk(VkResult result, const char* call);

struct ContextOptions {
  // Loads VK_LAYER_KHRONOS_validation and routes its warnings and errors to
  // on_validation_message (stderr when empty). Throws if the layer is not installed.
  bool validation = false;
  std::function<void(const std::string&)> on_validation_message;
  // Only devices whose name contains this text are considered; empty accepts any.
  std::string device_name_contains;
};

class VulkanContext {
 public:
  VulkanContext() = default;
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  // Creates everything; throws tessera::Error when no usable device exists. After a throw the
  // destructor still releases what was created.
  void init(const ContextOptions& options);

  // Memory type index with all `required` flags (and all `preferred` ones when such a type
  // exists) among `type_bits`; throws tessera::Error when there is none.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                            VkMemoryPropertyFlags preferred) const;

  // Submits one command buffer and blocks until the queue has executed it. Returns the
  // milliseconds from just before vkQueueSubmit to the fence being seen signalled.
  double submit_and_wait(VkCommandBuffer cmd);

  // Allocates a primary command buffer from the context's pool.
  VkCommandBuffer allocate_command_buffer();

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;  // unsignalled between submissions

  VkPhysicalDeviceProperties properties{};
  // Optional features enabled on `device`: tessellationShader, pipelineStatisticsQuery.
  VkPhysicalDeviceFeatures enabled_features{};
  VkPhysicalDeviceMemoryProperties memory_properties{};
  VkDeviceSize max_allocation_size = 0;  // bytes, VkPhysicalDeviceMaintenance3Properties

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

  void create_instance();
  void pick_physical_device();
  void create_device();

  ContextOptions options_;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
};

}  // namespace tessera::vkref
