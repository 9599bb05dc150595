// The colour unit's per-block work on evictions in Highway vectors at the build's baseline
// target (x86-64-v3: AVX2; NEON on AArch64), chosen statically as the rasterizer's and the
// EU's lanes are: a plane's channel ranges (its delta code's size) and colour count (its
// palette's size), the index-bit palette's colour-count test, and the gather of a block's
// planes at 4 samples.
#pragma once

#include <cstdint>

#include "color/plane_codec.h"

namespace tessera::color::plane_lanes {

// The smallest and largest value of each channel (R = 0 ... A = 3) over the plane's pixels.
void channel_ranges(const Plane& plane, uint8_t lo[4], uint8_t hi[4]);

// The distinct colours of `rows` (each `row_length` colours, a multiple of 8) in the order they
// first appear, up to `cap` (at most kMaxSamples) of them in found[0..cap-1]. Returns their
// number, or cap + 1 as soon as a colour past the cap appears (that one is not stored).
int colours_up_to(const uint32_t* const* rows, int row_count, int row_length, int cap, uint32_t* found);

// Whether the first samples of an 8x4 block's four corner pixels (rows[0] and rows[3], each
// `row_length` colours of `samples` a pixel) are four different colours: then the block holds
// at least four colours, more than the index-bit palette takes at 2x and 4x, which is known
// without colours_up_to's search (shaded blocks, most of those asked, differ at the corners).
// Branch-free: the answer is not predictable from block to block.
inline bool corners_distinct(const uint32_t* const rows[4], int row_length, int samples) {
  const uint32_t a = rows[0][0], b = rows[0][row_length - samples], c = rows[3][0], d = rows[3][row_length - samples];
  return bool(unsigned(a != b) & unsigned(a != c) & unsigned(a != d) & unsigned(b != c) & unsigned(b != d) &
              unsigned(c != d));
}

// Plane 0 of an 8x4 block at 4 samples: the first sample of each pixel of the four rows (each
// 32 colours, pixel-major) into out[0..31].
void first_samples4(const uint32_t* const rows[4], uint32_t* out);

// Plane `plane` (1..3) of the same block: each pixel's plane-th distinct colour in sample order,
// 0 for a pixel with fewer colours (pixel_plane_colour, sample_planes.h).
void later_plane4(const uint32_t* const rows[4], int plane, uint32_t* out);

// The largest of four rows of eight bytes, in the left (columns 0..3) and right (4..7) halves.
void half_maxima(const uint8_t* const rows[4], uint8_t out[2]);

// How many distinct colours the plane's 32 pixels hold (1..32), compared as bits, when that is
// at most `cap`; otherwise some number above `cap` (the count may stop early).
int distinct_colours_up_to(const Plane& plane, int cap);
inline int distinct_colours(const Plane& plane) { return distinct_colours_up_to(plane, kTilePixels); }

}  // namespace tessera::color::plane_lanes
