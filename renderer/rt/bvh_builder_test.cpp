// Binary BVH builder: tree invariants (every primitive once, exact bounds, slot ranges), the
// same tree for any thread count on coherent input (long runs of references in one bin, the
// case the round-robin bin sets exist for), degenerate input and bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "rt/bvh_builder.h"
#include "tessera/error.h"

namespace tessera::rt {
namespace {

// Boxes of a height-field grid in row order: neighbours in memory are neighbours in space.
std::vector<Aabb> grid_boxes(int n) {
  std::vector<Aabb> boxes;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const float h = 0.1f * float((x * 7 + y * 13) % 17);
      Aabb b;
      b.extend(glm::vec3(float(x), float(y), h));
      b.extend(glm::vec3(float(x + 1), float(y + 1), h + 0.5f));
      boxes.push_back(b);
    }
  return boxes;
}

std::vector<Aabb> random_boxes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-100.0f, 100.0f), size(0.0f, 3.0f);
  std::vector<Aabb> boxes(n);
  for (Aabb& b : boxes) {
    const glm::vec3 lo(pos(rng), pos(rng), pos(rng));
    b.extend(lo);
    b.extend(lo + glm::vec3(size(rng), size(rng), size(rng)));
  }
  return boxes;
}

struct Walk {
  std::vector<int> seen;  // times each primitive was reached through a leaf
  size_t leaves = 0, largest_leaf = 0;
  int depth = 0;
};

// Checks the subtree at `slot` over order[first, first + count) and returns its bounds.
Aabb check_node(const BinaryBvh& bvh, std::span<const Aabb> boxes, uint32_t slot, uint32_t first, uint32_t count,
                int depth, Walk& walk) {
  EXPECT_LT(slot, bvh.slots);
  const BinaryNode& node = bvh.nodes[slot];
  EXPECT_EQ(node.first, first);
  EXPECT_EQ(node.count, count);
  Aabb expected;
  if (node.leaf()) {
    ++walk.leaves;
    walk.largest_leaf = std::max<size_t>(walk.largest_leaf, count);
    walk.depth = std::max(walk.depth, depth);
    for (uint32_t k = first; k < first + count; ++k) {
      const uint32_t prim = bvh.order[k];
      EXPECT_LT(prim, boxes.size());
      if (prim >= boxes.size()) continue;
      ++walk.seen[prim];
      expected.extend(boxes[prim].lo);
      expected.extend(boxes[prim].hi);
    }
  } else {
    const BinaryNode& left = bvh.nodes[slot + 1];
    // The right child follows the left subtree's nodes, within the left child's 2n-1 slots'
    // reach, so both subtrees fit in the node's 2n-1 slots.
    EXPECT_GE(node.right, slot + 2);
    EXPECT_LE(node.right, slot + 2 * left.count);
    EXPECT_GT(left.count, 0u);
    EXPECT_LT(left.count, count);
    const Aabb l = check_node(bvh, boxes, slot + 1, first, left.count, depth + 1, walk);
    const Aabb r = check_node(bvh, boxes, node.right, first + left.count, count - left.count, depth + 1, walk);
    expected.extend(l.lo), expected.extend(l.hi), expected.extend(r.lo), expected.extend(r.hi);
  }
  const Aabb got = node.bounds();
  EXPECT_EQ(got.lo, expected.lo) << "slot " << slot;
  EXPECT_EQ(got.hi, expected.hi) << "slot " << slot;
  return got;
}

void check_tree(const BinaryBvh& bvh, std::span<const Aabb> boxes, const BinaryBuildOptions& options) {
  ASSERT_EQ(bvh.order.size(), boxes.size());
  ASSERT_EQ(bvh.slots, 2 * boxes.size() - 1);
  Walk walk;
  walk.seen.assign(boxes.size(), 0);
  check_node(bvh, boxes, 0, 0, uint32_t(boxes.size()), 1, walk);
  EXPECT_TRUE(std::all_of(walk.seen.begin(), walk.seen.end(), [](int s) { return s == 1; }));
  EXPECT_LE(walk.largest_leaf, size_t(options.max_leaf_size));
  EXPECT_EQ(walk.depth, bvh.depth);
}

