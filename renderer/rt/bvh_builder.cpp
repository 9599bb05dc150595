#include "rt/bvh_builder.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <string>

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
// Ranges at least this large bin into two bin sets (even and odd references): neighbouring
// references of coherent meshes fall into the same bins, and one set would chain every
// update on the previous one through memory.
constexpr size_t kTwoBinSetThreshold = 64;
// Large ranges have wide bins, where long runs of references share every bin: more sets
// shorten those chains further.
constexpr size_t kManyBinSetThreshold = 1024;
constexpr int kManyBinSets = 8;

// A box in SSE registers (lane 3 unused), here for centroid bounds. Min/max are exact, so
// merging boxes in any order gives the same bits.
struct Box4 {
  __m128 lo = _mm_set1_ps(std::numeric_limits<float>::infinity());
  __m128 hi = _mm_set1_ps(-std::numeric_limits<float>::infinity());
  void extend(__m128 l, __m128 h) {
    lo = _mm_min_ps(lo, l);
    hi = _mm_max_ps(hi, h);
  }
  void extend(const Box4& b) { extend(b.lo, b.hi); }
  void extend(__m128 p) { extend(p, p); }
  float extent(int a) const {
    alignas(16) float d[4];
    _mm_store_ps(d, _mm_sub_ps(hi, lo));
    return d[a];
  }
};

// A box as one AVX register: lo in lanes 0-2, -hi in lanes 4-6, so merging boxes is a single
// min (negation is exact, so this is the same as min/max on lo/hi). Lanes 3 and 7 carry no
// box: a primitive's index rides in lane 7, a bin's count in lane 3.
struct Box8 {
  __m256 v = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  void extend(__m256 b) { v = _mm256_min_ps(v, b); }
  void extend(const Box8& b) { extend(b.v); }
  __m128 lo() const { return _mm256_castps256_ps128(v); }
  __m128 hi() const { return _mm_xor_ps(_mm256_extractf128_ps(v, 1), _mm_set1_ps(-0.0f)); }
};

// Half the surface area of a non-empty box, in registers: dx*dy + dy*dz + dz*dx.
inline float half_area(const Box8& b) {
  const __m128 d = _mm_sub_ps(b.hi(), b.lo());
  const __m128 yzx = _mm_shuffle_ps(d, d, _MM_SHUFFLE(3, 0, 2, 1));
  const __m128 p = _mm_mul_ps(d, yzx);  // dx*dy, dy*dz, dz*dx
  return _mm_cvtss_f32(_mm_add_ss(_mm_add_ss(p, _mm_shuffle_ps(p, p, 1)), _mm_movehl_ps(p, p)));
}

// A primitive's box (as Box8) with its index in lane 7 and +inf in lane 3, so that a min with
// a bin (Bins::add) leaves the bin's count in lane 3 as it is.
struct alignas(32) PrimRef {
  __m256 v;
  // Twice the centroid: lo + hi, written lo - (-hi) (exact).
  __m128 centroid2() const { return _mm_sub_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)); }
  uint32_t index() const { return uint32_t(_mm256_extract_epi32(_mm256_castps_si256(v), 7)); }
};

// centroid2() read from memory: the -hi half as the subtraction's memory operand.
inline __m128 centroid2_of(const PrimRef* r) {
  const float* f = reinterpret_cast<const float*>(r);
  return _mm_sub_ps(_mm_load_ps(f), _mm_load_ps(f + 4));
}

// Per-axis bin boxes as plain registers (no default member initialisers): a node's bins are
// reset for its `n` bins only, not for all kMaxBins, which dominated small ranges. Lane 3 (+inf
// in references) holds the bin's primitive count as a float, so one register update bins a
// primitive on an axis; a Bins never counts more than kParallelBinThreshold primitives, far
// below float's exact-integer limit.
struct Bins {
  __m256 box[3][kMaxBins];
  Bins() = default;  // uninitialised: reset() the bins in use
  explicit Bins(int n) { reset(n); }
  static __m256 empty() {
    const float inf = std::numeric_limits<float>::infinity();
    return _mm256_setr_ps(inf, inf, inf, 0.0f, inf, inf, inf, inf);
  }
  // A reference: the min keeps the count (the reference's lane 3 is +inf); subtracting -1 in
  // lane 3 counts it, and subtracting +0 leaves every other lane's bits as they are (adding
  // +0 would turn -0 into +0).
  static __m256 add(__m256 bin, __m256 ref) {
    return _mm256_sub_ps(_mm256_min_ps(bin, ref), _mm256_setr_ps(0, 0, 0, -1.0f, 0, 0, 0, 0));
  }
  static __m256 combine(__m256 bin, __m256 other) {
    return _mm256_blend_ps(_mm256_min_ps(bin, other), _mm256_add_ps(bin, other), 0x08);
  }
  void reset(int n) {
    // Four bins a step (n >= 4 always): the loop's own instructions were three of every four.
    const __m256 e = empty();
    for (int a = 0; a < 3; ++a) {
      int i = 0;
      for (; i + 4 <= n; i += 4) box[a][i] = box[a][i + 1] = box[a][i + 2] = box[a][i + 3] = e;
      for (; i < n; ++i) box[a][i] = e;
    }
  }
  void merge(const Bins& o, int n) {
    for (int a = 0; a < 3; ++a)
      for (int i = 0; i < n; ++i) box[a][i] = combine(box[a][i], o.box[a][i]);
  }
  uint32_t count(int a, int i) const {
    return uint32_t(_mm_cvtss_si32(_mm_permute_ps(_mm256_castps256_ps128(box[a][i]), 3)));
  }
};

