#include "color/color_back_end.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "color/plane_lanes.h"
#include "color/quad_hook.h"
#include "color/quad_lanes.h"
#include "color/sample_planes.h"

namespace tessera::color {

void ColorTraffic::merge(const ColorTraffic& o) {
  plane_bits_read += o.plane_bits_read;
  plane_bits_written += o.plane_bits_written;
  index_bits_read += o.index_bits_read;
  index_bits_written += o.index_bits_written;
  control_bits_read += o.control_bits_read;
  control_bits_written += o.control_bits_written;
  accesses += o.accesses;
  hits += o.hits;
  misses += o.misses;
  palette_attempts += o.palette_attempts;
  palette_stores += o.palette_stores;
  palette_skipped += o.palette_skipped;
}

ColorBackEnd::ColorBackEnd(const ColorCacheGeometry& cache, int samples, Rgba8 clear, const Rgba8* buffer, int width,
                           int height, bool payloads, bool one_colour_pixels)
    : geometry_(cache),
      cache_(cache),
      samples_(samples),
      clear_(clear),
      buffer_(buffer),
      width_(width),
      height_(height),
      blocks_x_((width + kTileWidth - 1) / kTileWidth),
      blocks_y_((height + kTileHeight - 1) / kTileHeight),
      halves_(cache.line_bytes < kPlaneBits / 8 ? 2 : 1),
      memory_(size_t(blocks_x_) * size_t(blocks_y_)),
      final_(payloads ? memory_.size() : 0),
      sizes_(payloads ? 0 : memory_.size()),
      analysis_(memory_.size()),
      payloads_(payloads),
      // Pixels whose samples all hold one colour use one plane; otherwise each block is
      // counted from its samples when first needed.
      pixel_planes_(size_t(width) * size_t(height), uint8_t(one_colour_pixels ? 1 : 0)),
      counted_(memory_.size(), uint8_t(one_colour_pixels ? 1 : 0)),
      line_ways_(memory_.size() * 2 * size_t(samples)) {}

bool ColorBackEnd::take_written(int block) {
  // The 4x per-quad path marks the counts it stores (quad_lanes::kWritten) instead of storing
  // to the block's analysis: any marked pixel means new samples. The marks are cleared here, so
  // every reader of the counts after analysis() sees plain counts.
  constexpr uint64_t kMarks = 0x0101010101010101ull * quad_lanes::kWritten;
  const int bx = (block % blocks_x_) * kTileWidth, by = (block / blocks_x_) * kTileHeight;
  uint8_t* const first = &pixel_planes_[size_t(by) * size_t(width_) + size_t(bx)];
  if (bx + kTileWidth <= width_ && by + kTileHeight <= height_) {
    uint64_t rows[kTileHeight], marks = 0;
    for (int y = 0; y < kTileHeight; ++y) {
      std::memcpy(&rows[y], first + size_t(y) * size_t(width_), sizeof rows[y]);
      marks |= rows[y];
    }
    if ((marks & kMarks) == 0) return false;
    for (int y = 0; y < kTileHeight; ++y) {
      rows[y] &= ~kMarks;
      std::memcpy(first + size_t(y) * size_t(width_), &rows[y], sizeof rows[y]);
    }
    return true;
  }
  uint8_t marks = 0;
  for (int y = 0; y < std::min(kTileHeight, height_ - by); ++y) {
    uint8_t* row = first + size_t(y) * size_t(width_);
    for (int x = 0; x < std::min(kTileWidth, width_ - bx); ++x) {
      marks |= row[x];
      row[x] = uint8_t(row[x] & ~quad_lanes::kWritten);
    }
  }
  return (marks & quad_lanes::kWritten) != 0;
}

ColorBackEnd::Analysis& ColorBackEnd::analysis(int block) {
  Analysis& a = analysis_[size_t(block)];
  // Both tests run: take_written clears the marks either way.
  if (take_written(block) | !a.valid) a = Analysis{}, a.valid = true;
  return a;
}

void ColorBackEnd::recount(int block) {
  // The block's pixels counted from their samples, for a buffer whose contents at the start
  // were not known to be one colour per pixel (written pixels are kept current as quads land).
  const int bx = (block % blocks_x_) * kTileWidth, by = (block / blocks_x_) * kTileHeight;
  for (int y = by; y < std::min(by + kTileHeight, height_); ++y) {
    for (int x = bx; x < std::min(bx + kTileWidth, width_); ++x) {
      const size_t i = size_t(y) * size_t(width_) + size_t(x);
      pixel_planes_[i] = uint8_t(pixel_planes(buffer_ + i * size_t(samples_), samples_));
    }
  }
  counted_[size_t(block)] = 1;
}

void ColorBackEnd::count_planes(int block, Analysis& a) {
  // The busiest pixel of each half, and of the block, gives the planes they use. Pixels past
  // the bin tile's edge hold the clear colour: one plane.
  if (!counted_[size_t(block)]) recount(block);
  const int bx = (block % blocks_x_) * kTileWidth, by = (block / blocks_x_) * kTileHeight;
  if (bx + kTileWidth <= width_ && by + kTileHeight <= height_) {
    // Inside the bin tile, four rows of eight counts: each half's largest in vector lanes.
    const uint8_t* rows[kTileHeight];
    for (int y = 0; y < kTileHeight; ++y) rows[y] = &pixel_planes_[size_t(by + y) * size_t(width_) + size_t(bx)];
    uint8_t maxima[2];
    plane_lanes::half_maxima(rows, maxima);
    const int8_t left = int8_t(maxima[0]), right = int8_t(maxima[1]);
    const int8_t most = std::max(left, right);
    a.half_planes = halves_ == 2 ? std::array<int8_t, 2>{left, right} : std::array<int8_t, 2>{most, 0};
    a.planes_used = most;
    return;
  }
  int half_planes[2] = {1, 1};
  const int x_end = std::min(kTileWidth, width_ - bx);
  for (int y = by; y < std::min(by + kTileHeight, height_); ++y) {
    const uint8_t* row = &pixel_planes_[size_t(y) * size_t(width_) + size_t(bx)];
    for (int x = 0; x < x_end; ++x) {
      const int half = halves_ == 2 ? x / (kTileWidth / 2) : 0;
      half_planes[half] = std::max(half_planes[half], int(row[x]));
    }
  }
  a.half_planes = {int8_t(half_planes[0]), int8_t(halves_ == 2 ? half_planes[1] : 0)};
  a.planes_used = int8_t(std::max(half_planes[0], halves_ == 2 ? half_planes[1] : 1));
}

int ColorBackEnd::planes_used(int block, Analysis& a) {
  if (a.planes_used < 0) count_planes(block, a);
  return a.planes_used;
}

Plane ColorBackEnd::plane(int block, int k) {
  // What to_planes(current(block)).planes[k] holds, gathered row by row: plane 0 is each
  // pixel's first sample; a later plane is 0 wherever the pixel has fewer colours. Pixels past
  // the bin tile's edge are all clear colour.
  if (!counted_[size_t(block)]) recount(block);
  Plane out;
  const Rgba8 outside = k == 0 ? clear_ : 0;
  const int bx = (block % blocks_x_) * kTileWidth, by = (block / blocks_x_) * kTileHeight;
  const int x_end = std::min(kTileWidth, width_ - bx);
  const size_t n = size_t(samples_);
  const bool inside = x_end == kTileWidth && by + kTileHeight <= height_;
  if (samples_ == 4 && inside) {
    // In place from the samples (their counts in pixel_planes_ agree with them).
    const Rgba8* rows[kTileHeight];
    for (int y = 0; y < kTileHeight; ++y) rows[y] = buffer_ + (size_t(by + y) * size_t(width_) + size_t(bx)) * 4;
    if (k == 0)
      plane_lanes::first_samples4(rows, out.data());
    else
      plane_lanes::later_plane4(rows, k, out.data());
    return out;
  }
  for (int y = 0; y < kTileHeight; ++y) {
    Rgba8* o = &out[size_t(y * kTileWidth)];
    int x = 0;
    if (by + y < height_) {
      const size_t i0 = size_t(by + y) * size_t(width_) + size_t(bx);
      const Rgba8* s = buffer_ + i0 * n;
      if (k == 0) {
        for (; x < x_end; ++x) o[x] = s[size_t(x) * n];
      } else {
        const uint8_t* planes = &pixel_planes_[i0];
        uint64_t row_counts = 0;
        if (x_end == kTileWidth) std::memcpy(&row_counts, planes, sizeof row_counts);
        if (row_counts == 0x0101010101010101ull) {
          x = kTileWidth;  // every pixel of the row one colour: 0 in every later plane
          std::fill_n(o, kTileWidth, Rgba8(0));
        } else {
          for (; x < x_end; ++x) o[x] = planes[x] > k ? pixel_plane_colour(s + size_t(x) * n, samples_, k) : 0;
        }
      }
    }
    for (; x < kTileWidth; ++x) o[x] = outside;
  }
  return out;
}

int ColorBackEnd::plane_bits(int block, Analysis& a, int plane_index) {
  int16_t& bits = a.plane_bits[size_t(plane_index)];
  if (bits == 0) bits = int16_t(compressed_plane_bits(plane(block, plane_index)) + 1);
  return bits - 1;
}

bool ColorBackEnd::palette_fits(int block, Analysis& a) {
  if (a.palette >= 0) return a.palette == 1;
  // The encoder's first test (index_palette_max_colours) on the samples in place: most shaded
  // blocks have too many colours and are turned away without copying them into a tile. At 4x
  // the colours found, the clear colour among them or not, and the pixels' counts decide the
  // mode (index_palette_mode4) without the encoder. Blocks cut by the bin tile's edge, and the
  // other sample counts, go to the encoder.
  const int bx = (block % blocks_x_) * kTileWidth, by = (block / blocks_x_) * kTileHeight;
  if (bx + kTileWidth <= width_ && by + kTileHeight <= height_) {
    const Rgba8* rows[kTileHeight];
    for (int y = 0; y < kTileHeight; ++y)
      rows[y] = buffer_ + (size_t(by + y) * size_t(width_) + size_t(bx)) * size_t(samples_);
    const int cap = index_palette_max_colours(samples_);
    if (cap < 4 && plane_lanes::corners_distinct(rows, kTileWidth * samples_, samples_)) {
      a.palette = 0;  // four colours at the corners alone: more than the cap
      return false;
    }
    Rgba8 colours[kMaxSamples];
    const int count = plane_lanes::colours_up_to(rows, kTileHeight, kTileWidth * samples_, cap, colours);
    if (count > cap) {
      a.palette = 0;
      return false;
    }
    if (samples_ == 4) {
      if (!counted_[size_t(block)]) recount(block);
      int pixels_with[kMaxSamples + 1] = {};
      for (int y = 0; y < kTileHeight; ++y) {
        const uint8_t* counts = &pixel_planes_[size_t(by + y) * size_t(width_) + size_t(bx)];
        for (int x = 0; x < kTileWidth; ++x) ++pixels_with[counts[x]];
      }
      const bool clear_among = std::find(colours, colours + count, clear_) != colours + count;
      const auto mode = index_palette_mode4(count, clear_among, pixels_with[2], pixels_with[3]);
      a.palette = mode ? 1 : 0;
      if (mode) a.palette_state = tile_state_for(*mode);
      return a.palette == 1;
    }
  }
  IndexBits bits;
  copy_block(block, scratch_);  // the codec reads a tile; the scratch one is not cleared each time
  const auto enc = encode_index_palette(scratch_, clear_, bits);
  a.palette = enc ? 1 : 0;
  if (enc) a.palette_state = tile_state_for(enc->mode);
  return a.palette == 1;
}

ColorTile ColorBackEnd::current(int block) const {
  ColorTile t;
  copy_block(block, t);
  return t;
}

void ColorBackEnd::copy_block(int block, ColorTile& t) const {
  t.samples = samples_;
  const int bx = (block % blocks_x_) * kTileWidth, by = (block / blocks_x_) * kTileHeight;
  if (bx + kTileWidth <= width_ && by + kTileHeight <= height_) {
    // Inside the bin tile: each row of the block is one run of the pixel-major buffer.
    const size_t row = size_t(kTileWidth) * size_t(samples_);
    for (int y = 0; y < kTileHeight; ++y) {
      std::copy_n(buffer_ + (size_t(by + y) * size_t(width_) + size_t(bx)) * size_t(samples_), row,
                  t.color.begin() + std::ptrdiff_t(size_t(y) * row));
    }
    return;
  }
  for (int p = 0; p < kTilePixels; ++p) {
    const int x = bx + p % kTileWidth, y = by + p / kTileWidth;
    for (int k = 0; k < samples_; ++k) {
      // Pixels past the frame edge belong to no triangle: they hold the clear colour.
      t.at(p, k) = x < width_ && y < height_
                       ? buffer_[(size_t(y) * size_t(width_) + size_t(x)) * size_t(samples_) + size_t(k)]
                       : clear_;
    }
  }
}

namespace {

// Planes in use after a quad's write: the most distinct colours among its pixels inside the bin
// tile; each pixel's count is kept in `counts`. At 4x a quad inside the tile is counted in
// vector lanes (plane_lanes.h); at 2x and 8x most quads have every pixel one colour, which
// four 64-bit-pair comparisons answer before any pixel is counted sample by sample.
template <int kN>
int quad_planes(const Rgba8* buffer, uint8_t* counts, int qx, int qy, int width, int height) {
  const size_t i0 = size_t(qy) * size_t(width) + size_t(qx);
  if (qx + 1 < width && qy + 1 < height) {
    const Rgba8* row0 = buffer + i0 * size_t(kN);
    const Rgba8* row1 = row0 + size_t(width) * size_t(kN);
    uint8_t* c0 = counts + i0;
    uint8_t* c1 = c0 + width;
    return quad_plane_counts<kN>(row0, row1, c0, c1);
  }
  int planes = 1;
  for (int p = 0; p < 4; ++p) {
    const int x = qx + (p & 1), y = qy + (p >> 1);
    if (x >= width || y >= height) continue;
    const size_t i = size_t(y) * size_t(width) + size_t(x);
    counts[i] = uint8_t(pixel_planes<kN>(buffer + i * size_t(kN)));
    planes = std::max(planes, int(counts[i]));
  }
  return planes;
}

}  // namespace

int ColorBackEnd::quad_planes_any(int qx, int qy) {
  // Any sample count, inside the bin tile or at its edge (the inline hook takes 4x inside).
  int planes = 1;
  switch (samples_) {
    case 2: planes = quad_planes<2>(buffer_, pixel_planes_.data(), qx, qy, width_, height_); break;
    case 4: planes = quad_planes<4>(buffer_, pixel_planes_.data(), qx, qy, width_, height_); break;
    case 8: planes = quad_planes<8>(buffer_, pixel_planes_.data(), qx, qy, width_, height_); break;
    default:
      for (int p = 0; p < 4; ++p) {
        const int x = qx + (p & 1), y = qy + (p >> 1);
        if (x >= width_ || y >= height_) continue;
        const size_t i = size_t(y) * size_t(width_) + size_t(x);
        pixel_planes_[i] = uint8_t(pixel_planes(buffer_ + i * size_t(samples_), samples_));
        planes = std::max(planes, int(pixel_planes_[i]));
      }
  }
  return planes;
}

void ColorBackEnd::on_quad_written(int qx, int qy) {
  const int planes = quad_planes_any(qx, qy);
  // Quad coordinates are never negative: unsigned division is a shift.
  const int block = int(unsigned(qy) / kTileHeight) * blocks_x_ + int(unsigned(qx) / kTileWidth);
  analysis_[size_t(block)].valid = false;  // new samples: what was learnt about the block is stale
  const int half = halves_ == 2 ? int(unsigned(qx) % kTileWidth / (kTileWidth / 2)) : 0;
  access_quad(block, half, planes);
}

void ColorBackEnd::access_quad(int block, int half, int planes) {
  // The same lines as the previous quad, all still resident: they are the cache's most recent
  // lines in this very order, and touching them again in that order leaves every line's LRU
  // rank as it is. Only the counts change.
  const int lines = lines_key(block, half, planes);
  if (lines == repeat_lines_) {
    traffic_.accesses += uint64_t(planes);
    traffic_.hits += uint64_t(planes);
    return;
  }
  repeat_lines_ = lines;  // evict() clears it if it takes the block
  // Resident lines are refreshed through the way noted at their fill; no search.
  int32_t* ways = &line_way(block, 0, half);
  for (int plane = 0; plane < planes; ++plane) {
    ++traffic_.accesses;
    if (ways[plane] != 0) {
      cache_.touch(ways[plane] - 1);
      ++traffic_.hits;
    } else {
      miss(block, plane, key(block, plane, half));
    }
  }
}

void ColorBackEnd::access_missing(int block, int half, int planes) {
  const int32_t* ways = &line_way(block, 0, half);
  for (int plane = 0; plane < planes; ++plane) {
    // ways[] is reread after a miss: the miss fills this block's way and may evict the block.
    if (ways[plane] != 0) {
      cache_.touch(ways[plane] - 1);
    } else {
      miss(block, plane, key(block, plane, half));
    }
  }
}

void ColorBackEnd::miss(int block, int plane, uint64_t k) {
  ++traffic_.misses;
  // Make room first: the tile owning the set's least recently used line leaves (the eviction
  // flow sees all its lines, the victim included); then the fill.
  const int way = cache_.replacement_way(k);
  if (const uint64_t victim = cache_.key_at(way); victim != ColorCache::kNoLine) evict(victim);  // frees `way`
  fill(block, plane);
  BlockMemory& m = memory_[size_t(block)];
  cache_.place(way, k);
  line_way(block, plane, int(k & 1)) = way + 1;
  ++m.resident_lines;
  m.index_on_chip = true;
}

void ColorBackEnd::fill(int block, int plane) {
  // Fill flow: the control bits first; then nothing more for a cleared tile, the index bits
  // alone for a palette in the index bits, or the plane (and the index bits) otherwise.
  BlockMemory& m = memory_[size_t(block)];
  traffic_.control_bits_read += kControlBits;
  if (m.state == TileState::cleared) return;
  if (!m.index_on_chip) traffic_.index_bits_read += uint64_t(tile_index_bits(samples_));
  m.index_on_chip = true;
  if (m.state == TileState::planes_compressed || m.state == TileState::planes_uncompressed) {
    traffic_.plane_bits_read +=
        uint64_t((m.plane_bits[size_t(plane)] + halves_ - 1) >> (halves_ - 1));  // halves_ is 1 or 2
  }
}

bool ColorBackEnd::all_used_planes_resident(int block, Analysis& a) {
  // A line is needed when its half of the tile uses that plane. A tile still cleared in
  // memory needs nothing from outside the cache: its untouched parts are the clear colour.
  if (memory_[size_t(block)].state == TileState::cleared) return true;
  if (a.planes_used < 0) count_planes(block, a);
  for (int half = 0; half < halves_; ++half) {
    for (int plane = 0; plane < a.half_planes[size_t(half)]; ++plane) {
      if (line_way(block, plane, half) == 0) return false;
    }
  }
  return true;
}

void ColorBackEnd::evict(uint64_t line) {
  // Eviction flow: the tile holding the displaced line leaves with all its resident lines.
  const int block = int(line >> 8);
  // The next quad's lines are no longer all resident (-1 names no block).
  if (block == block_of_lines_key(repeat_lines_)) repeat_lines_ = -1;
  BlockMemory& m = memory_[size_t(block)];
  Analysis& a = analysis(block);
  // Step 3: the index-bit palette only when every used plane is in the cache.
  if (all_used_planes_resident(block, a)) {
    ++traffic_.palette_attempts;
    if (palette_fits(block, a)) {
      ++traffic_.palette_stores;
      // Lines exist only for planes below the sample count; the noted ways of lines not
      // resident are 0 already, so clearing the resident ones clears the block's.
      for (int p = 0; p < samples_; ++p) {
        for (int h = 0; h < halves_; ++h) {
          int32_t& way = line_way(block, p, h);
          if (way != 0) {
            cache_.erase_way(way - 1);
            way = 0;
          }
        }
      }
      m.state = a.palette_state;
      m.resident_lines = 0;
      m.index_on_chip = false;
      traffic_.index_bits_written += uint64_t(tile_index_bits(samples_));
      traffic_.control_bits_written += kControlBits;
      return;
    }
  } else {
    ++traffic_.palette_skipped;
  }
  // Step 4: each resident plane (or half plane) with the best plane codec, or raw. The planes in
  // use are known from the pixels' counts (no samples read), so they are taken once.
  const int used = planes_used(block, a);
  const int halves = halves_;
  int32_t* const ways = &line_way(block, 0, 0);
  for (int p = 0; p < samples_ && m.resident_lines > 0; ++p) {
    for (int h = 0; h < halves; ++h) {
      const int way = ways[size_t(h * samples_ + p)];
      if (way == 0) continue;
      cache_.erase_way(way - 1);
      ways[size_t(h * samples_ + p)] = 0;  // the others are 0 already
      --m.resident_lines;
      const int stored_bits = p < used ? plane_bits(block, a, p) : 0;
      m.plane_bits[size_t(p)] = stored_bits;
      // A half line carries half the plane's bits, rounded up (halves is 1 or 2).
      traffic_.plane_bits_written += uint64_t((stored_bits + halves - 1) >> (halves - 1));
    }
  }
  bool any_compressed = false;
  for (int p = 0; p < used; ++p) any_compressed = any_compressed || m.plane_bits[size_t(p)] < kPlaneBits;
  m.state = any_compressed ? TileState::planes_compressed : TileState::planes_uncompressed;
  traffic_.control_bits_written += kControlBits;
  if (m.resident_lines == 0) {
    traffic_.index_bits_written += uint64_t(tile_index_bits(samples_));  // the tile leaves the chip
    m.index_on_chip = false;
  }
}

const StoredTile& ColorBackEnd::final_tile(int block) const {
  if (payloads_) return final_[size_t(block)];
  const FinalSizes& f = sizes_[size_t(block)];
  view_.samples = samples_;
  view_.state = f.state;
  view_.planes_used = f.planes_used;
  view_.plane_bits = f.plane_bits;
  view_.index_bits = f.index_bits;
  view_.baseline_uncompressed_bits = f.baseline_uncompressed_bits;
  view_.baseline_planes_only_bits = f.baseline_planes_only_bits;
  return view_;
}

ColorBackEnd::FinalSizes ColorBackEnd::final_sizes(int block, Analysis& a, bool try_index_palette) {
  // store_tile's states and sizes (what the counters read) without packing planes or indices.
  FinalSizes out;
  const int index_total = tile_index_bits(samples_);
  if (a.all_clear < 0) {
    // A block still cleared in memory was never written (every write leaves a line that the
    // flush evicts into a stored state): all clear colour.
    // Otherwise: every pixel one colour (its count), and that the clear colour.
    bool all_clear = true;
    if (memory_[size_t(block)].state != TileState::cleared) {
      if (!counted_[size_t(block)]) recount(block);
      const int bx = (block % blocks_x_) * kTileWidth, by = (block / blocks_x_) * kTileHeight;
      const int x_end = std::min(bx + kTileWidth, width_);
      for (int y = by; y < std::min(by + kTileHeight, height_) && all_clear; ++y) {
        for (int x = bx; x < x_end; ++x) {
          const size_t i = size_t(y) * size_t(width_) + size_t(x);
          all_clear = all_clear && pixel_planes_[i] == 1 && buffer_[i * size_t(samples_)] == clear_;
        }
      }
    }
    a.all_clear = all_clear ? 1 : 0;
  }
  const int used = a.all_clear ? 1 : planes_used(block, a);
  out.baseline_uncompressed_bits = samples_ * kPlaneBits;
  out.baseline_planes_only_bits = used * kPlaneBits + index_total;
  if (a.all_clear) return out;  // state cleared: the control code alone
  if (try_index_palette && palette_fits(block, a)) {
    out.state = a.palette_state;
    out.index_bits = index_total;
    return out;
  }
  out.planes_used = used;
  int compressed_bits = 0;
  for (int k = 0; k < used; ++k) compressed_bits += plane_bits(block, a, k) + kPlaneTagBits;
  out.index_bits = index_total;
  if (compressed_bits < used * kPlaneBits) {
    out.state = TileState::planes_compressed;
    out.plane_bits = compressed_bits;
  } else {
    out.state = TileState::planes_uncompressed;
    out.plane_bits = used * kPlaneBits;
  }
  return out;
}

void ColorBackEnd::flush() {
  // Every block with resident lines leaves through the eviction flow. The model evicts the
  // resident lines least recently used first, but an eviction reads and changes only its own
  // block (its lines, samples and memory state) and adds to sums, so the order of the blocks
  // changes no count and no final form: block order, with no sort of the cache's lines.
  for (size_t b = 0; b < memory_.size(); ++b) {
    if (memory_[b].resident_lines > 0) evict(key(int(b), 0, 0));  // evict() reads the block alone
  }
  // The stored form each block ends in, from its final samples and its final control state.
  for (size_t b = 0; b < memory_.size(); ++b) {
    const BlockMemory& m = memory_[b];
    if (!payloads_) {
      sizes_[b] = final_sizes(int(b), analysis(int(b)),
                              m.state != TileState::planes_compressed && m.state != TileState::planes_uncompressed);
      continue;
    }
    StoredTile& out = final_[b];
    const ColorTile tile = current(int(b));
    if (m.state == TileState::cleared) {
      out = store_tile(tile, clear_);  // an untouched block is all clear colour
    } else {
      out = store_tile(tile, clear_,
                       m.state != TileState::planes_compressed && m.state != TileState::planes_uncompressed);
    }
  }
}

}  // namespace tessera::color