// The reachable tree as a flat list (unused slots are never written, so whole arrays are not
// comparable).
std::vector<uint32_t> flatten(const BinaryBvh& bvh) {
  std::vector<uint32_t> out;
  std::vector<uint32_t> stack{0};
  while (!stack.empty()) {
    const uint32_t slot = stack.back();
    stack.pop_back();
    const BinaryNode& n = bvh.nodes[slot];
    for (float v : n.lo) out.push_back(std::bit_cast<uint32_t>(v));
    for (float v : n.hi) out.push_back(std::bit_cast<uint32_t>(v));
    out.push_back(n.first), out.push_back(n.count), out.push_back(n.right), out.push_back(n.blocks);
    if (!n.leaf()) stack.push_back(n.right), stack.push_back(slot + 1);
  }
  return out;
}

TEST(RtBvhBuilder, TreeInvariants) {
  BinaryBuildOptions options;
  for (const auto& boxes : {grid_boxes(160), random_boxes(50000, 3), random_boxes(7, 4), random_boxes(1, 5)}) {
    const BinaryBvh bvh = build_binary_bvh(boxes, options);
    check_tree(bvh, boxes, options);
  }
  options.max_leaf_size = 1;  // the top level's setting
  const auto boxes = random_boxes(3000, 6);
  check_tree(build_binary_bvh(boxes, options), boxes, options);
}

TEST(RtBvhBuilder, SameTreeForAnyThreadCount) {
  // 256x256 coherent boxes: parallel binning at the top, many bin sets, parallel subtrees.
  const auto boxes = grid_boxes(256);
  const BinaryBuildOptions options;
  BinaryBvh one, many;
  tbb::task_arena(1).execute([&] { one = build_binary_bvh(boxes, options); });
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 8);
  tbb::task_arena(8).execute([&] { many = build_binary_bvh(boxes, options); });
  check_tree(one, boxes, options);
  EXPECT_EQ(one.order, many.order);
  EXPECT_EQ(one.depth, many.depth);
  EXPECT_EQ(flatten(one), flatten(many));
}

// Boxes whose corners come from a few values: many coincident centroids and equal split costs,
// where only the tie-breaking decides the split.
std::vector<Aabb> quantized_boxes(size_t n, int values, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pos(0, values - 1), size(0, 2);
  std::vector<Aabb> boxes(n);
  for (Aabb& b : boxes) {
    const glm::vec3 lo(float(pos(rng)), float(pos(rng)), float(pos(rng)));
    b.extend(lo);
    b.extend(lo + glm::vec3(float(size(rng)), float(size(rng)), float(size(rng))));
  }
  return boxes;
}

// Inputs where the split choice is delicate: random, coherent, ties, degenerate and overflowing
// boxes, and range sizes around the 8-reference lane groups and 64-reference batches of the
// binning.
std::vector<std::pair<std::string, std::vector<Aabb>>> reference_inputs() {
  std::vector<std::pair<std::string, std::vector<Aabb>>> inputs;
  inputs.push_back({"random", random_boxes(20000, 11)});
  inputs.push_back({"grid (parallel binning at the top)", grid_boxes(200)});
  for (int n : {3, 5, 7, 8, 9, 13, 15, 16, 17, 33, 64, 65, 71, 72, 127, 129, 200, 1031})
    inputs.push_back({"small random", random_boxes(size_t(n), 100 + uint32_t(n))});
  inputs.push_back({"quantized, 3 values", quantized_boxes(5000, 3, 12)});
  inputs.push_back({"quantized, 9 values", quantized_boxes(20000, 9, 13)});
  inputs.push_back({"equal boxes", std::vector<Aabb>(40000, Aabb{glm::vec3(1.0f), glm::vec3(2.0f)})});
  {
    std::vector<Aabb> points = random_boxes(5000, 14), flat = random_boxes(5000, 15), line = random_boxes(3000, 16);
    for (Aabb& b : points) b.hi = b.lo;           // zero area
    for (Aabb& b : flat) b.lo.z = b.hi.z = 0.0f;  // no extent on z
    for (Aabb& b : line) b.lo.y = b.hi.y = b.lo.z = b.hi.z = 1.0f;
    inputs.push_back({"points", points});
    inputs.push_back({"flat", flat});
    inputs.push_back({"line", line});
  }
  {
    // Both zeros: bounds keep the sign the builder's min/max order gives them. Random ones, and
    // a coherent grid (long runs of references on one side) whose every box has a zero of
    // random sign as its lowest z, and on the x = 0 column as its lowest x.
    std::vector<Aabb> zeros = quantized_boxes(3000, 3, 18);
    for (size_t i = 0; i < zeros.size(); ++i)
      if (i % 3 == 0) zeros[i].lo = glm::vec3(-0.0f), zeros[i].hi.z = -0.0f;
    inputs.push_back({"signed zeros", zeros});
    std::mt19937 rng(19);
    std::vector<Aabb> grid;
    for (int k = 0; k < 6000; ++k) {
      const float x = float(k % 64), y = float(k / 64);
      const float z0 = rng() & 1 ? -0.0f : 0.0f;
      Aabb b;
      b.lo = glm::vec3(x == 0.0f && (rng() & 1) ? -0.0f : x, y, z0);
      b.hi = glm::vec3(x + 1.0f, y + 1.0f, float(k % 3));
      grid.push_back(b);
    }
    inputs.push_back({"signed zeros, coherent", grid});
  }
  {
    // Areas overflow to infinity: every candidate costs inf and the split falls back to medians.
    std::vector<Aabb> huge = random_boxes(3000, 17);
    for (Aabb& b : huge) b.lo *= 1e35f, b.hi *= 1e35f;
    inputs.push_back({"huge", huge});
  }
  return inputs;
}

