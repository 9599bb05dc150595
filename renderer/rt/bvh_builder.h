// Binned-SAH BVH builder over primitive boxes (binary tree) and its collapse into 8-wide nodes.
// Deterministic for any thread count: tasks split by data (node ranges), node slots are
// assigned from range sizes alone, and bin reductions are min/max and integer sums.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "tessera/rt.h"

namespace tessera::rt {

// Trivially constructible: the slot array is allocated without touching its pages, since
// leaves leave most of a range's 2n-1 slots unused.
struct BinaryNode {
  float lo[3], hi[3];
  uint32_t a;      // interior: left slot; leaf: first entry of BinaryBvh::order
  uint32_t b;      // interior: right slot
  uint32_t count;  // 0 for interior, else primitives in the leaf
  Aabb bounds() const { return Aabb{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}}; }
};

struct BinaryBvh {
  // Slot 0 is the root. A node over n primitives owns 2n-1 slots (itself, then its left
  // subtree's, then its right subtree's), so parallel subtrees never share a slot; leaves
  // leave their unused slots empty.
  std::unique_ptr<BinaryNode[]> nodes;
  size_t slots = 0;
  std::vector<uint32_t> order;  // primitive indices, leaves are ranges of it
  int depth = 0;                // deepest leaf (root = 1)
};

struct BinaryBuildOptions {
  int bins = 32;
  int max_leaf_size = 8;
  int max_sah_depth = 64;  // below this depth splits fall back to the object median
};

BinaryBvh build_binary_bvh(std::span<const Aabb> primitive_bounds, const BinaryBuildOptions& options);

// Collapses into wide nodes in depth-first order (node 0 = root), opening the child of largest
// surface area until 8 children. `make_leaf(first, count)` turns a binary leaf into a child
// reference (a triangle-block leaf or an instance).
std::vector<WideNode, BvhAllocator<WideNode>> collapse_to_wide(const BinaryBvh& binary,
                                       const std::function<uint32_t(uint32_t first, uint32_t count)>& make_leaf);

}  // namespace tessera::rt
