// What the layer's two test applications (layer_app.cpp, layer_units_app.cpp) share: failure
// accounting, the Vulkan result check, and small object helpers. The helpers take any device
// record with `device` (VkDevice) and `memory` (VkPhysicalDeviceMemoryProperties) members.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace layer_test {

#define CHECK_VK(expr)                                                                    \
  do {                                                                                    \
    VkResult r_ = (expr);                                                                 \
    if (r_ != VK_SUCCESS) {                                                               \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #expr, int(r_)); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

inline int g_failures = 0;  // checks that failed; the application's exit status depends on it

inline void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++g_failures;
  }
}

inline void expect_eq(const std::string& what, uint64_t got, uint64_t want) {
  if (got != want) {
    std::fprintf(stderr, "MISMATCH %s: got %llu, want %llu\n", what.c_str(), (unsigned long long)got,
                 (unsigned long long)want);
    ++g_failures;
  }
}

// Colour targets of both applications: small, RGBA8 UNORM (the layer's MSAA read-back reads it).
constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr uint32_t kSize = 64;

template <typename Device>
uint32_t memory_type(const Device& g, uint32_t bits, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < g.memory.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (g.memory.memoryTypes[i].propertyFlags & want) == want) return i;
  std::fprintf(stderr, "no memory type\n");
  std::exit(2);
}

struct Image {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

// A kSize x kSize colour attachment of kFormat with `samples` samples, its memory and view.
template <typename Device>
Image make_image(const Device& g, VkSampleCountFlagBits samples) {
  Image im;
  VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ci.imageType = VK_IMAGE_TYPE_2D;
  ci.format = kFormat;
  ci.extent = {kSize, kSize, 1};
  ci.mipLevels = 1;
  ci.arrayLayers = 1;
  ci.samples = samples;
  ci.tiling = VK_IMAGE_TILING_OPTIMAL;
  ci.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  CHECK_VK(vkCreateImage(g.device, &ci, nullptr, &im.image));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(g.device, im.image, &req);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = memory_type(g, req.memoryTypeBits, 0);
  CHECK_VK(vkAllocateMemory(g.device, &ai, nullptr, &im.memory));
  CHECK_VK(vkBindImageMemory(g.device, im.image, im.memory, 0));
  VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vi.image = im.image;
  vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vi.format = kFormat;
  vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  CHECK_VK(vkCreateImageView(g.device, &vi, nullptr, &im.view));
  return im;
}

template <typename Device>
void destroy_image(const Device& g, Image& im) {
  vkDestroyImageView(g.device, im.view, nullptr);
  vkDestroyImage(g.device, im.image, nullptr);
  vkFreeMemory(g.device, im.memory, nullptr);
}

template <typename Device, size_t N>
VkShaderModule make_shader(const Device& g, const uint32_t (&code)[N]) {
  VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  ci.codeSize = sizeof(code);
  ci.pCode = code;
  VkShaderModule m = VK_NULL_HANDLE;
  CHECK_VK(vkCreateShaderModule(g.device, &ci, nullptr, &m));
  return m;
}

template <typename Device>
VkPipeline make_compute(const Device& g, VkPipelineLayout layout, VkShaderModule mod) {
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = mod;
  ci.stage.pName = "main";
  ci.layout = layout;
  VkPipeline p = VK_NULL_HANDLE;
  CHECK_VK(vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  return p;
}

}  // namespace layer_test
