#include "rt/bvh_builder.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/partitioner.h>

#include "tessera/error.h"

namespace tessera::rt {

namespace {

constexpr int kMaxBins = 64;
// Ranges at least this large bin in parallel over fixed chunks; subtrees at least this large
// build as separate tasks. Both depend on the data only, never on the thread count.
constexpr size_t kParallelBinThreshold = 1u << 15;
constexpr size_t kBinChunk = 1u << 13;
constexpr size_t kParallelTaskThreshold = 1u << 12;

// A box in SSE registers (lane 3 unused). Min/max are exact, so merging boxes in any order
// gives the same bits.
struct Box4 {
  __m128 lo = _mm_set1_ps(std::numeric_limits<float>::infinity());
  __m128 hi = _mm_set1_ps(-std::numeric_limits<float>::infinity());
  void extend(__m128 l, __m128 h) {
    lo = _mm_min_ps(lo, l);
    hi = _mm_max_ps(hi, h);
  }
  void extend(const Box4& b) { extend(b.lo, b.hi); }
  void extend(__m128 p) { extend(p, p); }
  float half_area() const {
    alignas(16) float d[4];
    _mm_store_ps(d, _mm_sub_ps(hi, lo));
    if (!(d[0] >= 0.0f && d[1] >= 0.0f && d[2] >= 0.0f)) return 0.0f;
    return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
  }
  float extent(int a) const {
    alignas(16) float d[4];
    _mm_store_ps(d, _mm_sub_ps(hi, lo));
    return d[a];
  }
};

// A primitive's box; the primitive index rides in lane 3 of lo (ignored by the box arithmetic).
struct alignas(32) PrimRef {
  __m128 lo, hi;
  __m128 centroid2() const { return _mm_add_ps(lo, hi); }  // twice the centroid
  uint32_t index() const { return uint32_t(_mm_extract_epi32(_mm_castps_si128(lo), 3)); }
};

struct Bins {
  Box4 box[3][kMaxBins];
  uint32_t count[3][kMaxBins];
  explicit Bins(int n) {
    for (int a = 0; a < 3; ++a)
      for (int i = 0; i < n; ++i) box[a][i] = Box4{}, count[a][i] = 0;
  }
  void merge(const Bins& o, int n) {
    for (int a = 0; a < 3; ++a)
      for (int i = 0; i < n; ++i) {
        box[a][i].extend(o.box[a][i]);
        count[a][i] += o.count[a][i];
      }
  }
};

// Maps a centroid to bins on all three axes: the same expression serves binning and the
// partition, so the two always agree.
struct BinMapper {
  __m128 origin, scale;
  __m128i top;
  float scale_of[4];
  BinMapper(const Box4& centroids2, int bins) {
    origin = centroids2.lo;
    alignas(16) float sc[4];
    for (int a = 0; a < 3; ++a) {
      const float e = centroids2.extent(a);
      sc[a] = e > 0.0f ? float(bins) * 0.99999f / e : 0.0f;
    }
    sc[3] = 0.0f;
    for (int a = 0; a < 4; ++a) scale_of[a] = sc[a];
    scale = _mm_load_ps(sc);
    top = _mm_set1_epi32(bins - 1);
  }
  __m128i bins(__m128 c2) const {
    const __m128i i = _mm_cvttps_epi32(_mm_mul_ps(_mm_sub_ps(c2, origin), scale));
    return _mm_max_epi32(_mm_min_epi32(i, top), _mm_setzero_si128());
  }
};

struct Builder {
  std::vector<PrimRef>& refs;
  BinaryBvh& out;
  const BinaryBuildOptions& opt;
  std::atomic<int> max_depth{0};

  void note_depth(int d) {
    int cur = max_depth.load(std::memory_order_relaxed);
    while (d > cur && !max_depth.compare_exchange_weak(cur, d, std::memory_order_relaxed)) {
    }
  }

  void bin_range(size_t begin, size_t end, const BinMapper& m, Bins& bins) const {
    for (size_t i = begin; i < end; ++i) {
      const PrimRef& r = refs[i];
      alignas(16) int b[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(b), m.bins(r.centroid2()));
      for (int a = 0; a < 3; ++a) {
        bins.box[a][b[a]].extend(r.lo, r.hi);
        ++bins.count[a][b[a]];
      }
    }
  }

  void set_node(uint32_t slot, const Box4& box, uint32_t a, uint32_t b, uint32_t count) {
    alignas(16) float lo[4], hi[4];
    _mm_store_ps(lo, box.lo);
    _mm_store_ps(hi, box.hi);
    BinaryNode& n = out.nodes[slot];
    for (int k = 0; k < 3; ++k) n.lo[k] = lo[k], n.hi[k] = hi[k];
    n.a = a;
    n.b = b;
    n.count = count;
  }

  void make_leaf(uint32_t slot, size_t begin, size_t end, const Box4& box, int depth) {
    set_node(slot, box, uint32_t(begin), 0, uint32_t(end - begin));
    note_depth(depth);
  }

