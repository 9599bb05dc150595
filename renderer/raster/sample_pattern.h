// Multisample positions: the Vulkan standard sample locations (VkPhysicalDeviceLimits::
// standardSampleLocations), which lavapipe also uses, in 1/256-pixel units from the pixel's
// top-left corner. All are multiples of 1/16 pixel, so they are exact on the fixed-point grid.
#pragma once

#include <algorithm>
#include <cstdint>

#include "raster/triangle_setup.h"

namespace tessera {

struct SampleOffset {
  int32_t x;  // 1/256 pixel
  int32_t y;
};

template <int kSamples>
struct SamplePattern;

template <>
struct SamplePattern<1> {
  static constexpr SampleOffset offsets[1] = {{128, 128}};
};
template <>
struct SamplePattern<2> {
  static constexpr SampleOffset offsets[2] = {{192, 192}, {64, 64}};
};
template <>
struct SamplePattern<4> {
  static constexpr SampleOffset offsets[4] = {{96, 32}, {224, 96}, {32, 160}, {160, 224}};
};
template <>
struct SamplePattern<8> {
  static constexpr SampleOffset offsets[8] = {{144, 80}, {112, 176}, {208, 144}, {80, 48},
                                              {48, 208}, {16, 112},  {176, 240}, {240, 16}};
};

// Smallest and largest sample offsets of a pattern: the reach of a pixel's samples, used for
// bounding boxes and block/tile rejection so no sample is missed.
inline SampleExtent sample_extent(int samples) {
  auto of = [](const auto& offsets) {
    SampleExtent e{255, 0, 255, 0};
    for (const SampleOffset& o : offsets) {
      e.min_x = std::min(e.min_x, o.x);
      e.max_x = std::max(e.max_x, o.x);
      e.min_y = std::min(e.min_y, o.y);
      e.max_y = std::max(e.max_y, o.y);
    }
    return e;
  };
  switch (samples) {
    case 2: return of(SamplePattern<2>::offsets);
    case 4: return of(SamplePattern<4>::offsets);
    case 8: return of(SamplePattern<8>::offsets);
    default: return of(SamplePattern<1>::offsets);
  }
}

}  // namespace tessera
