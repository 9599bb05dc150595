// A pixel's planes read straight from its samples, without building a PlanedTile: how many
// distinct colours its samples hold (the planes it uses) and which colour each plane holds.
// The colour back end asks this of every pixel of every quad written and of every evicted
// block, so the common case, a pixel whose samples all hold one colour, is answered by
// comparing the samples as 64-bit pairs (a few instructions) before any per-sample search.
// Results are those of to_planes (color_tile.h): plane k is the k-th distinct colour in
// sample order, 0 where the pixel has no k-th colour; colours compare as bits.
#pragma once

#include <cstring>

#include "color/color_tile.h"

namespace tessera::color {

// Whether all kN samples hold the same colour: s0 == s1, and every later pair of samples
// equals the first pair as one 64-bit word.
template <int kN>
inline bool samples_uniform(const Rgba8* s) {
  if constexpr (kN == 1) {
    return true;
  } else {
    static_assert(kN % 2 == 0, "sample counts above one are even");
    uint64_t first;
    std::memcpy(&first, s, sizeof first);
    bool same = uint32_t(first) == uint32_t(first >> 32);
    for (int k = 2; k < kN; k += 2) {
      uint64_t pair;
      std::memcpy(&pair, s + k, sizeof pair);
      same &= pair == first;
    }
    return same;
  }
}

// Distinct colours among kN samples (the planes the pixel uses), counted sample by sample.
template <int kN>
inline int distinct_samples(const Rgba8* s) {
  int distinct = 0;
  for (int k = 0; k < kN; ++k) {
    bool seen = false;
    for (int j = 0; j < k; ++j) seen |= s[j] == s[k];
    distinct += !seen;
  }
  return distinct;
}

// The planes one pixel of kN samples uses.
template <int kN>
inline int pixel_planes(const Rgba8* s) {
  return samples_uniform<kN>(s) ? 1 : distinct_samples<kN>(s);
}

// The same for any sample count (1, 2, 4, 8; others counted sample by sample).
inline int pixel_planes(const Rgba8* s, int samples) {
  switch (samples) {
    case 1: return 1;
    case 2: return pixel_planes<2>(s);
    case 4: return pixel_planes<4>(s);
    case 8: return pixel_planes<8>(s);
    default: break;
  }
  int distinct = 0;
  for (int k = 0; k < samples; ++k) {
    bool seen = false;
    for (int j = 0; j < k && !seen; ++j) seen = s[j] == s[k];
    distinct += !seen;
  }
  return distinct;
}

// Plane `plane`'s colour for one pixel: its plane-th distinct colour in sample order, 0 when
// it has fewer colours (to_planes leaves unused planes zero).
inline Rgba8 pixel_plane_colour(const Rgba8* s, int samples, int plane) {
  if (plane == 0) return s[0];
  Rgba8 seen[kMaxSamples];
  int used = 0;
  for (int k = 0; k < samples; ++k) {
    int j = 0;
    while (j < used && seen[j] != s[k]) ++j;
    if (j < used) continue;
    if (used == plane) return s[k];
    seen[used++] = s[k];
  }
  return 0;
}

}  // namespace tessera::color
