#include "color/plane_codec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "color/bit_stream.h"
#include "color/plane_lanes.h"
#include "tessera/error.h"

namespace tessera::color {

namespace {

// Cold and out of line: building the message must not weigh on the decoders' inlining.
[[noreturn, gnu::cold, gnu::noinline]] void corrupt_plane(const char* before, int value, const char* after) {
  throw Error(std::string("colour unit: corrupt compressed plane: ") + before + std::to_string(value) + after);
}

inline int channel_of(Rgba8 c, int k) { return int((c >> (8 * k)) & 0xffu); }

inline int bits_for(int max_value) {  // bits to hold 0..max_value
  return std::bit_width(unsigned(max_value));
}

// Delta's size: header (32-bit minimum colour + four 4-bit widths) plus every pixel's
// per-channel differences at the widths the channel ranges need.
int delta_bits(const Plane& plane) {
  uint8_t lo[4], hi[4];
  plane_lanes::channel_ranges(plane, lo, hi);
  int bits = 32 + 16;
  for (int k = 0; k < 4; ++k) bits += kTilePixels * bits_for(hi[k] - lo[k]);
  return bits;
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

namespace {

// Palette codec that gives up (returns the raw form) once its size reaches `limit_bits`:
// colours are only counted until 32 bits each would already exceed what the caller has.
CompressedPlane compress_palette(const Plane& plane, int limit_bits);

}  // namespace

CompressedPlane compress_plane(const Plane& plane, PlaneCodec codec) {
  if (codec == PlaneCodec::palette) return compress_palette(plane, kPlaneBits);
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
  } else {
    return uncompressed(plane);
  }
  if (!fits || w.used() >= kPlaneBits) return uncompressed(plane);
  out.bits = w.used();
  return out;
}

// Palette's size with `count` colours: header, colours, an index per pixel.
inline int palette_bits(int count) { return 5 + 32 * count + kTilePixels * bits_for(count - 1); }

// The most colours whose palette is smaller than `limit_bits` (0..32), from a table by limit
// in 32-bit steps: palette_bits(c) = 5 + 32 * (c + bits_for(c - 1)) is below the limit exactly
// when c + bits_for(c - 1) < ceil((limit - 5) / 32).
inline int palette_colours_below(int limit_bits) {
  static constexpr auto kMost = [] {
    std::array<int8_t, kPlaneBits / 32 + 2> t{};
    for (size_t steps = 0; steps < t.size(); ++steps) {
      int most = 0;
      for (int c = 1; c <= kTilePixels; ++c) {
        if (c + int(std::bit_width(unsigned(c - 1))) < int(steps)) most = c;
      }
      t[steps] = int8_t(most);
    }
    return t;
  }();
  return kMost[size_t(std::clamp((limit_bits - 5 + 31) / 32, 0, int(kMost.size()) - 1))];
}

int compressed_plane_bits(const Plane& plane) {
  // compress_plane_best keeps the palette when it is smaller than delta (or raw), else that. The
  // palette's size grows with its colour count, so the result is the smaller of the two sizes:
  // the count is taken whole, in vector lanes, rather than stopping once it is large enough
  // (a noisy plane's count ran to 27 colours before the palette could give up, on
  // unpredictable branches).
  // The palette beats `limit` only up to some count of colours (its size grows with the count),
  // so the count may stop as soon as the colours seen pass that.
  const int limit = std::min(delta_bits(plane), kPlaneBits);
  return std::min(limit, palette_bits(plane_lanes::distinct_colours_up_to(plane, palette_colours_below(limit))));
}

CompressedPlane compress_plane_best(const Plane& plane) {
  // Delta's size is known from the channel ranges alone, so the palette is tried against it
  // and only the winner is packed.
  const int delta_or_raw = std::min(delta_bits(plane), kPlaneBits);
  const CompressedPlane palette = compress_palette(plane, delta_or_raw);
  if (palette.bits < delta_or_raw) return palette;
  return compress_plane(plane, PlaneCodec::delta);  // raw when delta does not beat 1024 bits
}

namespace {

CompressedPlane compress_palette(const Plane& plane, int limit_bits) {
  CompressedPlane out;
  out.codec = PlaneCodec::palette;
  Rgba8 colors[kTilePixels];
  int count = 0;
  for (Rgba8 c : plane) {
    if (std::find(colors, colors + count, c) != colors + count) continue;
    colors[count++] = c;
    if (5 + 32 * count >= limit_bits) return uncompressed(plane);  // cannot win any more
  }
  BitWriter w(out.words.data(), kPlaneBits);
  const int index_bits = bits_for(count - 1);
  bool fits = w.put(uint64_t(count - 1), 5);
  for (int i = 0; i < count && fits; ++i) fits = w.put(colors[i], 32);
  for (size_t i = 0; i < plane.size() && fits; ++i) {
    fits = w.put(uint64_t(std::find(colors, colors + count, plane[i]) - colors), index_bits);
  }
  if (!fits || w.used() >= std::min(limit_bits, kPlaneBits)) return uncompressed(plane);
  out.bits = w.used();
  return out;
}

}  // namespace

Plane decompress_plane(const CompressedPlane& in) {
  // A stored plane is untrusted input: its size and every header field are checked against the
  // payload once, so the per-pixel reads below never leave it.
  if (in.bits < 0 || in.bits > kPlaneBits) corrupt_plane("payload of ", in.bits, " bits (0..1024)");
  Plane plane{};
  BitReader r(in.words.data(), in.bits);
  switch (in.codec) {
    case PlaneCodec::uncompressed:
      if (in.bits != kPlaneBits) corrupt_plane("uncompressed plane of ", in.bits, " bits, not 1024");
      for (Rgba8& c : plane) c = Rgba8(r.get(32));
      break;
    case PlaneCodec::delta: {
      if (!r.fits(48)) corrupt_plane("delta plane of ", in.bits, " bits, shorter than its header");
      const Rgba8 min_color = Rgba8(r.get(32));
      int width[4];
      int pixel_bits = 0;
      for (int k = 0; k < 4; ++k) {
        width[k] = int(r.get(4));
        // An 8-bit channel's difference never needs more than 8 bits.
        if (width[k] > 8) corrupt_plane("delta channel width ", width[k], " (at most 8)");
        pixel_bits += width[k];
      }
      if (!r.fits(int64_t(kTilePixels) * pixel_bits))
        corrupt_plane("delta payload of ", kTilePixels * pixel_bits, " bits, longer than the plane's bits");
      for (Rgba8& c : plane) {
        c = 0;
        for (int k = 0; k < 4; ++k) c |= Rgba8(channel_of(min_color, k) + int(r.get(width[k]))) << (8 * k);
      }
      break;
    }
    case PlaneCodec::palette: {
      if (!r.fits(5)) corrupt_plane("palette plane of ", in.bits, " bits, shorter than its header");
      const int count = int(r.get(5)) + 1;
      const int index_bits = bits_for(count - 1);
      if (!r.fits(int64_t(32) * count + int64_t(kTilePixels) * index_bits)) {
        corrupt_plane("palette of ", count, " colours longer than the plane's bits");
      }
      // Zeroed: an index past the palette (never written by the encoder) decodes as colour 0.
      Rgba8 colors[kTilePixels] = {};
      for (int i = 0; i < count; ++i) colors[i] = Rgba8(r.get(32));
      for (Rgba8& c : plane) c = colors[r.get(index_bits)];
      break;
    }
    default: corrupt_plane("unknown codec ", int(in.codec), "");
  }
  return plane;
}

}  // namespace tessera::color
