// The fragment program of draws that enter the pipeline at the primitive stage (captured or
// hand-made clip-space draws, tessera/clip_space.h): their vertex work was done elsewhere, so
// the pixel's colour is its interpolated colour varyings (linear RGB) as they are. No EU work.
#pragma once

#include <glm/glm.hpp>

#include "shaders/lambert.h"

namespace tessera::shaders {

struct InterpolatedColorShader {
  static constexpr int kVaryings = 3;
  using Counters = FragmentCounters;
  struct Uniforms {};

  static void run_quad(const Uniforms&, const float (*varyings)[kVaryings], unsigned live, glm::vec3* out, Counters&) {
    for (int i = 0; i < 4; ++i) {
      if (live & (1u << i)) out[i] = glm::vec3(varyings[i][0], varyings[i][1], varyings[i][2]);
    }
  }
};

}  // namespace tessera::shaders
