#include "color/index_palette.h"

#include <gtest/gtest.h>

#include "color/plane_codec.h"

namespace tessera::color {
namespace {

constexpr Rgba8 kBlue = 0xffff0000u;  // R in the low byte
constexpr Rgba8 kGreen = 0xff00ff00u;
constexpr Rgba8 kRed = 0xff0000ffu;
constexpr Rgba8 kClear = 0xff402010u;

// The spec's example: an 8x4 tile at 4x MSAA covered by a blue triangle, then a green one
// crossing a third of it.
ColorTile blue_green_tile() {
  ColorTile t;
  t.samples = 4;
  for (int p = 0; p < kTilePixels; ++p) {
    const int x = p % kTileWidth, y = p / kTileWidth;
    for (int s = 0; s < 4; ++s) {
      // Green where x + y/2 + s/4 is past the two-thirds line: whole pixels on one side,
      // mixed samples along the edge.
      t.at(p, s) = (3 * x + y + s) >= 17 ? kGreen : kBlue;
    }
  }
  return t;
}

TEST(IndexPalette, SpecWorkedExampleBitBudgets) {
  const ColorTile tile = blue_green_tile();
  const PlanedTile planed = to_planes(tile);
  ASSERT_EQ(planed.planes_used, 2);
  const int index_bits = tile_index_bits(4);
  EXPECT_EQ(index_bits, 256);
  // Uncompressed: two used planes plus the index bits.
  const int uncompressed = planed.planes_used * kPlaneBits + index_bits;
  EXPECT_EQ(uncompressed, 2304);
  // With 50% plane compression.
  EXPECT_EQ(planed.planes_used * kPlaneBits / 2 + index_bits, 1280);
  // Palette in the index bits: nothing but the 256 index bits, 9:1.
  IndexBits bits;
  const auto enc = encode_index_palette(tile, kClear, bits);
  ASSERT_TRUE(enc.has_value());
  EXPECT_EQ(enc->mode, IndexPaletteMode::two_colour);
  EXPECT_EQ(enc->bits_used, 2 * 32 + 128);
  EXPECT_LE(enc->bits_used, index_bits);
  EXPECT_EQ(uncompressed / index_bits, 9);
  EXPECT_EQ(decode_index_palette(enc->mode, bits, 4, kClear), tile);
  // The planes themselves do compress too, but the index-bit form beats them.
  const int plane_bits = compress_plane_best(planed.planes[0]).bits + compress_plane_best(planed.planes[1]).bits;
  EXPECT_GT(plane_bits + index_bits, index_bits);
}

ColorTile tile_with(int samples, std::initializer_list<Rgba8> colors, uint32_t seed, bool mixed_pixels) {
  ColorTile t;
  t.samples = samples;
  std::vector<Rgba8> c(colors);
  for (int p = 0; p < kTilePixels; ++p) {
    for (int s = 0; s < samples; ++s) {
      seed = seed * 1664525u + 1013904223u;
      const size_t k = mixed_pixels ? (seed >> 16) % c.size() : size_t(p) % c.size();
      t.at(p, s) = c[k];
    }
  }
  return t;
}

TEST(IndexPalette, ModesChosenBySampleCountAndColours) {
  IndexBits bits;
  // 2x: only a single colour fits in 64 index bits.
  EXPECT_EQ(encode_index_palette(tile_with(2, {kRed}, 1, false), kClear, bits)->mode, IndexPaletteMode::one_colour);
  EXPECT_FALSE(encode_index_palette(tile_with(2, {kRed, kBlue}, 1, true), kClear, bits).has_value());
  // 4x: three colours whose pixels are mostly simple go to method B.
  ColorTile t = tile_with(4, {kRed, kGreen, kBlue}, 1, false);
  t.at(3, 1) = kGreen;  // one medium pixel
  auto enc = encode_index_palette(t, kClear, bits);
  ASSERT_TRUE(enc);
  EXPECT_EQ(enc->mode, IndexPaletteMode::method_b);
  EXPECT_EQ(enc->bits_used, 96 + 96 + 4);
  EXPECT_EQ(decode_index_palette(enc->mode, bits, 4, kClear), t);
  // Three colours mixed in every pixel: 32 complex pixels need 224 payload bits > 64.
  EXPECT_FALSE(encode_index_palette(tile_with(4, {kRed, kGreen, kBlue}, 9, true), 0, bits).has_value());
  // 8x: four colours in any arrangement.
  enc = encode_index_palette(tile_with(8, {kRed, kGreen, kBlue, kClear}, 3, true), 0, bits);
  ASSERT_TRUE(enc);
  EXPECT_EQ(enc->mode, IndexPaletteMode::four_colour);
  EXPECT_EQ(enc->bits_used, 640);
}

TEST(IndexPalette, MethodBWithClearColourFreesAPaletteSlot) {
  // Two colours plus the clear colour, with enough medium pixels that 64 payload bits are
  // too few but 96 suffice: 20 medium pixels need 80 bits.
  ColorTile t = tile_with(4, {kRed, kGreen, kClear}, 1, false);
  for (int p = 0; p < 20; ++p) t.at(p, 0) = t.at(p, 1) == kRed ? kGreen : kRed;
  IndexBits bits;
  const auto enc = encode_index_palette(t, kClear, bits);
  ASSERT_TRUE(enc);
  EXPECT_EQ(enc->mode, IndexPaletteMode::method_b_clear);
  EXPECT_EQ(decode_index_palette(enc->mode, bits, 4, kClear), t);
  // Without knowing the clear colour the same tile does not fit.
  EXPECT_FALSE(encode_index_palette(t, 0x12345678u, bits).has_value());
}

TEST(IndexPalette, EightTimesStateModes) {
  // Six colours, each pixel simple or one of the listed pairs: six-colour states.
  const Rgba8 c[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ColorTile t;
  t.samples = 8;
  for (int p = 0; p < kTilePixels; ++p) {
    for (int s = 0; s < 8; ++s) t.at(p, s) = p < 12 ? c[p % 6] : (s < 3 ? c[0] : c[1 + p % 5]);
  }
  IndexBits bits;
  auto enc = encode_index_palette(t, 0, bits);
  ASSERT_TRUE(enc);
  EXPECT_EQ(enc->mode, IndexPaletteMode::six_colour);
  EXPECT_EQ(decode_index_palette(enc->mode, bits, 8, 0), t);
  // Eight colours with a few complex pixels: eight-colour states.
  for (int p = 0; p < 6; ++p) {
    for (int s = 0; s < 8; ++s) t.at(p, s) = c[s];
  }
  enc = encode_index_palette(t, 0, bits);
  ASSERT_TRUE(enc);
  EXPECT_EQ(enc->mode, IndexPaletteMode::eight_colour);
  EXPECT_LE(enc->bits_used, 768);
  EXPECT_EQ(decode_index_palette(enc->mode, bits, 8, 0), t);
}

TEST(IndexPalette, PairTableHasNineDistinctPairs) {
  for (int i = 0; i < kPairCount; ++i) {
    EXPECT_LT(kStatePairs[i][0], kStatePairs[i][1]);
    EXPECT_LT(kStatePairs[i][1], 6);
    for (int j = 0; j < i; ++j) {
      EXPECT_FALSE(kStatePairs[i][0] == kStatePairs[j][0] && kStatePairs[i][1] == kStatePairs[j][1]) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace tessera::color
