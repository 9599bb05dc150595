// Binned-SAH BVH builder over primitive boxes (binary tree) and its collapse into 8-wide nodes.
// Deterministic for any thread count: tasks split by data (node ranges, fixed chunks), node
// slots are assigned from range sizes alone, and bin reductions are min/max and integer sums.
#pragma once

#include <cstdint>
#include <functional>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "rt/bvh_layout.h"

namespace tessera::rt {

// An uninitialised array of a trivial type: build scratch is written once by the task that
// owns each part, so zero-filling it first would only add a sequential pass and page faults.
// Densely written arrays take BVH memory (2 MiB pages when large, fewer faults); sparsely
// written ones take it without the huge-page hint, where only the 4 KiB pages written are ever
// cleared. Both come back for the next build of the same size (allocate_bvh_memory).
template <typename T>
class BuildArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  enum class Pages { huge, small };
  BuildArray() = default;
  explicit BuildArray(size_t n, Pages pages = Pages::huge) : n_(n), huge_(pages == Pages::huge) {
    if (!n) return;
    p_ = static_cast<T*>(allocate_bvh_memory(n * sizeof(T), alignof(T), huge_));
  }
  BuildArray(BuildArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), huge_(o.huge_) {}
  BuildArray& operator=(BuildArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(huge_, o.huge_);
    return *this;
  }
  ~BuildArray() {
    if (!p_) return;
    free_bvh_memory(p_, n_ * sizeof(T), alignof(T), huge_);
  }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  T* data() { return p_; }
  size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
  bool huge_ = true;
};

struct BinaryNode {
  float lo[3], hi[3];
  uint32_t first;   // first entry of BinaryBvh::order under this node
  uint32_t count;   // primitives under this node
  uint32_t right;   // interior: right child slot (the left child is the next slot); 0 for a leaf
  uint32_t blocks;  // blocks of kBlockWidth primitives the leaves under this node fill
  bool leaf() const { return right == 0; }
  Aabb bounds() const { return Aabb{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}}; }
};

struct BinaryBvh {
  // Slot 0 is the root. A node over n primitives owns 2n-1 slots (itself, then its left
  // subtree's, then its right subtree's), so parallel subtrees never share a slot; leaves
  // leave their unused slots unwritten.
  BuildArray<BinaryNode> nodes;
  size_t slots = 0;
  std::vector<uint32_t> order;  // primitive indices, leaves are ranges of it
  int depth = 0;                // deepest leaf (root = 1)
  size_t blocks = 0;            // blocks of kBlockWidth primitives the leaves fill
};

// How the SAH split is chosen from the bins: `simd` computes the candidates' costs 8 at a time,
// `scalar` one at a time (the reference; tests check both give the same tree).
enum class SplitSweep { simd, scalar };

// How the binning computes the references' bins: `simd` 8 references at a time, `scalar` one
// at a time (the reference; tests check both give the same tree).
enum class BinIndexing { simd, scalar };

struct BinaryBuildOptions {
  int bins = 32;
  int max_leaf_size = 8;
  int max_sah_depth = 64;  // below this depth splits fall back to the object median
  SplitSweep sweep = SplitSweep::simd;
  BinIndexing indexing = BinIndexing::simd;
};

// Writes the boxes of primitives [first, first + out.size()) to `out`. Called concurrently
// from several threads on disjoint ranges.
using PrimitiveBoundsFn = std::function<void(size_t first, std::span<Aabb> out)>;

BinaryBvh build_binary_bvh(size_t count, const PrimitiveBoundsFn& bounds, const BinaryBuildOptions& options);
BinaryBvh build_binary_bvh(std::span<const Aabb> primitive_bounds, const BinaryBuildOptions& options);

// Collapses into wide nodes in depth-first order (node 0 = root), opening the child of largest
// surface area until 8 children. `make_leaf(first, count, first_block)` turns a binary leaf into
// a child reference (a triangle-block leaf or an instance); it is called in node order, on one
// thread. `first_block` numbers the leaves' blocks in binary-tree order (the blocks of the
// leaves left of this one), so the blocks can be filled from the binary tree alone, beside the
// collapse.
using MakeLeafFn = std::function<uint32_t(uint32_t first, uint32_t count, uint32_t first_block)>;
std::vector<WideNode, BvhAllocator<WideNode>> collapse_to_wide(const BinaryBvh& binary, const MakeLeafFn& make_leaf);

}  // namespace tessera::rt
