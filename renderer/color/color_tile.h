// Colour-unit tiles: an 8x4-pixel block of an N-sample RGBA8 render target, and its planes +
// index-bits form (msaa-compression spec). No dependencies beyond the standard library, so the
// Vulkan layer can reuse the unit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace tessera::color {

using Rgba8 = uint32_t;  // R in the lowest byte, as tessera::Rgba8

constexpr int kTileWidth = 8;
constexpr int kTileHeight = 4;
constexpr int kTilePixels = kTileWidth * kTileHeight;  // 32
constexpr int kMaxSamples = 8;
constexpr int kPlaneBits = kTilePixels * 32;  // one plane of one tile: 1024 bits

// log2(samples): index bits per sample (0 at 1x).
constexpr int index_bits_per_sample(int samples) { return samples >= 8 ? 3 : samples >= 4 ? 2 : samples >= 2 ? 1 : 0; }
// Index bits of a whole tile: 256 at 4x, 768 at 8x.
constexpr int tile_index_bits(int samples) { return kTilePixels * samples * index_bits_per_sample(samples); }

// The colour of every sample of a tile, pixel-major (pixel p, sample s at p * samples + s);
// pixels in row-major order within the 8x4 tile. 1 KiB.
struct ColorTile {
  int samples = 1;
  std::array<Rgba8, kTilePixels * kMaxSamples> color{};

  Rgba8& at(int pixel, int sample) { return color[size_t(pixel * samples + sample)]; }
  Rgba8 at(int pixel, int sample) const { return color[size_t(pixel * samples + sample)]; }
  bool operator==(const ColorTile& o) const;
};

// Index bits: up to 768 (8x), stored as little-endian 64-bit words. 96 bytes.
struct IndexBits {
  std::array<uint64_t, 12> words{};
};
static_assert(sizeof(IndexBits) == 96);

// Planes + index bits: plane k holds, for each pixel, the k-th distinct colour among its
// samples (in sample order); each sample's index says which plane holds its colour. Planes
// no sample points at are empty: neither written on eviction nor read on fill.
struct PlanedTile {
  int samples = 1;
  int planes_used = 0;  // 1..samples
  std::array<std::array<Rgba8, kTilePixels>, kMaxSamples> planes{};
  std::array<uint8_t, kTilePixels * kMaxSamples> index{};  // per sample, pixel-major
};

// The 8x4 block whose top-left pixel is (x0, y0) in a render target's samples (pixel (x, y),
// sample s at (y * width + x) * samples_per_pixel + s); pixels past the right or bottom edge
// hold `outside` (the clear colour). How the frame path and the Vulkan layer cut a target into
// tiles, in row-major block order.
ColorTile gather_tile(const Rgba8* samples, int width, int height, int samples_per_pixel, int x0, int y0,
                      Rgba8 outside);

PlanedTile to_planes(const ColorTile& tile);
ColorTile from_planes(const PlanedTile& planed);

}  // namespace tessera::color
