// `tessera view`: a GLFW window onto the software GPU. The frame buffer Tessera renders is
// uploaded as an OpenGL texture and drawn behind Dear ImGui panels for the statistics of each
// unit, per-frame plots, live config edits and overlays. Rendering runs on a worker thread.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "tessera/config.h"
#include "tessera/scene.h"
#include "viewer/overlays.h"

namespace tessera::viewer {

struct ViewerOptions {
  std::filesystem::path scene;      // scene JSON, or a capture (.tcap, replayed: docs/replay.md), to open at start
  size_t capture_frame = 0;         // captures: the frame to replay (index in the file)
  std::optional<size_t> last_draw;  // captures: the scrubber's start (default: the last draw)
  // Picks the start camera of a freshly loaded scene (throws tessera::Error on a bad spec);
  // empty: the scene's own camera.
  std::function<Camera(const Scene&)> pick_camera;
  int window_width = 1280;  // window size in screen coordinates
  int window_height = 800;
  // The frame buffer is round(window framebuffer size x resolution_scale) pixels, at least 1.
  float resolution_scale = 1.0f;            // 0.25..2
  OverlayKind overlay = OverlayKind::none;  // overlay shown at start
  Config config;                            // frame.width/height are replaced by the size above
  // Screenshot mode: render `frames` frames, write `screenshot` (the frame buffer), the window
  // beside it (NAME.window.png) and the stats (NAME.stats.json), then exit.
  std::filesystem::path screenshot;
  int frames = 1;
};

// Frame-buffer size for a window framebuffer and scale (each side at least 1 pixel).
int scaled_size(int window_pixels, float scale);

// The three files of a screenshot: the frame-buffer PNG as given, NAME.window.EXT, NAME.stats.json.
std::filesystem::path window_screenshot_path(const std::filesystem::path& png);
std::filesystem::path stats_screenshot_path(const std::filesystem::path& png);

// Runs the viewer until the window closes (or the screenshot is written). Returns the exit
// status: 0, or 1 after printing an error (no display, unreadable scene in screenshot mode,
// unwritable screenshot).
int run_viewer(const ViewerOptions& options);

}  // namespace tessera::viewer
