// The colour back end's shortcuts against the straightforward computation they replace:
// - a pixel's plane count and plane colours read in place (sample_planes.h) against to_planes
//   and a sample-by-sample count, on random and adversarial pixels at 1/2/4/8 samples;
// - the size-only plane codec estimate against the encoder;
// - the whole back end (per-pixel counts kept from the quad writes, repeated quads answered
//   without touching the cache, planes gathered in place, bounded line searches) against a
//   reference model of the spec's flows written the plain way: every access searches the cache,
//   every eviction builds the block's PlanedTile and encodes its planes. Traffic, every final
//   state and size must be equal on random quad streams for every sample count and several
//   cache geometries and bin-tile shapes;
// - the run entry (on_quad_run, the rasterizer's flushed batches) against the per-quad entry
//   and the reference on random runs of opaque quad writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "color/color_back_end.h"
#include "color/index_palette.h"
#include "color/plane_lanes.h"
#include "color/quad_hook.h"
#include "color/quad_lanes.h"
#include "color/sample_planes.h"

namespace tessera::color {
namespace {

struct Rng {
  uint64_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return uint32_t(s >> 11);
  }
  uint32_t below(uint32_t n) { return next() % n; }
};

int distinct_plainly(const Rgba8* s, int n) {
  int d = 0;
  for (int k = 0; k < n; ++k) {
    bool seen = false;
    for (int j = 0; j < k; ++j) seen = seen || s[j] == s[k];
    d += !seen;
  }
  return d;
}

// Colours that differ in few bits: +0.0f and -0.0f as bits, one byte apart, and the top bit.
constexpr Rgba8 kTricky[] = {0x00000000u, 0x80000000u, 0x00000080u, 0xffffffffu, 0x7fffffffu, 0xff000000u, 0x000000ffu};

// A block of n samples a pixel holding 1..6 colours (tricky bit patterns among them), spread
// over the block, or with `corner` its first 30 pixels all the first colour.
ColorTile random_block(Rng& rng, int n, bool corner) {
  const uint32_t colours = 1 + rng.below(6);
  Rgba8 palette[6];
  for (uint32_t c = 0; c < colours; ++c) palette[c] = rng.below(2) ? kTricky[rng.below(7)] : rng.next();
  ColorTile t;
  t.samples = n;
  for (int p = 0; p < kTilePixels; ++p) {
    for (int k = 0; k < n; ++k) t.at(p, k) = corner && p < 30 ? palette[0] : palette[rng.below(colours)];
  }
  return t;
}

// The block's rows as the unit's plane code reads them.
void block_rows(const ColorTile& t, const Rgba8* rows[kTileHeight]) {
  for (int y = 0; y < kTileHeight; ++y) rows[y] = &t.color[size_t(y * kTileWidth * t.samples)];
}

void check_pixel(const Rgba8* s, int n) {
  const int expected = distinct_plainly(s, n);
  ASSERT_EQ(pixel_planes(s, n), expected);
  ColorTile t;
  t.samples = n;
  for (int k = 0; k < n; ++k) t.at(0, k) = s[k];
  const PlanedTile planed = to_planes(t);
  for (int k = 0; k < kMaxSamples; ++k) ASSERT_EQ(pixel_plane_colour(s, n, k), planed.planes[size_t(k)][0]) << k;
  bool uniform = true;
  for (int k = 1; k < n; ++k) uniform = uniform && s[k] == s[0];
  switch (n) {
    case 2: ASSERT_EQ(samples_uniform<2>(s), uniform); break;
    case 4: ASSERT_EQ(samples_uniform<4>(s), uniform); break;
    case 8: ASSERT_EQ(samples_uniform<8>(s), uniform); break;
    default: break;
  }
}

// The 4x block's later planes gathered in lanes, each against to_planes' plane.
void expect_later_planes4(const Rgba8* const* rows, const PlanedTile& planed, const std::string& where) {
  for (int k = 1; k < 4; ++k) {
    Plane later;
    plane_lanes::later_plane4(rows, k, later.data());
    ASSERT_EQ(later, planed.planes[size_t(k)]) << where << " plane " << k;
  }
}

TEST(ColorShortcuts, PixelPlanesMatchTheSampleBySampleCount) {
  Rng rng{0x9e3779b97f4a7c15ull};
  for (int n : {1, 2, 4, 8}) {
    Rgba8 s[kMaxSamples];
    // Every assignment of two (and at 2x/4x three) tricky colours to the samples: catches a
    // pairwise comparison that takes (A, B, A, B) for one colour, or -0 for +0.
    for (int a = 0; a < 7; ++a) {
      for (int b = 0; b < 7; ++b) {
        for (int c = 0; c < 7; ++c) {
          const Rgba8 colours[3] = {kTricky[a], kTricky[b], kTricky[c]};
          const int choices = n <= 4 ? 3 : 2;
          int combos = 1;
          for (int k = 0; k < n; ++k) combos *= choices;
          for (int m = 0; m < combos; ++m) {
            int code = m;
            for (int k = 0; k < n; ++k, code /= choices) s[k] = colours[code % choices];
            check_pixel(s, n);
          }
        }
      }
    }
    // Random pixels, from few colours to all samples distinct.
    for (int i = 0; i < 200000; ++i) {
      const uint32_t colours = 1 + rng.below(uint32_t(n));
      Rgba8 palette[kMaxSamples];
      for (uint32_t c = 0; c < colours; ++c) palette[c] = rng.below(4) == 0 ? kTricky[rng.below(7)] : rng.next();
      for (int k = 0; k < n; ++k) s[k] = palette[rng.below(colours)];
      check_pixel(s, n);
    }
  }
}

TEST(ColorShortcuts, QuadCountsInLanesMatchTheSampleBySampleCount) {
  // Every assignment of four colours (two of them -0/+0 as bits) to a pixel's four samples, in
  // each position of the quad, the other pixels random or one colour.
  Rng rng{0x853c49e6748fea9bull};
  const Rgba8 colours[4] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u};
  for (int pattern = 0; pattern < 256; ++pattern) {
    for (int where = 0; where < 4; ++where) {
      for (int trial = 0; trial < 8; ++trial) {
        Rgba8 rows[2][8];
        for (int p = 0; p < 4; ++p) {
          Rgba8* s = &rows[p >> 1][(p & 1) * 4];
          const bool flat = trial % 2 == 0;
          for (int k = 0; k < 4; ++k) {
            s[k] = p == where ? colours[pattern >> (2 * k) & 3]
                   : flat     ? colours[p]
                              : colours[rng.below(4)] ^ (rng.below(2) ? 0u : 1u);
          }
        }
        uint8_t counts[2][2] = {};
        const int planes = quad_lanes::quad_planes4(rows[0], rows[1], counts[0], counts[1]);
        int expected_max = 0;
        for (int p = 0; p < 4; ++p) {
          const int expected = distinct_plainly(&rows[p >> 1][(p & 1) * 4], 4);
          // Stored with the mark that tells the back end the block has new samples.
          ASSERT_EQ(counts[p >> 1][p & 1], expected | quad_lanes::kWritten) << "pattern " << pattern << " pixel " << p;
          expected_max = std::max(expected_max, expected);
        }
        ASSERT_EQ(planes, expected_max);
      }
    }
  }
}

