// The in-game HUD (hud.cpp, docs/layer.md "The HUD"): Dear ImGui drawn into each presented
// swapchain image, in the layer's own command buffer and render pass, submitted on the
// presenting queue between the application's rendering and the presentation (the approach of
// Mesa's overlay layer). What it shows comes from the frames the layer writes (HudStats).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

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
  double last_gpu_ms = -1;  // the last timed frame's (GPU time is sampled every Nth frame)
  // The panel is rebuilt at most every hud_refresh_ms (hud.cpp): the next rebuild, and
  // rebuilds due whatever the time (a new swapchain: ImGui sizes a new window over a few frames).
  std::chrono::steady_clock::time_point next_build{};
  uint32_t builds_due = 0;

  // Frame capture's status (the capture panel), when the capture setting is on.
  struct Capture {
    uint64_t queued = 0;               // capture frames handed to the writer thread
    std::deque<uint64_t> pending;      // their frame numbers, oldest first, until written or failed
    uint64_t written = 0, failed = 0;  // files, as the writer thread last reported
    int64_t last_frame = -1;           // the last frame whose file the writer finished
    bool last_failed = false;          // ... and its write failed (known when it finished alone)
    int64_t frame = -1;                // the last captured frame; what it held:
    uint64_t draws = 0, draws_captured = 0, triangles = 0;
    std::vector<std::pair<std::string, uint64_t>> not_captured;  // draws not captured, by reason
  } capture;

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
// A capture frame ends (frames.cpp, under state_mutex, before capture_end_frame hands it to
// the writer): what it captured, for the capture panel.
void hud_note_capture(DeviceData* d, uint64_t frame);

}  // namespace tessera::layer
