// The tile rasterizer's quad rows in SIMD lanes (single sampling): the 16 pixels of one quad row
// of an 8x8 block (8 columns x 2 rows, the four quads of the row in order) are one batch of
// lanes for the edge functions, coverage (top-left rule), depth interpolation, the LESS test
// and the perspective-correct interpolation of the varyings. Every lane does the scalar path's
// float operations in the same order, so results are bit for bit the scalar ones.
//
// Edge values are 32-bit lanes. The tile rasterizer takes this path only when every edge value
// it can evaluate for the triangle in the tile fits in int32 (`edge_values_fit_int32`); the lane
// arithmetic then wraps modulo 2^32 in intermediate sums, and a sum whose true value is in int32
// range is exact after wrapping, so each lane holds the exact edge value and converts to the
// same float as the scalar int64 path's conversion. Larger triangles (near the camera) take the
// wide rows: edge values as doubles, exact while every value the rasterizer evaluates lies within
// +-(2^53 - 2) (`edge_values_fit_wide`), and a double holding an integer rounds to the float that
// the integer itself rounds to (one rounding either way).
#pragma once

#include <cstdint>

#include "raster/triangle_setup.h"

namespace tessera::raster_lanes {

constexpr int kRowLanes = 16;  // lane j: pixel (bx + j % 8, qy + j / 8)

// Per triangle and tile: lane offsets of the edge functions and the triangle's constants.
struct alignas(64) TriangleLanes {
  int32_t edge_offset[3][kRowLanes];  // a * 256 * column + b * 256 * row, modulo 2^32
  double wide_offset[3][kRowLanes];   // the same, exact (filled by prepare with wide set)
  int32_t bias[3];                    // +1 for an edge that is not top-left (undoes the fill-rule bias)
  float inv_sum;                      // 1 / (twice the triangle's area)
  const TriangleSetup* setup;         // depth, 1/w and varyings per vertex
};

// Per quad row: what the lanes found.
struct alignas(64) RowLanes {
  float z[kRowLanes];     // interpolated depth (meaningful in covered lanes)
  float p[3][kRowLanes];  // perspective-correct barycentrics at the pixel centres
};

// Fills the lane offsets for the edge functions' gradients (any int64: the offsets are taken
// modulo 2^32; with `wide`, as doubles instead, for cover_row_wide: exact, as a and b are
// differences of int32 coordinates), the fill-rule bias and the triangle.
void prepare(const TriangleSetup& setup, const EdgeFunction e[3], float inv_sum, bool wide, TriangleLanes& t);

// What cover_row does with the depth rows it tests against: leaves them (a copy, or a caller
// that writes later), or writes z into the lanes that pass, as the LESS test's depth write.
enum class DepthRowWrite : uint8_t { keep, passed };

// Coverage and depth of a quad row. `edge` holds the three edge values (fill-rule bias folded in)
// at the centre of the row's first pixel (cover_row: each fits int32 and is taken as such;
// cover_row_wide: within +-(2^53 - 2)); `valid` the lanes inside the block's clipped rectangle;
// `full` a block that is covered whole. Returns the covered lanes and writes z and the
// perspective barycentrics of every lane to `out`. With `depth` rows (8 readable floats each,
// row 0 and row 1) it also runs the LESS test: *passed gets the covered lanes with z < stored,
// and with DepthRowWrite::passed their z is stored there (the other lanes are rewritten with
// their own value: the rows must be 8 writable floats each).
// cover_row takes the lanes' edge values from prepare's int32 offsets, cover_row_wide from its
// double ones.
uint32_t cover_row(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full, float* depth_row0,
                   float* depth_row1, DepthRowWrite write, uint32_t* passed, RowLanes& out);
uint32_t cover_row_wide(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full, float* depth_row0,
                        float* depth_row1, DepthRowWrite write, uint32_t* passed, RowLanes& out);

// Interpolates all kMaxVaryings varyings at the four pixel centres of the quad whose top-left
// pixel is lane `lane` (the varyings in lanes: p0 * v0[k] + p1 * v1[k] + p2 * v2[k] per k, the
// scalar order), into out[0..3] (pixels (0,0), (1,0), (0,1), (1,1)).
void interpolate_quad(const TriangleLanes& t, const RowLanes& row, int lane, float (*out)[kMaxVaryings]);

// The per-row functions above of the SIMD target chosen now (run-time dispatch, core/highway.h),
// for the rasterizer to fetch once per triangle and tile rather than dispatch on every row and quad.
using CoverRow = uint32_t (*)(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full,
                              float* depth_row0, float* depth_row1, DepthRowWrite write, uint32_t* passed,
                              RowLanes& out);
struct Kernels {
  void (*prepare)(const TriangleSetup& setup, const EdgeFunction e[3], float inv_sum, bool wide, TriangleLanes& t);
  CoverRow cover_row;
  CoverRow cover_row_wide;
  void (*interpolate_quad)(const TriangleLanes& t, const RowLanes& row, int lane, float (*out)[kMaxVaryings]);
};
const Kernels& kernels();

// Encodes n linear colours for the RGBA8 sRGB colour buffer (alpha 255): colour i is the r, g, b
// floats at colours[index[i]], colours[index[i] + 1], colours[index[i] + 2]. Every channel bit for
// bit encode_srgb8 (NaN and values <= 0 give 0, >= 1 give 255), by the same bucket table and
// steps, gathered in lanes. `index` must be readable for n rounded up to kEncodeBlock entries
// (those past n are not used); out gets n entries and must have room for n rounded up to kEncodeBlock
// (whole vectors are stored).
constexpr int kEncodeBlock = 16;
void encode_colors(const float* colours, const int32_t* index, int n, uint32_t* out);

}  // namespace tessera::raster_lanes
