// The ray-tracing unit's memory layout (docs/rt.md, Node and leaf layout; LOD nodes): wide
// nodes, triangle blocks, child references, instance and LOD records, and what an
// AccelerationStructure holds. Private to renderer/rt/ and its tests: the public API
// (tessera/rt.h) keeps these behind AccelerationStructure::Layout, so the layout can change
// without touching its users.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/rt.h"

namespace tessera::rt {

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
constexpr int kWidth = 8;          // children per wide node
constexpr int kBlockWidth = 4;     // triangles per leaf block
constexpr int kMaxLeafBlocks = 2;  // leaves hold at most 8 triangles
constexpr uint32_t kEmptyChild = 0;

inline uint32_t child_ref(ChildKind kind, uint32_t index) { return (uint32_t(kind) << 29) | index; }
inline uint32_t leaf_ref(uint32_t first_block, uint32_t block_count) {
  return (uint32_t(ChildKind::leaf) << 29) | ((block_count - 1) << 26) | first_block;
}
inline ChildKind ref_kind(uint32_t ref) { return ChildKind(ref >> 29); }
inline uint32_t ref_index(uint32_t ref) {
  return ref_kind(ref) == ChildKind::leaf ? ref & 0x3ffffffu : ref & 0x1fffffffu;
}
inline uint32_t leaf_block_count(uint32_t ref) { return ((ref >> 26) & 7u) + 1; }

// Wide node: the boxes of up to 8 children as structure-of-arrays (one AVX2 register per
// plane), their references, and 32 reserved bytes (room for per-child LOD data), 256 bytes.
struct alignas(64) WideNode {
  float lo_x[kWidth], hi_x[kWidth], lo_y[kWidth], hi_y[kWidth], lo_z[kWidth], hi_z[kWidth];
  uint32_t child[kWidth];
  uint32_t reserved[kWidth];
  Aabb child_bounds(int i) const { return Aabb{{lo_x[i], lo_y[i], lo_z[i]}, {hi_x[i], hi_y[i], hi_z[i]}}; }
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
// Blocks of 2 MiB and more freed here are kept for the next allocation of the same size and kind
// (bounded), so rebuilds reuse pages already mapped; `huge_pages` false is for sparsely written
// build scratch, where a huge page would clear 2 MiB for each slot written.
void* allocate_bvh_memory(size_t bytes, size_t alignment, bool huge_pages = true);
void free_bvh_memory(void* p, size_t bytes, size_t alignment, bool huge_pages = true);

// One user of the freed-block cache (acceleration_structure.cpp): while any exists, freed blocks
// are kept for reuse; when the last goes, the cached blocks go back to the system. Every Layout
// (so every live AccelerationStructure), every running build_mesh_bvh and every
// KeepBuildMemory holds one.
struct BvhMemoryUser {
  BvhMemoryUser();
  ~BvhMemoryUser();
  BvhMemoryUser(const BvhMemoryUser&) : BvhMemoryUser() {}
  BvhMemoryUser& operator=(const BvhMemoryUser&) { return *this; }
};

// Bytes the freed-block cache holds now (tests: the memory goes back after the last user).
size_t cached_bvh_bytes();

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

// Builds the bottom-level BVH of one triangle mesh (positions + 3 indices per triangle).
// Threads: whatever TBB arena the caller runs in; the result is identical for any count.
WideBvh build_mesh_bvh(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                       const BuildOptions& options = {});

// An instance as the top level sees it.
struct InstanceRecord {
  glm::mat4 object_to_world{1.0f};
  glm::mat4 world_to_object{1.0f};
  uint32_t mesh = 0;
  uint32_t scene_instance = 0;    // index in Scene::instances (reported in Hit::instance)
  bool translation_only = false;  // rays keep their direction in object space
};

// A LOD node: a top-level child of kind `lod` whose box (in the parent's slot) is the union of
// its levels' world boxes. One per LOD instance; each level is an instance child of that level's
// mesh BVH. 64 bytes, one cache line.
struct alignas(64) LodRecord {
  uint32_t object_id = 0;                // LOD group: row of the residency bit registers
  uint32_t level_count = 0;              // 1..kLodLevels; interval level_count (beyond the last range) = discard
  float bias = 0.0f;                     // node bias
  float range[kLodLevels] = {};          // near to far: interval i is [range[i-1], range[i])
  uint32_t level_ref[kLodLevels] = {};   // child reference per level (an instance child)
  uint32_t level_unit[kLodLevels] = {};  // residency unit (object * kLodLevels + level)
};
static_assert(sizeof(LodRecord) == 64);

// The level a LOD node selects for one ray, before residency (LodSettings has the formula):
// kLodLevels.. = discard (-1).
int select_lod_level(const LodRecord& node, float t_entry_distance, RayType type, const RayLod& ray,
                     const LodSettings& settings, bool* forced = nullptr);

// An LOD group as the acceleration structure holds it: the mesh of each level (a residency unit).
struct LodObject {
  uint32_t level_count = 0;
  uint32_t mesh[kLodLevels] = {};
};

// Everything an AccelerationStructure holds but its build figures.
struct AccelerationStructure::Layout {
  BvhMemoryUser memory_user;  // first member: destroyed last, after the arrays went to the cache
  std::vector<WideBvh> meshes;
  std::vector<InstanceRecord> instances;  // top-level instance children index this
  WideBvh top;
  std::vector<std::vector<glm::vec3>> positions;  // per mesh, for geometric_normal
  std::vector<std::vector<uint32_t>> indices;
  std::vector<uint32_t> record_of_instance;  // Scene instance -> instances entry (level 0 of an LOD instance)
  std::vector<LodRecord> lod_records;
  std::vector<LodObject> lod_objects;  // one per Scene LOD group

  // Bytes of a mesh as a residency unit: its BVH (nodes + blocks) and its geometry (positions,
  // indices).
  uint64_t mesh_bytes(uint32_t mesh) const {
    if (mesh >= meshes.size()) return 0;
    return meshes[mesh].bytes() + positions[mesh].size() * sizeof(glm::vec3) + indices[mesh].size() * sizeof(uint32_t);
  }
};

}  // namespace tessera::rt
