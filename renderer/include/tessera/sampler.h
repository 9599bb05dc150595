// Texture sampling as the texture unit does it: trilinear filtering (linear min/mag, linear
// between mip levels) with repeat addressing, on sRGB-encoded texels decoded before filtering
// (VK_FORMAT_R8G8B8A8_SRGB semantics), level of detail from coarse 2x2-quad derivatives.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <glm/glm.hpp>

#include "tessera/scene.h"

namespace tessera {

// Texel fetch accounting for one shading call site; summed per tile.
struct SamplerCounters {
  uint64_t samples = 0;        // filtered lookups
  uint64_t texel_fetches = 0;  // RGBA8 texels read (4 per bilinear level)
};

// Vulkan level-of-detail: lambda = log2(max(|d(uv*size)/dx|, |d(uv*size)/dy|)) on level 0,
// clamped to [0, levels-1]. dx/dy are uv differences across the quad (coarse derivatives).
float texture_lod(const Texture& texture, glm::vec2 duv_dx, glm::vec2 duv_dy);

namespace detail {

// Repeat addressing. Coordinates arrive reduced to one period, so a texel index is at most
// one step outside [0, size): a compare replaces the integer division of a general modulo.
inline int wrap_texel(int i, int size) {
  if (i < 0) return i + size;
  return i >= size ? i - size : i;
}

// Reduces a coordinate to [0, 1]; repeat addressing makes whole periods irrelevant, and
// non-finite values become 0 so float-to-int conversion stays defined.
inline float reduce_period(float t) {
  if (!std::isfinite(t)) return 0.0f;
  return t - std::floor(t);
}

inline glm::vec4 decode_texel(Rgba8 c) {
  return glm::vec4(decode_srgb8(channel(c, 0)), decode_srgb8(channel(c, 1)), decode_srgb8(channel(c, 2)),
                   float(channel(c, 3)) * (1.0f / 255.0f));
}

}  // namespace detail

// Bilinear filtering of one level (Vulkan texel space: u * width - 0.5).
inline glm::vec4 sample_bilinear(const Image& level, glm::vec2 uv, SamplerCounters& counters) {
  const float x = detail::reduce_period(uv.x) * float(level.width) - 0.5f;
  const float y = detail::reduce_period(uv.y) * float(level.height) - 0.5f;
  const float fx = std::floor(x);
  const float fy = std::floor(y);
  const float ax = x - fx;
  const float ay = y - fy;
  const int x0 = detail::wrap_texel(int(fx), level.width);
  const int y0 = detail::wrap_texel(int(fy), level.height);
  const int x1 = detail::wrap_texel(int(fx) + 1, level.width);
  const int y1 = detail::wrap_texel(int(fy) + 1, level.height);
  const glm::vec4 t00 = detail::decode_texel(level.at(x0, y0));
  const glm::vec4 t10 = detail::decode_texel(level.at(x1, y0));
  const glm::vec4 t01 = detail::decode_texel(level.at(x0, y1));
  const glm::vec4 t11 = detail::decode_texel(level.at(x1, y1));
  counters.texel_fetches += 4;
  const glm::vec4 top = t00 + (t10 - t00) * ax;
  const glm::vec4 bottom = t01 + (t11 - t01) * ax;
  return top + (bottom - top) * ay;
}

// Filtered linear RGBA at uv for a given lod: the two nearest levels blended by the fraction.
inline glm::vec4 sample_trilinear(const Texture& texture, glm::vec2 uv, float lod, SamplerCounters& counters) {
  ++counters.samples;
  if (texture.levels.empty()) return glm::vec4(1.0f);
  const int last = int(texture.levels.size()) - 1;
  const float d = std::clamp(std::isfinite(lod) ? lod : 0.0f, 0.0f, float(last));
  const int lo = int(d);
  const float delta = d - float(lo);
  const glm::vec4 a = sample_bilinear(texture.levels[size_t(lo)], uv, counters);
  if (delta == 0.0f || lo == last) return a;
  const glm::vec4 b = sample_bilinear(texture.levels[size_t(lo + 1)], uv, counters);
  return a + (b - a) * delta;
}

}  // namespace tessera
