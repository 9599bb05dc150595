// ColorBackEnd::on_quad_written<kN>: the colour back end's per-quad hook for a caller that knows
// the sample count at compile time (the tile stage), inline. A quad inside the bin tile is
// counted in place (in vector lanes at 4x, quad_lanes.h); a quad that leaves one plane whose
// line is resident is a hit answered here; anything else goes on out of line.
// ColorBackEnd::on_quad_run<kN>: the same for a run of quads (the rasterizer's flushed batch):
// the loop keeps only the count and the resident lines' touches; a quad with a missing line
// (a minority: 18% of the accesses miss in the default scene at 1080p) goes out of line whole
// (access_missing), so that the fill and eviction flow's spills and calls stay out of the
// rasterizer's loop.
#pragma once

#include "color/color_back_end.h"
#include "color/quad_lanes.h"
#include "color/sample_planes.h"

namespace tessera::color {

// The plane count of the quad whose two pixel rows start at row0/row1 (kN samples a pixel),
// each pixel's own count stored in c0[0..1], c1[0..1] for evictions to read (at 4x with
// quad_lanes::kWritten, which marks the block's analysis stale).
template <int kN>
inline int quad_plane_counts(const Rgba8* row0, const Rgba8* row1, uint8_t* c0, uint8_t* c1) {
  if constexpr (kN == 4) {
    return quad_lanes::quad_planes4(row0, row1, c0, c1);
  } else {
    if (samples_uniform<kN>(row0) & samples_uniform<kN>(row0 + kN) & samples_uniform<kN>(row1) &
        samples_uniform<kN>(row1 + kN)) {
      c0[0] = c0[1] = c1[0] = c1[1] = 1;
      return 1;
    }
    c0[0] = uint8_t(distinct_samples<kN>(row0));
    c0[1] = uint8_t(distinct_samples<kN>(row0 + kN));
    c1[0] = uint8_t(distinct_samples<kN>(row1));
    c1[1] = uint8_t(distinct_samples<kN>(row1 + kN));
    return std::max(std::max(c0[0], c0[1]), std::max(c1[0], c1[1]));
  }
}

template <int kN>
void ColorBackEnd::on_quad_written(int qx, int qy) {
  // Members in locals: the count stores below are bytes, which may alias anything.
  const int width = width_;
  if (qx + 1 >= width || qy + 1 >= height_) return on_quad_written(qx, qy);  // the bin tile's edge
  const size_t i0 = size_t(qy) * size_t(width) + size_t(qx);
  const Rgba8* row0 = buffer_ + i0 * size_t(kN);
  const Rgba8* row1 = row0 + size_t(width) * size_t(kN);
  uint8_t* c0 = pixel_planes_.data() + i0;
  uint8_t* c1 = c0 + width;
  // Quad coordinates are never negative: unsigned division is a shift.
  const int block = int(unsigned(qy) / kTileHeight) * blocks_x_ + int(unsigned(qx) / kTileWidth);
  const int half = halves_ == 2 ? int(unsigned(qx) % kTileWidth / (kTileWidth / 2)) : 0;
  // New samples: what was learnt about the block is stale (at 4x the stored counts say so).
  if constexpr (kN != 4) analysis_[size_t(block)].valid = false;
  int32_t* ways = &line_way(block, 0, half);
  const int planes = quad_plane_counts<kN>(row0, row1, c0, c1);
  if (planes == 1 && ways[0] != 0) {
    // One plane, its line resident: a hit (access_quad's repeat rule included).
    ++traffic_.accesses;
    ++traffic_.hits;
    if (const int lines = lines_key(block, half, 1); lines != repeat_lines_) {
      repeat_lines_ = lines;
      cache_.touch(ways[0] - 1);
    }
    return;
  }
  access_quad(block, half, planes);
}

template <int kN, typename WriteQuad>
void ColorBackEnd::on_quad_run(int quads, WriteQuad&& write) {
  // What every quad of the run reads, loaded once (the stores below are bytes, which may alias
  // any member, so the per-quad entry reloads them for every quad).
  const int width = width_, height = height_, blocks_x = blocks_x_;
  const unsigned half_mask = halves_ == 2 ? 1 : 0;  // a quad's half of its block: (qx / 4) & half_mask
  const Rgba8* const buffer = buffer_;
  uint8_t* const counts = pixel_planes_.data();
  [[maybe_unused]] Analysis* const analysis = analysis_.data();
  int32_t* const line_ways = line_ways_.data();
  // The access count in a register; the hits follow from it at the end (every access is a hit
  // or a miss, and misses are counted where they happen). No repeat rule here (access_quad's "same lines as the
  // previous quad: touch nothing"): touching those lines again in the same order leaves them the most recent in that
  // order, so every later LRU decision is the same, and with the touches free of branches the test would cost more (a
  // data-dependent branch on every quad) than it saves. The calls out of line see no previous quad's lines (-1), as
  // this loop touched others.
  uint64_t accesses = 0;
  auto out_of_line = [&](auto&& call) {
    repeat_lines_ = -1;
    call();
  };
  for (int i = 0; i < quads; ++i) {
    const QuadWrite q = write(i);
    const int qx = q.qx, qy = q.qy;
    if (qx + 1 >= width || qy + 1 >= height) {  // the bin tile's edge
      out_of_line([&] { on_quad_written(qx, qy); });
      continue;
    }
    const size_t i0 = size_t(qy) * size_t(width) + size_t(qx);
    uint8_t* c0 = counts + i0;
    uint8_t* c1 = c0 + width;
    // Quad coordinates are never negative: unsigned division is a shift.
    const int block = int(unsigned(qy) / kTileHeight) * blocks_x + int(unsigned(qx) / kTileWidth);
    const int half = int(unsigned(qx) / (kTileWidth / 2) & half_mask);
    // New samples: what was learnt about the block is stale (at 4x the stored counts say so,
    // kWritten, with no store of their own).
    if constexpr (kN != 4) analysis[size_t(block)].valid = false;
    const Rgba8* row0 = buffer + i0 * size_t(kN);
    const Rgba8* row1 = row0 + size_t(width) * size_t(kN);
    const int planes = quad_plane_counts<kN>(row0, row1, c0, c1);
    // access_quad inline: resident lines are refreshed through their noted ways in plane order,
    // with no branch per line while all are resident (most quads); with a missing line, line by
    // line out of line.
    const int32_t* ways = line_ways + (size_t(block) * 2 + size_t(half)) * size_t(kN);
    accesses += uint64_t(planes);
    if ((quad_lanes::missing_lines<kN>(ways) & ((1u << planes) - 1)) == 0) [[likely]] {
      cache_.touch_lines<kN>(ways, planes);
      continue;
    }
    out_of_line([&] { access_missing(block, half, planes); });
  }
  repeat_lines_ = -1;
  traffic_.accesses += accesses;
  traffic_.hits = traffic_.accesses - traffic_.misses;
}

}  // namespace tessera::color
