#include "vkutil/resources.h"

#include <string>

#include "vkutil/check.h"

namespace tessera::vkutil {

namespace {

// Dedicated memory for `requirements`, of a type with `required` flags (and `preferred` ones
// where there is such a type).
VkDeviceMemory allocate(const Device& device, const VkMemoryRequirements& requirements, VkMemoryPropertyFlags required,
                        VkMemoryPropertyFlags preferred) {
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = requirements.size;
  info.memoryTypeIndex = memory_type(device.memory, requirements.memoryTypeBits, required, preferred);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  check(vkAllocateMemory(device.device, &info, nullptr, &memory), "vkAllocateMemory");
  return memory;
}

}  // namespace

uint32_t memory_type(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type_bits, VkMemoryPropertyFlags required,
                     VkMemoryPropertyFlags preferred) {
  for (const VkMemoryPropertyFlags flags : {required | preferred, required}) {
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      if ((type_bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & flags) == flags) return i;
    }
  }
  throw Error("no memory type with property flags " + std::to_string(required) + " for type bits " +
              std::to_string(type_bits));
}

Buffer create_buffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage,
                     VkMemoryPropertyFlags memory_flags) {
  Buffer out;
  out.buffer = create_unbound_buffer(device.device, size, usage);
  try {
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(device.device, out.buffer, &requirements);
    out.memory = allocate(device, requirements, memory_flags, 0);
    check(vkBindBufferMemory(device.device, out.buffer, out.memory, 0), "vkBindBufferMemory");
    if (memory_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
      check(vkMapMemory(device.device, out.memory, 0, VK_WHOLE_SIZE, 0, &out.mapped), "vkMapMemory");
    }
  } catch (...) {
    destroy_buffer(device.device, out);
    throw;
  }
  return out;
}

void destroy_buffer(VkDevice device, Buffer& buffer) {
  // Freeing mapped memory unmaps it.
  if (buffer.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, buffer.buffer, nullptr);
  if (buffer.memory != VK_NULL_HANDLE) vkFreeMemory(device, buffer.memory, nullptr);
  buffer = Buffer{};
}

Image create_image(const Device& device, const ImageDesc& desc) {
  Image out;
  out.image = create_unbound_image(device.device, desc);
  try {
    VkMemoryRequirements requirements{};
    vkGetImageMemoryRequirements(device.device, out.image, &requirements);
    out.memory = allocate(device, requirements, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    check(vkBindImageMemory(device.device, out.image, out.memory, 0), "vkBindImageMemory");
    out.view = create_image_view(device.device, out.image, desc);
  } catch (...) {
    destroy_image(device.device, out);
    throw;
  }
  return out;
}

void destroy_image(VkDevice device, Image& image) {
  if (image.view != VK_NULL_HANDLE) vkDestroyImageView(device, image.view, nullptr);
  if (image.image != VK_NULL_HANDLE) vkDestroyImage(device, image.image, nullptr);
  if (image.memory != VK_NULL_HANDLE) vkFreeMemory(device, image.memory, nullptr);
  image = Image{};
}

VkBuffer create_unbound_buffer(VkDevice device, VkDeviceSize size, VkBufferUsageFlags usage) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  check(vkCreateBuffer(device, &info, nullptr, &buffer), "vkCreateBuffer");
  return buffer;
}

VkImage create_unbound_image(VkDevice device, const ImageDesc& desc) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = desc.format;
  info.extent = {desc.width, desc.height, 1};
  info.mipLevels = desc.levels;
  info.arrayLayers = 1;
  info.samples = desc.samples;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = desc.usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImage image = VK_NULL_HANDLE;
  check(vkCreateImage(device, &info, nullptr, &image), "vkCreateImage");
  return image;
}

VkImageView create_image_view(VkDevice device, VkImage image, const ImageDesc& desc) {
  VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  info.image = image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = desc.format;
  info.subresourceRange = {desc.aspect, 0, desc.levels, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  check(vkCreateImageView(device, &info, nullptr, &view), "vkCreateImageView");
  return view;
}

}  // namespace tessera::vkutil
