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
  // The reduced coordinate lies in [0, 1], so the lower texel index is in [-1, size - 1] and the
  // upper one in [0, size]: one wrap each (what wrap_texel gives), selects rather than branches.
  const int ix = int(fx), iy = int(fy);
  const int x0 = ix < 0 ? ix + level.width : ix;
  const int y0 = iy < 0 ? iy + level.height : iy;
  const int x1 = ix + 1 >= level.width ? ix + 1 - level.width : ix + 1;
  const int y1 = iy + 1 >= level.height ? iy + 1 - level.height : iy + 1;
  const Rgba8* row0 = level.pixels.data() + size_t(y0) * size_t(level.width);
  const Rgba8* row1 = level.pixels.data() + size_t(y1) * size_t(level.width);
  const glm::vec4 t00 = detail::decode_texel(row0[x0]);
  const glm::vec4 t10 = detail::decode_texel(row0[x1]);
  const glm::vec4 t01 = detail::decode_texel(row1[x0]);
  const glm::vec4 t11 = detail::decode_texel(row1[x1]);
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

namespace detail {

// Texel index under an addressing mode; `i` may lie one texel outside a period.
inline int address_texel(int i, int size, TextureWrap wrap) {
  switch (wrap) {
    case TextureWrap::repeat: return ((i % size) + size) % size;
    case TextureWrap::clamp_to_edge: return std::clamp(i, 0, size - 1);
    case TextureWrap::mirrored_repeat: {
      const int m = ((i % (2 * size)) + 2 * size) % (2 * size);
      return m < size ? m : 2 * size - 1 - m;
    }
  }
  return 0;
}

// A coordinate reduced to where its addressing mode repeats (non-finite: 0), so the texel
// index fits an int: one period for repeat, two for mirrored repeat, [-1, 2] for clamping.
inline float reduce_coordinate(float t, TextureWrap wrap) {
  if (!std::isfinite(t)) return 0.0f;
  switch (wrap) {
    case TextureWrap::repeat: return t - std::floor(t);
    case TextureWrap::mirrored_repeat: return t - 2.0f * std::floor(t * 0.5f);
    case TextureWrap::clamp_to_edge: return std::clamp(t, -1.0f, 2.0f);
  }
  return 0.0f;
}

inline glm::vec4 sample_level(const Image& level, glm::vec2 uv, TextureFilter filter, const SamplerState& s,
                              SamplerCounters& counters) {
  const float u = reduce_coordinate(uv.x, s.wrap_u) * float(level.width);
  const float v = reduce_coordinate(uv.y, s.wrap_v) * float(level.height);
  if (filter == TextureFilter::nearest) {
    counters.texel_fetches += 1;
    return decode_texel(level.at(address_texel(int(std::floor(u)), level.width, s.wrap_u),
                                 address_texel(int(std::floor(v)), level.height, s.wrap_v)));
  }
  const float x = u - 0.5f, y = v - 0.5f;
  const float fx = std::floor(x), fy = std::floor(y);
  const float ax = x - fx, ay = y - fy;
  const int x0 = address_texel(int(fx), level.width, s.wrap_u), x1 = address_texel(int(fx) + 1, level.width, s.wrap_u);
  const int y0 = address_texel(int(fy), level.height, s.wrap_v), y1 = address_texel(int(fy) + 1, level.height, s.wrap_v);
  const glm::vec4 t00 = decode_texel(level.at(x0, y0));
  const glm::vec4 t10 = decode_texel(level.at(x1, y0));
  const glm::vec4 t01 = decode_texel(level.at(x0, y1));
  const glm::vec4 t11 = decode_texel(level.at(x1, y1));
  counters.texel_fetches += 4;
  const glm::vec4 top = t00 + (t10 - t00) * ax;
  const glm::vec4 bottom = t01 + (t11 - t01) * ax;
  return top + (bottom - top) * ay;
}

}  // namespace detail

// Filtered linear RGBA under the texture's sampler state (Vulkan rules: the magnification
// filter where lod <= 0, else the minification filter on the level(s) the mip filter picks).
// The default sampler state takes sample_trilinear, bit for bit.
inline glm::vec4 sample_texture(const Texture& texture, glm::vec2 uv, float lod, SamplerCounters& counters) {
  const SamplerState& s = texture.sampler;
  if (s == SamplerState{}) return sample_trilinear(texture, uv, lod, counters);
  ++counters.samples;
  if (texture.levels.empty()) return glm::vec4(1.0f);
  const float l = std::isfinite(lod) ? lod : 0.0f;
  const TextureFilter filter = l <= 0.0f ? s.mag : s.min;
  const int last = s.mip == MipFilter::none ? 0 : int(texture.levels.size()) - 1;
  const float d = std::clamp(l, 0.0f, float(last));
  if (s.mip != MipFilter::linear) {
    // Nearest level: Vulkan's ceil(d + 0.5) - 1.
    const int level = std::clamp(int(std::ceil(d + 0.5f)) - 1, 0, last);
    return detail::sample_level(texture.levels[size_t(level)], uv, filter, s, counters);
  }
  const int lo = int(d);
  const float delta = d - float(lo);
  const glm::vec4 a = detail::sample_level(texture.levels[size_t(lo)], uv, filter, s, counters);
  if (delta == 0.0f || lo == last) return a;
  const glm::vec4 b = detail::sample_level(texture.levels[size_t(lo + 1)], uv, filter, s, counters);
  return a + (b - a) * delta;
}

// sample_texture for n lanes at once (uv = (u[i], v[i]), lod[i]), written as structure of
// arrays: r/g/b/a[i]. Each lane bit for bit what sample_texture returns, and the same counts.
// The default sampler state (trilinear, repeat) runs in the host's SIMD lanes
// (renderer/texture/sampler_lanes.cpp: texel addresses in lanes, texels and the sRGB decode
// table gathered, the scalar filter's operations in its order); other states, and levels with
// more texels than a 32-bit index reaches, run the scalar filter per lane. `a` may be null:
// alpha is then not filtered (the default state's lanes skip its arithmetic).
void sample_texture_lanes(const Texture& texture, const float* u, const float* v, const float* lod, int n, float* r,
                          float* g, float* b, float* a, SamplerCounters& counters);

// texture_lod for n quads at once, quad i with duv_dx = (dudx[i], dvdx[i]) and duv_dy =
// (dudy[i], dvdy[i]): each bit for bit what texture_lod returns (the derivative lengths and the
// logarithm in SIMD lanes; the logarithm from the C library per quad where the lanes' copy of
// glibc's log2f would not match it, renderer/texture/sampler_lanes.h).
void texture_lod_lanes(const Texture& texture, const float* dudx, const float* dvdx, const float* dudy,
                       const float* dvdy, int n, float* lod);

}  // namespace tessera
