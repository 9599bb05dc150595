// Two-level acceleration structure: build from a Scene and AVX2 traversal (docs/rt.md).
#include <immintrin.h>

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/partitioner.h>

#include "rt/bvh_builder.h"
#include "rt/bvh_layout.h"
#include "rt/seed_hash.h"
#include "tessera/error.h"
#include "tessera/memory_ledger.h"
#include "tessera/rt.h"
#include "tessera/rt_residency.h"
#include "tessera/scene.h"
#include "tessera/stats.h"

namespace tessera::rt {

const char* ray_type_name(RayType type) {
  static constexpr const char* kNames[] = {
#define TESSERA_X(name) #name,
      TESSERA_RT_RAY_TYPES(TESSERA_X)
#undef TESSERA_X
  };
  return uint32_t(type) < uint32_t(RayType::count) ? kNames[uint32_t(type)] : "unknown";
}

void record(const Counters& counters, MemoryLedger& ledger) {
  ledger.add_read(MemoryClient::rt,
                  counters[Counters::node_bytes] + counters[Counters::triangle_bytes] + counters[Counters::lod_bytes]);
}

// ---------------------------------------------------------------------------------------------
// Build

namespace {
constexpr size_t kHugePage = size_t(1) << 21;

// Freed BVH blocks of 2 MiB and more, kept for the next allocation of the same size: a fresh
// block's pages are faulted in and cleared by the kernel on first touch, which was about a fifth
// of a one-thread build. Rebuilds (the viewer's scenes with patches, bench repetitions, a
// Renderer's structure after a scene change) allocate the same sizes again, so an exact size
// match reuses pages already mapped. Bounded: beyond kCachedBytes (more than a 1 M-triangle
// build uses) the oldest blocks go back to the system. The contents are never relied on: every
// array is written before it is read.
// Release point: blocks are kept only while something may allocate them again - a live
// AccelerationStructure (its Layout), a running build_mesh_bvh, or a KeepBuildMemory - counted
// as users. When the last user goes, every cached block goes back to the system, and blocks
// freed with no user left are not kept.
class FreedBlocks {
 public:
  static constexpr size_t kCachedBytes = size_t(512) << 20;
  // A block of `rounded` bytes, with or without the huge-page hint, or null.
  void* take(size_t rounded, bool huge) {
    std::lock_guard lock(mutex_);
    for (size_t i = blocks_.size(); i-- > 0;)
      if (blocks_[i].bytes == rounded && blocks_[i].huge == huge) {
        void* p = blocks_[i].p;
        blocks_.erase(blocks_.begin() + long(i));
        bytes_ -= rounded;
        return p;
      }
    return nullptr;
  }
  void give(void* p, size_t rounded, bool huge) {
    std::vector<void*> release;
    {
      std::lock_guard lock(mutex_);
      if (rounded > kCachedBytes || users_ == 0) {
        release.push_back(p);
      } else {
        blocks_.push_back({p, rounded, huge});
        bytes_ += rounded;
        size_t drop = 0;
        while (bytes_ > kCachedBytes) bytes_ -= blocks_[drop].bytes, release.push_back(blocks_[drop++].p);
        blocks_.erase(blocks_.begin(), blocks_.begin() + long(drop));
      }
    }
    for (void* q : release) std::free(q);
  }
  void add_user() {
    std::lock_guard lock(mutex_);
    ++users_;
  }
  void remove_user() {
    std::vector<Block> release;
    {
      std::lock_guard lock(mutex_);
      if (--users_ > 0) return;
      release.swap(blocks_);
      bytes_ = 0;
    }
    for (const Block& b : release) std::free(b.p);
  }
  size_t bytes() {
    std::lock_guard lock(mutex_);
    return bytes_;
  }

 private:
  std::mutex mutex_;
  struct Block {
    void* p;
    size_t bytes;
    bool huge;  // with the huge-page hint (dense arrays) or not (sparsely written scratch)
  };
  std::vector<Block> blocks_;  // oldest first
  size_t bytes_ = 0;
  size_t users_ = 0;
};

// Never destroyed: structures freed during static destruction still find it.
FreedBlocks& freed_blocks() {
  static FreedBlocks* blocks = new FreedBlocks;
  return *blocks;
}
}  // namespace

BvhMemoryUser::BvhMemoryUser() { freed_blocks().add_user(); }
BvhMemoryUser::~BvhMemoryUser() { freed_blocks().remove_user(); }

size_t cached_bvh_bytes() { return freed_blocks().bytes(); }

KeepBuildMemory::KeepBuildMemory() : user_(std::make_unique<BvhMemoryUser>()) {}
KeepBuildMemory::~KeepBuildMemory() = default;

void* allocate_bvh_memory(size_t bytes, size_t alignment, bool huge_pages) {
  if (bytes >= kHugePage) {
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    if (void* p = freed_blocks().take(rounded, huge_pages)) return p;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
    if (huge_pages) ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without huge pages it is ordinary memory
    return p;
  }
  return ::operator new(bytes, std::align_val_t(std::max<size_t>(alignment, 64)));
}

void free_bvh_memory(void* p, size_t bytes, size_t alignment, bool huge_pages) {
  if (bytes >= kHugePage) {
    freed_blocks().give(p, (bytes + kHugePage - 1) / kHugePage * kHugePage, huge_pages);
  } else {
    ::operator delete(p, std::align_val_t(std::max<size_t>(alignment, 64)));
  }
}

namespace {
// Throws for a triangle with an index out of range or a non-finite vertex.
void check_triangle(std::span<const glm::vec3> positions, std::span<const uint32_t> indices, size_t i) {
  for (int k = 0; k < 3; ++k) {
    const uint32_t index = indices[3 * i + size_t(k)];
    if (index >= positions.size())
      throw Error("rt: triangle " + std::to_string(i) + " refers to vertex " + std::to_string(index) + " of " +
                  std::to_string(positions.size()));
    const glm::vec3& v = positions[index];
    if (!(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z)))
      throw Error("rt: triangle " + std::to_string(i) + " uses vertex " + std::to_string(index) +
                  " with a non-finite position");
  }
}

// Triangle i's box as Aabb::extend over its vertices in order gives it, in SSE registers:
// extend's min(lo, p) is (p < lo ? p : lo), which is _mm_min_ps(p, lo), so even a -0 / +0 tie
// keeps extend's operand. False for a triangle check_triangle rejects (an index out of range or
// a coordinate not finite: all exponent bits set). Lane 3 is not loaded (the last vertex may end
// the array).
bool triangle_box(std::span<const glm::vec3> positions, std::span<const uint32_t> indices, size_t i, Aabb& box) {
  static_assert(sizeof(glm::vec3) == 3 * sizeof(float) && sizeof(Aabb) == 6 * sizeof(float));
  const uint32_t* tri = indices.data() + 3 * i;
  const size_t count = positions.size();
  if ((tri[0] >= count) | (tri[1] >= count) | (tri[2] >= count)) return false;
  const __m128i xyz = _mm_setr_epi32(-1, -1, -1, 0);
  const float* p = &positions.data()->x;
  const __m128 v0 = _mm_maskload_ps(p + 3 * size_t(tri[0]), xyz);
  const __m128 v1 = _mm_maskload_ps(p + 3 * size_t(tri[1]), xyz);
  const __m128 v2 = _mm_maskload_ps(p + 3 * size_t(tri[2]), xyz);
  const __m128i exponent = _mm_set1_epi32(0x7f800000);
  auto not_finite = [&](__m128 v) { return _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(v), exponent), exponent); };
  if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(not_finite(v0), not_finite(v1)), not_finite(v2)))) return false;
  const __m128 lo = _mm_min_ps(v2, _mm_min_ps(v1, v0));
  const __m128 hi = _mm_max_ps(v2, _mm_max_ps(v1, v0));
  alignas(16) float l[4], h[4];
  _mm_store_ps(l, lo);
  _mm_store_ps(h, hi);
  box.lo = glm::vec3(l[0], l[1], l[2]);
  box.hi = glm::vec3(h[0], h[1], h[2]);
  return true;
}

}  // namespace

