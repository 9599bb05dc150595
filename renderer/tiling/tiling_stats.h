// The tiling unit's statistics (docs/stats.md, tiling.*): the PICB and the supertiles
// generated from it, and the two-pass vertex shading and parameter-buffer work of a tiling.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/config.h"
#include "tessera/stats.h"
#include "tiling/supertiles.h"
#include "tiling/tiling_accounting.h"

namespace tessera {

// tiling.mode, tiling.atomic.*, tiling.crossings, tiling.picb.*, tiling.supertiles.*,
// tiling.fixed.* (square fixed tiles of the same budget, for the cut cost).
void publish_tiling_generation(Stats& stats, const TilingConfig& config, const Picb& picb,
                               const SupertileTable& supertiles, uint64_t crossings, int capacity);

// <prefix>.render_tiles, .crossings, .vs.*, .vertex_fetch_bytes, .tile_buffer.*, .parameter_buffer.*
void publish_tiling_work(Stats& stats, const std::string& prefix, const TilingWork& work);

}  // namespace tessera
