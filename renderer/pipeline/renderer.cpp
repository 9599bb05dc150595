// Frame orchestration of the raster path:
//   vertex stage (parallel over vertices) -> primitive stage (parallel over fixed chunks of
//   triangles: assembly, frustum cull, clip, setup, bin) -> tile stage (parallel over tiles:
//   rasterize, depth, shade, store) -> frame buffer, stats and memory ledger.
// Work is split by data (vertex ranges, triangle chunks, tiles), never by thread, and results
// are merged in a fixed order, so the frame and its stats do not depend on the thread count.
#include "core/timing.h"
#include "tessera/renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "color/color_back_end.h"
#include "color/color_counters.h"
#include "geometry/clipper.h"
#include "pipeline/rt_frame.h"
#include "pipeline/tessellation_stage.h"
#include "tessera/lod.h"
#include "raster/raster_counters.h"
#include "raster/sample_pattern.h"
#include "raster/tile_rasterizer.h"
#include "raster/triangle_setup.h"
#include "shaders/lambert.h"
#include "tessera/error.h"
#include "tessera/memory_ledger.h"
#include "tiling/fixed_tiling.h"
#include "tiling/supertiles.h"
#include "tiling/tiling_accounting.h"

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

// One tile in the tile buffer while its draws run: its rectangle, scratch colour/depth of
// width x height x kSamples entries, and with MSAA the colour unit's back end.
template <int kSamples>
struct TilePass {
  TileBuffer tile;
  std::optional<color::ColorBackEnd> back_end;
  FragmentShader::Counters shader;
  uint64_t entries = 0;
};

// Clears the tile buffer and runs every triangle binned to bin-grid tile `tile_index`.
template <int kSamples>
void draw_tile(const TileJob& job, int tile_index, Rgba8* color, float* depth, RasterCounters& rc, TilePass<kSamples>& p) {
  const TileGrid& grid = job.grid;
  TileBuffer& tile = p.tile;
  tile.x0 = (tile_index % grid.tiles_x) * grid.tile_size;
  tile.y0 = (tile_index / grid.tiles_x) * grid.tile_size;
  tile.width = std::min(grid.tile_size, job.width - tile.x0);
  tile.height = std::min(grid.tile_size, job.height - tile.y0);
  tile.color = color;
  tile.depth = depth;
  const size_t pixels = size_t(tile.width) * size_t(tile.height);
  std::fill_n(tile.color, pixels * kSamples, job.clear_color);
  std::fill_n(tile.depth, pixels * kSamples, 1.0f);
  // With MSAA the colour writes go through the colour unit's cache as they happen.
  if constexpr (kSamples > 1) p.back_end.emplace(job.color_cache, kSamples, job.clear_color, tile.color, tile.width, tile.height);
  for (const BinChunk& chunk : *job.chunks) {
    const uint32_t begin = chunk.offsets[size_t(tile_index)];
    const uint32_t end = chunk.offsets[size_t(tile_index) + 1];
    p.entries += end - begin;
    for (uint32_t k = begin; k < end; ++k) {
      const TriangleSetup& t = chunk.setups[chunk.entries[k]];
      if constexpr (kSamples > 1) {
        rasterize_triangle<FragmentShader, kVaryings, kSamples>(t, (*job.draws)[t.draw].fs, tile, rc, p.shader,
                                                                 [&](int x, int y) { p.back_end->on_quad_written(x, y); });
      } else {
        rasterize_triangle<FragmentShader, kVaryings, kSamples>(t, (*job.draws)[t.draw].fs, tile, rc, p.shader);
      }
    }
  }
}

