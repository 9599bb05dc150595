// A plane's channel ranges in Highway vectors at the build's baseline target (x86-64-v3: AVX2;
// NEON on AArch64), chosen statically as the rasterizer's and the EU's lanes are: the colour
// unit sizes a plane's delta code on every eviction that writes it.
#pragma once

#include <cstdint>

#include "color/plane_codec.h"

namespace tessera::color::plane_lanes {

// The smallest and largest value of each channel (R = 0 ... A = 3) over the plane's pixels.
void channel_ranges(const Plane& plane, uint8_t lo[4], uint8_t hi[4]);

}  // namespace tessera::color::plane_lanes
