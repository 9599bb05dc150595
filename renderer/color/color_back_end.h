// The colour back end of one bin tile of a multisampled target: raster writes go through the
// colour cache; misses run the fill flow and evictions the eviction flow of the spec
// (msaa-compression.md), charging every byte to the planes, index-bit or control-surface
// client. At the end of the bin tile every resident line is evicted.
//
// Model (docs/color.md): lines hold a plane, or a 4x4 half of a plane, of an 8x4 tile. A write
// touches the lines of every plane its pixels use after the write. Eviction is per tile: when
// a line is displaced, its tile leaves with all its resident lines. The palette in the index
// bits is tried only when all used planes of the tile are resident (then no plane data is
// written); otherwise each resident plane is compressed with the best plane codec and
// written. Room is made before a fill, so the tile being filled may itself be the one
// that leaves (its missing line then counts as not resident). A tile's index bits stay on chip while
// any of its lines is resident and are written when its last line leaves in a plane state.
// The functional result (what the resolve decodes) is the final stored form of each tile.
#pragma once

#include <array>
#include <vector>

#include "color/color_cache.h"
#include "color/color_counters.h"
#include "color/tile_store.h"

namespace tessera::color {

struct ColorTraffic {
  uint64_t plane_bits_read = 0, plane_bits_written = 0;
  uint64_t index_bits_read = 0, index_bits_written = 0;
  uint64_t control_bits_read = 0, control_bits_written = 0;
  uint64_t accesses = 0, hits = 0, misses = 0;
  uint64_t palette_attempts = 0;  // evictions with all used planes resident
  uint64_t palette_stores = 0;    // ... whose palette fitted the index bits
  uint64_t palette_skipped = 0;   // evictions with some used plane not resident
  void merge(const ColorTraffic& o);
};

class ColorBackEnd {
 public:
  // `buffer`: the bin tile's samples, pixel-major (`samples` per pixel), width x height.
  // `payloads`: the final stored forms carry their packed planes and index bits (for a caller
  // that decodes them); false gives the same states and sizes without packing any bits.
  // `one_colour_pixels`: every pixel's samples hold one colour at the start (a cleared tile),
  // so no pixel is counted until a quad writes it.
  ColorBackEnd(const ColorCacheGeometry& cache, int samples, Rgba8 clear, const Rgba8* buffer, int width, int height,
               bool payloads = true, bool one_colour_pixels = false);

  // The 2x2 quad at tile pixel (qx, qy) has written its samples into the buffer.
  void on_quad_written(int qx, int qy);
  // The same for a caller that knows the sample count (kN == samples) at compile time, as the
  // rasterizer does for every quad it writes: defined, inline, in color/quad_hook.h.
  template <int kN>
  void on_quad_written(int qx, int qy);
  // A run of quads written one after another (the rasterizer's flushed batch), for a caller
  // that knows the sample count: `write(i)` writes quad i's samples and returns where
  // (QuadWrite); each quad is accounted right after its write, as on_quad_written<kN> would,
  // so the counters are the same. The run's per-quad work stays in one loop (no call per
  // quad, members loaded once, hit counts in registers, resident lines touched without a branch
  // per line). Defined, inline, in color/quad_hook.h.
  struct QuadWrite {
    int qx, qy;  // tile pixel of the quad's top-left pixel
  };
  template <int kN, typename WriteQuad>
  void on_quad_run(int quads, WriteQuad&& write);
  // End of the bin tile: evicts every block with resident lines and fixes each block's final
  // stored form, which the resolve decodes.
  void flush();

  int blocks_x() const { return blocks_x_; }
  int blocks_y() const { return blocks_y_; }
  // With payloads, the block's final stored form. Without, its state and sizes (planes and
  // index bits unpacked) in a view that the next call reuses: copy it to keep it.
  const StoredTile& final_tile(int block) const;
  const ColorTraffic& traffic() const { return traffic_; }

