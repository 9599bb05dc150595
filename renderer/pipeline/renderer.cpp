// The frame's data flow (docs/ARCHITECTURE.md, "Data flow of a frame"). A scene frame:
//   tessellation stage -> draw list -> vertex stage -> primitive stage -> tile stage -> frame
// with the tiler's accounting beside it; a clip-space frame (tessera/clip_space.h) enters at
// the primitive stage. Work is split by data (vertex ranges, triangle chunks, tiles), never by
// thread, and results are merged in a fixed order, so the frame and its stats do not depend on
// the thread count.
#include "tessera/renderer.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "color/color_stats.h"
#include "core/timing.h"
#include "pipeline/clip_space_draws.h"
#include "pipeline/frame_accounting.h"
#include "pipeline/primitive_stage.h"
#include "pipeline/rt_frame.h"
#include "pipeline/scene_draws.h"
#include "pipeline/tessellation_stage.h"
#include "pipeline/tile_stage.h"
#include "pipeline/vertex_stage.h"
#include "raster/sample_pattern.h"
#include "raster/tile_rasterizer.h"
#include "shaders/interpolated_color.h"
#include "shaders/lambert.h"
#include "tessera/counter_set.h"
#include "tessera/error.h"
#include "tessera/lane_target.h"
#include "timing/timing_model.h"

