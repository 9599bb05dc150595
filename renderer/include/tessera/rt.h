// The ray-tracing unit: a two-level wide BVH (instances over per-mesh BVHs) built with a
// multi-threaded binned SAH builder, traversed with AVX2, with a watertight ray-triangle test.
// Layout, traversal and counters are described in docs/rt.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

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

struct Counters {
  enum Id : int {
#define TESSERA_X(name, key, desc) name,
    TESSERA_RT_COUNTERS(TESSERA_X)
#undef TESSERA_X
        count
  };
  std::array<uint64_t, count> v{};

  uint64_t& operator[](Id id) { return v[size_t(id)]; }
  uint64_t operator[](Id id) const { return v[size_t(id)]; }
  void merge(const Counters& o) {
    for (size_t i = 0; i < v.size(); ++i) v[i] += o.v[i];
  }
  bool operator==(const Counters&) const = default;
  void publish(Stats& stats) const;  // every counter under its key
  // BVH and geometry bytes fetched (nodes, blocks, LOD records) as reads of MemoryClient::rt.
  void record(MemoryLedger& ledger) const;
  static const char* key(Id id);
  static const char* description(Id id);
};

struct Aabb {
  glm::vec3 lo{std::numeric_limits<float>::infinity()};
  glm::vec3 hi{-std::numeric_limits<float>::infinity()};
  void extend(const glm::vec3& p) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  void extend(const Aabb& b) {
    lo = glm::min(lo, b.lo);
    hi = glm::max(hi, b.hi);
  }
  bool empty() const { return !(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z); }
  bool contains(const Aabb& b) const {
    return lo.x <= b.lo.x && lo.y <= b.lo.y && lo.z <= b.lo.z && hi.x >= b.hi.x && hi.y >= b.hi.y && hi.z >= b.hi.z;
  }
  float half_area() const {
    if (empty()) return 0.0f;
    const glm::vec3 d = hi - lo;
    return d.x * d.y + d.y * d.z + d.z * d.x;
  }
};

// A child reference of a wide node: kind in bits 31..29; a leaf keeps its block count - 1 in
// bits 28..26 and its first block in bits 25..0; other kinds keep a 29-bit index.
enum class ChildKind : uint32_t { empty = 0, interior = 1, leaf = 2, instance = 3, lod = 4 };
constexpr int kWidth = 8;                 // children per wide node
constexpr int kBlockWidth = 4;            // triangles per leaf block
constexpr int kMaxLeafBlocks = 2;         // leaves hold at most 8 triangles
constexpr uint32_t kEmptyChild = 0;

inline uint32_t child_ref(ChildKind kind, uint32_t index) { return (uint32_t(kind) << 29) | index; }
inline uint32_t leaf_ref(uint32_t first_block, uint32_t block_count) {
  return (uint32_t(ChildKind::leaf) << 29) | ((block_count - 1) << 26) | first_block;
}
inline ChildKind ref_kind(uint32_t ref) { return ChildKind(ref >> 29); }
inline uint32_t ref_index(uint32_t ref) { return ref_kind(ref) == ChildKind::leaf ? ref & 0x3ffffffu : ref & 0x1fffffffu; }
inline uint32_t leaf_block_count(uint32_t ref) { return ((ref >> 26) & 7u) + 1; }

// Wide node: the boxes of up to 8 children as structure-of-arrays (one AVX2 register per
// plane), their references, and 32 reserved bytes (room for per-child LOD data), 256 bytes.
struct alignas(64) WideNode {
  float lo_x[kWidth], hi_x[kWidth], lo_y[kWidth], hi_y[kWidth], lo_z[kWidth], hi_z[kWidth];
  uint32_t child[kWidth];
  uint32_t reserved[kWidth];
  Aabb child_bounds(int i) const {
    return Aabb{{lo_x[i], lo_y[i], lo_z[i]}, {hi_x[i], hi_y[i], hi_z[i]}};
  }
};
static_assert(sizeof(WideNode) == 256);

