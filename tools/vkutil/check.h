// Vulkan results as errors: every program on tools/vkutil checks its calls the same way and
// names the result, not its number.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "tessera/error.h"

namespace tessera::vkutil {

// Name of a VkResult ("VK_ERROR_DEVICE_LOST"), or "VkResult(<number>)" when unknown.
std::string result_name(VkResult result);

// Throws tessera::Error "<call> failed: <result name>" when `result` is not VK_SUCCESS.
void check(VkResult result, const char* call);

// No Vulkan driver, no physical device, or none with what the program needs: tests skip on it
// where other failures fail them.
class DeviceUnavailable : public Error {
 public:
  using Error::Error;
};

}  // namespace tessera::vkutil