WideBvh build_mesh_bvh(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                       const BuildOptions& options) {
  if (indices.size() % 3 != 0)
    throw Error("rt: index count " + std::to_string(indices.size()) + " is not a multiple of 3");
  const size_t n = indices.size() / 3;
  WideBvh bvh;
  if (n == 0) return bvh;
  const BvhMemoryUser building;  // scratch freed during the build is kept for its next allocation
  BinaryBuildOptions bo;
  bo.bins = options.bins;
  bo.max_leaf_size = std::clamp(options.max_leaf_size, 1, kBlockWidth * kMaxLeafBlocks);
  // Triangles are checked as their boxes are taken, saving a pass over the vertices: a bad one
  // gets a point box at the origin, and the lowest bad index (the same for any thread count)
  // is reported once the tree is built.
  std::atomic<size_t> first_bad{n};
  const BinaryBvh binary = build_binary_bvh(
      n,
      [&](size_t first, std::span<Aabb> out) {
        size_t bad = n;
        for (size_t e = 0; e < out.size(); ++e) {
          const size_t i = first + e;
          Aabb box;
          if (!triangle_box(positions, indices, i, box)) {
            bad = std::min(bad, i);
            box = Aabb{};
            box.extend(glm::vec3(0.0f));
          }
          out[e] = box;
        }
        for (size_t seen = first_bad.load(); bad < seen && !first_bad.compare_exchange_weak(seen, bad);) {
        }
      },
      bo);
  if (first_bad.load() < n) check_triangle(positions, indices, first_bad.load());
  bvh.bounds = binary.nodes[0].bounds();
  // The leaves' blocks are numbered in binary-tree order (left to right), so the blocks are
  // filled from the binary tree by a parallel walk, beside the sequential collapse. The block
  // array is not cleared (BvhAllocator default-initialises): the walk writes every block whole.
  TS_CHECK(binary.blocks < (1u << 26), "rt: too many triangle blocks");
  TS_CHECK(binary.nodes[0].blocks == binary.blocks, "rt: leaf blocks do not match the binary tree");
  bvh.blocks.resize(binary.blocks);
  // A block's vertices are loaded one per register (xyz, lane 3 not loaded: the last vertex may
  // end the array) and transposed 4 by 4 into its planes; unused lanes hold +0 and kInvalidId.
  static_assert(kBlockWidth == 4, "one SSE register a vertex plane");
  auto fill_leaf = [&](const BinaryNode& leaf, uint32_t first_block) {
    const __m128i xyz = _mm_setr_epi32(-1, -1, -1, 0);
    const float* p = &positions.data()->x;
    for (uint32_t b = 0; b * kBlockWidth < leaf.count; ++b) {
      alignas(16) uint32_t primitive[kBlockWidth];
      __m128 v[3][kBlockWidth];  // vertex k of the lane's triangle
      for (int lane = 0; lane < kBlockWidth; ++lane) {
        const uint32_t k = b * kBlockWidth + uint32_t(lane);
        if (k >= leaf.count) {
          primitive[lane] = kInvalidId;
          v[0][lane] = v[1][lane] = v[2][lane] = _mm_setzero_ps();
          continue;
        }
        const uint32_t prim = binary.order[leaf.first + k];
        primitive[lane] = prim;
        for (int vertex = 0; vertex < 3; ++vertex)
          v[vertex][lane] = _mm_maskload_ps(p + 3 * size_t(indices[3 * size_t(prim) + size_t(vertex)]), xyz);
      }
      TriangleBlock& block = bvh.blocks[first_block + b];
      float(*const planes[3])[kBlockWidth] = {block.v0, block.v1, block.v2};
      for (int vertex = 0; vertex < 3; ++vertex) {
        __m128 x = v[vertex][0], y = v[vertex][1], z = v[vertex][2], w = v[vertex][3];
        _MM_TRANSPOSE4_PS(x, y, z, w);  // now x, y, z hold the four lanes' coordinates
        _mm_store_ps(planes[vertex][0], x);
        _mm_store_ps(planes[vertex][1], y);
        _mm_store_ps(planes[vertex][2], z);
      }
      _mm_store_si128(reinterpret_cast<__m128i*>(block.primitive),
                      _mm_load_si128(reinterpret_cast<const __m128i*>(primitive)));
    }
  };
  // Subtrees of at least kFillTask primitives split into two tasks; smaller ones are walked by
  // one task (an explicit stack: the tree may be deep where splits fall back to medians).
  constexpr uint32_t kFillTask = 4096;
  auto fill = [&](auto& self, uint32_t slot, uint32_t first_block) -> void {
    const BinaryNode& node = binary.nodes[slot];
    if (node.count >= kFillTask && !node.leaf()) {
      tbb::parallel_invoke([&] { self(self, slot + 1, first_block); },
                           [&] { self(self, node.right, first_block + binary.nodes[slot + 1].blocks); });
      return;
    }
    std::vector<std::pair<uint32_t, uint32_t>> stack{{slot, first_block}};
    while (!stack.empty()) {
      const auto [s, fb] = stack.back();
      stack.pop_back();
      const BinaryNode& at = binary.nodes[s];
      if (at.leaf()) {
        fill_leaf(at, fb);
        continue;
      }
      stack.push_back({at.right, fb + binary.nodes[s + 1].blocks});
      stack.push_back({s + 1, fb});
    }
  };
  tbb::parallel_invoke(
      [&] {
        bvh.nodes = collapse_to_wide(binary, [&](uint32_t, uint32_t count, uint32_t first_block) {
          const uint32_t block_count = (count + kBlockWidth - 1) / kBlockWidth;
          TS_CHECK(block_count <= uint32_t(kMaxLeafBlocks), "rt: leaf too large");
          return leaf_ref(first_block, block_count);
        });
      },
      [&] { fill(fill, 0, 0); });
  return bvh;
}

AccelerationStructure::AccelerationStructure() : layout_(std::make_unique<Layout>()) {}
AccelerationStructure::AccelerationStructure(AccelerationStructure&&) noexcept = default;
AccelerationStructure& AccelerationStructure::operator=(AccelerationStructure&&) noexcept = default;
AccelerationStructure::~AccelerationStructure() = default;

AccelerationStructure AccelerationStructure::build(const Scene& scene, const BuildOptions& options) {
  AccelerationStructure as;
  Layout& layout = *as.layout_;
  const size_t mesh_count = scene.meshes.size();
  layout.positions.resize(mesh_count);
  layout.indices.resize(mesh_count);
  layout.meshes.resize(mesh_count);
  // Copies per mesh in parallel: for large meshes a sequential copy shows in the build time.
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, mesh_count, 1),
      [&](const tbb::blocked_range<size_t>& r) {
        for (size_t m = r.begin(); m != r.end(); ++m) {
          const Mesh& mesh = scene.meshes[m];
          layout.positions[m].reserve(mesh.vertices.size());
          for (const Vertex& v : mesh.vertices) layout.positions[m].push_back(v.position);
          layout.indices[m] = mesh.indices;
        }
      },
      tbb::simple_partitioner());
  // Only meshes some instance uses are built.
  std::vector<uint8_t> used(mesh_count, 0);
  // LOD groups: one LOD object each (the row of the residency registers).
  layout.lod_objects.resize(scene.lod_groups.size());
  for (size_t g = 0; g < scene.lod_groups.size(); ++g) {
    const LodGroup& group = scene.lod_groups[g];
    if (group.levels.empty() || group.levels.size() > size_t(kLodLevels) || group.ranges.size() != group.levels.size())
      throw Error("rt: LOD group " + std::to_string(g) + " needs 1.." + std::to_string(kLodLevels) +
                  " levels and one range per level");
    for (size_t l = 0; l < group.levels.size(); ++l) {
      if (group.levels[l] >= mesh_count)
        throw Error("rt: LOD group " + std::to_string(g) + " level " + std::to_string(l) + " refers to mesh " +
                    std::to_string(group.levels[l]) + " of " + std::to_string(mesh_count));
      if (l > 0 && !(group.ranges[l] > group.ranges[l - 1]))
        throw Error("rt: LOD group " + std::to_string(g) + " ranges must increase strictly");
      layout.lod_objects[g].mesh[l] = group.levels[l];
    }
    layout.lod_objects[g].level_count = uint32_t(group.levels.size());
  }
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    const Instance& inst = scene.instances[i];
    if (inst.lod_group >= 0) {
      if (size_t(inst.lod_group) >= scene.lod_groups.size())
        throw Error("rt: instance " + std::to_string(i) + " refers to LOD group " + std::to_string(inst.lod_group) +
                    " of " + std::to_string(scene.lod_groups.size()));
      for (uint32_t m : scene.lod_groups[size_t(inst.lod_group)].levels) used[m] = 1;
      continue;
    }
    if (inst.mesh >= mesh_count)
      throw Error("rt: instance " + std::to_string(i) + " refers to mesh " + std::to_string(inst.mesh) + " of " +
                  std::to_string(mesh_count));
    used[inst.mesh] = 1;
  }
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, mesh_count, 1),
      [&](const tbb::blocked_range<size_t>& r) {
        for (size_t m = r.begin(); m != r.end(); ++m)
          if (used[m]) layout.meshes[m] = build_mesh_bvh(layout.positions[m], layout.indices[m], options);
      },
      tbb::simple_partitioner());

  std::vector<Aabb> boxes;
  std::vector<uint32_t> top_refs;  // child reference of each top-level box
  layout.record_of_instance.assign(scene.instances.size(), kInvalidId);
  auto world_box = [](const WideBvh& mesh, const glm::mat4& transform) {
    Aabb world;
    for (int c = 0; c < 8; ++c) {
      const glm::vec3 p{(c & 1) ? mesh.bounds.hi.x : mesh.bounds.lo.x, (c & 2) ? mesh.bounds.hi.y : mesh.bounds.lo.y,
                        (c & 4) ? mesh.bounds.hi.z : mesh.bounds.lo.z};
      world.extend(glm::vec3(transform * glm::vec4(p, 1.0f)));
    }
    // Rounding of the corner transform: widen by a few ulps so the box stays conservative.
    const glm::vec3 pad = (glm::abs(world.lo) + glm::abs(world.hi) + (world.hi - world.lo)) * 1e-6f;
    world.lo -= pad;
    world.hi += pad;
    return world;
  };
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    const Instance& inst = scene.instances[i];
    const float det = glm::determinant(glm::mat3(inst.transform));
    if (!(std::isfinite(det) && det != 0.0f)) continue;  // flattened or broken transform: nothing to hit
    InstanceRecord rec;
    rec.object_to_world = inst.transform;
    rec.world_to_object = glm::inverse(inst.transform);
    rec.translation_only = glm::mat3(rec.world_to_object) == glm::mat3(1.0f);
    rec.scene_instance = uint32_t(i);
    if (inst.lod_group >= 0) {
      // A LOD node: one instance record per level (consecutive), the combined box in the top level.
      const LodGroup& group = scene.lod_groups[size_t(inst.lod_group)];
      LodRecord node;
      node.object_id = uint32_t(inst.lod_group);
      node.level_count = uint32_t(group.levels.size());
      node.bias = group.bias;
      Aabb combined;
      const uint32_t first = uint32_t(layout.instances.size());
      for (size_t l = 0; l < group.levels.size(); ++l) {
        rec.mesh = group.levels[l];
        const WideBvh& mesh = layout.meshes[rec.mesh];
        node.range[l] = group.ranges[l];
        node.level_unit[l] = node.object_id * kLodLevels + uint32_t(l);
        node.level_ref[l] = mesh.empty() ? kEmptyChild : child_ref(ChildKind::instance, first + uint32_t(l));
        if (!mesh.empty()) combined.extend(world_box(mesh, inst.transform));
        layout.instances.push_back(rec);
      }
      if (combined.empty()) {
        layout.instances.resize(first);
        continue;
      }
      layout.record_of_instance[i] = first;
      TS_CHECK(layout.lod_records.size() < (1u << 29), "rt: too many LOD nodes");
      top_refs.push_back(child_ref(ChildKind::lod, uint32_t(layout.lod_records.size())));
      layout.lod_records.push_back(node);
      boxes.push_back(combined);
      continue;
    }
    const WideBvh& mesh = layout.meshes[inst.mesh];
    if (mesh.empty()) continue;
    rec.mesh = inst.mesh;
    layout.record_of_instance[i] = uint32_t(layout.instances.size());
    top_refs.push_back(child_ref(ChildKind::instance, uint32_t(layout.instances.size())));
    layout.instances.push_back(rec);
    boxes.push_back(world_box(mesh, inst.transform));
  }
  if (!boxes.empty()) {
    BinaryBuildOptions bo;
    bo.bins = options.bins;
    bo.max_leaf_size = 1;
    const BinaryBvh binary = build_binary_bvh(boxes, bo);
    layout.top.bounds = binary.nodes[0].bounds();
    layout.top.nodes = collapse_to_wide(binary, [&](uint32_t first, uint32_t count, uint32_t) {
      TS_CHECK(count == 1, "rt: top-level leaves hold one instance");
      return top_refs[binary.order[first]];
    });
  }
  BuildInfo& info = as.info_;
  info.instances = boxes.size();
  info.lod_nodes = layout.lod_records.size();
  for (size_t m = 0; m < mesh_count; ++m) {
    const WideBvh& b = layout.meshes[m];
    if (b.empty()) continue;
    info.triangles += layout.indices[m].size() / 3;
    info.wide_nodes += b.nodes.size();
    info.blocks += b.blocks.size();
    for (const WideNode& n : b.nodes)
      for (uint32_t c : n.child) info.leaves += ref_kind(c) == ChildKind::leaf;
    info.bytes += b.bytes();
  }
  info.wide_nodes += layout.top.nodes.size();
  info.bytes += layout.top.bytes() + layout.instances.size() * sizeof(InstanceRecord) +
                layout.lod_records.size() * sizeof(LodRecord);
  return as;
}