// Builds every reference input with `reference` changed by `to_reference`, and with the
// defaults, and compares the trees node for node (bounds, ranges, child slots, block counts)
// and the primitive order.
template <typename Change>
void expect_reference_trees(Change to_reference) {
  for (const auto& [name, boxes] : reference_inputs()) {
    for (int bins : {4, 13, 32, 64}) {
      for (int max_leaf : {1, 8}) {
        SCOPED_TRACE(name + ", bins " + std::to_string(bins) + ", max leaf " + std::to_string(max_leaf) + ", " +
                     std::to_string(boxes.size()) + " boxes");
        BinaryBuildOptions options;
        options.bins = bins;
        options.max_leaf_size = max_leaf;
        const BinaryBvh fast = build_binary_bvh(boxes, options);
        to_reference(options);
        const BinaryBvh reference = build_binary_bvh(boxes, options);
        check_tree(fast, boxes, options);
        EXPECT_EQ(fast.slots, reference.slots);
        EXPECT_EQ(fast.depth, reference.depth);
        EXPECT_EQ(fast.blocks, reference.blocks);
        EXPECT_EQ(fast.order, reference.order);
        EXPECT_EQ(flatten(fast), flatten(reference));
      }
    }
  }
}

// The SIMD split sweep must choose what the scalar reference chooses.
TEST(RtBvhBuilder, SimdSweepBuildsTheReferenceTree) {
  expect_reference_trees([](BinaryBuildOptions& options) { options.sweep = SplitSweep::scalar; });
}

// Bins computed 8 references at a time must be those computed one at a time: same splits, same
// partitions.
TEST(RtBvhBuilder, LaneBinningBuildsTheReferenceTree) {
  expect_reference_trees([](BinaryBuildOptions& options) { options.indexing = BinIndexing::scalar; });
}

TEST(RtBvhBuilder, CoincidentBoxesSplitByMedian) {
  std::vector<Aabb> boxes(1000);
  for (Aabb& b : boxes) b.extend(glm::vec3(1.0f)), b.extend(glm::vec3(2.0f));
  const BinaryBuildOptions options;
  const BinaryBvh bvh = build_binary_bvh(boxes, options);
  check_tree(bvh, boxes, options);
  EXPECT_LE(bvh.depth, 12);  // balanced: log2(1000 / 8) + a few
}

TEST(RtBvhBuilder, BadOptionsThrow) {
  const auto boxes = random_boxes(10, 7);
  BinaryBuildOptions options;
  options.bins = 3;
  EXPECT_THROW(build_binary_bvh(boxes, options), Error);
  options.bins = 65;
  EXPECT_THROW(build_binary_bvh(boxes, options), Error);
  options.bins = 32;
  options.max_leaf_size = 0;
  EXPECT_THROW(build_binary_bvh(boxes, options), Error);
  EXPECT_EQ(build_binary_bvh(std::span<const Aabb>(), BinaryBuildOptions{}).slots, 0u);
}

