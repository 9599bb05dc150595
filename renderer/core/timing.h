// Wall-clock timing of pipeline stages (frame.time_ms.*): reported beside the counters, never
// part of any result.
#pragma once

#include <chrono>

namespace tessera {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace tessera