// Stores a drawn tile to the frame buffer (resolving multisampled colour by a box filter in
// linear space) and accounts its memory traffic.
template <int kSamples>
void store_tile(const TileJob& job, TilePass<kSamples>& pass, RasterCounters& rc, MemoryLedger& ledger,
                color::ColorCounters* job_color, color::ColorTraffic* job_traffic, EuShaderMath& fragment_math) {
  TileBuffer& tile = pass.tile;
  const size_t pixels = size_t(tile.width) * size_t(tile.height);
  const SamplerCounters& sampler = pass.shader.sampler;
  fragment_math.merge(pass.shader.math);
  const uint64_t entries = pass.entries;
  std::optional<color::ColorBackEnd>& back_end = pass.back_end;
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

// Per bin-grid tile outputs of the tile stage, merged in tile order after it.
struct TileOutputs {
  std::vector<RasterCounters> counters;
  std::vector<MemoryLedger> ledgers;
  std::vector<color::ColorCounters> color;
  std::vector<color::ColorTraffic> traffic;
  std::vector<EuShaderMath> fragment_math;
};

// Renders one render tile: a bin-grid tile (fixed tiling), or a supertile whose atomic tiles
// share one tile buffer of `tiles` x atomic pixels, drawn one after another and stored to the
// frame buffer together once all of the supertile's draws are done. `scratch_*` hold the tile
// buffer (`tiles` x tile_size^2 x kSamples entries).
template <int kSamples>
void render_unit(const TileJob& job, const uint32_t* tiles, size_t count, Rgba8* scratch_color, float* scratch_depth,
                 TileOutputs& out) {
  const size_t stride = size_t(job.grid.tile_size) * size_t(job.grid.tile_size) * kSamples;
  std::unique_ptr<TilePass<kSamples>[]> passes(new TilePass<kSamples>[count]);
  for (size_t i = 0; i < count; ++i) {
    draw_tile<kSamples>(job, int(tiles[i]), scratch_color + i * stride, scratch_depth + i * stride, out.counters[tiles[i]],
                        passes[i]);
  }
  for (size_t i = 0; i < count; ++i) {
    const size_t t = tiles[i];
    store_tile<kSamples>(job, passes[i], out.counters[t], out.ledgers[t], &out.color[t], &out.traffic[t],
                         out.fragment_math[t]);
  }
}

// tiling.* statistics (docs/stats.md): the PICB, the supertiles generated from it, and what
// two-pass vertex shading and a parameter buffer do under the rendered tiling and under each
// baseline tiling of the same frame.
void publish_work(Stats& s, const std::string& prefix, const TilingWork& w) {
  s.set(prefix + ".render_tiles", w.render_tiles);
  s.set(prefix + ".crossings", w.crossings);
  s.set(prefix + ".vs.pass1_invocations", w.pass1_invocations);
  s.set(prefix + ".vs.pass2_invocations", w.pass2_invocations);
  s.set(prefix + ".vs.binned_vertices", w.binned_vertices);
  s.set(prefix + ".vs.redundant_invocations", w.redundant_invocations);
  s.set(prefix + ".vs.redundant_percent", w.redundant_percent);
  s.set(prefix + ".vertex_fetch_bytes", w.vertex_fetch_bytes);
  s.set(prefix + ".tile_buffer.stores", w.tile_buffer_stores);
  s.set(prefix + ".tile_buffer.store_bytes", w.tile_buffer_store_bytes);
  s.set(prefix + ".tile_buffer.loads", w.tile_buffer_loads);
  s.set(prefix + ".tile_buffer.load_bytes", w.tile_buffer_load_bytes);
  s.set(prefix + ".tile_buffer.largest_tile_bytes", w.largest_tile_bytes);
  s.set(prefix + ".tile_buffer.within_budget", uint64_t(w.within_budget));
  s.set(prefix + ".parameter_buffer.written_bytes", w.parameter_buffer_written_bytes);
  s.set(prefix + ".parameter_buffer.read_bytes", w.parameter_buffer_read_bytes);
}

// Distinct colours for up to 16 GPPs (the GPP map): hues around the wheel, alternating
// brightness so neighbours in GPP order differ.
glm::vec3 gpp_color(int gpp) {
  static const glm::vec3 kColors[16] = {
      {0.90f, 0.10f, 0.10f}, {0.10f, 0.60f, 0.95f}, {0.95f, 0.80f, 0.10f}, {0.45f, 0.10f, 0.75f},
      {0.10f, 0.80f, 0.30f}, {0.95f, 0.45f, 0.05f}, {0.05f, 0.35f, 0.45f}, {0.95f, 0.40f, 0.70f},
      {0.50f, 0.90f, 0.10f}, {0.20f, 0.20f, 0.70f}, {0.60f, 0.35f, 0.15f}, {0.10f, 0.90f, 0.85f},
      {0.75f, 0.75f, 0.75f}, {0.55f, 0.05f, 0.30f}, {0.35f, 0.55f, 0.10f}, {1.00f, 0.95f, 0.60f}};
  return kColors[gpp & 15];
}

// eu.* statistics (docs/stats.md): the EU instructions of each shader stage and of the frame.
void publish_eu(Stats& s, const EuShaderMath& vertex, const EuShaderMath& fragment, const EuShaderMath& hull,
                const EuShaderMath& domain, uint64_t vs_length) {
  vertex.publish_stage(s, "eu.stage.vertex");
  fragment.publish_stage(s, "eu.stage.fragment");
  hull.publish_stage(s, "eu.stage.hull");
  domain.publish_stage(s, "eu.stage.domain");
  EuShaderMath frame = vertex;
  frame.merge(fragment);
  frame.merge(hull);
  frame.merge(domain);
  frame.publish(s);
  s.set("eu.dynamic_instructions", frame.instructions());
  s.set("shader.vertex.instructions_per_invocation", vs_length);
}

void publish_tiling(Stats& s, const Config& cfg, const Picb& picb, const SupertileTable& stt, uint64_t crossings,
                    int capacity) {
  uint64_t max_cost = 0, saturated = 0;
  for (uint16_t c : picb.cost) {
    max_cost = std::max<uint64_t>(max_cost, c);
    saturated += c == 65535;
  }
  size_t largest = 0;
  for (size_t i = 0; i < stt.count(); ++i) largest = std::max(largest, stt.size_of(i));
  // Square fixed tiles as large as the budget allows, in atomic tiles.
  const int side = std::max(1, int(std::sqrt(double(capacity))));
  const TileGrid atomic = TileGrid::make(picb.tiles_x, picb.tiles_y, 1);
  SupertileTable fixed;
  fixed.tiles_x = picb.tiles_x;
  fixed.tiles_y = picb.tiles_y;
  fixed.owner = square_partition(atomic, side, "", 0).owner;
  s.set("tiling.mode", std::string(choice_name(cfg.tiling.mode)));
  s.set("tiling.atomic.size", uint64_t(cfg.tiling.atomic_size));
  s.set("tiling.atomic.tiles", uint64_t(picb.cost.size()));
  s.set("tiling.crossings", crossings);
  s.set("tiling.picb.max", max_cost);
  s.set("tiling.picb.saturated", saturated);
  s.set("tiling.supertiles.capacity", uint64_t(capacity));
  s.set("tiling.supertiles.count", uint64_t(stt.count()));
  s.set("tiling.supertiles.largest", uint64_t(largest));
  s.set("tiling.supertiles.cut_cost", stt.cut_cost(picb));
  // Size histogram in atomic tiles: le_1, le_2, le_4, ... up to the capacity.
  std::vector<uint64_t> histogram;
  for (size_t i = 0; i < stt.count(); ++i) {
    size_t bucket = 0;
    while ((size_t(1) << bucket) < stt.size_of(i)) ++bucket;
    if (histogram.size() <= bucket) histogram.resize(bucket + 1, 0);
    ++histogram[bucket];
  }
  for (size_t b = 0; (size_t(1) << b) < size_t(capacity) * 2 && b < 32; ++b) {
    s.set("tiling.supertiles.size.le_" + std::to_string(size_t(1) << b), b < histogram.size() ? histogram[b] : 0);
  }
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
  RtFrameCache rt_cache;  // rt/hybrid frames: the scene's BVH and LOD residency between frames
};

Renderer::Renderer(const Config& config) : impl_(std::make_unique<Impl>()) {
  validate_config(config);
  impl_->config = config;
}
Renderer::~Renderer() = default;
const Config& Renderer::config() const { return impl_->config; }

Frame Renderer::render(const Scene& scene, const Camera& camera) {
  const Config& cfg = impl_->config;
  // Ray-traced frames (docs/rt.md, Rendering); hybrid shades on top of this path's frame.
  if (cfg.frame.mode == FrameMode::rt) return render_rt_frame(scene, camera, cfg, impl_->rt_cache);
  if (cfg.frame.mode == FrameMode::hybrid) {
    Config raster = cfg;
    raster.frame.mode = FrameMode::raster;
    return render_hybrid_frame(scene, camera, cfg, Renderer(raster).render(scene, camera), impl_->rt_cache);
  }
  const int width = cfg.frame.width;
  const int height = cfg.frame.height;
  const auto t_start = Clock::now();

  tbb::task_arena arena(cfg.frame.threads > 0 ? cfg.frame.threads : tbb::task_arena::automatic);

  const CameraMatrices cam = camera_matrices(camera, width, height);
  const shaders::LambertLighting lighting = shaders::LambertLighting::of_scene(scene, camera.position);
  FragmentShader::Uniforms fs_common;
  fs_common.lighting = &lighting;
  // L, the vertex program's length for the tiler, counted on the EU's profiles.
  static const uint64_t vs_length = VertexShader::instruction_count();

  // Tessellation stage: the patch instances become triangle meshes (docs/tessellation.md).
  TessellationStageResult tess;
  {
    TessellationView view;
    view.view_projection = cam.view_projection;
    view.eye = camera.position;
    view.viewport = glm::vec2(float(width), float(height));
    arena.execute([&] { tess = run_tessellation_stage(scene, cfg.tessellation, view); });
  }
  // The GPP map shades flat: tessellated triangles in their GPP's colour, the rest grey.
  shaders::LambertLighting flat;
  flat.ambient = glm::vec3(1.0f);
  flat.exposure = 1.0f;
  const bool gpp_map = cfg.tessellation.gpp_map;

  // Draw list: one draw per instance, in scene order, then the tessellated patch instances.
  std::vector<Draw> draws;
  draws.reserve(scene.instances.size() + tess.meshes.size());
  size_t total_vertices = 0;
  size_t total_triangles = 0;
  size_t stored_vertices = 0, stored_triangles = 0;  // fetched from memory (not tessellated)
  auto add_draw = [&](const Mesh& mesh, const glm::mat4& transform, uint32_t material, int gpp) {
    if (mesh.indices.empty()) return;
    const Material& mat = scene.materials[material];
    Draw d;
    d.mesh = &mesh;
    d.vs.model = transform;
    d.vs.normal_matrix = glm::transpose(glm::inverse(glm::mat3(transform)));
    d.vs.view_projection = cam.view_projection;
    d.fs = fs_common;
    d.fs.base_color = mat.base_color;
    d.fs.specular = mat.specular;
    d.fs.shininess = mat.shininess;
    d.fs.texture = (mat.texture >= 0 && size_t(mat.texture) < scene.textures.size()) ? &scene.textures[size_t(mat.texture)]
                                                                                      : nullptr;
    if (gpp_map) {
      d.fs.lighting = &flat;
      d.fs.texture = nullptr;
      d.fs.specular = glm::vec3(0.0f);
      d.fs.base_color = gpp >= 0 ? gpp_color(gpp) : glm::vec3(0.18f);
    }
    d.vertex_base = total_vertices;
    d.triangle_base = total_triangles;
    total_vertices += mesh.vertices.size();
    total_triangles += mesh.triangle_count();
    draws.push_back(d);
  };
  for (const Instance& inst : scene.instances) {
    if (inst.mesh >= scene.meshes.size() || inst.material >= scene.materials.size()) {
      throw Error("render: instance refers to a missing mesh or material");
    }
    // LOD groups: the raster path picks one level per object by camera distance (the
    // ray-tracing unit chooses per ray, docs/rt.md).
    const uint32_t mesh = camera_lod_mesh(scene, inst, camera.position);
    if (mesh == kLodDiscarded) continue;
    add_draw(scene.meshes[mesh], inst.transform, inst.material, -1);
  }
  stored_vertices = total_vertices;
  stored_triangles = total_triangles;
  for (const TessellatedMesh& m : tess.meshes) {
    const PatchInstance& inst = scene.patch_instances[m.patch_instance];
    add_draw(m.mesh, inst.transform, inst.material, m.gpp);
  }

  Frame frame;
  frame.color = Image(width, height);
  frame.depth.assign(size_t(width) * size_t(height), 1.0f);
  const int samples = cfg.raster.msaa;
  const bool adaptive = cfg.tiling.mode == TilingMode::adaptive;
  // Adaptive tiling bins on atomic tiles and renders supertiles of them; fixed tiling bins
  // and renders tiles of raster.tile_size.
  const TileGrid atomic = TileGrid::make(width, height, cfg.tiling.atomic_size);
  const TileGrid grid = adaptive ? atomic : TileGrid::make(width, height, cfg.raster.tile_size);
  frame.tile_size = grid.tile_size;
  frame.tiles_x = grid.tiles_x;
  frame.tiles_y = grid.tiles_y;
  frame.tiles.resize(size_t(grid.tile_count()));
  const GuardBand guard = GuardBand::from_pixels(cfg.raster.guard_band, width, height);
  const Viewport viewport{width, height, sample_extent(samples)};
  const bool cull = cfg.raster.cull_backface;
  const Rgba8 clear_color = encode_color(scene.background);
  const int pixel_bytes = int(sizeof(Rgba8) + sizeof(float));
  const int capacity = supertile_capacity(cfg.tiling.tile_buffer_bytes, cfg.tiling.atomic_size, samples, int(sizeof(Rgba8)),
                                          int(sizeof(float)));

  std::vector<ClipVertex> post(total_vertices);
  const size_t chunk_count = (total_triangles + kChunkTriangles - 1) / kChunkTriangles;
  std::vector<BinChunk> chunks(chunk_count);
  // Per set-up triangle: its source primitive and vertices, for the tiling accounting.
  std::vector<std::vector<uint32_t>> setup_primitive(chunk_count), setup_vertices(chunk_count);
  // Lists over atomic tiles (the chunks' own lists when the frame is binned on atomic tiles).
  std::vector<BinChunk> atomic_bins(adaptive ? 0 : chunk_count);
  std::vector<RasterCounters> chunk_counters(chunk_count);
  TileOutputs outputs;
  outputs.counters.resize(size_t(grid.tile_count()));
  outputs.ledgers.resize(size_t(grid.tile_count()));
  outputs.color.resize(size_t(grid.tile_count()));
  outputs.traffic.resize(size_t(grid.tile_count()));
  outputs.fragment_math.resize(size_t(grid.tile_count()));
  // Vertex-stage EU work per thread; integer sums, so the merge order does not matter.
  tbb::combinable<EuShaderMath> vertex_math;
  double vertex_ms = 0, primitive_ms = 0, raster_ms = 0, picb_ms = 0, generation_ms = 0, accounting_ms = 0;
  Picb picb;
  SupertileTable supertiles;
  uint64_t crossings = 0;
  std::optional<TilingWork> rendered_work;
  std::vector<std::pair<std::string, TilingWork>> baseline_work;

  arena.execute([&] {
    // Vertex stage.
    auto t0 = Clock::now();
    tbb::parallel_for(tbb::blocked_range<size_t>(0, total_vertices, kVertexGrain), [&](const tbb::blocked_range<size_t>& r) {
      size_t d = find_draw(draws, r.begin(), &Draw::vertex_base);
      EuShaderMath math;
      for (size_t i = r.begin(); i < r.end(); ++i) {
        while (d + 1 < draws.size() && i >= draws[d + 1].vertex_base) ++d;
        const Draw& draw = draws[d];
        ClipVertex& out = post[i];
        VertexShader::run(draw.vs, draw.mesh->vertices[i - draw.vertex_base], out.clip, out.varyings, math);
      }
      vertex_math.local().merge(math);
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
        uint32_t source[4] = {};  // primitive, then its three frame-wide vertex ids
        auto emit = [&](const ClipVertex& a, const ClipVertex& b, const ClipVertex& v, uint32_t draw_index) {
          switch (setup_triangle(a, b, v, viewport, cull, kVaryings, draw_index, setup)) {
            case SetupResult::ok:
              chunk.setups.push_back(setup);
              setup_primitive[c].push_back(source[0]);
              setup_vertices[c].insert(setup_vertices[c].end(), source + 1, source + 4);
              break;
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
          source[0] = uint32_t(tri);
          for (int k = 0; k < 3; ++k) source[k + 1] = uint32_t(draw.vertex_base + idx[k]);
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
        if (!adaptive) bin_setups(atomic, viewport.samples, chunk.setups, atomic_bins[c].offsets, atomic_bins[c].entries);
      }
    });
    primitive_ms = ms_since(t0);
    const std::vector<BinChunk>& atomic_lists = adaptive ? chunks : atomic_bins;

    // PICB: every set-up triangle adds its draw's PIC to each atomic tile it can touch (its
    // atomic-tile list entries). 64-bit sums in tile order, saturated to 16 bits.
    t0 = Clock::now();
    const uint32_t pic = primitive_intersection_cost(cfg.tiling.alpha, 1.0 - cfg.tiling.alpha, uint32_t(sizeof(Vertex)),
                                                     uint32_t(vs_length), 3);
    picb = Picb(atomic.tiles_x, atomic.tiles_y);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, size_t(atomic.tile_count()), 256), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i < r.end(); ++i) {
        uint64_t entries = 0;
        for (const BinChunk& b : atomic_lists) entries += b.offsets[i + 1] - b.offsets[i];
        picb.cost[i] = uint16_t(std::min<uint64_t>(entries * pic, 65535));
      }
    });
    for (const BinChunk& b : atomic_lists) crossings += b.entries.size();
    picb_ms = ms_since(t0);
    t0 = Clock::now();
    supertiles = generate_supertiles(picb, capacity);
    generation_ms = ms_since(t0);

    // Tile stage: render tiles in parallel, each with its own tile buffer.
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
    const size_t unit_count = adaptive ? supertiles.count() : size_t(grid.tile_count());
    const size_t unit_tiles = adaptive ? size_t(capacity) : 1;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, unit_count, 1), [&](const tbb::blocked_range<size_t>& r) {
      std::vector<Rgba8> color(unit_tiles * size_t(grid.tile_size) * size_t(grid.tile_size) * size_t(samples));
      std::vector<float> depth(color.size());
      for (size_t unit = r.begin(); unit < r.end(); ++unit) {
        const uint32_t single = uint32_t(unit);
        const uint32_t* tiles = adaptive ? &supertiles.entries[supertiles.offsets[unit]] : &single;
        const size_t count = adaptive ? supertiles.size_of(unit) : 1;
        switch (samples) {
          case 2: render_unit<2>(job, tiles, count, color.data(), depth.data(), outputs); break;
          case 4: render_unit<4>(job, tiles, count, color.data(), depth.data(), outputs); break;
          case 8: render_unit<8>(job, tiles, count, color.data(), depth.data(), outputs); break;
          default: render_unit<1>(job, tiles, count, color.data(), depth.data(), outputs); break;
        }
      }
    });
    raster_ms = ms_since(t0);

    // Two-pass vertex shading and parameter-buffer accounting under the rendered tiling and,
    // on the same frame, under fixed 16..256 and adaptive tiles of the atomic grid.
    t0 = Clock::now();
    const uint64_t budget = uint64_t(cfg.tiling.tile_buffer_bytes);
    TilingFrame tf;
    tf.setup_primitive = &setup_primitive;
    tf.setup_vertices = &setup_vertices;
    tf.primitives = total_triangles;
    tf.vertices = total_vertices;
    tf.position_bytes = uint32_t(sizeof(Vertex::position));
    tf.vertex_bytes = uint32_t(sizeof(Vertex));
    tf.vs_output_bytes = uint32_t(sizeof(float) * (4 + kVaryings));
    tf.samples = samples;
    tf.pixel_bytes = pixel_bytes;
    TilingFrame on_atomic = tf;
    on_atomic.bins = &atomic_lists;
    on_atomic.grid = atomic;
    TilePartition adaptive_partition{"adaptive", supertiles.owner, uint32_t(supertiles.count()), budget};
    if (adaptive) {
      rendered_work = account_tiling(on_atomic, adaptive_partition);
    } else {
      TilingFrame on_grid = tf;
      on_grid.bins = &chunks;
      on_grid.grid = grid;
      rendered_work = account_tiling(on_grid, square_partition(grid, 1, "fixed", budget));
    }
    if (cfg.tiling.baselines) {
      for (int size = 16; size <= 256; size *= 2) {
        if (size % atomic.tile_size != 0) continue;
        const std::string name = "fixed_" + std::to_string(size);
        baseline_work.emplace_back(name, account_tiling(on_atomic, square_partition(atomic, size / atomic.tile_size, name, budget)));
      }
      baseline_work.emplace_back("adaptive", adaptive ? *rendered_work : account_tiling(on_atomic, adaptive_partition));
    }
    accounting_ms = ms_since(t0);
  });

  // Merge in fixed order.
  EuShaderMath vs_math = vertex_math.combine([](EuShaderMath a, const EuShaderMath& b) {
    a.merge(b);
    return a;
  });
  EuShaderMath fs_math;
  for (const EuShaderMath& m : outputs.fragment_math) fs_math.merge(m);
  RasterCounters counters;
  counters[RasterCounters::vertices_shaded] = total_vertices;
  for (const RasterCounters& c : chunk_counters) counters.merge(c);
  for (const RasterCounters& c : outputs.counters) counters.merge(c);
  // Per-tile workload for tools (Frame::tiles): list lengths from the bin lists, the rest from
  // each tile's own counters.
  for (size_t t = 0; t < frame.tiles.size(); ++t) {
    TileWork& work = frame.tiles[t];
    uint64_t entries = 0;
    for (const BinChunk& chunk : chunks) entries += chunk.offsets[t + 1] - chunk.offsets[t];
    work.bin_entries = uint32_t(entries);
    work.fragments_covered = uint32_t(outputs.counters[t][RasterCounters::fragments_covered]);
    work.quads_shaded = uint32_t(outputs.counters[t][RasterCounters::quads_shaded]);
  }
  MemoryLedger ledger;
  for (const MemoryLedger& l : outputs.ledgers) ledger.merge(l);
  // Tessellated vertices are made on chip; their control points are fetched instead.
  ledger.add_read(MemoryClient::vertex, (stored_vertices + tess.control_point_fetches) * sizeof(Vertex));
  ledger.add_read(MemoryClient::index, stored_triangles * 3 * sizeof(uint32_t));
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
  s.set("frame.time_ms.tiling_accounting", accounting_ms);
  s.set("frame.time_ms.total", ms_since(t_start));
  publish_tiling(s, cfg, picb, supertiles, crossings, capacity);
  publish_work(s, "tiling.rendered", *rendered_work);
  for (const auto& [name, work] : baseline_work) publish_work(s, "tiling.baseline." + name, work);
  frame.atomic_size = cfg.tiling.atomic_size;
  frame.atomic_x = picb.tiles_x;
  frame.atomic_y = picb.tiles_y;
  frame.picb = picb.cost;
  frame.supertile_of = supertiles.owner;
  counters.publish(s);
  publish_eu(s, vs_math, fs_math, tess.hull_math, tess.domain_math, vs_length);
  tess.publish(s);
  if (samples > 1) {
    color::ColorCounters cc;
    for (const color::ColorCounters& c : outputs.color) cc.merge(c);
    color::ColorTraffic traffic;
    for (const color::ColorTraffic& t : outputs.traffic) traffic.merge(t);
    publish_color(s, cc, traffic);
  }
  ledger.publish(s);
  return frame;
}

}  // namespace tessera
