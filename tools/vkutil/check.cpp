#include "vkutil/check.h"

namespace tessera::vkutil {

std::string result_name(VkResult result) {
  switch (result) {
// clang-format off
#define TESSERA_VK_RESULT(name) \
  case name:                    \
    return #name;
    // clang-format on
    TESSERA_VK_RESULT(VK_SUCCESS)
    TESSERA_VK_RESULT(VK_NOT_READY)
    TESSERA_VK_RESULT(VK_TIMEOUT)
    TESSERA_VK_RESULT(VK_INCOMPLETE)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    TESSERA_VK_RESULT(VK_ERROR_DEVICE_LOST)
    TESSERA_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    TESSERA_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    TESSERA_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    TESSERA_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TESSERA_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_UNKNOWN)
#undef TESSERA_VK_RESULT
    default: return "VkResult(" + std::to_string(int(result)) + ")";
  }
}

void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw Error(std::string(call) + " failed: " + result_name(result));
}

}  // namespace tessera::vkutil
