// The timing model on hand-computed frames, and its properties over random loads and configs.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "timing/timing_model.h"

namespace tessera::timing {
namespace {

// One EU of one lane issuing once per clock, every other rate small and round.
HardwareConfig tiny(int slices) {
  HardwareConfig h;
  h.clock_mhz = 1.0;
  h.eus = 1;
  h.eu_lanes = 1;
  h.eu_issue_per_clock = 1.0;
  h.setup_per_clock = 2.0;
  h.bin_entries_per_clock = 1.0;
  h.raster_slices = slices;
  h.raster_samples_per_clock = 4.0;
  h.texels_per_clock = 1.0;
  h.depth_samples_per_clock = 2.0;
  h.color_samples_per_clock = 1.0;
  h.memory_bytes_per_clock = 10.0;
  h.memory_latency_clocks = 5;
  return h;
}

FrontEndLoad front() {
  FrontEndLoad f;
  f.vertex_instructions = 10;  // 10 cycles on one lane
  f.triangles_set_up = 4;      // 2 cycles
  f.bin_entries = 6;           // 6 cycles
  f.memory_bytes = 90;         // 9 cycles
  return f;
}

std::vector<TileLoad> two_tiles() {
  TileLoad a;
  a.fragment_instructions = 8;
  a.raster_samples = 20;
  a.depth_writes = 4;
  a.color_writes = 4;
  a.memory_bytes = 40;
  TileLoad b;
  b.fragment_instructions = 2;
  b.raster_samples = 40;
  b.memory_bytes = 10;
  return {a, b};
}

TEST(TimingModel, TwoTilesOnTwoSlices) {
  const FrameTiming t = model_frame(tiny(2), front(), two_tiles());
  // Front end: vertex 10, setup 2, binning 6, memory 9: vertex shading limits it.
  EXPECT_EQ(t.front_end_cycles, 10.0);
  EXPECT_EQ(t.front_end_bottleneck, Unit::vertex_shading);
  // Tile 0: shading 8 / 1 = 8, raster 20 / 4 = 5, ROP 4 / 2 + 4 / 1 = 6, memory 40 / 10 = 4
  // -> 8 (shading). Tile 1: shading 2, raster 40 / 4 = 10, memory 1 -> 10 (raster). One tile
  // per slice: makespan 10. The shared EU's total, 10 cycles, and memory's, 5, do not exceed it.
  ASSERT_EQ(t.tile_time.size(), 2u);
  EXPECT_EQ(t.tile_time[0], 8.0);
  EXPECT_EQ(t.tile_bottleneck[0], Unit::fragment_shading);
  EXPECT_EQ(t.tile_time[1], 10.0);
  EXPECT_EQ(t.tile_bottleneck[1], Unit::raster);
  EXPECT_EQ(t.schedule_cycles, 10.0);
  EXPECT_EQ(t.tile_cycles, 10.0);
  EXPECT_FALSE(t.tile_phase_shared);
  EXPECT_EQ(t.frame_cycles, 10.0 + 10.0 + 5.0);
  EXPECT_DOUBLE_EQ(t.frame_ms, 25.0 / 1000.0);
  EXPECT_EQ(t.unit_cycles[size_t(Unit::fragment_shading)], 10.0);
  EXPECT_EQ(t.unit_cycles[size_t(Unit::rop)], 6.0);
  EXPECT_EQ(t.bottleneck_tiles[size_t(Unit::fragment_shading)], 1u);
  EXPECT_EQ(t.bottleneck_tiles[size_t(Unit::raster)], 1u);
}

TEST(TimingModel, TwoTilesOnOneSlice) {
  const FrameTiming t = model_frame(tiny(1), front(), two_tiles());
  // The same tile times, one after the other: 8 + 10.
  EXPECT_EQ(t.tile_time[0], 8.0);
  EXPECT_EQ(t.tile_time[1], 10.0);
  EXPECT_EQ(t.tile_cycles, 18.0);
  EXPECT_EQ(t.frame_cycles, 33.0);
  Stats s;
  publish(s, tiny(1), t);
  EXPECT_EQ(s.get_number("timing.frame.cycles"), 33.0);
  EXPECT_EQ(std::get<std::string>(s.get("timing.bottleneck.frame")), "fragment_shading");
  EXPECT_DOUBLE_EQ(s.get_number("timing.unit.raster.utilization"), (5.0 + 10.0) / 33.0);
}

// Two EU-heavy tiles on four slices: the schedule is one tile long, but the EUs they share
// need both tiles' work: the EUs bound the tile phase.
TEST(TimingModel, SharedEusBoundTheTilePhase) {
  TileLoad heavy;
  heavy.fragment_instructions = 12;
  const FrameTiming t = model_frame(tiny(4), FrontEndLoad{}, std::vector<TileLoad>{heavy, heavy});
  EXPECT_EQ(t.schedule_cycles, 12.0);
  EXPECT_EQ(t.tile_cycles, 24.0);
  EXPECT_TRUE(t.tile_phase_shared);
  EXPECT_EQ(t.tile_phase_bound, Unit::fragment_shading);
  EXPECT_EQ(t.frame_cycles, 24.0 + 5.0);
}

TEST(TimingModel, ZeroWorkCostsZero) {
  const FrameTiming t = model_frame(tiny(3), FrontEndLoad{}, std::vector<TileLoad>(5));
  EXPECT_EQ(t.frame_cycles, 0.0);
  EXPECT_EQ(t.frame_ms, 0.0);
}

// More of any resource never makes a frame slower; halving the clock doubles the time.
TEST(TimingModel, MoreHardwareNeverSlower) {
  std::mt19937_64 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 300; ++trial) {
    HardwareConfig h = tiny(pick(1, 8));
    h.eus = pick(1, 64);
    h.memory_bytes_per_clock = pick(1, 512);
    h.raster_samples_per_clock = pick(1, 64);
    FrontEndLoad f = front();
    f.vertex_instructions = pick(0, 100000);
    std::vector<TileLoad> tiles(size_t(pick(1, 60)));
    for (TileLoad& l : tiles) {
      l.fragment_instructions = pick(0, 50000);
      l.raster_samples = uint64_t(pick(0, 5000));
      l.texels = uint64_t(pick(0, 5000));
      l.depth_writes = uint64_t(pick(0, 4000));
      l.color_writes = uint64_t(pick(0, 4000));
      l.memory_bytes = uint64_t(pick(0, 100000));
    }
    const double base = model_frame(h, f, tiles).frame_cycles;
    HardwareConfig more = h;
    more.eus *= 2;
    EXPECT_LE(model_frame(more, f, tiles).frame_cycles, base) << "eus, trial " << trial;
    more = h;
    more.memory_bytes_per_clock *= 1.5;
    EXPECT_LE(model_frame(more, f, tiles).frame_cycles, base) << "bandwidth, trial " << trial;
    more = h;
    more.raster_slices += pick(1, 4);
    EXPECT_LE(model_frame(more, f, tiles).frame_cycles, base) << "slices, trial " << trial;
    more = h;
    more.clock_mhz = h.clock_mhz / 2;
    EXPECT_DOUBLE_EQ(model_frame(more, f, tiles).frame_ms, 2 * model_frame(h, f, tiles).frame_ms);
  }
}

}  // namespace
}  // namespace tessera::timing
