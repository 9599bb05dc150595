// A 2x2 quad's plane counts at 4 samples, and which of a quad's cache lines are resident, in
// Highway vectors at the build's baseline target (x86-64-v3: AVX2; NEON on AArch64), chosen
// statically as the rasterizer's and the EU's lanes are. Inline: the colour back end counts
// every quad written, and the call would cost about as much as the count.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/highway.h"

namespace tessera::color::quad_lanes {

// A pixel count stored by quad_planes4 carries this bit: the pixel was written since its block
// was last analysed (ColorBackEnd's staleness test reads and clears it at the next eviction),
// so the per-quad path needs no store of its own for that. The count is the low bits.
inline constexpr uint8_t kWritten = 0x80;

// A row of two pixels by its repeat bits (bit 4p + j: sample j of pixel p equals an earlier
// sample of that pixel): byte 0 and 1 the pixels' colour counts (4 minus their repeats) with
// kWritten, byte 2 the larger count c as the bit 1 << (c - 1), so that two rows' maxima
// combine with an OR and a bit width rather than a data-dependent compare.
constexpr std::array<uint32_t, 256> row_counts_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t m = 0; m < 256; ++m) {
    // Sample 0 has no earlier sample: its bit is never set (counted out, so counts are 1..4).
    const uint32_t c0 = 4 - uint32_t(std::popcount(m & 14u)), c1 = 4 - uint32_t(std::popcount(m >> 4 & 14u));
    t[m] = (c0 | kWritten) | (c1 | kWritten) << 8 | 1u << ((c0 > c1 ? c0 : c1) - 1) << 16;
  }
  return t;
}
inline constexpr std::array<uint32_t, 256> kRowCounts = row_counts_table();

}  // namespace tessera::color::quad_lanes

HWY_BEFORE_NAMESPACE();
namespace tessera::color::quad_lanes {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// `row0` and `row1` each hold two pixels' four samples. A pixel's samples are one 128-bit block;
// compared with itself rotated by one, two and three samples (Highway's shuffles act per block,
// so a 256-bit vector takes both pixels of a row), lane j learns whether sample j equals an
// earlier sample of its pixel. A pixel's colours are its samples that do not: 4 minus its
// "repeat" lanes. No test for the common one-colour quad: three quarters of the quads have a
// pixel of two or more colours, so a branch on it costs more in mispredictions than it saves.
HWY_INLINE int quad_planes4(const uint32_t* row0, const uint32_t* row1, uint8_t* counts0, uint8_t* counts1) {
  const hn::CappedTag<uint32_t, 8> d;
  constexpr size_t kRow = 8;  // two pixels of four samples
  const size_t n = hn::Lanes(d);
  // Lanes that have an earlier sample 1, 2 and 3 places back in their pixel.
  alignas(32) static constexpr uint32_t kBack1[8] = {0, ~0u, ~0u, ~0u, 0, ~0u, ~0u, ~0u};
  alignas(32) static constexpr uint32_t kBack2[8] = {0, 0, ~0u, ~0u, 0, 0, ~0u, ~0u};
  alignas(32) static constexpr uint32_t kBack3[8] = {0, 0, 0, ~0u, 0, 0, 0, ~0u};
  const auto back1 = hn::Load(d, kBack1), back2 = hn::Load(d, kBack2), back3 = hn::Load(d, kBack3);
  uint32_t repeats[2] = {};  // per row, a bit per sample: it equals an earlier sample of its pixel
  const uint32_t* rows[2] = {row0, row1};
  for (int r = 0; r < 2; ++r) {
    for (size_t i = 0; i < kRow; i += n) {
      const auto v = hn::LoadU(d, rows[r] + i);
      // Shuffle2103: lane j holds sample j-1; Shuffle1032: j-2; Shuffle0321: j+1, i.e. j-3.
      const auto e1 = hn::And(hn::VecFromMask(d, hn::Eq(v, hn::Shuffle2103(v))), back1);
      const auto e2 = hn::And(hn::VecFromMask(d, hn::Eq(v, hn::Shuffle1032(v))), back2);
      const auto e3 = hn::And(hn::VecFromMask(d, hn::Eq(v, hn::Shuffle0321(v))), back3);
      uint8_t bits[8] = {};
      hn::StoreMaskBits(d, hn::MaskFromVec(hn::Or(e1, hn::Or(e2, e3))), bits);
      repeats[r] |= uint32_t(bits[0]) << i;
    }
  }
  // One lookup per row gives both pixels' counts (bytes 0 and 1, stored as they are: one 16-bit
  // store, little-endian as x86 and AArch64 are) and the larger of the two (byte 2, one-hot).
  static_assert(std::endian::native == std::endian::little);
  const uint32_t t0 = kRowCounts[repeats[0]], t1 = kRowCounts[repeats[1]];
  const uint16_t pair0 = uint16_t(t0), pair1 = uint16_t(t1);
  std::memcpy(counts0, &pair0, 2);
  std::memcpy(counts1, &pair1, 2);
  return std::bit_width((t0 | t1) >> 16);
}

// Bit k set when ways[k] is 0 (line k not resident), k < kN.
template <int kN>
HWY_INLINE unsigned missing_lines(const int32_t* ways) {
  const hn::CappedTag<int32_t, kN> d;
  const size_t n = hn::Lanes(d);
  unsigned missing = 0;
  for (size_t i = 0; i < size_t(kN); i += n) {
    uint8_t bits[8] = {};
    hn::StoreMaskBits(d, hn::Eq(hn::LoadU(d, ways + i), hn::Zero(d)), bits);
    missing |= unsigned(bits[0]) << i;
  }
  return missing;
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::color::quad_lanes
HWY_AFTER_NAMESPACE();

namespace tessera::color::quad_lanes {
// Each pixel's distinct colours (1..4), with kWritten, to counts0[0..1] and counts1[0..1];
// returns the most.
HWY_INLINE int quad_planes4(const uint32_t* row0, const uint32_t* row1, uint8_t* counts0, uint8_t* counts1) {
  return HWY_NAMESPACE::quad_planes4(row0, row1, counts0, counts1);
}
template <int kN>
HWY_INLINE unsigned missing_lines(const int32_t* ways) {
  return HWY_NAMESPACE::missing_lines<kN>(ways);
}
}  // namespace tessera::color::quad_lanes
