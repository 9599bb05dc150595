#include "tiling/tiling_accounting.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <tuple>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "core/uninitialized.h"

namespace tessera {

namespace {

constexpr uint32_t kNone = UINT32_MAX;
// Vertices (or multi-tile vertices) per block of the incidence's blocked passes: fixed, so
// what a block counts does not depend on the thread count.
constexpr size_t kBlock = size_t(1) << 14;

// v[i] += v[i - 1] for every i >= 1 (running sums in place; v[0] is the base), in fixed
// blocks: their totals, the totals' running sums, then each block's own.
template <typename Vector>
void prefix_sums(Vector& v) {
  const size_t blocks = (v.size() + kBlock - 1) / kBlock;
  if (blocks <= 1) {
    for (size_t i = 1; i < v.size(); ++i) v[i] += v[i - 1];
    return;
  }
  std::vector<uint32_t> carry(blocks, 0);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, blocks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t b = r.begin(); b < r.end(); ++b) {
      for (size_t i = b * kBlock + 1, e = std::min(v.size(), (b + 1) * kBlock); i < e; ++i) v[i] += v[i - 1];
    }
  });
  for (size_t b = 1; b < blocks; ++b) carry[b] = carry[b - 1] + v[b * kBlock - 1];
  tbb::parallel_for(tbb::blocked_range<size_t>(1, blocks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t b = r.begin(); b < r.end(); ++b) {
      for (size_t i = b * kBlock, e = std::min(v.size(), (b + 1) * kBlock); i < e; ++i) v[i] += carry[b];
    }
  });
}

struct TileCounts {
  uint64_t pixels = 0;
  uint64_t bin_tiles = 0;
};

// One chunk's primitives that reach some tile, each with its distinct tiles (ascending).
struct ChunkReach {
  std::vector<uint32_t> primitive;
  std::vector<uint32_t> offsets{0};
  std::vector<uint32_t> tiles;
};

// A chunk's lists transposed: set-up triangle -> its tiles, ascending (tiles walked in order).
void transpose(const BinChunk& b, size_t setups, std::vector<uint32_t>& offsets, std::vector<uint32_t>& tiles) {
  offsets.assign(setups + 1, 0);
  tiles.resize(b.entries.size());
  for (uint32_t s : b.entries) ++offsets[size_t(s) + 1];
  for (size_t i = 0; i < setups; ++i) offsets[i + 1] += offsets[i];
  std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  const size_t tile_count = b.offsets.empty() ? 0 : b.offsets.size() - 1;
  for (size_t t = 0; t < tile_count; ++t) {
    for (uint32_t e = b.offsets[t]; e < b.offsets[t + 1]; ++e) tiles[cursor[b.entries[e]]++] = uint32_t(t);
  }
}

// The coarse grid of a unified incidence: its tile holding fine tile f.
uint32_t coarse_tile(uint32_t f, int fine_x, int coarse_x, int ratio) {
  return uint32_t((int(f) / fine_x / ratio) * coarse_x + (int(f) % fine_x) / ratio);
}
struct Nesting {
  std::vector<uint32_t> parent_of;  // per fine tile, tabulated (no divisions per lookup)
  uint32_t parent(uint32_t f) const { return parent_of[f]; }
};