TEST(ColorShortcuts, MissingLinesInLanesMatchTheWays) {
  // Ways 0 (not resident), 1 and large, in every pattern of the first eight.
  Rng rng{0x6a09e667f3bcc909ull};
  for (int pattern = 0; pattern < 256; ++pattern) {
    int32_t ways[2 * kMaxSamples];
    for (int k = 0; k < 2 * kMaxSamples; ++k)
      ways[k] = k < 8 && (pattern >> k & 1) ? 0 : int32_t(rng.below(2) ? 1 : 1 + rng.below(1u << 30));
    unsigned expected = 0;
    for (int k = 0; k < 8; ++k) expected |= unsigned(ways[k] == 0) << k;
    ASSERT_EQ(quad_lanes::missing_lines<2>(ways), expected & 3u) << pattern;
    ASSERT_EQ(quad_lanes::missing_lines<4>(ways), expected & 15u) << pattern;
    ASSERT_EQ(quad_lanes::missing_lines<8>(ways), expected) << pattern;
  }
}

TEST(ColorShortcuts, BlockLanesMatchTheSampleBySampleComputation) {
  Rng rng{0xda942042e4dd58b5ull};
  for (int i = 0; i < 30000; ++i) {
    const int n = 2 << (i % 3);
    const bool corner = rng.below(2) == 0;
    const ColorTile t = random_block(rng, n, corner);
    Rgba8 distinct[kTilePixels * kMaxSamples];
    int count = 0;
    for (int j = 0; j < kTilePixels * n; ++j) {
      if (std::find(distinct, distinct + count, t.color[size_t(j)]) == distinct + count)
        distinct[count++] = t.color[size_t(j)];
    }
    const Rgba8* rows[kTileHeight];
    block_rows(t, rows);
    for (int cap = 1; cap <= kMaxSamples; ++cap) {
      Rgba8 found[kMaxSamples];
      const int got = plane_lanes::colours_up_to(rows, kTileHeight, kTileWidth * n, cap, found);
      ASSERT_EQ(got, std::min(count, cap + 1)) << "tile " << i << " cap " << cap << " colours " << count;
      for (int k = 0; k < std::min(count, cap); ++k)
        ASSERT_EQ(found[k], distinct[k]) << "tile " << i << " colour " << k;
    }
    if (n == 4) {
      const PlanedTile planed = to_planes(t);
      Plane first;
      plane_lanes::first_samples4(rows, first.data());
      ASSERT_EQ(first, planed.planes[0]) << "tile " << i;
      expect_later_planes4(rows, planed, "tile " + std::to_string(i));
    }
  }
}

TEST(ColorShortcuts, DistinctCornersMeanMoreThanThreeColours) {
  // The palette's early exit: four different corner colours (first samples of the corner
  // pixels) must mean at least four colours in the block, and the test must say so exactly
  // when the corners differ (here: blocks of 1..6 colours, tricky bit patterns among them).
  Rng rng{0x5bd1e9955bd1e995ull};
  int distinct_seen = 0, alike_seen = 0;
  for (int i = 0; i < 30000; ++i) {
    const int n = 2 << (i % 3);
    const ColorTile t = random_block(rng, n, false);
    const Rgba8* rows[kTileHeight];
    block_rows(t, rows);
    const Rgba8 corners[4] = {t.at(0, 0), t.at(kTileWidth - 1, 0), t.at(kTilePixels - kTileWidth, 0),
                              t.at(kTilePixels - 1, 0)};
    bool apart = true;
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b) apart = apart && corners[a] != corners[b];
    }
    const bool got = plane_lanes::corners_distinct(rows, kTileWidth * n, n);
    ASSERT_EQ(got, apart) << "tile " << i;
    distinct_seen += got;
    alike_seen += !got;
    Rgba8 found[kMaxSamples];
    if (got) {
      ASSERT_EQ(plane_lanes::colours_up_to(rows, kTileHeight, kTileWidth * n, 3, found), 4) << "tile " << i;
    }
  }
  EXPECT_GT(distinct_seen, 1000);
  EXPECT_GT(alike_seen, 1000);
}

