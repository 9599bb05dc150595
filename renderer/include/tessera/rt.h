// The ray-tracing unit: a two-level wide BVH (instances over per-mesh BVHs) built with a
// multi-threaded binned SAH builder, traversed with AVX2, with a watertight ray-triangle test.
// Layout, traversal and counters are described in docs/rt.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/counter_set.h"

namespace tessera {

class Stats;
struct MemoryLedger;
struct Scene;

namespace rt {

constexpr uint32_t kInvalidId = 0xffffffffu;

// A ray segment: hits are reported for tmin <= t <= tmax. The direction need not be unit length;
// t is measured in units of it (as in Embree).
struct Ray {
  glm::vec3 origin{0.0f};
  float tmin = 0.0f;
  glm::vec3 direction{0.0f, 0.0f, -1.0f};
  float tmax = std::numeric_limits<float>::infinity();
};

// Closest hit: barycentrics u, v weight vertices 1 and 2 of the triangle (vertex 0 gets 1-u-v),
// as Embree reports them; primitive is the triangle index within the instance's mesh.
struct Hit {
  float t = std::numeric_limits<float>::infinity();
  float u = 0.0f;
  float v = 0.0f;
  uint32_t instance = kInvalidId;
  uint32_t primitive = kInvalidId;
  int32_t lod_level = -1;  // level of an LOD instance that was hit (primitive indexes its mesh), -1 = none
  bool hit() const { return primitive != kInvalidId; }
};

// Ray types are counted separately; later they also select LOD modes (docs/rt.md).
#define TESSERA_RT_RAY_TYPES(X) \
  X(primary)                    \
  X(shadow)                     \
  X(diffuse)                    \
  X(reflection)

enum class RayType : uint32_t {
#define TESSERA_X(name) name,
  TESSERA_RT_RAY_TYPES(TESSERA_X)
#undef TESSERA_X
      count
};
const char* ray_type_name(RayType type);

// Traversal counters, X(name, stats key, meaning). Each query adds into the Counters the caller
// passes (one per thread or per fixed chunk of rays); merging is integer addition in chunk
// order, so totals do not depend on the thread count.
// clang-format off
#define TESSERA_RT_COUNTERS(X)                                                                       \
  X(rays_primary, "rt.rays.primary", "primary rays traced")                                          \
  X(rays_shadow, "rt.rays.shadow", "shadow rays traced (any-hit)")                                   \
  X(rays_diffuse, "rt.rays.diffuse", "diffuse bounce rays traced")                                   \
  X(rays_reflection, "rt.rays.reflection", "mirror reflection rays traced")                          \
  X(rays_hit, "rt.rays.hit", "rays that found a hit (closest hit) or an occluder (any hit)")        \
  X(nodes_interior, "rt.nodes.interior", "wide interior nodes visited (up to 8 boxes tested at once)") \
  X(nodes_leaf, "rt.nodes.leaf", "leaves visited (triangle blocks of the bottom level)")             \
  X(nodes_instance, "rt.nodes.instance", "instances entered (ray moved into object space)")          \
  X(triangles_tested, "rt.triangles.tested", "ray-triangle tests (valid lanes of visited blocks)")   \
  X(triangles_hit, "rt.triangles.hit", "triangle tests that passed (closer hit candidates)")         \
  X(node_bytes, "rt.bytes.nodes", "bytes of wide nodes fetched")                                     \
  X(triangle_bytes, "rt.bytes.triangles", "bytes of triangle blocks fetched")                         \
  X(nodes_lod, "rt.nodes.lod", "LOD nodes reached (a level selected or the object discarded)")        \
  X(lod_level0, "rt.lod.level0", "LOD nodes that descended into level 0 (finest)")                    \
  X(lod_level1, "rt.lod.level1", "LOD nodes that descended into level 1")                             \
  X(lod_level2, "rt.lod.level2", "LOD nodes that descended into level 2")                             \
  X(lod_level3, "rt.lod.level3", "LOD nodes that descended into level 3")                             \
  X(lod_discards, "rt.lod.discards", "LOD nodes whose distance fell in the discard interval")         \
  X(lod_forced, "rt.lod.forced", "LOD nodes whose level the ray type's mode forced")                  \
  X(lod_substitutions, "rt.lod.substitutions", "LOD nodes that used a resident level instead of the wanted one") \
  X(lod_bytes, "rt.bytes.lod", "bytes of LOD records fetched (64 per LOD node)")
// clang-format on

TESSERA_DEFINE_COUNTER_IDS(RtCounterIds, TESSERA_RT_COUNTERS);
using Counters = CounterSet<RtCounterIds>;

// BVH and geometry bytes fetched (nodes, blocks, LOD records) as reads of MemoryClient::rt.
void record(const Counters& counters, MemoryLedger& ledger);

struct BuildOptions {
  int bins = 32;          // SAH bins per axis
  int max_leaf_size = 8;  // triangles (at most 8: two blocks of 4)
};

struct BuildInfo {
  uint64_t triangles = 0;   // over all meshes (each once)
  uint64_t instances = 0;   // instances in the top level (with a non-empty mesh)
  uint64_t wide_nodes = 0;  // over all levels
  uint64_t blocks = 0;
  uint64_t leaves = 0;
  uint64_t bytes = 0;      // nodes + blocks + instance and LOD records
  uint64_t lod_nodes = 0;  // LOD instances (top-level children of kind lod)
};

// ---- LOD nodes (docs/rt.md, spec rt-lod.md) -------------------------------------------------

constexpr int kLodLevels = 4;  // levels per LOD node (kMaxLodLevels of tessera/scene.h)

// Per-ray LOD inputs, set by the shader that spawns the ray.
struct RayLod {
  float path_length = 0.0f;  // distance travelled before this ray's origin (camera to here)
  float bias = 0.0f;         // ray bias: larger = coarser sooner (diffuse > mirror)
  uint64_t seed = 0;         // jitter seed (e.g. pixel and sample): same seed, same choice
};

constexpr int kLodByDistance = -1;    // forced_level: no override
constexpr int kLodCoarsest = 0x7fff;  // forced_level: the object's coarsest level

class Residency;

// Per-frame LOD policy. Selection at a LOD node: unless the ray type forces a level,
// r = t_entry * |direction| + path_length + ray bias + type_bias[type] + node bias
//     + jitter * (u - 1/2), u = hash(seed) in [0, 1);
// the first level with r < range[i] is used, none = discard.
struct LodSettings {
  bool enabled = true;                                    // false: LOD off - the finest level everywhere, no discard
  float jitter = 0.0f;                                    // width of the stochastic transition band (distance units)
  std::array<float, size_t(RayType::count)> type_bias{};  // added per ray type
  std::array<int, size_t(RayType::count)> forced_level = [] {  // mode bits per ray type
    std::array<int, size_t(RayType::count)> a;
    a.fill(kLodByDistance);
    return a;
  }();
  Residency* residency = nullptr;  // null: every level resident, no marks
  // The rasterizer's way for comparison: when not empty, one level per LOD node (-1 = discard,
  // in the order of camera_lod_levels()) chosen per object per frame, e.g. camera_lod_levels();
  // it replaces the per-ray choice (and the ray-type modes).
  std::span<const int8_t> object_levels;
};

struct BvhMemoryUser;

// Freed BVH memory (arrays of 2 MiB and more) is kept for the next build while an
// AccelerationStructure is alive or a build runs, and given back to the system when the last
// one goes. Hold a KeepBuildMemory across a sequence of builds that frees each structure before
// building the next (bench repetitions), so the next build still reuses the pages; the kept
// memory (at most 512 MiB) is given back when the last holder and structure are gone.
class KeepBuildMemory {
 public:
  KeepBuildMemory();
  ~KeepBuildMemory();
  KeepBuildMemory(const KeepBuildMemory&) = delete;
  KeepBuildMemory& operator=(const KeepBuildMemory&) = delete;

