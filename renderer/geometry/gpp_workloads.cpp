#include "geometry/gpp_workloads.h"

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>

namespace tessera {

std::vector<GppPatch> uniform_patch_grid(float level) {
  std::vector<GppPatch> patches(64 * 64);
  for (size_t i = 0; i < patches.size(); ++i) {
    GppPatch& p = patches[i];
    p.domain = TessDomain::kQuad;
    p.spacing = TessSpacing::kFractionalEven;
    p.factors.outer = {level, level, level, level};
    p.factors.inner = {level, level};
    p.id = uint32_t(i);
  }
  return patches;
}

std::vector<GppPatch> uneven_terrain_patches() {
  constexpr int kGrid = 64, kChunk = 8;
  constexpr float kHalfCone = 0.6f;  // radians, about 34 degrees either side of the view direction
  const glm::vec3 eye(-2.0f, -2.0f, 1.5f);
  const glm::vec2 view_dir = glm::normalize(glm::vec2(1.0f, 1.0f));
  auto level = [&](float x, float y) {
    return std::clamp(160.0f / glm::length(glm::vec3(x, y, 0.0f) - eye), 1.0f, 64.0f);
  };
  std::vector<GppPatch> patches;
  for (int cy = 0; cy < kGrid / kChunk; ++cy)
    for (int cx = 0; cx < kGrid / kChunk; ++cx)
      for (int py = 0; py < kChunk; ++py)
        for (int px = 0; px < kChunk; ++px) {
          const float x = float(cx * kChunk + px), y = float(cy * kChunk + py);
          GppPatch p;
          p.domain = TessDomain::kQuad;
          p.spacing = TessSpacing::kFractionalEven;
          // Edges u=0, v=0, u=1, v=1 of the patch [x, x+1] x [y, y+1].
          p.factors.outer = {level(x, y + 0.5f), level(x + 0.5f, y), level(x + 1, y + 0.5f), level(x + 0.5f, y + 1)};
          p.factors.inner = {std::max(p.factors.outer[1], p.factors.outer[3]),
                             std::max(p.factors.outer[0], p.factors.outer[2])};
          const glm::vec2 to_patch = glm::vec2(x + 0.5f, y + 0.5f) - glm::vec2(eye);
          if (glm::dot(glm::normalize(to_patch), view_dir) < std::cos(kHalfCone)) p.factors.outer[0] = 0.0f;
          p.id = uint32_t(patches.size());
          patches.push_back(p);
        }
  return patches;
}

}  // namespace tessera
