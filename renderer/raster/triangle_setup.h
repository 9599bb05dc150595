// Triangle setup: snap window coordinates to the fixed-point grid, decide facing, and
// produce the record the tile rasterizer walks (edge functions with the top-left rule).
#pragma once

#include <cstdint>

#include <glm/glm.hpp>

#include "geometry/clipper.h"

namespace tessera {

// Sub-pixel precision of the rasterizer: 8 fractional bits (1/256 pixel), like lavapipe.
constexpr int kSubpixelBits = 8;
constexpr int kSubpixelOne = 1 << kSubpixelBits;
constexpr int kSubpixelHalf = kSubpixelOne / 2;

// One rasterizable triangle, as written to the parameter buffer by binning and read back by
// every tile it touches. 176 bytes:
//   x, y      24 B  vertex positions in 1/256 pixel, orientation normalised so the interior
//                   has positive edge functions
//   z         12 B  window depth (z/w) per vertex
//   inv_w     12 B  1/w per vertex for perspective-correct interpolation
//   varyings  96 B  8 floats per vertex
//   min/max   16 B  inclusive pixel bounding box (pixels with a sample in reach), clamped
//                   to the viewport
//   draw       4 B  index of the draw (instance) for uniforms
//   top_left   4 B  fill rule: bit i set when edge i is a top or left edge
struct TriangleSetup {
  int32_t x[3];
  int32_t y[3];
  float z[3];
  float inv_w[3];
  float varyings[3][kMaxVaryings];
  int32_t min_x, min_y, max_x, max_y;
  uint32_t draw;
  uint32_t top_left;
};
static_assert(sizeof(TriangleSetup) == 168, "parameter-buffer accounting assumes 168-byte records");

enum class SetupResult { ok, culled_backface, culled_degenerate };

// Reach of a pixel's sample positions in 1/256 pixel from its top-left corner: {128, 128,
// 128, 128} for single sampling (the pixel centre).
struct SampleExtent {
  int32_t min_x = kSubpixelHalf;
  int32_t max_x = kSubpixelHalf;
  int32_t min_y = kSubpixelHalf;
  int32_t max_y = kSubpixelHalf;
};

struct Viewport {
  int width = 0;
  int height = 0;
  SampleExtent samples;  // where samples sit inside a pixel (MSAA)
};

// Sets up a triangle from clip-space vertices (w > 0, inside the guard band).
// `cull_backface`: drop triangles that are clockwise on screen (counter-clockwise is front).
SetupResult setup_triangle(const ClipVertex& a, const ClipVertex& b, const ClipVertex& c, const Viewport& vp,
                           bool cull_backface, int varying_count, uint32_t draw, TriangleSetup& out);

// Edge i runs from vertex i to vertex (i+1)%3. Its function at fixed-point point (px, py) is
// A * (px - x_i) + B * (py - y_i) with A = y_{i+1} - y_i, B = x_i - x_{i+1}: positive inside.
struct EdgeFunction {
  int64_t a;
  int64_t b;
  int64_t c;  // value at fixed-point (0, 0), including the fill-rule bias (-1 if not top-left)
  int64_t at(int64_t px, int64_t py) const { return a * px + b * py + c; }
};

// Edge functions with the top-left bias folded in: a sample is covered iff all three are >= 0.
void edge_functions(const TriangleSetup& t, EdgeFunction e[3]);

// Cross product of the edges v0->v1 and v0->v2 (twice the signed area, in fixed-point units
// squared). Negative after setup; minus this is the sum of the three edge functions.
inline int64_t doubled_area(const TriangleSetup& t) {
  return int64_t(t.x[1] - t.x[0]) * (t.y[2] - t.y[0]) - int64_t(t.y[1] - t.y[0]) * (t.x[2] - t.x[0]);
}

}  // namespace tessera
