#include "viewer/stats_panel.h"

#include <gtest/gtest.h>

namespace tessera::viewer {
namespace {

TEST(StatsPanel, TreeGroupsByDottedPrefixWithEveryTopLevelUnit) {
  Stats s;
  s.set("raster.triangles.in", uint64_t(1234567));
  s.set("raster.triangles.setup", uint64_t(7));
  s.set("frame.time_ms.total", 2.5);
  s.set("futureunit.counter", uint64_t(3));
  const std::vector<StatsNode> roots = build_stats_tree(s);
  ASSERT_EQ(roots.size(), 3u);  // map order: frame, futureunit, raster
  EXPECT_EQ(roots[0].label, "frame");
  EXPECT_EQ(roots[1].label, "futureunit");
  EXPECT_EQ(roots[1].children.at(0).value, "3");
  const StatsNode& raster = roots[2];
  ASSERT_EQ(raster.children.size(), 1u);
  EXPECT_EQ(raster.children[0].label, "triangles");
  ASSERT_EQ(raster.children[0].children.size(), 2u);
  EXPECT_EQ(raster.children[0].children[0].label, "in");
  EXPECT_EQ(raster.children[0].children[0].value, "1,234,567");
  EXPECT_EQ(roots[0].children[0].children[0].value, "2.500");
}

TEST(StatsPanel, FormatsEveryKind) {
  EXPECT_EQ(format_stat(Stats::Value(uint64_t(999))), "999");
  EXPECT_EQ(format_stat(Stats::Value(uint64_t(1000))), "1,000");
  EXPECT_EQ(format_stat(Stats::Value(int64_t(-1234))), "-1,234");
  EXPECT_EQ(format_stat(Stats::Value(std::string("a.json"))), "a.json");
}

TEST(StatsPanel, HistoryKeepsTheLastFramesAndDiscoversMemoryClients) {
  StatsHistory h;
  for (int i = 0; i < int(StatsHistory::kCapacity) + 20; ++i) {
    Stats s;
    s.set("frame.time_ms.total", double(i));
    s.set("raster.triangles.setup", uint64_t(10));
    s.set("memory.depth.read_bytes", uint64_t(1));
    s.set("memory.depth.written_bytes", uint64_t(i));
    h.add(s);
  }
  const auto& series = h.series();
  ASSERT_EQ(series.size(), 4u);  // frame time, triangles, fragments, memory depth
  EXPECT_EQ(series[0].values.size(), StatsHistory::kCapacity);
  EXPECT_EQ(series[0].values.back(), float(StatsHistory::kCapacity + 19));
  EXPECT_EQ(series[0].values.front(), 20.0f);
  EXPECT_EQ(series[2].values.back(), 0.0f);  // fragments absent from these frames: 0
  EXPECT_EQ(series[3].title, "memory depth (bytes read + written)");
  EXPECT_EQ(series[3].values.back(), float(1 + StatsHistory::kCapacity + 19));
}

TEST(StatsPanel, UnitSeriesAppearWhenAFrameReportsThem) {
  StatsHistory h;
  Stats plain;
  plain.set("frame.time_ms.total", 1.0);
  h.add(plain);
  const size_t before = h.series().size();
  Stats msaa = plain;
  msaa.set("color.ratio.vs_uncompressed", 0.25);
  msaa.set("color.cache.hit_rate", 0.8);
  h.add(msaa);
  ASSERT_EQ(h.series().size(), before + 2);
  EXPECT_EQ(h.series()[before].title, "colour stored / uncompressed");
  EXPECT_FLOAT_EQ(h.series()[before].values.back(), 0.25f);
  h.add(plain);  // a 1x frame afterwards plots 0
  EXPECT_FLOAT_EQ(h.series()[before].values.back(), 0.0f);
}

TEST(StatsPanel, TimingBarsFromTheRegistry) {
  Stats s;
  EXPECT_TRUE(timing_bars(s).empty());
  s.set("timing.clock_mhz", 2.0);  // 2,000 cycles per ms
  s.set("timing.unit.raster.cycles", 1000.0);
  s.set("timing.unit.raster.utilization", 0.25);
  s.set("timing.unit.setup.cycles", 4000.0);
  s.set("timing.unit.setup.utilization", 1.0);
  s.set("timing.frame.cycles", 4000.0);
  const std::vector<TimingBar> bars = timing_bars(s);
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0].unit, "raster");
  EXPECT_DOUBLE_EQ(bars[0].ms, 0.5);
  EXPECT_DOUBLE_EQ(bars[0].share, 0.25);
  EXPECT_EQ(bars[1].unit, "setup");
  EXPECT_DOUBLE_EQ(bars[1].ms, 2.0);
}

}  // namespace
}  // namespace tessera::viewer
