#include "image_text.h"

#include <algorithm>
#include <vector>

// stb_easy_font is header-only with static functions; we use only the printer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace tessera::cli {

void fill_rect(Image& img, int x0, int y0, int x1, int y1, Rgba8 c) {
  for (int y = std::max(0, y0); y < std::min(img.height, y1); ++y) {
    for (int x = std::max(0, x0); x < std::min(img.width, x1); ++x) img.at(x, y) = c;
  }
}

void draw_text(Image& img, int x, int y, const std::string& text, Rgba8 c, int scale) {
  std::vector<char> buffer(text.size() * 300 + 64);
  std::string copy = text;
  const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buffer.data(), int(buffer.size()));
  for (int q = 0; q < quads; ++q) {
    const float* v = reinterpret_cast<const float*>(buffer.data() + size_t(q) * 64);  // 4 vertices x 16 bytes
    const int qx0 = int(v[0]), qy0 = int(v[1]), qx1 = int(v[8]), qy1 = int(v[9]);
    fill_rect(img, x + qx0 * scale, y + qy0 * scale, x + qx1 * scale, y + qy1 * scale, c);
  }
}

Rgba8 mix_rgb(Rgba8 a, Rgba8 b, int b_weight) {
  Rgba8 out = 0;
  for (int k = 0; k < 3; ++k) {
    const int v = (int(channel(a, k)) * (256 - b_weight) + int(channel(b, k)) * b_weight) >> 8;
    out |= Rgba8(v) << (8 * k);
  }
  return out | 0xff000000u;
}

uint8_t luma(Rgba8 c) {
  return uint8_t((int(channel(c, 0)) * 54 + int(channel(c, 1)) * 183 + int(channel(c, 2)) * 19) >> 8);
}

}  // namespace tessera::cli
