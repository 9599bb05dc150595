#include "tessera/sampler.h"

#include <algorithm>
#include <cmath>

namespace tessera {

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

}  // namespace tessera