 private:
  std::unique_ptr<BvhMemoryUser> user_;
};

class AccelerationStructure {
 public:
  // Builds one BVH per mesh (in parallel) and the top level over Scene::instances.
  // Throws tessera::Error for instances that refer to missing meshes or bad indices.
  static AccelerationStructure build(const Scene& scene, const BuildOptions& options = {});

  // Closest hit. Adds the query's counts into `counters`.
  Hit intersect(const Ray& ray, RayType type, Counters& counters) const;
  // Any hit in [tmin, tmax] (shadow rays): stops at the first.
  bool occluded(const Ray& ray, RayType type, Counters& counters) const;

  // Many rays on the calling TBB arena, in fixed chunks; counters merged in chunk order.
  void intersect(std::span<const Ray> rays, std::span<Hit> hits, RayType type, Counters& counters) const;
  void occluded(std::span<const Ray> rays, std::span<uint8_t> occluded, RayType type, Counters& counters) const;

  // The same with LOD inputs. The overloads without them use RayLod{} and LodSettings{}
  // (distance selection, no bias, every level resident). Batches: `lod` is empty (RayLod{}
  // with seed = ray index) or one per ray.
  Hit intersect(const Ray& ray, RayType type, const RayLod& lod, const LodSettings& settings, Counters& counters) const;
  bool occluded(const Ray& ray, RayType type, const RayLod& lod, const LodSettings& settings, Counters& counters) const;
  void intersect(std::span<const Ray> rays, std::span<const RayLod> lod, std::span<Hit> hits, RayType type,
                 const LodSettings& settings, Counters& counters) const;
  void occluded(std::span<const Ray> rays, std::span<const RayLod> lod, std::span<uint8_t> occluded, RayType type,
                const LodSettings& settings, Counters& counters) const;

