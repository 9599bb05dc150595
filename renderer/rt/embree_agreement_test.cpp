// The ray-tracing unit against Embree 3 on the shipped scenes and the same rays: same hit/miss
// except rays whose hit (on either side) lies within 1e-5 relative of a triangle edge, which are
// counted and reported; hit distances within 1e-4 relative; the same instance and primitive
// unless another triangle lies at the same distance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>

#include "bench/rt_embree_peer.h"
#include "rt/bvh_layout.h"
#include "tessera/rt.h"
#include "tessera/scene.h"

namespace tessera::rt {
namespace {

constexpr float kEdgeTolerance = 1e-5f;
constexpr float kDistanceTolerance = 1e-4f;
constexpr double kCoordinateTolerance = 1e-6;

// Distance along `ray` to triangle (instance, primitive) in double precision (Moeller-Trumbore
// without culling), or -1 when the ray misses its plane: decides whether two different
// primitives really lie at the same distance.
double distance_to(const Scene& scene, const Ray& ray, uint32_t instance, uint32_t primitive) {
  const Instance& inst = scene.instances[instance];
  const Mesh& mesh = scene.meshes[inst.mesh];
  glm::dvec3 v[3];
  for (int k = 0; k < 3; ++k)
    v[k] = glm::dvec3(
        glm::dmat4(inst.transform) *
        glm::dvec4(glm::dvec3(mesh.vertices[mesh.indices[3 * size_t(primitive) + size_t(k)]].position), 1.0));
  const glm::dvec3 o(ray.origin), d(ray.direction);
  const glm::dvec3 e1 = v[1] - v[0], e2 = v[2] - v[0];
  const glm::dvec3 p = glm::cross(d, e2);
  const double det = glm::dot(e1, p);
  if (det == 0.0) return -1.0;
  const glm::dvec3 q = glm::cross(o - v[0], e1);
  return glm::dot(e2, q) / det;
}

// Whether a hit lies within kEdgeTolerance of an edge of its triangle, relative to the size of
// the numbers involved (the larger of the distance travelled and the hit point's coordinates):
// the angle under which float rounding of the ray and of instance transforms can move a hit
// across an edge. Measured in world space, in double precision.
bool near_edge(const Scene& scene, const Ray& ray, const Hit& h) {
  if (!h.hit()) return false;
  const Instance& inst = scene.instances[h.instance];
  const Mesh& mesh = scene.meshes[inst.mesh];
  glm::dvec3 v[3];
  for (int k = 0; k < 3; ++k)
    v[k] = glm::dvec3(
        glm::dmat4(inst.transform) *
        glm::dvec4(glm::dvec3(mesh.vertices[mesh.indices[3 * size_t(h.primitive) + size_t(k)]].position), 1.0));
  const glm::dvec3 p = glm::dvec3(ray.origin) + double(h.t) * glm::dvec3(ray.direction);
  double d = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    const glm::dvec3 a = v[k], e = v[(k + 1) % 3] - a;
    const double len2 = glm::dot(e, e);
    const double s = len2 > 0.0 ? std::clamp(glm::dot(p - a, e) / len2, 0.0, 1.0) : 0.0;
    d = std::min(d, glm::length(p - (a + s * e)));
  }
  const double scale =
      std::max({double(h.t) * glm::length(glm::dvec3(ray.direction)), std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
  return d <= double(kEdgeTolerance) * scale;
}

struct Agreement {
  size_t rays = 0, hits = 0;
  size_t edge = 0;                 // hit/miss or distance differences explained by an edge
  size_t hit_mismatch = 0;         // hit vs miss away from any edge
  size_t distance_mismatch = 0;    // both hit, distances differ, away from edges
  size_t short_distance = 0;       // beyond 1e-4 of t but within the coordinates' rounding
  size_t same_distance_other = 0;  // different primitive at the same distance (ambiguous)
  size_t primitive_mismatch = 0;   // different primitive, unambiguous
};

Agreement compare_closest(const Scene& scene, const AccelerationStructure& as, const EmbreePeer& peer,
                          const std::vector<Ray>& rays, RayType type) {
  Agreement a;
  Counters c;
  for (const Ray& ray : rays) {
    const Hit ours = as.intersect(ray, type, c);
    const Hit ref = peer.intersect(ray);
    ++a.rays;
    a.hits += ref.hit();
    const bool edge = near_edge(scene, ray, ours) || near_edge(scene, ray, ref);
    if (ours.hit() != ref.hit()) {
      (edge ? a.edge : a.hit_mismatch)++;
      if (!edge && a.hit_mismatch <= 5)
        std::printf("  mismatch: ours %d t=%g (%u,%u) embree %d t=%g (%u,%u)\n", ours.hit(), ours.t, ours.instance,
                    ours.primitive, ref.hit(), ref.t, ref.instance, ref.primitive);
      continue;
    }
    if (!ours.hit()) continue;
    const double rel = std::fabs(double(ours.t) - double(ref.t)) / std::max(1e-30, std::fabs(double(ref.t)));
    if (rel > kDistanceTolerance) {
      // Hits very close to the origin (secondary rays leaving a surface): both results carry
      // the rounding of the coordinates (about 1e-7 of their magnitude, which the exact double
      // distance shows), so 1e-6 of the hit point's magnitude bounds the difference instead.
      const glm::vec3 p = ray.origin + ref.t * ray.direction;
      const double scale = std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z), std::fabs(ray.origin.x),
                                     std::fabs(ray.origin.y), std::fabs(ray.origin.z)});
      const double dt_world = std::fabs(double(ours.t) - double(ref.t)) * double(glm::length(ray.direction));
      if (dt_world <= kCoordinateTolerance * scale) {
        ++a.short_distance;
      } else {
        (edge ? a.edge : a.distance_mismatch)++;
        if (!edge && a.distance_mismatch < 6)
          std::printf("  distance: ours t=%.9g (%u,%u) %g %g embree t=%.9g (%u,%u) %g %g exact %.9g\n", ours.t,
                      ours.instance, ours.primitive, ours.u, ours.v, ref.t, ref.instance, ref.primitive, ref.u, ref.v,
                      distance_to(scene, ray, ours.instance, ours.primitive));
        continue;
      }
    }
    if (ours.instance == ref.instance && ours.primitive == ref.primitive) continue;
    const double other = distance_to(scene, ray, ref.instance, ref.primitive);
    const double mine = distance_to(scene, ray, ours.instance, ours.primitive);
    if (edge || std::fabs(other - mine) <= kDistanceTolerance * std::fabs(mine)) {
      ++a.same_distance_other;
    } else {
      ++a.primitive_mismatch;
    }
  }
  return a;
}

