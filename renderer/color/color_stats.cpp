#include "color/color_stats.h"

#include <string>

namespace tessera::color {

void publish_color(Stats& s, const ColorCounters& cc, const ColorTraffic& traffic) {
  s.set("color.cache.accesses", traffic.accesses);
  s.set("color.cache.hits", traffic.hits);
  s.set("color.cache.misses", traffic.misses);
  s.set("color.cache.hit_rate", traffic.accesses ? double(traffic.hits) / double(traffic.accesses) : 0.0);
  s.set("color.eviction.palette_attempts", traffic.palette_attempts);
  s.set("color.eviction.palette_stores", traffic.palette_stores);
  s.set("color.eviction.palette_skipped_planes_not_cached", traffic.palette_skipped);
  s.set("color.traffic.planes.read_bytes", (traffic.plane_bits_read + 7) / 8);
  s.set("color.traffic.planes.written_bytes", (traffic.plane_bits_written + 7) / 8);
  s.set("color.traffic.index.read_bytes", (traffic.index_bits_read + 7) / 8);
  s.set("color.traffic.index.written_bytes", (traffic.index_bits_written + 7) / 8);
  s.set("color.traffic.control.read_bytes", (traffic.control_bits_read + 7) / 8);
  s.set("color.traffic.control.written_bytes", (traffic.control_bits_written + 7) / 8);
  uint64_t tiles = 0;
// clang-format off
#define TESSERA_X(name, code, desc)                                                    \
  s.set("color.tiles." #name, cc.tiles_by_state[size_t(TileState::name)]); \
  tiles += cc.tiles_by_state[size_t(TileState::name)];
// clang-format on
  TESSERA_COLOR_TILE_STATES(TESSERA_X)
#undef TESSERA_X
  s.set("color.tiles.total", tiles);
  const uint64_t stored = cc.stored_bytes();
  s.set("color.bytes.planes", (cc.plane_bits + 7) / 8);
  s.set("color.bytes.index", (cc.index_bits + 7) / 8);
  s.set("color.bytes.control", (cc.control_bits + 7) / 8);
  s.set("color.bytes.total", stored);
  s.set("color.baseline.uncompressed_bytes", cc.baseline_uncompressed_bits / 8);
  s.set("color.baseline.planes_only_bytes", cc.baseline_planes_only_bits / 8);
  s.set("color.ratio.vs_uncompressed",
        cc.baseline_uncompressed_bits ? double(stored) / double(cc.baseline_uncompressed_bits / 8) : 0.0);
  s.set("color.ratio.vs_planes_only",
        cc.baseline_planes_only_bits ? double(stored) / double(cc.baseline_planes_only_bits / 8) : 0.0);
  for (size_t b = 0; b < kBitsHistogramEdges.size(); ++b) {
    const std::string name = b + 1 < kBitsHistogramEdges.size()
                                 ? "color.bits_per_tile.le_" + std::to_string(kBitsHistogramEdges[b])
                                 : "color.bits_per_tile.more";
    s.set(name, cc.bits_histogram[b]);
  }
}

}  // namespace tessera::color