  // World-space geometric normal (unnormalized, from the triangle's winding) of a hit.
  glm::vec3 geometric_normal(const Hit& hit) const;

  const BuildInfo& info() const { return info_; }
  // Per-object camera-distance LOD (tessera/lod.h's choice): per LOD node the level picked by
  // the distance from `eye` to the centre of its finest level's world box plus the node bias.
  std::vector<int8_t> camera_lod_levels(const glm::vec3& eye) const;
  void publish(Stats& stats) const;  // rt.bvh.* build figures

  // The nodes, blocks and records (renderer/rt/bvh_layout.h): for the unit's own code and tests.
  struct Layout;
  const Layout& layout() const { return *layout_; }

  AccelerationStructure();  // empty: every query misses
  AccelerationStructure(AccelerationStructure&&) noexcept;
  AccelerationStructure& operator=(AccelerationStructure&&) noexcept;
  ~AccelerationStructure();

 private:
  std::unique_ptr<Layout> layout_;
  BuildInfo info_;
};

}  // namespace rt
}  // namespace tessera

namespace tessera {
struct Camera;
namespace rt {

// The ray through pixel position (px, py) (pixel centres at +0.5, y down) of a width x height
// view of `camera`, starting at the camera position; direction not normalized.
Ray camera_ray(const Camera& camera, int width, int height, float px, float py);

// The workload `bench rt` and the Embree agreement tests trace: primary rays through every
// pixel centre; from each primary hit a shadow ray toward the scene's first light (straight up
// without lights) and a cosine-weighted diffuse ray about the geometric normal (seeded per pixel,
// so the set is the same for any thread count). Secondary origins are offset along the normal.
struct RayWorkload {
  std::vector<Ray> primary;
  std::vector<Ray> shadow;
  std::vector<Ray> diffuse;
  // Per shadow / diffuse ray (same index): the primary hit's distance from the camera, the
  // path length their LOD selection adds.
  std::vector<float> secondary_path;
};
// Primary rays hit with `lod` (LOD off: the finest levels, what Embree traces); a shadow ray
// to the first light and a diffuse ray per hit.
RayWorkload make_ray_workload(const AccelerationStructure& as, const Scene& scene, const Camera& camera, int width,
                              int height, uint64_t seed = 1, const LodSettings& lod = {});

}  // namespace rt
}  // namespace tessera
