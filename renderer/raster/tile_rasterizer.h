// The tile rasterizer: walks one triangle over one tile in 8x8 blocks (rejected or accepted
// whole at their corners) and 2x2 quads, tests the pixel centres against the edge functions
// (top-left rule) where a block is only partly covered, runs the early LESS depth test on D32F, and
// shades each quad with at least one surviving pixel once, helpers included (the fragment
// program needs its neighbours for texture derivatives). Programs with a batch entry (run_quads)
// shade up to four of a triangle's quads together, the 16 lanes of the modelled EU.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "raster/raster_counters.h"
#include "raster/raster_lanes.h"
#include "raster/sample_pattern.h"
#include "raster/triangle_setup.h"
#include "tessera/clip_space.h"
#include "tessera/image.h"
#include "tessera/sampler.h"

namespace tessera {

// On-chip tile buffer: colour (sRGB-encoded RGBA8) and depth per sample for one tile.
struct TileBuffer {
  int x0 = 0;  // viewport position of the tile's top-left pixel
  int y0 = 0;
  int width = 0;  // may be smaller than the tile size at the right and bottom edges
  int height = 0;
  Rgba8* color = nullptr;  // width * height * samples: row-major pixels, samples adjacent
  float* depth = nullptr;  // same layout
};

// Encodes a linear colour for the RGBA8 sRGB colour buffer (alpha 1).
inline Rgba8 encode_color(const glm::vec3& linear) {
  return pack_rgba8(encode_srgb8(linear.r), encode_srgb8(linear.g), encode_srgb8(linear.b), 255);
}

// Block edge for hierarchical traversal: blocks of 8x8 pixels are classified against each
// edge at their extreme corners before any pixel is tested.
constexpr int kRasterBlock = 8;

// The depth test: the scenes' early LESS with writes, fixed at compile time, or any Vulkan depth
// state (draws that enter at the primitive stage), chosen per triangle by the tile stage.
struct LessDepthTest {
  bool passes(float z, float stored) const { return z < stored; }
  bool writes() const { return true; }
};
struct DepthStateTest {
  DepthState state;
  bool passes(float z, float stored) const {
    if (!state.test) return true;
    switch (state.compare) {
      case CompareOp::never: return false;
      case CompareOp::less: return z < stored;
      case CompareOp::equal: return z == stored;
      case CompareOp::less_or_equal: return z <= stored;
      case CompareOp::greater: return z > stored;
      case CompareOp::not_equal: return z != stored;
      case CompareOp::greater_or_equal: return z >= stored;
      case CompareOp::always: return true;
    }
    return false;
  }
  // Vulkan writes depth only where the test is enabled.
  bool writes() const { return state.test && state.write; }
};

// What happens to a shaded quad: opaque draws write the fragment colour (compiled in for the
// common case); material draws run the fragment program's material entry (alpha, discard,
// facing) when it has one and combine with the stored colour by the draw's blend mode.
struct OpaqueOutput {
  static constexpr bool kMaterial = false;
};
struct MaterialOutput {
  static constexpr bool kMaterial = true;
  BlendMode blend = BlendMode::none;
};

// Source-over in linear space on the sRGB-encoded target (Vulkan blends sRGB attachments after
// decoding): the source colour and alpha are clamped to [0, 1] first, as for a UNORM target;
// the stored alpha stays 1.
inline Rgba8 blend_color(Rgba8 dst, const glm::vec3& src, float alpha, BlendMode mode) {
  const float a = std::clamp(alpha, 0.0f, 1.0f);
  const glm::vec3 s = glm::clamp(src, 0.0f, 1.0f);
  const glm::vec3 d(decode_srgb8(channel(dst, 0)), decode_srgb8(channel(dst, 1)), decode_srgb8(channel(dst, 2)));
  const glm::vec3 weighted = mode == BlendMode::premultiplied ? s : s * a;
  return encode_color(weighted + d * (1.0f - a));
}

// Instrumentation hook called with tile-local quad coordinates (and, if it takes them, the four
// pixels' written-sample masks) after a quad's samples are written; the default does nothing and
// compiles away.
struct NoQuadHook {
  void operator()(int, int) const {}
};

// Whether every edge value the rasterizer evaluates for a triangle in the pixel rectangle
// [x_lo, x_hi] x [y_lo, y_hi] lies in [-limit, limit], with and without the fill-rule bias. The
// values it evaluates lie at pixel corners, sample positions and centres of the 8x8 blocks' quads
// that hold a pixel of the rectangle: x from corner(x_lo & ~7) (the first block's corner) to below
// corner(x_hi + 2) (the far corner of the last quad's second pixel), y likewise. An edge
// function is linear, so over that rectangle its values lie between its values at the four
// corners; a margin of 2 covers the bias of 1.
inline bool edge_values_within(const EdgeFunction e[3], int x_lo, int y_lo, int x_hi, int y_hi, int64_t limit) {
  const int64_t x0 = int64_t(x_lo & ~(kRasterBlock - 1)) * kSubpixelOne, x1 = int64_t(x_hi + 2) * kSubpixelOne;
  const int64_t y0 = int64_t(y_lo & ~(kRasterBlock - 1)) * kSubpixelOne, y1 = int64_t(y_hi + 2) * kSubpixelOne;
  const int64_t high = limit - 2, low = -high;
  bool fits = true;
  for (int i = 0; i < 3; ++i) {
    // The largest and smallest corner by the signs of the gradient (as for block rejection).
    const int64_t hi = e[i].at(e[i].a > 0 ? x1 : x0, e[i].b > 0 ? y1 : y0);
    const int64_t lo = e[i].at(e[i].a > 0 ? x0 : x1, e[i].b > 0 ? y0 : y1);
    fits = fits && hi <= high && lo >= low;
  }
  return fits;
}
// The lanes' int32 edge values (raster_lanes::cover_row): within [INT32_MIN + 2, INT32_MAX - 2].
inline bool edge_values_fit_int32(const EdgeFunction e[3], int x_lo, int y_lo, int x_hi, int y_hi) {
  return edge_values_within(e, x_lo, y_lo, x_hi, y_hi, std::numeric_limits<int32_t>::max());
}
// The wide lanes' doubles (raster_lanes::cover_row_wide): integers within 2^53 are exact.
inline bool edge_values_fit_wide(const EdgeFunction e[3], int x_lo, int y_lo, int x_hi, int y_hi) {
  return edge_values_within(e, x_lo, y_lo, x_hi, y_hi, int64_t(1) << 53);
}

// With one sample per pixel a quad's written samples are its live pixels: live_samples[p] of
// each `live` (bits 0..3), copied whole into a batch record rather than built pixel by pixel.
inline constexpr std::array<std::array<unsigned, 4>, 16> kOneSampleLive = [] {
  std::array<std::array<unsigned, 4>, 16> t{};
  for (unsigned live = 0; live < 16; ++live) {
    for (unsigned p = 0; p < 4; ++p) t[live][p] = (live >> p) & 1u;
  }
  return t;
}();

// A quad's live pixels (bits 0..3 of `live`) in order, as the offsets of their colours' first
// float among the quad's four glm::vec3 (0, 3, 6, 9); entries past the live count are 0.
inline constexpr std::array<std::array<int32_t, 4>, 16> kLiveColourOffsets = [] {
  std::array<std::array<int32_t, 4>, 16> t{};
  for (unsigned live = 0; live < 16; ++live) {
    int k = 0;
    for (int p = 0; p < 4; ++p) {
      if (live & (1u << p)) t[live][size_t(k++)] = 3 * p;
    }
  }
  return t;
}();

// Quads waiting to be shaded by a program with a batch entry (run_quads): the live pixels of
// up to kLanes of them, from consecutive triangles of one draw in one tile, shaded as one batch
// of host vector lanes. Small triangles have few quads (the default scene's cover ~5 pixels), so
// collecting across triangles fills the vectors; the modelled EU's lane groups are still a
// triangle's quads four to a group (the raster.fs.lane* counters are counted per triangle).
// Deferring shading across triangles keeps every result: the depth test and depth write happen
// as the quad is rasterized (opaque output writes depth wherever a sample passes, whatever the
// colour), so later triangles test against it as before; colour writes and the quad hook run in
// quad order at the flush, so the last write to a pixel is the same one as without deferral.
// The caller flushes before the draw (uniforms, hook context) changes, before anything reads
// the tile's colour (material draws) and at the end of the tile.
template <typename FragmentShader, int kVaryingCount, int kSamples>
struct QuadBatch {
  static constexpr int kLanes = 16;  // live pixels per run_quads call (its kShadeLanes)
  struct Pending {
    int qx, qy;
    uint32_t pixel;            // tile-buffer index of the top-left pixel's first sample
    unsigned live_samples[4];  // per pixel, the samples to write
  };
  int quads = 0;
  int lanes = 0;
  const typename FragmentShader::Uniforms* uniforms = nullptr;
  Pending pending[kLanes];
  unsigned live[kLanes];  // per quad, its live pixels as bits 0..3: the pixels written
  float varyings[4 * kLanes][kVaryingCount];
  glm::vec3 shaded[4 * kLanes];
};

// Shades a batch's quads and writes their live samples' colour, then calls the hook per quad,
// in quad order (or once with the run, for a hook with run(quads, write_quad): it writes quad
// i with write_quad(i), in order, and handles each written quad before the next write).
template <typename FragmentShader, int kVaryingCount, int kSamples, typename QuadHook>
void flush_quads(QuadBatch<FragmentShader, kVaryingCount, kSamples>& b, TileBuffer& tile,
                 typename FragmentShader::Counters& shader_counters, QuadHook& on_quad_written) {
  if (b.quads == 0) return;
  FragmentShader::run_quads(*b.uniforms, b.varyings, b.live, b.quads, b.shaded, shader_counters);
  // The written pixels' colours (at most kLanes: each is a live lane), encoded together in lanes
  // from `shaded` by their offsets. A pixel is written when it is live (a sample passed).
  static_assert(QuadBatch<FragmentShader, kVaryingCount, kSamples>::kLanes <= raster_lanes::kEncodeBlock);
  static_assert(sizeof(glm::vec3) == 3 * sizeof(float));
  // Four offsets stored per quad whatever its live count (the next quad overwrites the extra):
  // room for three past kEncodeBlock.
  alignas(64) int32_t colour_at[raster_lanes::kEncodeBlock + 4] = {};
  uint32_t encoded[raster_lanes::kEncodeBlock];
  int written = 0;
  for (int i = 0; i < b.quads; ++i) {
    const std::array<int32_t, 4>& live_at = kLiveColourOffsets[b.live[i]];
    for (int k = 0; k < 4; ++k) colour_at[written + k] = live_at[size_t(k)] + 12 * i;
    written += std::popcount(b.live[i]);
  }
  raster_lanes::encode_colors(reinterpret_cast<const float*>(b.shaded), colour_at, written, encoded);
  written = 0;
  // The four pixels' first samples relative to the quad's top-left pixel.
  const size_t row = size_t(tile.width) * kSamples;
  const size_t pixel_offset[4] = {0, kSamples, row, row + kSamples};
  // Writes quad i's samples (quads in order: i = 0, 1, ...) and returns it.
  auto write_quad = [&](int i) -> const auto& {
    const auto& q = b.pending[i];
    for (unsigned m = b.live[i]; m; m &= m - 1) {
      const int p = std::countr_zero(m);
      const Rgba8 c = encoded[written++];
      Rgba8* const samples = tile.color + q.pixel + pixel_offset[p];
      if constexpr (kSamples == 1) {
        samples[0] = c;
      } else {
        for (int k = 0; k < kSamples; ++k) {
          if (q.live_samples[p] & (1u << k)) samples[k] = c;
        }
      }
    }
    return q;
  };
  if constexpr (requires { on_quad_written.run(b.quads, write_quad); }) {
    // A hook taking the run (the colour unit) writes each quad through write_quad and accounts
    // it before the next: the same order as the loop below.
    on_quad_written.run(b.quads, write_quad);
  } else {
    for (int i = 0; i < b.quads; ++i) {
      const auto& q = write_quad(i);
      if constexpr (std::is_invocable_v<QuadHook, int, int, const unsigned*>) {
        on_quad_written(q.qx - tile.x0, q.qy - tile.y0, q.live_samples);
      } else {
        on_quad_written(q.qx - tile.x0, q.qy - tile.y0);
      }
    }
  }
  b.quads = 0;
  b.lanes = 0;
}

// Rasterizes one triangle into one tile with kSamples samples per pixel (1, 2, 4 or 8 at the
// Vulkan standard positions). Coverage and depth are per sample; the fragment program runs
// once per pixel per triangle, at the pixel centre, and its colour goes to every covered
// sample that passes the depth test. With one sample the only sample is the pixel centre.
template <typename FragmentShader, int kVaryingCount, int kSamples = 1, typename DepthTest = LessDepthTest,
          typename QuadHook = NoQuadHook, typename Output = OpaqueOutput>
void rasterize_triangle(const TriangleSetup& t, const typename FragmentShader::Uniforms& uniforms, TileBuffer& tile,
                        RasterCounters& counters, typename FragmentShader::Counters& shader_counters,
                        const DepthTest& depth_test = DepthTest{}, QuadHook&& on_quad_written = QuadHook{},
                        const Output& output = Output{},
                        QuadBatch<FragmentShader, kVaryingCount, kSamples>* shared_batch = nullptr) {
  constexpr const auto& offsets = SamplePattern<kSamples>::offsets;
  constexpr unsigned kAllSamples = (1u << kSamples) - 1;
  const int tx_end = tile.x0 + tile.width;
  const int ty_end = tile.y0 + tile.height;
  const int x_lo = std::max(t.min_x, tile.x0);
  const int y_lo = std::max(t.min_y, tile.y0);
  const int x_hi = std::min(t.max_x, tx_end - 1);
  const int y_hi = std::min(t.max_y, ty_end - 1);
  if (x_lo > x_hi || y_lo > y_hi) return;

  EdgeFunction e[3];
  edge_functions(t, e);
  const int64_t step = int64_t(kSubpixelOne);
  const SampleExtent reach = sample_extent(kSamples);
  // The path's set-up, made at the triangle's first block that is not rejected: many (triangle,
  // tile) pairs of small triangles have none, and skip it.
  bool path_chosen = false;
  // Barycentric weight of vertex k is the edge function of the edge opposite it, (k+1)%3.
  float inv_sum = 0.0f;
  // Single sampling evaluates a block's quad rows in lanes (raster_lanes.h): 32-bit lanes when
  // the triangle's edge values in this tile fit them, else double lanes when they fit those
  // (large triangles near the camera); the int64 path below takes the rest.
  alignas(64) raster_lanes::TriangleLanes lanes;
  alignas(64) raster_lanes::RowLanes row_lanes;
  bool use_lanes = false;
  const raster_lanes::Kernels* lane_kernels = nullptr;  // dispatched once here, not per row
  raster_lanes::CoverRow cover_row = nullptr;
  // The int64 path's constants (the lanes have their own): the fill-rule bias, and the edge
  // value of each sample and of the pixel centre relative to the pixel's corner.
  int64_t bias[3] = {}, sample_delta[3][kSamples] = {}, centre_delta[3] = {};
  auto choose_path = [&] {
    path_chosen = true;
    inv_sum = 1.0f / float(-doubled_area(t));
    if constexpr (kSamples == 1) {
      const bool narrow = edge_values_fit_int32(e, x_lo, y_lo, x_hi, y_hi);
      use_lanes = narrow || edge_values_fit_wide(e, x_lo, y_lo, x_hi, y_hi);
      if (use_lanes) {
        lane_kernels = &raster_lanes::kernels();
        lane_kernels->prepare(t, e, inv_sum, !narrow, lanes);
        cover_row = narrow ? lane_kernels->cover_row : lane_kernels->cover_row_wide;
        return;
      }
    }
    for (int i = 0; i < 3; ++i) {
      bias[i] = (t.top_left >> i) & 1u ? 0 : 1;
      for (int k = 0; k < kSamples; ++k) sample_delta[i][k] = e[i].a * offsets[k].x + e[i].b * offsets[k].y;
      centre_delta[i] = (e[i].a + e[i].b) * kSubpixelHalf;
    }
  };
  auto corner = [](int p) { return int64_t(p) * kSubpixelOne; };
  auto barycentrics = [&](const int64_t v[3], float b[3]) {
    b[0] = float(v[1] + bias[1]) * inv_sum;
    b[1] = float(v[2] + bias[2]) * inv_sum;
    b[2] = float(v[0] + bias[0]) * inv_sum;
  };
  auto pixel_index = [&](int px, int py) {
    return (size_t(py - tile.y0) * size_t(tile.width) + size_t(px - tile.x0)) * kSamples;
  };

  // Programs with a batch entry (opaque output) collect quads in a QuadBatch: the caller's,
  // shared with the next triangles of the draw (the caller flushes it), or this triangle's own.
  // Their depth is written at the test. Material output shades one quad at a time and writes
  // depth with the colour (a discard writes neither).
  constexpr bool kBatched = !Output::kMaterial && requires { &FragmentShader::run_quads; };
  constexpr int kBatch = 1;
  QuadBatch<FragmentShader, kVaryingCount, kSamples> own_batch;
  QuadBatch<FragmentShader, kVaryingCount, kSamples>& batch = shared_batch ? *shared_batch : own_batch;
  if constexpr (kBatched) {
    if (batch.quads && batch.uniforms != &uniforms) flush_quads(batch, tile, shader_counters, on_quad_written);
    batch.uniforms = &uniforms;
  }
  // Makes room in the batch for a quad with n_live live pixels; returns its varyings.
  auto batch_slot = [&](unsigned n_live) {
    if constexpr (kBatched) {
      if (batch.lanes + int(n_live) > batch.kLanes) flush_quads(batch, tile, shader_counters, on_quad_written);
    }
    return batch.varyings + 4 * batch.quads;
  };
  // Records the quad whose varyings batch_slot gave (`pixel`: its top-left pixel's tile-buffer
  // index; live_samples: per pixel, unused with one sample, where they are the live bits);
  // shades the batch when its lanes are full.
  auto batch_add = [&](int qx, int qy, size_t pixel, unsigned live, unsigned n_live, const unsigned* live_samples) {
    const int i = batch.quads++;
    auto& q = batch.pending[i];
    q.qx = qx;
    q.qy = qy;
    q.pixel = uint32_t(pixel);
    batch.live[i] = live;
    if constexpr (kSamples == 1) {
      std::memcpy(q.live_samples, kOneSampleLive[live].data(), sizeof q.live_samples);
    } else {
      for (int p = 0; p < 4; ++p) q.live_samples[p] = live_samples[p];
    }
    batch.lanes += int(n_live);
    if constexpr (kBatched) {
      if (batch.lanes == batch.kLanes) flush_quads(batch, tile, shader_counters, on_quad_written);
    }
  };
  struct Pending {
    int qx, qy;
    unsigned live;
    unsigned live_samples[4];
    float z[4][kSamples];
  };
  Pending pending[kBatch];
  int pending_count = 0;
  uint64_t triangle_quads = 0;
  float varyings[4 * kBatch][kVaryingCount];
  glm::vec3 shaded[4 * kBatch];
  // Shades the pending quads and writes their surviving samples, in quad order.
  auto flush = [&]() {
    if (pending_count == 0) return;
    unsigned lives[kBatch] = {};
    for (int i = 0; i < pending_count; ++i) lives[i] = pending[i].live;
    float alpha[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    if constexpr (kBatched) {
      return;  // batched quads go through flush_quads
    } else if constexpr (Output::kMaterial && requires { &FragmentShader::run_quad_material; }) {
      // A discarded pixel writes neither depth nor colour in any sample.
      const unsigned discarded = FragmentShader::run_quad_material(
          uniforms, varyings, lives[0], (t.top_left & kBackFacingBit) != 0, shaded, alpha, shader_counters);
      for (int p = 0; p < 4; ++p) {
        if (discarded & (1u << p)) pending[0].live_samples[p] = 0;
      }
    } else {
      FragmentShader::run_quad(uniforms, varyings, lives[0], shaded, shader_counters);
    }
    for (int i = 0; i < pending_count; ++i) {
      Pending& q = pending[i];
      bool written = false;
      for (int p = 0; p < 4; ++p) {
        if (!q.live_samples[p]) continue;
        written = true;
        const glm::vec3& colour = shaded[4 * i + p];
        const Rgba8 c = encode_color(colour);
        const size_t base = pixel_index(q.qx + (p & 1), q.qy + (p >> 1));
        for (int k = 0; k < kSamples; ++k) {
          if (!(q.live_samples[p] & (1u << k))) continue;
          if (depth_test.writes()) tile.depth[base + size_t(k)] = q.z[p][k];
          if constexpr (Output::kMaterial) {
            // Blending reads each sample's stored colour: samples may differ at edges.
            Rgba8& dst = tile.color[base + size_t(k)];
            dst = output.blend == BlendMode::none ? c : blend_color(dst, colour, alpha[p], output.blend);
          } else {
            tile.color[base + size_t(k)] = c;
          }
        }
      }
      // A hook taking the quad's per-pixel written-sample masks gets them (per-draw diagnostics).
      if (written) {
        if constexpr (std::is_invocable_v<QuadHook, int, int, const unsigned*>) {
          on_quad_written(q.qx - tile.x0, q.qy - tile.y0, q.live_samples);
        } else {
          on_quad_written(q.qx - tile.x0, q.qy - tile.y0);
        }
      }
    }
    pending_count = 0;
  };

  // The lane path's per-quad counts, summed per quad row from the lane masks and added once.
  struct {
    uint64_t quads_covered = 0, fragments = 0, passed = 0, quads_shaded = 0, inside_shaded = 0;
  } row_counts;
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
        // Largest and smallest value of a linear function over the block's samples sit at
        // opposite corners of their reach, chosen by the signs of its gradient.
        const int64_t hi = e[i].at(e[i].a > 0 ? corner(cx1) + reach.max_x : corner(cx0) + reach.min_x,
                                   e[i].b > 0 ? corner(cy1) + reach.max_y : corner(cy0) + reach.min_y);
        const int64_t lo = e[i].at(e[i].a > 0 ? corner(cx0) + reach.min_x : corner(cx1) + reach.max_x,
                                   e[i].b > 0 ? corner(cy0) + reach.min_y : corner(cy1) + reach.max_y);
        rejected = rejected || hi < 0;
        full = full && lo >= 0;
      }
      if (rejected) {
        ++counters[RasterCounters::blocks_rejected];
        continue;
      }
      ++counters[full ? RasterCounters::blocks_full : RasterCounters::blocks_partial];
      if (!path_chosen) choose_path();

      if (use_lanes) {
        // Quad rows of 16 lanes: lane j is pixel (bx + j % 8, qy + j / 8).
        const uint32_t columns = ((2u << (cx1 - bx)) - 1) & ~((1u << (cx0 - bx)) - 1);
        // Edge values at the centre of each row's first pixel, stepped by two pixel rows (started
        // a step back: each row adds its step first, before anything can skip to the next row).
        int64_t edge[3], edge_step[3];
        for (int i = 0; i < 3; ++i) {
          edge[i] = e[i].at(corner(bx) + kSubpixelHalf, corner(cy0 & ~1) + kSubpixelHalf) - 2 * e[i].b * step;
          edge_step[i] = 2 * e[i].b * step;
        }
        for (int qy = cy0 & ~1; qy <= cy1; qy += 2) {
          const uint32_t valid = (qy >= cy0 ? columns : 0u) | (qy + 1 <= cy1 ? columns << 8 : 0u);
          for (int i = 0; i < 3; ++i) edge[i] += edge_step[i];
          uint32_t passed = 0;
          uint32_t covered;
          // The tile-buffer index of the row's first pixel (qy, bx): quads and depth rows from it.
          const size_t row_pixel = pixel_index(bx, qy);
          // Batched quads write depth at the test: the passed lanes' z, pixel by pixel where
          // cover_row does not write the rows in place.
          auto write_passed_depth = [&] {
            for (uint32_t m = passed; m; m &= m - 1) {
              const int j = std::countr_zero(m);
              tile.depth[pixel_index(bx + (j & 7), qy + (j >> 3))] = row_lanes.z[j];
            }
          };
          if constexpr (std::is_same_v<DepthTest, LessDepthTest>) {
            // The stored depth of the row's two pixel rows, read in place when the tile holds
            // all 16 pixels, else copied (lanes outside the tile are not covered). In place,
            // cover_row writes the passed lanes.
            float* row0 = tile.depth + row_pixel;
            float* row1 = row0 + tile.width;
            float stored_rows[16];
            const bool copied = bx + 8 > tx_end || qy + 1 >= ty_end;
            if (copied) {
              for (int j = 0; j < 16; ++j) {
                const int px = bx + (j & 7), py = qy + (j >> 3);
                stored_rows[j] = px < tx_end && py < ty_end ? tile.depth[pixel_index(px, py)] : 0.0f;
              }
              row0 = stored_rows;
              row1 = stored_rows + 8;
            }
            const auto write =
                kBatched && !copied ? raster_lanes::DepthRowWrite::passed : raster_lanes::DepthRowWrite::keep;
            covered = cover_row(lanes, edge, valid, full, row0, row1, write, &passed, row_lanes);
            if (kBatched && copied) write_passed_depth();
          } else {
            covered = cover_row(lanes, edge, valid, full, nullptr, nullptr, raster_lanes::DepthRowWrite::keep, nullptr,
                                row_lanes);
            for (uint32_t m = covered; m; m &= m - 1) {
              const int j = std::countr_zero(m);
              if (depth_test.passes(row_lanes.z[j], tile.depth[pixel_index(bx + (j & 7), qy + (j >> 3))]))
                passed |= 1u << j;
            }
            if (kBatched && depth_test.writes()) write_passed_depth();
          }
          if (!covered) continue;
          // The row's counts from its lane masks (passed is a subset of covered): quads with a
          // covered pixel (bit qc or qc + 1 of either pixel row) and quads with a live one.
          const uint32_t either = (covered | covered >> 8) & 0xFFu;
          const uint32_t either_live = (passed | passed >> 8) & 0xFFu;
          const uint32_t live_quads = (either_live | either_live >> 1) & 0x55u;
          const uint32_t live_quad_lanes = (live_quads | live_quads << 1) * 0x101u;
          const unsigned n_covered = unsigned(std::popcount(covered)), n_passed = unsigned(std::popcount(passed));
          const unsigned n_shaded = unsigned(std::popcount(live_quads));
          const unsigned n_inside_shaded = unsigned(std::popcount(covered & live_quad_lanes));
          row_counts.quads_covered += unsigned(std::popcount((either | either >> 1) & 0x55u));
          row_counts.fragments += n_covered;
          row_counts.passed += n_passed;
          row_counts.quads_shaded += n_shaded;
          row_counts.inside_shaded += n_inside_shaded;
          triangle_quads += n_shaded;
          for (uint32_t quads = live_quads; quads; quads &= quads - 1) {
            const int qc = std::countr_zero(quads);
            // The quad's live pixels (0,0), (1,0), (0,1), (1,1) as lane bits 0..3.
            const unsigned live = ((passed >> qc) & 3u) | ((passed >> (qc + 8)) & 3u) << 2;
            const unsigned n_live = unsigned(std::popcount(live));
            float(*quad_varyings)[kVaryingCount] = kBatched ? batch_slot(n_live) : varyings;
            if constexpr (kVaryingCount == kMaxVaryings) {
              lane_kernels->interpolate_quad(lanes, row_lanes, qc, quad_varyings);
            } else {
              for (int p = 0; p < 4; ++p) {
                const int j = (p >> 1) * 8 + qc + (p & 1);
                for (int k = 0; k < kVaryingCount; ++k) {
                  quad_varyings[p][k] = row_lanes.p[0][j] * t.varyings[0][k] + row_lanes.p[1][j] * t.varyings[1][k] +
                                        row_lanes.p[2][j] * t.varyings[2][k];
                }
              }
            }
            if constexpr (kBatched) {
              batch_add(bx + qc, qy, row_pixel + size_t(qc), live, n_live, nullptr);
            } else {
              Pending& q = pending[0];
              for (int p = 0; p < 4; ++p) {
                q.live_samples[p] = (live >> p) & 1u;
                q.z[p][0] = row_lanes.z[(p >> 1) * 8 + qc + (p & 1)];
              }
              q.qx = bx + qc;
              q.qy = qy;
              q.live = live;
              pending_count = 1;
              flush();
            }
          }
        }
        continue;
      }

      for (int qy = cy0 & ~1; qy <= cy1; qy += 2) {
        int64_t row[3];
        for (int i = 0; i < 3; ++i) row[i] = e[i].at(corner(cx0 & ~1), corner(qy));
        for (int qx = cx0 & ~1; qx <= cx1; qx += 2) {
          // Edge values at the four pixel corners: (0,0), (1,0), (0,1), (1,1).
          int64_t ec[3][4];
          for (int i = 0; i < 3; ++i) {
            ec[i][0] = row[i];
            ec[i][1] = row[i] + e[i].a * step;
            ec[i][2] = row[i] + e[i].b * step;
            ec[i][3] = row[i] + (e[i].a + e[i].b) * step;
            row[i] += 2 * e[i].a * step;
          }
          unsigned coverage[4] = {0, 0, 0, 0};  // per pixel, one bit per sample
          unsigned inside = 0;                  // pixels with any covered sample
          for (int p = 0; p < 4; ++p) {
            const int px = qx + (p & 1);
            const int pyi = qy + (p >> 1);
            if (px < cx0 || px > cx1 || pyi < cy0 || pyi > cy1) continue;
            if (full) {
              coverage[p] = kAllSamples;
            } else {
              for (int k = 0; k < kSamples; ++k) {
                const int64_t e0 = ec[0][p] + sample_delta[0][k];
                const int64_t e1 = ec[1][p] + sample_delta[1][k];
                const int64_t e2 = ec[2][p] + sample_delta[2][k];
                if ((e0 | e1 | e2) >= 0) {
                  coverage[p] |= 1u << k;
                }
              }
            }
            if (coverage[p]) inside |= 1u << p;
          }
          if (!inside) continue;
          ++counters[RasterCounters::quads_covered];
          counters[RasterCounters::fragments_covered] += unsigned(std::popcount(inside));

          // Early depth per sample.
          unsigned live_samples[4] = {0, 0, 0, 0};
          float z[4][kSamples] = {};
          unsigned covered_samples = 0, passed_samples = 0;
          for (int p = 0; p < 4; ++p) {
            if (!coverage[p]) continue;
            const size_t base = pixel_index(qx + (p & 1), qy + (p >> 1));
            for (int k = 0; k < kSamples; ++k) {
              if (!(coverage[p] & (1u << k))) continue;
              const int64_t v[3] = {ec[0][p] + sample_delta[0][k], ec[1][p] + sample_delta[1][k],
                                    ec[2][p] + sample_delta[2][k]};
              float b[3];
              barycentrics(v, b);
              z[p][k] = b[0] * t.z[0] + b[1] * t.z[1] + b[2] * t.z[2];
              if (depth_test.passes(z[p][k], tile.depth[base + size_t(k)])) {
                live_samples[p] |= 1u << k;
                // Batched quads write depth at the test (no other sample of the quad reads it).
                if (kBatched && depth_test.writes()) tile.depth[base + size_t(k)] = z[p][k];
              }
            }
            covered_samples += unsigned(std::popcount(coverage[p]));
            passed_samples += unsigned(std::popcount(live_samples[p]));
          }
          counters[RasterCounters::samples_covered] += covered_samples;
          counters[RasterCounters::depth_passed] += passed_samples;
          counters[RasterCounters::depth_failed] += covered_samples - passed_samples;
          unsigned live = 0;
          for (int p = 0; p < 4; ++p) live |= live_samples[p] ? 1u << p : 0u;
          if (!live) continue;

          // Perspective-correct interpolation at the four pixel centres (helpers included).
          const unsigned n_live = unsigned(std::popcount(live));
          float(*quad_varyings)[kVaryingCount] = kBatched ? batch_slot(n_live) : varyings;
          for (int p = 0; p < 4; ++p) {
            const int64_t v[3] = {ec[0][p] + centre_delta[0], ec[1][p] + centre_delta[1], ec[2][p] + centre_delta[2]};
            float b[3];
            barycentrics(v, b);
            const float w0 = b[0] * t.inv_w[0];
            const float w1 = b[1] * t.inv_w[1];
            const float w2 = b[2] * t.inv_w[2];
            const float inv = 1.0f / (w0 + w1 + w2);
            const float p0 = w0 * inv, p1 = w1 * inv, p2 = w2 * inv;
            for (int k = 0; k < kVaryingCount; ++k) {
              quad_varyings[p][k] = p0 * t.varyings[0][k] + p1 * t.varyings[1][k] + p2 * t.varyings[2][k];
            }
          }
          if constexpr (!kBatched) {
            Pending& q = pending[0];
            q.qx = qx;
            q.qy = qy;
            q.live = live;
            for (int p = 0; p < 4; ++p) {
              q.live_samples[p] = live_samples[p];
              for (int k = 0; k < kSamples; ++k) q.z[p][k] = z[p][k];
            }
          }
          ++counters[RasterCounters::quads_shaded];
          counters[RasterCounters::fs_invocations] += 4;
          counters[RasterCounters::fs_helpers] += 4 - unsigned(std::popcount(inside));
          counters[RasterCounters::fs_lanes_live] += n_live;
          counters[RasterCounters::fs_lanes_masked] += unsigned(std::popcount(inside & ~live));
          ++triangle_quads;
          if constexpr (kBatched) {
            batch_add(qx, qy, pixel_index(qx, qy), live, n_live, live_samples);
          } else {
            pending_count = 1;
            flush();
          }
        }
      }
    }
  }
  if constexpr (kBatched) {
    if (!shared_batch) flush_quads(batch, tile, shader_counters, on_quad_written);
  }
  if (use_lanes) {
    // One sample per pixel: samples are fragments; a shaded quad runs 4 invocations, its
    // uncovered pixels as helpers and its covered but failed pixels masked.
    counters[RasterCounters::quads_covered] += row_counts.quads_covered;
    counters[RasterCounters::fragments_covered] += row_counts.fragments;
    counters[RasterCounters::samples_covered] += row_counts.fragments;
    counters[RasterCounters::depth_passed] += row_counts.passed;
    counters[RasterCounters::depth_failed] += row_counts.fragments - row_counts.passed;
    counters[RasterCounters::quads_shaded] += row_counts.quads_shaded;
    counters[RasterCounters::fs_invocations] += 4 * row_counts.quads_shaded;
    counters[RasterCounters::fs_helpers] += 4 * row_counts.quads_shaded - row_counts.inside_shaded;
    counters[RasterCounters::fs_lanes_live] += row_counts.passed;
    counters[RasterCounters::fs_lanes_masked] += row_counts.inside_shaded - row_counts.passed;
  }
  // The modelled EU packs the triangle's quads four to a 16-lane group.
  const uint64_t groups = (triangle_quads + 3) / 4;
  counters[RasterCounters::fs_lane_groups] += groups;
  counters[RasterCounters::fs_lanes_empty] += 16 * groups - 4 * triangle_quads;
}

}  // namespace tessera
