// Memory types, and buffers and images with their memory. Each object here gets its own
// VkDeviceMemory, which suits the few small objects of a test; programs that place many objects
// in shared blocks (tools/vkref's DeviceArena) use the unbound creators and bind memory
// themselves.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "vkutil/device.h"

namespace tessera::vkutil {

// Index of the first memory type among `type_bits` with all `required` flags, preferring one
// that also has all `preferred` flags. Throws tessera::Error when there is none.
uint32_t memory_type(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type_bits, VkMemoryPropertyFlags required,
                     VkMemoryPropertyFlags preferred = 0);

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // the whole buffer, when its memory is host-visible
};

// A buffer of `size` bytes in memory with all `memory_flags`, mapped for its lifetime when
// host-visible.
Buffer create_buffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage,
                     VkMemoryPropertyFlags memory_flags);
void destroy_buffer(VkDevice device, Buffer& buffer);

// A 2D image with optimal tiling and exclusive sharing, created in layout UNDEFINED.
struct ImageDesc {
  uint32_t width = 1;
  uint32_t height = 1;
  uint32_t levels = 1;  // mip levels; the view covers all of them
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkImageUsageFlags usage = 0;
  VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;  // of the view
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
};

struct Image {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

// An image in device-local memory where there is such, with a view of all its levels.
Image create_image(const Device& device, const ImageDesc& desc);
void destroy_image(VkDevice device, Image& image);

// Buffers and images without memory, and image views, for programs that bind memory themselves.
VkBuffer create_unbound_buffer(VkDevice device, VkDeviceSize size, VkBufferUsageFlags usage);
VkImage create_unbound_image(VkDevice device, const ImageDesc& desc);
VkImageView create_image_view(VkDevice device, VkImage image, const ImageDesc& desc);

}  // namespace tessera::vkutil