std::vector<int8_t> AccelerationStructure::camera_lod_levels(const glm::vec3& eye) const {
  const Layout& layout = *layout_;
  std::vector<int8_t> levels(layout.lod_records.size(), -1);
  for (size_t i = 0; i < layout.lod_records.size(); ++i) {
    const LodRecord& node = layout.lod_records[i];
    const uint32_t first = node.level_ref[0];
    if (first == kEmptyChild) continue;
    const InstanceRecord& rec = layout.instances[ref_index(first)];
    const Aabb& box = layout.meshes[rec.mesh].bounds;
    const glm::vec3 centre = glm::vec3(rec.object_to_world * glm::vec4(0.5f * (box.lo + box.hi), 1.0f));
    const float r = glm::length(centre - eye) + node.bias;
    for (uint32_t l = 0; l < node.level_count; ++l)
      if (r < node.range[l]) {
        levels[i] = int8_t(l);
        break;
      }
  }
  return levels;
}

void AccelerationStructure::publish(Stats& stats) const {
  stats.set("rt.bvh.triangles", info_.triangles);
  stats.set("rt.bvh.instances", info_.instances);
  stats.set("rt.bvh.wide_nodes", info_.wide_nodes);
  stats.set("rt.bvh.leaves", info_.leaves);
  stats.set("rt.bvh.blocks", info_.blocks);
  stats.set("rt.bvh.bytes", info_.bytes);
  stats.set("rt.bvh.lod_nodes", info_.lod_nodes);
}

glm::vec3 AccelerationStructure::geometric_normal(const Hit& hit) const {
  const Layout& layout = *layout_;
  if (!hit.hit() || hit.instance >= layout.record_of_instance.size() ||
      layout.record_of_instance[hit.instance] == kInvalidId)
    return glm::vec3(0.0f);
  const size_t record = size_t(layout.record_of_instance[hit.instance]) + size_t(std::max(hit.lod_level, 0));
  if (record >= layout.instances.size() || layout.instances[record].scene_instance != hit.instance) {
    return glm::vec3(0.0f);
  }
  const InstanceRecord& rec = layout.instances[record];
  const auto& p = layout.positions[rec.mesh];
  const auto& idx = layout.indices[rec.mesh];
  TS_CHECK(size_t(hit.primitive) * 3 + 2 < idx.size(), "rt: hit primitive out of range");
  const glm::vec3 a = p[idx[3 * size_t(hit.primitive)]], b = p[idx[3 * size_t(hit.primitive) + 1]],
                  c = p[idx[3 * size_t(hit.primitive) + 2]];
  // Normals transform by the inverse transpose.
  return glm::transpose(glm::mat3(rec.world_to_object)) * glm::cross(b - a, c - a);
}

// ---------------------------------------------------------------------------------------------
// Traversal

