// Runs a test body once per SIMD target this build compiled and this CPU runs (AVX-512 and
// AVX2 on an x86-64-v3 build on an AVX-512 machine), forcing each through the run-time
// dispatch (tessera/lane_target.h), so a lane test compares every target with the scalar path.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tessera/lane_target.h"

namespace tessera::lane_testing {

template <class Body>
void for_each_lane_target(Body&& body) {
  lane_target();  // applies TESSERA_LANE_TARGET now, not in the middle of the loop
  struct Restore {
    ~Restore() { set_lane_target("best"); }
  } restore;
  const auto targets = lane_targets();
  ASSERT_FALSE(targets.empty());
  for (const std::string& target : targets) {
    set_lane_target(target);
    ASSERT_EQ(lane_target(), target);
    SCOPED_TRACE("lane target " + target);
    body();
  }
}

}  // namespace tessera::lane_testing