TEST(ColorShortcuts, IndexPaletteModeAt4xMatchesTheEncoder) {
  // 4x tiles of 1-3 colours (the clear colour among them or not, -0/+0 as bits), each pixel one,
  // two or three of them in proportions that put method_b and method_b_clear on both sides of
  // their budgets: the mode from the counts alone against the encoder's.
  Rng rng{0x9b05688c2b3e6c1full};
  const Rgba8 clear = 0xff102030u;
  int seen[kIndexPaletteModes + 1] = {};
  for (int i = 0; i < 40000; ++i) {
    const int colours = 1 + int(rng.below(3));
    Rgba8 palette[3];
    for (int c = 0; c < colours; ++c)
      palette[c] = rng.below(3) == 0 ? clear : rng.below(2) ? kTricky[rng.below(7)] : rng.next();
    ColorTile t;
    t.samples = 4;
    const uint32_t mixed = rng.below(33);  // how many pixels may mix colours
    for (int p = 0; p < kTilePixels; ++p) {
      const int base = int(rng.below(uint32_t(colours)));
      for (int k = 0; k < 4; ++k) {
        t.at(p, k) = uint32_t(p) < mixed && rng.below(2) ? palette[rng.below(uint32_t(colours))] : palette[base];
      }
    }
    Rgba8 distinct[3];
    int count = 0;
    for (int j = 0; j < kTilePixels * 4; ++j) {
      const Rgba8 c = t.color[size_t(j)];
      if (std::find(distinct, distinct + count, c) == distinct + count) distinct[count++] = c;
    }
    int pixels_with[5] = {};
    for (int p = 0; p < kTilePixels; ++p) ++pixels_with[distinct_plainly(&t.at(p, 0), 4)];
    IndexBits bits;
    const auto enc = encode_index_palette(t, clear, bits);
    const auto mode = index_palette_mode4(count, std::find(distinct, distinct + count, clear) != distinct + count,
                                          pixels_with[2], pixels_with[3]);
    ASSERT_EQ(mode.has_value(), enc.has_value()) << "tile " << i;
    if (mode) {
      ASSERT_EQ(*mode, enc->mode) << "tile " << i;
    }
    ++seen[mode ? int(*mode) : kIndexPaletteModes];
  }
  // Every 4x mode, and three-colour tiles that fit none, were met.
  for (IndexPaletteMode m : {IndexPaletteMode::one_colour, IndexPaletteMode::two_colour, IndexPaletteMode::method_b,
                             IndexPaletteMode::method_b_clear})
    EXPECT_GT(seen[int(m)], 0) << index_palette_mode_name(m);
  EXPECT_GT(seen[kIndexPaletteModes], 0);
  EXPECT_EQ(index_palette_mode4(4, true, 0, 0), std::nullopt);  // more than three never fit
}

TEST(ColorShortcuts, LaterPlanesInLanesMatchToPlanes) {
  // Every assignment of four colours (0 and -0 as bits, and 0 itself, which the gather gives a
  // pixel with fewer colours) to the samples of each pixel, the block's other pixels random.
  Rng rng{0x5851f42d4c957f2dull};
  const Rgba8 colours[4] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xffffffffu};
  for (int pattern = 0; pattern < 256; ++pattern) {
    ColorTile t;
    t.samples = 4;
    for (int p = 0; p < kTilePixels; ++p) {
      for (int k = 0; k < 4; ++k) {
        t.at(p, k) =
            p % 3 == 0 ? colours[(pattern + p) >> (2 * k) & 3] : colours[rng.below(4)] ^ (rng.below(4) ? 0u : 1u);
      }
    }
    const Rgba8* rows[kTileHeight];
    for (int y = 0; y < kTileHeight; ++y) rows[y] = &t.color[size_t(y * kTileWidth * 4)];
    expect_later_planes4(rows, to_planes(t), "pattern " + std::to_string(pattern));
  }
}

TEST(ColorShortcuts, HalfMaximaInLanesMatchThePlainMaximum) {
  // Pixel counts 1..8 (and the full byte range, which lanes must not treat as signed), each
  // row's largest in every column of either half.
  Rng rng{0x2c1b3c6d7e8f9a0bull};
  for (int i = 0; i < 20000; ++i) {
    uint8_t counts[kTileHeight][kTileWidth];
    const uint32_t top = i % 4 == 3 ? 256u : 1u + rng.below(8);
    for (auto& row : counts)
      for (uint8_t& c : row) c = uint8_t(i % 4 == 3 ? rng.below(top) : 1 + rng.below(top));
    if (i % 5 == 0) counts[rng.below(kTileHeight)][rng.below(kTileWidth)] = 8;
    const uint8_t* rows[kTileHeight] = {counts[0], counts[1], counts[2], counts[3]};
    uint8_t maxima[2];
    plane_lanes::half_maxima(rows, maxima);
    for (int half = 0; half < 2; ++half) {
      uint8_t expected = 0;
      for (const auto& row : counts)
        for (int x = half * 4; x < half * 4 + 4; ++x) expected = std::max(expected, row[x]);
      ASSERT_EQ(maxima[half], expected) << "rows " << i << " half " << half;
    }
  }
}