namespace {

// A query's counts go straight into the caller's Counters: zeroing a local set and merging it
// was about 30 instructions per ray. Counters are sums, so the totals are the same; node bytes
// are derived from the interior-node count once per query (finish), triangle bytes per leaf.
struct LocalCounts {
  uint64_t* v;
  uint64_t interior_at_start;
  explicit LocalCounts(Counters& counters)
      : v(counters.v.data()), interior_at_start(counters.v[Counters::nodes_interior]) {}
  uint64_t& interior() { return v[Counters::nodes_interior]; }
  uint64_t& leaf() { return v[Counters::nodes_leaf]; }
  uint64_t& instance() { return v[Counters::nodes_instance]; }
  uint64_t& tested() { return v[Counters::triangles_tested]; }
  uint64_t& passed() { return v[Counters::triangles_hit]; }
  void add_blocks(uint32_t count) { v[Counters::triangle_bytes] += count * uint64_t(sizeof(TriangleBlock)); }
  void add_lod() {
    ++v[Counters::nodes_lod];
    v[Counters::lod_bytes] += sizeof(LodRecord);
  }
  uint64_t& discards() { return v[Counters::lod_discards]; }
  uint64_t& forced() { return v[Counters::lod_forced]; }
  uint64_t& substitutions() { return v[Counters::lod_substitutions]; }
  uint64_t& level(int l) { return v[Counters::lod_level0 + l]; }
  void finish() { v[Counters::node_bytes] += (v[Counters::nodes_interior] - interior_at_start) * sizeof(WideNode); }
};

// Conservative box test: each slab distance is one fused multiply-add,
// plane * rcp - origin * rcp, with the product origin * rcp (rounded once per ray) moved by a
// few ulps up for the near planes and down for the far ones (BoxRay), so a computed near
// distance is never above (plane - origin) * rcp and a far one never below it, but for the
// fused operation's final rounding. What remains is relative, with u = 2^-24: that rounding
// (1 + u each side) and the rounded reciprocals (1 + u each side). The far planes use
// rcp * kRobustFar (rounded: at least 1 + 12u) and tmax * kRobustFar; (1 + u)^2 / (1 - u)^2,
// about 1 + 4u, is needed, so near <= far holds in float whenever it holds exactly: rounding
// never culls a box the ray touches, which watertightness needs (Ize 2013's guarantee, with
// the scaling folded into the far reciprocals). RtTraversal.NoBoxIsCulledFarFromTheOrigin
// checks it where the offsets carry most of the rounding.
constexpr float kRobustFar = 1.0000008f;

// A ray prepared in one space (world for the top level, object space below an instance).
// Three-component values in SSE registers (lane 3 unused): the box and triangle tests
// broadcast them from here, which keeps entering an instance cheap.
struct SpaceRay {
  __m128 org;  // origin (x, y, z, 0)
  __m128 rcp;  // reciprocal direction (x, y, z, 1)
  float tmin;
  size_t nx, ny, nz;  // byte offsets of the near planes inside a WideNode
  // Watertight triangle test (Woop, Benthin, Wald 2013): permuted axes and shear.
  int kx, ky, kz;
  __m128i k;     // (kx, ky, kz, kz): picks those components out of a vector
  __m128 shear;  // (sx, sy, sz, sz)
  __m128 korg;   // origin components along kx, ky, kz
};

// Lane i of a vector in memory.
inline const float* lane(const __m128& v, int i) { return reinterpret_cast<const float*>(&v) + i; }

// Finite and not zero (NaN fails every comparison), on (x, y, z, 1) in one register: all three
// magnitudes at most FLT_MAX and one above zero (a sum of finite non-negative floats is above
// zero exactly when one of them is).
[[gnu::always_inline]] inline bool valid_direction(__m128 d) {
  const __m128 ad = _mm_andnot_ps(_mm_set1_ps(-0.0f), d);
  const int finite = _mm_movemask_ps(_mm_cmple_ps(ad, _mm_set1_ps(std::numeric_limits<float>::max())));
  const int nonzero = _mm_movemask_ps(_mm_cmpgt_ps(ad, _mm_setzero_ps())) & 7;
  return (finite == 0xf) & (nonzero != 0);
}
// A ray's origin (x, y, z, 0) and direction (x, y, z, 1), each one load of the vector and the
// float after it (tmin, tmax) with lane 3 replaced.
static_assert(offsetof(Ray, tmin) == offsetof(Ray, origin) + 12 &&
              offsetof(Ray, tmax) == offsetof(Ray, direction) + 12);
inline __m128 origin_vector(const Ray& ray) { return _mm_blend_ps(_mm_loadu_ps(&ray.origin.x), _mm_setzero_ps(), 0x8); }
inline __m128 direction_vector(const Ray& ray) {
  return _mm_blend_ps(_mm_loadu_ps(&ray.direction.x), _mm_set1_ps(1.0f), 0x8);
}

// Moves an origin into a prepared ray (the direction-dependent part stays).
inline void set_origin(SpaceRay& r, __m128 org) {
  r.org = org;
  r.korg = _mm_permutevar_ps(r.org, r.k);
}

// The watertight test's axis order for each (m, signs) of prepare (below): kz the dominant axis
// (first of equals: m holds |x| >= |y|, |x| >= |z|, |y| >= |z| as bits 0-2, and kz for each m sits
// in a 2-bit field of 0x152a); kx, ky the next two, swapped when d[kz] < 0 to keep the winding.
// A table: computing it per ray took about 20 instructions.
struct alignas(16) AxisOrder {
  int32_t k[4];  // kx, ky, kz, kz
};
constexpr std::array<AxisOrder, 64> make_axis_orders() {
  std::array<AxisOrder, 64> t{};
  for (int i = 0; i < 64; ++i) {
    const int m = i & 7, signs = i >> 3;
    const int kz = (0x152a >> (2 * m)) & 3;
    int kx = (0x09 >> (2 * kz)) & 3, ky = (0x12 >> (2 * kz)) & 3;
    const int flip = (kx ^ ky) & -((signs >> kz) & 1);
    kx ^= flip, ky ^= flip;
    t[size_t(i)] = AxisOrder{{kx, ky, kz, kz}};
  }
  return t;
}
constexpr std::array<AxisOrder, 64> kAxisOrders = make_axis_orders();

// Inlined: returned through memory, the ray's fields were written one by one and read back in
// pairs, which store forwarding cannot serve (a stall of its own on every ray).
// Branch-free, and two vector divisions for the six quotients (IEEE division gives each lane
// the scalar quotient): the axis choice and sign of a diffuse ray's direction are random, and
// were two mispredicted branches a ray.
// `org` is (x, y, z, 0), `d` (x, y, z, 1).
[[gnu::always_inline]] inline SpaceRay prepare(__m128 org, __m128 d, float tmin) {
  SpaceRay r;
  // Tiny components are clamped so reciprocals stay finite (no 0 * inf = NaN in the slabs).
  const __m128 sign = _mm_and_ps(d, _mm_set1_ps(-0.0f));
  const __m128 ad = _mm_andnot_ps(_mm_set1_ps(-0.0f), d);
  const __m128 clamped = _mm_or_ps(_mm_max_ps(ad, _mm_set1_ps(1e-20f)), sign);
  r.rcp = _mm_div_ps(_mm_set1_ps(1.0f), clamped);
  r.tmin = tmin;
  // Near planes from the direction's signs (lo at byte 0 / 64 / 128 of the axis, hi 32 above).
  const int signs = _mm_movemask_ps(d);  // bits 0-2: x, y, z (lane 3 is +1)
  r.nx = size_t(signs & 1) * 32;
  r.ny = 64 + size_t(signs & 2) * 16;
  r.nz = 128 + size_t(signs & 4) * 8;
  // kz: the dominant axis (first of equals); kx, ky the next two, swapped when d[kz] < 0 to
  // keep the winding.
  // Compares |x| >= |y|, |x| >= |z|, |y| >= |z| as bits 0-2 of m; kz for each m in 2-bit fields.
  const int m = _mm_movemask_ps(_mm_cmpge_ps(_mm_permute_ps(ad, _MM_SHUFFLE(1, 1, 0, 0)),
                                             _mm_permute_ps(ad, _MM_SHUFFLE(2, 2, 2, 1)))) &
                7;
  const AxisOrder& order = kAxisOrders[size_t(m | ((signs & 7) << 3))];
  r.kx = order.k[0], r.ky = order.k[1], r.kz = order.k[2];
  r.k = _mm_load_si128(reinterpret_cast<const __m128i*>(order.k));
  const __m128 dk = _mm_permutevar_ps(d, r.k);  // d[kx], d[ky], d[kz], d[kz]
  r.shear = _mm_div_ps(_mm_blend_ps(dk, _mm_set1_ps(1.0f), 0xc), _mm_permute_ps(dk, _MM_SHUFFLE(2, 2, 2, 2)));
  set_origin(r, org);
  return r;
}

// Slab test of one ray against the 8 child boxes; returns the hit mask and entry distances.
// The ray's box-test values broadcast once per traversal (kept in registers by the compiler).
struct BoxRay {
  __m256 nox, noy, noz, fox, foy, foz;  // near / far plane offsets
  __m256 rx, ry, rz, fx, fy, fz;        // reciprocals for the near planes, grown ones for the far
  __m256 tmin;
  size_t nx, ny, nz, fx_, fy_, fz_;  // byte offsets of the near and far planes inside a WideNode
  explicit BoxRay(const SpaceRay& r) {
    // Offsets: origin * rcp rounded, then moved by |origin * rcp| * 2^-23 (at least one ulp, so
    // the rounded sum moves by at least one ulp, more than the product's rounding error of half
    // an ulp) plus the smallest normal (products in the subnormal range), so plane * rcp -
    // near_offset <= (plane - origin) * rcp <= plane * rcp - far_offset exactly. The three axes
    // at once (lane 3 unused).
    const __m128 o = r.org, rcp = r.rcp;
    const __m128 frcp = _mm_mul_ps(rcp, _mm_set1_ps(kRobustFar));
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    const __m128 ulps = _mm_set1_ps(0x1p-23f), tiny = _mm_set1_ps(0x1p-126f);
    const __m128 qn = _mm_mul_ps(o, rcp), qf = _mm_mul_ps(o, frcp);
    const __m128 near_off = _mm_add_ps(qn, _mm_add_ps(_mm_mul_ps(_mm_and_ps(qn, abs_mask), ulps), tiny));
    const __m128 far_off = _mm_sub_ps(qf, _mm_add_ps(_mm_mul_ps(_mm_and_ps(qf, abs_mask), ulps), tiny));
    // Broadcast from memory: one load-port instruction per plane, where a lane permute needed
    // its index vector too (entering an instance builds this again).
    alignas(16) float v[4][4];
    _mm_store_ps(v[0], near_off), _mm_store_ps(v[1], far_off), _mm_store_ps(v[2], rcp), _mm_store_ps(v[3], frcp);
    nox = _mm256_broadcast_ss(&v[0][0]), noy = _mm256_broadcast_ss(&v[0][1]), noz = _mm256_broadcast_ss(&v[0][2]);
    fox = _mm256_broadcast_ss(&v[1][0]), foy = _mm256_broadcast_ss(&v[1][1]), foz = _mm256_broadcast_ss(&v[1][2]);
    rx = _mm256_broadcast_ss(&v[2][0]), ry = _mm256_broadcast_ss(&v[2][1]), rz = _mm256_broadcast_ss(&v[2][2]);
    fx = _mm256_broadcast_ss(&v[3][0]), fy = _mm256_broadcast_ss(&v[3][1]), fz = _mm256_broadcast_ss(&v[3][2]);
    tmin = _mm256_set1_ps(r.tmin);
    nx = r.nx, ny = r.ny, nz = r.nz;
    fx_ = nx ^ 32, fy_ = ny ^ 32, fz_ = nz ^ 32;
  }
};

inline int box_hits(const WideNode& n, const BoxRay& r, float tmax, __m256& tnear) {
  const char* p = reinterpret_cast<const char*>(n.lo_x);
  auto plane = [p](size_t offset) { return _mm256_load_ps(reinterpret_cast<const float*>(p + offset)); };
  const __m256 tnx = _mm256_fmsub_ps(plane(r.nx), r.rx, r.nox);
  const __m256 tfx = _mm256_fmsub_ps(plane(r.fx_), r.fx, r.fox);
  const __m256 tny = _mm256_fmsub_ps(plane(r.ny), r.ry, r.noy);
  const __m256 tfy = _mm256_fmsub_ps(plane(r.fy_), r.fy, r.foy);
  const __m256 tnz = _mm256_fmsub_ps(plane(r.nz), r.rz, r.noz);
  const __m256 tfz = _mm256_fmsub_ps(plane(r.fz_), r.fz, r.foz);
  tnear = _mm256_max_ps(_mm256_max_ps(tnx, tny), _mm256_max_ps(tnz, r.tmin));
  const __m256 tfar = _mm256_min_ps(_mm256_min_ps(tfx, tfy), _mm256_min_ps(tfz, _mm256_set1_ps(tmax * kRobustFar)));
  return _mm256_movemask_ps(_mm256_cmp_ps(tnear, tfar, _CMP_LE_OQ));
}

// The ray's triangle-test values broadcast once per instance entered.
// 8 lanes: the 4-lane test of one block uses the low half, a leaf's two blocks all of it.
struct TriRay {
  __m256 px, py, pz, sx, sy, sz, tmin;
  size_t kx, ky, kz;
  explicit TriRay(const SpaceRay& r)
      : px(_mm256_broadcast_ss(lane(r.korg, 0))),
        py(_mm256_broadcast_ss(lane(r.korg, 1))),
        pz(_mm256_broadcast_ss(lane(r.korg, 2))),
        sx(_mm256_broadcast_ss(lane(r.shear, 0))),
        sy(_mm256_broadcast_ss(lane(r.shear, 1))),
        sz(_mm256_broadcast_ss(lane(r.shear, 2))),
        tmin(_mm256_broadcast_ss(&r.tmin)),
        kx(size_t(r.kx)),
        ky(size_t(r.ky)),
        kz(size_t(r.kz)) {}
};

struct BlockHit {
  float t, u, v;
  uint32_t primitive;
};

// Watertight test of one ray against a block of 4 triangles. Returns the lanes that hit within
// [tmin, tmax]; with `closest`, writes the nearest of them into `best` and lowers tmax.
template <bool kAnyHit>
[[gnu::always_inline]] inline bool intersect_block(const TriangleBlock& b, const TriRay& r, float& tmax, BlockHit& best,
                                                   LocalCounts& c) {
  const __m128i prim = _mm_load_si128(reinterpret_cast<const __m128i*>(b.primitive));
  const int valid = ~_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(prim, _mm_set1_epi32(-1)))) & 0xf;
  c.tested() += uint64_t(__builtin_popcount(unsigned(valid)));
  const __m128 px = _mm256_castps256_ps128(r.px), py = _mm256_castps256_ps128(r.py), pz = _mm256_castps256_ps128(r.pz),
               sx = _mm256_castps256_ps128(r.sx), sy = _mm256_castps256_ps128(r.sy);
  const __m128 az_ = _mm_sub_ps(_mm_load_ps(b.v0[r.kz]), pz);
  const __m128 bz_ = _mm_sub_ps(_mm_load_ps(b.v1[r.kz]), pz);
  const __m128 cz_ = _mm_sub_ps(_mm_load_ps(b.v2[r.kz]), pz);
  const __m128 ax = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b.v0[r.kx]), px), _mm_mul_ps(sx, az_));
  const __m128 ay = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b.v0[r.ky]), py), _mm_mul_ps(sy, az_));
  const __m128 bx = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b.v1[r.kx]), px), _mm_mul_ps(sx, bz_));
  const __m128 by = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b.v1[r.ky]), py), _mm_mul_ps(sy, bz_));
  const __m128 cx = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b.v2[r.kx]), px), _mm_mul_ps(sx, cz_));
  const __m128 cy = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b.v2[r.ky]), py), _mm_mul_ps(sy, cz_));
  // Edge functions; U weights vertex 0, V vertex 1, W vertex 2.
  __m128 U = _mm_sub_ps(_mm_mul_ps(cx, by), _mm_mul_ps(cy, bx));
  __m128 V = _mm_sub_ps(_mm_mul_ps(ax, cy), _mm_mul_ps(ay, cx));
  __m128 W = _mm_sub_ps(_mm_mul_ps(bx, ay), _mm_mul_ps(by, ax));
  const __m128 zero = _mm_setzero_ps();
  const int zeros =
      _mm_movemask_ps(_mm_or_ps(_mm_or_ps(_mm_cmpeq_ps(U, zero), _mm_cmpeq_ps(V, zero)), _mm_cmpeq_ps(W, zero))) &
      valid;
  if (zeros) {
    // An edge function rounded to exactly zero: recompute in double, where the products of
    // two floats are exact, so the sign decides which side of a shared edge the ray is on.
    alignas(16) float fax[4], fay[4], fbx[4], fby[4], fcx[4], fcy[4], fu[4], fv[4], fw[4];
    _mm_store_ps(fax, ax), _mm_store_ps(fay, ay), _mm_store_ps(fbx, bx), _mm_store_ps(fby, by);
    _mm_store_ps(fcx, cx), _mm_store_ps(fcy, cy), _mm_store_ps(fu, U), _mm_store_ps(fv, V), _mm_store_ps(fw, W);
    for (int l = 0; l < 4; ++l) {
      if (!((zeros >> l) & 1)) continue;
      fu[l] = float(double(fcx[l]) * double(fby[l]) - double(fcy[l]) * double(fbx[l]));
      fv[l] = float(double(fax[l]) * double(fcy[l]) - double(fay[l]) * double(fcx[l]));
      fw[l] = float(double(fbx[l]) * double(fay[l]) - double(fby[l]) * double(fax[l]));
    }
    U = _mm_load_ps(fu), V = _mm_load_ps(fv), W = _mm_load_ps(fw);
  }
  const __m128 neg = _mm_or_ps(_mm_or_ps(_mm_cmplt_ps(U, zero), _mm_cmplt_ps(V, zero)), _mm_cmplt_ps(W, zero));
  const __m128 pos = _mm_or_ps(_mm_or_ps(_mm_cmpgt_ps(U, zero), _mm_cmpgt_ps(V, zero)), _mm_cmpgt_ps(W, zero));
  int mask = valid & ~_mm_movemask_ps(_mm_and_ps(neg, pos));
  if (!mask) return false;
  const __m128 det = _mm_add_ps(_mm_add_ps(U, V), W);
  mask &= ~_mm_movemask_ps(_mm_cmpeq_ps(det, zero));
  if (!mask) return false;
  const __m128 sz = _mm256_castps256_ps128(r.sz);
  const __m128 T = _mm_add_ps(_mm_add_ps(_mm_mul_ps(U, _mm_mul_ps(sz, az_)), _mm_mul_ps(V, _mm_mul_ps(sz, bz_))),
                              _mm_mul_ps(W, _mm_mul_ps(sz, cz_)));
  const __m128 t = _mm_div_ps(T, det);
  mask &=
      _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(t, _mm256_castps256_ps128(r.tmin)), _mm_cmple_ps(t, _mm_set1_ps(tmax))));
  if (!mask) return false;
  c.passed() += uint64_t(__builtin_popcount(unsigned(mask)));
  if constexpr (kAnyHit) return true;
  alignas(16) float ft[4], fdet[4], fv[4], fw[4];
  _mm_store_ps(ft, t), _mm_store_ps(fdet, det), _mm_store_ps(fv, V), _mm_store_ps(fw, W);
  int lane = -1;
  for (int m = mask; m; m &= m - 1) {
    const int l = __builtin_ctz(unsigned(m));
    if (lane < 0 || ft[l] < ft[lane]) lane = l;
  }
  tmax = ft[lane];
  best.t = ft[lane];
  best.u = fv[lane] / fdet[lane];
  best.v = fw[lane] / fdet[lane];
  best.primitive = b.primitive[lane];
  return true;
}

