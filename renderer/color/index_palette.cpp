#include "color/index_palette.h"

#include <algorithm>
#include <string>

#include "color/bit_stream.h"
#include "tessera/error.h"

namespace tessera::color {

namespace {

// Cold and out of line: building the message must not weigh on the decoder's inlining.
[[noreturn, gnu::cold, gnu::noinline]] void corrupt_index_bits(int mode, int samples, const char* problem) {
  const char* name =
      mode >= 0 && mode < kIndexPaletteModes ? index_palette_mode_name(IndexPaletteMode(mode)) : "unknown mode";
  throw Error(std::string("colour unit: corrupt index bits: ") + name + " (" + std::to_string(mode) + ") at " +
              std::to_string(samples) + " samples: " + problem);
}

// Distinct colours of a tile, ordered by how many pixels use them (most first, ties by first
// appearance) so the 8x state modes find simple and paired pixels among the low indices.
struct Palette {
  int count = 0;
  Rgba8 colors[kTilePixels * kMaxSamples];
  int find(Rgba8 c) const {
    for (int i = 0; i < count; ++i) {
      if (colors[i] == c) return i;
    }
    return -1;
  }
};

Palette tile_palette(const ColorTile& tile) {
  Palette p;
  int pixels_using[kTilePixels * kMaxSamples] = {};
  int first_seen[kTilePixels * kMaxSamples] = {};
  for (int px = 0; px < kTilePixels; ++px) {
    for (int s = 0; s < tile.samples; ++s) {
      const Rgba8 c = tile.at(px, s);
      int i = p.find(c);
      if (i < 0) {
        i = p.count++;
        p.colors[i] = c;
        first_seen[i] = px * tile.samples + s;
      }
      bool counted = false;
      for (int t = 0; t < s; ++t) counted = counted || tile.at(px, t) == c;
      if (!counted) ++pixels_using[i];
    }
  }
  int order[kTilePixels * kMaxSamples];
  for (int i = 0; i < p.count; ++i) order[i] = i;
  std::sort(order, order + p.count, [&](int a, int b) {
    return pixels_using[a] != pixels_using[b] ? pixels_using[a] > pixels_using[b] : first_seen[a] < first_seen[b];
  });
  Palette sorted;
  sorted.count = p.count;
  for (int i = 0; i < p.count; ++i) sorted.colors[i] = p.colors[order[i]];
  return sorted;
}

// Palette indices of one pixel's samples and the set they form.
struct PixelIndices {
  int idx[kMaxSamples];
  int distinct = 0;
  int lo = -1, hi = -1;  // the two colours when distinct == 2 (lo < hi)
};

PixelIndices pixel_indices(const ColorTile& tile, const Palette& palette, int px) {
  PixelIndices r;
  uint32_t mask = 0;
  for (int s = 0; s < tile.samples; ++s) {
    r.idx[s] = palette.find(tile.at(px, s));
    mask |= 1u << r.idx[s];
  }
  r.distinct = __builtin_popcount(mask);
  if (r.distinct <= 2) {
    r.lo = __builtin_ctz(mask);
    r.hi = 31 - __builtin_clz(mask);
  }
  return r;
}

int pair_state(int lo, int hi) {
  for (int i = 0; i < kPairCount; ++i) {
    if (kStatePairs[i][0] == lo && kStatePairs[i][1] == hi) return 6 + i;
  }
  return -1;
}

bool encode_mode(IndexPaletteMode mode, const ColorTile& tile, Palette palette, Rgba8 clear, IndexBits& bits,
                 int& used) {
  const int n = tile.samples;
  const int budget = tile_index_bits(n);
  bits = IndexBits{};
  BitWriter w(bits.words.data(), budget);
  switch (mode) {
    case IndexPaletteMode::one_colour: {
      if (palette.count != 1 || n < 2) return false;
      w.put(palette.colors[0], 32);
      break;
    }
    case IndexPaletteMode::two_colour:
    case IndexPaletteMode::four_colour: {
      const bool two = mode == IndexPaletteMode::two_colour;
      const int slots = two ? 2 : 4;
      const int per_sample = two ? 1 : 2;
      if ((two && n != 4) || (!two && n != 8) || palette.count > slots) return false;
      for (int i = 0; i < slots; ++i) w.put(i < palette.count ? palette.colors[i] : 0, 32);
      for (int px = 0; px < kTilePixels; ++px) {
        for (int s = 0; s < n; ++s) {
          if (!w.put(uint64_t(palette.find(tile.at(px, s))), per_sample)) return false;
        }
      }
      break;
    }
    case IndexPaletteMode::method_b:
    case IndexPaletteMode::method_b_clear: {
      if (n != 4 || palette.count > 3) return false;
      const bool with_clear = mode == IndexPaletteMode::method_b_clear;
      if (with_clear) {
        // Colour 2 is the clear colour: it must be in the tile, and the rest fit in two slots.
        if (palette.find(clear) < 0) return false;
        Palette reordered;
        reordered.count = 3;
        int k = 0;
        for (int i = 0; i < palette.count; ++i) {
          if (palette.colors[i] != clear) reordered.colors[k++] = palette.colors[i];
        }
        for (; k < 2; ++k) reordered.colors[k] = 0;
        reordered.colors[2] = clear;
        palette = reordered;
      } else {
        for (int i = palette.count; i < 3; ++i) palette.colors[i] = 0;
        palette.count = 3;
      }
      for (int i = 0; i < (with_clear ? 2 : 3); ++i) w.put(palette.colors[i], 32);
      // Modes first, then the payload of medium and complex pixels in pixel order.
      PixelIndices pix[kTilePixels];
      for (int px = 0; px < kTilePixels; ++px) {
        pix[px] = pixel_indices(tile, palette, px);
        const PixelIndices& r = pix[px];
        const int code = r.distinct == 1 ? r.lo : r.distinct == 2 ? (r.lo == 0 ? (r.hi == 1 ? 3 : 4) : 5) : 6;
        w.put(uint64_t(code), 3);
      }
      for (int px = 0; px < kTilePixels; ++px) {
        const PixelIndices& r = pix[px];
        if (r.distinct == 2) {
          for (int s = 0; s < 4; ++s) {
            if (!w.put(r.idx[s] == r.hi ? 1 : 0, 1)) return false;
          }
        } else if (r.distinct == 3) {
          const int packed = r.idx[0] + 3 * (r.idx[1] + 3 * (r.idx[2] + 3 * r.idx[3]));  // 3^4 = 81 < 128
          if (!w.put(uint64_t(packed), 7)) return false;
        }
      }
      break;
    }
    case IndexPaletteMode::six_colour:
    case IndexPaletteMode::eight_colour: {
      const bool six = mode == IndexPaletteMode::six_colour;
      const int slots = six ? 6 : 8;
      if (n != 8 || palette.count > slots) return false;
      for (int i = 0; i < slots; ++i) w.put(i < palette.count ? palette.colors[i] : 0, 32);
      PixelIndices pix[kTilePixels];
      int state[kTilePixels];
      for (int px = 0; px < kTilePixels; ++px) {
        pix[px] = pixel_indices(tile, palette, px);
        const PixelIndices& r = pix[px];
        state[px] = 15;
        if (r.distinct == 1 && r.lo < 6) state[px] = r.lo;
        if (r.distinct == 2 && pair_state(r.lo, r.hi) >= 0) state[px] = pair_state(r.lo, r.hi);
        w.put(uint64_t(state[px]), 4);
      }
      for (int px = 0; px < kTilePixels; ++px) {
        const PixelIndices& r = pix[px];
        if (state[px] >= 6 && state[px] <= 14) {
          for (int s = 0; s < 8; ++s) {
            if (!w.put(r.idx[s] == r.hi ? 1 : 0, 1)) return false;
          }
        } else if (state[px] == 15) {
          if (six) {
            // Base-6 packing: four samples in 11 bits (6^4 = 1296 <= 2048), twice.
            for (int g = 0; g < 2; ++g) {
              const int* q = r.idx + 4 * g;
              const int packed = q[0] + 6 * (q[1] + 6 * (q[2] + 6 * q[3]));
              if (!w.put(uint64_t(packed), 11)) return false;
            }
          } else {
            for (int s = 0; s < 8; ++s) {
              if (!w.put(uint64_t(r.idx[s]), 3)) return false;
            }
          }
        }
      }
      break;
    }
  }
  used = w.used();
  return true;
}

}  // namespace

const char* index_palette_mode_name(IndexPaletteMode mode) {
  switch (mode) {
    case IndexPaletteMode::one_colour: return "one_colour";
    case IndexPaletteMode::two_colour: return "two_colour";
    case IndexPaletteMode::method_b: return "method_b";
    case IndexPaletteMode::method_b_clear: return "method_b_clear";
    case IndexPaletteMode::four_colour: return "four_colour";
    case IndexPaletteMode::six_colour: return "six_colour";
    case IndexPaletteMode::eight_colour: return "eight_colour";
  }
  return "?";
}

std::optional<IndexPaletteEncoding> encode_index_palette(const ColorTile& tile, Rgba8 clear_color, IndexBits& bits) {
  if (tile.samples < 2) return std::nullopt;  // 1x has no index bits
  // No mode holds more than 1 colour at 2x, 3 at 4x, 8 at 8x: most shaded tiles have more, and
  // are turned away here after a few compares instead of a full palette build.
  const int cap = index_palette_max_colours(tile.samples);
  Rgba8 distinct[8];
  int count = 0;
  for (int i = 0; i < kTilePixels * tile.samples; ++i) {
    const Rgba8 c = tile.color[size_t(i)];
    int k = 0;
    while (k < count && distinct[k] != c) ++k;
    if (k < count) continue;
    if (count == cap) {
      bits = IndexBits{};
      return std::nullopt;
    }
    distinct[count++] = c;
  }
  const Palette palette = tile_palette(tile);
  static constexpr IndexPaletteMode kOrder[] = {IndexPaletteMode::one_colour,  IndexPaletteMode::two_colour,
                                                IndexPaletteMode::method_b,    IndexPaletteMode::method_b_clear,
                                                IndexPaletteMode::four_colour, IndexPaletteMode::six_colour,
                                                IndexPaletteMode::eight_colour};
  for (IndexPaletteMode mode : kOrder) {
    int used = 0;
    if (encode_mode(mode, tile, palette, clear_color, bits, used)) return IndexPaletteEncoding{mode, used};
  }
  bits = IndexBits{};
  return std::nullopt;
}

std::optional<IndexPaletteMode> index_palette_mode4(int colours, bool clear_among_them, int two_colour_pixels,
                                                    int three_colour_pixels) {
  // encode_mode's sizes at 4x (256 index bits): one colour is 32 bits; two are 64 + a bit per
  // sample (192); three are method_b's 96 + a 3-bit mode per pixel + the payload, or
  // method_b_clear's 64 + modes + payload when the clear colour is among them.
  constexpr int kBudget = 256, kModes = 3 * kTilePixels;
  if (colours == 1) return IndexPaletteMode::one_colour;
  if (colours == 2) return IndexPaletteMode::two_colour;
  if (colours != 3) return std::nullopt;
  const int payload = 4 * two_colour_pixels + 7 * three_colour_pixels;
  if (3 * 32 + kModes + payload <= kBudget) return IndexPaletteMode::method_b;
  if (clear_among_them && 2 * 32 + kModes + payload <= kBudget) return IndexPaletteMode::method_b_clear;
  return std::nullopt;
}

ColorTile decode_index_palette(IndexPaletteMode mode, const IndexBits& bits, int samples, Rgba8 clear_color) {
  // The mode and sample count come from a stored tile (untrusted): each mode exists at fixed
  // sample counts, and the variable-length modes are sized from their per-pixel codes before
  // any payload is read, so no read leaves the tile's index bits.
  const bool samples_fit = mode == IndexPaletteMode::one_colour ? (samples == 2 || samples == 4 || samples == 8)
                           : (mode == IndexPaletteMode::two_colour || mode == IndexPaletteMode::method_b ||
                              mode == IndexPaletteMode::method_b_clear)
                               ? samples == 4
                               : samples == 8;
  if (!samples_fit) {
    corrupt_index_bits(int(mode), samples, "the mode does not exist at this sample count");
  }
  ColorTile out;
  out.samples = samples;
  BitReader r(bits.words.data(), tile_index_bits(samples));
  switch (mode) {
    case IndexPaletteMode::one_colour: {
      const Rgba8 c = Rgba8(r.get(32));
      for (int i = 0; i < kTilePixels * samples; ++i) out.color[size_t(i)] = c;
      break;
    }
    case IndexPaletteMode::two_colour:
    case IndexPaletteMode::four_colour: {
      const bool two = mode == IndexPaletteMode::two_colour;
      Rgba8 palette[4];
      for (int i = 0; i < (two ? 2 : 4); ++i) palette[i] = Rgba8(r.get(32));
      for (int i = 0; i < kTilePixels * samples; ++i) out.color[size_t(i)] = palette[r.get(two ? 1 : 2)];
      break;
    }
    case IndexPaletteMode::method_b:
    case IndexPaletteMode::method_b_clear: {
      Rgba8 palette[3];
      const bool with_clear = mode == IndexPaletteMode::method_b_clear;
      for (int i = 0; i < (with_clear ? 2 : 3); ++i) palette[i] = Rgba8(r.get(32));
      if (with_clear) palette[2] = clear_color;
      int code[kTilePixels];
      int payload_bits = 0;
      for (int px = 0; px < kTilePixels; ++px) {
        code[px] = int(r.get(3));
        payload_bits += code[px] <= 2 ? 0 : code[px] <= 5 ? 4 : 7;  // code 7 (never written) reads as complex
      }
      if (!r.fits(payload_bits)) corrupt_index_bits(int(mode), samples, "pixel codes need more bits than the tile has");
      static constexpr int kPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
      for (int px = 0; px < kTilePixels; ++px) {
        if (code[px] <= 2) {
          for (int s = 0; s < 4; ++s) out.at(px, s) = palette[code[px]];
        } else if (code[px] <= 5) {
          const int* pair = kPairs[code[px] - 3];
          for (int s = 0; s < 4; ++s) out.at(px, s) = palette[pair[r.get(1)]];
        } else {
          int packed = int(r.get(7));
          for (int s = 0; s < 4; ++s, packed /= 3) out.at(px, s) = palette[packed % 3];
        }
      }
      break;
    }
    case IndexPaletteMode::six_colour:
    case IndexPaletteMode::eight_colour: {
      const bool six = mode == IndexPaletteMode::six_colour;
      Rgba8 palette[8] = {};
      for (int i = 0; i < (six ? 6 : 8); ++i) palette[i] = Rgba8(r.get(32));
      int state[kTilePixels];
      int payload_bits = 0;
      for (int px = 0; px < kTilePixels; ++px) {
        state[px] = int(r.get(4));
        payload_bits += state[px] < 6 ? 0 : state[px] <= 14 ? 8 : six ? 22 : 24;
      }
      if (!r.fits(payload_bits)) {
        corrupt_index_bits(int(mode), samples, "pixel states need more bits than the tile has");
      }
      for (int px = 0; px < kTilePixels; ++px) {
        if (state[px] < 6) {
          for (int s = 0; s < 8; ++s) out.at(px, s) = palette[state[px]];
        } else if (state[px] <= 14) {
          const uint8_t* pair = kStatePairs[state[px] - 6];
          for (int s = 0; s < 8; ++s) out.at(px, s) = palette[pair[r.get(1)]];
        } else if (six) {
          for (int g = 0; g < 2; ++g) {
            int packed = int(r.get(11));
            for (int s = 0; s < 4; ++s, packed /= 6) out.at(px, 4 * g + s) = palette[packed % 6];
          }
        } else {
          for (int s = 0; s < 8; ++s) out.at(px, s) = palette[r.get(3)];
        }
      }
      break;
    }
    default: corrupt_index_bits(int(mode), samples, "unknown mode");
  }
  return out;
}

}  // namespace tessera::color
