#include "color/tile_store.h"

#include <string>

#include "tessera/error.h"

namespace tessera::color {

const char* tile_state_name(TileState state) {
  const char* name = color_tile_state_name(uint8_t(state));
  return name ? name : "?";
}

TileState tile_state_for(IndexPaletteMode mode) {
  switch (mode) {
    case IndexPaletteMode::one_colour: return TileState::index_one_colour;
    case IndexPaletteMode::two_colour: return TileState::index_two_colour;
    case IndexPaletteMode::method_b: return TileState::index_method_b;
    case IndexPaletteMode::method_b_clear: return TileState::index_method_b_clear;
    case IndexPaletteMode::four_colour: return TileState::index_four_colour;
    case IndexPaletteMode::six_colour: return TileState::index_six_colour;
    case IndexPaletteMode::eight_colour: return TileState::index_eight_colour;
  }
  return TileState::planes_uncompressed;
}

namespace {
IndexPaletteMode mode_of(TileState s) {
  switch (s) {
    case TileState::index_two_colour: return IndexPaletteMode::two_colour;
    case TileState::index_method_b: return IndexPaletteMode::method_b;
    case TileState::index_method_b_clear: return IndexPaletteMode::method_b_clear;
    case TileState::index_four_colour: return IndexPaletteMode::four_colour;
    case TileState::index_six_colour: return IndexPaletteMode::six_colour;
    case TileState::index_eight_colour: return IndexPaletteMode::eight_colour;
    default: return IndexPaletteMode::one_colour;
  }
}

// Cold and out of line: building the message must not weigh on load_tile's inlining.
[[noreturn, gnu::cold, gnu::noinline]] void corrupt_tile(const StoredTile& stored, const char* problem) {
  throw Error("colour unit: corrupt stored tile (state " + std::to_string(int(stored.state)) + ", " +
              std::to_string(stored.samples) + " samples, " + std::to_string(stored.planes_used) +
              " planes): " + problem);
}
}  // namespace

StoredTile store_tile(const ColorTile& tile, Rgba8 clear, bool try_index_palette) {
  StoredTile out;
  out.samples = tile.samples;
  const int index_total = tile_index_bits(tile.samples);
  out.baseline_uncompressed_bits = tile.samples * kPlaneBits;
  bool all_clear = true;
  for (int i = 0; i < kTilePixels * tile.samples && all_clear; ++i) all_clear = tile.color[size_t(i)] == clear;
  if (all_clear) {  // state cleared: the control code alone; one plane (one colour) for the baseline
    out.baseline_planes_only_bits = kPlaneBits + index_total;
    return out;
  }
  const PlanedTile planed = to_planes(tile);
  out.baseline_planes_only_bits = planed.planes_used * kPlaneBits + index_total;

  if (const auto enc = try_index_palette ? encode_index_palette(tile, clear, out.index) : std::nullopt) {
    out.state = tile_state_for(enc->mode);
    out.index_bits = index_total;  // the tile's index bits are read and written whole
    return out;
  }

  // Planes: each used plane with the better of delta and palette (raw when neither helps).
  out.planes_used = planed.planes_used;
  int compressed_bits = 0;
  for (int k = 0; k < planed.planes_used; ++k) {
    out.planes[size_t(k)] = compress_plane_best(planed.planes[size_t(k)]);
    compressed_bits += out.planes[size_t(k)].bits + kPlaneTagBits;
  }
  BitWriter w(out.index.words.data(), index_total);
  for (int i = 0; i < kTilePixels * tile.samples; ++i)
    w.put(planed.index[size_t(i)], index_bits_per_sample(tile.samples));
  out.index_bits = index_total;
  if (compressed_bits < planed.planes_used * kPlaneBits) {
    out.state = TileState::planes_compressed;
    out.plane_bits = compressed_bits;
  } else {
    out.state = TileState::planes_uncompressed;
    for (int k = 0; k < planed.planes_used; ++k)
      out.planes[size_t(k)] = compress_plane(planed.planes[size_t(k)], PlaneCodec::uncompressed);
    out.plane_bits = planed.planes_used * kPlaneBits;
  }
  return out;
}

ColorTile load_tile(const StoredTile& stored, Rgba8 clear) {
  // The stored form is untrusted: its sample and plane counts bound every array the decoders
  // index, so they are checked once here (plane payloads and index modes in their decoders).
  if (stored.samples != 2 && stored.samples != 4 && stored.samples != 8) {
    corrupt_tile(stored, "samples must be 2, 4 or 8");
  }
  ColorTile out;
  out.samples = stored.samples;
  switch (stored.state) {
    case TileState::cleared:
      for (int i = 0; i < kTilePixels * stored.samples; ++i) out.color[size_t(i)] = clear;
      return out;
    case TileState::planes_uncompressed:
    case TileState::planes_compressed: {
      if (stored.planes_used < 1 || stored.planes_used > stored.samples) {
        corrupt_tile(stored, "planes_used must be 1..samples");
      }
      PlanedTile planed;
      planed.samples = stored.samples;
      planed.planes_used = stored.planes_used;
      for (int k = 0; k < stored.planes_used; ++k)
        planed.planes[size_t(k)] = decompress_plane(stored.planes[size_t(k)]);
      BitReader r(stored.index.words.data(), tile_index_bits(stored.samples));
      for (int i = 0; i < kTilePixels * stored.samples; ++i) {
        // An index naming an unused plane (never written) reads that plane's zeros.
        planed.index[size_t(i)] = uint8_t(r.get(index_bits_per_sample(stored.samples)));
      }
      return from_planes(planed);
    }
    case TileState::index_one_colour:
    case TileState::index_two_colour:
    case TileState::index_method_b:
    case TileState::index_method_b_clear:
    case TileState::index_four_colour:
    case TileState::index_six_colour:
    case TileState::index_eight_colour:
      return decode_index_palette(mode_of(stored.state), stored.index, stored.samples, clear);
  }
  corrupt_tile(stored, "unknown state");
}

}  // namespace tessera::color

namespace tessera {

const char* color_tile_state_name(uint8_t code) {
  switch (code) {
#define TESSERA_X(name, value, desc) \
  case value: return #name;
    TESSERA_COLOR_TILE_STATES(TESSERA_X)
#undef TESSERA_X
  }
  return nullptr;
}

uint32_t color_tile_state_swatch(uint8_t code) {
  auto rgb = [](uint32_t r, uint32_t g, uint32_t b) { return r | g << 8 | b << 16 | 0xff000000u; };
  switch (ColorTileState(code)) {
    case ColorTileState::cleared: return rgb(70, 70, 78);
    case ColorTileState::planes_uncompressed: return rgb(225, 45, 45);
    case ColorTileState::planes_compressed: return rgb(245, 150, 40);
    case ColorTileState::index_one_colour: return rgb(150, 235, 130);
    case ColorTileState::index_two_colour: return rgb(40, 185, 75);
    case ColorTileState::index_method_b: return rgb(40, 205, 215);
    case ColorTileState::index_method_b_clear: return rgb(70, 120, 240);
    case ColorTileState::index_four_colour: return rgb(175, 95, 225);
    case ColorTileState::index_six_colour: return rgb(235, 95, 185);
    case ColorTileState::index_eight_colour: return rgb(250, 225, 70);
  }
  return rgb(255, 255, 255);
}

const char* color_tile_state_description(uint8_t code) {
  switch (code) {
#define TESSERA_X(name, value, desc) \
  case value: return desc;
    TESSERA_COLOR_TILE_STATES(TESSERA_X)
#undef TESSERA_X
  }
  return nullptr;
}

}  // namespace tessera
