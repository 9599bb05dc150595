#include "color/plane_codec.h"

#include <algorithm>

#include "color/bit_stream.h"

namespace tessera::color {

namespace {

inline int channel_of(Rgba8 c, int k) { return int((c >> (8 * k)) & 0xffu); }

inline int bits_for(int max_value) {  // bits to hold 0..max_value
  int b = 0;
  while ((1 << b) <= max_value) ++b;
  return b;
}

CompressedPlane uncompressed(const Plane& plane) {
  CompressedPlane out;
  BitWriter w(out.words.data(), kPlaneBits);
  for (Rgba8 c : plane) w.put(c, 32);
  return out;
}

}  // namespace

const char* plane_codec_name(PlaneCodec codec) {
  switch (codec) {
    case PlaneCodec::uncompressed: return "uncompressed";
    case PlaneCodec::delta: return "delta";
    case PlaneCodec::palette: return "palette";
  }
  return "?";
}

CompressedPlane compress_plane(const Plane& plane, PlaneCodec codec) {
  CompressedPlane out;
  out.codec = codec;
  BitWriter w(out.words.data(), kPlaneBits);
  bool fits = true;
  if (codec == PlaneCodec::delta) {
    int lo[4] = {255, 255, 255, 255}, hi[4] = {0, 0, 0, 0};
    for (Rgba8 c : plane) {
      for (int k = 0; k < 4; ++k) {
        lo[k] = std::min(lo[k], channel_of(c, k));
        hi[k] = std::max(hi[k], channel_of(c, k));
      }
    }
    int width[4];
    for (int k = 0; k < 4; ++k) width[k] = bits_for(hi[k] - lo[k]);
    const Rgba8 min_color = Rgba8(lo[0]) | Rgba8(lo[1]) << 8 | Rgba8(lo[2]) << 16 | Rgba8(lo[3]) << 24;
    fits = w.put(min_color, 32);
    for (int k = 0; k < 4 && fits; ++k) fits = w.put(uint64_t(width[k]), 4);
    for (size_t i = 0; i < plane.size() && fits; ++i) {
      for (int k = 0; k < 4 && fits; ++k) fits = w.put(uint64_t(channel_of(plane[i], k) - lo[k]), width[k]);
    }
  } else if (codec == PlaneCodec::palette) {
    Rgba8 colors[kTilePixels];
    int count = 0;
    for (Rgba8 c : plane) {
      if (std::find(colors, colors + count, c) == colors + count) colors[count++] = c;
    }
    const int index_bits = bits_for(count - 1);
    fits = w.put(uint64_t(count - 1), 5);
    for (int i = 0; i < count && fits; ++i) fits = w.put(colors[i], 32);
    for (size_t i = 0; i < plane.size() && fits; ++i) {
      fits = w.put(uint64_t(std::find(colors, colors + count, plane[i]) - colors), index_bits);
    }
  } else {
    return uncompressed(plane);
  }
  if (!fits || w.used() >= kPlaneBits) return uncompressed(plane);
  out.bits = w.used();
  return out;
}

CompressedPlane compress_plane_best(const Plane& plane) {
  const CompressedPlane delta = compress_plane(plane, PlaneCodec::delta);
  const CompressedPlane palette = compress_plane(plane, PlaneCodec::palette);
  return palette.bits < delta.bits ? palette : delta;
}

Plane decompress_plane(const CompressedPlane& in) {
  Plane plane{};
  BitReader r(in.words.data());
  switch (in.codec) {
    case PlaneCodec::uncompressed:
      for (Rgba8& c : plane) c = Rgba8(r.get(32));
      break;
    case PlaneCodec::delta: {
      const Rgba8 min_color = Rgba8(r.get(32));
      int width[4];
      for (int k = 0; k < 4; ++k) width[k] = int(r.get(4));
      for (Rgba8& c : plane) {
        c = 0;
        for (int k = 0; k < 4; ++k) c |= Rgba8(channel_of(min_color, k) + int(r.get(width[k]))) << (8 * k);
      }
      break;
    }
    case PlaneCodec::palette: {
      const int count = int(r.get(5)) + 1;
      Rgba8 colors[kTilePixels];
      for (int i = 0; i < count; ++i) colors[i] = Rgba8(r.get(32));
      const int index_bits = bits_for(count - 1);
      for (Rgba8& c : plane) c = colors[r.get(index_bits)];
      break;
    }
  }
  return plane;
}

}  // namespace tessera::color
