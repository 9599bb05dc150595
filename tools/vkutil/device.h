// A physical device, the logical device on it with one queue, and the command helpers every
// program on it needs: pools, command buffers, fences, one submission waited for, shader
// modules.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tessera::vkutil {

// Plain handles, destroyed by the program (vkDestroyDevice) where its order of teardown says.
struct Device {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  uint32_t queue_family = 0;
  VkDevice device = VK_NULL_HANDLE;  // set by create_device()
  VkQueue queue = VK_NULL_HANDLE;    // queue 0 of queue_family, set by create_device()
};

// Why a physical device does not suit the program, or an empty string when it does.
using DeviceFilter = std::function<std::string(VkPhysicalDevice, const VkPhysicalDeviceProperties&)>;

// The first physical device that `why_unusable` accepts (every one when empty) and that has a
// queue family with all of `queue_flags`, with the first such family. Throws DeviceUnavailable
// when there is none, naming each device and why it was passed over.
Device choose_physical_device(VkInstance instance, VkQueueFlags queue_flags, const DeviceFilter& why_unusable = {});

struct DeviceRequest {
  const void* next = nullptr;  // VkDeviceCreateInfo::pNext, e.g. a VkPhysicalDeviceFeatures2 chain
  const VkPhysicalDeviceFeatures* features = nullptr;  // pEnabledFeatures (none with `next` features)
  std::vector<const char*> extensions;
  const VkAllocationCallbacks* allocator = nullptr;
};

// Creates `device.device` with one queue of `device.queue_family` and fetches that queue.
void create_device(Device& device, const DeviceRequest& request);

VkCommandPool create_command_pool(const Device& device, VkCommandPoolCreateFlags flags);
VkCommandBuffer allocate_command_buffer(VkDevice device, VkCommandPool pool,
                                        VkCommandBufferLevel level = VK_COMMAND_BUFFER_LEVEL_PRIMARY);
VkFence create_fence(VkDevice device);  // unsignalled

// Submits `cmd` alone and blocks until the queue has run it: on `fence`, which is unsignalled
// again afterwards, or with no fence until the queue is idle. Returns the milliseconds from just
// before vkQueueSubmit to the end of the wait.
double submit_and_wait(const Device& device, VkCommandBuffer cmd, VkFence fence = VK_NULL_HANDLE);

// A shader module of SPIR-V words (glslc -mfmt=c output embedded in the program).
VkShaderModule create_shader_module(VkDevice device, std::span<const uint32_t> spirv);

}  // namespace tessera::vkutil
