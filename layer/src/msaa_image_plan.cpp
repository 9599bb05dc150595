#include "msaa_image_plan.h"

namespace tessera::layer {
namespace {

bool has_lazy_memory(const VkPhysicalDeviceMemoryProperties& mp) {
  for (uint32_t i = 0; i < mp.memoryTypeCount && i < VK_MAX_MEMORY_TYPES; ++i)
    if (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT) return true;
  return false;
}

// Formats the read-back handles (msaa_readback.h's msaa_format).
bool readable_format(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_B8G8R8A8_UNORM; }

}  // namespace

MsaaImagePlan plan_msaa_image(const VkImageCreateInfo& ci, VkFormatFeatureFlags optimal_features,
                              const VkPhysicalDeviceMemoryProperties& memory) {
  MsaaImagePlan plan;
  plan.usage = ci.usage;
  if (!readable_format(ci.format)) {
    plan.reason = MsaaSkips::kFormat;
    return plan;
  }
  // The read-back shader samples 2D optimal images of up to 8 samples.
  if (ci.samples > VK_SAMPLE_COUNT_8_BIT || ci.imageType != VK_IMAGE_TYPE_2D || ci.tiling != VK_IMAGE_TILING_OPTIMAL ||
      !(optimal_features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT))
    return plan;  // not_readable
  // A TRANSIENT attachment may carry attachment usages only, so sampling means dropping
  // TRANSIENT. Only where that leaves the application's memory choice valid: on a device
  // without lazily allocated memory a transient image lives in the same memory types anyway;
  // with it, the application would pick lazy memory a sampled image cannot use.
  if ((ci.usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT) && has_lazy_memory(memory)) {
    plan.reason = MsaaSkips::kTransient;
    return plan;
  }
  plan.reason = kMsaaRead;
  if (!(ci.usage & VK_IMAGE_USAGE_SAMPLED_BIT))
    plan.usage = (ci.usage & ~VkImageUsageFlags(VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT)) | VK_IMAGE_USAGE_SAMPLED_BIT;
  return plan;
}

}  // namespace tessera::layer