namespace tessera {

namespace {

// frame.* statistics of a raster frame (docs/stats.md).
// clang-format off
#define TESSERA_FRAME_COUNTERS(X)                                              \
  X(width, "frame.width", "pixels")                                           \
  X(height, "frame.height", "pixels")                                         \
  X(draws, "frame.draws", "draws in the frame")                               \
  X(triangles, "frame.triangles", "primitives assembled from the draws")     \
  X(tile_size, "frame.tile_size", "bin-grid tile edge in pixels")             \
  X(tiles, "frame.tiles", "bin-grid tiles")                                   \
  X(msaa, "frame.msaa", "samples per pixel")                                  \
  X(threads, "frame.threads", "worker threads (the only run-dependent count)")
// clang-format on
TESSERA_DEFINE_COUNTER_IDS(FrameCounterIds, TESSERA_FRAME_COUNTERS);
using FrameCounters = CounterSet<FrameCounterIds>;

// Wall-clock time of each stage, frame.time_ms.* (beside the counters, never part of a result).
// clang-format off
#define TESSERA_STAGE_TIMES(X)                                                              \
  X(vertex, "frame.time_ms.vertex") X(primitive, "frame.time_ms.primitive") X(tile, "frame.time_ms.tile") \
  X(picb, "frame.time_ms.picb") X(supertile_generation, "frame.time_ms.supertile_generation")             \
  X(tiling_accounting, "frame.time_ms.tiling_accounting") X(total, "frame.time_ms.total")
// clang-format on
struct StageTimes {
#define TESSERA_X(name, key) double name = 0;
  TESSERA_STAGE_TIMES(TESSERA_X)
#undef TESSERA_X
  void publish(Stats& s) const {
#define TESSERA_X(name, key) s.set(key, name);
    TESSERA_STAGE_TIMES(TESSERA_X)
#undef TESSERA_X
  }
};

// What both entries hand the stages from the primitive stage on.
template <typename FragmentShader>
struct PrimitiveFrame {
  std::vector<PrimitiveDraw> draws;
  std::vector<typename FragmentShader::Uniforms> uniforms;  // per draw
  std::vector<DepthState> depth;                            // per draw
  std::vector<BlendMode> blend;                             // per draw; empty: none blends
  const ClipVertex* vertices = nullptr;
  size_t vertex_count = 0;
  size_t triangles = 0;
  int width = 0, height = 0, samples = 1;
  Rgba8 clear_color = 0;
  float clear_depth = 1.0f;
  const Rgba8* initial_color = nullptr;  // per sample, pixel-major; null: the clears
  const float* initial_depth = nullptr;
  // What the tiler's accounting charges per vertex (TilingFrame) and the program length L.
  uint32_t position_bytes = 12, vertex_bytes = 32, vs_output_bytes = 48, vs_length = 0;
  bool per_draw = false;  // per-draw diagnostics (clip-space frames)
};

// Per-draw diagnostics from the stages' per-draw runs: FrameDiagnostics::draws, indexed like
// pf.draws (the caller maps them to its own draw order).
void collect_draw_work(const PrimitiveStageOutput& prims, const TileStageOutput& tiles,
                       const std::vector<BinChunk>* atomic_bins, uint32_t pic, size_t draw_count,
                       std::vector<DrawWork>& out) {
  out.assign(draw_count, DrawWork{});
  for (const std::vector<DrawRun>& runs : prims.draw_runs) {
    for (const DrawRun& r : runs) {
      DrawWork& w = out[r.draw];
      const RasterCounters& c = r.counters;
      w.primitives_in += c[RasterCounters::triangles_in];
      w.culled += c[RasterCounters::culled_frustum] + c[RasterCounters::culled_backface] +
                  c[RasterCounters::culled_frontface] + c[RasterCounters::culled_degenerate] +
                  c[RasterCounters::culled_scissor] + c[RasterCounters::culled_nonfinite];
      w.culled_nonfinite += c[RasterCounters::culled_nonfinite];
      w.culled_frustum += c[RasterCounters::culled_frustum];
      w.culled_facing += c[RasterCounters::culled_backface] + c[RasterCounters::culled_frontface];
      w.culled_scissor += c[RasterCounters::culled_scissor];
      w.clipped += c[RasterCounters::clipped];
      w.clip_output += c[RasterCounters::clip_output];
    }
  }
  for (const BinChunk& chunk : prims.chunks) {
    for (const TriangleSetup& t : chunk.setups) ++out[t.draw].setup;
    for (uint32_t e : chunk.entries) ++out[chunk.setups[e].draw].bin_entries;
  }
  for (const std::vector<DrawRun>& runs : tiles.draw_runs) {
    for (const DrawRun& r : runs) {
      DrawWork& w = out[r.draw];
      const RasterCounters& c = r.counters;
      ++w.tiles_touched;
      w.fragments_covered += c[RasterCounters::fragments_covered];
      w.samples_covered += c[RasterCounters::samples_covered];
      w.depth_passed += c[RasterCounters::depth_passed];
      w.quads_shaded += c[RasterCounters::quads_shaded];
      w.fs_invocations += c[RasterCounters::fs_invocations];
    }
  }
  if (atomic_bins) {
    // Fixed tiling's refined lists index the primitive stage's set-up triangles.
    for (size_t c = 0; c < atomic_bins->size(); ++c) {
      for (uint32_t e : (*atomic_bins)[c].entries) ++out[prims.chunks[c].setups[e].draw].atomic_entries;
    }
    for (DrawWork& w : out) w.picb = w.atomic_entries * pic;
  }
}

// Per primitive in frame order, its three frame-wide vertex ids (two-pass VS accounting).
std::vector<uint32_t> primitive_vertices(const std::vector<PrimitiveDraw>& draws, size_t triangles) {
  std::vector<uint32_t> out(triangles * 3);
  // Parallel within each draw as well (a 1M-triangle frame may be one draw): disjoint ranges.
  tbb::parallel_for(size_t(0), draws.size(), [&](size_t k) {
    const PrimitiveDraw& d = draws[k];
    tbb::parallel_for(tbb::blocked_range<size_t>(0, d.triangle_count * 3, 1 << 16),
                      [&](const tbb::blocked_range<size_t>& r) {
                        for (size_t i = r.begin(); i < r.end(); ++i) {
                          out[d.triangle_base * 3 + i] = uint32_t(d.vertex_base + d.indices[i]);
                        }
                      });
  });
  return out;
}

struct RasterTotals {
  RasterCounters counters;
  MemoryLedger ledger;
  EuShaderMath fragment_math;
  std::vector<timing::TileLoad> tile_loads;  // per render unit, in render order
};

// EU instructions of `math` with the library the timing model charges.
uint64_t instructions(const EuShaderMath& math, MathLibrary library) {
  return library == MathLibrary::baseline ? math.baseline_instructions() : math.instructions();
}

// What one bin-grid tile asked of the units, for the timing model.
timing::TileLoad tile_load(const RasterCounters& rc, const EuShaderMath& fragment_math, const MemoryLedger& ledger,
                           MathLibrary library) {
  timing::TileLoad l;
  // The EU counts the fragment program of live pixels; helper lanes occupy the SIMD lanes too.
  const uint64_t invocations = rc[RasterCounters::fs_invocations], helpers = rc[RasterCounters::fs_helpers];
  const double lanes = invocations > helpers ? double(invocations) / double(invocations - helpers) : 1.0;
  l.fragment_instructions = double(instructions(fragment_math, library)) * lanes;
  l.raster_samples = rc[RasterCounters::samples_covered];
  l.texels = rc[RasterCounters::texel_fetches];
  l.depth_writes = rc[RasterCounters::depth_passed];
  l.color_writes = rc[RasterCounters::depth_passed];
  l.memory_bytes = ledger.total_read() + ledger.total_written();
  return l;
}

// Per tile of the diagnostics' grid, the unit limiting its render unit (a supertile's for each
// of its atomic tiles).
void record_bottlenecks(const Config& cfg, const timing::FrameTiming& timed, FrameDiagnostics& d) {
  const bool adaptive = cfg.tiling.mode == TilingMode::adaptive;
  d.bottleneck.assign(d.tiles.size(), uint8_t(255));
  for (size_t t = 0; t < d.bottleneck.size(); ++t) {
    const size_t unit = adaptive ? d.supertile_of.empty() ? timed.tile_time.size() : d.supertile_of[t] : t;
    if (unit < timed.tile_time.size() && timed.tile_time[unit] > 0)
      d.bottleneck[t] = uint8_t(timed.tile_bottleneck[unit]);
  }
  d.bottleneck_units.clear();
  for (int u = 0; u < timing::kUnitCount; ++u) d.bottleneck_units.emplace_back(timing::unit_key(timing::Unit(u)));
}

// The front end's memory traffic: vertices and indices fetched, the parameter buffer written.
uint64_t front_end_bytes(const MemoryLedger& l) {
  return l.read[size_t(MemoryClient::vertex)] + l.read[size_t(MemoryClient::index)] +
         l.written[size_t(MemoryClient::parameter)];
}

// Buffers a renderer keeps from one raster frame to the next. The primitive stage's set-up
// records are some 80 MB on a 1M-triangle frame at 1080p; allocated afresh, glibc handed them
// back to the kernel after each frame and every frame faulted all their pages in again (half
// of a frame's page faults, on the primitive stage's threads). Every frame overwrites them.
struct FrameScratch {
  VertexStageResult post;
  PrimitiveStageOutput prims;
};

// Primitive stage -> (adaptive: PICB and supertiles) -> tile stage -> accounting, and the
// stats they publish. Sizes frame.color/depth.
template <typename FragmentShader>
RasterTotals run_raster_stages(const Config& cfg, tbb::task_arena& arena, const PrimitiveFrame<FragmentShader>& pf,
                               PrimitiveStageOutput& prims, Frame& frame, StageTimes& times) {
  const int samples = pf.samples;
  const bool adaptive = cfg.tiling.mode == TilingMode::adaptive;
  const bool accounting = cfg.tiling.accounting;
  const bool diagnostics = cfg.frame.diagnostics;
  // Adaptive tiling bins on atomic tiles and renders supertiles of them; fixed tiling bins
  // and renders tiles of raster.tile_size.
  TilingAccounting tiling;
  tiling.atomic = TileGrid::make(pf.width, pf.height, cfg.tiling.atomic_size);
  tiling.capacity = supertile_capacity(cfg.tiling.tile_buffer_bytes, cfg.tiling.atomic_size, samples,
                                       int(sizeof(Rgba8)), int(sizeof(float)));
  const TileGrid grid = adaptive ? tiling.atomic : TileGrid::make(pf.width, pf.height, cfg.raster.tile_size);
  const SampleExtent reach = sample_extent(samples);

  TileStageOutput tiles;
  // Fixed tiling's lists over atomic tiles (accounting), binned by the primitive stage.
  const std::vector<BinChunk>& refined = prims.atomic;
  bool have_picb = false;
  const uint32_t pic =
      primitive_intersection_cost(cfg.tiling.alpha, 1.0 - cfg.tiling.alpha, pf.vertex_bytes, pf.vs_length, 3);
  arena.execute([&] {
    // The frame's colour and depth are sized (a fill and the first touch of every page, ~4 ms
    // at 1280x720 on one thread) by a task of their own while the primitive stage runs: only
    // the tile stage reads or writes them.
    tbb::task_group frame_buffers;
    frame_buffers.run([&] {
      frame.color = Image(pf.width, pf.height);
      frame.depth.assign(size_t(pf.width) * size_t(pf.height), pf.clear_depth);
    });
    auto t0 = Clock::now();
    PrimitiveStageInput pin;
    pin.draws = &pf.draws;
    pin.vertices = pf.vertices;
    pin.vertex_count = pf.vertex_count;
    pin.triangles = pf.triangles;
    pin.varyings = FragmentShader::kVaryings;
    pin.grid = grid;
    pin.samples = reach;
    pin.record_sources = accounting;
    // A fixed frame's accounting reads its lists over atomic tiles: binned in the same pass.
    pin.atomic = accounting && !adaptive ? &tiling.atomic : nullptr;
    pin.per_draw = pf.per_draw;
    run_primitive_stage(pin, prims);
    times.primitive = ms_since(t0);

    // The supertiles are the adaptive frame's render units: made before its tile stage.
    if (adaptive) {
      build_picb_and_supertiles(prims.chunks, pic, tiling);
      have_picb = true;
    }

    frame_buffers.wait();
    // The tiler's accounting reads only what the primitive stage produced (the bin lists, the
    // set-up triangles' sources, the draws) and writes only `tiling` (a fixed frame's PICB and
    // supertiles, which its tile stage does not read; an adaptive frame's tile stage only reads
    // the supertiles): a task beside the tile stage, so its serial parts and its scaling losses
    // (4.3 ms at 1 thread, 3.7-4.1 at 2) overlap the tiles instead of following the last tile.
    // Its counts do not depend on who runs it or when.
    tbb::task_group tiler_accounting;
    if (accounting) {
      have_picb = true;
      tiler_accounting.run([&] {
        if (!adaptive) build_picb_and_supertiles(refined, pic, tiling);
        const std::vector<uint32_t> vertices_of = primitive_vertices(pf.draws, pf.triangles);
        TilingFrame tf;
        tf.setup_primitive = &prims.sources;
        tf.primitive_vertices = &vertices_of;
        tf.primitives = pf.triangles;
        tf.vertices = pf.vertex_count;
        tf.position_bytes = pf.position_bytes;
        tf.vertex_bytes = pf.vertex_bytes;
        tf.vs_output_bytes = pf.vs_output_bytes;
        tf.samples = samples;
        tf.pixel_bytes = int(sizeof(Rgba8) + sizeof(float));
        account_tilings(cfg.tiling, tf, adaptive ? prims.chunks : refined, prims.chunks, grid, tiling);
      });
    }
    t0 = Clock::now();
    const bool color_unit = samples > 1 && cfg.color.accounting;
    if (color_unit && diagnostics) {
      FrameDiagnostics& d = frame.diagnostics;
      d.color_blocks_x = (pf.width + color::kTileWidth - 1) / color::kTileWidth;
      d.color_blocks_y = (pf.height + color::kTileHeight - 1) / color::kTileHeight;
      d.color_states.assign(size_t(d.color_blocks_x) * size_t(d.color_blocks_y), 0);
    }
    if (samples > 1) frame.diagnostics.samples_per_pixel = samples;
    if (samples > 1 && cfg.frame.keep_samples) {
      frame.diagnostics.samples.assign(size_t(pf.width) * size_t(pf.height) * size_t(samples), 0);
    }
    TileStageInput<FragmentShader> tin;
    tin.chunks = &prims.chunks;
    tin.uniforms = pf.uniforms.data();
    tin.depth = pf.depth.data();
    tin.blend = pf.blend.empty() ? nullptr : pf.blend.data();
    tin.grid = grid;
    tin.supertiles = adaptive ? &tiling.supertiles : nullptr;
    tin.capacity = tiling.capacity;
    tin.samples = samples;
    tin.store_depth = cfg.raster.store_depth;
    tin.clear_color = pf.clear_color;
    tin.clear_depth = pf.clear_depth;
    tin.initial_color = pf.initial_color;
    tin.initial_depth = pf.initial_depth;
    tin.color_cache = color::ColorCacheGeometry{cfg.color.cache_bytes, cfg.color.line_bytes, cfg.color.ways};
    tin.compression = cfg.color.compression;
    tin.color_accounting = cfg.color.accounting;
    tin.color_states = color_unit && diagnostics;
    tin.keep_samples = samples > 1 && cfg.frame.keep_samples;
    if (pf.per_draw) {
      FrameDiagnostics& d = frame.diagnostics;
      d.sample_draw.assign(size_t(pf.width) * size_t(pf.height) * size_t(samples), 0);
      d.overdraw.assign(size_t(pf.width) * size_t(pf.height), 0);
      tin.per_draw = true;
      tin.sample_draw = d.sample_draw.data();
      tin.overdraw = d.overdraw.data();
    }
    run_tile_stage(tin, frame, tiles);
    times.tile = ms_since(t0);
    tiler_accounting.wait();
  });
  if (pf.per_draw) {
    collect_draw_work(prims, tiles, have_picb ? (adaptive ? &prims.chunks : &refined) : nullptr, pic, pf.draws.size(),
                      frame.diagnostics.draws);
  }
  times.picb = tiling.picb_ms;
  times.supertile_generation = tiling.generation_ms;
  times.tiling_accounting = tiling.accounting_ms;

  // Merge in fixed order.
  RasterTotals totals;
  for (const RasterCounters& c : prims.counters) totals.counters.merge(c);
  for (const RasterCounters& c : tiles.counters) totals.counters.merge(c);
  for (const MemoryLedger& l : tiles.ledgers) totals.ledger.merge(l);
  for (const EuShaderMath& m : tiles.fragment_math) totals.fragment_math.merge(m);
  totals.ledger.add_write(MemoryClient::parameter, totals.counters[RasterCounters::setup] * sizeof(TriangleSetup) +
                                                       totals.counters[RasterCounters::bin_entries] * sizeof(uint32_t));

  FrameCounters fc;
  fc[FrameCounters::width] = uint64_t(pf.width);
  fc[FrameCounters::height] = uint64_t(pf.height);
  fc[FrameCounters::draws] = pf.draws.size();
  fc[FrameCounters::triangles] = pf.triangles;
  fc[FrameCounters::tile_size] = uint64_t(grid.tile_size);
  fc[FrameCounters::tiles] = uint64_t(grid.tile_count());
  fc[FrameCounters::msaa] = uint64_t(samples);
  fc[FrameCounters::threads] = uint64_t(arena.max_concurrency());
  fc.publish(frame.stats);
  if (have_picb) publish_tiling(cfg.tiling, tiling, frame, diagnostics);
  if (samples > 1 && cfg.color.accounting) {
    color::ColorCounters cc;
    for (const color::ColorCounters& c : tiles.color) cc.merge(c);
    color::ColorTraffic traffic;
    for (const color::ColorTraffic& t : tiles.traffic) traffic.merge(t);
    color::publish_color(frame.stats, cc, traffic);
  }
  // The timing model's loads per render unit: a tile, or a supertile's atomic tiles together.
  const size_t units = adaptive ? tiling.supertiles.count() : tiles.counters.size();
  totals.tile_loads.resize(units);
  for (size_t u = 0; u < units; ++u) {
    timing::TileLoad& load = totals.tile_loads[u];
    auto add = [&](size_t t) {
      const timing::TileLoad l =
          tile_load(tiles.counters[t], tiles.fragment_math[t], tiles.ledgers[t], cfg.hardware.math_library);
      load.fragment_instructions += l.fragment_instructions;
      load.raster_samples += l.raster_samples;
      load.texels += l.texels;
      load.depth_writes += l.depth_writes;
      load.color_writes += l.color_writes;
      load.memory_bytes += l.memory_bytes;
    };
    if (adaptive) {
      for (uint32_t k = tiling.supertiles.offsets[u]; k < tiling.supertiles.offsets[u + 1]; ++k) {
        add(tiling.supertiles.entries[k]);
      }
    } else {
      add(u);
    }
  }
  // Per-tile workload for tools: list lengths from the bin lists, the rest from each tile's
  // own counters.
  if (diagnostics) {
    FrameDiagnostics& d = frame.diagnostics;
    d.tile_size = grid.tile_size;
    d.tiles_x = grid.tiles_x;
    d.tiles_y = grid.tiles_y;
    d.tiles.resize(size_t(grid.tile_count()));
    for (size_t t = 0; t < d.tiles.size(); ++t) {
      uint64_t entries = 0;
      for (const BinChunk& chunk : prims.chunks) entries += chunk.offsets[t + 1] - chunk.offsets[t];
      d.tiles[t].bin_entries = uint32_t(entries);
      d.tiles[t].fragments_covered = uint32_t(tiles.counters[t][RasterCounters::fragments_covered]);
      d.tiles[t].quads_shaded = uint32_t(tiles.counters[t][RasterCounters::quads_shaded]);
    }
  }
  return totals;
}

Frame render_raster_frame(const Scene& scene, const Camera& camera, const Config& cfg, tbb::task_arena& arena,
                          FrameScratch& scratch) {
  using VertexShader = shaders::LambertVertexShader;
  using FragmentShader = shaders::LambertFragmentShader;
  static_assert(VertexShader::kVaryings == FragmentShader::kVaryings && VertexShader::kVaryings <= kMaxVaryings);
  const auto t_start = Clock::now();
  const int width = cfg.frame.width, height = cfg.frame.height;
  const CameraMatrices cam = camera_matrices(camera, width, height);
  // L, the vertex program's length for the tiler, counted on the EU's profiles.
  static const uint64_t vs_length = VertexShader::instruction_count();

  // Tessellation stage: the patch instances become triangle meshes (docs/tessellation.md).
  TessellationStageResult tess;
  TessellationView view;
  view.view_projection = cam.view_projection;
  view.eye = camera.position;
  view.viewport = glm::vec2(float(width), float(height));
  arena.execute([&] { tess = run_tessellation_stage(scene, cfg.tessellation, view); });

  SceneDrawList list;
  build_scene_draws(scene, camera, cam.view_projection, tess, cfg.tessellation.gpp_map, list);

  StageTimes times;
  VertexStageResult& post = scratch.post;
  auto t0 = Clock::now();
  arena.execute([&] { run_vertex_stage(list, post); });
  times.vertex = ms_since(t0);

  PrimitiveFrame<FragmentShader> pf;
  const int samples = cfg.raster.msaa;
  const Viewport viewport{width, height, sample_extent(samples)};
  const GuardBand guard = GuardBand::from_pixels(cfg.raster.guard_band, width, height);
  pf.draws.reserve(list.draws.size());
  for (const SceneDraw& d : list.draws) {
    PrimitiveDraw p;
    p.indices = d.mesh->indices.data();
    p.triangle_count = d.mesh->triangle_count();
    p.vertex_base = d.vertex_base;
    p.triangle_base = d.triangle_base;
    p.cull = cfg.raster.cull_backface && !d.double_sided ? CullMode::back : CullMode::none;
    p.viewport = viewport;
    p.guard = guard;
    pf.draws.push_back(p);
    pf.uniforms.push_back(d.fs);
    // Blended surfaces are tested against the opaque depth but do not hide what is drawn
    // after them (docs/scene-format.md, "Alpha").
    DepthState depth;
    depth.write = d.blend == BlendMode::none;
    pf.depth.push_back(depth);
    if (d.blend != BlendMode::none && pf.blend.empty()) pf.blend.assign(list.draws.size(), BlendMode::none);
    if (!pf.blend.empty()) pf.blend[pf.draws.size() - 1] = d.blend;
  }
  pf.vertices = post.vertices.data();
  pf.vertex_count = list.vertices;
  pf.triangles = list.triangles;
  pf.width = width;
  pf.height = height;
  pf.samples = samples;
  pf.clear_color = encode_color(scene.background);
  pf.position_bytes = uint32_t(sizeof(Vertex::position));
  pf.vertex_bytes = uint32_t(sizeof(Vertex));
  pf.vs_output_bytes = uint32_t(sizeof(float) * (4 + VertexShader::kVaryings));
  pf.vs_length = uint32_t(vs_length);

  Frame frame;
  RasterTotals totals = run_raster_stages(cfg, arena, pf, scratch.prims, frame, times);
  totals.counters[RasterCounters::vertices_shaded] = list.vertices;
  // Tessellated vertices are made on chip; their control points are fetched instead.
  totals.ledger.add_read(MemoryClient::vertex, (list.stored_vertices + tess.control_point_fetches) * sizeof(Vertex));
  totals.ledger.add_read(MemoryClient::index, list.stored_triangles * 3 * sizeof(uint32_t));
  Stats& s = frame.stats;
  timing::FrontEndLoad front;
  const MathLibrary library = cfg.hardware.math_library;
  front.vertex_instructions = double(instructions(post.math, library) + instructions(tess.hull_math, library) +
                                     instructions(tess.domain_math, library));
  // The GPP design the timing model charges (tessellation.design; the geometry is the same).
  const std::optional<GppRunResult>& design = cfg.tessellation.design == TessellationDesign::noredist  ? tess.noredist
                                              : cfg.tessellation.design == TessellationDesign::offchip ? tess.offchip
                                                                                                       : tess.onchip;
  front.tessellation_cycles = design ? design->timing.makespan_cycles : 0.0;
  front.triangles_set_up = totals.counters[RasterCounters::setup];
  front.bin_entries = totals.counters[RasterCounters::bin_entries];
  front.memory_bytes = front_end_bytes(totals.ledger);
  const timing::FrameTiming timed = timing::model_frame(cfg.hardware, front, totals.tile_loads);
  timing::publish(s, cfg.hardware, timed);
  if (cfg.frame.diagnostics) record_bottlenecks(cfg, timed, frame.diagnostics);
  times.total = ms_since(t_start);
  times.publish(s);
  totals.counters.publish(s);
  EuShaderMath::publish_frame(s, post.math, totals.fragment_math, tess.hull_math, tess.domain_math, vs_length);
  tess.publish(s);
  totals.ledger.publish(s);
  return frame;
}

}  // namespace

struct Renderer::Impl {
  explicit Impl(const Config& c)
      : config(c), arena(c.frame.threads > 0 ? c.frame.threads : tbb::task_arena::automatic) {}
  Config config;
  RtFrameCache rt_cache;  // rt/hybrid frames: the scene's BVH and LOD residency between frames
  // The threads of every frame (raster, rt, hybrid, clip space), kept between frames: with a
  // fresh arena per frame and frames back to back (the viewer rendering continuously), oneTBB's
  // worker, still leaving the destroyed arena, mostly missed the new one, and one thread did
  // 70-95% of each frame.
  tbb::task_arena arena;
  // The raster frames' stage buffers, kept between frames. A frame that finds them in use (a
  // second thread rendering with the same renderer) uses buffers of its own.
  std::mutex scratch_mutex;
  FrameScratch scratch;

