// The MSAA read-back's decision at vkCreateImage, on the memory-type tables of devices with and
// without lazily allocated memory: a TRANSIENT attachment is made sampled only where its memory
// stays valid, so on a tile-based GPU (lazy memory) it is skipped as `transient`.
#include "msaa_image_plan.h"

#include <gtest/gtest.h>

namespace tessera::layer {
namespace {

VkPhysicalDeviceMemoryProperties memory(std::initializer_list<VkMemoryPropertyFlags> types) {
  VkPhysicalDeviceMemoryProperties mp{};
  for (VkMemoryPropertyFlags f : types) mp.memoryTypes[mp.memoryTypeCount++] = {f, 0};
  mp.memoryHeapCount = 1;
  return mp;
}

// lavapipe's single memory type, and a tile-based GPU's: device-local, host-visible, lazy.
const VkPhysicalDeviceMemoryProperties kNoLazy = memory({0xF});
const VkPhysicalDeviceMemoryProperties kLazy = memory(
    {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT});
constexpr VkFormatFeatureFlags kSampled = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;

VkImageCreateInfo attachment(VkImageUsageFlags usage, VkFormat format = VK_FORMAT_R8G8B8A8_UNORM) {
  VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ci.imageType = VK_IMAGE_TYPE_2D;
  ci.format = format;
  ci.extent = {64, 64, 1};
  ci.mipLevels = ci.arrayLayers = 1;
  ci.samples = VK_SAMPLE_COUNT_4_BIT;
  ci.tiling = VK_IMAGE_TILING_OPTIMAL;
  ci.usage = usage;
  return ci;
}

constexpr VkImageUsageFlags kColour = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
constexpr VkImageUsageFlags kTransient = VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;

TEST(MsaaImagePlan, TransientMadeSampledWithoutLazyMemory) {
  const MsaaImagePlan p = plan_msaa_image(attachment(kColour | kTransient), kSampled, kNoLazy);
  EXPECT_EQ(p.reason, kMsaaRead);
  EXPECT_EQ(p.usage, kColour | VK_IMAGE_USAGE_SAMPLED_BIT);  // TRANSIENT dropped: same memory types anyway
}

TEST(MsaaImagePlan, TransientSkippedWithLazyMemory) {
  const MsaaImagePlan p = plan_msaa_image(attachment(kColour | kTransient), kSampled, kLazy);
  EXPECT_EQ(p.reason, MsaaSkips::kTransient);
  EXPECT_EQ(p.usage, kColour | kTransient);  // the application's usage, untouched
}

TEST(MsaaImagePlan, NonTransientReadWithLazyMemory) {
  const MsaaImagePlan p = plan_msaa_image(attachment(kColour), kSampled, kLazy);
  EXPECT_EQ(p.reason, kMsaaRead);
  EXPECT_EQ(p.usage, kColour | VK_IMAGE_USAGE_SAMPLED_BIT);
  // Already sampled: nothing to change.
  const MsaaImagePlan q = plan_msaa_image(attachment(kColour | VK_IMAGE_USAGE_SAMPLED_BIT), kSampled, kLazy);
  EXPECT_EQ(q.reason, kMsaaRead);
  EXPECT_EQ(q.usage, kColour | VK_IMAGE_USAGE_SAMPLED_BIT);
}

TEST(MsaaImagePlan, OtherReasons) {
  EXPECT_EQ(plan_msaa_image(attachment(kColour, VK_FORMAT_R16G16B16A16_SFLOAT), kSampled, kNoLazy).reason,
            MsaaSkips::kFormat);
  EXPECT_EQ(plan_msaa_image(attachment(kColour), VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT, kNoLazy).reason,
            MsaaSkips::kNotReadable);
  VkImageCreateInfo linear = attachment(kColour);
  linear.tiling = VK_IMAGE_TILING_LINEAR;
  EXPECT_EQ(plan_msaa_image(linear, kSampled, kNoLazy).reason, MsaaSkips::kNotReadable);
  VkImageCreateInfo many = attachment(kColour);
  many.samples = VK_SAMPLE_COUNT_16_BIT;
  const MsaaImagePlan p = plan_msaa_image(many, kSampled, kNoLazy);
  EXPECT_EQ(p.reason, MsaaSkips::kNotReadable);
  EXPECT_EQ(p.usage, kColour);
}

}  // namespace
}  // namespace tessera::layer
