// Compiled per target (core/highway.h); the colour count, the widest of these loops, is
// dispatched at run time (AVX-512 holds half a plane in one vector, AVX2 a quarter), the rest
// run at the build's static target. Every result is exact, so the target changes no count.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "color/plane_lanes.cpp"

#include "color/plane_lanes.h"

#include <array>
#include <cstddef>

#include "core/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::color::plane_lanes {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void channel_ranges(const Plane& plane, uint8_t lo[4], uint8_t hi[4]) {
  // Bytewise minima and maxima over the plane's 128 bytes, 16 at a time, then folded within
  // the vector: 16 bytes hold four whole pixels, so after the folds by 8 and 4 bytes, bytes
  // 0..3 are the channels' extremes.
  const hn::FixedTag<uint8_t, 16> d;
  const auto* bytes = reinterpret_cast<const uint8_t*>(plane.data());
  auto vlo = hn::LoadU(d, bytes), vhi = vlo;
  for (size_t i = 16; i < sizeof(Plane); i += 16) {
    const auto v = hn::LoadU(d, bytes + i);
    vlo = hn::Min(vlo, v);
    vhi = hn::Max(vhi, v);
  }
  vlo = hn::Min(vlo, hn::ShiftRightBytes<8>(d, vlo));
  vhi = hn::Max(vhi, hn::ShiftRightBytes<8>(d, vhi));
  vlo = hn::Min(vlo, hn::ShiftRightBytes<4>(d, vlo));
  vhi = hn::Max(vhi, hn::ShiftRightBytes<4>(d, vhi));
  alignas(16) uint8_t l[16], h[16];
  hn::Store(vlo, d, l);
  hn::Store(vhi, d, h);
  for (int k = 0; k < 4; ++k) lo[k] = l[k], hi[k] = h[k];
}

int colours_up_to(const uint32_t* const* rows, int row_count, int row_length, int cap, uint32_t* found) {
  // The colours found so far, each broadcast; a vector whose lanes all match one of them
  // needs nothing more (flat and two-colour blocks: one compare per colour per 8 samples).
  const hn::CappedTag<uint32_t, 8> d;
  const size_t n = hn::Lanes(d);
  using V = hn::Vec<decltype(d)>;
  V colours[8];
  int count = 0;
  for (int r = 0; r < row_count; ++r) {
    for (size_t i = 0; i < size_t(row_length); i += n) {
      const V v = hn::LoadU(d, rows[r] + i);
      for (;;) {
        auto known = hn::FirstN(d, 0);
        for (int c = 0; c < count; ++c) known = hn::Or(known, hn::Eq(v, colours[c]));
        if (hn::AllTrue(d, known)) break;
        // The first lane holding a new colour.
        const intptr_t lane = hn::FindFirstTrue(d, hn::Not(known));
        if (count == cap) return cap + 1;
        found[count] = rows[r][i + size_t(lane)];
        colours[count] = hn::Set(d, found[count]);
        ++count;
      }
    }
  }
  return count;
}

void first_samples4(const uint32_t* const rows[4], uint32_t* out) {
  // Sample 0 of each pixel is every fourth colour: the even lanes of the even lanes.
  const hn::CappedTag<uint32_t, 8> d;
  const size_t n = hn::Lanes(d);
  for (int r = 0; r < 4; ++r) {
    for (size_t i = 0; i < 32; i += 4 * n) {
      const auto a = hn::ConcatEven(d, hn::LoadU(d, rows[r] + i + n), hn::LoadU(d, rows[r] + i));
      const auto b = hn::ConcatEven(d, hn::LoadU(d, rows[r] + i + 3 * n), hn::LoadU(d, rows[r] + i + 2 * n));
      hn::StoreU(hn::ConcatEven(d, b, a), d, out + size_t(r) * 8 + i / 4);
    }
  }
}

void later_plane4(const uint32_t* const rows[4], int plane, uint32_t* out) {
  // Per pixel (one 128-bit block of four samples): the samples not yet of a found colour
  // ("fresh", all but colour 0's at the start); the first fresh sample of the block is the next
  // colour, spread over the block and then taken off the fresh ones. A pixel with fewer colours
  // runs out of fresh samples and gives 0. No branch on the data: the plane's pixels mix one-,
  // two- and more-colour pixels in no predictable order.
  const hn::CappedTag<uint32_t, 8> d;
  const size_t n = hn::Lanes(d);
  using V = hn::Vec<decltype(d)>;
  const V all = hn::Set(d, ~0u);
  auto colour_of = [&](const V v) {
    V fresh = hn::Xor(hn::VecFromMask(d, hn::Eq(v, hn::Broadcast<0>(v))), all);
    V colour = hn::Zero(d);
    for (int k = 1; k <= plane; ++k) {
      if (k > 1) fresh = hn::AndNot(hn::VecFromMask(d, hn::Eq(v, colour)), fresh);
      // Inclusive prefix OR of fresh within the block, then shifted: fresh at an earlier lane.
      V before = hn::Or(fresh, hn::ShiftLeftLanes<1>(d, fresh));
      before = hn::ShiftLeftLanes<1>(d, hn::Or(before, hn::ShiftLeftLanes<2>(d, before)));
      colour = hn::And(hn::AndNot(before, fresh), v);  // at most one lane per block
      colour = hn::Or(colour, hn::Shuffle1032(colour));
      colour = hn::Or(colour, hn::Shuffle0321(colour));
    }
    return colour;
  };
  // Every lane of a block holds its pixel's colour: the even lanes of the even lanes, as for
  // plane 0, pack one per pixel.
  for (int r = 0; r < 4; ++r) {
    for (size_t i = 0; i < 32; i += 4 * n) {
      const auto a = hn::ConcatEven(d, colour_of(hn::LoadU(d, rows[r] + i + n)), colour_of(hn::LoadU(d, rows[r] + i)));
      const auto b =
          hn::ConcatEven(d, colour_of(hn::LoadU(d, rows[r] + i + 3 * n)), colour_of(hn::LoadU(d, rows[r] + i + 2 * n)));
      hn::StoreU(hn::ConcatEven(d, b, a), d, out + size_t(r) * 8 + i / 4);
    }
  }
}

