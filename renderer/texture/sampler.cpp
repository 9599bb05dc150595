#include "tessera/sampler.h"

#include <algorithm>
#include <cmath>

namespace tessera {

namespace {

// Repeat addressing. Coordinates arrive reduced to one period, so a texel index is at most
// one step outside [0, size): a compare replaces the integer division of a general modulo.
inline int wrap(int i, int size) {
  if (i < 0) return i + size;
  return i >= size ? i - size : i;
}

inline glm::vec4 decode(Rgba8 c) {
  return glm::vec4(decode_srgb8(channel(c, 0)), decode_srgb8(channel(c, 1)), decode_srgb8(channel(c, 2)),
                   float(channel(c, 3)) * (1.0f / 255.0f));
}

// Keeps texel coordinates finite and in a range where float->int conversion is defined; repeat
// addressing makes whole periods irrelevant.
inline float sanitize(float t) {
  if (!std::isfinite(t)) return 0.0f;
  return t - std::floor(t);
}

}  // namespace

float texture_lod(const Texture& texture, glm::vec2 duv_dx, glm::vec2 duv_dy) {
  if (texture.levels.empty()) return 0.0f;
  const Image& base = texture.levels[0];
  const glm::vec2 size(float(base.width), float(base.height));
  const float rho_x = glm::length(duv_dx * size);
  const float rho_y = glm::length(duv_dy * size);
  const float rho = std::max(rho_x, rho_y);
  const float max_lod = float(texture.levels.size() - 1);
  if (!(rho > 0.0f)) return 0.0f;  // zero or NaN derivatives: base level
  const float lambda = std::log2(rho);
  return std::clamp(lambda, 0.0f, max_lod);
}

glm::vec4 sample_bilinear(const Image& level, glm::vec2 uv, SamplerCounters& counters) {
  const float x = sanitize(uv.x) * float(level.width) - 0.5f;
  const float y = sanitize(uv.y) * float(level.height) - 0.5f;
  const float fx = std::floor(x);
  const float fy = std::floor(y);
  const float ax = x - fx;
  const float ay = y - fy;
  const int x0 = wrap(int(fx), level.width);
  const int y0 = wrap(int(fy), level.height);
  const int x1 = wrap(int(fx) + 1, level.width);
  const int y1 = wrap(int(fy) + 1, level.height);
  const glm::vec4 t00 = decode(level.at(x0, y0));
  const glm::vec4 t10 = decode(level.at(x1, y0));
  const glm::vec4 t01 = decode(level.at(x0, y1));
  const glm::vec4 t11 = decode(level.at(x1, y1));
  counters.texel_fetches += 4;
  const glm::vec4 top = t00 + (t10 - t00) * ax;
  const glm::vec4 bottom = t01 + (t11 - t01) * ax;
  return top + (bottom - top) * ay;
}

glm::vec4 sample_trilinear(const Texture& texture, glm::vec2 uv, float lod, SamplerCounters& counters) {
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
