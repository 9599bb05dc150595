// VkPhysicalDeviceProperties::driverVersion as its vendor encodes it (docs/capture.md,
// "tessera capture info"): Vulkan leaves the encoding to the vendor.
#include <cstdio>

#include "tessera/capture.h"

namespace tessera::capture {

std::string driver_version_text(uint32_t vendor_id, uint32_t driver_version, const std::string& driver) {
  const uint32_t v = driver_version;
  char buf[48];
  if (vendor_id == 0x10DE) {
    // NVIDIA: 10 bits major, 8 minor, 8 secondary (printed with two digits), 6 tertiary.
    const unsigned major = v >> 22, minor = (v >> 14) & 0xFF, secondary = (v >> 6) & 0xFF, tertiary = v & 0x3F;
    if (tertiary)
      std::snprintf(buf, sizeof buf, "%u.%u.%02u.%u", major, minor, secondary, tertiary);
    else
      std::snprintf(buf, sizeof buf, "%u.%u.%02u", major, minor, secondary);
  } else if (vendor_id == 0x8086 && driver.find("Intel") != std::string::npos &&
             driver.find("Mesa") == std::string::npos) {
    // Intel's Windows driver (driver name "Intel Corporation"): 18 bits major, 14 minor (build
    // number); Mesa's Intel driver (Linux) uses Vulkan's encoding like the rest of Mesa, and so
    // does a capture that could not name its driver (Vulkan 1.0/1.1 applications).
    std::snprintf(buf, sizeof buf, "%u.%u", v >> 14, v & 0x3FFF);
  } else {
    // VK_MAKE_API_VERSION's layout (Mesa, AMD, Arm, Qualcomm, ...): major.minor.patch.
    std::snprintf(buf, sizeof buf, "%u.%u.%u", (v >> 22) & 0x7F, (v >> 12) & 0x3FF, v & 0xFFF);
  }
  return buf;
}

}  // namespace tessera::capture