// Fills `reach` from the chunk's tile lists, the pieces of a clipped primitive merged. With
// `coarse` lists, a coarse tile listing the primitive without any of its fine tiles inside
// is added as id fine_tiles + coarse tile. Marks in `first`/`several` every vertex's first
// tile and whether it reaches another: the outcome of those marks does not depend on the
// order in which chunks run (a vertex ends `several` exactly when its primitives reach two
// distinct tiles).
void reach_of_chunk(const BinChunk& b, const BinChunk* coarse, const Nesting& nest, uint32_t fine_tiles,
                    const std::vector<uint32_t>& source, const std::vector<uint32_t>& verts, uint32_t* first,
                    uint8_t* several, ChunkReach& reach) {
  const size_t n = source.size();
  // Per set-up triangle its tiles: kept by binning (BinLists::by_setup), else transposed here.
  std::vector<uint32_t> own_offsets, own_tiles, own_coarse_offsets, own_coarse_tiles;
  using Lists = std::pair<const uint32_t*, const uint32_t*>;
  auto by_setup = [&](const BinChunk& lists, std::vector<uint32_t>& own_o, std::vector<uint32_t>& own_t) -> Lists {
    if (lists.setup_offsets.size() == n + 1) return {lists.setup_offsets.data(), lists.setup_tiles.data()};
    transpose(lists, n, own_o, own_t);
    return {own_o.data(), own_t.data()};
  };
  const auto [offsets, tiles] = by_setup(b, own_offsets, own_tiles);
  const uint32_t* coarse_offsets = nullptr;
  const uint32_t* coarse_tiles = nullptr;
  if (coarse) std::tie(coarse_offsets, coarse_tiles) = by_setup(*coarse, own_coarse_offsets, own_coarse_tiles);
  // Set-up triangles in source order (already so from the primitive stage), pieces adjacent.
  std::vector<uint32_t> order;
  if (!std::is_sorted(source.begin(), source.end())) {
    order.resize(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t c) { return source[a] < source[c]; });
  }
  auto setup_at = [&](size_t i) { return order.empty() ? uint32_t(i) : order[i]; };
  std::vector<uint32_t> merged, coarse_merged, parent_mark;
  uint32_t parent_epoch = 0;
  if (coarse) parent_mark.assign(coarse->offsets.empty() ? 0 : coarse->offsets.size() - 1, 0);
  // The distinct tiles of set-up triangles [i, end) (one primitive's pieces) in `lists`.
  auto union_of = [&](size_t i, size_t end, const uint32_t* lo, const uint32_t* lt, std::vector<uint32_t>& buffer,
                      const uint32_t*& list, size_t& count) {
    const uint32_t s = setup_at(i);
    list = lt + lo[s];
    count = lo[size_t(s) + 1] - lo[s];
    if (end == i + 1) return;
    buffer.clear();
    for (size_t k = i; k < end; ++k) {
      const uint32_t piece = setup_at(k);
      buffer.insert(buffer.end(), lt + lo[piece], lt + lo[size_t(piece) + 1]);
    }
    std::sort(buffer.begin(), buffer.end());
    buffer.erase(std::unique(buffer.begin(), buffer.end()), buffer.end());
    list = buffer.data();
    count = buffer.size();
  };
  reach.tiles.reserve(offsets[n]);
  reach.primitive.reserve(n);
  reach.offsets.reserve(n + 1);
  for (size_t i = 0; i < n;) {
    const uint32_t p = source[setup_at(i)];
    size_t end = i + 1;
    while (end < n && source[setup_at(end)] == p) ++end;
    const uint32_t* list;
    size_t count;
    union_of(i, end, offsets, tiles, merged, list, count);
    const size_t start = reach.tiles.size();
    reach.tiles.insert(reach.tiles.end(), list, list + count);
    if (coarse) {
      const uint32_t* clist;
      size_t ccount;
      union_of(i, end, coarse_offsets, coarse_tiles, coarse_merged, clist, ccount);
      if (!(count == 1 && ccount == 1 && nest.parent(list[0]) == clist[0])) {
        ++parent_epoch;
        for (size_t k = 0; k < count; ++k) parent_mark[nest.parent(list[k])] = parent_epoch;
        for (size_t k = 0; k < ccount; ++k) {
          if (parent_mark[clist[k]] != parent_epoch) reach.tiles.push_back(fine_tiles + clist[k]);
        }
      }
    }
    i = end;
    count = reach.tiles.size() - start;
    if (count == 0) continue;
    list = reach.tiles.data() + start;
    reach.primitive.push_back(p);
    reach.offsets.push_back(uint32_t(reach.tiles.size()));
    for (int v = 0; v < 3; ++v) {
      const uint32_t vertex = verts[size_t(p) * 3 + size_t(v)];
      std::atomic_ref<uint8_t> more(several[vertex]);
      if (count > 1) {
        more.store(1, std::memory_order_relaxed);
        continue;
      }
      if (more.load(std::memory_order_relaxed)) continue;
      std::atomic_ref<uint32_t> seen_at(first[vertex]);
      uint32_t seen = seen_at.load(std::memory_order_relaxed);
      if (seen == kNone && seen_at.compare_exchange_strong(seen, list[0], std::memory_order_relaxed)) continue;
      if (seen != list[0]) more.store(1, std::memory_order_relaxed);
    }
  }
}