TEST(ColorShortcuts, DistinctColoursInLanesMatchThePlainCount) {
  // 1 to 32 colours, each pixel's colour at random or repeating one of a chosen pixel (every
  // pair of positions, both in one vector of lanes and across vectors), tricky bit patterns.
  Rng rng{0x14057b7ef767814full};
  auto check = [](const Plane& plane, const char* what, int i) {
    ASSERT_EQ(plane_lanes::distinct_colours(plane), distinct_plainly(plane.data(), kTilePixels)) << what << " " << i;
  };
  for (int i = 0; i < 50000; ++i) {
    Plane plane;
    const uint32_t colours = 1 + rng.below(uint32_t(kTilePixels));
    for (int p = 0; p < kTilePixels; ++p) {
      plane[size_t(p)] = i % 2 ? kTricky[rng.below(7)] ^ rng.below(colours) : rng.below(colours) * 0x01010101u;
    }
    check(plane, "random", i);
  }
  for (int a = 0; a < kTilePixels; ++a) {
    for (int b = 0; b < kTilePixels; ++b) {
      Plane plane;
      for (int p = 0; p < kTilePixels; ++p) plane[size_t(p)] = 0x1000u + uint32_t(p);
      plane[size_t(b)] = plane[size_t(a)];  // one repeat (none when a == b)
      check(plane, "pair", a * kTilePixels + b);
      plane.fill(0x80000000u);
      plane[size_t(a)] = 0;  // -0 and +0 as bits
      check(plane, "signed zero", a);
    }
  }
}

TEST(ColorShortcuts, DistinctColoursUpToACapAreExactUpToIt) {
  // The count that may stop early: the exact count whenever it is at most the cap, and above
  // the cap otherwise, for every cap and counts on both sides of each vector's end.
  Rng rng{0x5be0cd19137e2179ull};
  for (int i = 0; i < 40000; ++i) {
    Plane plane;
    const uint32_t colours = 1 + rng.below(uint32_t(kTilePixels));
    for (int p = 0; p < kTilePixels; ++p) {
      // Half the planes with new colours first (early vectors busy), half at random.
      plane[size_t(p)] =
          i % 2 && uint32_t(p) < colours ? uint32_t(p) * 0x01010101u + 7u : rng.below(colours) * 0x01010101u + 7u;
    }
    const int exact = distinct_plainly(plane.data(), kTilePixels);
    const int cap = int(rng.below(uint32_t(kTilePixels) + 1));
    const int count = plane_lanes::distinct_colours_up_to(plane, cap);
    if (exact <= cap) {
      ASSERT_EQ(count, exact) << "plane " << i << " cap " << cap;
    } else {
      ASSERT_GT(count, cap) << "plane " << i << " cap " << cap;
      ASSERT_LE(count, exact) << "plane " << i << " cap " << cap;
    }
  }
}

TEST(ColorShortcuts, PlaneSizeEstimateMatchesTheEncoder) {
  Rng rng{0x2545f4914f6cdd1dull};
  for (int i = 0; i < 200000; ++i) {
    Plane plane;
    const int shape = i % 6;
    const uint32_t colours = 1 + rng.below(shape == 0 ? 32u : 6u);
    Rgba8 palette[kTilePixels];
    const Rgba8 base = rng.next();
    for (uint32_t c = 0; c < colours; ++c) {
      switch (shape) {
        case 1: palette[c] = base + (rng.next() & 0x0f0f0f0fu); break;            // delta-friendly
        case 2: palette[c] = kTricky[rng.below(7)]; break;                        // extremes, -0/+0
        case 3: palette[c] = (base & 0xffffff00u) | (rng.next() & 0xffu); break;  // one channel varies
        default: palette[c] = rng.next(); break;
      }
    }
    for (int p = 0; p < kTilePixels; ++p) plane[size_t(p)] = shape == 4 && p % 3 ? 0 : palette[rng.below(colours)];
    ASSERT_EQ(compressed_plane_bits(plane), compress_plane_best(plane).bits) << "plane " << i;
  }
  // Colours that all land in one slot of the estimate's colour set (its multiplicative hash),
  // so every lookup probes past the others: 1 to 32 of them, repeated and in runs.
  std::vector<Rgba8> same_slot;
  for (uint32_t c = 1; same_slot.size() < size_t(kTilePixels); c = c * 2654435761u + 12345u) {
    if ((c * 0x9e3779b1u) >> 26 == 17) same_slot.push_back(c);
  }
  for (int i = 0; i < 20000; ++i) {
    Plane plane;
    const uint32_t colours = 1 + rng.below(uint32_t(kTilePixels));
    for (int p = 0; p < kTilePixels; ++p) {
      plane[size_t(p)] = p > 0 && rng.below(3) == 0 ? plane[size_t(p - 1)] : same_slot[rng.below(colours)];
    }
    ASSERT_EQ(compressed_plane_bits(plane), compress_plane_best(plane).bits) << "same-slot plane " << i;
  }
  // Planes whose channel widths sum to at most one bit, where delta and the palette are closest
  // (flat planes: 37 against 48 bits; two colours one bit apart in one channel: 80 against 101;
  // any channel, any bit pattern, -0/+0 among them), and planes just past them (a second
  // channel, a wider range).
  for (int i = 0; i < 20000; ++i) {
    const Rgba8 base = i % 4 == 0 ? kTricky[rng.below(7)] : rng.next();
    const int channel = int(rng.below(4));
    const Rgba8 bit = Rgba8(1) << (8 * channel);
    const Rgba8 low = base & ~bit, high = base | bit;
    const int kind = i % 5;  // 0 flat, 1 one bit, 2 two channels, 3 range of three, 4 top bit
    const Rgba8 other = kind == 2   ? high ^ (Rgba8(1) << (8 * ((channel + 1) % 4)))
                        : kind == 3 ? ((low & ~(Rgba8(3) << (8 * channel))) | Rgba8(2) << (8 * channel))
                        : kind == 4 ? base ^ 0x80000000u
                                    : high;
    Plane plane;
    for (int p = 0; p < kTilePixels; ++p) plane[size_t(p)] = kind == 0 || rng.below(2) ? low : other;
    ASSERT_EQ(compressed_plane_bits(plane), compress_plane_best(plane).bits)
        << "narrow plane " << i << " kind " << kind;
  }
}

