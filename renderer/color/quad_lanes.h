// A 2x2 quad's plane counts at 4 samples in Highway vectors at the build's baseline target
// (x86-64-v3: AVX2; NEON on AArch64), chosen statically as the rasterizer's and the EU's lanes
// are. Inline: the colour back end counts every quad written, and the call would cost about as
// much as the count.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "core/highway.h"

namespace tessera::color::quad_lanes {

// Distinct colours of four samples a, b, c, d from their pairwise equalities, bits 0..5 =
// a==b, b==c, c==d, d==a, a==c, b==d (equality is transitive, so the bits name a partition;
// its classes are the colours): the samples joined along the equal pairs.
constexpr int colours_of_pairs(int pairs) {
  constexpr int kPair[6][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}, {1, 3}};
  int cls[4] = {0, 1, 2, 3};
  for (int i = 0; i < 6; ++i) {
    if (!(pairs >> i & 1)) continue;
    const int a = cls[kPair[i][0]], b = cls[kPair[i][1]];
    const int lo = a < b ? a : b;
    for (int& c : cls) c = c == a || c == b ? lo : c;
  }
  int colours = 0;
  for (int k = 0; k < 4; ++k) colours += cls[k] == k;
  return colours;
}

constexpr std::array<uint8_t, 64> colours_of_pairs_table() {
  std::array<uint8_t, 64> t{};
  for (int i = 0; i < 64; ++i) t[size_t(i)] = uint8_t(colours_of_pairs(i));
  return t;
}
inline constexpr std::array<uint8_t, 64> kColoursOfPairs = colours_of_pairs_table();

}  // namespace tessera::color::quad_lanes

HWY_BEFORE_NAMESPACE();
namespace tessera::color::quad_lanes {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// `row0` and `row1` each hold two pixels' four samples. A pixel's samples are one 128-bit block:
// compared with itself rotated by one and by two samples, it gives all six pairs (Highway's
// shuffles act per 128-bit block, so a 256-bit vector takes both pixels of a row).
HWY_INLINE int quad_planes4(const uint32_t* row0, const uint32_t* row1, uint8_t* counts0, uint8_t* counts1) {
  const hn::CappedTag<uint32_t, 8> d;
  constexpr size_t kRow = 8;  // two pixels of four samples
  const size_t n = hn::Lanes(d);
  // Every pixel one colour (most quads): each sample equals the next.
  bool uniform = true;
  for (size_t i = 0; i < kRow; i += n) {
    const auto v0 = hn::LoadU(d, row0 + i), v1 = hn::LoadU(d, row1 + i);
    uniform = uniform && hn::AllTrue(d, hn::And(hn::Eq(v0, hn::Shuffle0321(v0)), hn::Eq(v1, hn::Shuffle0321(v1))));
  }
  if (uniform) {
    counts0[0] = counts0[1] = counts1[0] = counts1[1] = 1;
    return 1;
  }
  uint32_t next[2] = {}, across[2] = {};  // per row, 4 mask bits per pixel
  const uint32_t* rows[2] = {row0, row1};
  for (int r = 0; r < 2; ++r) {
    for (size_t i = 0; i < kRow; i += n) {
      const auto v = hn::LoadU(d, rows[r] + i);
      uint8_t bits[2][8] = {};
      hn::StoreMaskBits(d, hn::Eq(v, hn::Shuffle0321(v)), bits[0]);
      hn::StoreMaskBits(d, hn::Eq(v, hn::Shuffle1032(v)), bits[1]);
      next[r] |= uint32_t(bits[0][0]) << i;
      across[r] |= uint32_t(bits[1][0]) << i;
    }
  }
  auto colours = [&](int r, int p) {
    return kColoursOfPairs[size_t((next[r] >> (4 * p) & 15) | (across[r] >> (4 * p) & 3) << 4)];
  };
  counts0[0] = colours(0, 0);
  counts0[1] = colours(0, 1);
  counts1[0] = colours(1, 0);
  counts1[1] = colours(1, 1);
  return std::max(std::max(counts0[0], counts0[1]), std::max(counts1[0], counts1[1]));
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::color::quad_lanes
HWY_AFTER_NAMESPACE();

namespace tessera::color::quad_lanes {
// Each pixel's distinct colours (1..4) to counts0[0..1] and counts1[0..1]; returns the most.
HWY_INLINE int quad_planes4(const uint32_t* row0, const uint32_t* row1, uint8_t* counts0, uint8_t* counts1) {
  return HWY_NAMESPACE::quad_planes4(row0, row1, counts0, counts1);
}
}  // namespace tessera::color::quad_lanes