// Sum over the lists of the distinct render tiles their tiles map to (kNone: not counted).
uint64_t distinct_owners(const UninitializedVector<uint32_t>& offsets, const UninitializedVector<uint32_t>& tiles,
                         const std::vector<uint32_t>& owner, uint32_t render_tiles) {
  const size_t lists = offsets.size() - 1;
  if (lists == 0) return 0;
  struct Marks {
    std::vector<uint32_t> at;  // per render tile: the last list (epoch) that counted it
    uint32_t epoch = 0;
  };
  tbb::enumerable_thread_specific<Marks> marks([&] { return Marks{std::vector<uint32_t>(render_tiles, 0), 0}; });
  return tbb::parallel_reduce(
      tbb::blocked_range<size_t>(0, lists, 1024), uint64_t(0),
      [&](const tbb::blocked_range<size_t>& r, uint64_t sum) {
        Marks& m = marks.local();
        for (size_t i = r.begin(); i < r.end(); ++i) {
          const uint32_t epoch = ++m.epoch;
          for (uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
            const uint32_t o = owner[tiles[k]];
            if (o == kNone) continue;
            uint32_t& at = m.at[o];
            sum += at != epoch;
            at = epoch;
          }
        }
        return sum;
      },
      std::plus<uint64_t>());
}

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

