// What the colour unit did in a frame: tiles per control-surface state, bits per memory client,
// the two baselines on the same tiles, and a histogram of stored bits per tile. Plain counters
// (no Stats dependency) so the Vulkan layer can reuse the unit; the pipeline publishes them.
#pragma once

#include <array>
#include <cstdint>

#include "color/tile_store.h"

namespace tessera::color {

// Upper edges of the bits-per-tile histogram buckets (control code included); the last bucket
// takes everything above.
constexpr std::array<int, 8> kBitsHistogramEdges = {4, 256, 768, 1024, 2048, 4096, 8192, 1 << 30};

struct ColorCounters {
  std::array<uint64_t, 16> tiles_by_state{};  // indexed by the 4-bit control code
  uint64_t plane_bits = 0;                    // colour planes written
  uint64_t index_bits = 0;                    // index bits written
  uint64_t control_bits = 0;                  // control surface written
  uint64_t baseline_uncompressed_bits = 0;    // every plane of every tile, raw
  uint64_t baseline_planes_only_bits = 0;     // used planes raw + index bits
  std::array<uint64_t, kBitsHistogramEdges.size()> bits_histogram{};

  void add(const StoredTile& t) {
    ++tiles_by_state[size_t(t.state)];
    plane_bits += uint64_t(t.plane_bits);
    index_bits += uint64_t(t.index_bits);
    control_bits += kControlBits;
    baseline_uncompressed_bits += uint64_t(t.baseline_uncompressed_bits);
    baseline_planes_only_bits += uint64_t(t.baseline_planes_only_bits);
    const int total = t.plane_bits + t.index_bits + kControlBits;
    size_t b = 0;
    while (b + 1 < kBitsHistogramEdges.size() && total > kBitsHistogramEdges[b]) ++b;
    ++bits_histogram[b];
  }
  // What the unit stores: planes, index bits and control surface, each rounded up to bytes.
  uint64_t stored_bytes() const { return (plane_bits + 7) / 8 + (index_bits + 7) / 8 + (control_bits + 7) / 8; }
  void merge(const ColorCounters& o) {
    for (size_t i = 0; i < tiles_by_state.size(); ++i) tiles_by_state[i] += o.tiles_by_state[i];
    for (size_t i = 0; i < bits_histogram.size(); ++i) bits_histogram[i] += o.bits_histogram[i];
    plane_bits += o.plane_bits;
    index_bits += o.index_bits;
    control_bits += o.control_bits;
    baseline_uncompressed_bits += o.baseline_uncompressed_bits;
    baseline_planes_only_bits += o.baseline_planes_only_bits;
  }
};

}  // namespace tessera::color