Agreement compare_occluded(const Scene& scene, const AccelerationStructure& as, const EmbreePeer& peer,
                           const std::vector<Ray>& rays) {
  Agreement a;
  Counters c;
  for (const Ray& ray : rays) {
    const bool ours = as.occluded(ray, RayType::shadow, c);
    const bool ref = peer.occluded(ray);
    ++a.rays;
    a.hits += ref;
    if (ours == ref) continue;
    // Which occluder was missed or found: an edge graze explains it.
    const bool edge =
        near_edge(scene, ray, as.intersect(ray, RayType::shadow, c)) || near_edge(scene, ray, peer.intersect(ray));
    (edge ? a.edge : a.hit_mismatch)++;
  }
  return a;
}

// `edge_budget`: the share of rays allowed to differ at an edge (rays aimed at edges on
// purpose may all graze one; ordinary rays rarely do).
void report(const char* what, const Agreement& a, double edge_budget = 1e-3) {
  std::printf(
      "%-18s rays %6zu hits %6zu | edge %3zu | hit/miss %zu distance %zu primitive %zu | same distance %zu, "
      "short t %zu\n",
      what, a.rays, a.hits, a.edge, a.hit_mismatch, a.distance_mismatch, a.primitive_mismatch, a.same_distance_other,
      a.short_distance);
  ::testing::Test::RecordProperty(std::string(what) + "_edge_rays", int(a.edge));
  EXPECT_EQ(a.hit_mismatch, 0u) << what;
  EXPECT_EQ(a.distance_mismatch, 0u) << what;
  EXPECT_EQ(a.primitive_mismatch, 0u) << what;
  EXPECT_LE(double(a.edge), edge_budget * double(a.rays) + 2.0)
      << what << ": more edge disagreements than rounding explains";
  EXPECT_GT(a.hits, 0u) << what << ": the rays must find something";
}