TileIncidence tile_incidence(const TilingFrame& f, const std::vector<BinChunk>* coarse_bins, const TileGrid& coarse) {
  const std::vector<BinChunk>& bins = *f.bins;
  const std::vector<uint32_t>& verts = *f.primitive_vertices;
  const size_t chunks = bins.size();
  // Coarse tiles must be whole fine tiles; other lists get an incidence of their own.
  if (coarse_bins && (coarse.tile_size < f.grid.tile_size || coarse.tile_size % f.grid.tile_size != 0 ||
                      coarse_bins->size() != bins.size())) {
    coarse_bins = nullptr;
  }
  TileIncidence inc;
  inc.grid = f.grid;
  inc.bins = f.bins;
  inc.coarse_bins = coarse_bins;
  inc.tiles = uint32_t(f.grid.tile_count());
  if (coarse_bins) inc.coarse = coarse;
  Nesting nest;
  if (coarse_bins) {
    nest.parent_of.resize(inc.tiles);
    for (uint32_t t = 0; t < inc.tiles; ++t) {
      nest.parent_of[t] = coarse_tile(t, f.grid.tiles_x, coarse.tiles_x, coarse.tile_size / f.grid.tile_size);
    }
  }
  std::vector<ChunkReach> reach(chunks);
  // Per vertex, filled in blocks in parallel (a frame has some 10^5-10^6 vertices).
  UninitializedVector<uint32_t> first(size_t(f.vertices));
  UninitializedVector<uint8_t> several(size_t(f.vertices));
  tbb::parallel_for(tbb::blocked_range<size_t>(0, first.size(), kBlock), [&](const tbb::blocked_range<size_t>& r) {
    std::fill(first.begin() + std::ptrdiff_t(r.begin()), first.begin() + std::ptrdiff_t(r.end()), kNone);
    std::fill(several.begin() + std::ptrdiff_t(r.begin()), several.begin() + std::ptrdiff_t(r.end()), uint8_t(0));
  });
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t c = r.begin(); c < r.end(); ++c) {
      reach_of_chunk(bins[c], coarse_bins ? &(*coarse_bins)[c] : nullptr, nest, inc.tiles, (*f.setup_primitive)[c],
                     verts, first.data(), several.data(), reach[c]);
    }
  });

  // Vertices reaching several tiles are numbered in vertex order; `first` now holds their number.
  // In fixed blocks of vertices: each block's counts, their running sums (block order), then
  // each block numbers its own; the numbers and counts do not depend on the thread count.
  const size_t vertex_blocks = (first.size() + kBlock - 1) / kBlock;
  struct VertexBlock {
    uint32_t multi = 0;
    uint64_t single = 0, coarse_only = 0;
  };
  std::vector<VertexBlock> vb(vertex_blocks);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, vertex_blocks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t b = r.begin(); b < r.end(); ++b) {
      VertexBlock& c = vb[b];
      for (size_t v = b * kBlock, e = std::min(first.size(), v + kBlock); v < e; ++v) {
        if (several[v]) {
          ++c.multi;
        } else if (first[v] != kNone) {
          ++(first[v] < inc.tiles ? c.single : c.coarse_only);
        }
      }
    }
  });
  std::vector<uint32_t> multi_base(vertex_blocks + 1, 0);
  for (size_t b = 0; b < vertex_blocks; ++b) {
    multi_base[b + 1] = multi_base[b] + vb[b].multi;
    inc.single_vertices += vb[b].single;
    inc.coarse_only_vertices += vb[b].coarse_only;
  }
  const uint32_t multi = multi_base[vertex_blocks];
  tbb::parallel_for(tbb::blocked_range<size_t>(0, vertex_blocks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t b = r.begin(); b < r.end(); ++b) {
      uint32_t m = multi_base[b];
      for (size_t v = b * kBlock, e = std::min(first.size(), v + kBlock); v < e; ++v) {
        if (several[v]) first[v] = m++;
      }
    }
  });

  // Their tiles: every tile of every primitive using them, then sorted and made distinct.
  UninitializedVector<uint32_t> count(size_t(multi) + 1);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, count.size(), kBlock), [&](const tbb::blocked_range<size_t>& r) {
    std::fill(count.begin() + std::ptrdiff_t(r.begin()), count.begin() + std::ptrdiff_t(r.end()), 0u);
  });
  auto for_each_multi_vertex = [&](auto&& visit) {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t c = r.begin(); c < r.end(); ++c) {
        const ChunkReach& cr = reach[c];
        for (size_t i = 0; i < cr.primitive.size(); ++i) {
          for (int v = 0; v < 3; ++v) {
            const uint32_t vertex = verts[size_t(cr.primitive[i]) * 3 + size_t(v)];
            if (several[vertex])
              visit(first[vertex], cr.tiles.data() + cr.offsets[i], cr.offsets[i + 1] - cr.offsets[i]);
          }
        }
      }
    });
  };
  for_each_multi_vertex([&](uint32_t m, const uint32_t*, uint32_t n) {
    std::atomic_ref<uint32_t>(count[size_t(m) + 1]).fetch_add(n, std::memory_order_relaxed);
  });
  prefix_sums(count);
  UninitializedVector<uint32_t> gathered(count[multi]);  // every entry written below
  {
    UninitializedVector<uint32_t> cursor(count.begin(), count.end() - 1);
    for_each_multi_vertex([&](uint32_t m, const uint32_t* list, uint32_t n) {
      const uint32_t at = std::atomic_ref<uint32_t>(cursor[m]).fetch_add(n, std::memory_order_relaxed);
      std::copy(list, list + n, gathered.begin() + at);
    });
  }
  // Per vertex its distinct tiles, then (in place) their running sums: the CSR offsets.
  inc.vertex_offsets.resize(size_t(multi) + 1);
  inc.vertex_offsets[0] = 0;
  const size_t multi_blocks = (size_t(multi) + kBlock - 1) / kBlock;
  std::vector<uint64_t> on_fine(multi_blocks, 0);  // per block: lists ascending, a fine tile (if any) first
  tbb::parallel_for(tbb::blocked_range<size_t>(0, multi_blocks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t b = r.begin(); b < r.end(); ++b) {
      for (size_t m = b * kBlock, e = std::min(size_t(multi), m + kBlock); m < e; ++m) {
        auto first_tile = gathered.begin() + count[m], last_tile = gathered.begin() + count[m + 1];
        std::sort(first_tile, last_tile);
        inc.vertex_offsets[m + 1] = uint32_t(std::unique(first_tile, last_tile) - first_tile);
        on_fine[b] += gathered[count[m]] < inc.tiles;
      }
    }
  });
  prefix_sums(inc.vertex_offsets);
  uint64_t multi_on_fine = 0;
  for (uint64_t n : on_fine) multi_on_fine += n;
  inc.binned_vertices = inc.single_vertices + multi_on_fine;
  inc.coarse_binned_vertices = inc.single_vertices + inc.coarse_only_vertices + multi;
  inc.vertex_tiles.resize(inc.vertex_offsets[multi]);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, multi, 1024), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t m = r.begin(); m < r.end(); ++m) {
      std::copy_n(gathered.begin() + count[m], inc.vertex_offsets[m + 1] - inc.vertex_offsets[m],
                  inc.vertex_tiles.begin() + inc.vertex_offsets[m]);
    }
  });

  // The primitives reaching several tile ids, chunk after chunk: each chunk's counts, their
  // running sums, then each chunk copies its lists to its place.
  struct ChunkCounts {
    uint64_t single = 0, coarse_only = 0;
    uint32_t lists = 0, tiles = 0;
  };
  std::vector<ChunkCounts> cc(chunks + 1);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t c = r.begin(); c < r.end(); ++c) {
      const ChunkReach& cr = reach[c];
      ChunkCounts& n = cc[c + 1];
      for (size_t i = 0; i < cr.primitive.size(); ++i) {
        const uint32_t k = cr.offsets[i + 1] - cr.offsets[i];
        if (k == 1) {
          ++(cr.tiles[cr.offsets[i]] < inc.tiles ? n.single : n.coarse_only);
        } else {
          ++n.lists;
          n.tiles += k;
        }
      }
    }
  });
  for (size_t c = 0; c < chunks; ++c) {
    inc.single_primitives += cc[c + 1].single;
    inc.coarse_only_primitives += cc[c + 1].coarse_only;
    cc[c + 1].lists += cc[c].lists;
    cc[c + 1].tiles += cc[c].tiles;
  }
  inc.primitive_offsets.resize(size_t(cc[chunks].lists) + 1);
  inc.primitive_offsets[0] = 0;
  inc.primitive_tiles.resize(cc[chunks].tiles);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t c = r.begin(); c < r.end(); ++c) {
      const ChunkReach& cr = reach[c];
      size_t list = cc[c].lists;
      uint32_t at = cc[c].tiles;
      for (size_t i = 0; i < cr.primitive.size(); ++i) {
        const uint32_t k = cr.offsets[i + 1] - cr.offsets[i];
        if (k == 1) continue;
        std::copy_n(cr.tiles.begin() + cr.offsets[i], k, inc.primitive_tiles.begin() + at);
        at += k;
        inc.primitive_offsets[++list] = at;
      }
    }
  });
  return inc;
}

