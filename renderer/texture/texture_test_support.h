// Helpers shared by the tests that sample textures (texture, eu and raster units' tests).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>

#include "tessera/sampler.h"

namespace tessera::texture_testing {

// A texture of w x h with a full mip chain (each level half the size, at least 1) of random
// texels, or only its first level: the chain's contents need not be a box filter of the level
// above for tests that compare two implementations of the same filter.
inline Texture random_texture(int w, int h, uint32_t seed, bool chain = true) {
  std::mt19937 rng(seed);
  Texture t;
  for (;;) {
    Image level(w, h);
    for (Rgba8& p : level.pixels) p = rng();
    t.levels.push_back(level);
    if (!chain || (w == 1 && h == 1)) break;
    w = std::max(1, w / 2);
    h = std::max(1, h / 2);
  }
  return t;
}

}  // namespace tessera::texture_testing
