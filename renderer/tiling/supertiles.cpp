#include "tiling/supertiles.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <numeric>

namespace tessera {

uint32_t primitive_intersection_cost(double alpha, double beta, uint32_t vertex_bytes, uint32_t shader_length,
                                     uint32_t vertices) {
  const double pic = (alpha * double(vertex_bytes) + beta * double(shader_length)) * double(vertices);
  if (!(pic > 0.0)) return 0;
  return uint32_t(std::min(pic + 0.5, 4294967295.0));
}

void Picb::add_rect(int x0, int y0, int x1, int y1, int atomic_size, uint32_t pic) {
  const int tx0 = std::max(0, x0 / atomic_size), ty0 = std::max(0, y0 / atomic_size);
  const int tx1 = std::min(tiles_x - 1, x1 / atomic_size), ty1 = std::min(tiles_y - 1, y1 / atomic_size);
  for (int y = ty0; y <= ty1; ++y) {
    for (int x = tx0; x <= tx1; ++x) add(x, y, pic);
  }
}

int supertile_capacity(int tile_buffer_bytes, int atomic_size, int samples, int color_bytes, int depth_bytes) {
  const long long per_tile = 1LL * atomic_size * atomic_size * samples * (color_bytes + depth_bytes);
  return int(std::max(1LL, per_tile > 0 ? tile_buffer_bytes / per_tile : 1));
}

namespace {

// The cut cost of an owner map (SupertileTable::cut_cost without the table: the candidates are
// compared before the winner's table is built).
uint64_t cut_cost_of(const Picb& picb, const std::vector<uint32_t>& owner) {
  const int w = picb.tiles_x, h = picb.tiles_y;
  uint64_t sum = 0;
  for (int y = 0; y < h; ++y) {
    const uint32_t* o = owner.data() + size_t(y) * size_t(w);
    const uint16_t* c = picb.cost.data() + size_t(y) * size_t(w);
    for (int x = 0; x + 1 < w; ++x) {
      if (o[x + 1] != o[x]) sum += std::min(c[x], c[x + 1]);
    }
    if (y + 1 == h) continue;
    for (int x = 0; x < w; ++x) {
      if (o[x + size_t(w)] != o[x]) sum += std::min(c[x], c[x + size_t(w)]);
    }
  }
  return sum;
}

}  // namespace

uint64_t SupertileTable::cut_cost(const Picb& picb) const { return cut_cost_of(picb, owner); }

namespace {

// Candidate A's owner map (the table's entries and offsets are built only for the winner).
SupertileTable grow_supertiles(const Picb& picb, int capacity) {
  const int w = picb.tiles_x, h = picb.tiles_y;
  const size_t n = size_t(w) * size_t(h);
  constexpr uint32_t kUnassigned = ~0u;
  SupertileTable stt;
  stt.tiles_x = w;
  stt.tiles_y = h;
  stt.owner.assign(n, kUnassigned);
  capacity = std::max(1, capacity);

  // Seeds in order of cost (highest first), ties by id.
  // Two stable 8-bit radix passes on the inverted cost: the order of a stable sort by cost,
  // highest first, without its comparisons.
  std::vector<uint32_t> order(n), scratch(n);
  std::iota(scratch.begin(), scratch.end(), 0u);
  for (int shift = 0; shift < 16; shift += 8) {
    std::array<uint32_t, 257> start{};
    auto digit = [&](uint32_t id) { return size_t(((0xffffu - picb.cost[id]) >> shift) & 0xffu); };
    for (uint32_t id : scratch) ++start[digit(id) + 1];
    for (size_t d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (uint32_t id : scratch) order[start[digit(id)]++] = id;
    if (shift == 0) std::swap(order, scratch);
  }

  // Candidate key packed into one integer so the heap compares a single word: cost (16 bits),
  // then tiles already inside that it touches (3 bits), then nearness to the seed (16 bits,
  // inverted), then the lowest id (24 bits, inverted). The largest key is taken first.
  auto key = [](uint32_t cost, int inside, int distance, uint32_t id) {
    return (uint64_t(cost) << 43) | (uint64_t(inside) << 40) |
           (uint64_t(0xffffu - uint32_t(std::min(distance, 0xffff))) << 24) | uint64_t(0xffffffu - id);
  };
  auto key_id = [](uint64_t k) { return 0xffffffu - uint32_t(k & 0xffffffu); };
  auto key_inside = [](uint64_t k) { return int((k >> 40) & 7u); };
  std::vector<uint64_t> heap;
  heap.reserve(size_t(capacity) * 8);
  // Owners also on a grid with a one-tile border that belongs to no supertile and is never
  // free, so neighbours are read without bounds checks.
  constexpr uint32_t kBorder = ~0u - 1;
  const size_t pw = size_t(w) + 2;
  std::vector<uint32_t> po(pw * (size_t(h) + 2), kBorder);
  for (int y = 0; y < h; ++y) std::fill_n(po.begin() + std::ptrdiff_t(size_t(y + 1) * pw + 1), w, kUnassigned);
  const std::ptrdiff_t step[4] = {-1, 1, -std::ptrdiff_t(pw), std::ptrdiff_t(pw)};  // left, right, up, down
  size_t seed_cursor = 0;
  for (uint32_t s = 0;; ++s) {
    while (seed_cursor < n && stt.owner[order[seed_cursor]] != kUnassigned) ++seed_cursor;
    if (seed_cursor == n) break;
    const uint32_t seed = order[seed_cursor];
    const int sx = int(seed) % w, sy = int(seed) / w;
    int size = 0;
    auto inside_neighbours = [&](size_t pid) {
      return int(po[pid - 1] == s) + int(po[pid + 1] == s) + int(po[pid - pw] == s) + int(po[pid + pw] == s);
    };
    heap.clear();  // the frontier: a max-heap of candidate keys, storage reused
    auto take = [&](uint32_t id) {
      const int x = int(id) % w, y = int(id) / w;
      const size_t pid = size_t(y + 1) * pw + size_t(x + 1);
      stt.owner[id] = s;
      po[pid] = s;
      ++size;
      const int nx[4] = {x - 1, x + 1, x, x};
      const int ny[4] = {y, y, y - 1, y + 1};
      for (int k = 0; k < 4; ++k) {
        const size_t npid = size_t(std::ptrdiff_t(pid) + step[k]);
        if (po[npid] != kUnassigned) continue;  // taken, or outside the screen
        const uint32_t nid = uint32_t(ny[k] * w + nx[k]);
        // Re-queue with the current count of inside neighbours; stale entries are skipped.
        heap.push_back(key(picb.cost[nid], inside_neighbours(npid), std::abs(nx[k] - sx) + std::abs(ny[k] - sy), nid));
        std::push_heap(heap.begin(), heap.end());
      }
    };
    // A small rectangle first: the seed and, where free, its right, lower and diagonal tiles.
    take(seed);
    const int rect[3][2] = {{1, 0}, {0, 1}, {1, 1}};
    for (const auto& d : rect) {
      const int x = sx + d[0], y = sy + d[1];
      if (size >= capacity || x >= w || y >= h) continue;
      const uint32_t id = uint32_t(y * w + x);
      if (stt.owner[id] == kUnassigned) take(id);
    }
    // Best-first growth from the borders.
    while (size < capacity && !heap.empty()) {
      std::pop_heap(heap.begin(), heap.end());
      const uint64_t c = heap.back();
      heap.pop_back();
      const uint32_t id = key_id(c);
      if (stt.owner[id] != kUnassigned) continue;
      const int x = int(id) % w, y = int(id) / w;
      if (key_inside(c) != inside_neighbours(size_t(y + 1) * pw + size_t(x + 1)))
        continue;  // stale: a fresher entry is queued
      take(id);
    }
  }
  return stt;
}

// Square supertiles of side floor(sqrt(capacity)) atomic tiles: the fixed tiling with the
// same tile-buffer budget.
std::vector<uint32_t> square_owners(int w, int h, int capacity, int shrink) {
  const int side = std::max(1, int(std::sqrt(double(capacity))) - shrink);
  const int per_row = (w + side - 1) / side;
  std::vector<uint32_t> owner(size_t(w) * size_t(h));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) owner[size_t(y * w + x)] = uint32_t((y / side) * per_row + x / side);
  }
  return owner;
}

// Local search on the borders: an atomic tile moves to a neighbouring supertile when that
// lowers the cut cost and the neighbour has room (and its own supertile keeps a tile).
// Row-major sweeps, neighbours in a fixed order: deterministic.
void refine(const Picb& picb, int capacity, std::vector<uint32_t>& owner) {
  const int w = picb.tiles_x, h = picb.tiles_y;
  uint32_t count = 0;
  for (uint32_t o : owner) count = std::max(count, o + 1);
  std::vector<int> size(count, 0);
  for (uint32_t o : owner) ++size[o];
  // Owners and costs on a grid with a one-tile border of no supertile, so the sweep reads the
  // four neighbours without bounds checks (it runs up to 8 times over every tile, twice a frame).
  constexpr uint32_t kOutside = ~0u;  // never a supertile: never `from`, never a target
  const size_t pw = size_t(w) + 2;
  std::vector<uint32_t> po(pw * (size_t(h) + 2), kOutside);
  std::vector<uint32_t> pc(po.size(), 0);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      po[size_t(y + 1) * pw + size_t(x + 1)] = owner[size_t(y * w + x)];
      pc[size_t(y + 1) * pw + size_t(x + 1)] = picb.cost[size_t(y * w + x)];
    }
  }
  // Neighbours in the order left, right, up, down.
  const std::ptrdiff_t step[4] = {-1, 1, -std::ptrdiff_t(pw), std::ptrdiff_t(pw)};
  for (int pass = 0; pass < 8; ++pass) {
    bool moved = false;
    for (int y = 0; y < h; ++y) {
      for (size_t pid = size_t(y + 1) * pw + 1, row_end = pid + size_t(w); pid < row_end; ++pid) {
        const uint32_t from = po[pid];
        const uint32_t c = pc[pid];
        // A tile of cost 0 changes no cut edge (every edge costs min(0, .) = 0), and one whose
        // neighbours all share its supertile has nowhere to go: neither can move.
        if (c == 0) continue;
        uint32_t nb[4];
        for (int d = 0; d < 4; ++d) nb[d] = po[size_t(std::ptrdiff_t(pid) + step[d])];
        if (nb[0] == from && nb[1] == from && nb[2] == from && nb[3] == from) continue;
        if (size[from] <= 1) continue;
        int64_t edge[4];
        for (int e = 0; e < 4; ++e) edge[e] = std::min(c, pc[size_t(std::ptrdiff_t(pid) + step[e])]);
        int64_t best_delta = 0;
        uint32_t best_to = from;
        for (int d = 0; d < 4; ++d) {
          const uint32_t to = nb[d];
          if (to == from || to == kOutside || size[to] >= capacity) continue;
          // Moving: edges to `from` become cut, edges to `to` stop being cut.
          int64_t delta = 0;
          for (int e = 0; e < 4; ++e) {
            if (nb[e] == from) delta += edge[e];
            if (nb[e] == to) delta -= edge[e];
          }
          if (delta < best_delta) {
            best_delta = delta;
            best_to = to;
          }
        }
        if (best_to != from) {
          po[pid] = best_to;
          --size[from];
          ++size[best_to];
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) owner[size_t(y * w + x)] = po[size_t(y + 1) * pw + size_t(x + 1)];
  }
}

SupertileTable table_from_owners(int w, int h, const std::vector<uint32_t>& owner) {
  SupertileTable stt;
  stt.tiles_x = w;
  stt.tiles_y = h;
  uint32_t count = 0;
  for (uint32_t o : owner) count = std::max(count, o + 1);
  // Renumber in order of first appearance in the old numbering, dropping empty supertiles.
  std::vector<uint32_t> size(count, 0);
  for (uint32_t o : owner) ++size[o];
  std::vector<uint32_t> renumber(count, 0);
  uint32_t next = 0;
  for (uint32_t o = 0; o < count; ++o) renumber[o] = size[o] ? next++ : 0;
  stt.owner.resize(owner.size());
  for (size_t i = 0; i < owner.size(); ++i) stt.owner[i] = renumber[owner[i]];
  stt.offsets.assign(size_t(next) + 1, 0);
  for (uint32_t o : stt.owner) ++stt.offsets[size_t(o) + 1];
  for (size_t i = 0; i < next; ++i) stt.offsets[i + 1] += stt.offsets[i];
  stt.entries.resize(owner.size());
  std::vector<uint32_t> cursor(stt.offsets.begin(), stt.offsets.end() - 1);
  for (size_t i = 0; i < owner.size(); ++i) stt.entries[cursor[stt.owner[i]]++] = uint32_t(i);
  return stt;
}

}  // namespace

SupertileTable generate_supertiles(const Picb& picb, int capacity) {
  capacity = std::max(1, capacity);
  // Candidate A: supertiles grown from the costliest tiles; candidate B: squares of the same
  // budget. Both are refined on their borders and the lower cut cost is kept (A on a tie), so
  // the result never cuts more than the fixed tiling of the same budget. The cut cost depends
  // only on which tiles share a supertile, so it is read from the owner maps and only the
  // winner's table is built.
  std::vector<uint32_t> a = grow_supertiles(picb, capacity).owner;
  refine(picb, capacity, a);
  std::vector<uint32_t> b = square_owners(picb.tiles_x, picb.tiles_y, capacity, 0);
  refine(picb, capacity, b);
  const bool squares = cut_cost_of(picb, b) < cut_cost_of(picb, a);
  return table_from_owners(picb.tiles_x, picb.tiles_y, squares ? b : a);
}

}  // namespace tessera
