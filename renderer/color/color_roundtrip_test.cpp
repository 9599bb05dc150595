// Lossless round trip of every colour-unit representation: over a million random and
// adversarial tiles at 2x, 4x and 8x with 1..32 colours, each tile goes through the index-bit
// palette when it fits, and otherwise through planes + index bits with every plane codec,
// and must decode to exactly the same samples.
#include <gtest/gtest.h>

#include "color/index_palette.h"
#include "color/plane_codec.h"

namespace tessera::color {
namespace {

struct Rng {
  uint64_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return uint32_t(s >> 11);
  }
};

// Tile shapes: uniform random colours, edge-like (most pixels one colour, a few mixed),
// every sample distinct, near-identical colours (delta-friendly), clear colour present, and
// "clear edges": three colours including the clear colour with many two-colour pixels.
ColorTile make_tile(Rng& rng, int samples, int colours, int shape, Rgba8 clear) {
  Rgba8 palette[kTilePixels * kMaxSamples];
  const Rgba8 base = rng.next();
  for (int i = 0; i < colours; ++i) {
    palette[i] = shape == 3 ? Rgba8(base + (rng.next() & 0x03030303u)) : rng.next();
  }
  if (shape == 4 || shape == 5) palette[colours - 1] = clear;
  ColorTile t;
  t.samples = samples;
  for (int p = 0; p < kTilePixels; ++p) {
    const bool edge_pixel = rng.next() % 8 == 0;
    for (int s = 0; s < samples; ++s) {
      int k;
      switch (shape) {
        case 1: k = edge_pixel ? int(rng.next() % uint32_t(colours)) : p % colours; break;
        case 2: k = (p * samples + s) % colours; break;
        case 5: k = (p % 5 < 3 && s % 2) ? colours - 1 : p % std::max(1, colours - 1); break;
        default: k = int(rng.next() % uint32_t(colours)); break;
      }
      t.at(p, s) = palette[k];
    }
  }
  return t;
}

TEST(ColorRoundTrip, MillionTilesDecodeBitExactly) {
  Rng rng{0x243f6a8885a308d3ull};
  const Rgba8 clear = 0xff808080u;
  long tiles = 0, via_index_bits = 0, via_planes = 0;
  long mode_hits[kIndexPaletteModes] = {};
  const int kSampleCounts[3] = {2, 4, 8};
  while (tiles < 1000000) {
    const int samples = kSampleCounts[tiles % 3];
    // Half the tiles have 1..4 colours (most real tiles), the rest up to 32.
    const int max_colours = rng.next() % 2 ? 4 : 32;
    const int shape = int(rng.next() % 6);
    const int colours = shape == 5 ? 3 : 1 + int(rng.next() % uint32_t(max_colours));
    const ColorTile tile = make_tile(rng, samples, colours, shape, clear);
    ++tiles;
    IndexBits bits;
    if (const auto enc = encode_index_palette(tile, clear, bits)) {
      ASSERT_LE(enc->bits_used, tile_index_bits(samples));
      ASSERT_EQ(decode_index_palette(enc->mode, bits, samples, clear), tile) << "tile " << tiles;
      ++via_index_bits;
      ++mode_hits[int(enc->mode)];
      continue;
    }
    ++via_planes;
    PlanedTile planed = to_planes(tile);
    ASSERT_EQ(from_planes(planed), tile);
    // Every plane codec (and the best-of) must reproduce the plane exactly; a codec that
    // cannot help falls back to the uncompressed form.
    for (int k = 0; k < planed.planes_used; ++k) {
      for (PlaneCodec codec : {PlaneCodec::uncompressed, PlaneCodec::delta, PlaneCodec::palette}) {
        const CompressedPlane c = compress_plane(planed.planes[size_t(k)], codec);
        ASSERT_LE(c.bits, kPlaneBits);
        ASSERT_EQ(decompress_plane(c), planed.planes[size_t(k)]);
      }
      const CompressedPlane best = compress_plane_best(planed.planes[size_t(k)]);
      ASSERT_EQ(compressed_plane_bits(planed.planes[size_t(k)]), best.bits) << "size-only estimate matches the encoder";
      planed.planes[size_t(k)] = decompress_plane(best);
    }
    ASSERT_EQ(from_planes(planed), tile) << "tile " << tiles;
  }
  std::printf("%ld tiles: %ld in index bits, %ld in planes; modes:", tiles, via_index_bits, via_planes);
  for (int m = 0; m < kIndexPaletteModes; ++m)
    std::printf(" %s=%ld", index_palette_mode_name(IndexPaletteMode(m)), mode_hits[m]);
  std::printf("\n");
  // The generator must exercise both paths and every mode.
  EXPECT_GT(via_index_bits, 100000);
  EXPECT_GT(via_planes, 100000);
  for (int m = 0; m < kIndexPaletteModes; ++m)
    EXPECT_GT(mode_hits[m], 0) << index_palette_mode_name(IndexPaletteMode(m));
}

TEST(PlaneCodec, DeltaAndPaletteSizes) {
  Plane flat;
  flat.fill(0x11223344u);
  // One colour: delta needs only its header; palette its count and one colour.
  EXPECT_EQ(compress_plane(flat, PlaneCodec::delta).bits, 48);
  EXPECT_EQ(compress_plane(flat, PlaneCodec::palette).bits, 5 + 32);
  EXPECT_EQ(compress_plane_best(flat).codec, PlaneCodec::palette);
  // Small per-channel differences: delta with 2 bits per channel.
  Plane gradient;
  for (int i = 0; i < kTilePixels; ++i) gradient[size_t(i)] = 0x10101010u + Rgba8(i % 4) * 0x01010101u;
  EXPECT_EQ(compress_plane(gradient, PlaneCodec::delta).bits, 48 + 32 * 8);
  // Thirty-two unrelated colours: neither codec helps, both fall back to 1024 bits.
  Plane noise;
  for (int i = 0; i < kTilePixels; ++i) noise[size_t(i)] = 0x9e3779b9u * Rgba8(i + 1);
  EXPECT_EQ(compress_plane_best(noise).codec, PlaneCodec::uncompressed);
  EXPECT_EQ(compress_plane_best(noise).bits, kPlaneBits);
}

}  // namespace
}  // namespace tessera::color