// Four triangles as structure-of-arrays vertex planes; unused lanes have primitive kInvalidId
// and are masked out.
struct alignas(16) TriangleBlock {
  float v0[3][kBlockWidth];
  float v1[3][kBlockWidth];
  float v2[3][kBlockWidth];
  uint32_t primitive[kBlockWidth];
};
static_assert(sizeof(TriangleBlock) == 160);

// Storage of the BVH arrays: arrays of 2 MiB and more are placed on transparent huge pages
// where the OS offers them (madvise), since traversal reads them at random and would miss the
// TLB on nearly every node with 4 KiB pages (Embree does the same).
void* allocate_bvh_memory(size_t bytes, size_t alignment);
void free_bvh_memory(void* p, size_t bytes, size_t alignment);

template <typename T>
struct BvhAllocator {
  using value_type = T;
  BvhAllocator() = default;
  template <typename U>
  BvhAllocator(const BvhAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(allocate_bvh_memory(n * sizeof(T), alignof(T))); }
  void deallocate(T* p, size_t n) { free_bvh_memory(p, n * sizeof(T), alignof(T)); }
  // Default-initialises: resize() leaves trivial nodes and blocks unwritten, since the builder
  // writes every one of them anyway (clearing first cost a full pass and the page faults).
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const BvhAllocator<U>&) const {
    return true;
  }
};

// A BVH of one mesh (bottom level) or of the instances (top level). Node 0 is the root.
struct WideBvh {
  std::vector<WideNode, BvhAllocator<WideNode>> nodes;
  std::vector<TriangleBlock, BvhAllocator<TriangleBlock>> blocks;  // bottom level only
  Aabb bounds;
  bool empty() const { return nodes.empty(); }
  size_t bytes() const { return nodes.size() * sizeof(WideNode) + blocks.size() * sizeof(TriangleBlock); }
};

struct BuildOptions {
  int bins = 32;           // SAH bins per axis
  int max_leaf_size = 8;   // triangles (at most kMaxLeafBlocks blocks)
};

struct BuildInfo {
  uint64_t triangles = 0;      // over all meshes (each once)
  uint64_t instances = 0;      // instances in the top level (with a non-empty mesh)
  uint64_t wide_nodes = 0;     // over all levels
  uint64_t blocks = 0;
  uint64_t leaves = 0;
  uint64_t bytes = 0;          // nodes + blocks + instance and LOD records
  uint64_t lod_nodes = 0;      // LOD instances (top-level children of kind lod)
};

// Builds the bottom-level BVH of one triangle mesh (positions + 3 indices per triangle).
// Threads: whatever TBB arena the caller runs in; the result is identical for any count.
WideBvh build_mesh_bvh(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                       const BuildOptions& options = {});

// An instance as the top level sees it.
struct InstanceRecord {
  glm::mat4 object_to_world{1.0f};
  glm::mat4 world_to_object{1.0f};
  uint32_t mesh = 0;
  uint32_t scene_instance = 0;  // index in Scene::instances (reported in Hit::instance)
  bool translation_only = false;  // rays keep their direction in object space
};

// ---- LOD nodes (docs/rt.md, spec rt-lod.md) -------------------------------------------------

constexpr int kLodLevels = 4;  // levels per LOD node (kMaxLodLevels of tessera/scene.h)

// A LOD node: a top-level child of kind `lod` whose box (in the parent's slot) is the union of
// its levels' world boxes. One per LOD instance; each level is an instance child of that level's
// mesh BVH. 64 bytes, one cache line.
struct alignas(64) LodRecord {
  uint32_t object_id = 0;       // LOD group: row of the residency bit registers
  uint32_t level_count = 0;     // 1..kLodLevels; interval level_count (beyond the last range) = discard
  float bias = 0.0f;            // node bias
  float range[kLodLevels] = {};  // near to far: interval i is [range[i-1], range[i])
  uint32_t level_ref[kLodLevels] = {};  // child reference per level (an instance child)
  uint32_t level_unit[kLodLevels] = {};  // residency unit (object * kLodLevels + level)
};
static_assert(sizeof(LodRecord) == 64);