TEST(RtBvhBuilder, CollapseReachesEveryLeafOnce) {
  const auto boxes = grid_boxes(100);
  const BinaryBvh bvh = build_binary_bvh(boxes, BinaryBuildOptions{});
  std::vector<int> seen(boxes.size(), 0);
  uint32_t leaves = 0;
  // Leaf first primitive -> (count, first block) as the collapse reports them.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> reported;
  const auto nodes = collapse_to_wide(bvh, [&](uint32_t first, uint32_t count, uint32_t first_block) {
    for (uint32_t k = first; k < first + count; ++k) ++seen[bvh.order[k]];
    reported[first] = {count, first_block};
    return leaf_ref(leaves++, 1);
  });
  // Blocks are numbered in binary-tree order: a leaf's first block counts the blocks of the
  // leaves before it in `order`, and all leaves together fill exactly `blocks`.
  uint32_t blocks_before = 0, next_first = 0;
  for (const auto& [first, leaf] : reported) {
    EXPECT_EQ(first, next_first);
    EXPECT_EQ(leaf.second, blocks_before);
    next_first = first + leaf.first;
    blocks_before += (leaf.first + kBlockWidth - 1) / kBlockWidth;
  }
  EXPECT_EQ(next_first, boxes.size());
  EXPECT_EQ(blocks_before, bvh.blocks);
  ASSERT_FALSE(nodes.empty());
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  // Every interior reference points forward (depth-first numbering) and every node is reached once.
  std::vector<int> reached(nodes.size(), 0);
  reached[0] = 1;
  uint32_t leaf_refs = 0;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (uint32_t c : nodes[i].child) {
      if (ref_kind(c) == ChildKind::interior) {
        ASSERT_LT(ref_index(c), nodes.size());
        EXPECT_GT(ref_index(c), i);
        ++reached[ref_index(c)];
      }
      leaf_refs += ref_kind(c) == ChildKind::leaf;
    }
  EXPECT_TRUE(std::all_of(reached.begin(), reached.end(), [](int r) { return r == 1; }));
  EXPECT_EQ(leaf_refs, leaves);
}

// Triangles are checked while the builder takes their boxes (in parallel): the lowest bad one
// is the one reported, whatever the thread count.
TEST(RtBvhBuilder, LowestBadTriangleReportedForAnyThreadCount) {
  constexpr int kSide = 200;  // 80000 triangles: several chunks of boxes
  std::vector<glm::vec3> positions;
  for (int y = 0; y <= kSide; ++y)
    for (int x = 0; x <= kSide; ++x) positions.emplace_back(float(x), float(y), 0.1f * float((x * y) % 7));
  std::vector<uint32_t> indices;
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x) {
      const uint32_t v = uint32_t(y * (kSide + 1) + x);
      for (uint32_t i : {v, v + 1, v + uint32_t(kSide) + 1, v + 1, v + uint32_t(kSide) + 2, v + uint32_t(kSide) + 1})
        indices.push_back(i);
    }
  indices[3 * 70000 + 1] = uint32_t(positions.size()) + 5;  // out of range
  positions.push_back(glm::vec3(0.0f, std::numeric_limits<float>::infinity(), 0.0f));
  indices[3 * 30001 + 2] = uint32_t(positions.size()) - 1;  // non-finite
  indices[3 * 65000] = uint32_t(positions.size()) - 1;
  for (int threads : {1, 8}) {
    tbb::global_control allow(tbb::global_control::max_allowed_parallelism, size_t(threads));
    tbb::task_arena(threads).execute([&] {
      try {
        (void)build_mesh_bvh(positions, indices);
        ADD_FAILURE() << "no error with " << threads << " threads";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("triangle 30001 "), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
      }
    });
  }
  indices[3 * 30001 + 2] = 0;
  indices[3 * 65000] = 0;
  try {
    (void)build_mesh_bvh(positions, indices);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("triangle 70000 refers to vertex"), std::string::npos) << e.what();
  }
  indices[3 * 70000 + 1] = 0;
  EXPECT_FALSE(build_mesh_bvh(positions, indices).empty());
}

}  // namespace
}  // namespace tessera::rt