  // Builds the subtree over refs[begin, end) into `slot` (owning 2n-1 slots from there).
  // `box` and `centroids2` are the range's primitive bounds and doubled-centroid bounds.
  void build(uint32_t slot, size_t begin, size_t end, const Box4& box, const Box4& centroids2, int depth) {
    const size_t n = end - begin;
    const size_t max_leaf = size_t(opt.max_leaf_size);
    if (n <= std::min<size_t>(2, max_leaf) || n == 1) return make_leaf(slot, begin, end, box, depth);
    const bool sah = depth <= opt.max_sah_depth;
    if (!sah && n <= max_leaf) return make_leaf(slot, begin, end, box, depth);
    // Fewer bins for small ranges: as many candidate planes as there are primitives to split.
    const int nb = std::clamp(int(n / 2), 4, opt.bins);
    int best_axis = -1, best_split = 0;
    float best_cost = std::numeric_limits<float>::infinity();
    const BinMapper m(centroids2, nb);
    if (sah) {
      Bins bins(nb);
      if (n >= kParallelBinThreshold) {
        const size_t chunks = (n + kBinChunk - 1) / kBinChunk;
        std::vector<Bins> partial(chunks, Bins(nb));
        tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
          for (size_t c = r.begin(); c != r.end(); ++c)
            bin_range(begin + c * kBinChunk, std::min(end, begin + (c + 1) * kBinChunk), m, partial[c]);
        }, tbb::simple_partitioner());
        for (const Bins& p : partial) bins.merge(p, nb);
      } else {
        bin_range(begin, end, m, bins);
      }
      // Sweep: cost of splitting after bin i = A(left) * blocks(left) + A(right) * blocks(right),
      // counting triangles in blocks of 4 since a block costs one SIMD test whatever its fill.
      auto blocks = [](uint32_t count) { return float((count + kBlockWidth - 1) / kBlockWidth); };
      float right_cost[kMaxBins];
      for (int a = 0; a < 3; ++a) {
        if (m.scale_of[a] == 0.0f) continue;
        Box4 acc;
        uint32_t count = 0;
        for (int i = nb - 1; i > 0; --i) {
          acc.extend(bins.box[a][i]);
          count += bins.count[a][i];
          right_cost[i] = acc.half_area() * blocks(count);
        }
        acc = Box4{};
        count = 0;
        for (int i = 0; i < nb - 1; ++i) {
          acc.extend(bins.box[a][i]);
          count += bins.count[a][i];
          if (count == 0 || count == n) continue;
          const float cost = acc.half_area() * blocks(count) + right_cost[i + 1];
          if (cost < best_cost) {
            best_cost = cost;
            best_axis = a;
            best_split = i + 1;  // bins [0, best_split) go left
          }
        }
      }
      // Leaf when small enough and not worse than a split (a node step ~ one block test).
      const float area = box.half_area();
      if (n <= max_leaf && blocks(uint32_t(n)) * area <= area + best_cost) return make_leaf(slot, begin, end, box, depth);
    }
    size_t mid;
    Box4 lbox, rbox, lcent, rcent;
    if (best_axis >= 0) {
      // In-place partition by bin, accumulating the children's bounds on the way.
      size_t i = begin, j = end;
      while (i < j) {
        const __m128 c = refs[i].centroid2();
        alignas(16) int b[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(b), m.bins(c));
        if (b[best_axis] < best_split) {
          lbox.extend(refs[i].lo, refs[i].hi);
          lcent.extend(c);
          ++i;
        } else {
          --j;
          std::swap(refs[i], refs[j]);
          rbox.extend(refs[j].lo, refs[j].hi);
          rcent.extend(refs[j].centroid2());
        }
      }
      mid = i;
    } else {
      // No usable split (coincident centroids or past the SAH depth): object median on the
      // widest centroid axis, ties broken by primitive index so the order is total.
      const int a = centroids2.extent(0) >= centroids2.extent(1) && centroids2.extent(0) >= centroids2.extent(2)
                        ? 0
                        : (centroids2.extent(1) >= centroids2.extent(2) ? 1 : 2);
      mid = begin + n / 2;
      std::nth_element(refs.begin() + long(begin), refs.begin() + long(mid), refs.begin() + long(end),
                       [a](const PrimRef& x, const PrimRef& y) {
                         alignas(16) float cx[4], cy[4];
                         _mm_store_ps(cx, x.centroid2());
                         _mm_store_ps(cy, y.centroid2());
                         return cx[a] < cy[a] || (cx[a] == cy[a] && x.index() < y.index());
                       });
      for (size_t k = begin; k < mid; ++k) lbox.extend(refs[k].lo, refs[k].hi), lcent.extend(refs[k].centroid2());
      for (size_t k = mid; k < end; ++k) rbox.extend(refs[k].lo, refs[k].hi), rcent.extend(refs[k].centroid2());
    }
    TS_CHECK(mid > begin && mid < end, "BVH split left a side empty");
    const uint32_t left = slot + 1, right = slot + uint32_t(2 * (mid - begin));
    set_node(slot, box, left, right, 0);
    auto build_left = [&] { build(left, begin, mid, lbox, lcent, depth + 1); };
    auto build_right = [&] { build(right, mid, end, rbox, rcent, depth + 1); };
    if (n >= kParallelTaskThreshold) {
      tbb::parallel_invoke(build_left, build_right);
    } else {
      build_left();
      build_right();
    }
  }
};

}  // namespace