// Byte offset of box[axis][bin] in a Bins: a bin update is then one load of its offset.
constexpr uint32_t bin_offset(int axis, uint32_t bin) {
  return (uint32_t(axis) * kMaxBins + bin) * uint32_t(sizeof(__m256));
}

// Maps a centroid to bins on all three axes: the same expression serves binning and the
// partition, so the two always agree.
struct BinMapper {
  __m128 origin, scale;
  __m128i top;
  float scale_of[4];
  // The same per axis, broadcast for 8 references at a time (bins8).
  __m256 origin8[3], scale8[3];
  __m256i top8;
  BinMapper(const Box4& centroids2, int bins) {
    origin = centroids2.lo;
    alignas(16) float sc[4], o[4];
    for (int a = 0; a < 3; ++a) {
      const float e = centroids2.extent(a);
      sc[a] = e > 0.0f ? float(bins) * 0.99999f / e : 0.0f;
    }
    sc[3] = 0.0f;
    for (int a = 0; a < 4; ++a) scale_of[a] = sc[a];
    scale = _mm_load_ps(sc);
    top = _mm_set1_epi32(bins - 1);
    _mm_store_ps(o, origin);
    for (int a = 0; a < 3; ++a) origin8[a] = _mm256_set1_ps(o[a]), scale8[a] = _mm256_set1_ps(sc[a]);
    top8 = _mm256_set1_epi32(bins - 1);
  }
  __m128i bins(__m128 c2) const {
    const __m128i i = _mm_cvttps_epi32(_mm_mul_ps(_mm_sub_ps(c2, origin), scale));
    return _mm_max_epi32(_mm_min_epi32(i, top), _mm_setzero_si128());
  }
  // The three bins as bytes 0-2 of one word (bins < 256).
  uint32_t packed_bins(__m128 c2) const {
    const __m128i b =
        _mm_shuffle_epi8(bins(c2), _mm_setr_epi8(0, 4, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
    return uint32_t(_mm_cvtsi128_si32(b));
  }
  // bins() of 8 references, one register per axis: their doubled centroids are transposed
  // (references k and k + 4 share a register, so the lanes come out in reference order) and
  // each lane takes bins()'s operations in bins()'s order, so every bin is the same. Writes the
  // packed bins and, per axis, the bins' byte offsets in a Bins (off[a * stride + 0..8)).
  void bins8(const PrimRef* r, uint32_t* packed, uint32_t* off, size_t stride) const {
    __m256 c[4];
    for (int k = 0; k < 4; ++k) {
      const __m256 a = r[k].v, b = r[k + 4].v;
      c[k] = _mm256_sub_ps(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permute2f128_ps(a, b, 0x31));
    }
    const __m256 t0 = _mm256_unpacklo_ps(c[0], c[1]), t1 = _mm256_unpackhi_ps(c[0], c[1]);
    const __m256 t2 = _mm256_unpacklo_ps(c[2], c[3]), t3 = _mm256_unpackhi_ps(c[2], c[3]);
    const __m256 axis[3] = {_mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)),
                            _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)),
                            _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0))};
    __m256i bin[3];
    for (int a = 0; a < 3; ++a) {
      const __m256i i = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_sub_ps(axis[a], origin8[a]), scale8[a]));
      bin[a] = _mm256_max_epi32(_mm256_min_epi32(i, top8), _mm256_setzero_si256());
      const __m256i offset = _mm256_add_epi32(_mm256_slli_epi32(bin[a], 5), _mm256_set1_epi32(int(bin_offset(a, 0))));
      static_assert(sizeof(__m256) == 32, "a bin's offset is its index shifted by 5");
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(off + size_t(a) * stride), offset);
    }
    const __m256i p =
        _mm256_or_si256(bin[0], _mm256_or_si256(_mm256_slli_epi32(bin[1], 8), _mm256_slli_epi32(bin[2], 16)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(packed), p);
  }
  // One reference, the same outputs as bins8.
  void bins1(const PrimRef& r, uint32_t* packed, uint32_t* off, size_t stride) const {
    const uint32_t p = packed_bins(r.centroid2());
    *packed = p;
    for (int a = 0; a < 3; ++a) off[size_t(a) * stride] = bin_offset(a, (p >> (8 * a)) & 0xff);
  }
};

