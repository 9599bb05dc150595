// The capture setting's frame list (docs/layer.md "Frame capture"), parsed with the other
// settings (stats.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace tessera::layer {

// Which frames are captured: "120" (one), "100-102" (inclusive), "every:300" (300, 600, ...).
struct CaptureFrames {
  bool on = false;
  uint64_t first = 0, last = 0;
  uint64_t every = 0;  // > 0: the multiples of `every`
  bool contains(uint64_t frame) const {
    if (!on) return false;
    if (every) return frame > 0 && frame % every == 0;
    return frame >= first && frame <= last;
  }
  // Some captured frame is `frame` or later (recordings made now may be submitted in it).
  bool ahead(uint64_t frame) const { return on && (every || frame <= last); }
};
bool parse_capture_frames(const std::string& text, CaptureFrames& out);

}  // namespace tessera::layer
