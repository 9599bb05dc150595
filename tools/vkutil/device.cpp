#include "vkutil/device.h"

#include <chrono>

#include "vkutil/check.h"

namespace tessera::vkutil {

Device choose_physical_device(VkInstance instance, VkQueueFlags queue_flags, const DeviceFilter& why_unusable) {
  uint32_t count = 0;
  const VkResult result = vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (result == VK_ERROR_INITIALIZATION_FAILED) {
    throw DeviceUnavailable(
        "vkEnumeratePhysicalDevices failed: VK_ERROR_INITIALIZATION_FAILED (the installed Vulkan drivers found no "
        "device; select one with VK_DRIVER_FILES / VK_ICD_FILENAMES, e.g. lavapipe's lvp_icd.*.json)");
  }
  check(result, "vkEnumeratePhysicalDevices");
  if (count == 0) {
    throw DeviceUnavailable(
        "no Vulkan physical device found; install a driver such as lavapipe (mesa-vulkan-drivers) or check "
        "VK_DRIVER_FILES / VK_ICD_FILENAMES");
  }
  std::vector<VkPhysicalDevice> devices(count);
  check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");

  std::string rejected;
  for (VkPhysicalDevice candidate : devices) {
    Device out;
    out.physical = candidate;
    vkGetPhysicalDeviceProperties(candidate, &out.properties);
    const std::string why = why_unusable ? why_unusable(candidate, out.properties) : std::string();
    if (!why.empty()) {
      rejected += std::string("\n  ") + out.properties.deviceName + ": " + why;
      continue;
    }
    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, families.data());
    uint32_t family = 0;
    while (family < family_count && (families[family].queueFlags & queue_flags) != queue_flags) ++family;
    if (family == family_count) {
      rejected += std::string("\n  ") + out.properties.deviceName + ": no queue family with flags " +
                  std::to_string(queue_flags);
      continue;
    }
    out.queue_family = family;
    vkGetPhysicalDeviceMemoryProperties(candidate, &out.memory);
    return out;
  }
  throw DeviceUnavailable("no usable Vulkan device among " + std::to_string(count) + ":" + rejected);
}

void create_device(Device& device, const DeviceRequest& request) {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = device.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = request.next;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = uint32_t(request.extensions.size());
  info.ppEnabledExtensionNames = request.extensions.empty() ? nullptr : request.extensions.data();
  info.pEnabledFeatures = request.features;
  check(vkCreateDevice(device.physical, &info, request.allocator, &device.device), "vkCreateDevice");
  vkGetDeviceQueue(device.device, device.queue_family, 0, &device.queue);
}

VkCommandPool create_command_pool(const Device& device, VkCommandPoolCreateFlags flags) {
  VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  info.flags = flags;
  info.queueFamilyIndex = device.queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  check(vkCreateCommandPool(device.device, &info, nullptr, &pool), "vkCreateCommandPool");
  return pool;
}

VkCommandBuffer allocate_command_buffer(VkDevice device, VkCommandPool pool, VkCommandBufferLevel level) {
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = pool;
  info.level = level;
  info.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(device, &info, &cmd), "vkAllocateCommandBuffers");
  return cmd;
}

VkFence create_fence(VkDevice device) {
  VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  check(vkCreateFence(device, &info, nullptr, &fence), "vkCreateFence");
  return fence;
}

double submit_and_wait(const Device& device, VkCommandBuffer cmd, VkFence fence) {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  const auto start = std::chrono::steady_clock::now();
  check(vkQueueSubmit(device.queue, 1, &submit, fence), "vkQueueSubmit");
  if (fence != VK_NULL_HANDLE) {
    check(vkWaitForFences(device.device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  } else {
    check(vkQueueWaitIdle(device.queue), "vkQueueWaitIdle");
  }
  const auto end = std::chrono::steady_clock::now();
  if (fence != VK_NULL_HANDLE) check(vkResetFences(device.device, 1, &fence), "vkResetFences");
  return std::chrono::duration<double, std::milli>(end - start).count();
}

VkShaderModule create_shader_module(VkDevice device, std::span<const uint32_t> spirv) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = spirv.size_bytes();
  info.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  check(vkCreateShaderModule(device, &info, nullptr, &module), "vkCreateShaderModule");
  return module;
}

}  // namespace tessera::vkutil