// Bins references round robin into `Sets` bin sets (the first is `bins`), then merges them.
// The bins of a batch are computed first, in a pass without stores to the bins: computed
// in the same pass, a bin's address is known only late, and loads of later bins would be
// issued past stores whose address is still unknown, stalling or replaying when they alias.
// That pass computes 8 references at a time (BinIndexing::simd) and leaves each bin's byte
// offset, so an update is an offset load, a min, a subtract and a store. The packed bins are
// kept in `bin_of` (beside `refs`, same index) for the partition.
template <int Sets>
void bin_range_sets(const PrimRef* refs, uint32_t* bin_of, size_t begin, size_t end, const BinMapper& m, int nb,
                    BinIndexing indexing, Bins& bins) {
  constexpr size_t kBatch = 64, kLanes = 8;
  static_assert(kBatch % kManyBinSets == 0, "batches keep the round robin's phase");
  Bins extra[Sets > 1 ? Sets - 1 : 1];
  char* set[Sets];
  set[0] = reinterpret_cast<char*>(&bins);
  for (int k = 1; k < Sets; ++k) extra[k - 1].reset(nb), set[k] = reinterpret_cast<char*>(&extra[k - 1]);
  // Per axis, kLanes entries of slack before the batch's: its last group may start before it.
  constexpr size_t kStride = kLanes + kBatch;
  alignas(32) uint32_t offsets[3 * kStride];
  uint32_t* const off = offsets + kLanes;  // off[a * kStride + i]: reference first + i, axis a
  const bool lanes = indexing == BinIndexing::simd && end - begin >= kLanes;
  for (size_t first = begin; first < end; first += kBatch) {
    const size_t count = std::min(kBatch, end - first);
    const PrimRef* r = refs + first;
    uint32_t* packed = bin_of + first;
    if (lanes) {
      size_t i = 0;
      for (; i + kLanes <= count; i += kLanes) m.bins8(r + i, packed + i, off + i, kStride);
      // The last group ends at the batch's end, overlapping the group before it (or the
      // previous batch): those references' bins are written again, with the same values.
      if (i < count) m.bins8(r + count - kLanes, packed + count - kLanes, off + count - kLanes, kStride);
    } else {
      for (size_t i = 0; i < count; ++i) m.bins1(r[i], packed + i, off + i, kStride);
    }
    auto update = [&](char* s, __m256 v, size_t i) {
      for (size_t a = 0; a < 3; ++a) {
        __m256* bin = reinterpret_cast<__m256*>(s + off[a * kStride + i]);
        *bin = Bins::add(*bin, v);
      }
    };
    size_t i = 0;
    for (; i + Sets <= count; i += Sets)
      for (int k = 0; k < Sets; ++k) update(set[k], r[i + size_t(k)].v, i + size_t(k));
    for (int k = 0; i < count; ++i, ++k) update(set[k], r[i].v, i);
  }
  for (int k = 1; k < Sets; ++k) bins.merge(extra[k - 1], nb);
}

void bin_range(const PrimRef* refs, uint32_t* bin_of, size_t begin, size_t end, const BinMapper& m, int nb,
               BinIndexing indexing, Bins& bins) {
  const size_t n = end - begin;
  if (n < kTwoBinSetThreshold) {
    bin_range_sets<1>(refs, bin_of, begin, end, m, nb, indexing, bins);
  } else if (n < kManyBinSetThreshold) {
    bin_range_sets<2>(refs, bin_of, begin, end, m, nb, indexing, bins);
  } else {
    bin_range_sets<kManyBinSets>(refs, bin_of, begin, end, m, nb, indexing, bins);
  }
}

struct Split {
  int axis = -1;
  int bin = 0;  // bins [0, bin) go left
  float cost = std::numeric_limits<float>::infinity();
};

// Cost of splitting after bin i = A(left) * blocks(left) + A(right) * blocks(right), counting
// triangles in blocks of 4 since a block costs one SIMD test whatever its fill.
inline float blocks_of(uint32_t count) { return float((count + kBlockWidth - 1) / kBlockWidth); }