class RtEmbree : public ::testing::TestWithParam<const char*> {};

TEST_P(RtEmbree, SameHitsOnTheSameRays) {
  const Scene scene = load_scene(std::filesystem::path(TESSERA_SOURCE_DIR) / GetParam());
  const auto as = AccelerationStructure::build(scene);
  const EmbreePeer peer(scene);
  const RayWorkload w = make_ray_workload(as, scene, scene.camera, 240, 135, 7);
  // Random rays from inside the scene's box in all directions, with random t ranges.
  std::vector<Ray> random;
  const Aabb box = as.layout().top.bounds;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int i = 0; i < 10000; ++i) {
    Ray r;
    r.origin = box.lo + (box.hi - box.lo) * glm::vec3(u(rng), u(rng), u(rng)) * 0.5f + (box.hi - box.lo) * 0.25f;
    r.direction = glm::vec3(u(rng) - 0.5f, u(rng) - 0.5f, u(rng) - 0.5f);
    if (i % 2) {
      r.tmin = u(rng) * 2.0f;
      r.tmax = r.tmin + u(rng) * 40.0f;
    }
    random.push_back(r);
  }
  // Rays from the camera aimed exactly at points on triangle edges and at vertices of the
  // instanced meshes: where a miss through a crack or a different neighbour would show.
  std::vector<Ray> edges;
  for (int i = 0; i < 6000; ++i) {
    const Instance& inst = scene.instances[size_t(rng()) % scene.instances.size()];
    const Mesh& mesh = scene.meshes[inst.mesh];
    if (mesh.indices.empty()) continue;
    const size_t tri = size_t(rng()) % (mesh.indices.size() / 3);
    const int e = i % 3;
    const glm::vec3 a = mesh.vertices[mesh.indices[3 * tri + size_t(e)]].position;
    const glm::vec3 b = mesh.vertices[mesh.indices[3 * tri + size_t((e + 1) % 3)]].position;
    const float s = i % 4 == 0 ? 0.0f : u(rng);
    const glm::vec3 target = glm::vec3(inst.transform * glm::vec4(a + s * (b - a), 1.0f));
    Ray r;
    r.origin = scene.camera.position;
    r.direction = target - r.origin;
    edges.push_back(r);
  }
  std::printf("%s\n", GetParam());
  report("edges and vertices", compare_closest(scene, as, peer, edges, RayType::primary), 0.5);
  report("primary", compare_closest(scene, as, peer, w.primary, RayType::primary));
  report("diffuse", compare_closest(scene, as, peer, w.diffuse, RayType::diffuse));
  report("random", compare_closest(scene, as, peer, random, RayType::reflection));
  report("shadow (any hit)", compare_occluded(scene, as, peer, w.shadow));
  report("random (any hit)", compare_occluded(scene, as, peer, random));
}

INSTANTIATE_TEST_SUITE_P(Scenes, RtEmbree, ::testing::Values("assets/default.json", "assets/bench/objects.json"),
                         [](const auto& param) { return std::string(param.index == 0 ? "default" : "objects"); });

}  // namespace
}  // namespace tessera::rt