BinaryBvh build_binary_bvh(std::span<const Aabb> primitive_bounds, const BinaryBuildOptions& options) {
  TS_CHECK(options.bins >= 4 && options.bins <= kMaxBins, "BVH bins must be in [4, 64]");
  TS_CHECK(options.max_leaf_size >= 1, "BVH leaves need at least one primitive");
  BinaryBvh out;
  const size_t n = primitive_bounds.size();
  if (n == 0) return out;
  TS_CHECK(n < (1u << 30), "too many primitives for one BVH");
  std::vector<PrimRef> refs(n);
  Box4 box, centroids2;
  for (size_t i = 0; i < n; ++i) {
    const Aabb& b = primitive_bounds[i];
    PrimRef& r = refs[i];
    r.lo = _mm_castsi128_ps(_mm_insert_epi32(_mm_castps_si128(_mm_setr_ps(b.lo.x, b.lo.y, b.lo.z, 0.0f)), int(i), 3));
    r.hi = _mm_setr_ps(b.hi.x, b.hi.y, b.hi.z, 0.0f);
    box.extend(r.lo, r.hi);
    centroids2.extend(r.centroid2());
  }
  out.slots = 2 * n - 1;
  out.nodes = std::make_unique_for_overwrite<BinaryNode[]>(out.slots);
  Builder builder{refs, out, options};
  builder.build(0, 0, n, box, centroids2, 1);
  out.depth = builder.max_depth.load();
  out.order.resize(n);
  for (size_t i = 0; i < n; ++i) out.order[i] = refs[i].index();
  return out;
}

namespace {

struct Collapser {
  const BinaryBvh& binary;
  const std::function<uint32_t(uint32_t, uint32_t)>& make_leaf;
  std::vector<WideNode, BvhAllocator<WideNode>>& nodes;

  static void clear(WideNode& w) {
    for (int i = 0; i < kWidth; ++i) {
      w.lo_x[i] = w.lo_y[i] = w.lo_z[i] = std::numeric_limits<float>::infinity();
      w.hi_x[i] = w.hi_y[i] = w.hi_z[i] = -std::numeric_limits<float>::infinity();
      w.child[i] = kEmptyChild;
      w.reserved[i] = 0;
    }
  }

  uint32_t emit(uint32_t slot) {
    const uint32_t index = uint32_t(nodes.size());
    TS_CHECK(index < (1u << 29), "too many wide BVH nodes");
    nodes.emplace_back();
    clear(nodes.back());
    std::array<uint32_t, kWidth> kids{};
    int count = 0;
    const BinaryNode& root = binary.nodes[slot];
    if (root.count) {
      kids[count++] = slot;
    } else {
      kids[count++] = root.a;
      kids[count++] = root.b;
    }
    while (count < kWidth) {
      int best = -1;
      float best_area = -1.0f;
      for (int i = 0; i < count; ++i) {
        const BinaryNode& c = binary.nodes[kids[i]];
        if (c.count == 0 && c.bounds().half_area() > best_area) {
          best_area = c.bounds().half_area();
          best = i;
        }
      }
      if (best < 0) break;
      const BinaryNode& open = binary.nodes[kids[best]];
      kids[best] = open.a;
      kids[count++] = open.b;
    }
    std::array<uint32_t, kWidth> refs{};
    for (int i = 0; i < count; ++i) {
      const BinaryNode& c = binary.nodes[kids[i]];
      refs[i] = c.count ? make_leaf(c.a, c.count) : child_ref(ChildKind::interior, emit(kids[i]));
    }
    WideNode& w = nodes[index];  // after the recursion: emplace_back may have moved it
    for (int i = 0; i < count; ++i) {
      const Aabb b = binary.nodes[kids[i]].bounds();
      w.lo_x[i] = b.lo.x, w.lo_y[i] = b.lo.y, w.lo_z[i] = b.lo.z;
      w.hi_x[i] = b.hi.x, w.hi_y[i] = b.hi.y, w.hi_z[i] = b.hi.z;
      w.child[i] = refs[i];
    }
    return index;
  }
};

}  // namespace

std::vector<WideNode, BvhAllocator<WideNode>> collapse_to_wide(const BinaryBvh& binary,
                                       const std::function<uint32_t(uint32_t first, uint32_t count)>& make_leaf) {
  std::vector<WideNode, BvhAllocator<WideNode>> nodes;
  if (binary.slots == 0) return nodes;
  nodes.reserve(binary.order.size() / 4 + 1);
  Collapser c{binary, make_leaf, nodes};
  c.emit(0);
  return nodes;
}

}  // namespace tessera::rt
