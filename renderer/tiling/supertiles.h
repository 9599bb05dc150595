// Adaptive tiling (adaptive-tiling spec): the primitive intersection cost buffer (PICB) over
// atomic tiles, and the generator that partitions the screen into supertiles of any shape so
// that costly atomic tiles sit inside supertiles rather than on their borders.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera {

// PIC = (alpha * S + beta * L) * V, rounded to an integer cost unit. S: vertex bytes,
// L: vertex shader instructions, V: vertices per primitive; alpha + beta = 1.
uint32_t primitive_intersection_cost(double alpha, double beta, uint32_t vertex_bytes, uint32_t shader_length,
                                     uint32_t vertices);

// One saturating 16-bit cost per atomic tile (about 16 KB at 1080p with 16x16 tiles).
struct Picb {
  int tiles_x = 0;
  int tiles_y = 0;
  std::vector<uint16_t> cost;  // row-major

  Picb() = default;
  Picb(int x, int y) : tiles_x(x), tiles_y(y), cost(size_t(x) * size_t(y), 0) {}
  // PICB[x][y] += PIC, saturating at 65535.
  void add(int x, int y, uint32_t pic) {
    uint16_t& c = cost[size_t(y) * size_t(tiles_x) + size_t(x)];
    c = uint16_t(std::min<uint32_t>(65535u, uint32_t(c) + pic));
  }
  uint16_t at(int x, int y) const { return cost[size_t(y) * size_t(tiles_x) + size_t(x)]; }
  // Adds `pic` to every atomic tile the pixel rectangle [x0, x1] x [y0, y1] touches.
  void add_rect(int x0, int y0, int x1, int y1, int atomic_size, uint32_t pic);
};

// Atomic tiles one supertile may hold: the on-chip tile buffer divided by the bytes an atomic
// tile needs (samples x (colour + depth bytes) per pixel). At least 1.
int supertile_capacity(int tile_buffer_bytes, int atomic_size, int samples, int color_bytes, int depth_bytes);

// The supertile table: supertile s owns atomic tiles entries[offsets[s] .. offsets[s+1]);
// `owner` maps each atomic tile (row-major) back to its supertile.
struct SupertileTable {
  int tiles_x = 0;
  int tiles_y = 0;
  std::vector<uint32_t> offsets;  // count + 1
  std::vector<uint32_t> entries;  // atomic tile ids (y * tiles_x + x)
  std::vector<uint32_t> owner;    // per atomic tile

  size_t count() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  size_t size_of(size_t s) const { return offsets[s + 1] - offsets[s]; }
  // Cut cost: over every pair of 4-neighbouring atomic tiles in different supertiles, the
  // smaller of their two PICB values. A primitive straddling the border adds its PIC to both
  // tiles, so this estimates the costly work that borders duplicate; the generator keeps it low.
  uint64_t cut_cost(const Picb& picb) const;
};

// Partitions the screen into supertiles of at most `capacity` atomic tiles. Candidate A seeds
// each supertile at the costliest unassigned atomic tile with a rectangle of up to 2x2 and
// grows it best-first, always absorbing the costliest unassigned 4-neighbour (ties: the one
// touching most tiles already inside, then the nearest to the seed, then the lowest id).
// Candidate B is squares of the same budget. Both are refined by moving border tiles to a
// neighbouring supertile with room when that lowers the cut cost; the lower cut cost wins,
// so the result never cuts more than the fixed tiling. Deterministic.
SupertileTable generate_supertiles(const Picb& picb, int capacity);

}  // namespace tessera