// The reference sweep, one candidate at a time over per-axis integer counts (it serves the
// parallel binning, whose counts exceed a chunk's float-exact lane-3 counts, and is what the
// SIMD sweep must reproduce bit for bit). Selected without branches on the data (they
// mispredicted on nearly every small node), keeping the first strictly better candidate.
Split sweep_scalar(const Bins& bins, const uint32_t (&counts)[3][kMaxBins], size_t n, const BinMapper& m, int nb) {
  float best_cost = std::numeric_limits<float>::infinity();
  int best_key = -1;  // axis * kMaxBins + bin
  float right_cost[kMaxBins];
  for (int a = 0; a < 3; ++a) {
    if (m.scale_of[a] == 0.0f) continue;
    Box8 acc;
    uint32_t count = 0;
    for (int i = nb - 1; i > 0; --i) {
      acc.extend(bins.box[a][i]);
      count += counts[a][i];
      right_cost[i] = half_area(acc) * blocks_of(count);  // unused where the right side is empty
    }
    acc = Box8{};
    count = 0;
    for (int i = 0; i < nb - 1; ++i) {
      acc.extend(bins.box[a][i]);
      count += counts[a][i];
      const float cost = half_area(acc) * blocks_of(count) + right_cost[i + 1];
      const bool better = (count != 0) & (count != n) & (cost < best_cost);
      best_cost = better ? cost : best_cost;
      best_key = better ? a * kMaxBins + i + 1 : best_key;
    }
  }
  Split best;
  if (best_key >= 0) best = Split{best_key / kMaxBins, best_key % kMaxBins, best_cost};
  return best;
}

