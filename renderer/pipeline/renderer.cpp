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

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "geometry/clipper.h"
#include "raster/raster_counters.h"
#include "raster/tile_rasterizer.h"
#include "raster/triangle_setup.h"
#include "shaders/lambert.h"
#include "tessera/error.h"
#include "tessera/memory_ledger.h"
#include "tiling/fixed_tiling.h"

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
  FragmentShader::Uniforms fs_common;
  fs_common.ambient = scene.ambient;
  fs_common.light_count = int(std::min<size_t>(scene.lights.size(), kMaxLights));
  for (int i = 0; i < fs_common.light_count; ++i) fs_common.lights[i] = scene.lights[size_t(i)];
  fs_common.prepare_lights();

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
  const GuardBand guard = GuardBand::from_pixels(cfg.raster.guard_band, width, height);
  const Viewport viewport{width, height};
  const bool cull = cfg.raster.cull_backface;
  const Rgba8 clear_color = encode_color(scene.background);

  std::vector<ClipVertex> post(total_vertices);
  const size_t chunk_count = (total_triangles + kChunkTriangles - 1) / kChunkTriangles;
  std::vector<BinChunk> chunks(chunk_count);
  std::vector<RasterCounters> chunk_counters(chunk_count);
  std::vector<RasterCounters> tile_counters(size_t(grid.tile_count()));
  std::vector<MemoryLedger> tile_ledgers(size_t(grid.tile_count()));
  double vertex_ms = 0, primitive_ms = 0, raster_ms = 0;

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
        bin_chunk(grid, chunk);
        rc[RasterCounters::bin_entries] += chunk.entries.size();
      }
    });
    primitive_ms = ms_since(t0);

    // Tile stage.
    t0 = Clock::now();
    tbb::parallel_for(tbb::blocked_range<int>(0, grid.tile_count(), 1), [&](const tbb::blocked_range<int>& r) {
      std::vector<Rgba8> color(size_t(grid.tile_size) * size_t(grid.tile_size));
      std::vector<float> depth(color.size());
      for (int tile_index = r.begin(); tile_index < r.end(); ++tile_index) {
        RasterCounters& rc = tile_counters[size_t(tile_index)];
        MemoryLedger& ledger = tile_ledgers[size_t(tile_index)];
        TileBuffer tile;
        tile.x0 = (tile_index % grid.tiles_x) * grid.tile_size;
        tile.y0 = (tile_index / grid.tiles_x) * grid.tile_size;
        tile.width = std::min(grid.tile_size, width - tile.x0);
        tile.height = std::min(grid.tile_size, height - tile.y0);
        tile.color = color.data();
        tile.depth = depth.data();
        const size_t pixels = size_t(tile.width) * size_t(tile.height);
        std::fill_n(tile.color, pixels, clear_color);
        std::fill_n(tile.depth, pixels, 1.0f);
        SamplerCounters sampler;
        uint64_t entries = 0;
        for (const BinChunk& chunk : chunks) {
          const uint32_t begin = chunk.offsets[size_t(tile_index)];
          const uint32_t end = chunk.offsets[size_t(tile_index) + 1];
          entries += end - begin;
          for (uint32_t k = begin; k < end; ++k) {
            const TriangleSetup& t = chunk.setups[chunk.entries[k]];
            rasterize_triangle<FragmentShader, kVaryings>(t, draws[t.draw].fs, tile, rc, sampler);
          }
        }
        if (entries) ++rc[RasterCounters::tiles_touched];
        rc[RasterCounters::texture_samples] += sampler.samples;
        rc[RasterCounters::texel_fetches] += sampler.texel_fetches;
        // Parameter buffer read-back: the tile's list entries and the records they name.
        ledger.add_read(MemoryClient::parameter, entries * (sizeof(uint32_t) + sizeof(TriangleSetup)));
        ledger.add_read(MemoryClient::texture, sampler.texel_fetches * sizeof(Rgba8));
        // Tile store: colour always, depth when configured.
        ledger.add_write(MemoryClient::color, pixels * sizeof(Rgba8));
        if (cfg.raster.store_depth) ledger.add_write(MemoryClient::depth, pixels * sizeof(float));
        for (int y = 0; y < tile.height; ++y) {
          const size_t src = size_t(y) * size_t(tile.width);
          const size_t dst = size_t(tile.y0 + y) * size_t(width) + size_t(tile.x0);
          std::copy_n(tile.color + src, tile.width, frame.color.pixels.begin() + std::ptrdiff_t(dst));
          std::copy_n(tile.depth + src, tile.width, frame.depth.begin() + std::ptrdiff_t(dst));
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
  s.set("frame.threads", uint64_t(arena.max_concurrency()));
  s.set("frame.time_ms.vertex", vertex_ms);
  s.set("frame.time_ms.primitive", primitive_ms);
  s.set("frame.time_ms.tile", raster_ms);
  s.set("frame.time_ms.total", ms_since(t_start));
  counters.publish(s);
  ledger.publish(s);
  return frame;
}

}  // namespace tessera
