#include "color/plane_lanes.h"

#include <cstddef>

// x86-64-v3 has no PCLMUL/AES, which Highway 1.0 otherwise requires before it takes AVX2 as
// the static target (the colour unit needs neither).
#define HWY_DISABLE_PCLMUL_AES 1
#include <hwy/highway.h>

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

}  // namespace HWY_NAMESPACE
}  // namespace tessera::color::plane_lanes
HWY_AFTER_NAMESPACE();

namespace tessera::color::plane_lanes {
void channel_ranges(const Plane& plane, uint8_t lo[4], uint8_t hi[4]) { HWY_NAMESPACE::channel_ranges(plane, lo, hi); }
}  // namespace tessera::color::plane_lanes