TilingWork account_tiling(const TilingFrame& f, const TilePartition& partition) {
  return account_tiling(f, tile_incidence(f), partition);
}

TilingWork account_tiling(const TilingFrame& f, const TileIncidence& inc, const TilePartition& partition) {
  const TileGrid& g = f.grid;
  // The partition over the incidence's tile ids: on its own grid the coarse-only ids count in
  // no render tile; on its coarse grid a fine tile counts in the one holding it.
  const bool on_fine = f.bins == inc.bins && g.tile_size == inc.grid.tile_size && partition.owner.size() == inc.tiles;
  const bool on_coarse = !on_fine && inc.coarse && f.bins == inc.coarse_bins && g.tile_size == inc.coarse->tile_size &&
                         partition.owner.size() == size_t(inc.coarse->tile_count());
  if (!on_fine && !on_coarse) return account_tiling(f, partition);
  std::vector<uint32_t> owner(size_t(inc.tiles) + (inc.coarse ? size_t(inc.coarse->tile_count()) : 0), kNone);
  if (on_fine) {
    std::copy(partition.owner.begin(), partition.owner.end(), owner.begin());
  } else {
    const int ratio = inc.coarse->tile_size / inc.grid.tile_size;
    for (uint32_t t = 0; t < inc.tiles; ++t) {
      owner[t] = partition.owner[coarse_tile(t, inc.grid.tiles_x, inc.coarse->tiles_x, ratio)];
    }
    std::copy(partition.owner.begin(), partition.owner.end(), owner.begin() + inc.tiles);
  }

  std::vector<TileCounts> counts(partition.count);
  for (uint32_t tile = 0; tile < partition.owner.size(); ++tile) {
    TileCounts& c = counts[partition.owner[tile]];
    const int x0 = int(tile % uint32_t(g.tiles_x)) * g.tile_size, y0 = int(tile / uint32_t(g.tiles_x)) * g.tile_size;
    c.pixels += uint64_t(std::min(g.tile_size, g.width - x0)) * uint64_t(std::min(g.tile_size, g.height - y0));
    ++c.bin_tiles;
  }

  TilingWork w;
  w.render_tiles = partition.count;
  w.pass1_invocations = f.vertices;
  w.binned_vertices = on_fine ? inc.binned_vertices : inc.coarse_binned_vertices;
  w.crossings = inc.single_primitives + (on_fine ? 0 : inc.coarse_only_primitives) +
                distinct_owners(inc.primitive_offsets, inc.primitive_tiles, owner, partition.count);
  w.pass2_invocations = inc.single_vertices + (on_fine ? 0 : inc.coarse_only_vertices) +
                        distinct_owners(inc.vertex_offsets, inc.vertex_tiles, owner, partition.count);
  const uint64_t sample_bytes = uint64_t(f.samples) * uint64_t(f.pixel_bytes);
  const uint64_t bin_tile_bytes = uint64_t(g.tile_size) * uint64_t(g.tile_size) * sample_bytes;
  for (const TileCounts& c : counts) {
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
