// The MSAA read-back's decision for a multisampled colour attachment at vkCreateImage
// (objects.cpp): whether the layer can make it readable by its compute shader, and with which
// usage, or why not (docs/layer.md, "MSAA"). Pure: the device's answers are passed in, so the
// decision is tested on memory-type tables lavapipe does not have (msaa_image_plan_test.cpp).
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "units.h"

namespace tessera::layer {

struct MsaaImagePlan {
  int reason = MsaaSkips::kNotReadable;  // kMsaaRead: created readable; else why it will be skipped
  VkImageUsageFlags usage = 0;           // the usage to create it with
};

// `ci`: a multisampled colour attachment's create info; `optimal_features`: its format's
// optimalTilingFeatures; `memory`: the device's memory types.
MsaaImagePlan plan_msaa_image(const VkImageCreateInfo& ci, VkFormatFeatureFlags optimal_features,
                              const VkPhysicalDeviceMemoryProperties& memory);

}  // namespace tessera::layer