// The spec's flows the plain way (docs/color.md, color_back_end.h): one cache search per
// access, each eviction analyses the block's samples from scratch.
class ReferenceBackEnd {
 public:
  ReferenceBackEnd(const ColorCacheGeometry& g, int samples, Rgba8 clear, const Rgba8* buffer, int width, int height)
      : cache_(g),
        n_(samples),
        clear_(clear),
        buffer_(buffer),
        width_(width),
        height_(height),
        blocks_x_((width + kTileWidth - 1) / kTileWidth),
        halves_(g.line_bytes < kPlaneBits / 8 ? 2 : 1),
        memory_(size_t(blocks_x_) * size_t((height + kTileHeight - 1) / kTileHeight)) {}

  void on_quad_written(int qx, int qy) {
    int planes = 1;
    for (int p = 0; p < 4; ++p) {
      const int x = qx + (p & 1), y = qy + (p >> 1);
      if (x < width_ && y < height_) planes = std::max(planes, distinct_plainly(sample(x, y), n_));
    }
    const int block = (qy / kTileHeight) * blocks_x_ + qx / kTileWidth;
    const int half = halves_ == 2 ? (qx % kTileWidth) / (kTileWidth / 2) : 0;
    for (int plane = 0; plane < planes; ++plane) access(block, plane, half);
  }

  void flush() {
    for (uint64_t line : cache_.resident_lru_order()) {
      if (cache_.contains(line)) evict(line);
    }
  }

  // The final stored form, as the frame path's store_tile gives it.
  StoredTile final_tile(int block) const {
    const Memory& m = memory_[size_t(block)];
    return store_tile(tile(block), clear_,
                      m.state != TileState::planes_compressed && m.state != TileState::planes_uncompressed);
  }
  const ColorTraffic& traffic() const { return t_; }

 private:
  struct Memory {
    TileState state = TileState::cleared;
    std::array<int, kMaxSamples> plane_bits{};
    int resident = 0;
    bool index_on_chip = false;
  };
  const Rgba8* sample(int x, int y) const { return buffer_ + (size_t(y) * size_t(width_) + size_t(x)) * size_t(n_); }
  ColorTile tile(int block) const {
    return gather_tile(buffer_, width_, height_, n_, (block % blocks_x_) * kTileWidth,
                       (block / blocks_x_) * kTileHeight, clear_);
  }
  uint64_t key(int block, int plane, int half) const {
    return uint64_t(block) << 8 | uint64_t(plane) << 1 | uint64_t(half);
  }

  void access(int block, int plane, int half) {
    ++t_.accesses;
    const uint64_t k = key(block, plane, half);
    if (cache_.lookup(k)) {
      ++t_.hits;
      return;
    }
    ++t_.misses;
    const uint64_t victim = cache_.victim_for(k);
    if (victim != ColorCache::kNoLine) evict(victim);
    Memory& m = memory_[size_t(block)];
    t_.control_bits_read += kControlBits;
    if (m.state != TileState::cleared) {
      if (!m.index_on_chip) t_.index_bits_read += uint64_t(tile_index_bits(n_));
      if (m.state == TileState::planes_compressed || m.state == TileState::planes_uncompressed)
        t_.plane_bits_read += uint64_t((m.plane_bits[size_t(plane)] + halves_ - 1) / halves_);
    }
    cache_.insert(k);
    ++m.resident;
    m.index_on_chip = true;
  }