void half_maxima(const uint8_t* const rows[4], uint8_t out[2]) {
  // The rows' bytewise maximum, then folded within each half (a 32-bit lane) by 2 and 1 bytes.
  const hn::FixedTag<uint8_t, 8> d;
  const hn::FixedTag<uint32_t, 2> d32;
  auto m = hn::Max(hn::Max(hn::LoadU(d, rows[0]), hn::LoadU(d, rows[1])),
                   hn::Max(hn::LoadU(d, rows[2]), hn::LoadU(d, rows[3])));
  m = hn::Max(m, hn::BitCast(d, hn::ShiftRight<16>(hn::BitCast(d32, m))));
  m = hn::Max(m, hn::BitCast(d, hn::ShiftRight<8>(hn::BitCast(d32, m))));
  alignas(8) uint8_t bytes[8];
  hn::Store(m, d, bytes);
  out[0] = bytes[0], out[1] = bytes[4];
}

int distinct_colours_up_to(const Plane& plane, int cap) {
  // A pixel repeats a colour when it equals an earlier pixel; the plane's colours are the pixels
  // that do not. All pairs are compared, vector against vector rotated by 0..n-1 lanes (within
  // a vector only the rotations' lanes that reach back, lanes r.. of rotation r), with no
  // branch per pixel: the set the scalar count used mispredicted on every noisy plane. Vector
  // by vector, so that the colours of the first vectors, a lower bound of the whole count,
  // can stop it once they pass the cap (at most one branch a vector).
  const hn::CappedTag<uint32_t, 16> d;
  constexpr size_t n = hn::MaxLanes(d);
  constexpr size_t kVectors = kTilePixels / n;
  using V = hn::Vec<decltype(d)>;
  using M = hn::Mask<decltype(d)>;
  // Rotation by one lane: lane i holds lane (i - 1) mod n. Lanes i >= r of rotation r reach back.
  struct Tables {
    alignas(64) std::array<int32_t, n> by_one;
    alignas(64) std::array<std::array<uint32_t, n>, n> back;
  };
  static constexpr auto kTables = [] {
    Tables t{};
    for (size_t i = 0; i < n; ++i) t.by_one[i] = int32_t((i + n - 1) % n);
    for (size_t r = 0; r < n; ++r)
      for (size_t i = 0; i < n; ++i) t.back[r][i] = i >= r ? ~0u : 0u;
    return t;
  }();
  const auto by_one = hn::SetTableIndices(d, kTables.by_one.data());
  V rotated[kVectors][n];  // every rotation of the vectors done so far, for the later ones
  size_t repeated = 0;
  for (size_t a = 0; a < kVectors; ++a) {
    const V v = hn::LoadU(d, plane.data() + a * n);
    rotated[a][0] = v;
    M repeats = hn::FirstN(d, 0);
    for (size_t r = 1; r < n; ++r) {
      rotated[a][r] = hn::TableLookupLanes(rotated[a][r - 1], by_one);
      const M back = hn::MaskFromVec(hn::Load(d, kTables.back[r].data()));
      repeats = hn::Or(repeats, hn::And(hn::Eq(v, rotated[a][r]), back));
    }
    for (size_t b = 0; b < a; ++b) {
      for (size_t r = 0; r < n; ++r) repeats = hn::Or(repeats, hn::Eq(v, rotated[b][r]));
    }
    repeated += hn::CountTrue(d, repeats);
    const int at_least = int((a + 1) * n - repeated);
    if (a + 1 < kVectors && at_least > cap) return at_least;
  }
  return kTilePixels - int(repeated);
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::color::plane_lanes
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::color::plane_lanes {
void channel_ranges(const Plane& plane, uint8_t lo[4], uint8_t hi[4]) { HWY_NAMESPACE::channel_ranges(plane, lo, hi); }
int colours_up_to(const uint32_t* const* rows, int row_count, int row_length, int cap, uint32_t* found) {
  return HWY_NAMESPACE::colours_up_to(rows, row_count, row_length, cap, found);
}
void first_samples4(const uint32_t* const rows[4], uint32_t* out) { HWY_NAMESPACE::first_samples4(rows, out); }
void later_plane4(const uint32_t* const rows[4], int plane, uint32_t* out) {
  HWY_NAMESPACE::later_plane4(rows, plane, out);
}
void half_maxima(const uint8_t* const rows[4], uint8_t out[2]) { HWY_NAMESPACE::half_maxima(rows, out); }
HWY_EXPORT(distinct_colours_up_to);
int distinct_colours_up_to(const Plane& plane, int cap) {
  return HWY_DYNAMIC_DISPATCH(distinct_colours_up_to)(plane, cap);
}
}  // namespace tessera::color::plane_lanes
#endif  // HWY_ONCE
