// Instance grids: many copies of one mesh, so small meshes add up to large scenes.
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <numbers>

#include "scene/generator_checks.h"
#include "scene/noise.h"
#include "tessera/procedural.h"

namespace tessera {

namespace gc = generator_checks;

std::vector<Instance> make_instance_grid(const InstanceGridParams& p) {
  for (int a = 0; a < 3; ++a) {
    gc::require_range("instance grid", "count", p.count[a], 1, int(kMaxGridInstances));
    gc::require_range("instance grid", "spacing", p.spacing[a], -1e6f, 1e6f);
    gc::require_range("instance grid", "origin", p.origin[a], -1e6f, 1e6f);
  }
  const uint64_t total = uint64_t(p.count.x) * uint64_t(p.count.y) * uint64_t(p.count.z);
  gc::require_range("instance grid", "count product", total, uint64_t(1), kMaxGridInstances);
  gc::require_positive("instance grid", "scale", p.scale);
  gc::require_range("instance grid", "scale_jitter", p.scale_jitter, 0.0f, 0.99f);
  gc::require_range("instance grid", "position_jitter", p.position_jitter, 0.0f, 0.5f);

  std::vector<Instance> out;
  out.reserve(size_t(total));
  uint32_t index = 0;
  for (int k = 0; k < p.count.z; ++k) {
    for (int j = 0; j < p.count.y; ++j) {
      for (int i = 0; i < p.count.x; ++i, ++index) {
        // Independent streams per property, so turning one jitter on does not change another.
        const float r_angle = noise::unit_float(noise::hash_combine(p.seed, index, 1));
        const float r_scale = noise::unit_float(noise::hash_combine(p.seed, index, 2));
        const float r_x = noise::unit_float(noise::hash_combine(p.seed, index, 3));
        const float r_z = noise::unit_float(noise::hash_combine(p.seed, index, 4));

        glm::vec3 position = p.origin + glm::vec3(float(i), float(j), float(k)) * p.spacing;
        position.x += p.spacing.x * p.position_jitter * (2.0f * r_x - 1.0f);
        position.z += p.spacing.z * p.position_jitter * (2.0f * r_z - 1.0f);
        const float s = p.scale * (1.0f + p.scale_jitter * (2.0f * r_scale - 1.0f));

        glm::mat4 m = glm::translate(glm::mat4(1.0f), position);
        if (p.random_rotation_y) {
          m = glm::rotate(m, 2.0f * std::numbers::pi_v<float> * r_angle, glm::vec3(0, 1, 0));
        }
        m = glm::scale(m, glm::vec3(s));
        out.push_back({p.mesh, p.material, m});
      }
    }
  }
  return out;
}

}  // namespace tessera
