// MSAA read-back (msaa_readback.cpp, docs/layer.md "MSAA: the colour unit on read-back
// attachments"): what the layer remembers of readable images and stored attachments, its own
// Vulkan objects, and what the recording, submission and device code call.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "commands.h"
#include "stats.h"

namespace tessera::layer {

struct CommandBufferState;
struct DeviceData;
struct RenderPassInfo;

struct MsaaImage {  // a multisampled colour attachment image
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkExtent3D extent{};
  uint32_t samples = 1;
  int reason = kMsaaRead;  // kMsaaRead: created readable by the layer's compute shader; else why not
};

struct MsaaTarget {  // a multisampled attachment of a recording, with the layout it is left in
  VkImage image = VK_NULL_HANDLE;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
  uint32_t clear = 0;      // the pass's clear colour (RGBA8), 0 when it does not clear
  int reason = kMsaaRead;  // kMsaaRead: stored and readable; else why it is skipped (MsaaSkips)
};

struct ReadbackEntry {
  VkImage image = VK_NULL_HANDLE;
  uint32_t width = 0, height = 0, samples = 0, clear = 0, index = 0;
  VkImageView view = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDescriptorSet set = VK_NULL_HANDLE;
};

struct ReadbackBatch {  // one layer submission, right after an application submission
  uint64_t frame = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::vector<ReadbackEntry> entries;
};

struct MsaaResources {
  bool tried = false, ok = false;
  VkShaderModule module = VK_NULL_HANDLE;
  VkSampler sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  std::unordered_map<uint32_t, VkCommandPool> command_pools;  // per queue family
  VkPhysicalDeviceMemoryProperties memory{};
};

// ---------------------------------------------------------------------------------------------
// What the other files call

inline bool msaa_on() { return settings().msaa_interval > 0; }
// Formats the read-back handles: 8-bit UNORM RGBA (the colour unit's RGBA8). texelFetch on a
// BGRA view returns RGBA, so both store the same words.
inline bool msaa_format(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_B8G8R8A8_UNORM; }
inline bool depth_stencil_format(VkFormat f) { return f >= VK_FORMAT_D16_UNORM && f <= VK_FORMAT_D32_SFLOAT_S8_UINT; }
inline void count_skip(MsaaFrameStats& m, int reason, uint64_t n = 1) {
  m.skipped += n;
  m.skipped_by_reason.v[size_t(reason)] += n;
}
// Whether the open frame reads back (recordings use the pass's store copy then). Lock-free.
bool readback_frame(const DeviceData* d);

// Recording: the multisampled attachments a recording stores, and the layout it leaves them in.
// `store`: the attachment's store op as it runs (the layer's store copy: STORE).
void add_msaa_target(DeviceData* d, CommandBufferState* cb, VkImageView view, VkImageLayout layout, bool clears,
                     const VkClearColorValue& clear, VkFormat format, VkAttachmentStoreOp store);
// `stored_copy`: the pass runs as the layer's copy storing every multisampled attachment.
void add_pass_targets(DeviceData* d, CommandBufferState* cb, const VkRenderPassBeginInfo* begin,
                      const RenderPassInfo& info, bool stored_copy);
void track_msaa_layout(CommandBufferState* cb, VkImage image, VkImageLayout layout);

// Submission and device: the read-backs themselves.
void maybe_read_back(DeviceData* d, VkQueue queue, const std::vector<VkCommandBuffer>& handles);
void poll_readbacks(DeviceData* d, bool wait);             // under state_mutex
void wait_for_readbacks_of(DeviceData* d, VkImage image);  // takes state_mutex
void destroy_msaa_resources(DeviceData* d);                // under state_mutex

// Frame capture (capture_frame.cpp): the same compute read-back of every sample, colour
// (RGBA8 words, R in the low byte) or depth (float32 bits), recorded into the capture's command
// buffer with the capture's own resources `m`. After the caller's wait, e.mapped holds
// width * height * samples words, pixel-major.
struct SampleReadback {
  VkImage image = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  uint32_t width = 0, height = 0, samples = 1;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;  // where the application left it (and gets it back)
  bool depth = false;
};
bool record_sample_readback(DeviceData* d, MsaaResources& m, VkCommandBuffer cb, const SampleReadback& what,
                            ReadbackEntry& e);
void release_sample_readback(DeviceData* d, MsaaResources& m, ReadbackEntry& e);
void destroy_readback_resources(DeviceData* d, MsaaResources& m);

}  // namespace tessera::layer
