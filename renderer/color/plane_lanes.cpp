#include "color/plane_lanes.h"

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

bool at_most_colours(const uint32_t* const* rows, int row_count, int row_length, int cap) {
  // The colours found so far, each broadcast; a vector whose lanes all match one of them
  // needs nothing more (flat and two-colour blocks: one compare per colour per 8 samples).
  const hn::CappedTag<uint32_t, 8> d;
  const size_t n = hn::Lanes(d);
  using V = hn::Vec<decltype(d)>;
  V colours[8];
  uint32_t found[8];
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
        if (count == cap) return false;
        found[count] = rows[r][i + size_t(lane)];
        colours[count] = hn::Set(d, found[count]);
        ++count;
      }
    }
  }
  return true;
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

}  // namespace HWY_NAMESPACE
}  // namespace tessera::color::plane_lanes
HWY_AFTER_NAMESPACE();

namespace tessera::color::plane_lanes {
void channel_ranges(const Plane& plane, uint8_t lo[4], uint8_t hi[4]) { HWY_NAMESPACE::channel_ranges(plane, lo, hi); }
bool at_most_colours(const uint32_t* const* rows, int row_count, int row_length, int cap) {
  return HWY_NAMESPACE::at_most_colours(rows, row_count, row_length, cap);
}
void first_samples4(const uint32_t* const rows[4], uint32_t* out) { HWY_NAMESPACE::first_samples4(rows, out); }
}  // namespace tessera::color::plane_lanes
