#include "raster/raster_lanes.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "raster/tile_rasterizer.h"

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
// int32 bound are taken; on the accepted side every evaluated edge value must fit int32.
TEST(RasterLanes, QuadRowsMatchScalarInt64Path) {
  const int w = 8192, h = 8192;
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int accepted = 0, refused = 0;
  uint64_t lanes_checked = 0, lanes_covered = 0;
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
    if (!edge_values_fit_int32(e, x_lo, y_lo, x_hi, y_hi)) {
      ++refused;
      continue;
    }
    ++accepted;
    const float inv_sum = 1.0f / float(-doubled_area(t));
    alignas(64) raster_lanes::TriangleLanes lanes;
    raster_lanes::prepare(t, e, inv_sum, lanes);
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
          int32_t edge[3];
          for (int i = 0; i < 3; ++i) {
            edge[i] = int32_t(e[i].at(int64_t(bx) * 256 + 128, int64_t(qy) * 256 + 128));
          }
          float stored[16];
          for (float& s : stored) s = float(unit(rng));
          alignas(64) raster_lanes::RowLanes out;
          uint32_t passed = 0;
          const uint32_t covered = raster_lanes::cover_row(lanes, edge, valid, false, stored, stored + 8, &passed, out);
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
              ASSERT_GE(ev[i], int64_t(INT32_MIN)) << "bound proof fails at triangle " << n;
              ASSERT_LE(ev[i] + 1, int64_t(INT32_MAX)) << "bound proof fails at triangle " << n;
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
  EXPECT_GT(lanes_covered, 100000u);
  EXPECT_GT(lanes_checked - lanes_covered, 100000u);
}

// A triangle whose edge values in a tile exceed int32 is refused (it takes the int64 path).
TEST(RasterLanes, LargeTrianglesAreRefused) {
  EdgeFunction e[3] = {{1 << 16, 0, 0}, {0, 1 << 16, 0}, {-(1 << 16), -(1 << 16), int64_t(1) << 40}};
  EXPECT_FALSE(edge_values_fit_int32(e, 0, 0, 63, 63));
  EdgeFunction small[3] = {{256, 0, 0}, {0, 256, 0}, {-256, -256, int64_t(64) * 256 * 256}};
  EXPECT_TRUE(edge_values_fit_int32(small, 0, 0, 63, 63));
}

}  // namespace
}  // namespace tessera
