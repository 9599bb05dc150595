// Images: 8-bit RGBA colour (sRGB encoded, as a frame buffer or PNG holds it) and float depth.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace tessera {

// Packed RGBA8, R in the lowest byte (the memory order of VK_FORMAT_R8G8B8A8_*).
using Rgba8 = uint32_t;

constexpr Rgba8 pack_rgba8(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
  return uint32_t(r) | (uint32_t(g) << 8) | (uint32_t(b) << 16) | (uint32_t(a) << 24);
}
constexpr uint8_t channel(Rgba8 c, int i) { return uint8_t(c >> (8 * i)); }

struct Image {
  int width = 0;
  int height = 0;
  std::vector<Rgba8> pixels;  // row-major, top row first

  Image() = default;
  Image(int w, int h, Rgba8 fill = 0) : width(w), height(h), pixels(size_t(w) * size_t(h), fill) {}
  Rgba8& at(int x, int y) { return pixels[size_t(y) * size_t(width) + size_t(x)]; }
  Rgba8 at(int x, int y) const { return pixels[size_t(y) * size_t(width) + size_t(x)]; }
};

// Writes a PNG atomically (temporary file, then rename) so a failed write never destroys an
// earlier good file. Throws tessera::Error naming the path on failure.
void write_png(const std::filesystem::path& path, const Image& image);
// Reads any PNG/JPEG/TGA/BMP stb_image understands, as RGBA8. Throws tessera::Error.
Image read_image(const std::filesystem::path& path);

// Peak signal-to-noise ratio over R, G, B in dB (infinity when identical). Sizes must match.
double psnr_rgb(const Image& a, const Image& b);

// sRGB transfer functions on [0, 1].
float srgb_to_linear(float c);
float linear_to_srgb(float c);

namespace detail {
// Immutable tables for the per-pixel sRGB conversions, built once at program start.
struct SrgbTables {
  float decode[256];     // linear value of each encoded byte
  double step[256];      // step[k], k >= 1: smallest linear value whose rounded code is k
  uint8_t bucket[4097];  // code of the linear value i / 4096: a start point for encode
};
extern const SrgbTables srgb_tables;
}  // namespace detail

// Rounds a linear value in [0,1] (clamped; NaN gives 0) to the nearest sRGB-encoded byte,
// exactly as the formula would. Per pixel: one bucket lookup and one or two compares, since
// no 1/4096-wide bucket holds more than one step.
inline uint8_t encode_srgb8(float linear) {
  if (!(linear > 0.0f)) return 0;  // also NaN
  if (linear >= 1.0f) return 255;
  const detail::SrgbTables& t = detail::srgb_tables;
  unsigned code = t.bucket[unsigned(linear * 4096.0f)];
  while (code < 255 && double(linear) >= t.step[code + 1]) ++code;
  return uint8_t(code);
}
// Decoded linear value of an sRGB-encoded byte.
inline float decode_srgb8(uint8_t encoded) { return detail::srgb_tables.decode[encoded]; }

}  // namespace tessera