  void evict(uint64_t line) {
    const int block = int(line >> 8);
    Memory& m = memory_[size_t(block)];
    const ColorTile samples = tile(block);
    const PlanedTile planed = to_planes(samples);
    bool all_resident = true;
    if (m.state != TileState::cleared) {
      for (int half = 0; half < halves_; ++half) {
        int planes = 1;
        for (int p = 0; p < kTilePixels; ++p) {
          if (halves_ == 2 && (p % kTileWidth) / (kTileWidth / 2) != half) continue;
          planes = std::max(planes, distinct_plainly(&samples.color[size_t(p * n_)], n_));
        }
        for (int plane = 0; plane < planes; ++plane)
          all_resident = all_resident && cache_.contains(key(block, plane, half));
      }
    }
    if (all_resident) {
      ++t_.palette_attempts;
      IndexBits bits;
      if (const auto enc = encode_index_palette(samples, clear_, bits)) {
        ++t_.palette_stores;
        for (int p = 0; p < kMaxSamples; ++p) {
          for (int h = 0; h < halves_; ++h) cache_.erase(key(block, p, h));
        }
        m.state = tile_state_for(enc->mode);
        m.resident = 0;
        m.index_on_chip = false;
        t_.index_bits_written += uint64_t(tile_index_bits(n_));
        t_.control_bits_written += kControlBits;
        return;
      }
    } else {
      ++t_.palette_skipped;
    }
    for (int p = 0; p < kMaxSamples; ++p) {
      for (int h = 0; h < halves_; ++h) {
        const uint64_t k = key(block, p, h);
        if (!cache_.contains(k)) continue;
        cache_.erase(k);
        --m.resident;
        const int bits = p < planed.planes_used ? compress_plane_best(planed.planes[size_t(p)]).bits : 0;
        m.plane_bits[size_t(p)] = bits;
        t_.plane_bits_written += uint64_t((bits + halves_ - 1) / halves_);
      }
    }
    bool any_compressed = false;
    for (int p = 0; p < planed.planes_used; ++p)
      any_compressed = any_compressed || m.plane_bits[size_t(p)] < kPlaneBits;
    m.state = any_compressed ? TileState::planes_compressed : TileState::planes_uncompressed;
    t_.control_bits_written += kControlBits;
    if (m.resident == 0) {
      t_.index_bits_written += uint64_t(tile_index_bits(n_));
      m.index_on_chip = false;
    }
  }

  ColorCache cache_;
  int n_;
  Rgba8 clear_;
  const Rgba8* buffer_;
  int width_, height_, blocks_x_, halves_;
  std::vector<Memory> memory_;
  ColorTraffic t_;
};

void expect_same_traffic(const ColorTraffic& a, const ColorTraffic& b) {
  EXPECT_EQ(a.accesses, b.accesses);
  EXPECT_EQ(a.hits, b.hits);
  EXPECT_EQ(a.misses, b.misses);
  EXPECT_EQ(a.plane_bits_read, b.plane_bits_read);
  EXPECT_EQ(a.plane_bits_written, b.plane_bits_written);
  EXPECT_EQ(a.index_bits_read, b.index_bits_read);
  EXPECT_EQ(a.index_bits_written, b.index_bits_written);
  EXPECT_EQ(a.control_bits_read, b.control_bits_read);
  EXPECT_EQ(a.control_bits_written, b.control_bits_written);
  EXPECT_EQ(a.palette_attempts, b.palette_attempts);
  EXPECT_EQ(a.palette_stores, b.palette_stores);
  EXPECT_EQ(a.palette_skipped, b.palette_skipped);
}

// A rasterizer-like stream of quad writes into a bin tile: runs of quads in raster order over
// 8x8 blocks (so consecutive quads share blocks and halves), each pixel writing its live
// samples with one colour, sometimes per-sample colours (blending), from a small palette so
// that pixels gather two to all-distinct colours; now and then a jump elsewhere.
struct QuadStream {
  int width, height, samples;
  Rng rng;
  std::vector<Rgba8> palette;
  int qx = 0, qy = 0;

  void write(std::vector<Rgba8>& buffer, int x0, int y0, int& out_qx, int& out_qy, bool& wrote) {
    if (rng.below(16) == 0) {
      x0 = int(rng.below(uint32_t(width))) & ~1;
      y0 = int(rng.below(uint32_t(height))) & ~1;
    }
    out_qx = x0, out_qy = y0;
    wrote = false;
    const unsigned all = (1u << samples) - 1;
    const Rgba8 colour = palette[rng.below(uint32_t(palette.size()))];
    for (int p = 0; p < 4; ++p) {
      const int x = x0 + (p & 1), y = y0 + (p >> 1);
      if (x >= width || y >= height) continue;
      const uint32_t r = rng.below(8);
      const unsigned live = r < 5 ? all : r == 5 ? 0u : unsigned(rng.next()) & all;
      const bool per_sample = rng.below(12) == 0;
      for (int k = 0; k < samples; ++k) {
        if (!(live & (1u << k))) continue;
        buffer[(size_t(y) * size_t(width) + size_t(x)) * size_t(samples) + size_t(k)] =
            per_sample ? palette[rng.below(uint32_t(palette.size()))] : colour;
        wrote = true;
      }
    }
  }
};

