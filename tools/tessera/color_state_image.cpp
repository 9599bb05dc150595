#include "color_state_image.h"

#include <cstdio>
#include <string>
#include <vector>

#include "image_text.h"
#include "tessera/color_state.h"
#include "tessera/error.h"

namespace tessera::cli {

Image color_state_image(const Frame& frame) {
  if (frame.diagnostics.color_states.empty()) {
    throw Error("--color-state needs a multisampled frame (--msaa 2, 4 or 8): the colour unit stores only those");
  }
  const int w = frame.color.width, h = frame.color.height;
  // Counts per state, for the legend.
  uint64_t counts[16] = {};
  for (uint8_t code : frame.diagnostics.color_states) ++counts[code & 15u];
  std::vector<uint8_t> shown;
  for (int code = 0; code < 16; ++code) {
    if (color_tile_state_name(uint8_t(code))) shown.push_back(uint8_t(code));
  }
  const int scale = w >= 640 ? 2 : 1;
  const int row_h = 10 * scale + 4;
  const int legend_h = int(shown.size()) * row_h + 8;
  Image img(w, h + legend_h, pack_rgba8(24, 24, 28));
  // Map: the state colour blended over a grey copy of the frame, so geometry stays readable.
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const Rgba8 c = frame.color.at(x, y);
      const int grey = luma(c);
      const uint8_t code =
          frame.diagnostics.color_states[size_t(y / 4) * size_t(frame.diagnostics.color_blocks_x) + size_t(x / 8)];
      img.at(x, y) =
          mix_rgb(pack_rgba8(uint8_t(grey), uint8_t(grey), uint8_t(grey)), color_tile_state_swatch(code), 170);
    }
  }
  // Legend.
  const uint64_t total = frame.diagnostics.color_states.size();
  int y = h + 6;
  for (uint8_t code : shown) {
    fill_rect(img, 8, y, 8 + 10 * scale, y + 10 * scale, color_tile_state_swatch(code));
    char line[160];
    std::snprintf(line, sizeof(line), "%-22s %8llu tiles  %5.1f%%", color_tile_state_name(code),
                  (unsigned long long)counts[code], total ? 100.0 * double(counts[code]) / double(total) : 0.0);
    draw_text(img, 14 + 10 * scale, y + 1, line, counts[code] ? pack_rgba8(235, 235, 235) : pack_rgba8(120, 120, 120),
              scale);
    y += row_h;
  }
  return img;
}

}  // namespace tessera::cli
