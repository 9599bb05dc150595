// The tile rasterizer: walks one triangle over one tile in 8x8 blocks (rejected or accepted
// whole at their corners) and 2x2 quads, tests the pixel centres against the edge functions
// (top-left rule) where a block is only partly covered, runs the early LESS depth test on D32F, and
// shades each quad with at least one surviving pixel once, helpers included (the fragment
// program needs its neighbours for texture derivatives).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "raster/raster_counters.h"
#include "raster/triangle_setup.h"
#include "tessera/image.h"
#include "tessera/sampler.h"

namespace tessera {

// On-chip tile buffer: colour (sRGB-encoded RGBA8) and depth for one tile.
struct TileBuffer {
  int x0 = 0;  // viewport position of the tile's top-left pixel
  int y0 = 0;
  int width = 0;  // may be smaller than the tile size at the right and bottom edges
  int height = 0;
  Rgba8* color = nullptr;  // width * height, row-major
  float* depth = nullptr;
};

// Encodes a linear colour for the RGBA8 sRGB colour buffer (alpha 1).
inline Rgba8 encode_color(const glm::vec3& linear) {
  return pack_rgba8(encode_srgb8(linear.r), encode_srgb8(linear.g), encode_srgb8(linear.b), 255);
}

// Block edge for hierarchical traversal: blocks of 8x8 pixels are classified against each
// edge at their extreme corners before any pixel is tested.
constexpr int kRasterBlock = 8;

template <typename FragmentShader, int kVaryingCount>
void rasterize_triangle(const TriangleSetup& t, const typename FragmentShader::Uniforms& uniforms, TileBuffer& tile,
                        RasterCounters& counters, SamplerCounters& sampler) {
  const int tx_end = tile.x0 + tile.width;
  const int ty_end = tile.y0 + tile.height;
  const int x_lo = std::max(t.min_x, tile.x0);
  const int y_lo = std::max(t.min_y, tile.y0);
  const int x_hi = std::min(t.max_x, tx_end - 1);
  const int y_hi = std::min(t.max_y, ty_end - 1);
  if (x_lo > x_hi || y_lo > y_hi) return;

  EdgeFunction e[3];
  edge_functions(t, e);
  int64_t bias[3];
  for (int i = 0; i < 3; ++i) bias[i] = (t.top_left >> i) & 1u ? 0 : 1;
  // Barycentric weight of vertex k is the edge function of the edge opposite it, (k+1)%3.
  const float inv_sum = 1.0f / float(-doubled_area(t));
  const int64_t step = int64_t(kSubpixelOne);
  auto centre = [](int p) { return int64_t(p) * kSubpixelOne + kSubpixelHalf; };

  float varyings[4][kVaryingCount];
  glm::vec3 shaded[4];

  // Blocks are aligned to multiples of 8 in the viewport (tiles are multiples of 8), quads to
  // multiples of 2, so a pixel belongs to the same block and quad whatever the tile size.
  for (int by = y_lo & ~(kRasterBlock - 1); by <= y_hi; by += kRasterBlock) {
    for (int bx = x_lo & ~(kRasterBlock - 1); bx <= x_hi; bx += kRasterBlock) {
      // Pixels of this block that the triangle's bounding box and the tile allow.
      const int cx0 = std::max(bx, x_lo), cx1 = std::min(bx + kRasterBlock - 1, x_hi);
      const int cy0 = std::max(by, y_lo), cy1 = std::min(by + kRasterBlock - 1, y_hi);
      bool rejected = false;
      bool full = true;
      for (int i = 0; i < 3; ++i) {
        // Largest and smallest value of a linear function over the rectangle sit at
        // opposite corners chosen by the signs of its gradient.
        const int64_t hi = e[i].at(centre(e[i].a > 0 ? cx1 : cx0), centre(e[i].b > 0 ? cy1 : cy0));
        const int64_t lo = e[i].at(centre(e[i].a > 0 ? cx0 : cx1), centre(e[i].b > 0 ? cy0 : cy1));
        rejected = rejected || hi < 0;
        full = full && lo >= 0;
      }
      if (rejected) {
        ++counters[RasterCounters::blocks_rejected];
        continue;
      }
      ++counters[full ? RasterCounters::blocks_full : RasterCounters::blocks_partial];

      for (int qy = cy0 & ~1; qy <= cy1; qy += 2) {
        int64_t row[3];
        for (int i = 0; i < 3; ++i) row[i] = e[i].at(centre(cx0 & ~1), centre(qy));
        for (int qx = cx0 & ~1; qx <= cx1; qx += 2) {
          // Edge values at the four pixel centres: (0,0), (1,0), (0,1), (1,1).
          int64_t ev[3][4];
          for (int i = 0; i < 3; ++i) {
            ev[i][0] = row[i];
            ev[i][1] = row[i] + e[i].a * step;
            ev[i][2] = row[i] + e[i].b * step;
            ev[i][3] = row[i] + (e[i].a + e[i].b) * step;
            row[i] += 2 * e[i].a * step;
          }
          unsigned inside = 0;
          for (int p = 0; p < 4; ++p) {
            const int px = qx + (p & 1);
            const int pyi = qy + (p >> 1);
            const bool in_rect = px >= cx0 && px <= cx1 && pyi >= cy0 && pyi <= cy1;
            if (in_rect && (full || (ev[0][p] | ev[1][p] | ev[2][p]) >= 0)) inside |= 1u << p;
          }
          if (!inside) continue;
          ++counters[RasterCounters::quads_covered];
          counters[RasterCounters::fragments_covered] += unsigned(std::popcount(inside));

          float b[4][3];
          for (int p = 0; p < 4; ++p) {
            b[p][0] = float(ev[1][p] + bias[1]) * inv_sum;
            b[p][1] = float(ev[2][p] + bias[2]) * inv_sum;
            b[p][2] = float(ev[0][p] + bias[0]) * inv_sum;
          }
          unsigned live = 0;
          float z[4] = {1.0f, 1.0f, 1.0f, 1.0f};
          for (int p = 0; p < 4; ++p) {
            if (!(inside & (1u << p))) continue;
            z[p] = b[p][0] * t.z[0] + b[p][1] * t.z[1] + b[p][2] * t.z[2];
            const size_t idx = size_t(qy + (p >> 1) - tile.y0) * size_t(tile.width) + size_t(qx + (p & 1) - tile.x0);
            if (z[p] < tile.depth[idx]) live |= 1u << p;
          }
          const unsigned passed = unsigned(std::popcount(live));
          counters[RasterCounters::depth_passed] += passed;
          counters[RasterCounters::depth_failed] += unsigned(std::popcount(inside)) - passed;
          if (!live) continue;

          // Perspective-correct interpolation for all four pixels (helpers included).
          for (int p = 0; p < 4; ++p) {
            const float w0 = b[p][0] * t.inv_w[0];
            const float w1 = b[p][1] * t.inv_w[1];
            const float w2 = b[p][2] * t.inv_w[2];
            const float inv = 1.0f / (w0 + w1 + w2);
            const float p0 = w0 * inv, p1 = w1 * inv, p2 = w2 * inv;
            for (int k = 0; k < kVaryingCount; ++k) {
              varyings[p][k] = p0 * t.varyings[0][k] + p1 * t.varyings[1][k] + p2 * t.varyings[2][k];
            }
          }
          FragmentShader::run_quad(uniforms, varyings, live, shaded, sampler);
          ++counters[RasterCounters::quads_shaded];
          counters[RasterCounters::fs_invocations] += 4;
          counters[RasterCounters::fs_helpers] += 4 - unsigned(std::popcount(inside));
          for (int p = 0; p < 4; ++p) {
            if (!(live & (1u << p))) continue;
            const size_t idx = size_t(qy + (p >> 1) - tile.y0) * size_t(tile.width) + size_t(qx + (p & 1) - tile.x0);
            tile.depth[idx] = z[p];
            tile.color[idx] = encode_color(shaded[p]);
          }
        }
      }
    }
  }
}

}  // namespace tessera
