#include "raster/raster_lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <random>
#include <vector>

#include "raster/tile_rasterizer.h"
#include "eu/lane_target_test_support.h"
#include "raster/raster_test_support.h"

namespace tessera {
namespace {

ClipVertex at_pixel(double x, double y, int w, int h, float z, float inv_w) {
  ClipVertex v{};
  const float cw = 1.0f / inv_w;
  v.clip = {float((2.0 * x / w - 1.0) * cw), float((2.0 * y / h - 1.0) * cw), z * cw, cw};
  for (int k = 0; k < kMaxVaryings; ++k) v.varyings[k] = float(x * 0.01 + y * 0.003 + k);
  return v;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// Every lane of every quad row the rasterizer would evaluate in lanes, against the scalar int64
// formulas of the tile rasterizer: coverage, depth, the LESS test, the perspective weights and the
// varyings, bit for bit. Triangles from a few pixels to thousands, so that both sides of the
// int32 bound are taken: on the accepted side every evaluated edge value must fit int32; the
// refused ones take the wide (double) rows, whose values must lie within 2^53.
TEST(RasterLanes, QuadRowsMatchScalarInt64Path) {
  lane_testing::for_each_lane_target([&] {
    const int w = 8192, h = 8192;
    std::mt19937 rng(23);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    int accepted = 0, refused = 0, wide = 0;
    uint64_t lanes_checked = 0, lanes_covered = 0, full_rows = 0;
    for (int n = 0; n < 3000; ++n) {
      // A 64x64 tile and a triangle around it with a size from 1 to ~4000 pixels.
      const int tx = int(unit(rng) * 120) * 64, ty = int(unit(rng) * 120) * 64;
      const double size = std::exp(unit(rng) * std::log(4000.0));
      const double cx = tx + unit(rng) * 64, cy = ty + unit(rng) * 64;
      ClipVertex v[3];
      for (auto& vert : v) {
        vert = at_pixel(cx + (unit(rng) - 0.5) * size, cy + (unit(rng) - 0.5) * size, w, h, float(unit(rng)),
                        float(0.2 + unit(rng)));
      }
      TriangleSetup t;
      if (setup_triangle(v[0], v[1], v[2], Viewport{w, h}, false, kMaxVaryings, 0, t) != SetupResult::ok) continue;
      const int x_lo = std::max(t.min_x, tx), y_lo = std::max(t.min_y, ty);
      const int x_hi = std::min(t.max_x, tx + 63), y_hi = std::min(t.max_y, ty + 63);
      if (x_lo > x_hi || y_lo > y_hi) continue;
      EdgeFunction e[3];
      edge_functions(t, e);
      const bool narrow = edge_values_fit_int32(e, x_lo, y_lo, x_hi, y_hi);
      if (!narrow) {
        ++refused;
        if (!edge_values_fit_wide(e, x_lo, y_lo, x_hi, y_hi)) continue;
        ++wide;
      } else {
        ++accepted;
      }
      // The wide rows' exactness bound, and the int32 one on the narrow side.
      const int64_t limit = narrow ? int64_t(INT32_MAX) : int64_t(1) << 53;
      const auto cover_row = narrow ? raster_lanes::cover_row : raster_lanes::cover_row_wide;
      const float inv_sum = 1.0f / float(-doubled_area(t));
      alignas(64) raster_lanes::TriangleLanes lanes;
      raster_lanes::prepare(t, e, inv_sum, !narrow, lanes);
      int64_t bias[3];
      for (int i = 0; i < 3; ++i) {
        bias[i] = (t.top_left >> i) & 1u ? 0 : 1;
        ASSERT_EQ(lanes.bias[i], bias[i]);
      }
      for (int by = y_lo & ~7; by <= y_hi; by += 8) {
        for (int bx = x_lo & ~7; bx <= x_hi; bx += 8) {
          const int cx0 = std::max(bx, x_lo), cx1 = std::min(bx + 7, x_hi);
          const int cy0 = std::max(by, y_lo), cy1 = std::min(by + 7, y_hi);
          const uint32_t columns = ((2u << (cx1 - bx)) - 1) & ~((1u << (cx0 - bx)) - 1);
          for (int qy = cy0 & ~1; qy <= cy1; qy += 2) {
            const uint32_t valid = (qy >= cy0 ? columns : 0u) | (qy + 1 <= cy1 ? columns << 8 : 0u);
            int64_t edge[3];
            for (int i = 0; i < 3; ++i) edge[i] = e[i].at(int64_t(bx) * 256 + 128, int64_t(qy) * 256 + 128);
            float stored[16];
            for (float& s : stored) s = float(unit(rng));
            alignas(64) raster_lanes::RowLanes out;
            uint32_t passed = 0;
            const uint32_t covered = cover_row(lanes, edge, valid, false, stored, stored + 8,
                                               raster_lanes::DepthRowWrite::keep, &passed, out);
            // The same row with the depth write: the passed lanes get z, every other lane keeps
            // its value; the rows are apart in memory, as a tile's are.
            float rows[2][12];
            for (int j = 0; j < 16; ++j) rows[j >> 3][j & 7] = stored[j];
            for (int r = 0; r < 2; ++r) {
              for (int j = 8; j < 12; ++j) rows[r][j] = -1.0f;
            }
            alignas(64) raster_lanes::RowLanes written_out;
            uint32_t written_passed = 0;
            ASSERT_EQ(cover_row(lanes, edge, valid, false, rows[0], rows[1], raster_lanes::DepthRowWrite::passed,
                                &written_passed, written_out),
                      covered);
            // The passed lanes hold z, every other lane its stored value.
            auto expect_row_depths = [&] {
              ASSERT_EQ(written_passed, passed);
              for (int j = 0; j < 16; ++j) {
                const float expected = (passed >> j) & 1u ? out.z[j] : stored[j];
                ASSERT_EQ(bits(rows[j >> 3][j & 7]), bits(expected)) << "triangle " << n << " lane " << j;
              }
            };
            expect_row_depths();
            for (int r = 0; r < 2; ++r) {
              for (int j = 8; j < 12; ++j) ASSERT_EQ(rows[r][j], -1.0f);
            }
            if (covered == valid) {
              // A row covered whole, as a full block's rows are: the same write without the edge tests.
              for (int j = 0; j < 16; ++j) rows[j >> 3][j & 7] = stored[j];
              ASSERT_EQ(cover_row(lanes, edge, valid, true, rows[0], rows[1], raster_lanes::DepthRowWrite::passed,
                                  &written_passed, written_out),
                        covered);
              expect_row_depths();
              ++full_rows;
            }
            float varyings[4][4][kMaxVaryings];
            for (int qc = 0; qc < 8; qc += 2) raster_lanes::interpolate_quad(lanes, out, qc, varyings[qc / 2]);
            for (int j = 0; j < 16; ++j) {
              const int qc = (j & 7) & ~1;
              // Lanes of quads with a pixel in the block's rectangle: what the rasterizer reads.
              const uint32_t quad = (3u << qc) | (3u << (qc + 8));
              if (!(valid & quad)) continue;
              const int64_t px = int64_t(bx + (j & 7)) * 256 + 128, py = int64_t(qy + (j >> 3)) * 256 + 128;
              const int64_t ev[3] = {e[0].at(px, py), e[1].at(px, py), e[2].at(px, py)};
              for (int i = 0; i < 3; ++i) {
                ASSERT_GE(ev[i], -limit) << "bound proof fails at triangle " << n;
                ASSERT_LE(ev[i] + 1, limit) << "bound proof fails at triangle " << n;
              }
              const bool in = ((valid >> j) & 1u) && (ev[0] | ev[1] | ev[2]) >= 0;
              ASSERT_EQ(((covered >> j) & 1u) != 0, in) << "triangle " << n << " lane " << j;
              const float b0 = float(ev[1] + bias[1]) * inv_sum;
              const float b1 = float(ev[2] + bias[2]) * inv_sum;
              const float b2 = float(ev[0] + bias[0]) * inv_sum;
              const float z = b0 * t.z[0] + b1 * t.z[1] + b2 * t.z[2];
              const float w0 = b0 * t.inv_w[0], w1 = b1 * t.inv_w[1], w2 = b2 * t.inv_w[2];
              const float inv = 1.0f / (w0 + w1 + w2);
              const float p[3] = {w0 * inv, w1 * inv, w2 * inv};
              ASSERT_EQ(bits(out.z[j]), bits(z)) << "triangle " << n << " lane " << j;
              ASSERT_EQ(((passed >> j) & 1u) != 0, in && z < stored[j]);
              for (int i = 0; i < 3; ++i) ASSERT_EQ(bits(out.p[i][j]), bits(p[i]));
              for (int k = 0; k < kMaxVaryings; ++k) {
                const float ref = p[0] * t.varyings[0][k] + p[1] * t.varyings[1][k] + p[2] * t.varyings[2][k];
                ASSERT_EQ(bits(varyings[qc / 2][(j >> 3) * 2 + (j & 1)][k]), bits(ref));
              }
              ++lanes_checked;
              lanes_covered += in;
            }
          }
        }
      }
    }
    // Both sides of the bound and plenty of covered and uncovered lanes were exercised.
    EXPECT_GT(accepted, 500);
    EXPECT_GT(refused, 100);
    EXPECT_EQ(wide, refused);  // no triangle on an 8192-pixel viewport comes near 2^53
    EXPECT_GT(lanes_covered, 100000u);
    EXPECT_GT(lanes_checked - lanes_covered, 100000u);
    EXPECT_GT(full_rows, 1000u);
  });
}

// A triangle whose edge values in a tile exceed int32 is refused by the 32-bit lanes (it takes
// the wide rows), and one beyond 2^53 by the wide rows too (it takes the int64 path).
TEST(RasterLanes, LargeTrianglesAreRefused) {
  EdgeFunction e[3] = {{1 << 16, 0, 0}, {0, 1 << 16, 0}, {-(1 << 16), -(1 << 16), int64_t(1) << 40}};
  EXPECT_FALSE(edge_values_fit_int32(e, 0, 0, 63, 63));
  EXPECT_TRUE(edge_values_fit_wide(e, 0, 0, 63, 63));
  EdgeFunction small[3] = {{256, 0, 0}, {0, 256, 0}, {-256, -256, int64_t(64) * 256 * 256}};
  EXPECT_TRUE(edge_values_fit_int32(small, 0, 0, 63, 63));
  // The bound at its edge: c alone is evaluated at the tile's corner (0, 0).
  const int64_t top = (int64_t(1) << 53) - 2;
  EdgeFunction at_top[3] = {{-1, 0, top}, {0, -1, top}, {1, 1, 0}};
  EXPECT_TRUE(edge_values_fit_wide(at_top, 0, 0, 63, 63));
  at_top[0].c = top + 1;
  EXPECT_FALSE(edge_values_fit_wide(at_top, 0, 0, 63, 63));
}

// The whole rasterizer against a per-pixel reference (int64 edge values at pixel centres, the
// same depth formula) for every depth state: random small and large triangles drawn in order
// into a 44x37 tile (rows that run past the tile's right and bottom edges), each writing its
// own colour; some so large that they take the int64 path. Depth and colour must match bit
// for bit, and the reference must see each configuration both pass and fail the test.
struct IndexShader {
  struct Uniforms {
    glm::vec3 color;
  };
  using Counters = SamplerCounters;
  static void run_quad(const Uniforms& u, const float (*)[8], unsigned, glm::vec3* out, SamplerCounters&) {
    for (int i = 0; i < 4; ++i) out[i] = u.color;
  }
};

TEST(RasterLanes, DepthStatesMatchPerPixelReference) {
  lane_testing::for_each_lane_target([&] {
    const int w = 44, h = 37;
    const std::vector<DepthState> states = raster_testing::every_depth_state();
    for (size_t s = 0; s <= states.size(); ++s) {
      const bool less_path = s == states.size();  // the compiled-in LESS test
      const DepthState state = less_path ? DepthState{} : states[s];
      std::mt19937 rng(unsigned(100 + s));
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      std::vector<Rgba8> color(size_t(w * h), 0), ref_color(color);
      std::vector<float> depth(size_t(w * h), 0.5f), ref_depth(depth);
      TileBuffer tile{0, 0, w, h, color.data(), depth.data()};
      RasterCounters rc;
      SamplerCounters sc;
      uint64_t passes = 0, fails = 0;
      int wide = 0;
      for (int n = 0; n < 300; ++n) {
        // Mostly small triangles; every 10th large, every 25th so large that its edge values in
        // the tile exceed int32 (the wide rows).
        const double size = n % 25 == 0 ? 30000.0 : n % 10 == 0 ? 200.0 : 2.0 + unit(rng) * 20.0;
        const double cx = unit(rng) * w, cy = unit(rng) * h;
        ClipVertex v[3];
        // Depths snapped to 1/8 so that equal depths happen.
        for (auto& vert : v) {
          vert = at_pixel(cx + (unit(rng) - 0.5) * size, cy + (unit(rng) - 0.5) * size, w, h,
                          float(int(unit(rng) * 8.0) / 8.0), 1.0f);
        }
        if (n % 7 == 0) v[1].clip.z = v[2].clip.z = v[0].clip.z;  // flat: exact equal depths
        TriangleSetup t;
        if (setup_triangle(v[0], v[1], v[2], Viewport{w, h}, false, kMaxVaryings, 0, t) != SetupResult::ok) continue;
        {
          EdgeFunction e[3];
          edge_functions(t, e);
          wide += !edge_values_fit_int32(e, t.min_x, t.min_y, t.max_x, t.max_y);
        }
        const glm::vec3 c(float(n % 50) / 50.0f, float(n / 50) / 8.0f, 0.5f);
        if (less_path) {
          rasterize_triangle<IndexShader, 8>(t, IndexShader::Uniforms{c}, tile, rc, sc);
        } else {
          rasterize_triangle<IndexShader, 8>(t, IndexShader::Uniforms{c}, tile, rc, sc, DepthStateTest{state});
        }
        EdgeFunction e[3];
        edge_functions(t, e);
        const float inv_sum = 1.0f / float(-doubled_area(t));
        for (int y = t.min_y; y <= t.max_y; ++y) {
          for (int x = t.min_x; x <= t.max_x; ++x) {
            const int64_t px = int64_t(x) * 256 + 128, py = int64_t(y) * 256 + 128;
            const int64_t ev[3] = {e[0].at(px, py), e[1].at(px, py), e[2].at(px, py)};
            if ((ev[0] | ev[1] | ev[2]) < 0) continue;
            float b[3];
            for (int k = 0; k < 3; ++k) {
              const int i = (k + 1) % 3;
              b[k] = float(ev[i] + ((t.top_left >> i) & 1u ? 0 : 1)) * inv_sum;
            }
            const float z = b[0] * t.z[0] + b[1] * t.z[1] + b[2] * t.z[2];
            const size_t at = size_t(y * w + x);
            if (!DepthStateTest{state}.passes(z, ref_depth[at])) {
              ++fails;
              continue;
            }
            ++passes;
            if (DepthStateTest{state}.writes()) ref_depth[at] = z;
            ref_color[at] = encode_color(c);
          }
        }
      }
      for (size_t i = 0; i < depth.size(); ++i) {
        ASSERT_EQ(bits(depth[i]), bits(ref_depth[i])) << "state " << s << " pixel " << i;
        ASSERT_EQ(color[i], ref_color[i]) << "state " << s << " pixel " << i;
      }
      EXPECT_EQ(rc[RasterCounters::depth_passed], passes) << "state " << s;
      EXPECT_EQ(rc[RasterCounters::depth_failed], fails) << "state " << s;
      EXPECT_GT(wide, 3) << "state " << s;
      const CompareOp op = state.compare;
      if (state.test && op != CompareOp::never) {
        EXPECT_GT(passes, 0u) << "state " << s;
      }
      if (state.test && op != CompareOp::always) {
        EXPECT_GT(fails, 0u) << "state " << s;
      }
    }
  });
}

// The flush's colour encode in lanes against encode_srgb8, channel by channel: floats across
// [0, 1] at a stride, every float within 300 ulps of each rounding step and of each bucket edge
// of the scalar encoder's table, and NaN, infinities, zeros, negatives, denormals and values
// above 1; batches of 1 to 16 colours, channels shifted between batches.
TEST(RasterLanes, ColorEncodeMatchesScalarEncoder) {
  lane_testing::for_each_lane_target([&] {
    std::vector<float> values;
    for (uint32_t b = 0; b <= std::bit_cast<uint32_t>(1.001f); b += 97) values.push_back(std::bit_cast<float>(b));
    auto around = [&](double x) {
      const uint32_t c = std::bit_cast<uint32_t>(float(x));
      for (uint32_t b = c - 300; b != c + 300; ++b) values.push_back(std::bit_cast<float>(b));
    };
    for (int k = 1; k < 256; ++k) around(detail::srgb_tables.step[k]);
    for (int i = 1; i <= 4096; ++i) around(double(i) / 4096.0);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (float f : {nan, -nan, inf, -inf, 0.0f, -0.0f, -1.0f, 1.0f, 2.0f, 1e30f, -1e-30f, 1e-45f, 1e-38f,
                    std::bit_cast<float>(0x7FA00001u)}) {
      values.push_back(f);
    }
    size_t checked = 0;
    std::mt19937 rng(5);
    for (size_t i = 0; i < values.size();) {
      const int n = 1 + int(rng() % 16);
      // Colours at scattered offsets of a larger array (as a batch's live pixels among its quads'
      // four), the offsets past n left stale: they must not matter.
      float linear[3 * 4 * raster_lanes::kEncodeBlock];
      for (float& f : linear) f = std::numeric_limits<float>::quiet_NaN();
      int32_t index[raster_lanes::kEncodeBlock];
      for (int k = 0; k < raster_lanes::kEncodeBlock; ++k) index[k] = int32_t(rng() % 1000000u);
      std::vector<int> slots(4 * raster_lanes::kEncodeBlock);
      for (int k = 0; k < 4 * raster_lanes::kEncodeBlock; ++k) slots[size_t(k)] = k;
      std::shuffle(slots.begin(), slots.end(), rng);
      for (int k = 0; k < n; ++k) {
        index[k] = 3 * slots[size_t(k)];
        for (int c = 0; c < 3; ++c) linear[index[k] + c] = values[(i + size_t(3 * k + c)) % values.size()];
      }
      uint32_t out[raster_lanes::kEncodeBlock];
      raster_lanes::encode_colors(linear, index, n, out);
      for (int k = 0; k < n; ++k) {
        const float* c = linear + index[k];
        const Rgba8 want = pack_rgba8(encode_srgb8(c[0]), encode_srgb8(c[1]), encode_srgb8(c[2]), 255);
        ASSERT_EQ(out[k], want) << c[0] << " " << c[1] << " " << c[2];
        ++checked;
      }
      i += size_t(3 * n);
    }
    EXPECT_GT(checked, 3'000'000u);
  });
}

}  // namespace
}  // namespace tessera
