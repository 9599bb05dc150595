// Host-to-device copies through one bounded staging buffer: uploads of any size (meshes of
// millions of triangles, large mip chains) stream through it in chunks, submitting and waiting
// whenever it fills. Private to tools/vkref.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "vkref/device_arena.h"
#include "vkref/vk_context.h"

namespace tessera::vkref {

class StagingUploader {
 public:
  static constexpr VkDeviceSize kStagingBytes = VkDeviceSize(32) << 20;

  // Places the staging buffer in `arena` (host-visible, coherent), which must outlive this.
  StagingUploader(VulkanContext& context, DeviceArena& arena);
  ~StagingUploader();
  StagingUploader(const StagingUploader&) = delete;
  StagingUploader& operator=(const StagingUploader&) = delete;

  // The command buffer being recorded (begun on first use), for barriers between copies.
  VkCommandBuffer commands();
  // Copies `bytes` bytes from host `data` to `dst` at `dst_offset`.
  void copy_to_buffer(VkBuffer dst, VkDeviceSize dst_offset, const void* data, VkDeviceSize bytes);
  // Copies tightly packed RGBA8 texels (width * height) into mip `level` of `dst`, which must
  // be in TRANSFER_DST_OPTIMAL layout when the copies execute.
  void copy_to_image(VkImage dst, uint32_t level, uint32_t width, uint32_t height, const uint32_t* texels);
  // Submits everything recorded so far and waits for it; the staging buffer is free again.
  void flush();

 private:
  // Returns bytes available at the cursor (between min_bytes and want), flushing when fewer
  // than min_bytes remain.
  VkDeviceSize reserve(VkDeviceSize min_bytes, VkDeviceSize want);

  VulkanContext* context_;
  GpuBuffer staging_;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  bool recording_ = false;
  VkDeviceSize cursor_ = 0;  // bytes of staging used by recorded copies
};

}  // namespace tessera::vkref
