#include "scene/noise.h"

#include <cmath>

namespace tessera::noise {

uint32_t hash32(uint32_t x) {
  // "lowbias32" integer finaliser: xor-shift and odd multiplies, bijective on 32 bits.
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

uint32_t hash_combine(uint32_t seed, uint32_t a, uint32_t b, uint32_t c) {
  uint32_t h = hash32(seed ^ 0x9e3779b9u);
  h = hash32(h ^ a);
  h = hash32(h ^ (b + 0x85ebca6bu));
  h = hash32(h ^ (c + 0xc2b2ae35u));
  return h;
}

float unit_float(uint32_t hash) { return float(hash >> 8) * (1.0f / 16777216.0f); }

namespace {

// Quintic fade: zero first and second derivatives at lattice points, so terrain normals
// (first derivatives) show no creases along cell edges.
float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

int wrap(int i, int period) {
  if (period <= 0) return i;
  const int m = i % period;
  return m < 0 ? m + period : m;
}

float lattice(int ix, int iy, uint32_t seed, int period) {
  return unit_float(hash_combine(seed, uint32_t(wrap(ix, period)), uint32_t(wrap(iy, period))));
}

}  // namespace

float value_noise(float x, float y, uint32_t seed, int period) {
  const float fx = std::floor(x);
  const float fy = std::floor(y);
  const int ix = int(fx);
  const int iy = int(fy);
  const float tx = fade(x - fx);
  const float ty = fade(y - fy);
  const float v00 = lattice(ix, iy, seed, period);
  const float v10 = lattice(ix + 1, iy, seed, period);
  const float v01 = lattice(ix, iy + 1, seed, period);
  const float v11 = lattice(ix + 1, iy + 1, seed, period);
  const float a = v00 + (v10 - v00) * tx;
  const float b = v01 + (v11 - v01) * tx;
  return a + (b - a) * ty;
}

float fbm(float x, float y, const FbmParams& params) {
  float sum = 0.0f;
  float amplitude = 1.0f;
  float total = 0.0f;
  float frequency = 1.0f;
  int period = params.period;
  for (int o = 0; o < params.octaves; ++o) {
    // Each octave gets its own lattice (seed + octave) so octaves do not line up.
    sum += amplitude * value_noise(x * frequency, y * frequency, params.seed + uint32_t(o) * 1013u, period);
    total += amplitude;
    amplitude *= 0.5f;
    frequency *= 2.0f;
    period *= 2;
  }
  return total > 0.0f ? sum / total : 0.0f;
}

}  // namespace tessera::noise
