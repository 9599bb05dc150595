// Human-readable per-unit summary of one frame's statistics.
#pragma once

#include <string>

#include "tessera/stats.h"

namespace tessera::cli {

std::string frame_summary(const Stats& stats);

}  // namespace tessera::cli
