// The colour unit's statistics (docs/stats.md, color.*), present when the target is
// multisampled: the colour cache, the eviction flow, traffic, tiles per state and stored bytes.
#pragma once

#include "color/color_back_end.h"
#include "color/color_counters.h"
#include "tessera/stats.h"

namespace tessera::color {

void publish_color(Stats& stats, const ColorCounters& counters, const ColorTraffic& traffic);

}  // namespace tessera::color