// Transposes 8 boxes (rows: lo x y z, count, -hi x y z, -) into one register per lane.
inline void transpose8(const __m256* rows, __m256 (&col)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(rows[0], rows[1]), t1 = _mm256_unpackhi_ps(rows[0], rows[1]);
  const __m256 t2 = _mm256_unpacklo_ps(rows[2], rows[3]), t3 = _mm256_unpackhi_ps(rows[2], rows[3]);
  const __m256 t4 = _mm256_unpacklo_ps(rows[4], rows[5]), t5 = _mm256_unpackhi_ps(rows[4], rows[5]);
  const __m256 t6 = _mm256_unpacklo_ps(rows[6], rows[7]), t7 = _mm256_unpackhi_ps(rows[6], rows[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  col[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  col[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  col[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  col[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  col[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  col[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  col[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  col[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// half_area * blocks of 8 prefix boxes at once, with the scalar path's operations in the same
// order ((dx*dy + dy*dz) + dz*dx, then the block count) so every cost has the same bits; the
// counts are the prefixes' lane 3 (returned in `count`).
inline __m256 prefix_costs(const __m256* rows, __m256& count) {
  __m256 c[8];
  transpose8(rows, c);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 dx = _mm256_sub_ps(_mm256_xor_ps(c[4], sign), c[0]);
  const __m256 dy = _mm256_sub_ps(_mm256_xor_ps(c[5], sign), c[1]);
  const __m256 dz = _mm256_sub_ps(_mm256_xor_ps(c[6], sign), c[2]);
  const __m256 area = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dy), _mm256_mul_ps(dy, dz)), _mm256_mul_ps(dz, dx));
  count = c[3];
  static_assert(kBlockWidth == 4, "the block count is a shift by 2");
  const __m256i blocks =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(c[3]), _mm256_set1_epi32(kBlockWidth - 1)), 2);
  return _mm256_mul_ps(area, _mm256_cvtepi32_ps(blocks));
}

// The same choice as sweep_scalar from the float counts in the bins' lane 3 (exact: a Bins
// counts fewer than kParallelBinThreshold primitives). The candidates of all three axes (split
// after bin i = 0..nb-2, axis-major, the scalar order) are laid out in one array of prefix
// boxes, so their costs are computed 8 at a time; the first candidate of least cost wins, as
// the scalar path's first strictly better one does.
Split sweep_simd(const Bins& bins, size_t n, const BinMapper& m, int nb) {
  constexpr int kPadded = (3 * (kMaxBins - 1) + 7) / 8 * 8;
  const int per_axis = nb - 1, total = 3 * per_axis, groups = (total + 7) / 8;
  // left[k]: bins 0..i of candidate k's axis; right[k]: bins i+1..nb-1 (lane 3: their count).
  alignas(32) __m256 left[kPadded], right[kPadded];
  const __m256 empty = Bins::empty();
  for (int a = 0; a < 3; ++a) {
    __m256 acc = empty;
    for (int i = 0; i < per_axis; ++i) left[a * per_axis + i] = acc = Bins::combine(acc, bins.box[a][i]);
    acc = empty;
    for (int i = nb - 1; i > 0; --i) right[a * per_axis + i - 1] = acc = Bins::combine(acc, bins.box[a][i]);
  }
  // Padding and axes without extent (skipped by the scalar sweep) get a left count of 0,
  // which makes them invalid below.
  for (int k = total; k < groups * 8; ++k) left[k] = right[k] = empty;
  for (int a = 0; a < 3; ++a)
    if (m.scale_of[a] == 0.0f)
      for (int i = 0; i < per_axis; ++i) left[a * per_axis + i] = empty;
  const float inf = std::numeric_limits<float>::infinity();
  alignas(32) float cost[kPadded];
  __m256 least = _mm256_set1_ps(inf);
  const __m256 zero = _mm256_setzero_ps(), all = _mm256_set1_ps(float(n)), infv = _mm256_set1_ps(inf);
  for (int g = 0; g < groups; ++g) {
    __m256 left_count, right_count;
    const __m256 c = _mm256_add_ps(prefix_costs(left + 8 * g, left_count), prefix_costs(right + 8 * g, right_count));
    const __m256 valid = _mm256_and_ps(
        _mm256_and_ps(_mm256_cmp_ps(left_count, zero, _CMP_NEQ_OQ), _mm256_cmp_ps(left_count, all, _CMP_NEQ_OQ)),
        _mm256_cmp_ps(c, infv, _CMP_LT_OQ));
    const __m256 masked = _mm256_blendv_ps(infv, c, valid);
    _mm256_store_ps(cost + 8 * g, masked);
    least = _mm256_min_ps(least, masked);
  }
  __m128 m4 = _mm_min_ps(_mm256_castps256_ps128(least), _mm256_extractf128_ps(least, 1));
  m4 = _mm_min_ps(m4, _mm_movehl_ps(m4, m4));
  m4 = _mm_min_ss(m4, _mm_movehdup_ps(m4));
  const float best_cost = _mm_cvtss_f32(m4);
  Split best;
  if (!(best_cost < inf)) return best;
  const __m256 bv = _mm256_set1_ps(best_cost);
  for (int g = 0;; ++g) {
    const int mask = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_load_ps(cost + 8 * g), bv, _CMP_EQ_OQ));
    if (mask) {
      const int k = 8 * g + std::countr_zero(unsigned(mask));
      return Split{k / per_axis, k % per_axis + 1, cost[k]};
    }
  }
}

// Bins the range and sweeps for the cheapest plane. Kept out of the recursive build so its
// bin sets do not sit in every level's stack frame.
[[gnu::noinline]] Split find_split(const PrimRef* refs, uint32_t* bin_of, size_t begin, size_t end, const BinMapper& m,
                                   int nb, SplitSweep sweep, BinIndexing indexing) {
  const size_t n = end - begin;
  Bins bins(nb);
  uint32_t counts[3][kMaxBins];
  if (n >= kParallelBinThreshold) {
    // Counts sum as integers: a float count is exact only within one chunk.
    const size_t chunks = (n + kBinChunk - 1) / kBinChunk;
    std::vector<Bins> partial(chunks);
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, chunks, 1),
        [&](const tbb::blocked_range<size_t>& r) {
          for (size_t c = r.begin(); c != r.end(); ++c) {
            partial[c].reset(nb);
            bin_range(refs, bin_of, begin + c * kBinChunk, std::min(end, begin + (c + 1) * kBinChunk), m, nb, indexing,
                      partial[c]);
          }
        },
        tbb::simple_partitioner());
    for (int a = 0; a < 3; ++a)
      for (int i = 0; i < nb; ++i) counts[a][i] = 0;
    for (const Bins& p : partial) {
      bins.merge(p, nb);
      for (int a = 0; a < 3; ++a)
        for (int i = 0; i < nb; ++i) counts[a][i] += p.count(a, i);
    }
    return sweep_scalar(bins, counts, n, m, nb);
  }
  bin_range(refs, bin_of, begin, end, m, nb, indexing, bins);
  if (sweep == SplitSweep::simd) return sweep_simd(bins, n, m, nb);
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < nb; ++i) counts[a][i] = bins.count(a, i);
  return sweep_scalar(bins, counts, n, m, nb);
}

struct Builder {
  PrimRef* refs;
  uint32_t* bin_of;  // bins of refs[i] on the three axes (BinMapper::packed_bins), per node
  BinaryNode* nodes;
  const BinaryBuildOptions& opt;

  void set_node(uint32_t slot, const Box8& box, size_t first, size_t count, uint32_t right, size_t blocks) {
    alignas(16) float lo[4], hi[4];
    _mm_store_ps(lo, box.lo());
    _mm_store_ps(hi, box.hi());
    BinaryNode& n = nodes[slot];
    for (int k = 0; k < 3; ++k) n.lo[k] = lo[k], n.hi[k] = hi[k];
    n.first = uint32_t(first);
    n.count = uint32_t(count);
    n.right = right;
    n.blocks = uint32_t(blocks);
  }

  struct Built {
    int depth;      // deepest leaf
    uint32_t next;  // first slot after the subtree's nodes
    size_t blocks;  // blocks of kBlockWidth its leaves fill
  };

  Built leaf(uint32_t slot, const Box8& box, size_t begin, size_t n, int depth) {
    const size_t blocks = (n + kBlockWidth - 1) / kBlockWidth;
    set_node(slot, box, begin, n, 0, blocks);
    return Built{depth, slot + 1, blocks};
  }

  // Builds the subtree over refs[begin, end) into `slot` (owning 2n-1 slots from there).
  // `box` and `centroids2` are the range's primitive bounds and doubled-centroid bounds.
  // Ranges split into parallel tasks place the right child right after the left child's
  // 2*n_left - 1 slots; below that a subtree is built by one task and packs its nodes depth
  // first, so the slots its leaves leave unused stay at the end of its range, their pages
  // never touched.
  Built build(uint32_t slot, size_t begin, size_t end, const Box8& box, const Box4& centroids2, int depth) {
    const size_t n = end - begin;
    const size_t max_leaf = size_t(opt.max_leaf_size);
    if (n <= std::min<size_t>(2, max_leaf) || n == 1) return leaf(slot, box, begin, n, depth);
    const bool sah = depth <= opt.max_sah_depth;
    // Up to one block a leaf always wins the cost test below (blocks(n) * A = A <= A + any
    // split), so such ranges skip the binning.
    if ((!sah || n <= size_t(kBlockWidth)) && n <= max_leaf) return leaf(slot, box, begin, n, depth);
    // Fewer bins for small ranges: as many candidate planes as there are primitives to split.
    const int nb = std::clamp(int(n / 2), 4, opt.bins);
    const BinMapper m(centroids2, nb);
    Split split;
    if (sah) {
      split = find_split(refs, bin_of, begin, end, m, nb, opt.sweep, opt.indexing);
      // Leaf when small enough and not worse than a split (a node step ~ one block test).
      const float area = half_area(box);
      const float blocks = float((n + kBlockWidth - 1) / kBlockWidth);
      if (n <= max_leaf && blocks * area <= area + split.cost) return leaf(slot, box, begin, n, depth);
    }
    size_t mid;
    Box8 lbox, rbox;
    Box4 lcent, rcent;
    if (split.axis >= 0) {
      // In-place partition by bin from both ends, swapping only misplaced pairs and
      // accumulating the children's bounds on the way (in locals the compiler can keep in
      // registers: the swaps would otherwise force them through memory).
      // The bins come from the binning (positions are each examined once, so swapped
      // references need not carry theirs along): a short dependency chain ahead of each branch.
      // Each side walks a reference pointer and a bin pointer together, both local: stores of
      // references (vector types may alias anything) would otherwise reload the members, and
      // an index derived from the reference pointer costs a subtraction and a shift a step.
      const uint32_t field = 0xffu << (8 * split.axis), limit = uint32_t(split.bin) << (8 * split.axis);
      const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
      __m256 lb = inf, rb = inf;
      __m128 lc_lo = _mm256_castps256_ps128(inf), lc_hi = _mm_sub_ps(_mm_setzero_ps(), lc_lo);
      __m128 rc_lo = lc_lo, rc_hi = lc_hi;
      PrimRef* i = refs + begin;
      PrimRef* j = refs + end;
      const uint32_t* bin_i = bin_of + begin;
      const uint32_t* bin_j = bin_of + end;
      for (;;) {
        for (; i < j; ++i, ++bin_i) {
          if ((*bin_i & field) >= limit) break;
          const __m256 v = i->v;
          const __m128 c = centroid2_of(i);
          lb = _mm256_min_ps(lb, v);
          lc_lo = _mm_min_ps(lc_lo, c), lc_hi = _mm_max_ps(lc_hi, c);
        }
        for (; i < j; --j, --bin_j) {
          if ((bin_j[-1] & field) < limit) break;
          const __m256 v = (j - 1)->v;
          const __m128 c = centroid2_of(j - 1);
          rb = _mm256_min_ps(rb, v);
          rc_lo = _mm_min_ps(rc_lo, c), rc_hi = _mm_max_ps(rc_hi, c);
        }
        if (i >= j) break;
        // *i belongs right and *(j - 1) left: swap them into place.
        --j, --bin_j;
        const __m256 right_v = i->v, left_v = j->v;
        i->v = left_v;
        j->v = right_v;
        const __m128 lc = centroid2_of(i), rc = centroid2_of(j);
        lb = _mm256_min_ps(lb, left_v);
        lc_lo = _mm_min_ps(lc_lo, lc), lc_hi = _mm_max_ps(lc_hi, lc);
        rb = _mm256_min_ps(rb, right_v);
        rc_lo = _mm_min_ps(rc_lo, rc), rc_hi = _mm_max_ps(rc_hi, rc);
        ++i, ++bin_i;
      }
      mid = size_t(i - refs);
      lbox.v = lb, rbox.v = rb;
      lcent.lo = lc_lo, lcent.hi = lc_hi, rcent.lo = rc_lo, rcent.hi = rc_hi;
    } else {
      // No usable split (coincident centroids or past the SAH depth): object median on the
      // widest centroid axis, ties broken by primitive index so the order is total.
      const int a = centroids2.extent(0) >= centroids2.extent(1) && centroids2.extent(0) >= centroids2.extent(2)
                        ? 0
                        : (centroids2.extent(1) >= centroids2.extent(2) ? 1 : 2);
      mid = begin + n / 2;
      std::nth_element(refs + begin, refs + mid, refs + end, [a](const PrimRef& x, const PrimRef& y) {
        alignas(16) float cx[4], cy[4];
        _mm_store_ps(cx, x.centroid2());
        _mm_store_ps(cy, y.centroid2());
        return cx[a] < cy[a] || (cx[a] == cy[a] && x.index() < y.index());
      });
      for (size_t k = begin; k < mid; ++k) lbox.extend(refs[k].v), lcent.extend(refs[k].centroid2());
      for (size_t k = mid; k < end; ++k) rbox.extend(refs[k].v), rcent.extend(refs[k].centroid2());
    }
    TS_CHECK(mid > begin && mid < end, "BVH split left a side empty");
    const uint32_t left = slot + 1;
    if (n >= kParallelTaskThreshold) {
      const uint32_t right = slot + uint32_t(2 * (mid - begin));
      Built l{}, r{};
      tbb::parallel_invoke([&] { l = build(left, begin, mid, lbox, lcent, depth + 1); },
                           [&] { r = build(right, mid, end, rbox, rcent, depth + 1); });
      set_node(slot, box, begin, n, right, l.blocks + r.blocks);
      return Built{std::max(l.depth, r.depth), slot + uint32_t(2 * n - 1), l.blocks + r.blocks};
    }
    const Built l = build(left, begin, mid, lbox, lcent, depth + 1);
    const Built r = build(l.next, mid, end, rbox, rcent, depth + 1);
    set_node(slot, box, begin, n, l.next, l.blocks + r.blocks);
    return Built{std::max(l.depth, r.depth), r.next, l.blocks + r.blocks};
  }
};

constexpr size_t kBoundsBatch = 256;  // boxes fetched per bounds call (on the stack)

}  // namespace

