// Codecs for one plane of one tile (32 RGBA8 pixels, 1024 bits), used on eviction when the
// palette does not fit in the index bits: delta (minimum colour plus per-channel differences
// in as few bits as needed), palette in the plane, and the smaller of the two.
#pragma once

#include <array>

#include "color/color_tile.h"

namespace tessera::color {

enum class PlaneCodec : uint8_t { uncompressed, delta, palette };
const char* plane_codec_name(PlaneCodec codec);

using Plane = std::array<Rgba8, kTilePixels>;

// A plane as sent over the bus. `bits` is the payload size (1024 when uncompressed).
struct CompressedPlane {
  PlaneCodec codec = PlaneCodec::uncompressed;
  int bits = kPlaneBits;
  std::array<uint64_t, kPlaneBits / 64> words{};
};

// Delta: [min colour 32][4 x 4-bit channel widths 16][32 pixels x sum of widths].
// Palette: [5-bit count - 1][count x 32][32 pixels x ceil(log2 count)].
// A codec that would not beat 1024 bits gives the uncompressed form instead.
CompressedPlane compress_plane(const Plane& plane, PlaneCodec codec);
// Tries delta and palette and keeps the smaller (uncompressed when neither helps).
CompressedPlane compress_plane_best(const Plane& plane);
// Throws tessera::Error on a payload the encoder cannot have produced (size or header fields
// out of range); a palette index past the palette decodes as colour 0.
Plane decompress_plane(const CompressedPlane& compressed);
// The size compress_plane_best would produce, without packing any bits (for traffic
// accounting on cache evictions).
int compressed_plane_bits(const Plane& plane);

}  // namespace tessera::color