// The lanes of a leaf's two blocks (block 0 low, block 1 high) that a ray hits within
// [tmin, tmax], with the per-lane arithmetic of intersect_block; with `t`, also the lanes'
// distances, determinants and V, W edge functions (for the barycentrics).
[[gnu::always_inline]] inline int pair_mask(const TriangleBlock& b0, const TriangleBlock& b1, const TriRay& r,
                                            float tmax, int valid, __m256* t, __m256* det, __m256* V, __m256* W) {
  auto load = [&](const float* p0, const float* p1) { return _mm256_set_m128(_mm_load_ps(p1), _mm_load_ps(p0)); };
  const __m256 px = r.px, py = r.py, pz = r.pz, sx = r.sx, sy = r.sy;
  const __m256 az_ = _mm256_sub_ps(load(b0.v0[r.kz], b1.v0[r.kz]), pz);
  const __m256 bz_ = _mm256_sub_ps(load(b0.v1[r.kz], b1.v1[r.kz]), pz);
  const __m256 cz_ = _mm256_sub_ps(load(b0.v2[r.kz], b1.v2[r.kz]), pz);
  const __m256 ax = _mm256_sub_ps(_mm256_sub_ps(load(b0.v0[r.kx], b1.v0[r.kx]), px), _mm256_mul_ps(sx, az_));
  const __m256 ay = _mm256_sub_ps(_mm256_sub_ps(load(b0.v0[r.ky], b1.v0[r.ky]), py), _mm256_mul_ps(sy, az_));
  const __m256 bx = _mm256_sub_ps(_mm256_sub_ps(load(b0.v1[r.kx], b1.v1[r.kx]), px), _mm256_mul_ps(sx, bz_));
  const __m256 by = _mm256_sub_ps(_mm256_sub_ps(load(b0.v1[r.ky], b1.v1[r.ky]), py), _mm256_mul_ps(sy, bz_));
  const __m256 cx = _mm256_sub_ps(_mm256_sub_ps(load(b0.v2[r.kx], b1.v2[r.kx]), px), _mm256_mul_ps(sx, cz_));
  const __m256 cy = _mm256_sub_ps(_mm256_sub_ps(load(b0.v2[r.ky], b1.v2[r.ky]), py), _mm256_mul_ps(sy, cz_));
  __m256 U = _mm256_sub_ps(_mm256_mul_ps(cx, by), _mm256_mul_ps(cy, bx));
  __m256 V_ = _mm256_sub_ps(_mm256_mul_ps(ax, cy), _mm256_mul_ps(ay, cx));
  __m256 W_ = _mm256_sub_ps(_mm256_mul_ps(bx, ay), _mm256_mul_ps(by, ax));
  const __m256 zero = _mm256_setzero_ps();
  const int zeros = _mm256_movemask_ps(_mm256_or_ps(
                        _mm256_or_ps(_mm256_cmp_ps(U, zero, _CMP_EQ_OQ), _mm256_cmp_ps(V_, zero, _CMP_EQ_OQ)),
                        _mm256_cmp_ps(W_, zero, _CMP_EQ_OQ))) &
                    valid;
  if (zeros) {  // as in intersect_block: exact signs from double products
    alignas(32) float fax[8], fay[8], fbx[8], fby[8], fcx[8], fcy[8], fu[8], fv[8], fw[8];
    _mm256_store_ps(fax, ax), _mm256_store_ps(fay, ay), _mm256_store_ps(fbx, bx), _mm256_store_ps(fby, by);
    _mm256_store_ps(fcx, cx), _mm256_store_ps(fcy, cy), _mm256_store_ps(fu, U), _mm256_store_ps(fv, V_);
    _mm256_store_ps(fw, W_);
    for (int l = 0; l < 8; ++l) {
      if (!((zeros >> l) & 1)) continue;
      fu[l] = float(double(fcx[l]) * double(fby[l]) - double(fcy[l]) * double(fbx[l]));
      fv[l] = float(double(fax[l]) * double(fcy[l]) - double(fay[l]) * double(fcx[l]));
      fw[l] = float(double(fbx[l]) * double(fay[l]) - double(fby[l]) * double(fax[l]));
    }
    U = _mm256_load_ps(fu), V_ = _mm256_load_ps(fv), W_ = _mm256_load_ps(fw);
  }
  const __m256 neg = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(U, zero, _CMP_LT_OQ), _mm256_cmp_ps(V_, zero, _CMP_LT_OQ)),
                                  _mm256_cmp_ps(W_, zero, _CMP_LT_OQ));
  const __m256 pos = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(U, zero, _CMP_GT_OQ), _mm256_cmp_ps(V_, zero, _CMP_GT_OQ)),
                                  _mm256_cmp_ps(W_, zero, _CMP_GT_OQ));
  int mask = valid & ~_mm256_movemask_ps(_mm256_and_ps(neg, pos));
  if (!mask) return 0;
  const __m256 det_ = _mm256_add_ps(_mm256_add_ps(U, V_), W_);
  mask &= ~_mm256_movemask_ps(_mm256_cmp_ps(det_, zero, _CMP_EQ_OQ));
  if (!mask) return 0;
  const __m256 sz = r.sz;
  const __m256 T =
      _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(U, _mm256_mul_ps(sz, az_)), _mm256_mul_ps(V_, _mm256_mul_ps(sz, bz_))),
                    _mm256_mul_ps(W_, _mm256_mul_ps(sz, cz_)));
  const __m256 t_ = _mm256_div_ps(T, det_);
  mask &= _mm256_movemask_ps(
      _mm256_and_ps(_mm256_cmp_ps(t_, r.tmin, _CMP_GE_OQ), _mm256_cmp_ps(t_, _mm256_set1_ps(tmax), _CMP_LE_OQ)));
  if (t) *t = t_, *det = det_, *V = V_, *W = W_;
  return mask;
}

