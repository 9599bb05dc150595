// The palette-in-index-bits codecs: when a tile's palette and per-sample palette indices fit
// in the tile's own index bits, they are stored there and the planes are not written at all.
// Budgets (msaa-compression spec): 64 index bits at 2x, 256 at 4x, 768 at 8x.
#pragma once

#include <optional>

#include "color/color_tile.h"

namespace tessera::color {

// Closed set of index-bit layouts. Bits are packed in the order listed.
enum class IndexPaletteMode : uint8_t {
  one_colour,      // 2x/4x/8x: [colour 32]; every sample has it
  two_colour,      // 4x: [2 colours 64][1 bit per sample 128] = 192 of 256
  method_b,        // 4x: [3 colours 96][3-bit mode per pixel 96][medium 4 / complex 7 bits per pixel] <= 256
  method_b_clear,  // 4x: as method_b, colour 2 is the render target's clear colour and is not
                   //     stored: [2 colours 64][modes 96][payload] <= 256
  four_colour,     // 8x: [4 colours 128][2 bits per sample 512] = 640 of 768
  six_colour,      // 8x: [6 colours 192][4-bit state per pixel 128][pair 8 / complex 22 bits per pixel] <= 768
  eight_colour,    // 8x: [8 colours 256][states 128][pair 8 / complex 24 bits per pixel] <= 768
};
constexpr int kIndexPaletteModes = 7;
const char* index_palette_mode_name(IndexPaletteMode mode);

// 8x state modes: states 0..5 = one colour; 6..14 = a pair of colours, 1 bit per sample;
// 15 = complex. The source's pair list repeats (1,3); this is the nine distinct pairs of
// colours 0 and 1 with every later colour.
constexpr int kPairCount = 9;
constexpr uint8_t kStatePairs[kPairCount][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 2}, {1, 3}, {1, 4}, {1, 5}};

struct IndexPaletteEncoding {
  IndexPaletteMode mode;
  int bits_used;  // of the tile's index bits
};

// The most distinct colours any mode holds at a sample count: 1 at 2x, 3 at 4x, 8 at 8x. A
// tile with more never fits the index bits.
constexpr int index_palette_max_colours(int samples) { return samples >= 8 ? 8 : samples >= 4 ? 3 : 1; }

// Tries the modes available at the tile's sample count, simplest first; on success the
// packed form is in `bits`. `clear_color` enables method_b_clear. Returns nothing when no mode
// meets the budget (the tile then goes to the planes).
std::optional<IndexPaletteEncoding> encode_index_palette(const ColorTile& tile, Rgba8 clear_color, IndexBits& bits);

// The mode encode_index_palette picks for a 4x tile, from what alone decides it at 4x: the
// tile's distinct colours (1..3; more never fit), whether the clear colour is one of them, and
// how many pixels hold two and three of them (method_b's payload: 4 and 7 bits a pixel).
// Nothing when no mode meets the budget. For a caller that needs the mode, not the bits.
std::optional<IndexPaletteMode> index_palette_mode4(int colours, bool clear_among_them, int two_colour_pixels,
                                                    int three_colour_pixels);

// Rebuilds every sample from the index bits alone (the fill flow reads nothing else). Throws
// tessera::Error when the mode does not exist at `samples` or its pixel codes need more bits
// than the tile has (bit patterns the encoder never produces).
ColorTile decode_index_palette(IndexPaletteMode mode, const IndexBits& bits, int samples, Rgba8 clear_color);

}  // namespace tessera::color