void run_stream(int samples, const ColorCacheGeometry& g, int width, int height, bool start_clear, bool payloads,
                uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << samples << "x, cache " << g.size_bytes << "/" << g.line_bytes << "/" << g.ways
                                    << ", " << width << "x" << height << (start_clear ? ", cleared" : ", loaded")
                                    << (payloads ? ", payloads" : ""));
  Rng rng{seed};
  const Rgba8 clear = 0xff202020u;
  std::vector<Rgba8> buffer(size_t(width) * size_t(height) * size_t(samples), clear);
  if (!start_clear) {
    // A loaded tile: earlier contents, some pixels already holding several colours.
    for (Rgba8& c : buffer) c = rng.below(3) == 0 ? kTricky[rng.below(7)] : clear;
  }
  QuadStream stream{width, height, samples, Rng{seed * 7 + 1}, {}};
  const int colours = 2 + int(rng.below(12));
  for (int i = 0; i < colours; ++i) stream.palette.push_back(i < 2 ? kTricky[i] : rng.next());
  stream.palette.push_back(clear);
  // The unit called as the replay calls it, and as the rasterizer does (sample count known at
  // compile time: the inline path).
  ColorBackEnd unit(g, samples, clear, buffer.data(), width, height, payloads, start_clear);
  ColorBackEnd inline_unit(g, samples, clear, buffer.data(), width, height, payloads, start_clear);
  ReferenceBackEnd reference(g, samples, clear, buffer.data(), width, height);
  // Raster order over 8x8 blocks, each quad written 1-3 times (overdraw, edges of neighbours).
  for (int by = 0; by < height; by += 8) {
    for (int bx = 0; bx < width; bx += 8) {
      for (int qy = by; qy < std::min(by + 8, height); qy += 2) {
        for (int qx = bx; qx < std::min(bx + 8, width); qx += 2) {
          const int repeats = 1 + int(stream.rng.below(3));
          for (int r = 0; r < repeats; ++r) {
            int x, y;
            bool wrote;
            stream.write(buffer, qx, qy, x, y, wrote);
            if (!wrote) continue;
            unit.on_quad_written(x, y);
            switch (samples) {
              case 2: inline_unit.on_quad_written<2>(x, y); break;
              case 4: inline_unit.on_quad_written<4>(x, y); break;
              default: inline_unit.on_quad_written<8>(x, y); break;
            }
            reference.on_quad_written(x, y);
          }
        }
      }
    }
  }
  unit.flush();
  inline_unit.flush();
  reference.flush();
  expect_same_traffic(unit.traffic(), reference.traffic());
  expect_same_traffic(inline_unit.traffic(), reference.traffic());
  for (int b = 0; b < unit.blocks_x() * unit.blocks_y(); ++b) {
    const StoredTile expected = reference.final_tile(b);
    for (const ColorBackEnd* tested : {&unit, &inline_unit}) {
      const StoredTile& got = tested->final_tile(b);
      ASSERT_EQ(got.state, expected.state) << "block " << b;
      ASSERT_EQ(got.plane_bits, expected.plane_bits) << "block " << b;
      ASSERT_EQ(got.index_bits, expected.index_bits) << "block " << b;
      ASSERT_EQ(got.planes_used, expected.planes_used) << "block " << b;
      ASSERT_EQ(got.baseline_uncompressed_bits, expected.baseline_uncompressed_bits) << "block " << b;
      ASSERT_EQ(got.baseline_planes_only_bits, expected.baseline_planes_only_bits) << "block " << b;
    }
  }
}

TEST(ColorShortcuts, BackEndMatchesTheStraightforwardModel) {
  const ColorCacheGeometry geometries[] = {
      {16384, 64, 4},  // the default
      {2048, 64, 2},   // evictions of blocks still being written
      {512, 128, 1},   // direct-mapped whole-plane lines
      {64, 64, 1},     // one line: a quad's second plane displaces its first
  };
  const int shapes[][2] = {{32, 32}, {21, 10}};  // a whole bin tile, and one cut by the frame's edge
  uint64_t seed = 1;
  for (int samples : {2, 4, 8}) {
    for (const ColorCacheGeometry& g : geometries) {
      for (const auto& shape : shapes) {
        for (bool start_clear : {true, false}) {
          run_stream(samples, g, shape[0], shape[1], start_clear, false, ++seed);
          run_stream(samples, g, shape[0], shape[1], start_clear, true, ++seed);
        }
      }
    }
  }
}

// One opaque quad write: where, the samples written per pixel and the pixel's one colour.
struct OpaqueQuad {
  int qx, qy;
  unsigned live[4];
  Rgba8 colour[4];
};

void write_quad(std::vector<Rgba8>& buffer, int width, int samples, const OpaqueQuad& q) {
  for (int p = 0; p < 4; ++p) {
    const size_t i = size_t(q.qy + (p >> 1)) * size_t(width) + size_t(q.qx + (p & 1));
    for (int k = 0; k < samples; ++k) {
      if (q.live[p] & (1u << k)) buffer[i * size_t(samples) + size_t(k)] = q.colour[p];
    }
  }
}

