// Deterministic hashing and value noise for the procedural generators. Integer hashing only,
// so a seed gives the same terrain, texture and instance jitter on every machine and compiler.
#pragma once

#include <cstdint>

namespace tessera::noise {

// Avalanching 32-bit integer hash (every input bit affects every output bit).
uint32_t hash32(uint32_t x);
// Hash of a seed and up to three lattice or element coordinates.
uint32_t hash_combine(uint32_t seed, uint32_t a, uint32_t b = 0, uint32_t c = 0);
// Uniform float in [0, 1) from the top 24 bits of a hash.
float unit_float(uint32_t hash);

// Fractal sum of value-noise octaves at (x, y) in lattice units of the first octave.
// Each octave doubles the frequency and halves the amplitude. Result in [0, 1].
// period > 0 makes the noise tile with that period (in first-octave lattice cells) so a
// texture built from it repeats without seams; period 0 means no tiling.
struct FbmParams {
  uint32_t seed = 0;
  int octaves = 5;
  int period = 0;
};
float fbm(float x, float y, const FbmParams& params);

// One octave: smoothly interpolated lattice values in [0, 1].
float value_noise(float x, float y, uint32_t seed, int period);

}  // namespace tessera::noise