BinaryBvh build_binary_bvh(size_t n, const PrimitiveBoundsFn& bounds, const BinaryBuildOptions& options) {
  // Options come from BuildOptions (user settings): bad values are errors, not internal faults.
  if (options.bins < 4 || options.bins > kMaxBins)
    throw Error("rt: BVH bins must be in [4, 64], got " + std::to_string(options.bins));
  if (options.max_leaf_size < 1)
    throw Error("rt: BVH leaves need at least one primitive, got " + std::to_string(options.max_leaf_size));
  BinaryBvh out;
  if (n == 0) return out;
  TS_CHECK(n < (1u << 30), "too many primitives for one BVH");
  // References in parallel over fixed chunks (each chunk's pages first touched by its task);
  // the root bounds merge per chunk by min/max, exact in any order.
  BuildArray<PrimRef> refs(n);
  const size_t chunks = (n + kBinChunk - 1) / kBinChunk;
  std::vector<std::pair<Box8, Box4>> chunk_bounds(chunks);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, chunks, 1),
      [&](const tbb::blocked_range<size_t>& r) {
        Aabb batch[kBoundsBatch];
        const __m128 inf4 = _mm_set1_ps(std::numeric_limits<float>::infinity()), sign4 = _mm_set1_ps(-0.0f);
        for (size_t c = r.begin(); c != r.end(); ++c) {
          Box8 box;
          Box4 centroids2;
          const size_t chunk_end = std::min(n, (c + 1) * kBinChunk);
          for (size_t first = c * kBinChunk; first < chunk_end; first += kBoundsBatch) {
            const size_t k = std::min(kBoundsBatch, chunk_end - first);
            bounds(first, std::span<Aabb>(batch, k));
            for (size_t e = 0; e < k; ++e) {
              // The box's six floats as two overlapping loads: lo.xyz hi.x and lo.z hi.xyz.
              static_assert(sizeof(Aabb) == 6 * sizeof(float));
              const float* b = &batch[e].lo.x;
              const __m128 lo = _mm_blend_ps(_mm_loadu_ps(b), inf4, 0x8);
              const __m128 hi = _mm_loadu_ps(b + 2);
              const __m128 neg_hi = _mm_castsi128_ps(_mm_insert_epi32(
                  _mm_castps_si128(_mm_xor_ps(_mm_shuffle_ps(hi, hi, _MM_SHUFFLE(3, 3, 2, 1)), sign4)), int(first + e), 3));
              PrimRef& ref = refs[first + e];
              ref.v = _mm256_set_m128(neg_hi, lo);
              box.extend(ref.v);
              centroids2.extend(ref.centroid2());
            }
          }
          chunk_bounds[c] = {box, centroids2};
        }
      },
      tbb::simple_partitioner());
  Box8 box;
  Box4 centroids2;
  for (const auto& b : chunk_bounds) box.extend(b.first), centroids2.extend(b.second);
  out.slots = 2 * n - 1;
  // Most slots stay unused (leaves leave theirs at the end of each packed subtree's range).
  out.nodes = BuildArray<BinaryNode>(out.slots, BuildArray<BinaryNode>::Pages::small);
  BuildArray<uint32_t> bin_of(n);
  Builder builder{refs.data(), bin_of.data(), out.nodes.data(), options};
  const Builder::Built root = builder.build(0, 0, n, box, centroids2, 1);
  out.depth = root.depth;
  out.blocks = root.blocks;
  out.order.resize(n);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, chunks, 1),
      [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin() * kBinChunk; i < std::min(n, r.end() * kBinChunk); ++i)
          out.order[i] = refs[i].index();
      },
      tbb::simple_partitioner());
  return out;
}