template <int kN>
void run_quad_runs(const ColorCacheGeometry& g, int width, int height, bool start_clear, uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << kN << "x, cache " << g.size_bytes << "/" << g.line_bytes << "/" << g.ways << ", "
                                    << width << "x" << height << (start_clear ? ", cleared" : ", loaded"));
  Rng rng{seed};
  const Rgba8 clear = 0xff202020u;
  std::vector<Rgba8> start(size_t(width) * size_t(height) * size_t(kN), clear);
  if (!start_clear) {
    for (Rgba8& c : start) c = rng.below(3) == 0 ? kTricky[rng.below(7)] : clear;
  }
  std::vector<Rgba8> palette = {kTricky[0], kTricky[1], clear};
  for (int i = 0, n = 1 + int(rng.below(10)); i < n; ++i) palette.push_back(rng.next());
  // The stream: quads in raster order over 8x8 blocks, each written one to three times (the
  // next triangles' quads), jumps elsewhere now and then; every written pixel takes one colour
  // in its live samples (whole pixels, partial coverage, untouched pixels, empty quads).
  const unsigned all = (1u << kN) - 1;
  std::vector<OpaqueQuad> quads;
  for (int by = 0; by < height; by += 8) {
    for (int bx = 0; bx < width; bx += 8) {
      for (int qy = by; qy < std::min(by + 8, height); qy += 2) {
        for (int qx = bx; qx < std::min(bx + 8, width); qx += 2) {
          for (int r = 0, repeats = 1 + int(rng.below(3)); r < repeats; ++r) {
            OpaqueQuad q{qx, qy, {}, {}};
            if (rng.below(12) == 0) {
              q.qx = int(rng.below(uint32_t(width))) & ~1;
              q.qy = int(rng.below(uint32_t(height))) & ~1;
            }
            const Rgba8 colour = palette[rng.below(uint32_t(palette.size()))];
            for (int p = 0; p < 4; ++p) {
              const int x = q.qx + (p & 1), y = q.qy + (p >> 1);
              const uint32_t kind = rng.below(8);
              q.live[p] = x >= width || y >= height ? 0u : kind < 5 ? all : kind == 5 ? 0u : unsigned(rng.next()) & all;
              q.colour[p] = rng.below(6) == 0 ? palette[rng.below(uint32_t(palette.size()))] : colour;
            }
            quads.push_back(q);
          }
        }
      }
    }
  }
  // Each unit on its own copy of the bin tile, written as it goes.
  std::vector<Rgba8> run_buffer = start, quad_buffer = start, reference_buffer = start;
  ColorBackEnd run_unit(g, kN, clear, run_buffer.data(), width, height, false, start_clear);
  ColorBackEnd quad_unit(g, kN, clear, quad_buffer.data(), width, height, false, start_clear);
  ReferenceBackEnd reference(g, kN, clear, reference_buffer.data(), width, height);
  for (const OpaqueQuad& q : quads) {
    write_quad(quad_buffer, width, kN, q);
    quad_unit.on_quad_written<kN>(q.qx, q.qy);
    write_quad(reference_buffer, width, kN, q);
    reference.on_quad_written(q.qx, q.qy);
  }
  // Runs of 1 to 16 quads (a flushed batch), crossing blocks and halves.
  int written = 0;
  size_t next = 0;
  while (next < quads.size()) {
    const int n = int(std::min<size_t>(1 + rng.below(16), quads.size() - next));
    run_unit.on_quad_run<kN>(n, [&](int i) {
      EXPECT_EQ(i, written - int(next));  // quads written in order, one at a time
      const OpaqueQuad& q = quads[next + size_t(i)];
      write_quad(run_buffer, width, kN, q);
      ++written;
      return ColorBackEnd::QuadWrite{q.qx, q.qy};
    });
    next += size_t(n);
  }
  ASSERT_EQ(written, int(quads.size()));
  ASSERT_EQ(run_buffer, reference_buffer);
  run_unit.flush();
  quad_unit.flush();
  reference.flush();
  expect_same_traffic(run_unit.traffic(), reference.traffic());
  expect_same_traffic(quad_unit.traffic(), reference.traffic());
  EXPECT_GT(reference.traffic().accesses, quads.size() / 2);
  for (int b = 0; b < run_unit.blocks_x() * run_unit.blocks_y(); ++b) {
    const StoredTile expected = reference.final_tile(b);
    const StoredTile got = run_unit.final_tile(b);  // a view the next call reuses: copied
    ASSERT_EQ(got.state, expected.state) << "block " << b;
    ASSERT_EQ(got.plane_bits, expected.plane_bits) << "block " << b;
    ASSERT_EQ(got.index_bits, expected.index_bits) << "block " << b;
    ASSERT_EQ(got.planes_used, expected.planes_used) << "block " << b;
    ASSERT_EQ(got.baseline_uncompressed_bits, expected.baseline_uncompressed_bits) << "block " << b;
    ASSERT_EQ(got.baseline_planes_only_bits, expected.baseline_planes_only_bits) << "block " << b;
  }
}

TEST(ColorShortcuts, QuadRunsMatchThePerQuadEntryAndTheModel) {
  const ColorCacheGeometry geometries[] = {
      {16384, 64, 4},  // the default
      {2048, 64, 2},   // evictions in the middle of runs, of blocks the run writes again
      {512, 128, 1},   // direct-mapped whole-plane lines
      {64, 64, 1},     // one line: a quad's second plane displaces its first
  };
  const int shapes[][2] = {{32, 32}, {21, 10}, {64, 16}};  // whole bin tiles, and one cut by the frame's edge
  uint64_t seed = 1000;
  for (const ColorCacheGeometry& g : geometries) {
    for (const auto& shape : shapes) {
      for (bool start_clear : {true, false}) {
        run_quad_runs<2>(g, shape[0], shape[1], start_clear, ++seed);
        run_quad_runs<4>(g, shape[0], shape[1], start_clear, ++seed);
        run_quad_runs<8>(g, shape[0], shape[1], start_clear, ++seed);
      }
    }
  }
}

}  // namespace
}  // namespace tessera::color
