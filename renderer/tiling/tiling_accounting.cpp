#include "tiling/tiling_accounting.h"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

namespace tessera {

namespace {

// Per-thread "last render tile that saw this id" marks: an id counts once per render tile
// without sorting or clearing between tiles.
struct Marks {
  std::vector<uint32_t> primitive;
  std::vector<uint32_t> vertex;
};

struct TileCounts {
  uint64_t crossings = 0;
  uint64_t invocations = 0;
  uint64_t pixels = 0;
  uint64_t bin_tiles = 0;
};

}  // namespace

TilePartition square_partition(const TileGrid& grid, int side, std::string name, uint64_t budget) {
  TilePartition p;
  p.name = std::move(name);
  p.tile_buffer_budget = budget;
  const int per_row = (grid.tiles_x + side - 1) / side;
  const int rows = (grid.tiles_y + side - 1) / side;
  p.count = uint32_t(per_row * rows);
  p.owner.resize(size_t(grid.tile_count()));
  for (int y = 0; y < grid.tiles_y; ++y) {
    for (int x = 0; x < grid.tiles_x; ++x)
      p.owner[size_t(y * grid.tiles_x + x)] = uint32_t((y / side) * per_row + x / side);
  }
  return p;
}

TilingWork account_tiling(const TilingFrame& f, const TilePartition& partition) {
  const TileGrid& g = f.grid;
  const std::vector<BinChunk>& bins = *f.bins;
  // Render tile -> its bin-grid tiles (CSR), in tile id order.
  std::vector<uint32_t> offsets(size_t(partition.count) + 1, 0);
  for (uint32_t o : partition.owner) ++offsets[size_t(o) + 1];
  for (size_t i = 0; i < partition.count; ++i) offsets[i + 1] += offsets[i];
  std::vector<uint32_t> members(partition.owner.size());
  {
    std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
    for (uint32_t t = 0; t < partition.owner.size(); ++t) members[cursor[partition.owner[t]]++] = t;
  }

  std::vector<TileCounts> counts(partition.count);
  tbb::enumerable_thread_specific<Marks> marks([&] {
    return Marks{std::vector<uint32_t>(size_t(f.primitives), UINT32_MAX),
                 std::vector<uint32_t>(size_t(f.vertices), UINT32_MAX)};
  });
  const std::vector<uint32_t>& verts = *f.primitive_vertices;
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, partition.count, 4), [&](const tbb::blocked_range<uint32_t>& r) {
    Marks& m = marks.local();
    for (uint32_t rt = r.begin(); rt < r.end(); ++rt) {
      TileCounts& c = counts[rt];
      for (uint32_t k = offsets[rt]; k < offsets[rt + 1]; ++k) {
        const uint32_t tile = members[k];
        const int x0 = int(tile % uint32_t(g.tiles_x)) * g.tile_size,
                  y0 = int(tile / uint32_t(g.tiles_x)) * g.tile_size;
        c.pixels += uint64_t(std::min(g.tile_size, g.width - x0)) * uint64_t(std::min(g.tile_size, g.height - y0));
        ++c.bin_tiles;
        for (size_t ch = 0; ch < bins.size(); ++ch) {
          const BinChunk& chunk = bins[ch];
          const std::vector<uint32_t>& prim = (*f.setup_primitive)[ch];
          for (uint32_t e = chunk.offsets[tile]; e < chunk.offsets[size_t(tile) + 1]; ++e) {
            const uint32_t s = chunk.entries[e];
            uint32_t& pm = m.primitive[prim[s]];
            if (pm == rt) continue;  // another piece of the same clipped primitive, or seen in a sibling tile
            pm = rt;
            ++c.crossings;
            for (int v = 0; v < 3; ++v) {
              uint32_t& vm = m.vertex[verts[size_t(prim[s]) * 3 + size_t(v)]];
              if (vm != rt) {
                vm = rt;
                ++c.invocations;
              }
            }
          }
        }
      }
    }
  });

  // Distinct vertices of every primitive that reached at least one tile.
  std::vector<uint8_t> binned(size_t(f.vertices), 0);
  for (size_t ch = 0; ch < bins.size(); ++ch) {
    const BinChunk& chunk = bins[ch];
    std::vector<uint8_t> reached((*f.setup_primitive)[ch].size(), 0);
    for (uint32_t s : chunk.entries) reached[s] = 1;
    for (size_t s = 0; s < reached.size(); ++s) {
      if (!reached[s]) continue;
      for (int v = 0; v < 3; ++v) binned[verts[size_t((*f.setup_primitive)[ch][s]) * 3 + size_t(v)]] = 1;
    }
  }

  TilingWork w;
  w.render_tiles = partition.count;
  w.pass1_invocations = f.vertices;
  for (uint8_t b : binned) w.binned_vertices += b;
  const uint64_t sample_bytes = uint64_t(f.samples) * uint64_t(f.pixel_bytes);
  const uint64_t bin_tile_bytes = uint64_t(g.tile_size) * uint64_t(g.tile_size) * sample_bytes;
  for (const TileCounts& c : counts) {
    w.crossings += c.crossings;
    w.pass2_invocations += c.invocations;
    if (c.bin_tiles) ++w.tile_buffer_stores;
    w.tile_buffer_store_bytes += c.pixels * sample_bytes;
    w.largest_tile_bytes = std::max(w.largest_tile_bytes, c.bin_tiles * bin_tile_bytes);
  }
  w.redundant_invocations = w.pass2_invocations - std::min(w.pass2_invocations, w.binned_vertices);
  w.redundant_percent = w.binned_vertices ? 100.0 * double(w.redundant_invocations) / double(w.binned_vertices) : 0.0;
  w.vertex_fetch_bytes = w.pass1_invocations * f.position_bytes + w.pass2_invocations * f.vertex_bytes;
  w.within_budget = partition.tile_buffer_budget == 0 || w.largest_tile_bytes <= partition.tile_buffer_budget;
  const uint64_t list_bytes = w.crossings * sizeof(uint32_t);
  w.parameter_buffer_written_bytes = w.binned_vertices * f.vs_output_bytes + list_bytes;
  w.parameter_buffer_read_bytes = w.pass2_invocations * f.vs_output_bytes + list_bytes;
  return w;
}

}  // namespace tessera
