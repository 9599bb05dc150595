// The colour unit's store path for one 8x4 tile of a multisampled render target: the
// compressor picks the tile's control-surface state (cleared, palette in the index bits, or
// planes with per-plane codecs), reports the bits that go to memory per client, and the
// decompressor rebuilds the samples from exactly that stored form.
//
// Placement: Tessera's raster back end holds a whole bin tile on chip, so when a tile is
// stored every used plane is present: the spec's "all used planes are in the cache" holds and
// the index-bit palette is always attempted first.
#pragma once

#include "color/color_tile.h"
#include "tessera/color_state.h"
#include "color/index_palette.h"
#include "color/bit_stream.h"
#include "color/plane_codec.h"

namespace tessera::color {

using tessera::ColorTileState;

// Control-surface code, 4 bits per tile (list in tessera/color_state.h).
using TileState = ColorTileState;
constexpr int kControlBits = 4;
const char* tile_state_name(TileState state);
TileState tile_state_for(IndexPaletteMode mode);

// A stored tile: its state and payload, and the bits each memory client carries.
constexpr int kPlaneTagBits = 2;  // per stored plane in the compressed state: its codec

struct StoredTile {
  TileState state = TileState::cleared;
  int samples = 1;
  IndexBits index;  // index bits (palette modes and plane modes)
  int planes_used = 0;
  std::array<CompressedPlane, kMaxSamples> planes;
  int plane_bits = 0;  // colour-plane client
  int index_bits = 0;  // index-bit client
  // Baselines on the same tile: every plane raw; planes-only (empty planes skipped, raw).
  int baseline_uncompressed_bits = 0;
  int baseline_planes_only_bits = 0;
};

// Compresses a multisampled tile (samples >= 2). `clear` is the render target's clear colour.
// `try_index_palette` is false when the eviction flow found a used plane outside the cache.
StoredTile store_tile(const ColorTile& tile, Rgba8 clear, bool try_index_palette = true);
// Rebuilds the samples from the stored form alone.
ColorTile load_tile(const StoredTile& stored, Rgba8 clear);

}  // namespace tessera::color