 private:
  struct BlockMemory {
    TileState state = TileState::cleared;       // what the control surface says
    std::array<int, kMaxSamples> plane_bits{};  // stored size of each plane (plane states)
    int resident_lines = 0;
    bool index_on_chip = false;
  };
  // What the eviction flow and the final store learn from a block's samples, kept until the
  // block is written again: every eviction of an unchanged block, and its final store, reuse it
  // rather than analysing the same samples again.
  struct Analysis {
    bool valid = false;
    int8_t all_clear = -1;                // -1: not known yet
    int8_t planes_used = -1;              // distinct colours of the busiest pixel
    std::array<int8_t, 2> half_planes{};  // per half, planes its pixels use (0: not known)
    int8_t palette = -1;                  // -1 not tried, 0 did not fit, 1 fitted
    TileState palette_state = TileState::cleared;
    std::array<int16_t, kMaxSamples> plane_bits{};  // compressed_plane_bits + 1 (0: not known)
  };
  // The block's analysis, started afresh when its samples changed since it was made.
  Analysis& analysis(int block);
  // Whether a 4x quad wrote the block since its last analysis (its counts' marks, cleared).
  bool take_written(int block);
  // Counts the block's pixels from their samples (pixel_planes_).
  void recount(int block);
  // Fills the analysis' planes per half and planes used from the pixels' counts.
  void count_planes(int block, Analysis& a);
  int planes_used(int block, Analysis& a);
  // Plane k of the block as to_planes would build it (colour k of each pixel, or 0).
  Plane plane(int block, int k);
  int plane_bits(int block, Analysis& a, int plane);
  bool palette_fits(int block, Analysis& a);
  bool all_used_planes_resident(int block, Analysis& a);
  // A final stored form without payloads: what the counters read (ColorCounters::add).
  struct FinalSizes {
    TileState state = TileState::cleared;
    int planes_used = 0;
    int plane_bits = 0, index_bits = 0;
    int baseline_uncompressed_bits = 0, baseline_planes_only_bits = 0;
  };
  FinalSizes final_sizes(int block, Analysis& a, bool try_index_palette);
  ColorTile current(int block) const;
  void copy_block(int block, ColorTile& tile) const;
  uint64_t key(int block, int plane, int half) const {
    return uint64_t(block) << 8 | uint64_t(plane) << 1 | uint64_t(half);
  }
  // Planes after a quad's write, each pixel's count kept in pixel_planes_.
  int quad_planes_any(int qx, int qy);
  // The cache accesses of a quad that left `planes` planes in use in that half of the block.
  void access_quad(int block, int half, int planes);
  // A quad's access that missed line k (plane `plane` of `block`): room, then the fill.
  void miss(int block, int plane, uint64_t k);
  // on_quad_run's accesses of a quad with a missing line: each line touched or missed in plane
  // order (the caller counts the accesses; hits are accesses minus misses). Out of line: it is
  // the run's rare path and holds its calls.
  [[gnu::noinline]] void access_missing(int block, int half, int planes);
  void fill(int block, int plane);
  // Evicts the tile holding `line` (a resident line) with all its resident lines.
  void evict(uint64_t line);

  ColorCacheGeometry geometry_;
  ColorCache cache_;
  int samples_;
  Rgba8 clear_;
  const Rgba8* buffer_;
  int width_, height_;
  int blocks_x_, blocks_y_;
  int halves_;  // 2 with 64-byte lines, 1 with 128-byte lines
  std::vector<BlockMemory> memory_;
  std::vector<StoredTile> final_;  // with payloads (1 KiB a block, so only then)
  std::vector<FinalSizes> sizes_;  // without
  mutable StoredTile view_;        // final_tile's view of sizes_
  std::vector<Analysis> analysis_;
  bool payloads_;
  // Distinct colours of each pixel's samples (the planes it uses), kept as quads write them;
  // valid in the blocks whose counted_ is set.
  std::vector<uint8_t> pixel_planes_;
  std::vector<uint8_t> counted_;
  // Per block, per half and plane: 1 + the cache way holding that line, 0 when it is not
  // resident. Set at the line's fill; lines leave only when their block is evicted (all
  // together), which clears the block's. So hits, residency and erasures need no search.
  // Laid out by the sample count (2 x samples a block: half a cache line at 4x), so that the
  // per-quad path's reads span as few cache lines as the planes need.
  std::vector<int32_t> line_ways_;
  int32_t& line_way(int block, int plane, int half) {
    return line_ways_[(size_t(block) * 2 + size_t(half)) * size_t(samples_) + size_t(plane)];
  }
  ColorTile scratch_;  // the samples the index-bit palette reads
  ColorTraffic traffic_;
  // The previous quad's lines (block, half, planes as one lines_key), while all of them are
  // still resident and no other line was touched since (-1: none): a quad with the same lines
  // hits them all. One key so that the test is one compare, not three data-dependent branches.
  int repeat_lines_ = -1;
  static int lines_key(int block, int half, int planes) { return block << 5 | half << 4 | planes; }
  static int block_of_lines_key(int key) { return key >> 5; }
};

}  // namespace tessera::color
