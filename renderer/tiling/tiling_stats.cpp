#include "tiling/tiling_stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tessera {

namespace {

// TilingWork's fields and their keys under a tiling's prefix, once.
// clang-format off
#define TESSERA_TILING_WORK(X)                                                   \
  X(render_tiles, "render_tiles") X(crossings, "crossings")                      \
  X(pass1_invocations, "vs.pass1_invocations") X(pass2_invocations, "vs.pass2_invocations") \
  X(binned_vertices, "vs.binned_vertices") X(redundant_invocations, "vs.redundant_invocations") \
  X(redundant_percent, "vs.redundant_percent") X(vertex_fetch_bytes, "vertex_fetch_bytes") \
  X(tile_buffer_stores, "tile_buffer.stores") X(tile_buffer_store_bytes, "tile_buffer.store_bytes") \
  X(tile_buffer_loads, "tile_buffer.loads") X(tile_buffer_load_bytes, "tile_buffer.load_bytes") \
  X(largest_tile_bytes, "tile_buffer.largest_tile_bytes")                        \
  X(parameter_buffer_written_bytes, "parameter_buffer.written_bytes")            \
  X(parameter_buffer_read_bytes, "parameter_buffer.read_bytes")
// clang-format on

}  // namespace

void publish_tiling_work(Stats& s, const std::string& prefix, const TilingWork& w) {
#define TESSERA_X(field, key) s.set(prefix + "." key, w.field);
  TESSERA_TILING_WORK(TESSERA_X)
#undef TESSERA_X
  s.set(prefix + ".tile_buffer.within_budget", uint64_t(w.within_budget));
}

void publish_tiling_generation(Stats& s, const TilingConfig& cfg, const Picb& picb, const SupertileTable& stt,
                               uint64_t crossings, int capacity) {
  uint64_t max_cost = 0, saturated = 0;
  for (uint16_t c : picb.cost) {
    max_cost = std::max<uint64_t>(max_cost, c);
    saturated += c == 65535;
  }
  size_t largest = 0;
  for (size_t i = 0; i < stt.count(); ++i) largest = std::max(largest, stt.size_of(i));
  // Square fixed tiles as large as the budget allows, in atomic tiles.
  const int side = std::max(1, int(std::sqrt(double(capacity))));
  const TileGrid atomic = TileGrid::make(picb.tiles_x, picb.tiles_y, 1);
  SupertileTable fixed;
  fixed.tiles_x = picb.tiles_x;
  fixed.tiles_y = picb.tiles_y;
  fixed.owner = square_partition(atomic, side, "", 0).owner;
  s.set("tiling.mode", std::string(choice_name(cfg.mode)));
  s.set("tiling.atomic.size", uint64_t(cfg.atomic_size));
  s.set("tiling.atomic.tiles", uint64_t(picb.cost.size()));
  s.set("tiling.crossings", crossings);
  s.set("tiling.picb.max", max_cost);
  s.set("tiling.picb.saturated", saturated);
  s.set("tiling.supertiles.capacity", uint64_t(capacity));
  s.set("tiling.supertiles.count", uint64_t(stt.count()));
  s.set("tiling.supertiles.largest", uint64_t(largest));
  s.set("tiling.supertiles.cut_cost", stt.cut_cost(picb));
  // Size histogram in atomic tiles: le_1, le_2, le_4, ... up to the capacity.
  std::vector<uint64_t> histogram;
  for (size_t i = 0; i < stt.count(); ++i) {
    size_t bucket = 0;
    while ((size_t(1) << bucket) < stt.size_of(i)) ++bucket;
    if (histogram.size() <= bucket) histogram.resize(bucket + 1, 0);
    ++histogram[bucket];
  }
  for (size_t b = 0; (size_t(1) << b) < size_t(capacity) * 2 && b < 32; ++b) {
    s.set("tiling.supertiles.size.le_" + std::to_string(size_t(1) << b), b < histogram.size() ? histogram[b] : 0);
  }
  s.set("tiling.fixed.side_atomic_tiles", uint64_t(side));
  s.set("tiling.fixed.cut_cost", fixed.cut_cost(picb));
}

}  // namespace tessera
