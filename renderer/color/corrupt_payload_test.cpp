// Decoding stored tiles is total: payloads the encoder never produces (corrupt sizes, header
// fields or per-pixel codes) give a tessera::Error or a documented defined value, never a read
// past the payload's words.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "color/bit_stream.h"
#include "color/index_palette.h"
#include "color/plane_codec.h"
#include "color/tile_store.h"
#include "tessera/error.h"

namespace tessera::color {
namespace {

void expect_corrupt(const std::function<void()>& decode, const std::string& says) {
  try {
    decode();
    ADD_FAILURE() << "decoded without error; expected: " << says;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

// Index bits whose header fields are set and whose per-pixel codes all say `code`.
IndexBits index_bits_with_codes(int header_bits, int code_bits, uint64_t code) {
  IndexBits bits;
  BitWriter w(bits.words.data(), 768);
  for (int b = 0; b < header_bits; b += 32) w.put(0x11223344u, 32);
  for (int px = 0; px < kTilePixels; ++px) w.put(code, code_bits);
  return bits;
}

TEST(CorruptPayload, DeltaPlaneWiderThanItsBits) {
  CompressedPlane p;
  p.codec = PlaneCodec::delta;
  p.bits = 1000;
  BitWriter w(p.words.data(), kPlaneBits);
  w.put(0, 32);
  for (int k = 0; k < 4; ++k) w.put(8, 4);  // 32 bits a pixel: 48 + 1024 > 1000
  expect_corrupt([&] { decompress_plane(p); }, "corrupt compressed plane: delta payload of 1024 bits, longer");
  // A width of 15 (four bits allow it) is past any 8-bit channel's difference.
  p.words = {};
  BitWriter w2(p.words.data(), kPlaneBits);
  w2.put(0, 32);
  for (int k = 0; k < 4; ++k) w2.put(15, 4);
  expect_corrupt([&] { decompress_plane(p); }, "delta channel width 15");
}

TEST(CorruptPayload, PalettePlaneLongerThanItsBits) {
  CompressedPlane p;
  p.codec = PlaneCodec::palette;
  p.bits = 200;
  BitWriter w(p.words.data(), kPlaneBits);
  w.put(31, 5);  // 32 colours: 5 + 1024 + 160 bits
  expect_corrupt([&] { decompress_plane(p); }, "palette of 32 colours longer");
}

TEST(CorruptPayload, PlaneSizeAndCodecAreChecked) {
  CompressedPlane p;
  p.bits = 4096;
  expect_corrupt([&] { decompress_plane(p); }, "payload of 4096 bits");
  p.bits = 512;
  expect_corrupt([&] { decompress_plane(p); }, "uncompressed plane of 512 bits");
  p.bits = 100;
  p.codec = PlaneCodec(7);
  expect_corrupt([&] { decompress_plane(p); }, "unknown codec 7");
}

TEST(CorruptPayload, PaletteIndexPastThePaletteDecodesAsZero) {
  CompressedPlane p;
  p.codec = PlaneCodec::palette;
  BitWriter w(p.words.data(), kPlaneBits);
  w.put(2, 5);  // 3 colours, 2-bit indices: index 3 names none
  for (int i = 0; i < 3; ++i) w.put(0xff000000u + uint32_t(i), 32);
  for (int px = 0; px < kTilePixels; ++px) w.put(px == 0 ? 3 : 1, 2);
  p.bits = w.used();
  const Plane plane = decompress_plane(p);
  EXPECT_EQ(plane[0], 0u);
  EXPECT_EQ(plane[1], 0xff000001u);
}

TEST(CorruptPayload, IndexPaletteModesNeverReadPastTheTile) {
  // Every pixel complex: 96 + 96 + 32 x 7 = 416 of 256 bits at 4x.
  expect_corrupt([] { decode_index_palette(IndexPaletteMode::method_b, index_bits_with_codes(96, 3, 6), 4, 0); },
                 "method_b (2) at 4 samples: pixel codes need more bits");
  // 192 + 128 + 32 x 22 = 1024 and 256 + 128 + 32 x 24 = 1152 of 768 bits at 8x.
  expect_corrupt([] { decode_index_palette(IndexPaletteMode::six_colour, index_bits_with_codes(192, 4, 15), 8, 0); },
                 "six_colour (5) at 8 samples: pixel states need more bits");
  expect_corrupt([] { decode_index_palette(IndexPaletteMode::eight_colour, index_bits_with_codes(256, 4, 15), 8, 0); },
                 "eight_colour (6) at 8 samples: pixel states need more bits");
  // Modes exist at fixed sample counts.
  expect_corrupt([] { decode_index_palette(IndexPaletteMode::four_colour, IndexBits{}, 4, 0); },
                 "four_colour (4) at 4 samples: the mode does not exist");
  expect_corrupt([] { decode_index_palette(IndexPaletteMode::two_colour, IndexBits{}, 8, 0); },
                 "two_colour (1) at 8 samples: the mode does not exist");
  expect_corrupt([] { decode_index_palette(IndexPaletteMode(9), IndexBits{}, 8, 0); },
                 "unknown mode (9) at 8 samples: unknown mode");
  // Pair states fit: 256 + 128 + 32 x 8 = 640 bits decode.
  EXPECT_NO_THROW(decode_index_palette(IndexPaletteMode::eight_colour, index_bits_with_codes(256, 4, 6), 8, 0));
}

TEST(CorruptPayload, StoredTileCountsAreChecked) {
  ColorTile tile;
  tile.samples = 4;
  for (int i = 0; i < kTilePixels * 4; ++i) tile.color[size_t(i)] = 0xff000000u + uint32_t(i * 977);
  const StoredTile good = store_tile(tile, 0);
  ASSERT_EQ(load_tile(good, 0), tile);
  StoredTile bad = good;
  bad.samples = 16;
  expect_corrupt([&] { load_tile(bad, 0); }, "16 samples, 4 planes): samples must be 2, 4 or 8");
  bad = good;
  bad.planes_used = 9;
  expect_corrupt([&] { load_tile(bad, 0); }, "4 samples, 9 planes): planes_used must be 1..samples");
  bad = good;
  bad.state = TileState(5);
  expect_corrupt([&] { load_tile(bad, 0); }, "(state 5, 4 samples, 4 planes): unknown state");
  bad = good;
  bad.state = TileState::index_six_colour;  // an 8x mode on a 4x tile
  expect_corrupt([&] { load_tile(bad, 0); }, "six_colour (5) at 4 samples: the mode does not exist");
}

}  // namespace
}  // namespace tessera::color
