// Device memory for the reference renderer: a linear sub-allocator that places many buffers
// and images in a few VkDeviceMemory blocks (drivers cap the number of allocations), plus
// buffer/image helpers bound to it. Private to tools/vkref.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <vector>

#include "vkref/vk_context.h"

namespace tessera::vkref {

// A range inside one VkDeviceMemory block.
struct MemorySlice {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;      // bytes into `memory`
  std::byte* mapped = nullptr;  // host address of `offset`; null unless host-visible
};

// Linear sub-allocator. Blocks are kBlockBytes, or exactly one resource's size when larger;
// everything is freed at once by reset(). Host-visible blocks are mapped for their lifetime.
class DeviceArena {
 public:
  static constexpr VkDeviceSize kBlockBytes = VkDeviceSize(64) << 20;

  explicit DeviceArena(VulkanContext& context) : context_(&context) {}
  ~DeviceArena() { reset(); }
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  // Places a resource; `what` names it in the error thrown when memory runs out or the
  // resource is larger than the device's maxMemoryAllocationSize.
  MemorySlice allocate(const VkMemoryRequirements& requirements, VkMemoryPropertyFlags required,
                       VkMemoryPropertyFlags preferred, const char* what);
  // Frees every block. Buffers and images bound to them must already be destroyed.
  void reset();
  // Bytes of device memory held by this arena's blocks.
  VkDeviceSize bytes_reserved() const;

 private:
  struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint32_t type = 0;
    VkDeviceSize size = 0;  // bytes
    VkDeviceSize used = 0;  // bytes, bump pointer
    std::byte* mapped = nullptr;
  };
  VulkanContext* context_;
  std::vector<Block> blocks_;
};

struct GpuBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize size = 0;  // bytes
  MemorySlice memory;
};

struct GpuImage {
  VkImage image = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  MemorySlice memory;
};

// Creates a buffer of `size` bytes bound to arena memory.
GpuBuffer create_buffer(VulkanContext& context, DeviceArena& arena, VkDeviceSize size, VkBufferUsageFlags usage,
                        VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred, const char* what);
// Creates a 2D optimal-tiling image with `levels` mip levels (or `samples` samples per pixel)
// and a view of all of them.
GpuImage create_image(VulkanContext& context, DeviceArena& arena, uint32_t width, uint32_t height, uint32_t levels,
                      VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, const char* what,
                      VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT);
void destroy_buffer(VulkanContext& context, GpuBuffer& buffer);
void destroy_image(VulkanContext& context, GpuImage& image);

}  // namespace tessera::vkref
