// The colour unit's codecs on tiles built from arbitrary bytes: whatever the compressor
// chooses (index-bit palette, plane codecs), decoding the stored form gives back every sample
// bit for bit, and the bit counts agree with the payloads.
#include <cstdint>

#include "color/color_tile.h"
#include "color/plane_codec.h"
#include "color/tile_store.h"
#include "fuzz_support.h"

namespace {

using namespace tessera::color;
using tessera::fuzz::ByteReader;
using tessera::fuzz::finding;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  static constexpr int kCounts[] = {2, 4, 8};
  const uint8_t head = in.get<uint8_t>();
  ColorTile tile;
  tile.samples = kCounts[head % 3];
  // Few distinct colours reach the index-bit palettes; the palette size comes from the input.
  Rgba8 palette[16];
  const int colours = 1 + (head >> 4);
  for (int i = 0; i < colours; ++i) palette[i] = in.get<uint32_t>();
  const Rgba8 clear = (head & 0x08) ? palette[0] : in.get<uint32_t>();
  const int count = kTilePixels * tile.samples;
  for (int i = 0; i < count; ++i) {
    const uint8_t pick = in.get<uint8_t>();
    tile.color[size_t(i)] = palette[pick % colours];
  }
  tessera::fuzz::expect_result_or_error([&] {
    const StoredTile stored = store_tile(tile, clear, (head & 0x04) == 0);
    if (!(load_tile(stored, clear) == tile)) finding("stored tile does not decode to its samples");
    if (!(from_planes(to_planes(tile)) == tile)) finding("planes form does not rebuild the tile");
    // Every codec on every plane of the tile.
    const PlanedTile planed = to_planes(tile);
    for (int k = 0; k < planed.planes_used; ++k) {
      const Plane& plane = planed.planes[size_t(k)];
      for (PlaneCodec codec : {PlaneCodec::uncompressed, PlaneCodec::delta, PlaneCodec::palette}) {
        const CompressedPlane c = compress_plane(plane, codec);
        if (c.bits > kPlaneBits) finding("compressed plane larger than the raw plane");
        if (decompress_plane(c) != plane) finding("plane codec round trip differs");
      }
      const CompressedPlane best = compress_plane_best(plane);
      if (best.bits != compressed_plane_bits(plane)) finding("compressed_plane_bits disagrees with the payload");
    }
  });
  return 0;
}
