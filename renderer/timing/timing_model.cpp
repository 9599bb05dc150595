#include "timing/timing_model.h"

#include <algorithm>
#include <queue>
#include <string>
#include <utility>

namespace tessera::timing {

const char* unit_key(Unit unit) {
  static constexpr const char* kKeys[] = {
#define TESSERA_X(name, key) key,
      TESSERA_TIMING_UNITS(TESSERA_X)
#undef TESSERA_X
  };
  return kKeys[size_t(unit)];
}

FrameTiming model_frame(const HardwareConfig& hw, const FrontEndLoad& front, std::span<const TileLoad> tiles) {
  FrameTiming t;
  auto& c = t.unit_cycles;
  // The EUs, memory and the ray-tracing units are shared by every slice: a tile alone may use all of them (its time on
  // them is its work at the full rate), and over the tile phase their total work is a bound of
  // its own. The raster, texture and ROP units are per slice.
  const double eu_rate = double(hw.eus) * double(hw.eu_lanes) * hw.eu_issue_per_clock;
  std::array<double, kUnitCount> front_cycles{};
  front_cycles[size_t(Unit::vertex_shading)] = front.vertex_instructions / eu_rate;
  front_cycles[size_t(Unit::tessellation)] = front.tessellation_cycles;
  front_cycles[size_t(Unit::setup)] = double(front.triangles_set_up) / hw.setup_per_clock;
  front_cycles[size_t(Unit::binning)] = double(front.bin_entries) / hw.bin_entries_per_clock;
  front_cycles[size_t(Unit::front_memory)] = double(front.memory_bytes) / hw.memory_bytes_per_clock;
  for (int u = 0; u < int(kFirstTileUnit); ++u) {
    c[size_t(u)] = front_cycles[size_t(u)];
    if (front_cycles[size_t(u)] > t.front_end_cycles) {
      t.front_end_cycles = front_cycles[size_t(u)];
      t.front_end_bottleneck = Unit(u);
    }
  }
  // Tiles to slices in tile order, each to the slice that frees first (lowest index on ties).
  using Slot = std::pair<double, int>;  // (free at, slice)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> free_at;
  for (int s = 0; s < hw.raster_slices; ++s) free_at.push({0.0, s});
  t.tile_time.resize(tiles.size());
  t.tile_bottleneck.resize(tiles.size());
  for (size_t i = 0; i < tiles.size(); ++i) {
    const TileLoad& l = tiles[i];
    std::array<double, kUnitCount> u{};
    u[size_t(Unit::fragment_shading)] = l.fragment_instructions / eu_rate;
    u[size_t(Unit::raster)] = double(l.raster_samples) / hw.raster_samples_per_clock;
    u[size_t(Unit::texture)] = double(l.texels) / hw.texels_per_clock;
    u[size_t(Unit::rop)] =
        double(l.depth_writes) / hw.depth_samples_per_clock + double(l.color_writes) / hw.color_samples_per_clock;
    u[size_t(Unit::tile_memory)] = double(l.memory_bytes) / hw.memory_bytes_per_clock;
    u[size_t(Unit::rt_boxes)] = double(l.rt_box_tests) / (double(hw.rt_units) * hw.rt_box_tests_per_clock);
    u[size_t(Unit::rt_triangles)] =
        double(l.rt_triangle_tests) / (double(hw.rt_units) * hw.rt_triangle_tests_per_clock);
    Unit worst = kFirstTileUnit;
    double time = 0;
    for (int k = int(kFirstTileUnit); k < kUnitCount; ++k) {
      c[size_t(k)] += u[size_t(k)];
      if (u[size_t(k)] > time) {
        time = u[size_t(k)];
        worst = Unit(k);
      }
    }
    t.tile_time[i] = time;
    t.tile_bottleneck[i] = worst;
    if (time > 0) ++t.bottleneck_tiles[size_t(worst)];
    Slot slot = free_at.top();
    free_at.pop();
    slot.first += time;
    t.tile_cycles = std::max(t.tile_cycles, slot.first);
    free_at.push(slot);
  }
  t.schedule_cycles = t.tile_cycles;
  for (Unit shared : {Unit::fragment_shading, Unit::tile_memory, Unit::rt_boxes, Unit::rt_triangles}) {
    if (c[size_t(shared)] > t.tile_cycles) {
      t.tile_cycles = c[size_t(shared)];
      t.tile_phase_bound = shared;
      t.tile_phase_shared = true;
    }
  }
  const bool work = t.front_end_cycles > 0 || t.tile_cycles > 0;
  t.latency_cycles = work ? double(hw.memory_latency_clocks) : 0.0;
  t.frame_cycles = t.front_end_cycles + t.tile_cycles + t.latency_cycles;
  t.frame_ms = t.frame_cycles / (hw.clock_mhz * 1000.0);
  return t;
}

void publish(Stats& s, const HardwareConfig& hw, const FrameTiming& t) {
  s.set("timing.hardware", std::string(choice_name(hw.preset)));
  s.set("timing.clock_mhz", hw.clock_mhz);
  s.set("timing.frame.cycles", t.frame_cycles);
  s.set("timing.frame.ms", t.frame_ms);
  s.set("timing.front_end.cycles", t.front_end_cycles);
  s.set("timing.front_end.bottleneck", std::string(unit_key(t.front_end_bottleneck)));
  s.set("timing.tiles.cycles", t.tile_cycles);
  s.set("timing.tiles.count", uint64_t(t.tile_time.size()));
  s.set("timing.latency.cycles", t.latency_cycles);
  s.set("timing.tiles.schedule_cycles", t.schedule_cycles);
  // Utilisation: the front-end units, the EUs and memory over the frame; the per-slice units
  // over every slice's frame.
  Unit top = kFirstTileUnit;
  for (int u = 0; u < kUnitCount; ++u) {
    const std::string key = std::string("timing.unit.") + unit_key(Unit(u));
    const bool per_slice = Unit(u) == Unit::raster || Unit(u) == Unit::texture || Unit(u) == Unit::rop;
    const double capacity = t.frame_cycles * (per_slice ? double(hw.raster_slices) : 1.0);
    s.set(key + ".cycles", t.unit_cycles[size_t(u)]);
    s.set(key + ".utilization", capacity > 0 ? t.unit_cycles[size_t(u)] / capacity : 0.0);
    if (u >= int(kFirstTileUnit)) {
      s.set(std::string("timing.bottleneck.") + unit_key(Unit(u)), t.bottleneck_tiles[size_t(u)]);
      if (t.bottleneck_tiles[size_t(u)] > t.bottleneck_tiles[size_t(top)]) top = Unit(u);
    }
  }
  // The frame's limiter: the front end when it takes longer than the tiles, else a shared unit
  // whose total work outlasts the schedule, else the unit limiting the most tiles.
  const Unit limiter = t.front_end_cycles > t.tile_cycles ? t.front_end_bottleneck
                       : t.tile_phase_shared              ? t.tile_phase_bound
                                                          : top;
  s.set("timing.bottleneck.frame", std::string(t.frame_cycles > 0 ? unit_key(limiter) : "none"));
}

}  // namespace tessera::timing
