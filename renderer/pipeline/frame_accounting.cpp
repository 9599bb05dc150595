#include "pipeline/frame_accounting.h"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/timing.h"
#include "tiling/tiling_stats.h"

namespace tessera {

void build_picb_and_supertiles(const std::vector<BinChunk>& atomic_bins, uint32_t pic, TilingAccounting& out) {
  auto t0 = Clock::now();
  const TileGrid& atomic = out.atomic;
  out.picb = Picb(atomic.tiles_x, atomic.tiles_y);
  Picb& picb = out.picb;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, size_t(atomic.tile_count()), 256),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t i = r.begin(); i < r.end(); ++i) {
                        uint64_t entries = 0;
                        for (const BinChunk& b : atomic_bins) entries += b.offsets[i + 1] - b.offsets[i];
                        picb.cost[i] = uint16_t(std::min<uint64_t>(entries * pic, 65535));
                      }
                    });
  out.crossings = 0;
  for (const BinChunk& b : atomic_bins) out.crossings += b.entries.size();
  out.picb_ms = ms_since(t0);
  t0 = Clock::now();
  out.supertiles = generate_supertiles(picb, out.capacity);
  out.generation_ms = ms_since(t0);
}

void account_tilings(const TilingConfig& config, const TilingFrame& frame, const std::vector<BinChunk>& atomic_bins,
                     const std::vector<BinChunk>& rendered_bins, const TileGrid& rendered_grid, TilingAccounting& out) {
  const auto t0 = Clock::now();
  const bool adaptive = config.mode == TilingMode::adaptive;
  const uint64_t budget = uint64_t(config.tile_buffer_bytes);
  const TileGrid& atomic = out.atomic;
  TilingFrame on_atomic = frame;
  on_atomic.bins = &atomic_bins;
  on_atomic.grid = atomic;
  const TilePartition adaptive_partition{"adaptive", out.supertiles.owner, uint32_t(out.supertiles.count()), budget};
  TilingFrame on_grid = frame;
  on_grid.bins = &rendered_bins;
  on_grid.grid = rendered_grid;
  // Which atomic tiles each primitive and vertex reaches, once for every partition of them.
  // With the baselines, a fixed frame's render grid (when its tiles are whole atomic tiles)
  // rides on the same incidence: its own lists are only needed where they list a primitive in
  // a tile that none of the primitive's atomic tiles lies in.
  const bool nested = rendered_grid.tile_size % atomic.tile_size == 0;
  std::optional<TileIncidence> on_atomic_reach;
  auto atomic_reach = [&]() -> const TileIncidence& {
    if (!on_atomic_reach) {
      on_atomic_reach =
          !adaptive && nested ? tile_incidence(on_atomic, &rendered_bins, rendered_grid) : tile_incidence(on_atomic);
    }
    return *on_atomic_reach;
  };
  if (adaptive) {
    out.rendered = account_tiling(on_atomic, atomic_reach(), adaptive_partition);
  } else if (config.baselines && nested) {
    out.rendered = account_tiling(on_grid, atomic_reach(), square_partition(rendered_grid, 1, "fixed", budget));
  } else {
    out.rendered = account_tiling(on_grid, square_partition(rendered_grid, 1, "fixed", budget));
  }
  out.baselines.clear();
  if (config.baselines) {
    for (int size = 16; size <= 256; size *= 2) {
      if (size % atomic.tile_size != 0) continue;
      const std::string name = "fixed_" + std::to_string(size);
      out.baselines.emplace_back(name, account_tiling(on_atomic, atomic_reach(),
                                                      square_partition(atomic, size / atomic.tile_size, name, budget)));
    }
    out.baselines.emplace_back(
        "adaptive", adaptive ? *out.rendered : account_tiling(on_atomic, atomic_reach(), adaptive_partition));
  }
  out.accounting_ms = ms_since(t0);
}

void publish_tiling(const TilingConfig& config, const TilingAccounting& tiling, Frame& frame, bool diagnostics) {
  Stats& s = frame.stats;
  publish_tiling_generation(s, config, tiling.picb, tiling.supertiles, tiling.crossings, tiling.capacity);
  if (tiling.rendered) publish_tiling_work(s, "tiling.rendered", *tiling.rendered);
  for (const auto& [name, work] : tiling.baselines) publish_tiling_work(s, "tiling.baseline." + name, work);
  if (diagnostics) {
    FrameDiagnostics& d = frame.diagnostics;
    d.atomic_size = config.atomic_size;
    d.atomic_x = tiling.picb.tiles_x;
    d.atomic_y = tiling.picb.tiles_y;
    d.picb = tiling.picb.cost;
    d.supertile_of = tiling.supertiles.owner;
  }
}

}  // namespace tessera