// A leaf's two blocks at once, 8 lanes (block 0 low, block 1 high): the same per-lane
// arithmetic as intersect_block, and the same outcome and counts as testing block 0 and then
// block 1. Closest hit: block 1 with the distance block 0 left (block 1 wins ties). Any hit
// (shadow rays): block 1's lanes are counted only when block 0 has none, as the block-by-block
// test stops at block 0's hit; one 8-lane test costs about what one 4-lane test did, and most
// leaves a shadow ray reaches are missed, so both blocks were tested anyway.
// Always inlined: all vector registers are caller-saved, so a call made the leaf save and
// reload the box test's ray (9 of them) around every leaf.
template <bool kAnyHit>
[[gnu::always_inline]] inline bool intersect_pair(const TriangleBlock& b0, const TriangleBlock& b1, const TriRay& r,
                                                  float& tmax, BlockHit& best, LocalCounts& c) {
  const __m256i prim = _mm256_set_m128i(_mm_load_si128(reinterpret_cast<const __m128i*>(b1.primitive)),
                                        _mm_load_si128(reinterpret_cast<const __m128i*>(b0.primitive)));
  const int valid = ~_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(prim, _mm256_set1_epi32(-1)))) & 0xff;
  // Any hit: block 1's lanes are counted below, once block 0 turns out to have no hit.
  c.tested() += uint64_t(__builtin_popcount(unsigned(kAnyHit ? valid & 0xf : valid)));
  if constexpr (kAnyHit) {
    const int mask = pair_mask(b0, b1, r, tmax, valid, nullptr, nullptr, nullptr, nullptr);
    if (mask & 0xf) {
      c.passed() += uint64_t(__builtin_popcount(unsigned(mask & 0xf)));
      return true;
    }
    c.tested() += uint64_t(__builtin_popcount(unsigned(valid >> 4)));
    c.passed() += uint64_t(__builtin_popcount(unsigned(mask)));
    return mask != 0;
  }
  __m256 t, det, V, W;
  int mask = pair_mask(b0, b1, r, tmax, valid, &t, &det, &V, &W);
  if (!mask) return false;
  alignas(32) float ft[8], fdet[8], fv[8], fw[8];
  _mm256_store_ps(ft, t), _mm256_store_ps(fdet, det), _mm256_store_ps(fv, V), _mm256_store_ps(fw, W);
  // Block 0's nearest (first of equals), then block 1's lanes within its distance.
  int lane = -1;
  for (int m = mask & 0xf; m; m &= m - 1) {
    const int l = __builtin_ctz(unsigned(m));
    if (lane < 0 || ft[l] < ft[lane]) lane = l;
  }
  int passed = __builtin_popcount(unsigned(mask & 0xf));
  int high = mask >> 4;
  if (lane >= 0) high &= _mm_movemask_ps(_mm_cmple_ps(_mm256_extractf128_ps(t, 1), _mm_set1_ps(ft[lane])));
  passed += __builtin_popcount(unsigned(high));
  for (int m = high << 4; m; m &= m - 1) {
    const int l = __builtin_ctz(unsigned(m));
    if (lane < 4 || ft[l] < ft[lane]) lane = l;
  }
  c.passed() += uint64_t(passed);
  tmax = ft[lane];
  best.t = ft[lane];
  best.u = fv[lane] / fdet[lane];
  best.v = fw[lane] / fdet[lane];
  best.primitive = lane < 4 ? b0.primitive[lane] : b1.primitive[lane - 4];
  return true;
}

struct StackEntry {
  uint32_t ref;
  float t;
};
// One stack serves both levels (the bottom level continues above the top level's entries).
// Depth is bounded by the builder (SAH depth cap, then median splits): at most 7 entries per
// level of both trees.
constexpr int kStackSize = 2048;

// Sort keys for 3 or more hit children: a float's bits made monotonic as unsigned (negative
// values flipped), above a child reference.
inline uint64_t sort_key(float t, uint32_t child) {
  uint32_t b;
  std::memcpy(&b, &t, 4);
  b ^= (b >> 31) ? 0xffffffffu : 0x80000000u;
  return (uint64_t(b) << 32) | child;
}
inline float key_distance(uint64_t key) {
  uint32_t b = uint32_t(key >> 32);
  b ^= (b >> 31) ? 0x80000000u : 0xffffffffu;
  float t;
  std::memcpy(&t, &b, 4);
  return t;
}
inline void cswap(uint64_t& a, uint64_t& b) {
  const uint64_t lo = std::min(a, b), hi = std::max(a, b);
  a = lo;
  b = hi;
}

