// What a parameter-buffer-free, two-pass vertex-shading tiler does with one frame's binned
// primitives under a given partition of the screen into render tiles (adaptive-tiling spec,
// "Frame flow"), and what a parameter-buffer design does with the same tiles.
//
// Pass 1 shades positions only, once per vertex of every draw. Pass 2 runs, per render tile,
// the full vertex shader once for each distinct vertex of the primitives touching that tile
// (the ideal post-transform reuse within a tile's walk); a vertex whose primitives land in k
// tiles is shaded k times, k - 1 of them redundant. The functional pipeline evaluates the
// vertex shader once per vertex: it is a pure function of the vertex, so every pass-2
// invocation would return the same result, and only the counts differ between designs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/uninitialized.h"
#include "tiling/fixed_tiling.h"

namespace tessera {

// Frame-wide inputs, shared by every partition evaluated on the frame.
struct TilingFrame {
  const std::vector<BinChunk>* bins = nullptr;  // per chunk: CSR lists over `grid`
  // Per chunk, per set-up triangle: the source primitive (frame order); triangles clipped into
  // several pieces share it, and (as the primitive stage emits them) every piece of a
  // primitive is in the same chunk. Per primitive: its three vertices (frame-wide vertex ids).
  const std::vector<std::vector<uint32_t>>* setup_primitive = nullptr;
  const std::vector<uint32_t>* primitive_vertices = nullptr;
  TileGrid grid;                  // the grid the bins were built on
  uint64_t primitives = 0;        // primitives in the frame (source ids are below this)
  uint64_t vertices = 0;          // vertices of all draws (pass-1 invocations)
  uint32_t position_bytes = 12;   // pass-1 fetch per vertex
  uint32_t vertex_bytes = 32;     // S: pass-2 fetch per invocation
  uint32_t vs_output_bytes = 48;  // what a parameter buffer stores per shaded vertex
  int samples = 1;
  int pixel_bytes = 8;  // colour + depth per sample in the tile buffer
};

// A partition of the bin grid's tiles into render tiles: owner[tile] in [0, count).
struct TilePartition {
  std::string name;  // "fixed_64", "adaptive", ...
  std::vector<uint32_t> owner;
  uint32_t count = 0;
  uint64_t tile_buffer_budget = 0;  // bytes; a render tile above it does not fit on chip
};

struct TilingWork {
  uint64_t render_tiles = 0;
  uint64_t crossings = 0;              // (source primitive, render tile) pairs
  uint64_t pass1_invocations = 0;      // positions only, one per vertex
  uint64_t pass2_invocations = 0;      // full shader, per render tile per distinct vertex
  uint64_t binned_vertices = 0;        // distinct vertices of primitives that reach some tile
  uint64_t redundant_invocations = 0;  // pass2 - binned_vertices
  double redundant_percent = 0;        // of binned_vertices
  uint64_t vertex_fetch_bytes = 0;     // pass1 * position_bytes + pass2 * vertex_bytes
  uint64_t tile_buffer_stores = 0;     // render tiles stored once their draws are done
  uint64_t tile_buffer_store_bytes = 0;
  uint64_t tile_buffer_loads = 0;  // the frame starts cleared: nothing is loaded
  uint64_t tile_buffer_load_bytes = 0;
  uint64_t largest_tile_bytes = 0;  // largest render tile's colour + depth, all samples
  bool within_budget = true;
  // Parameter-buffer design on the same tiles: every binned vertex shaded once and written
  // with each tile's primitive list; each tile reads its list and its vertices back.
  uint64_t parameter_buffer_written_bytes = 0;
  uint64_t parameter_buffer_read_bytes = 0;
};

// Which tiles of the frame's bin grid each primitive and each vertex reaches, built once per
// frame and shared by every partition accounted on it. A primitive or vertex that reaches a
// single tile lands in a single render tile under any partition, so it is only counted;
// those reaching several keep their distinct tiles (ascending), which a partition maps to
// render tiles. Far less memory is touched per partition than walking every bin.
//
// With a coarse grid (fixed tiling's render grid, whose tiles are each k x k tiles of the
// incidence's grid, and lists of the same set-up triangles over it from which the fine lists
// were refined), the incidence also serves partitions of the coarse grid: a coarse tile that
// lists a primitive none of whose fine tiles lies inside it (the coarse tile test passed, the
// fine ones did not) is kept as tile id `tiles + coarse tile`, which fine partitions ignore.
struct TileIncidence {
  // The lists it was built from: a partition is accounted on it for frames with these lists.
  const std::vector<BinChunk>* bins = nullptr;
  const std::vector<BinChunk>* coarse_bins = nullptr;
  TileGrid grid;
  uint32_t tiles = 0;  // of `grid`
  std::optional<TileGrid> coarse;
  uint64_t single_primitives = 0;  // primitives reaching exactly one tile (of `grid`)
  uint64_t single_vertices = 0;    // vertices whose primitives all reach the same one tile
  uint64_t binned_vertices = 0;    // distinct vertices of primitives reaching a tile of `grid`
  // Coarse grid only: primitives and vertices reaching no fine tile and one coarse tile, and
  // the vertices of primitives listed on the coarse grid.
  uint64_t coarse_only_primitives = 0, coarse_only_vertices = 0, coarse_binned_vertices = 0;
  // CSR over the primitives (then the vertices) reaching two tile ids or more. Sized without
  // a fill: the blocked passes that build them write every entry.
  UninitializedVector<uint32_t> primitive_offsets{0}, primitive_tiles;
  UninitializedVector<uint32_t> vertex_offsets{0}, vertex_tiles;
};

// Parallel over chunks; the result does not depend on the thread count. `coarse_bins` (per
// chunk, over `coarse`, whose tile size is a multiple of the frame grid's) is optional.
TileIncidence tile_incidence(const TilingFrame& frame, const std::vector<BinChunk>* coarse_bins = nullptr,
                             const TileGrid& coarse = {});

// Counts what two-pass shading and the parameter buffer do under `partition` of
// `frame.grid`'s tiles, from the frame's incidence (when `frame.bins` are the incidence's
// lists or its coarse lists; other lists get an incidence of their own). The result does not depend on the thread count.
TilingWork account_tiling(const TilingFrame& frame, const TileIncidence& incidence, const TilePartition& partition);
// The same, building the incidence for this one partition.
TilingWork account_tiling(const TilingFrame& frame, const TilePartition& partition);

// Square render tiles of `side` bin-grid tiles each.
TilePartition square_partition(const TileGrid& grid, int side, std::string name, uint64_t budget);

}  // namespace tessera
