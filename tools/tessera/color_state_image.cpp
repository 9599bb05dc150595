#include "color_state_image.h"

#include <cstdio>
#include <string>
#include <vector>

// stb_easy_font is header-only with static functions; we use only the printer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

#include "tessera/color_state.h"
#include "tessera/error.h"

namespace tessera::cli {

namespace {

void fill_rect(Image& img, int x0, int y0, int x1, int y1, Rgba8 c) {
  for (int y = std::max(0, y0); y < std::min(img.height, y1); ++y) {
    for (int x = std::max(0, x0); x < std::min(img.width, x1); ++x) img.at(x, y) = c;
  }
}

// Draws text with stb_easy_font (7-pixel glyphs made of axis-aligned quads), scaled up.
void draw_text(Image& img, int x, int y, const std::string& text, Rgba8 c, int scale = 1) {
  std::vector<char> buffer(text.size() * 300 + 64);
  std::string copy = text;
  const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buffer.data(), int(buffer.size()));
  for (int q = 0; q < quads; ++q) {
    const float* v = reinterpret_cast<const float*>(buffer.data() + size_t(q) * 64);  // 4 vertices x 16 bytes
    const int qx0 = int(v[0]), qy0 = int(v[1]), qx1 = int(v[8]), qy1 = int(v[9]);
    fill_rect(img, x + qx0 * scale, y + qy0 * scale, x + qx1 * scale, y + qy1 * scale, c);
  }
}

inline Rgba8 mix(Rgba8 a, Rgba8 b, int b_weight /* of 256 */) {
  Rgba8 out = 0;
  for (int k = 0; k < 3; ++k) {
    const int v = (int(channel(a, k)) * (256 - b_weight) + int(channel(b, k)) * b_weight) >> 8;
    out |= Rgba8(v) << (8 * k);
  }
  return out | 0xff000000u;
}

}  // namespace

Image color_state_image(const Frame& frame) {
  if (frame.color_states.empty()) {
    throw Error("--color-state needs a multisampled frame (--msaa 2, 4 or 8): the colour unit stores only those");
  }
  const int w = frame.color.width, h = frame.color.height;
  // Counts per state, for the legend.
  uint64_t counts[16] = {};
  for (uint8_t code : frame.color_states) ++counts[code & 15u];
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
      const int grey = (int(channel(c, 0)) * 54 + int(channel(c, 1)) * 183 + int(channel(c, 2)) * 19) >> 8;
      const uint8_t code = frame.color_states[size_t(y / 4) * size_t(frame.color_blocks_x) + size_t(x / 8)];
      img.at(x, y) = mix(pack_rgba8(uint8_t(grey), uint8_t(grey), uint8_t(grey)), color_tile_state_swatch(code), 170);
    }
  }
  // Legend.
  const uint64_t total = frame.color_states.size();
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
