#include "vkref/device_arena.h"

#include <algorithm>
#include <string>

#include "tessera/error.h"
#include "vkutil/check.h"
#include "vkutil/resources.h"

namespace tessera::vkref {

namespace {

VkDeviceSize align_up(VkDeviceSize value, VkDeviceSize alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

MemorySlice DeviceArena::allocate(const VkMemoryRequirements& requirements, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred, const char* what) {
  const uint32_t type = context_->find_memory_type(requirements.memoryTypeBits, required, preferred);
  // Aligning every placement to bufferImageGranularity keeps linear buffers and optimal images
  // sharing a block from aliasing one granularity page.
  const VkDeviceSize alignment =
      std::max<VkDeviceSize>({requirements.alignment, 16, context_->gpu.properties.limits.bufferImageGranularity});
  if (requirements.size > context_->max_allocation_size) {
    throw Error(std::string("vkref: ") + what + " needs " + std::to_string(requirements.size) +
                " bytes, more than the device's maxMemoryAllocationSize (" +
                std::to_string(context_->max_allocation_size) + ")");
  }
  for (Block& block : blocks_) {
    if (block.type != type) continue;
    const VkDeviceSize offset = align_up(block.used, alignment);
    if (offset + requirements.size <= block.size) {
      block.used = offset + requirements.size;
      return {block.memory, offset, block.mapped ? block.mapped + offset : nullptr};
    }
  }
  Block block;
  block.type = type;
  block.size = std::min(std::max(kBlockBytes, requirements.size), context_->max_allocation_size);
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = block.size;
  info.memoryTypeIndex = type;
  const VkResult result = vkAllocateMemory(context_->gpu.device, &info, nullptr, &block.memory);
  if (result != VK_SUCCESS) {
    throw Error(std::string("vkref: cannot allocate ") + std::to_string(block.size) + " bytes of device memory for " +
                what + ": " + vkutil::result_name(result));
  }
  const VkMemoryPropertyFlags flags = context_->gpu.memory.memoryTypes[type].propertyFlags;
  if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* mapped = nullptr;
    const VkResult map_result = vkMapMemory(context_->gpu.device, block.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (map_result != VK_SUCCESS) {
      vkFreeMemory(context_->gpu.device, block.memory, nullptr);
      vkutil::check(map_result, "vkMapMemory");
    }
    block.mapped = static_cast<std::byte*>(mapped);
  }
  block.used = requirements.size;
  blocks_.push_back(block);
  return {block.memory, 0, block.mapped};
}

void DeviceArena::reset() {
  for (Block& block : blocks_) {
    if (block.mapped) vkUnmapMemory(context_->gpu.device, block.memory);
    vkFreeMemory(context_->gpu.device, block.memory, nullptr);
  }
  blocks_.clear();
}

VkDeviceSize DeviceArena::bytes_reserved() const {
  VkDeviceSize total = 0;
  for (const Block& block : blocks_) total += block.size;
  return total;
}

GpuBuffer create_buffer(VulkanContext& context, DeviceArena& arena, VkDeviceSize size, VkBufferUsageFlags usage,
                        VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred, const char* what) {
  GpuBuffer out;
  out.size = size;
  out.buffer = vkutil::create_unbound_buffer(context.gpu.device, size, usage);
  try {
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(context.gpu.device, out.buffer, &requirements);
    out.memory = arena.allocate(requirements, required, preferred, what);
    vkutil::check(vkBindBufferMemory(context.gpu.device, out.buffer, out.memory.memory, out.memory.offset),
                  "vkBindBufferMemory");
  } catch (...) {
    destroy_buffer(context, out);
    throw;
  }
  return out;
}

GpuImage create_image(VulkanContext& context, DeviceArena& arena, uint32_t width, uint32_t height, uint32_t levels,
                      VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, const char* what,
                      VkSampleCountFlagBits samples) {
  const vkutil::ImageDesc desc{width, height, levels, format, usage, aspect, samples};
  GpuImage out;
  out.image = vkutil::create_unbound_image(context.gpu.device, desc);
  try {
    VkMemoryRequirements requirements{};
    vkGetImageMemoryRequirements(context.gpu.device, out.image, &requirements);
    out.memory = arena.allocate(requirements, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what);
    vkutil::check(vkBindImageMemory(context.gpu.device, out.image, out.memory.memory, out.memory.offset),
                  "vkBindImageMemory");
    out.view = vkutil::create_image_view(context.gpu.device, out.image, desc);
  } catch (...) {
    destroy_image(context, out);
    throw;
  }
  return out;
}

void destroy_buffer(VulkanContext& context, GpuBuffer& buffer) {
  if (buffer.buffer != VK_NULL_HANDLE) vkDestroyBuffer(context.gpu.device, buffer.buffer, nullptr);
  buffer = GpuBuffer{};
}

void destroy_image(VulkanContext& context, GpuImage& image) {
  if (image.view != VK_NULL_HANDLE) vkDestroyImageView(context.gpu.device, image.view, nullptr);
  if (image.image != VK_NULL_HANDLE) vkDestroyImage(context.gpu.device, image.image, nullptr);
  image = GpuImage{};
}

}  // namespace tessera::vkref