BinaryBvh build_binary_bvh(std::span<const Aabb> primitive_bounds, const BinaryBuildOptions& options) {
  return build_binary_bvh(
      primitive_bounds.size(),
      [primitive_bounds](size_t first, std::span<Aabb> out) {
        std::copy_n(primitive_bounds.begin() + long(first), out.size(), out.begin());
      },
      options);
}

namespace {

using WideNodes = std::vector<WideNode, BvhAllocator<WideNode>>;

struct Collapser {
  const BinaryBvh& binary;
  const MakeLeafFn& make_leaf;

  static void clear(WideNode& w) {
    for (int i = 0; i < kWidth; ++i) {
      w.lo_x[i] = w.lo_y[i] = w.lo_z[i] = std::numeric_limits<float>::infinity();
      w.hi_x[i] = w.hi_y[i] = w.hi_z[i] = -std::numeric_limits<float>::infinity();
      w.child[i] = kEmptyChild;
      w.reserved[i] = 0;
    }
  }

  // The children of the wide node over binary `slot` (whose leaves' blocks start at
  // `first_block`): opens the child of largest surface area until 8 children.
  struct Children {
    std::array<uint32_t, kWidth> slot{};
    std::array<uint32_t, kWidth> first_block{};
    int count = 0;
  };
  Children gather(uint32_t slot, uint32_t first_block) const {
    Children k;
    std::array<float, kWidth> area{};  // -1 for leaves, which are never opened
    auto add = [&](int i, uint32_t kid, uint32_t block) {
      k.slot[i] = kid;
      k.first_block[i] = block;
      const BinaryNode& c = binary.nodes[kid];
      area[i] = c.leaf() ? -1.0f : c.bounds().half_area();
    };
    const BinaryNode& root = binary.nodes[slot];
    if (root.leaf()) {
      k.slot[k.count] = slot, k.first_block[k.count] = first_block, area[k.count++] = -1.0f;
    } else {
      add(k.count++, slot + 1, first_block);
      add(k.count++, root.right, first_block + binary.nodes[slot + 1].blocks);
    }
    while (k.count < kWidth) {
      int best = -1;
      float best_area = -1.0f;
      for (int i = 0; i < k.count; ++i)
        if (area[i] >= 0.0f && area[i] > best_area) best_area = area[i], best = i;
      if (best < 0) break;
      const uint32_t open = k.slot[best], open_block = k.first_block[best];
      add(best, open + 1, open_block);
      add(k.count++, binary.nodes[open].right, open_block + binary.nodes[open + 1].blocks);
    }
    return k;
  }

