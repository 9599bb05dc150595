// Texture mip chains: every level a 2x2 box filter of the one above, averaged in linear
// space so dark and bright texels mix the way light does (averaging sRGB codes would darken).
#include <algorithm>
#include <string>

#include "tessera/error.h"
#include "tessera/scene.h"

namespace tessera {

namespace {

Image half_level(const Image& src) {
  const int w = std::max(1, src.width / 2);
  const int h = std::max(1, src.height / 2);
  Image dst(w, h);
  for (int y = 0; y < h; ++y) {
    // Odd sizes drop the last row/column; a 1-texel dimension samples its only texel twice.
    const int y0 = std::min(2 * y, src.height - 1);
    const int y1 = std::min(2 * y + 1, src.height - 1);
    for (int x = 0; x < w; ++x) {
      const int x0 = std::min(2 * x, src.width - 1);
      const int x1 = std::min(2 * x + 1, src.width - 1);
      const Rgba8 t[4] = {src.at(x0, y0), src.at(x1, y0), src.at(x0, y1), src.at(x1, y1)};
      uint8_t out[4];
      for (int c = 0; c < 3; ++c) {
        const float sum = decode_srgb8(channel(t[0], c)) + decode_srgb8(channel(t[1], c)) +
                          decode_srgb8(channel(t[2], c)) + decode_srgb8(channel(t[3], c));
        out[c] = encode_srgb8(sum * 0.25f);
      }
      // Alpha is linear coverage, not sRGB: plain average, rounded to nearest.
      const int alpha = channel(t[0], 3) + channel(t[1], 3) + channel(t[2], 3) + channel(t[3], 3);
      out[3] = uint8_t((alpha + 2) / 4);
      dst.at(x, y) = pack_rgba8(out[0], out[1], out[2], out[3]);
    }
  }
  return dst;
}

}  // namespace

Texture make_texture(std::string name, Image base) {
  if (base.width <= 0 || base.height <= 0 || base.pixels.size() != size_t(base.width) * size_t(base.height)) {
    throw Error("texture \"" + name + "\": base image is " + std::to_string(base.width) + "x" +
                std::to_string(base.height) + " with " + std::to_string(base.pixels.size()) + " pixels");
  }
  Texture tex;
  tex.name = std::move(name);
  tex.levels.push_back(std::move(base));
  while (tex.levels.back().width > 1 || tex.levels.back().height > 1) {
    Image next = half_level(tex.levels.back());
    tex.levels.push_back(std::move(next));
  }
  return tex;
}

Texture load_texture(const std::filesystem::path& path) { return make_texture(path.stem().string(), read_image(path)); }

}  // namespace tessera