// Per-ray LOD inputs, set by the shader that spawns the ray.
struct RayLod {
  float path_length = 0.0f;  // distance travelled before this ray's origin (camera to here)
  float bias = 0.0f;         // ray bias: larger = coarser sooner (diffuse > mirror)
  uint64_t seed = 0;         // jitter seed (e.g. pixel and sample): same seed, same choice
};

constexpr int kLodByDistance = -1;   // forced_level: no override
constexpr int kLodCoarsest = 0x7fff; // forced_level: the object's coarsest level

class Residency;

// Per-frame LOD policy. Selection at a LOD node: unless the ray type forces a level,
// r = t_entry * |direction| + path_length + ray bias + type_bias[type] + node bias
//     + jitter * (u - 1/2), u = hash(seed) in [0, 1);
// the first level with r < range[i] is used, none = discard.
struct LodSettings {
  bool enabled = true;   // false: LOD off - the finest level everywhere, no discard
  float jitter = 0.0f;   // width of the stochastic transition band (distance units)
  std::array<float, size_t(RayType::count)> type_bias{};  // added per ray type
  std::array<int, size_t(RayType::count)> forced_level = [] {  // mode bits per ray type
    std::array<int, size_t(RayType::count)> a;
    a.fill(kLodByDistance);
    return a;
  }();
  Residency* residency = nullptr;  // null: every level resident, no marks
  // The rasterizer's way for comparison: when not empty, one level per LOD node (index of
  // lod_records(), -1 = discard) chosen per object per frame, e.g. camera_lod_levels(); it
  // replaces the per-ray choice (and the ray-type modes).
  std::span<const int8_t> object_levels;
};

// The level a LOD node selects for one ray, before residency: kLodLevels.. = discard (-1).
int select_lod_level(const LodRecord& node, float t_entry_distance, RayType type, const RayLod& ray,
                     const LodSettings& settings, bool* forced = nullptr);

// An LOD group as the acceleration structure holds it: the mesh of each level (a residency unit).
struct LodObject {
  uint32_t level_count = 0;
  uint32_t mesh[kLodLevels] = {};
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
  const WideBvh& top_level() const { return top_; }
  const std::vector<WideBvh>& meshes() const { return meshes_; }
  const std::vector<InstanceRecord>& instances() const { return instances_; }
  const std::vector<LodRecord>& lod_records() const { return lod_records_; }
  const std::vector<LodObject>& lod_objects() const { return lod_objects_; }  // one per Scene LOD group
  // Bytes of a mesh as a residency unit: its BVH (nodes + blocks) and its geometry (positions,
  // indices).
  uint64_t mesh_bytes(uint32_t mesh) const;
  // Per-object camera-distance LOD (tessera/lod.h's choice): per LOD node the level picked by
  // the distance from `eye` to the centre of its finest level's world box plus the node bias.
  std::vector<int8_t> camera_lod_levels(const glm::vec3& eye) const;
  void publish(Stats& stats) const;  // rt.bvh.* build figures

 private:
  std::vector<WideBvh> meshes_;
  std::vector<InstanceRecord> instances_;  // top-level instance children index this
  WideBvh top_;
  BuildInfo info_;
  std::vector<std::vector<glm::vec3>> positions_;  // per mesh, for geometric_normal
  std::vector<std::vector<uint32_t>> indices_;
  std::vector<uint32_t> record_of_instance_;  // Scene instance -> instances_ entry (level 0 of an LOD instance)
  std::vector<LodRecord> lod_records_;
  std::vector<LodObject> lod_objects_;
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