// Starts fetching a child that waits on the stack: a node's 4 cache lines or a leaf's first
// block (`blocks` null in the top level). Always inlined: GCC deems a function that only
// prefetches free of effects and drops the calls to it.
[[gnu::always_inline]] inline void prefetch(const WideNode* nodes, const TriangleBlock* blocks, uint32_t ref) {
  const char* p;
  if (ref_kind(ref) == ChildKind::interior) {
    p = reinterpret_cast<const char*>(nodes + (ref & 0x1fffffffu));
    _mm_prefetch(p + 192, _MM_HINT_T0);
  } else if (ref_kind(ref) == ChildKind::leaf && blocks) {
    p = reinterpret_cast<const char*>(blocks + (ref & 0x3ffffffu));
    _mm_prefetch(p + sizeof(TriangleBlock) - 1, _MM_HINT_T0);
  } else {
    return;
  }
  _mm_prefetch(p, _MM_HINT_T0);
  _mm_prefetch(p + 64, _MM_HINT_T0);
  _mm_prefetch(p + 128, _MM_HINT_T0);
}

// Traverses one wide BVH. `leaf(ref, tmax)` handles leaf and instance children and returns
// whether it found a hit (closest hit: it lowered tmax). Closest hit visits children near to
// far and skips stack entries beyond the current hit; any hit returns at the first.
// With kEntry, `leaf` also gets the child's entry distance from its parent's slab test (LOD
// nodes select a level from it); without, it gets 0.
// Always inlined, the bottom level too: GCC kept a closest-hit query's bottom level a function
// of its own, whose call (arguments, prologue, epilogue, the box-test values saved around it)
// was 3-7% of a primary or diffuse ray's time on the 1 M-triangle scenes.
template <bool kAnyHit, bool kEntry = false, bool kRayInMemory = false, typename Leaf>
[[gnu::always_inline]] inline bool traverse(const WideNode* nodes, const TriangleBlock* blocks, const SpaceRay& r,
                                            float& tmax, LocalCounts& c, StackEntry* stack, Leaf&& leaf) {
  const BoxRay br(r);
  int sp = 0;
  bool found = false;
  uint32_t ref = child_ref(ChildKind::interior, 0);
  float ref_t = r.tmin;
  for (;;) {
    bool have = true;
    while (ref_kind(ref) == ChildKind::interior) {
      const WideNode& n = nodes[ref & 0x1fffffffu];
      ++c.interior();
      __m256 tn;
      // kRayInMemory (the top level): the ray's values are read from memory at each node, not
      // held in registers, so entering an instance has no registers of this level to save.
      const BoxRay* ray = &br;
      if constexpr (kRayInMemory) asm("" : "+r"(ray));
      int mask = box_hits(n, *ray, tmax, tn);
      if (!mask) {
        have = false;
        break;
      }
      const int first = __builtin_ctz(unsigned(mask));
      mask &= mask - 1;
      if (!mask) {
        ref = n.child[first];
        if constexpr (kEntry) ref_t = _mm256_cvtss_f32(_mm256_permutevar8x32_ps(tn, _mm256_set1_epi32(first)));
        continue;
      }
      alignas(32) float d[8];
      _mm256_store_ps(d, tn);
      if constexpr (kAnyHit) {
        // No prefetch: an occluder usually ends the query before the pushed children are
        // reached (measured slower with it on the small scenes).
        for (; mask; mask &= mask - 1) {
          const int i = __builtin_ctz(unsigned(mask));
          stack[sp++] = {n.child[i], d[i]};
        }
        ref = n.child[first];
        ref_t = d[first];
        continue;
      }
      // Visit the nearest hit child next and push the others, farthest first.
      const int second = __builtin_ctz(unsigned(mask));
      if (!(mask & (mask - 1))) {
        // Two children (the common case): a plain branch, which the predictor often gets right
        // for coherent rays, so the next node's fetch starts before the distances compare.
        int nearer = first, farther = second;
        if (d[second] < d[first]) nearer = second, farther = first;
        stack[sp++] = {n.child[farther], d[farther]};
        prefetch(nodes, blocks, n.child[farther]);
        ref = n.child[nearer];
        if constexpr (kEntry) ref_t = d[nearer];
        continue;
      }
      // Three or more: keys hold the distance's order-preserving bits above the child
      // reference, sorted by compare-and-swap (small networks for 3 and 4, insertion above).
      uint64_t key[kWidth];
      int k = 0;
      key[k++] = sort_key(d[first], n.child[first]);
      for (; mask; mask &= mask - 1) {
        const int i = __builtin_ctz(unsigned(mask));
        key[k++] = sort_key(d[i], n.child[i]);
      }
      if (k == 3) {
        cswap(key[0], key[1]), cswap(key[1], key[2]), cswap(key[0], key[1]);
      } else if (k == 4) {
        cswap(key[0], key[1]), cswap(key[2], key[3]), cswap(key[0], key[2]), cswap(key[1], key[3]);
        cswap(key[1], key[2]);
      } else {
        for (int a = 1; a < k; ++a)
          for (int b = a; b > 0; --b) cswap(key[b - 1], key[b]);
      }
      for (int j = k - 1; j >= 1; --j) {
        const uint32_t child = uint32_t(key[j]);
        stack[sp++] = {child, key_distance(key[j])};
        prefetch(nodes, blocks, child);
      }
      ref = uint32_t(key[0]);
      if constexpr (kEntry) ref_t = key_distance(key[0]);
    }
    if (have && ref != kEmptyChild && leaf(ref, tmax, stack + sp, kEntry ? ref_t : 0.0f)) {
      found = true;
      if constexpr (kAnyHit) return true;
    }
    do {
      if (sp == 0) return found;
      --sp;
    } while (stack[sp].t > tmax);
    ref = stack[sp].ref;
    ref_t = stack[sp].t;
  }
}

// select_lod_level, inlined into the traversal (a call per LOD node cost about 40 instructions
// of argument set-up, prologue and epilogue around about 20 of work).
[[gnu::always_inline]] inline int select_level(const LodRecord& node, float t_entry_distance, RayType type,
                                               const RayLod& ray, const LodSettings& settings, bool& forced) {
  const int n = int(std::min<uint32_t>(node.level_count, kLodLevels));
  if (n == 0) return -1;
  if (!settings.enabled) return 0;  // LOD off: finest everywhere
  const size_t ti = uint32_t(type) < uint32_t(RayType::count) ? size_t(type) : 0;
  const int mode = settings.forced_level[ti];
  if (mode != kLodByDistance) {
    // Ray-type mode bits override the distance-based choice (never discards).
    forced = true;
    return std::clamp(mode, 0, n - 1);
  }
  float r = t_entry_distance + ray.path_length + ray.bias + settings.type_bias[ti] + node.bias;
  // Stochastic LOD: a per-ray uniform number from its seed, the same on any thread.
  if (settings.jitter != 0.0f) r += settings.jitter * (unit_float(splitmix64(ray.seed)) - 0.5f);
  for (int i = 0; i < n; ++i)
    if (r < node.range[i]) return i;
  return -1;
}

struct LodQuery {
  RayType type;
  const RayLod& ray;
  const LodSettings& settings;
};

