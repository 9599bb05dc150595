// Frame orchestration of the raster path:
//   vertex stage (parallel over vertices) -> primitive stage (parallel over fixed chunks of
//   triangles: assembly, frustum cull, clip, setup, bin) -> tile stage (parallel over tiles:
//   rasterize, depth, shade, store) -> frame buffer, stats and memory ledger.
// Work is split by data (vertex ranges, triangle chunks, tiles), never by thread, and results
// are merged in a fixed order, so the frame and its stats do not depend on the thread count.
#include "tessera/renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "color/color_back_end.h"
#include "color/color_counters.h"
#include "geometry/clipper.h"
#include "raster/raster_counters.h"
#include "raster/sample_pattern.h"
#include "raster/tile_rasterizer.h"
#include "raster/triangle_setup.h"
#include "shaders/lambert.h"
#include "tessera/error.h"
#include "tessera/memory_ledger.h"
#include "tiling/fixed_tiling.h"
#include "tiling/supertiles.h"

namespace tessera {

namespace {

using VertexShader = shaders::LambertVertexShader;
using FragmentShader = shaders::LambertFragmentShader;
constexpr int kVaryings = VertexShader::kVaryings;
static_assert(kVaryings <= kMaxVaryings);

// Consecutive primitives binned together; fixed, so chunking never depends on threads.
constexpr size_t kChunkTriangles = 8192;
constexpr size_t kVertexGrain = 4096;

struct Draw {
  const Mesh* mesh = nullptr;
  VertexShader::Uniforms vs;
  FragmentShader::Uniforms fs;
  size_t vertex_base = 0;    // first post-transform vertex of this draw
  size_t triangle_base = 0;  // first primitive of this draw in frame order
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Index of the draw containing element `i` of a prefix-summed field.
template <typename Field>
size_t find_draw(const std::vector<Draw>& draws, size_t i, Field field) {
  auto it = std::upper_bound(draws.begin(), draws.end(), i,
                             [&](size_t value, const Draw& d) { return value < d.*field; });
  return size_t(it - draws.begin()) - 1;
}

// Everything the tile stage reads, shared by all tiles of a frame.
struct TileJob {
  const std::vector<BinChunk>* chunks;
  const std::vector<Draw>* draws;
  TileGrid grid;
  int width;
  int height;
  int samples;
  bool store_depth;
  Rgba8 clear_color;
  Image* color;                // resolved frame
  std::vector<float>* depth;   // sample 0 of each pixel
  Frame* frame;                // per-block colour states
  color::ColorCacheGeometry color_cache;
};

// Renders one tile with kSamples samples per pixel into `color`/`depth` scratch of
// tile_size^2 * kSamples entries, stores it (resolving multisampled colour by a box filter in
// linear space) and accounts its memory traffic.
template <int kSamples>
void render_tile(const TileJob& job, int tile_index, Rgba8* color, float* depth, RasterCounters& rc,
                 MemoryLedger& ledger, color::ColorCounters* job_color, color::ColorTraffic* job_traffic) {
  const TileGrid& grid = job.grid;
  TileBuffer tile;
  tile.x0 = (tile_index % grid.tiles_x) * grid.tile_size;
  tile.y0 = (tile_index / grid.tiles_x) * grid.tile_size;
  tile.width = std::min(grid.tile_size, job.width - tile.x0);
  tile.height = std::min(grid.tile_size, job.height - tile.y0);
  tile.color = color;
  tile.depth = depth;
  const size_t pixels = size_t(tile.width) * size_t(tile.height);
  std::fill_n(tile.color, pixels * kSamples, job.clear_color);
  std::fill_n(tile.depth, pixels * kSamples, 1.0f);
  SamplerCounters sampler;
  uint64_t entries = 0;
  // With MSAA the colour writes go through the colour unit's cache as they happen.
  std::optional<color::ColorBackEnd> back_end;
  if constexpr (kSamples > 1) back_end.emplace(job.color_cache, kSamples, job.clear_color, tile.color, tile.width, tile.height);
  for (const BinChunk& chunk : *job.chunks) {
    const uint32_t begin = chunk.offsets[size_t(tile_index)];
    const uint32_t end = chunk.offsets[size_t(tile_index) + 1];
    entries += end - begin;
    for (uint32_t k = begin; k < end; ++k) {
      const TriangleSetup& t = chunk.setups[chunk.entries[k]];
      if constexpr (kSamples > 1) {
        rasterize_triangle<FragmentShader, kVaryings, kSamples>(t, (*job.draws)[t.draw].fs, tile, rc, sampler,
                                                                 [&](int x, int y) { back_end->on_quad_written(x, y); });
      } else {
        rasterize_triangle<FragmentShader, kVaryings, kSamples>(t, (*job.draws)[t.draw].fs, tile, rc, sampler);
      }
    }
  }
  if (entries) ++rc[RasterCounters::tiles_touched];
  rc[RasterCounters::texture_samples] += sampler.samples;
  rc[RasterCounters::texel_fetches] += sampler.texel_fetches;
  // Parameter buffer read-back: the tile's list entries and the records they name.
  ledger.add_read(MemoryClient::parameter, entries * (sizeof(uint32_t) + sizeof(TriangleSetup)));
  ledger.add_read(MemoryClient::texture, sampler.texel_fetches * sizeof(Rgba8));
  // Tile store. Depth: every sample when configured. Colour at 1x: the pixels. A multisampled
  // target goes through the colour unit in 8x4 blocks: each is compressed on store (control
  // code, index bits, planes) and the resolve reads it back through the decompressor, so the
  // frame is built from exactly what the colour unit stored.
  if (job.store_depth) ledger.add_write(MemoryClient::depth, pixels * kSamples * sizeof(float));
  if constexpr (kSamples == 1) {
    ledger.add_write(MemoryClient::color, pixels * sizeof(Rgba8));
  } else {
    // End of the bin tile: the cache is flushed through the eviction flow; the resolve then
    // reads every block in its final stored form through the decompressor.
    back_end->flush();
    const color::ColorCounters before = *job_color;
    for (int b = 0; b < back_end->blocks_x() * back_end->blocks_y(); ++b) {
      const color::StoredTile& stored = back_end->final_tile(b);
      job_color->add(stored);
      const int bx = (b % back_end->blocks_x()) * color::kTileWidth, by = (b / back_end->blocks_x()) * color::kTileHeight;
      job.frame->color_states[size_t((tile.y0 + by) / color::kTileHeight) * size_t(job.frame->color_blocks_x) +
                              size_t((tile.x0 + bx) / color::kTileWidth)] = uint8_t(stored.state);
      const color::ColorTile loaded = color::load_tile(stored, job.clear_color);
      for (int p = 0; p < color::kTilePixels; ++p) {
        const int x = bx + p % color::kTileWidth, y = by + p / color::kTileWidth;
        if (x >= tile.width || y >= tile.height) continue;
        for (int k = 0; k < kSamples; ++k) {
          tile.color[(size_t(y) * size_t(tile.width) + size_t(x)) * kSamples + size_t(k)] = loaded.at(p, k);
        }
      }
    }
    const color::ColorTraffic& traffic = back_end->traffic();
    job_traffic->merge(traffic);
    const uint64_t blocks = uint64_t(back_end->blocks_x()) * uint64_t(back_end->blocks_y());
    auto bytes = [](uint64_t bits) { return (bits + 7) / 8; };
    // Cache traffic, plus the fast clear of the control surface at frame start, plus the
    // resolve reading each block's final stored form.
    ledger.add_write(MemoryClient::color, bytes(traffic.plane_bits_written));
    ledger.add_read(MemoryClient::color, bytes(traffic.plane_bits_read) + bytes(job_color->plane_bits - before.plane_bits));
    ledger.add_write(MemoryClient::color_index, bytes(traffic.index_bits_written));
    ledger.add_read(MemoryClient::color_index, bytes(traffic.index_bits_read) + bytes(job_color->index_bits - before.index_bits));
    ledger.add_write(MemoryClient::color_control, bytes(traffic.control_bits_written + blocks * color::kControlBits));
    ledger.add_read(MemoryClient::color_control,
                    bytes(traffic.control_bits_read + job_color->control_bits - before.control_bits));
    ledger.add_write(MemoryClient::color, pixels * sizeof(Rgba8));  // the resolved image
  }
  for (int y = 0; y < tile.height; ++y) {
    for (int x = 0; x < tile.width; ++x) {
      const size_t src = (size_t(y) * size_t(tile.width) + size_t(x)) * kSamples;
      const size_t dst = size_t(tile.y0 + y) * size_t(job.width) + size_t(tile.x0 + x);
      (*job.depth)[dst] = tile.depth[src];
      if (!job.frame->samples.empty()) {
        std::copy_n(tile.color + src, kSamples, job.frame->samples.begin() + std::ptrdiff_t(dst * kSamples));
      }
      if constexpr (kSamples == 1) {
        job.color->pixels[dst] = tile.color[src];
      } else {
        glm::vec3 sum(0.0f);
        for (int k = 0; k < kSamples; ++k) {
          const Rgba8 c = tile.color[src + size_t(k)];
          sum += glm::vec3(decode_srgb8(channel(c, 0)), decode_srgb8(channel(c, 1)), decode_srgb8(channel(c, 2)));
        }
        job.color->pixels[dst] = encode_color(sum * (1.0f / float(kSamples)));
      }
    }
  }
}

// tiling.* statistics (docs/stats.md): the PICB and the supertiles generated from it, with
// square fixed tiles of the same tile-buffer budget for comparison.
void publish_tiling(Stats& s, const Config& cfg, const Picb& picb, const SupertileTable& stt, uint64_t crossings) {
  const int capacity = supertile_capacity(cfg.tiling.tile_buffer_bytes, cfg.tiling.atomic_size, cfg.raster.msaa,
                                          int(sizeof(Rgba8)), int(sizeof(float)));
  uint64_t max_cost = 0, saturated = 0;
  for (uint16_t c : picb.cost) {
    max_cost = std::max<uint64_t>(max_cost, c);
    saturated += c == 65535;
  }
  size_t largest = 0;
  for (size_t i = 0; i < stt.count(); ++i) largest = std::max(largest, stt.size_of(i));
  // Square fixed tiles as large as the budget allows, in atomic tiles.
  const int side = std::max(1, int(std::sqrt(double(capacity))));
  SupertileTable fixed;
  fixed.tiles_x = picb.tiles_x;
  fixed.tiles_y = picb.tiles_y;
  fixed.owner.resize(picb.cost.size());
  const int fixed_x = (picb.tiles_x + side - 1) / side;
  for (int y = 0; y < picb.tiles_y; ++y) {
    for (int x = 0; x < picb.tiles_x; ++x) fixed.owner[size_t(y * picb.tiles_x + x)] = uint32_t((y / side) * fixed_x + x / side);
  }
  s.set("tiling.atomic.size", uint64_t(cfg.tiling.atomic_size));
  s.set("tiling.atomic.tiles", uint64_t(picb.cost.size()));
  s.set("tiling.crossings", crossings);
  s.set("tiling.picb.max", max_cost);
  s.set("tiling.picb.saturated", saturated);
  s.set("tiling.supertiles.capacity", uint64_t(capacity));
  s.set("tiling.supertiles.count", uint64_t(stt.count()));
  s.set("tiling.supertiles.largest", uint64_t(largest));
  s.set("tiling.supertiles.cut_cost", stt.cut_cost(picb));
  s.set("tiling.fixed.side_atomic_tiles", uint64_t(side));
  s.set("tiling.fixed.cut_cost", fixed.cut_cost(picb));
}

// color.* statistics (docs/stats.md): present when the target is multisampled.
void publish_color(Stats& s, const color::ColorCounters& cc, const color::ColorTraffic& traffic) {
  s.set("color.cache.accesses", traffic.accesses);
  s.set("color.cache.hits", traffic.hits);
  s.set("color.cache.misses", traffic.misses);
  s.set("color.cache.hit_rate", traffic.accesses ? double(traffic.hits) / double(traffic.accesses) : 0.0);
  s.set("color.eviction.palette_attempts", traffic.palette_attempts);
  s.set("color.eviction.palette_stores", traffic.palette_stores);
  s.set("color.eviction.palette_skipped_planes_not_cached", traffic.palette_skipped);
  s.set("color.traffic.planes.read_bytes", (traffic.plane_bits_read + 7) / 8);
  s.set("color.traffic.planes.written_bytes", (traffic.plane_bits_written + 7) / 8);
  s.set("color.traffic.index.read_bytes", (traffic.index_bits_read + 7) / 8);
  s.set("color.traffic.index.written_bytes", (traffic.index_bits_written + 7) / 8);
  s.set("color.traffic.control.read_bytes", (traffic.control_bits_read + 7) / 8);
  s.set("color.traffic.control.written_bytes", (traffic.control_bits_written + 7) / 8);
  uint64_t tiles = 0;
#define TESSERA_X(name, code, desc)                                                    \
  s.set("color.tiles." #name, cc.tiles_by_state[size_t(color::TileState::name)]); \
  tiles += cc.tiles_by_state[size_t(color::TileState::name)];
  TESSERA_COLOR_TILE_STATES(TESSERA_X)
#undef TESSERA_X
  s.set("color.tiles.total", tiles);
  const uint64_t stored = (cc.plane_bits + 7) / 8 + (cc.index_bits + 7) / 8 + (cc.control_bits + 7) / 8;
  s.set("color.bytes.planes", (cc.plane_bits + 7) / 8);
  s.set("color.bytes.index", (cc.index_bits + 7) / 8);
  s.set("color.bytes.control", (cc.control_bits + 7) / 8);
  s.set("color.bytes.total", stored);
  s.set("color.baseline.uncompressed_bytes", cc.baseline_uncompressed_bits / 8);
  s.set("color.baseline.planes_only_bytes", cc.baseline_planes_only_bits / 8);
  s.set("color.ratio.vs_uncompressed",
        cc.baseline_uncompressed_bits ? double(stored) / double(cc.baseline_uncompressed_bits / 8) : 0.0);
  s.set("color.ratio.vs_planes_only",
        cc.baseline_planes_only_bits ? double(stored) / double(cc.baseline_planes_only_bits / 8) : 0.0);
  for (size_t b = 0; b < color::kBitsHistogramEdges.size(); ++b) {
    const std::string name = b + 1 < color::kBitsHistogramEdges.size()
                                 ? "color.bits_per_tile.le_" + std::to_string(color::kBitsHistogramEdges[b])
                                 : "color.bits_per_tile.more";
    s.set(name, cc.bits_histogram[b]);
  }
}

}  // namespace

struct Renderer::Impl {
  Config config;
};

Renderer::Renderer(const Config& config) : impl_(std::make_unique<Impl>()) {
  validate_config(config);
  impl_->config = config;
}
Renderer::~Renderer() = default;
const Config& Renderer::config() const { return impl_->config; }

Frame Renderer::render(const Scene& scene, const Camera& camera) {
  const Config& cfg = impl_->config;
  const int width = cfg.frame.width;
  const int height = cfg.frame.height;
  const auto t_start = Clock::now();

  tbb::task_arena arena(cfg.frame.threads > 0 ? cfg.frame.threads : tbb::task_arena::automatic);

  const CameraMatrices cam = camera_matrices(camera, width, height);
  shaders::LambertLighting lighting;
  lighting.ambient = scene.ambient;
  lighting.light_count = int(std::min<size_t>(scene.lights.size(), kMaxLights));
  for (int i = 0; i < lighting.light_count; ++i) lighting.lights[i] = scene.lights[size_t(i)];
  lighting.prepare();
  FragmentShader::Uniforms fs_common;
  fs_common.lighting = &lighting;

  // Draw list: one draw per instance, in scene order.
  std::vector<Draw> draws;
  draws.reserve(scene.instances.size());
  size_t total_vertices = 0;
  size_t total_triangles = 0;
  for (const Instance& inst : scene.instances) {
    if (inst.mesh >= scene.meshes.size() || inst.material >= scene.materials.size()) {
      throw Error("render: instance refers to a missing mesh or material");
    }
    const Mesh& mesh = scene.meshes[inst.mesh];
    if (mesh.indices.empty()) continue;
    const Material& mat = scene.materials[inst.material];
    Draw d;
    d.mesh = &mesh;
    d.vs.model = inst.transform;
    d.vs.normal_matrix = glm::transpose(glm::inverse(glm::mat3(inst.transform)));
    d.vs.view_projection = cam.view_projection;
    d.fs = fs_common;
    d.fs.base_color = mat.base_color;
    d.fs.texture = (mat.texture >= 0 && size_t(mat.texture) < scene.textures.size()) ? &scene.textures[size_t(mat.texture)]
                                                                                      : nullptr;
    d.vertex_base = total_vertices;
    d.triangle_base = total_triangles;
    total_vertices += mesh.vertices.size();
    total_triangles += mesh.triangle_count();
    draws.push_back(d);
  }

  Frame frame;
  frame.color = Image(width, height);
  frame.depth.assign(size_t(width) * size_t(height), 1.0f);
  const TileGrid grid = TileGrid::make(width, height, cfg.raster.tile_size);
  frame.tile_size = grid.tile_size;
  frame.tiles_x = grid.tiles_x;
  frame.tiles_y = grid.tiles_y;
  frame.tiles.resize(size_t(grid.tile_count()));
  const GuardBand guard = GuardBand::from_pixels(cfg.raster.guard_band, width, height);
  const int samples = cfg.raster.msaa;
  const Viewport viewport{width, height, sample_extent(samples)};
  const bool cull = cfg.raster.cull_backface;
  const Rgba8 clear_color = encode_color(scene.background);

  std::vector<ClipVertex> post(total_vertices);
  const size_t chunk_count = (total_triangles + kChunkTriangles - 1) / kChunkTriangles;
  std::vector<BinChunk> chunks(chunk_count);
  std::vector<RasterCounters> chunk_counters(chunk_count);
  std::vector<RasterCounters> tile_counters(size_t(grid.tile_count()));
  std::vector<MemoryLedger> tile_ledgers(size_t(grid.tile_count()));
  std::vector<color::ColorCounters> tile_color(size_t(grid.tile_count()));
  std::vector<color::ColorTraffic> tile_traffic(size_t(grid.tile_count()));
  double vertex_ms = 0, primitive_ms = 0, raster_ms = 0, picb_ms = 0, generation_ms = 0;
  Picb picb;
  SupertileTable supertiles;
  uint64_t crossings = 0;

  arena.execute([&] {
    // Vertex stage.
    auto t0 = Clock::now();
    tbb::parallel_for(tbb::blocked_range<size_t>(0, total_vertices, kVertexGrain), [&](const tbb::blocked_range<size_t>& r) {
      size_t d = find_draw(draws, r.begin(), &Draw::vertex_base);
      for (size_t i = r.begin(); i < r.end(); ++i) {
        while (d + 1 < draws.size() && i >= draws[d + 1].vertex_base) ++d;
        const Draw& draw = draws[d];
        ClipVertex& out = post[i];
        VertexShader::run(draw.vs, draw.mesh->vertices[i - draw.vertex_base], out.clip, out.varyings);
      }
    });
    vertex_ms = ms_since(t0);

    // Primitive stage: assembly, cull, clip, setup and binning per chunk.
    t0 = Clock::now();
    tbb::parallel_for(tbb::blocked_range<size_t>(0, chunk_count, 1), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t c = r.begin(); c < r.end(); ++c) {
        BinChunk& chunk = chunks[c];
        RasterCounters& rc = chunk_counters[c];
        const size_t first = c * kChunkTriangles;
        const size_t last = std::min(first + kChunkTriangles, total_triangles);
        chunk.setups.reserve(last - first);
        size_t d = find_draw(draws, first, &Draw::triangle_base);
        ClipVertex poly[kMaxClipVertices];
        TriangleSetup setup;
        auto emit = [&](const ClipVertex& a, const ClipVertex& b, const ClipVertex& v, uint32_t draw_index) {
          switch (setup_triangle(a, b, v, viewport, cull, kVaryings, draw_index, setup)) {
            case SetupResult::ok: chunk.setups.push_back(setup); break;
            case SetupResult::culled_backface: ++rc[RasterCounters::culled_backface]; break;
            case SetupResult::culled_degenerate: ++rc[RasterCounters::culled_degenerate]; break;
          }
        };
        for (size_t tri = first; tri < last; ++tri) {
          while (d + 1 < draws.size() && tri >= draws[d + 1].triangle_base) ++d;
          const Draw& draw = draws[d];
          const uint32_t* idx = &draw.mesh->indices[(tri - draw.triangle_base) * 3];
          const ClipVertex& v0 = post[draw.vertex_base + idx[0]];
          const ClipVertex& v1 = post[draw.vertex_base + idx[1]];
          const ClipVertex& v2 = post[draw.vertex_base + idx[2]];
          ++rc[RasterCounters::triangles_in];
          bool finite = true;
          for (const ClipVertex* v : {&v0, &v1, &v2}) {
            for (int k = 0; k < 4; ++k) finite = finite && std::isfinite(v->clip[k]);
          }
          if (!finite) {
            ++rc[RasterCounters::culled_nonfinite];
            continue;
          }
          if (frustum_outcode(v0.clip) & frustum_outcode(v1.clip) & frustum_outcode(v2.clip)) {
            ++rc[RasterCounters::culled_frustum];
            continue;
          }
          const uint32_t planes = clip_outcode(v0.clip, guard) | clip_outcode(v1.clip, guard) | clip_outcode(v2.clip, guard);
          if (!planes) {
            emit(v0, v1, v2, uint32_t(d));
            continue;
          }
          ++rc[RasterCounters::clipped];
          const int n = clip_triangle(v0, v1, v2, planes, guard, kVaryings, poly);
          for (int k = 1; k + 1 < n; ++k) {
            ++rc[RasterCounters::clip_output];
            emit(poly[0], poly[k], poly[k + 1], uint32_t(d));
          }
        }
        rc[RasterCounters::setup] += chunk.setups.size();
        bin_chunk(grid, viewport.samples, chunk);
        rc[RasterCounters::bin_entries] += chunk.entries.size();
      }
    });
    primitive_ms = ms_since(t0);

    // Adaptive tiling: every set-up triangle adds its draw's PIC to each atomic tile it can
    // touch (the same reach test as binning). Chunks count in parallel into 32-bit sums that
    // are added in chunk order and saturated to 16 bits, so the PICB is deterministic.
    t0 = Clock::now();
    const TileGrid atomic = TileGrid::make(width, height, cfg.tiling.atomic_size);
    const uint32_t pic = primitive_intersection_cost(cfg.tiling.alpha, 1.0 - cfg.tiling.alpha, uint32_t(sizeof(Vertex)),
                                                     uint32_t(VertexShader::kInstructionCount), 3);
    std::vector<std::vector<uint32_t>> chunk_picb(chunk_count);
    std::vector<uint64_t> chunk_crossings(chunk_count, 0);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, chunk_count, 1), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t c = r.begin(); c < r.end(); ++c) {
        chunk_picb[c].assign(size_t(atomic.tile_count()), 0);
        for (const TriangleSetup& t : chunks[c].setups) {
          for_each_tile(atomic, viewport.samples, t, [&](int id) {
            chunk_picb[c][size_t(id)] += pic;
            ++chunk_crossings[c];
          });
        }
      }
    });
    picb = Picb(atomic.tiles_x, atomic.tiles_y);
    std::vector<uint64_t> sums(size_t(atomic.tile_count()), 0);
    for (size_t c = 0; c < chunk_count; ++c) {
      crossings += chunk_crossings[c];
      for (size_t i = 0; i < sums.size(); ++i) sums[i] += chunk_picb[c][i];
    }
    for (size_t i = 0; i < sums.size(); ++i) picb.cost[i] = uint16_t(std::min<uint64_t>(sums[i], 65535));
    picb_ms = ms_since(t0);
    t0 = Clock::now();
    supertiles = generate_supertiles(picb, supertile_capacity(cfg.tiling.tile_buffer_bytes, cfg.tiling.atomic_size, samples,
                                                              int(sizeof(Rgba8)), int(sizeof(float))));
    generation_ms = ms_since(t0);

    // Tile stage.
    t0 = Clock::now();
    if (samples > 1) {
      frame.color_blocks_x = (width + color::kTileWidth - 1) / color::kTileWidth;
      frame.color_blocks_y = (height + color::kTileHeight - 1) / color::kTileHeight;
      frame.color_states.assign(size_t(frame.color_blocks_x) * size_t(frame.color_blocks_y), 0);
      frame.samples_per_pixel = samples;
      if (cfg.frame.keep_samples) frame.samples.assign(size_t(width) * size_t(height) * size_t(samples), 0);
    }
    const TileJob job{&chunks, &draws, grid, width, height, samples, cfg.raster.store_depth, clear_color, &frame.color,
                      &frame.depth, &frame,
                      color::ColorCacheGeometry{cfg.color.cache_bytes, cfg.color.line_bytes, cfg.color.ways}};
    tbb::parallel_for(tbb::blocked_range<int>(0, grid.tile_count(), 1), [&](const tbb::blocked_range<int>& r) {
      std::vector<Rgba8> color(size_t(grid.tile_size) * size_t(grid.tile_size) * size_t(samples));
      std::vector<float> depth(color.size());
      for (int tile_index = r.begin(); tile_index < r.end(); ++tile_index) {
        RasterCounters& rc = tile_counters[size_t(tile_index)];
        MemoryLedger& ledger = tile_ledgers[size_t(tile_index)];
        switch (samples) {
          case 2: render_tile<2>(job, tile_index, color.data(), depth.data(), rc, ledger, &tile_color[size_t(tile_index)], &tile_traffic[size_t(tile_index)]); break;
          case 4: render_tile<4>(job, tile_index, color.data(), depth.data(), rc, ledger, &tile_color[size_t(tile_index)], &tile_traffic[size_t(tile_index)]); break;
          case 8: render_tile<8>(job, tile_index, color.data(), depth.data(), rc, ledger, &tile_color[size_t(tile_index)], &tile_traffic[size_t(tile_index)]); break;
          default: render_tile<1>(job, tile_index, color.data(), depth.data(), rc, ledger, &tile_color[size_t(tile_index)], &tile_traffic[size_t(tile_index)]); break;
        }
      }
    });
    raster_ms = ms_since(t0);
  });

  // Merge in fixed order.
  RasterCounters counters;
  counters[RasterCounters::vertices_shaded] = total_vertices;
  for (const RasterCounters& c : chunk_counters) counters.merge(c);
  for (const RasterCounters& c : tile_counters) counters.merge(c);
  // Per-tile workload for tools (Frame::tiles): list lengths from the bin lists, the rest from
  // each tile's own counters.
  for (size_t t = 0; t < frame.tiles.size(); ++t) {
    TileWork& work = frame.tiles[t];
    uint64_t entries = 0;
    for (const BinChunk& chunk : chunks) entries += chunk.offsets[t + 1] - chunk.offsets[t];
    work.bin_entries = uint32_t(entries);
    work.fragments_covered = uint32_t(tile_counters[t][RasterCounters::fragments_covered]);
    work.quads_shaded = uint32_t(tile_counters[t][RasterCounters::quads_shaded]);
  }
  MemoryLedger ledger;
  for (const MemoryLedger& l : tile_ledgers) ledger.merge(l);
  ledger.add_read(MemoryClient::vertex, total_vertices * sizeof(Vertex));
  ledger.add_read(MemoryClient::index, total_triangles * 3 * sizeof(uint32_t));
  ledger.add_write(MemoryClient::parameter,
                   counters[RasterCounters::setup] * sizeof(TriangleSetup) + counters[RasterCounters::bin_entries] * sizeof(uint32_t));

  Stats& s = frame.stats;
  s.set("frame.width", uint64_t(width));
  s.set("frame.height", uint64_t(height));
  s.set("frame.draws", uint64_t(draws.size()));
  s.set("frame.triangles", uint64_t(total_triangles));
  s.set("frame.tile_size", uint64_t(grid.tile_size));
  s.set("frame.tiles", uint64_t(grid.tile_count()));
  s.set("frame.msaa", uint64_t(samples));
  s.set("frame.threads", uint64_t(arena.max_concurrency()));
  s.set("frame.time_ms.vertex", vertex_ms);
  s.set("frame.time_ms.primitive", primitive_ms);
  s.set("frame.time_ms.tile", raster_ms);
  s.set("frame.time_ms.picb", picb_ms);
  s.set("frame.time_ms.supertile_generation", generation_ms);
  s.set("frame.time_ms.total", ms_since(t_start));
  publish_tiling(s, cfg, picb, supertiles, crossings);
  frame.atomic_size = cfg.tiling.atomic_size;
  frame.atomic_x = picb.tiles_x;
  frame.atomic_y = picb.tiles_y;
  frame.picb = picb.cost;
  frame.supertile_of = supertiles.owner;
  counters.publish(s);
  if (samples > 1) {
    color::ColorCounters cc;
    for (const color::ColorCounters& c : tile_color) cc.merge(c);
    color::ColorTraffic traffic;
    for (const color::ColorTraffic& t : tile_traffic) traffic.merge(t);
    publish_color(s, cc, traffic);
  }
  ledger.publish(s);
  return frame;
}

}  // namespace tessera
