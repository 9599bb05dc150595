// Camera rays and the primary/shadow/diffuse workload shared by `bench rt` and the tests.
#include <algorithm>
#include <cmath>

#include "rt/seed_hash.h"
#include "tessera/rt.h"
#include "tessera/scene.h"

namespace tessera::rt {

Ray camera_ray(const Camera& camera, int width, int height, float px, float py) {
  const glm::vec3 forward = glm::normalize(camera.target - camera.position);
  const glm::vec3 right = glm::normalize(glm::cross(forward, camera.up));
  const glm::vec3 up = glm::cross(right, forward);
  const float tan_half = std::tan(glm::radians(camera.fov_y_degrees) * 0.5f);
  const float aspect = float(width) / float(height);
  const float x = (2.0f * px / float(width) - 1.0f) * aspect * tan_half;
  const float y = (1.0f - 2.0f * py / float(height)) * tan_half;
  Ray ray;
  ray.origin = camera.position;
  ray.direction = forward + x * right + y * up;
  ray.tmin = 0.0f;
  return ray;
}

RayWorkload make_ray_workload(const AccelerationStructure& as, const Scene& scene, const Camera& camera, int width,
                              int height, uint64_t seed, const LodSettings& lod) {
  RayWorkload w;
  w.primary.reserve(size_t(width) * size_t(height));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      w.primary.push_back(camera_ray(camera, width, height, float(x) + 0.5f, float(y) + 0.5f));
  std::vector<Hit> hits(w.primary.size());
  Counters unused;
  as.intersect(w.primary, {}, hits, RayType::primary, lod, unused);
  for (size_t i = 0; i < hits.size(); ++i) {
    if (!hits[i].hit()) continue;
    const Ray& pr = w.primary[i];
    const glm::vec3 p = pr.origin + hits[i].t * pr.direction;
    glm::vec3 n = as.geometric_normal(hits[i]);
    const float len = glm::length(n);
    if (!(len > 0.0f) || !std::isfinite(len)) continue;
    n /= len;
    if (glm::dot(n, pr.direction) > 0.0f) n = -n;
    const float scale = std::max({1.0f, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    const glm::vec3 o = p + n * (1e-4f * scale);
    Ray shadow;
    shadow.origin = o;
    if (scene.lights.empty()) {
      shadow.direction = glm::vec3(0.0f, 1.0f, 0.0f);
    } else if (scene.lights[0].type == LightType::directional) {
      shadow.direction = -scene.lights[0].direction;
    } else {
      shadow.direction = scene.lights[0].position - o;
      shadow.tmax = 0.999f;
    }
    w.shadow.push_back(shadow);
    // A per-pixel stream that depends on the seed and the pixel only.
    const uint64_t h = splitmix64(seed ^ splitmix64(uint64_t(i)));
    const float u1 = unit_float(h), u2 = unit_float(splitmix64(h));
    const float r = std::sqrt(u1), phi = 6.2831853f * u2;
    const glm::vec3 a = std::fabs(n.x) > 0.5f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
    const glm::vec3 t = glm::normalize(glm::cross(a, n));
    const glm::vec3 b = glm::cross(n, t);
    Ray diffuse;
    diffuse.origin = o;
    diffuse.direction = t * (r * std::cos(phi)) + b * (r * std::sin(phi)) + n * std::sqrt(std::max(0.0f, 1.0f - u1));
    w.diffuse.push_back(diffuse);
    w.secondary_path.push_back(hits[i].t * glm::length(pr.direction));
  }
  return w;
}

}  // namespace tessera::rt
