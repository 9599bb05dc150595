// Texture sampling as the texture unit does it: trilinear filtering (linear min/mag, linear
// between mip levels) with repeat addressing, on sRGB-encoded texels decoded before filtering
// (VK_FORMAT_R8G8B8A8_SRGB semantics), level of detail from coarse 2x2-quad derivatives.
#pragma once

#include <cstdint>

#include <glm/glm.hpp>

#include "tessera/scene.h"

namespace tessera {

// Texel fetch accounting for one shading call site; summed per tile.
struct SamplerCounters {
  uint64_t samples = 0;       // filtered lookups
  uint64_t texel_fetches = 0; // RGBA8 texels read (4 per bilinear level)
};

// Vulkan level-of-detail: lambda = log2(max(|d(uv*size)/dx|, |d(uv*size)/dy|)) on level 0,
// clamped to [0, levels-1]. dx/dy are uv differences across the quad (coarse derivatives).
float texture_lod(const Texture& texture, glm::vec2 duv_dx, glm::vec2 duv_dy);

// Filtered linear RGBA at uv for a given lod.
glm::vec4 sample_trilinear(const Texture& texture, glm::vec2 uv, float lod, SamplerCounters& counters);

// Bilinear filtering of one level (lod fraction handled by sample_trilinear).
glm::vec4 sample_bilinear(const Image& level, glm::vec2 uv, SamplerCounters& counters);

}  // namespace tessera
