// The timing model (docs/timing.md): every unit's counted work turned into cycles on the
// configured GPU (config hardware.*), and a frame time. An analytical bottleneck model, not a
// cycle simulation: within a tile the units overlap and the slowest sets the tile's time; tiles
// go to the raster slices in tile order, each to the slice that frees first; the EUs and
// memory, shared by the slices, also bound the tile phase by their total work; the front end
// (vertex shading, tessellation, setup, binning) runs before the first tile starts. Latency
// hiding, cache misses beyond the colour cache and queueing between units are left out.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "tessera/config.h"
#include "tessera/stats.h"

namespace tessera::timing {

// The units the model charges: X(name, key). Front-end units first, then per-tile units.
// clang-format off
#define TESSERA_TIMING_UNITS(X)                                                                      \
  X(vertex_shading, "vertex_shading") X(tessellation, "tessellation") X(setup, "setup")             \
  X(binning, "binning") X(front_memory, "front_memory") X(fragment_shading, "fragment_shading")     \
  X(raster, "raster") X(texture, "texture") X(rop, "rop") X(tile_memory, "tile_memory")                \
  X(rt_boxes, "rt_boxes") X(rt_triangles, "rt_triangles")
// clang-format on

enum class Unit : uint8_t {
#define TESSERA_X(name, key) name,
  TESSERA_TIMING_UNITS(TESSERA_X)
#undef TESSERA_X
};
constexpr int kUnitCount = 0
#define TESSERA_X(name, key) +1
    TESSERA_TIMING_UNITS(TESSERA_X)
#undef TESSERA_X
    ;
constexpr Unit kFirstTileUnit = Unit::fragment_shading;
const char* unit_key(Unit unit);

// The front end's work for a frame.
struct FrontEndLoad {
  double vertex_instructions = 0;  // EU instructions of the vertex, hull and domain programs
  double tessellation_cycles = 0;  // the GPP array's modelled makespan (docs/gpp.md)
  uint64_t triangles_set_up = 0;
  uint64_t bin_entries = 0;
  uint64_t memory_bytes = 0;  // vertex, index and parameter-buffer writes
};

// What one render unit (a tile, or a supertile) asked of each unit.
struct TileLoad {
  double fragment_instructions = 0;  // EU lane-instructions of the fragment program, helper lanes included
  uint64_t raster_samples = 0;       // samples tested for coverage and depth
  uint64_t texels = 0;               // texels fetched by the filters
  uint64_t depth_writes = 0;         // depth samples the ROP writes
  uint64_t color_writes = 0;         // colour samples written into the tile buffer / colour cache
  uint64_t memory_bytes = 0;         // the tile's own traffic: parameter read-back, textures, stores
  uint64_t rt_box_tests = 0;         // ray-box tests of the ray-tracing units (8 per wide node)
  uint64_t rt_triangle_tests = 0;    // ray-triangle tests
};

struct FrameTiming {
  std::array<double, kUnitCount> unit_cycles{};  // busy cycles per unit over the frame
  double front_end_cycles = 0;                   // the slowest front-end unit
  Unit front_end_bottleneck = Unit::vertex_shading;
  double schedule_cycles = 0;      // the tile schedule's makespan
  double tile_cycles = 0;          // the tile phase: the schedule, or the EUs' or
                                   // memory's total work where that is longer
  bool tile_phase_shared = false;  // a shared unit's total set the tile phase
  Unit tile_phase_bound = Unit::fragment_shading;
  double latency_cycles = 0;  // memory latency, exposed once
  double frame_cycles = 0;
  double frame_ms = 0;
  std::vector<double> tile_time;                        // per render unit, cycles
  std::vector<Unit> tile_bottleneck;                    // per render unit
  std::array<uint64_t, kUnitCount> bottleneck_tiles{};  // render units limited by each unit
};

// Exactly reproducible: no dependence on threads or order of evaluation beyond tile order.
FrameTiming model_frame(const HardwareConfig& hardware, const FrontEndLoad& front, std::span<const TileLoad> tiles);

// timing.* (docs/stats.md): per unit cycles and utilisation, front end, tiles, frame cycles
// and milliseconds at the clock, the bottleneck histogram and the frame's top bottleneck.
void publish(Stats& stats, const HardwareConfig& hardware, const FrameTiming& timing);

}  // namespace tessera::timing