  template <typename Render>
  Frame with_scratch(Render&& render) {
    std::unique_lock<std::mutex> lock(scratch_mutex, std::try_to_lock);
    if (lock.owns_lock()) return render(scratch);
    FrameScratch own;
    return render(own);
  }
};

Renderer::Renderer(const Config& config) {
  validate_config(config);
  apply_lane_target_environment();  // before any frame's lane code, once per process
  impl_ = std::make_unique<Impl>(config);
}
Renderer::~Renderer() = default;
const Config& Renderer::config() const { return impl_->config; }

Frame Renderer::render(const Scene& scene, const Camera& camera) {
  const Config& cfg = impl_->config;
  switch (cfg.frame.mode) {
    case FrameMode::raster:
      return impl_->with_scratch(
          [&](FrameScratch& scratch) { return render_raster_frame(scene, camera, cfg, impl_->arena, scratch); });
    // Ray-traced frames (docs/rt.md, Rendering); hybrid shades on top of the raster frame.
    case FrameMode::rt: return render_rt_frame(scene, camera, cfg, impl_->rt_cache, impl_->arena);
    case FrameMode::hybrid: {
      Frame raster = impl_->with_scratch(
          [&](FrameScratch& scratch) { return render_raster_frame(scene, camera, cfg, impl_->arena, scratch); });
      return render_hybrid_frame(scene, camera, cfg, std::move(raster), impl_->rt_cache, impl_->arena);
    }
  }
  throw Error("render: unknown frame mode");
}

Frame Renderer::render_clip_space(const ClipSpaceFrame& in) { return render_clip_space(in, false); }

Frame Renderer::render_clip_space(const ClipSpaceFrame& in, bool draw_diagnostics) {
  using Shader = shaders::InterpolatedColorShader;
  const Config& cfg = impl_->config;
  const auto t_start = Clock::now();
  tbb::task_arena& arena = impl_->arena;

  ClipSpaceDrawList list;
  build_clip_space_draws(in, cfg.raster.guard_band, list);
  PrimitiveFrame<Shader> pf;
  pf.draws = list.draws;
  pf.uniforms.assign(list.draws.size(), Shader::Uniforms{});
  pf.depth = list.depth;
  pf.blend = list.blend;
  pf.vertices = list.vertices.data();
  pf.vertex_count = list.vertices.size();
  pf.triangles = list.triangles;
  pf.width = in.width;
  pf.height = in.height;
  pf.samples = in.samples;
  pf.clear_color = encode_color(in.clear_color);
  pf.clear_depth = in.clear_depth;
  pf.initial_color = in.initial_color.empty() ? nullptr : in.initial_color.data();
  pf.initial_depth = in.initial_depth.empty() ? nullptr : in.initial_depth.data();
  pf.position_bytes = in.position_bytes;
  pf.vertex_bytes = in.vertex_bytes;
  pf.vs_output_bytes = uint32_t(sizeof(float) * (4 + Shader::kVaryings));
  pf.vs_length = in.vertex_shader_instructions;
  pf.per_draw = draw_diagnostics;

  Frame frame;
  StageTimes times;
  std::unique_lock<std::mutex> lock(impl_->scratch_mutex, std::try_to_lock);
  PrimitiveStageOutput own;
  RasterTotals totals = run_raster_stages(cfg, arena, pf, lock.owns_lock() ? impl_->scratch.prims : own, frame, times);
  totals.ledger.add_read(MemoryClient::vertex, list.vertices.size() * in.vertex_bytes);
  totals.ledger.add_read(MemoryClient::index, list.indices * sizeof(uint32_t));
  // The vertex work was done elsewhere: the front end sets up, bins and fetches.
  timing::FrontEndLoad front;
  front.triangles_set_up = totals.counters[RasterCounters::setup];
  front.bin_entries = totals.counters[RasterCounters::bin_entries];
  front.memory_bytes = front_end_bytes(totals.ledger);
  const timing::FrameTiming timed = timing::model_frame(cfg.hardware, front, totals.tile_loads);
  timing::publish(frame.stats, cfg.hardware, timed);
  if (cfg.frame.diagnostics) record_bottlenecks(cfg, timed, frame.diagnostics);
  times.total = ms_since(t_start);
  times.publish(frame.stats);
  totals.counters.publish(frame.stats);
  totals.ledger.publish(frame.stats);
  if (draw_diagnostics) {
    // The stages count per draw with triangles; report every input draw, in its order.
    std::vector<uint32_t> input_draw;
    for (size_t i = 0; i < list.triangles_of.size(); ++i) {
      if (!list.triangles_of[i].empty()) input_draw.push_back(uint32_t(i));
    }
    FrameDiagnostics& d = frame.diagnostics;
    std::vector<DrawWork> per_input(in.draws.size());
    for (size_t k = 0; k < d.draws.size(); ++k) per_input[input_draw[k]] = d.draws[k];
    d.draws = std::move(per_input);
    for (uint32_t& s : d.sample_draw) s = s ? input_draw[s - 1] + 1 : 0;
  }
  return frame;
}

}  // namespace tessera
