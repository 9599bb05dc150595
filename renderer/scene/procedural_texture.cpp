// Procedural texture images: checker, bricks, noise. Colours are given in linear RGB and
// stored sRGB-encoded, like a texture loaded from a PNG.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "scene/generator_checks.h"
#include "scene/noise.h"
#include "tessera/procedural.h"

namespace tessera {

namespace gc = generator_checks;

namespace {

Rgba8 encode(glm::vec3 linear) {
  return pack_rgba8(encode_srgb8(linear.r), encode_srgb8(linear.g), encode_srgb8(linear.b), 255);
}

void check_color(const char* generator, const char* parameter, glm::vec3 c) {
  gc::require_color(generator, parameter, c.r, c.g, c.b);
}

}  // namespace

Image make_checker_image(const CheckerParams& p) {
  gc::require_range("checker", "size", p.size, 1, kMaxTextureSize);
  gc::require_range("checker", "cells", p.cells, 1, p.size);
  check_color("checker", "color_a", p.color_a);
  check_color("checker", "color_b", p.color_b);
  const Rgba8 a = encode(p.color_a);
  const Rgba8 b = encode(p.color_b);
  Image img(p.size, p.size);
  for (int y = 0; y < p.size; ++y) {
    const int cy = int(int64_t(y) * p.cells / p.size);
    for (int x = 0; x < p.size; ++x) {
      const int cx = int(int64_t(x) * p.cells / p.size);
      img.at(x, y) = ((cx + cy) & 1) ? b : a;
    }
  }
  return img;
}

Image make_bricks_image(const BricksParams& p) {
  gc::require_range("bricks", "size", p.size, 4, kMaxTextureSize);
  gc::require_range("bricks", "rows", p.rows, 1, p.size / 2);
  gc::require_range("bricks", "columns", p.columns, 1, p.size / 2);
  gc::require_range("bricks", "mortar", p.mortar, 0.0f, 0.5f);
  gc::require_range("bricks", "variation", p.variation, 0.0f, 1.0f);
  check_color("bricks", "brick_color", p.brick_color);
  check_color("bricks", "mortar_color", p.mortar_color);
  const float brick_h = float(p.size) / float(p.rows);     // texels
  const float brick_w = float(p.size) / float(p.columns);  // texels
  const float half_mortar = 0.5f * p.mortar * brick_h;     // texels on each brick edge
  const Rgba8 mortar = encode(p.mortar_color);
  Image img(p.size, p.size);
  for (int y = 0; y < p.size; ++y) {
    const float fy = float(y) + 0.5f;
    const int row = std::min(int(fy / brick_h), p.rows - 1);
    const float ly = fy - float(row) * brick_h;
    // Odd courses shift by half a brick (running bond); wrapping keeps the texture tileable
    // horizontally, and an even row count keeps it tileable vertically.
    const float shift = (row & 1) ? 0.5f * brick_w : 0.0f;
    for (int x = 0; x < p.size; ++x) {
      float fx = float(x) + 0.5f + shift;
      if (fx >= float(p.size)) fx -= float(p.size);
      const int col = std::min(int(fx / brick_w), p.columns - 1);
      const float lx = fx - float(col) * brick_w;
      const bool in_mortar =
          lx < half_mortar || lx > brick_w - half_mortar || ly < half_mortar || ly > brick_h - half_mortar;
      if (in_mortar) {
        img.at(x, y) = mortar;
      } else {
        const float r = noise::unit_float(noise::hash_combine(p.seed, uint32_t(row), uint32_t(col)));
        const float shade = 1.0f + p.variation * (2.0f * r - 1.0f);
        img.at(x, y) = encode(glm::clamp(p.brick_color * shade, 0.0f, 1.0f));
      }
    }
  }
  return img;
}

Image make_noise_image(const NoiseTextureParams& p) {
  gc::require_range("noise", "size", p.size, 1, kMaxTextureSize);
  gc::require_range("noise", "frequency", p.frequency, 1, 1024);
  gc::require_range("noise", "octaves", p.octaves, 1, 12);
  check_color("noise", "color_a", p.color_a);
  check_color("noise", "color_b", p.color_b);
  Image img(p.size, p.size);
  const noise::FbmParams fbm{p.seed, p.octaves, p.frequency};
  tbb::parallel_for(0, p.size, [&](int y) {
    const float v = (float(y) + 0.5f) / float(p.size) * float(p.frequency);
    for (int x = 0; x < p.size; ++x) {
      const float u = (float(x) + 0.5f) / float(p.size) * float(p.frequency);
      // fBm clusters around 0.5; stretch [0.25, 0.75] to the full blend range for contrast.
      const float t = std::clamp((noise::fbm(u, v, fbm) - 0.25f) * 2.0f, 0.0f, 1.0f);
      img.at(x, y) = encode(glm::mix(p.color_a, p.color_b, t));
    }
  });
  return img;
}

}  // namespace tessera
