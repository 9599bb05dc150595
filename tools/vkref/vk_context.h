// Headless Vulkan context for the reference renderer on tools/vkutil: instance, one physical
// device that renders what vkref draws (formats, Vulkan 1.1), a logical device with a graphics
// queue, a command pool and a fence for blocking submissions. No surface and no swapchain.
// Private to tools/vkref.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "vkref/reference_renderer.h"
#include "vkutil/device.h"
#include "vkutil/instance.h"

namespace tessera::vkref {

class VulkanContext {
 public:
  VulkanContext() = default;
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  // Creates everything; throws tessera::Error when no usable device exists. After a throw the
  // destructor still releases what was created.
  void init(const DeviceOptions& options);

  // Memory type index with all `required` flags (and all `preferred` ones when such a type
  // exists) among `type_bits`; throws tessera::Error when there is none.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;

  // Submits one command buffer and blocks until the queue has executed it. Returns the
  // milliseconds from just before vkQueueSubmit to the fence being seen signalled.
  double submit_and_wait(VkCommandBuffer cmd);

  // Allocates a primary command buffer from the context's pool.
  VkCommandBuffer allocate_command_buffer();

  vkutil::Device gpu;  // physical device, properties, memory types, device and queue
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;  // unsignalled between submissions

  // Optional features enabled on the device: tessellationShader, pipelineStatisticsQuery.
  VkPhysicalDeviceFeatures enabled_features{};
  VkDeviceSize max_allocation_size = 0;  // bytes, VkPhysicalDeviceMaintenance3Properties

 private:
  DeviceOptions options_;
  vkutil::MessageLog validation_log_;  // outlives instance_
  vkutil::Instance instance_;
};

}  // namespace tessera::vkref
