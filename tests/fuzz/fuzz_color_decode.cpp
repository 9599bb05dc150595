// The colour unit's decoders (renderer/color) on stored tiles built from arbitrary bytes, as a
// corrupt MSAA dump or capture would hand them over: every decode gives samples or a
// tessera::Error, never a read past the payload (docs/color.md, "Corrupt payloads").
#include <cstdint>

#include "color/index_palette.h"
#include "color/plane_codec.h"
#include "color/tile_store.h"
#include "fuzz_support.h"

namespace {

using namespace tessera::color;
using tessera::fuzz::ByteReader;

// Mostly the sample counts that exist (so decoding gets past the size checks), sometimes any.
int read_samples(ByteReader& in) {
  const uint8_t b = in.get<uint8_t>();
  if (b & 0x80) return int(int8_t(b << 1) >> 1);
  static constexpr int kCounts[] = {2, 4, 8, 1};
  return kCounts[b % 4];
}

CompressedPlane read_plane(ByteReader& in) {
  CompressedPlane p;
  const uint8_t codec = in.get<uint8_t>();
  p.codec = PlaneCodec(codec < 0xf0 ? codec % 3 : codec);
  p.bits = int(in.get<uint16_t>() % 1100) - 10;
  for (uint64_t& w : p.words) w = in.get<uint64_t>();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const uint8_t which = in.get<uint8_t>();
  const Rgba8 clear = in.get<uint32_t>();
  tessera::fuzz::expect_result_or_error([&] {
    switch (which % 3) {
      case 0: {  // one plane
        (void)decompress_plane(read_plane(in));
        break;
      }
      case 1: {  // index-bit palettes
        const uint8_t mode = in.get<uint8_t>();
        const int samples = read_samples(in);
        IndexBits bits;
        for (uint64_t& w : bits.words) w = in.get<uint64_t>();
        (void)decode_index_palette(IndexPaletteMode(mode < 0xf0 ? mode % kIndexPaletteModes : mode), bits, samples,
                                   clear);
        break;
      }
      default: {  // a whole stored tile: control state, index bits and planes
        StoredTile t;
        const uint8_t state = in.get<uint8_t>();
        t.state = TileState(state < 0xf0 ? state % 16 : state);
        t.samples = read_samples(in);
        t.planes_used = int(int8_t(in.get<uint8_t>()));
        if (t.planes_used >= -1) t.planes_used = t.planes_used % 10;
        for (uint64_t& w : t.index.words) w = in.get<uint64_t>();
        for (CompressedPlane& p : t.planes) {
          if (in.left() == 0) break;
          p = read_plane(in);
        }
        (void)load_tile(t, clear);
        break;
      }
    }
  });
  return 0;
}
