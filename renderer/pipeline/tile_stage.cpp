#include "pipeline/tile_stage.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "color/quad_hook.h"
#include "raster/tile_rasterizer.h"
#include "shaders/interpolated_color.h"
#include "shaders/lambert.h"

namespace tessera {

namespace {

// One tile in the tile buffer while its draws run: its rectangle, scratch colour/depth of
// width x height x kSamples entries, and with MSAA the colour unit's back end.
template <typename FragmentShader, int kSamples>
struct TilePass {
  TileBuffer tile;
  std::optional<color::ColorBackEnd> back_end;
  typename FragmentShader::Counters shader;
  uint64_t entries = 0;
};

// The hook the rasterizer calls after each quad write (per_quad), and flush_quads with a run of
// opaque quads: the colour unit takes the run in one call (ColorBackEnd::on_quad_run) unless
// per-draw diagnostics want every quad.
template <int kSamples, typename PerQuad>
struct ColorQuadHook {
  PerQuad& per_quad;
  const TileBuffer& tile;
  color::ColorBackEnd* back_end;  // set when the run goes to the colour unit alone
  void operator()(int x, int y, const unsigned* live) const { per_quad(x, y, live); }
  template <typename WriteQuad>
  void run(int quads, WriteQuad& write_quad) const {
    if constexpr (kSamples > 1) {
      if (back_end) {
        back_end->on_quad_run<kSamples>(quads, [&](int i) {
          const auto& q = write_quad(i);
          return color::ColorBackEnd::QuadWrite{q.qx - tile.x0, q.qy - tile.y0};
        });
        return;
      }
    }
    for (int i = 0; i < quads; ++i) {
      const auto& q = write_quad(i);
      per_quad(q.qx - tile.x0, q.qy - tile.y0, q.live_samples);
    }
  }
};

// Whether a draw's fragment program needs its material entry (programs without one never do).
template <typename FragmentShader>
bool needs_material_path(const typename FragmentShader::Uniforms& u) {
  if constexpr (requires { FragmentShader::needs_material_path(u); }) {
    return FragmentShader::needs_material_path(u);
  } else {
    return false;
  }
}

// Clears the tile buffer and runs every triangle binned to bin-grid tile `tile_index`.
template <typename FragmentShader, int kSamples>
void draw_tile(const TileStageInput<FragmentShader>& job, const Frame& frame, int tile_index, Rgba8* color,
               float* depth, RasterCounters& rc, TilePass<FragmentShader, kSamples>& p, std::vector<DrawRun>* runs) {
  constexpr int kVaryings = FragmentShader::kVaryings;
  const TileGrid& grid = job.grid;
  TileBuffer& tile = p.tile;
  tile.x0 = (tile_index % grid.tiles_x) * grid.tile_size;
  tile.y0 = (tile_index / grid.tiles_x) * grid.tile_size;
  tile.width = std::min(grid.tile_size, frame.color.width - tile.x0);
  tile.height = std::min(grid.tile_size, frame.color.height - tile.y0);
  tile.color = color;
  tile.depth = depth;
  const size_t pixels = size_t(tile.width) * size_t(tile.height);
  std::fill_n(tile.color, pixels * kSamples, job.clear_color);
  std::fill_n(tile.depth, pixels * kSamples, job.clear_depth);
  // A loaded pass: the tile starts from the frame's initial contents.
  const size_t row = size_t(tile.width) * kSamples;
  for (int y = 0; y < tile.height && (job.initial_color || job.initial_depth); ++y) {
    const size_t from = (size_t(tile.y0 + y) * size_t(frame.color.width) + size_t(tile.x0)) * kSamples;
    if (job.initial_color) std::copy_n(job.initial_color + from, row, tile.color + size_t(y) * row);
    if (job.initial_depth) std::copy_n(job.initial_depth + from, row, tile.depth + size_t(y) * row);
  }
  // With MSAA the colour writes go through the colour unit's cache as they happen.
  // A cleared tile holds one colour per pixel: the unit counts no pixel until a quad writes it.
  if constexpr (kSamples > 1)
    if (job.color_accounting)
      p.back_end.emplace(job.color_cache, kSamples, job.clear_color, tile.color, tile.width, tile.height, false,
                         !job.initial_color);
  uint32_t current_draw = 0;
  auto per_quad = [&](int x, int y, const unsigned* live) {
    if constexpr (kSamples > 1)
      if (p.back_end) p.back_end->template on_quad_written<kSamples>(x, y);
    if (!job.sample_draw) return;
    // Per-draw diagnostics: the pixels of the quad whose samples this draw wrote.
    for (int q = 0; q < 4; ++q) {
      if (!live[q]) continue;
      const size_t pixel = size_t(tile.y0 + y + (q >> 1)) * size_t(frame.color.width) + size_t(tile.x0 + x + (q & 1));
      if (job.overdraw[pixel] != 0xFFFF) ++job.overdraw[pixel];
      for (int k = 0; k < kSamples; ++k) {
        if (live[q] & (1u << k)) job.sample_draw[pixel * kSamples + size_t(k)] = current_draw + 1;
      }
    }
  };
  ColorQuadHook<kSamples, decltype(per_quad)> on_quad{per_quad, tile, nullptr};
  if constexpr (kSamples > 1)
    if (p.back_end && !job.sample_draw) on_quad.back_end = &*p.back_end;
  // Per-draw diagnostics: the counters a draw's work is read from, before each triangle (only
  // these, so the bookkeeping stays small next to the rasterization).
  constexpr RasterCounters::Id kPerDraw[] = {RasterCounters::fragments_covered, RasterCounters::samples_covered,
                                             RasterCounters::depth_passed, RasterCounters::quads_shaded,
                                             RasterCounters::fs_invocations};
  uint64_t before[std::size(kPerDraw)] = {};
  // Opaque quads of consecutive triangles of one draw are shaded together (QuadBatch, in
  // tile_rasterizer.h): flushed before the draw changes (the hook's current_draw), before a
  // material triangle (it reads the tile's colour) and at the end of the tile.
  QuadBatch<FragmentShader, kVaryings, kSamples> batch;
  auto flush = [&] {
    if constexpr (requires { &FragmentShader::run_quads; }) flush_quads(batch, tile, p.shader, on_quad);
  };
  for (const BinChunk& chunk : *job.chunks) {
    const uint32_t begin = chunk.offsets[size_t(tile_index)];
    const uint32_t end = chunk.offsets[size_t(tile_index) + 1];
    p.entries += end - begin;
    for (uint32_t k = begin; k < end; ++k) {
      const TriangleSetup& t = chunk.setups[chunk.entries[k]];
      const DepthState& depth_state = job.depth[t.draw];
      if (t.draw != current_draw) flush();
      current_draw = t.draw;
      if (runs) {
        for (size_t i = 0; i < std::size(kPerDraw); ++i) before[i] = rc[kPerDraw[i]];
      }
      const BlendMode blend = job.blend ? job.blend[t.draw] : BlendMode::none;
      if (blend != BlendMode::none || needs_material_path<FragmentShader>(job.uniforms[t.draw])) {
        // Alpha-tested, blended and two-sided draws take the material path (alpha, discard,
        // facing, blending) with the general depth test.
        flush();
        rasterize_triangle<FragmentShader, kVaryings, kSamples>(
            t, job.uniforms[t.draw], tile, rc, p.shader, DepthStateTest{depth_state}, on_quad, MaterialOutput{blend});
      } else if (depth_state == DepthState{}) {
        // Scenes' opaque draws all test LESS and write: that test is compiled in; any other
        // Vulkan depth state is evaluated per sample.
        rasterize_triangle<FragmentShader, kVaryings, kSamples>(t, job.uniforms[t.draw], tile, rc, p.shader,
                                                                LessDepthTest{}, on_quad, OpaqueOutput{}, &batch);
      } else {
        rasterize_triangle<FragmentShader, kVaryings, kSamples>(
            t, job.uniforms[t.draw], tile, rc, p.shader, DepthStateTest{depth_state}, on_quad, OpaqueOutput{}, &batch);
      }
      if (runs) {
        // Triangles arrive in submission order, so a tile sees each draw as one run.
        if (runs->empty() || runs->back().draw != t.draw) runs->push_back(DrawRun{t.draw, {}});
        RasterCounters& dc = runs->back().counters;
        for (size_t i = 0; i < std::size(kPerDraw); ++i) dc[kPerDraw[i]] += rc[kPerDraw[i]] - before[i];
        ++dc[RasterCounters::bin_entries];
      }
    }
  }
  flush();
}

// Stores a drawn tile to the frame buffer (resolving multisampled colour by a box filter in
// linear space) and accounts its memory traffic.
template <typename FragmentShader, int kSamples>
void store_tile(const TileStageInput<FragmentShader>& job, TilePass<FragmentShader, kSamples>& pass, Frame& frame,
                RasterCounters& rc, MemoryLedger& ledger, color::ColorCounters* job_color,
                color::ColorTraffic* job_traffic, EuShaderMath& fragment_math) {
  TileBuffer& tile = pass.tile;
  FrameDiagnostics& diag = frame.diagnostics;
  const int width = frame.color.width;
  const size_t pixels = size_t(tile.width) * size_t(tile.height);
  const SamplerCounters& sampler = pass.shader.sampler;
  fragment_math.merge(pass.shader.math);
  const uint64_t entries = pass.entries;
  if (entries) ++rc[RasterCounters::tiles_touched];
  rc[RasterCounters::texture_samples] += sampler.samples;
  rc[RasterCounters::texel_fetches] += sampler.texel_fetches;
  // Parameter buffer read-back: the tile's list entries and the records they name.
  ledger.add_read(MemoryClient::parameter, entries * (sizeof(uint32_t) + sizeof(TriangleSetup)));
  ledger.add_read(MemoryClient::texture, sampler.texel_fetches * sizeof(Rgba8));
  // Tile store. Depth: every sample when configured. Colour at 1x: the pixels. A multisampled
  // target goes through the colour unit in 8x4 blocks: each is compressed on store (control
  // code, index bits, planes; states and sizes only, nothing packed) and the resolve reads the
  // samples, which is what decoding the stored form gives (lossless: color_roundtrip_test, and
  // tessera bench color decodes every block of every frame it measures).
  if (job.store_depth) ledger.add_write(MemoryClient::depth, pixels * kSamples * sizeof(float));
  if constexpr (kSamples == 1) {
    ledger.add_write(MemoryClient::color, pixels * sizeof(Rgba8));
  } else if (!pass.back_end) {
    ledger.add_write(MemoryClient::color, pixels * sizeof(Rgba8));  // color.accounting off: the resolved image only
  } else {
    color::ColorBackEnd& back_end = *pass.back_end;
    // End of the bin tile: the cache is flushed through the eviction flow; the resolve then
    // reads every block's final stored form (its bytes are charged below).
    back_end.flush();
    const color::ColorCounters before = *job_color;
    for (int b = 0; b < back_end.blocks_x() * back_end.blocks_y(); ++b) {
      const color::StoredTile& stored = back_end.final_tile(b);
      job_color->add(stored);
      const int bx = (b % back_end.blocks_x()) * color::kTileWidth, by = (b / back_end.blocks_x()) * color::kTileHeight;
      if (job.color_states) {
        diag.color_states[size_t((tile.y0 + by) / color::kTileHeight) * size_t(diag.color_blocks_x) +
                          size_t((tile.x0 + bx) / color::kTileWidth)] = uint8_t(stored.state);
      }
    }
    const color::ColorTraffic& traffic = back_end.traffic();
    job_traffic->merge(traffic);
    const uint64_t blocks = uint64_t(back_end.blocks_x()) * uint64_t(back_end.blocks_y());
    auto bytes = [](uint64_t bits) { return (bits + 7) / 8; };
    if (!job.compression) {
      // An uncompressed target (color.compression off, for comparison): every sample stored
      // once at the end of the tile and read back by the resolve; the pixels are the same.
      ledger.add_write(MemoryClient::color, pixels * kSamples * sizeof(Rgba8));
      ledger.add_read(MemoryClient::color, pixels * kSamples * sizeof(Rgba8));
    } else {
      // Cache traffic, plus the fast clear of the control surface at frame start, plus the
      // resolve reading each block's final stored form.
      ledger.add_write(MemoryClient::color, bytes(traffic.plane_bits_written));
      ledger.add_read(MemoryClient::color,
                      bytes(traffic.plane_bits_read) + bytes(job_color->plane_bits - before.plane_bits));
      ledger.add_write(MemoryClient::color_index, bytes(traffic.index_bits_written));
      ledger.add_read(MemoryClient::color_index,
                      bytes(traffic.index_bits_read) + bytes(job_color->index_bits - before.index_bits));
      ledger.add_write(MemoryClient::color_control, bytes(traffic.control_bits_written + blocks * color::kControlBits));
      ledger.add_read(MemoryClient::color_control,
                      bytes(traffic.control_bits_read + job_color->control_bits - before.control_bits));
    }
    ledger.add_write(MemoryClient::color, pixels * sizeof(Rgba8));  // the resolved image
  }
  if constexpr (kSamples == 1) {
    // One sample per pixel: the tile's rows are the frame's, copied whole.
    for (int y = 0; y < tile.height; ++y) {
      const size_t src = size_t(y) * size_t(tile.width);
      const size_t dst = size_t(tile.y0 + y) * size_t(width) + size_t(tile.x0);
      std::copy_n(tile.depth + src, tile.width, frame.depth.begin() + std::ptrdiff_t(dst));
      std::copy_n(tile.color + src, tile.width, frame.color.pixels.begin() + std::ptrdiff_t(dst));
      if (job.keep_samples) std::copy_n(tile.color + src, tile.width, diag.samples.begin() + std::ptrdiff_t(dst));
    }
    return;
  }
  for (int y = 0; y < tile.height; ++y) {
    for (int x = 0; x < tile.width; ++x) {
      const size_t src = (size_t(y) * size_t(tile.width) + size_t(x)) * kSamples;
      const size_t dst = size_t(tile.y0 + y) * size_t(width) + size_t(tile.x0 + x);
      frame.depth[dst] = tile.depth[src];
      if (job.keep_samples)
        std::copy_n(tile.color + src, kSamples, diag.samples.begin() + std::ptrdiff_t(dst * kSamples));
      if constexpr (kSamples == 1) {
        frame.color.pixels[dst] = tile.color[src];
      } else {
        glm::vec3 sum(0.0f);
        for (int k = 0; k < kSamples; ++k) {
          const Rgba8 c = tile.color[src + size_t(k)];
          sum += glm::vec3(decode_srgb8(channel(c, 0)), decode_srgb8(channel(c, 1)), decode_srgb8(channel(c, 2)));
        }
        frame.color.pixels[dst] = encode_color(sum * (1.0f / float(kSamples)));
      }
    }
  }
}

// Renders one render unit: a bin-grid tile (fixed tiling), or a supertile whose atomic tiles
// share one tile buffer of `count` x atomic pixels, drawn one after another and stored to the
// frame buffer together once all of the supertile's draws are done. `scratch_*` hold the tile
// buffer (`count` x tile_size^2 x kSamples entries).
template <typename FragmentShader, int kSamples>
void render_unit(const TileStageInput<FragmentShader>& job, Frame& frame, const uint32_t* tiles, size_t count,
                 Rgba8* scratch_color, float* scratch_depth, TileStageOutput& out) {
  const size_t stride = size_t(job.grid.tile_size) * size_t(job.grid.tile_size) * kSamples;
  std::unique_ptr<TilePass<FragmentShader, kSamples>[]> passes(new TilePass<FragmentShader, kSamples>[count]);
  for (size_t i = 0; i < count; ++i) {
    draw_tile<FragmentShader, kSamples>(job, frame, int(tiles[i]), scratch_color + i * stride,
                                        scratch_depth + i * stride, out.counters[tiles[i]], passes[i],
                                        job.per_draw ? &out.draw_runs[tiles[i]] : nullptr);
  }
  for (size_t i = 0; i < count; ++i) {
    const size_t t = tiles[i];
    store_tile<FragmentShader, kSamples>(job, passes[i], frame, out.counters[t], out.ledgers[t], &out.color[t],
                                         &out.traffic[t], out.fragment_math[t]);
  }
}

}  // namespace

template <typename FragmentShader>
void run_tile_stage(const TileStageInput<FragmentShader>& in, Frame& frame, TileStageOutput& out) {
  const TileGrid& grid = in.grid;
  const size_t tiles = size_t(grid.tile_count());
  out.counters.assign(tiles, RasterCounters{});
  out.ledgers.assign(tiles, MemoryLedger{});
  out.color.assign(tiles, color::ColorCounters{});
  out.traffic.assign(tiles, color::ColorTraffic{});
  out.fragment_math.assign(tiles, EuShaderMath{});
  out.draw_runs.assign(in.per_draw ? tiles : 0, {});
  const SupertileTable* st = in.supertiles;
  const size_t unit_count = st ? st->count() : tiles;
  const size_t unit_tiles = st ? size_t(in.capacity) : 1;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, unit_count, 1), [&](const tbb::blocked_range<size_t>& r) {
    std::vector<Rgba8> color(unit_tiles * size_t(grid.tile_size) * size_t(grid.tile_size) * size_t(in.samples));
    std::vector<float> depth(color.size());
    for (size_t unit = r.begin(); unit < r.end(); ++unit) {
      const uint32_t single = uint32_t(unit);
      const uint32_t* unit_list = st ? &st->entries[st->offsets[unit]] : &single;
      const size_t count = st ? st->size_of(unit) : 1;
      switch (in.samples) {
        case 2: render_unit<FragmentShader, 2>(in, frame, unit_list, count, color.data(), depth.data(), out); break;
        case 4: render_unit<FragmentShader, 4>(in, frame, unit_list, count, color.data(), depth.data(), out); break;
        case 8: render_unit<FragmentShader, 8>(in, frame, unit_list, count, color.data(), depth.data(), out); break;
        default: render_unit<FragmentShader, 1>(in, frame, unit_list, count, color.data(), depth.data(), out); break;
      }
    }
  });
}

template void run_tile_stage(const TileStageInput<shaders::LambertFragmentShader>&, Frame&, TileStageOutput&);
template void run_tile_stage(const TileStageInput<shaders::InterpolatedColorShader>&, Frame&, TileStageOutput&);

}  // namespace tessera
