// The in-game HUD (hud.cpp, docs/layer.md "The HUD"): Dear ImGui drawn into each presented
// swapchain image, in the layer's own command buffer and render pass, submitted on the
// presenting queue between the application's rendering and the presentation (the approach of
// Mesa's overlay layer). What it shows comes from the frames the layer writes (HudStats).
#pragma once

#include <cstdint>
#include <deque>

#include "commands.h"
#include "units.h"

namespace tessera::layer {

struct DeviceData;
struct FrameRecord;
struct HudSwapchain;  // hud.cpp

// What the HUD shows, kept by frames.cpp as frames complete (under state_mutex).
struct HudStats {
  struct Point {
    double cpu_ms = 0, gpu_ms = -1;  // gpu_ms < 0: not measured
    uint64_t draws = 0, primitives = 0;
  };
  static constexpr size_t kHistory = 120;
  std::deque<Point> history;
  uint64_t frames = 0;
  GppFrameModel gpp;       // the last frame the GPP model ran on
  double msaa_ratio = -1;  // the last read-back's stored / uncompressed bytes, < 0: none yet
  uint64_t msaa_images = 0;

  void add(const FrameRecord& r);
};

// Called by objects.cpp, frames.cpp and device.cpp when settings().hud is on.
VkResult hud_create_swapchain(DeviceData* d, const VkSwapchainCreateInfoKHR* ci, VkSwapchainKHR swapchain);
void hud_destroy_swapchain(DeviceData* d, VkSwapchainKHR swapchain);
// Draws the HUD into the presented images; returns the present info to pass on (a copy waiting
// on the HUD's submission, or `info` itself when nothing was drawn). `storage` holds the copy.
struct HudPresent {
  VkPresentInfoKHR info{};
  VkSemaphore wait = VK_NULL_HANDLE;
};
const VkPresentInfoKHR* hud_present(DeviceData* d, VkQueue queue, const VkPresentInfoKHR* info, HudPresent& storage);
void hud_destroy_device(DeviceData* d);

}  // namespace tessera::layer
