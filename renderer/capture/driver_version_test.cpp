#include <gtest/gtest.h>

#include "tessera/capture.h"

namespace tessera::capture {
namespace {

TEST(DriverVersion, NvidiaUsesItsTenEightEightSixBits) {
  // The layer's capture on an NVIDIA 580.159.04 driver (docs/capture.md).
  EXPECT_EQ(driver_version_text(0x10DE, 2435301632u, "NVIDIA"), "580.159.04");
  // 535.183.01: (535 << 22) | (183 << 14) | (1 << 6).
  EXPECT_EQ(driver_version_text(0x10DE, (535u << 22) | (183u << 14) | (1u << 6), "NVIDIA"), "535.183.01");
  EXPECT_EQ(driver_version_text(0x10DE, (470u << 22) | (42u << 14) | (10u << 6) | 3u, "NVIDIA"), "470.42.10.3");
}

TEST(DriverVersion, IntelOnWindowsUsesEighteenFourteenBits) {
  // 101.5762 (Windows Arc/Xe driver): (101 << 14) | 5762.
  EXPECT_EQ(driver_version_text(0x8086, (101u << 14) | 5762u, "Intel Corporation"), "101.5762");
  // Mesa's Intel driver encodes as Vulkan does: 22.3.6.
  EXPECT_EQ(driver_version_text(0x8086, (22u << 22) | (3u << 12) | 6u, "Intel open-source Mesa driver Mesa 22.3.6"),
            "22.3.6");
  // A capture that could not name its driver (a Vulkan 1.0 application) is not assumed Windows.
  EXPECT_EQ(driver_version_text(0x8086, (23u << 22) | (2u << 12) | 1u, "driver version 96477185"), "23.2.1");
}

TEST(DriverVersion, OthersUseVulkansEncoding) {
  // lavapipe reports VK_MAKE_VERSION(0, 0, 1); AMD's 2.0.279.
  EXPECT_EQ(driver_version_text(0x10005, 1u, "llvmpipe"), "0.0.1");
  EXPECT_EQ(driver_version_text(0x1002, (2u << 22) | (0u << 12) | 279u, "AMD proprietary driver"), "2.0.279");
  EXPECT_EQ(driver_version_text(0x13B5, (1u << 22) | (44u << 12) | 4095u, ""), "1.44.4095");
}

}  // namespace
}  // namespace tessera::capture
