// Which datapath blocks each opcode activates (the spec's "Datapath reuse" section), and the
// counters' keys and publishing.
#include "eu/eu_counters.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>

#include "eu/fma_datapath.h"
#include "tessera/stats.h"

namespace tessera::eu {
namespace {

using Id = EuCounters::Id;

TEST(EuCounters, GetmantNeverUsesMultiplierAdderOrRounder) {
  EuCounters k;
  for (double x : {1.0, -3.5, 1e-310, 0.0, std::numeric_limits<double>::infinity()})
    for (int i = 0; i < 4; ++i)
      for (int s = 0; s < 4; ++s) getmant(x, i, s, k);
  EXPECT_EQ(k[Opcode::getmant], 5u * 16u);
  EXPECT_EQ(k[Id::multiplier], 0u);
  EXPECT_EQ(k[Id::adder], 0u);
  EXPECT_EQ(k[Id::rounder], 0u);
  EXPECT_EQ(k[Id::aligner], 0u);
  EXPECT_EQ(k[Id::preprocess], 80u);
  EXPECT_GT(k[Id::normaliser], 0u);
  EXPECT_GT(k[Id::mux], 0u);
}

TEST(EuCounters, ScalefBypassesTheMultiplierAndRounds) {
  EuCounters k;
  scalef(1.5, 3.25, k);
  scalef(1e-310, -2.0, k);  // subnormal source, subnormal result
  EXPECT_EQ(k[Id::multiplier], 0u);
  EXPECT_EQ(k[Id::rounder], 2u);
  EXPECT_EQ(k[Id::float_to_int], 2u);
  EXPECT_EQ(k[Id::range_check], 2u);
  EXPECT_EQ(k[Id::adder], 2u);  // src0 exponent + floor(src1)
  EXPECT_EQ(k[Id::mux], 4u);    // 2 muxes per lane
  EXPECT_EQ(k[Id::subnormal_operands], 1u);
  EXPECT_EQ(k[Id::special_bypass], 0u);
}

TEST(EuCounters, GetexpUsesTheIntToFloatConverterAndNoRounder) {
  EuCounters k;
  getexp(12.0f, 0, k);
  getexp(1e-40f, 3, k);
  EXPECT_EQ(k[Id::int_to_float], 2u);
  EXPECT_EQ(k[Id::mux], 6u);
  EXPECT_EQ(k[Id::rounder], 0u);
  EXPECT_EQ(k[Id::multiplier], 0u);
  EXPECT_EQ(k[Id::subnormal_operands], 1u);
}

TEST(EuCounters, FmaUsesTheWholeMainPath) {
  EuCounters k;
  fma(1.5, 2.5, 0.125, k);
  for (Id id : {Id::preprocess, Id::multiplier, Id::aligner, Id::adder, Id::lzd, Id::normaliser, Id::exponent_adjust,
                Id::range_check, Id::rounder})
    EXPECT_EQ(k[id], 1u) << EuCounters::key(id);
  EXPECT_EQ(k[Id::mux], 0u);
  EXPECT_EQ(k[Id::int_to_float], 0u);
  EXPECT_EQ(k[Id::float_to_int], 0u);
}

TEST(EuCounters, SpecialsTakeTheBypass) {
  EuCounters k;
  const double inf = std::numeric_limits<double>::infinity();
  fma(inf, 2.0, 1.0, k);
  getexp(0.0, 0, k);
  getmant(std::numeric_limits<double>::quiet_NaN(), 0, 0, k);
  scalef(2.0, inf, k);
  EXPECT_EQ(k[Id::preprocess], 4u);
  EXPECT_EQ(k[Id::special_bypass], 4u);
  EXPECT_EQ(k[Id::multiplier] + k[Id::rounder] + k[Id::int_to_float] + k[Id::float_to_int] + k[Id::lzd], 0u);
}

TEST(EuCounters, MergeAddsAndPublishWritesEveryKey) {
  EuCounters a, b;
  fma(1.0f, 2.0f, 3.0f, a);
  getexp(8.0f, 0, b);
  a.merge(b);
  EXPECT_EQ(a[Opcode::fma], 1u);
  EXPECT_EQ(a[Opcode::getexp], 1u);
  EXPECT_EQ(a[Id::preprocess], 2u);

  Stats stats;
  a.publish(stats);
  EXPECT_EQ(stats.get_u64("eu.instructions.fma"), 1u);
  EXPECT_EQ(stats.get_u64("eu.fma.preprocess"), 2u);
  std::set<std::string> keys;
  for (int i = 0; i < EuCounters::count; ++i) {
    EXPECT_TRUE(stats.has(EuCounters::key(Id(i))));
    EXPECT_TRUE(keys.insert(EuCounters::key(Id(i))).second) << "duplicate key " << EuCounters::key(Id(i));
    EXPECT_NE(std::string(EuCounters::description(Id(i))), "");
  }
  for (int i = 0; i < kOpcodeCount; ++i) EXPECT_TRUE(stats.has(EuCounters::key(Opcode(i))));
  EXPECT_STREQ(opcode_name(Opcode::getmantdiv), "getmantdiv");
}

}  // namespace
}  // namespace tessera::eu
