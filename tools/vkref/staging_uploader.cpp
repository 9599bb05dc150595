#include "vkref/staging_uploader.h"

#include <algorithm>
#include <cstring>

#include "vkutil/check.h"

namespace tessera::vkref {

StagingUploader::StagingUploader(VulkanContext& context, DeviceArena& arena) : context_(&context) {
  staging_ = create_buffer(context, arena, kStagingBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0,
                           "the staging buffer");
  try {
    cmd_ = context.allocate_command_buffer();
  } catch (...) {
    destroy_buffer(context, staging_);
    throw;
  }
}

StagingUploader::~StagingUploader() {
  if (recording_) vkEndCommandBuffer(cmd_);
  if (cmd_ != VK_NULL_HANDLE) vkFreeCommandBuffers(context_->gpu.device, context_->command_pool, 1, &cmd_);
  destroy_buffer(*context_, staging_);
}

VkCommandBuffer StagingUploader::commands() {
  if (!recording_) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkutil::check(vkBeginCommandBuffer(cmd_, &begin), "vkBeginCommandBuffer");
    recording_ = true;
  }
  return cmd_;
}

void StagingUploader::flush() {
  if (recording_) {
    recording_ = false;
    vkutil::check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    context_->submit_and_wait(cmd_);
    vkutil::check(vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
  }
  cursor_ = 0;
}

VkDeviceSize StagingUploader::reserve(VkDeviceSize min_bytes, VkDeviceSize want) {
  cursor_ = (cursor_ + 15) / 16 * 16;  // texel-size and copy-offset alignment
  if (cursor_ + min_bytes > kStagingBytes) flush();
  return std::min(want, kStagingBytes - cursor_);
}

void StagingUploader::copy_to_buffer(VkBuffer dst, VkDeviceSize dst_offset, const void* data, VkDeviceSize bytes) {
  const auto* src = static_cast<const std::byte*>(data);
  while (bytes > 0) {
    const VkDeviceSize chunk = reserve(std::min<VkDeviceSize>(bytes, 4096), bytes);
    std::memcpy(staging_.memory.mapped + cursor_, src, size_t(chunk));
    VkBufferCopy region{cursor_, dst_offset, chunk};
    vkCmdCopyBuffer(commands(), staging_.buffer, dst, 1, &region);
    cursor_ += chunk;
    src += chunk;
    dst_offset += chunk;
    bytes -= chunk;
  }
}

void StagingUploader::copy_to_image(VkImage dst, uint32_t level, uint32_t width, uint32_t height,
                                    const uint32_t* texels) {
  const VkDeviceSize row_bytes = VkDeviceSize(width) * 4;
  uint32_t row = 0;
  while (row < height) {
    const VkDeviceSize available = reserve(row_bytes, row_bytes * (height - row));
    const uint32_t rows = uint32_t(available / row_bytes);
    std::memcpy(staging_.memory.mapped + cursor_, texels + size_t(row) * width, size_t(rows * row_bytes));
    VkBufferImageCopy region{};
    region.bufferOffset = cursor_;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
    region.imageOffset = {0, int32_t(row), 0};
    region.imageExtent = {width, rows, 1};
    vkCmdCopyBufferToImage(commands(), staging_.buffer, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    cursor_ += rows * row_bytes;
    row += rows;
  }
}

}  // namespace tessera::vkref