  void write(WideNode& w, const Children& k, const std::array<uint32_t, kWidth>& refs) const {
    clear(w);
    for (int i = 0; i < k.count; ++i) {
      const Aabb b = binary.nodes[k.slot[i]].bounds();
      w.lo_x[i] = b.lo.x, w.lo_y[i] = b.lo.y, w.lo_z[i] = b.lo.z;
      w.hi_x[i] = b.hi.x, w.hi_y[i] = b.hi.y, w.hi_z[i] = b.hi.z;
      w.child[i] = refs[i];
    }
  }

  // Collapses the subtree at `slot` depth first into `nodes`.
  uint32_t emit(uint32_t slot, uint32_t first_block, WideNodes& nodes) const {
    const uint32_t index = uint32_t(nodes.size());
    TS_CHECK(index < (1u << 29), "too many wide BVH nodes");
    nodes.emplace_back();
    const Children k = gather(slot, first_block);
    std::array<uint32_t, kWidth> refs{};
    for (int i = 0; i < k.count; ++i) {
      const BinaryNode& c = binary.nodes[k.slot[i]];
      refs[i] = c.leaf() ? make_leaf(c.first, c.count, k.first_block[i])
                         : child_ref(ChildKind::interior, emit(k.slot[i], k.first_block[i], nodes));
    }
    write(nodes[index], k, refs);  // after the recursion: emplace_back may have moved it
    return index;
  }
};

}  // namespace

WideNodes collapse_to_wide(const BinaryBvh& binary, const MakeLeafFn& make_leaf) {
  WideNodes nodes;
  if (binary.slots == 0) return nodes;
  nodes.reserve(binary.order.size() / 4 + 1);
  Collapser{binary, make_leaf}.emit(0, 0, nodes);
  return nodes;
}

}  // namespace tessera::rt
