#include "tessera/error.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

int checked_value(int v) {
  TS_CHECK(v >= 0, "value must be non-negative");
  return v;
}

TEST(ErrorTest, ErrorCarriesItsMessage) {
  try {
    throw Error("scene.json: meshes[0]: bad");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "scene.json: meshes[0]: bad");
  }
}

TEST(ErrorTest, PassingCheckReturnsNormally) { EXPECT_EQ(checked_value(3), 3); }

TEST(ErrorDeathTest, FailedCheckPrintsExpressionMessageAndLocationThenAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(checked_value(-1),
               "tessera: internal check failed: v >= 0 \\(value must be non-negative\\) at "
               ".*error_test\\.cpp:[0-9]+");
}

}  // namespace
}  // namespace tessera