// Always inlined into the query functions: a call of its own cost a prologue and epilogue per ray.
template <bool kAnyHit, bool kLod>
[[gnu::always_inline]] inline bool trace(const AccelerationStructure::Layout& layout, const Ray& ray, Hit& hit,
                                         LocalCounts& c, const LodQuery& q) {
  const __m128 world_dir = direction_vector(ray);
  if (layout.top.empty() || !valid_direction(world_dir) || !(ray.tmin <= ray.tmax)) return false;
  const SpaceRay world = prepare(origin_vector(ray), world_dir, ray.tmin);
  float tmax = ray.tmax;
  const auto& meshes = layout.meshes;
  const auto& instances = layout.instances;
  // LOD ranges are world distances; t is in units of the (not necessarily unit) direction.
  const float direction_length = kLod ? glm::length(ray.direction) : 1.0f;
  StackEntry stack[kStackSize];
  return traverse<kAnyHit, kLod, true>(
      layout.top.nodes.data(), nullptr, world, tmax, c,
      stack, [&](uint32_t ref, float& t_top, StackEntry* free_stack, float t_entry) __attribute__((always_inline)) {
        int level = -1;
        if constexpr (kLod) {
          if (ref_kind(ref) == ChildKind::lod) {
            // LOD node: select a level from the entry distance, path length and biases (or the ray
            // type's forced level), substitute a resident one if needed, and descend into it.
            const LodRecord& node = layout.lod_records[ref_index(ref)];
            c.add_lod();
            bool forced = false;
            int want;
            if (q.settings.object_levels.empty()) {
              want = select_level(node, t_entry * direction_length, q.type, q.ray, q.settings, forced);
            } else {  // per-object choice made before the frame (comparison baseline)
              want = q.settings.enabled
                         ? std::min(int(q.settings.object_levels[ref_index(ref)]), int(node.level_count) - 1)
                         : 0;
            }
            c.forced() += forced;
            if (want < 0) {
              ++c.discards();  // the discard interval: traversal of this object ends here
              return false;
            }
            level = want;
            if (q.settings.residency) {
              bool substituted = false;
              level = q.settings.residency->select(node.object_id, want, substituted);
              c.substitutions() += substituted;
              if (level < 0) return false;
            }
            ++c.level(level);
            ref = node.level_ref[level];
            if (ref == kEmptyChild) return false;
          }
        }
        const InstanceRecord& inst = instances[ref_index(ref)];
        ++c.instance();
        SpaceRay object;
        // The inverse transform's columns (lane 3 of the results is replaced).
        const float* column = &inst.world_to_object[0].x;
        const __m128 c3 = _mm_loadu_ps(column + 12);
        if (inst.translation_only) {
          // Same direction in object space: only the origin moves (bit-identical to the full
          // transform, whose other terms are exact zeros and ones).
          object = world;
          set_origin(object, _mm_blend_ps(_mm_add_ps(_mm_loadu_ps(&ray.origin.x), c3), _mm_setzero_ps(), 0x8));
        } else {
          // glm's mat4 * vec4 and mat3 * vec3 on columns, each lane with glm's operations in
          // glm's order, so the same bits: (c0 x + c1 y) + (c2 z + c3 * 1) and (c0 x + c1 y) + c2 z.
          // glm computed them one component at a time (about 40 instructions an entry).
          const __m128 c0 = _mm_loadu_ps(column), c1 = _mm_loadu_ps(column + 4), c2 = _mm_loadu_ps(column + 8);
          auto mul = [](__m128 col, const float& x) { return _mm_mul_ps(col, _mm_broadcast_ss(&x)); };
          const __m128 o = _mm_add_ps(_mm_add_ps(mul(c0, ray.origin.x), mul(c1, ray.origin.y)),
                                      _mm_add_ps(mul(c2, ray.origin.z), c3));
          const __m128 d =
              _mm_add_ps(_mm_add_ps(mul(c0, ray.direction.x), mul(c1, ray.direction.y)), mul(c2, ray.direction.z));
          const __m128 object_dir = _mm_blend_ps(d, _mm_set1_ps(1.0f), 0x8);
          if (!valid_direction(object_dir)) return false;
          object = prepare(_mm_blend_ps(o, _mm_setzero_ps(), 0x8), object_dir, ray.tmin);
        }
        const WideBvh& bvh = meshes[inst.mesh];
        BlockHit best{};
        const bool got =
            traverse<kAnyHit>(bvh.nodes.data(), bvh.blocks.data(), object, t_top, c, free_stack,
                              [&](uint32_t leaf, float& t_leaf, StackEntry*, float) {
                                // Broadcast here, not on entering the instance: fewer leaves are visited
                                // than instances entered, and values set up at the entry were spilled
                                // around the box tests anyway.
                                const TriRay tri(object);
                                ++c.leaf();
                                const uint32_t count = leaf_block_count(leaf);
                                const TriangleBlock* blocks = bvh.blocks.data() + ref_index(leaf);
                                c.add_blocks(count);
                                if (count == 2)
                                  return intersect_pair<kAnyHit>(blocks[0], blocks[1], tri, t_leaf, best, c);
                                bool any = false;
                                for (uint32_t b = 0; b < count; ++b) {
                                  if (intersect_block<kAnyHit>(blocks[b], tri, t_leaf, best, c)) {
                                    any = true;
                                    if constexpr (kAnyHit) return true;
                                  }
                                }
                                return any;
                              });
        if (got && !kAnyHit) {
          hit.t = best.t;
          hit.u = best.u;
          hit.v = best.v;
          hit.primitive = best.primitive;
          hit.instance = inst.scene_instance;
          hit.lod_level = level;
        }
        return got;
      });
}

// The ray types' counters are the first ones, in RayType order.
static_assert(Counters::rays_primary == 0 && Counters::rays_shadow == int(RayType::shadow) &&
              Counters::rays_diffuse == int(RayType::diffuse) &&
              Counters::rays_reflection == int(RayType::reflection) && int(RayType::count) == 4);
inline void count_ray(Counters& counters, RayType type) {
  if (uint32_t(type) < uint32_t(RayType::count)) ++counters.v[size_t(type)];
}

constexpr size_t kRayChunk = 256;

const LodSettings kDefaultLod{};

}  // namespace

int select_lod_level(const LodRecord& node, float t_entry_distance, RayType type, const RayLod& ray,
                     const LodSettings& settings, bool* forced) {
  bool f = false;
  const int level = select_level(node, t_entry_distance, type, ray, settings, f);
  if (forced) *forced = f;
  return level;
}

namespace {

template <bool kAnyHit>
[[gnu::always_inline]] inline bool trace_ray(const AccelerationStructure::Layout& layout, const Ray& ray, Hit& hit,
                                             LocalCounts& c, const LodQuery& q) {
  if (!(q.settings.object_levels.empty() || q.settings.object_levels.size() >= layout.lod_records.size()))
    throw Error("rt: LodSettings::object_levels has " + std::to_string(q.settings.object_levels.size()) +
                " levels for " + std::to_string(layout.lod_records.size()) + " LOD nodes");
  // Scenes without LOD nodes keep the traversal of the foundation (no entry distances).
  return layout.lod_records.empty() ? trace<kAnyHit, false>(layout, ray, hit, c, q)
                                    : trace<kAnyHit, true>(layout, ray, hit, c, q);
}

}  // namespace

Hit AccelerationStructure::intersect(const Ray& ray, RayType type, Counters& counters) const {
  return intersect(ray, type, RayLod{}, kDefaultLod, counters);
}

bool AccelerationStructure::occluded(const Ray& ray, RayType type, Counters& counters) const {
  return occluded(ray, type, RayLod{}, kDefaultLod, counters);
}

Hit AccelerationStructure::intersect(const Ray& ray, RayType type, const RayLod& lod, const LodSettings& settings,
                                     Counters& counters) const {
  Hit hit;
  count_ray(counters, type);
  LocalCounts c(counters);
  counters[Counters::rays_hit] += trace_ray<false>(*layout_, ray, hit, c, LodQuery{type, lod, settings});
  c.finish();
  return hit;
}

bool AccelerationStructure::occluded(const Ray& ray, RayType type, const RayLod& lod, const LodSettings& settings,
                                     Counters& counters) const {
  Hit unused;
  count_ray(counters, type);
  LocalCounts c(counters);
  const bool got = trace_ray<true>(*layout_, ray, unused, c, LodQuery{type, lod, settings});
  counters[Counters::rays_hit] += got;
  c.finish();
  return got;
}

void AccelerationStructure::intersect(std::span<const Ray> rays, std::span<Hit> hits, RayType type,
                                      Counters& counters) const {
  intersect(rays, {}, hits, type, kDefaultLod, counters);
}

void AccelerationStructure::occluded(std::span<const Ray> rays, std::span<uint8_t> occluded_out, RayType type,
                                     Counters& counters) const {
  occluded(rays, {}, occluded_out, type, kDefaultLod, counters);
}

namespace {
RayLod ray_lod(std::span<const RayLod> lod, size_t i) {
  if (!lod.empty()) return lod[i];
  RayLod r;
  r.seed = i;
  return r;
}

// Rays 0..n-1 in fixed chunks of kRayChunk over the calling arena, each chunk counting into its
// own Counters, merged in chunk order: totals independent of the thread count.
template <typename Trace>
void for_each_ray_chunked(size_t n, Counters& counters, Trace&& trace) {
  const size_t chunks = (n + kRayChunk - 1) / kRayChunk;
  std::vector<Counters> partial(chunks);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t ch = r.begin(); ch != r.end(); ++ch)
      for (size_t i = ch * kRayChunk; i < std::min(n, (ch + 1) * kRayChunk); ++i) trace(i, partial[ch]);
  });
  for (const Counters& p : partial) counters.merge(p);
}
}  // namespace

void AccelerationStructure::intersect(std::span<const Ray> rays, std::span<const RayLod> lod, std::span<Hit> hits,
                                      RayType type, const LodSettings& settings, Counters& counters) const {
  TS_CHECK(hits.size() >= rays.size(), "rt: hit buffer smaller than the ray batch");
  TS_CHECK(lod.empty() || lod.size() >= rays.size(), "rt: LOD inputs fewer than the rays");
  for_each_ray_chunked(rays.size(), counters, [&](size_t i, Counters& c) {
    hits[i] = intersect(rays[i], type, ray_lod(lod, i), settings, c);
  });
}

void AccelerationStructure::occluded(std::span<const Ray> rays, std::span<const RayLod> lod,
                                     std::span<uint8_t> occluded_out, RayType type, const LodSettings& settings,
                                     Counters& counters) const {
  TS_CHECK(occluded_out.size() >= rays.size(), "rt: result buffer smaller than the ray batch");
  TS_CHECK(lod.empty() || lod.size() >= rays.size(), "rt: LOD inputs fewer than the rays");
  for_each_ray_chunked(rays.size(), counters, [&](size_t i, Counters& c) {
    occluded_out[i] = occluded(rays[i], type, ray_lod(lod, i), settings, c) ? 1 : 0;
  });
}

}  // namespace tessera::rt
