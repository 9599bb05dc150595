// Helpers shared by the raster unit's tests.
#pragma once

#include <vector>

#include "tessera/clip_space.h"

namespace tessera::raster_testing {

// Every depth state a test should cover: each compare op with test and write on, then test
// without write and write without test.
inline std::vector<DepthState> every_depth_state() {
  std::vector<DepthState> states;
  for (CompareOp op : {CompareOp::never, CompareOp::less, CompareOp::equal, CompareOp::less_or_equal,
                       CompareOp::greater, CompareOp::not_equal, CompareOp::greater_or_equal, CompareOp::always}) {
    states.push_back(DepthState{true, true, op});
  }
  states.push_back(DepthState{true, false, CompareOp::less});
  states.push_back(DepthState{false, true, CompareOp::less});
  return states;
}

}  // namespace tessera::raster_testing
