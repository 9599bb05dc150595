// Drawing helpers for the capture tool's annotated images (maps with legends).
#pragma once

#include <string>

#include "tessera/image.h"

namespace tessera::cli {

void fill_rect(Image& img, int x0, int y0, int x1, int y1, Rgba8 c);
// Text with stb_easy_font's 7-pixel glyphs, scaled by an integer factor.
void draw_text(Image& img, int x, int y, const std::string& text, Rgba8 c, int scale = 1);
// a blended towards b by b_weight / 256, alpha 255.
Rgba8 mix_rgb(Rgba8 a, Rgba8 b, int b_weight);
// Grey level of a colour (Rec. 709 weights on the encoded values).
uint8_t luma(Rgba8 c);

}  // namespace tessera::cli
