// The colour unit's per-quad and per-plane arithmetic in Highway vectors at the build's
// baseline target (x86-64-v3: AVX2; NEON on AArch64), chosen statically as the rasterizer's
// and the EU's lanes are: the unit counts the colours of every pixel of every quad written at
// 4x, and sizes a plane's delta code on every eviction that writes it.
#pragma once

#include <cstdint>

#include "color/plane_codec.h"

namespace tessera::color::plane_lanes {

// The smallest and largest value of each channel (R = 0 ... A = 3) over the plane's pixels.
void channel_ranges(const Plane& plane, uint8_t lo[4], uint8_t hi[4]);

// A 2x2 quad at 4 samples: `row0` and `row1` each hold two pixels' samples (8 colours). Writes
// each pixel's distinct colours (1..4) to counts0[0..1] and counts1[0..1] and returns the most.
int quad_planes4(const uint32_t* row0, const uint32_t* row1, uint8_t* counts0, uint8_t* counts1);

}  // namespace tessera::color::plane_lanes
