// rt and hybrid frames: rays through the RT unit (tessera/rt.h), shaded by the closest-hit and
// miss programs of shaders/rt_programs.h. Work is split into fixed 16x16 pixel tiles, each with
// its own counters, merged in tile order; diffuse directions are seeded by pixel, so frames and
// counters are the same for any thread count.
#include "pipeline/rt_frame.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "core/timing.h"
#include "pipeline/tessellation_stage.h"
#include "raster/sample_pattern.h"
#include "raster/tile_rasterizer.h"
#include "rt/seed_hash.h"
#include "shaders/rt_programs.h"
#include "tessera/counter_set.h"
#include "tessera/error.h"
#include "tessera/memory_ledger.h"
#include "tessera/rt.h"
#include "tessera/rt_residency.h"
#include "timing/timing_model.h"

namespace tessera {

namespace {

constexpr int kTile = 16;  // pixel tile edge: the unit of parallel work
// Hybrid: the primary ray that recovers the raster pixel's triangle searches this relative
// window around the distance unprojected from the depth buffer.
constexpr float kHybridWindow = 1e-3f;

// What the pixel loops count beside the RT unit and the programs, X(name, stats key, meaning).
#define TESSERA_RT_PIXEL_COUNTERS(X) \
  X(pixels_hit, "rt.pixels.hit", "pixels whose primary visibility found a surface (shaded by the closest-hit program)")
// clang-format off
#define TESSERA_RT_HYBRID_COUNTERS(X)                                                                                  \
  X(window_hits, "rt.hybrid.window_hits", "raster pixels whose triangle the windowed primary ray found")              \
  X(full_primary_rays, "rt.hybrid.full_primary_rays", "raster pixels that needed an unrestricted primary ray")        \
  X(raster_kept, "rt.hybrid.raster_kept", "raster pixels where no ray found the raster surface (raster colour kept)")
// clang-format on
TESSERA_DEFINE_COUNTER_IDS(PixelCounterIds, TESSERA_RT_PIXEL_COUNTERS);
TESSERA_DEFINE_COUNTER_IDS(HybridCounterIds, TESSERA_RT_HYBRID_COUNTERS);
using PixelCounters = CounterSet<PixelCounterIds>;
using HybridCounters = CounterSet<HybridCounterIds>;

// Identity of what the cached acceleration structure was built from (FNV-1a over the scene's
// address, mesh sizes and storage, instances, LOD groups, and the rt config section).
uint64_t cache_key(const Scene& scene, const RtConfig& rt) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&](const void* data, size_t bytes) {
    const auto* b = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  };
  auto add_value = [&](const auto& v) { add(&v, sizeof(v)); };
  add_value(&scene);
  for (const Mesh& m : scene.meshes) {
    add_value(m.vertices.data());
    add_value(m.vertices.size());
    add_value(m.indices.data());
    add_value(m.indices.size());
  }
  for (const Instance& inst : scene.instances) {
    add_value(inst.mesh);
    add_value(inst.lod_group);
    add(&inst.transform, sizeof(inst.transform));
  }
  for (const LodGroup& g : scene.lod_groups) {
    add(g.levels.data(), g.levels.size() * sizeof(uint32_t));
    add(g.ranges.data(), g.ranges.size() * sizeof(float));
    add_value(g.bias);
  }
  add_value(rt.residency);
  add_value(rt.budget_mib);
  return h;
}

// The cached structure and residency for this scene, built (in `arena`) when missing or stale.
// Returns whether it was built now.
// `rebuild` forces it (a scene made for this frame only: its meshes' storage may reuse freed
// addresses, which the key cannot tell apart).
bool prepare_cache(const Scene& scene, const Config& cfg, tbb::task_arena& arena, RtFrameCache& cache, bool rebuild) {
  const uint64_t key = rebuild ? 0 : cache_key(scene, cfg.rt);
  if (cache.as && cache.key == key && !rebuild) return false;
  cache.residency.reset();
  cache.as = std::make_unique<rt::AccelerationStructure>();
  arena.execute([&] { *cache.as = rt::AccelerationStructure::build(scene); });
  cache.residency =
      std::make_unique<rt::Residency>(*cache.as, rt::residency_policy(cfg.rt), rt::residency_budget_bytes(cfg.rt));
  cache.key = key;
  return true;
}

// What one tile counts: RT unit traversal, shading, pixels, and the hybrid's primary-ray outcomes.
struct TileCounters {
  rt::Counters rays;
  shaders::FragmentCounters shading;
  PixelCounters pixels;
  HybridCounters hybrid;
};

class Tracer {
 public:
  // LOD selection and residency of the config's rt section.
  Tracer(const Scene& scene, const Camera& camera, const Config& config, const rt::AccelerationStructure& as,
         rt::Residency& residency)
      : scene_(scene),
        camera_(camera),
        config_(config),
        as_(as),
        lod_(rt::lod_settings(config.rt, &residency)),
        lighting_(shaders::LambertLighting::of_scene(scene, camera.position)) {
    if (config.rt.lod_selection == LodSelection::object) {
      object_levels_ = as.camera_lod_levels(camera.position);
      lod_.object_levels = object_levels_;
    }
    normal_matrix_.reserve(scene.instances.size());
    for (const Instance& inst : scene.instances) {
      if (inst.mesh >= scene.meshes.size() || inst.material >= scene.materials.size()) {
        throw Error("render: instance refers to a missing mesh or material");
      }
      normal_matrix_.push_back(glm::transpose(glm::inverse(glm::mat3(inst.transform))));
    }
    spread_ = 2.0f * std::tan(glm::radians(camera.fov_y_degrees) * 0.5f) / float(config.frame.height);
    view_projection_ = camera_matrices(camera, config.frame.width, config.frame.height).view_projection;
  }

  // A copy's lod_.object_levels would view the source's vector.
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  const glm::mat4& view_projection() const { return view_projection_; }

  // The ray through the pixel position (px, py) of the frame's view.
  rt::Ray camera_ray(float px, float py) const {
    return rt::camera_ray(camera_, config_.frame.width, config_.frame.height, px, py);
  }

  // Queries with the frame's LOD settings; `path` is the distance travelled before the ray's
  // origin and `seed` its LOD jitter seed (from the pixel, never the thread).
  rt::Hit intersect(const rt::Ray& ray, rt::RayType type, float path, uint64_t seed, TileCounters& tc) const {
    return as_.intersect(ray, type, rt::RayLod{path, 0.0f, seed}, lod_, tc.rays);
  }
  bool occluded(const rt::Ray& ray, float path, uint64_t seed, TileCounters& tc) const {
    return as_.occluded(ray, rt::RayType::shadow, rt::RayLod{path, 0.0f, seed}, lod_, tc.rays);
  }

  // Pixel (x, y), whose primary `ray` found `hit`: counts it, keeps its LOD level and writes the
  // colour of its primary path (the neighbouring pixels' rays give the texture LOD; `diffuse`
  // traces the diffuse bounces). Returns the hit's world position.
  glm::vec3 shade_pixel(int x, int y, const rt::Ray& ray, const rt::Hit& hit, bool diffuse, Frame& frame,
                        TileCounters& tc) const {
    const size_t i = size_t(y) * size_t(config_.frame.width) + size_t(x);
    ++tc.pixels[PixelCounters::pixels_hit];
    if (!frame.diagnostics.lod_levels.empty()) frame.diagnostics.lod_levels[i] = int8_t(hit.lod_level);
    const rt::Ray rx = camera_ray(float(x) + 1.5f, float(y) + 0.5f);
    const rt::Ray ry = camera_ray(float(x) + 0.5f, float(y) + 1.5f);
    glm::vec3 position;
    frame.color.pixels[i] =
        encode_color(shade_primary(ray, hit, shaders::RtFootprint{&rx, &ry, 0.0f}, i, diffuse, position, tc));
    return position;
  }

  // `hit`'s triangle met by another ray on its plane (extrapolated outside the triangle, as
  // raster attributes are at a pixel centre the triangle covers only with other samples).
  bool on_triangle_plane(const rt::Ray& ray, rt::Hit& hit) const {
    const Instance& inst = scene_.instances[hit.instance];
    const Vertex* vertex[3];
    triangle(inst, hit, vertex);
    glm::vec3 p[3];
    for (int k = 0; k < 3; ++k) p[k] = glm::vec3(inst.transform * glm::vec4(vertex[k]->position, 1.0f));
    float t, u, v;
    if (!shaders::TrianglePlane(p).meet(ray, t, u, v)) return false;
    if (!std::isfinite(t) || !(t > 0.0f) || !std::isfinite(u) || !std::isfinite(v)) return false;
    hit.t = t;
    hit.u = u;
    hit.v = v;
    return true;
  }

 private:
  using Program = shaders::RtClosestHitProgram;

  // Radiance of a primary path: the closest-hit program at `hit` with its shadow rays and
  // bounces, then fog and tone mapping. `pixel` seeds the diffuse directions.
  // `position` receives the hit's world position (for the depth buffer).
  glm::vec3 shade_primary(const rt::Ray& ray, const rt::Hit& hit, const shaders::RtFootprint& fp, uint64_t pixel,
                          bool diffuse, glm::vec3& position, TileCounters& tc) const {
    EuShaderMath& math = tc.shading.math;
    shaders::RtSurface s;
    glm::vec3 albedo;
    const float ray_length = glm::length(ray.direction);
    const float path = hit.t * ray_length;
    const glm::vec3 local = local_radiance(ray, hit, fp, path, rt::splitmix64(pixel ^ 0x5ead0000ull), s, albedo, tc);
    const glm::vec3 n = shaders::normalize_eu(s.normal, math);
    const glm::vec3 origin = Program::secondary_origin(s);
    glm::vec3 indirect(0.0f);
    const int samples = diffuse ? config_.trace.diffuse_samples : 0;
    for (int k = 0; k < samples; ++k) {
      const uint64_t h =
          rt::splitmix64(uint64_t(uint32_t(config_.trace.seed)) ^ rt::splitmix64(pixel * 64 + uint64_t(k)));
      rt::Ray bounce;
      bounce.origin = origin;
      bounce.direction =
          Program::cosine_direction(n, s.geometric_normal, rt::unit_float(h), rt::unit_float(rt::splitmix64(h)), math);
      indirect += secondary(bounce, rt::RayType::diffuse, path, h, tc);
    }
    glm::vec3 reflected(0.0f);
    const float reflectivity = config_.trace.reflections ? s.material->reflectivity : 0.0f;
    if (reflectivity > 0.0f) {
      rt::Ray mirror;
      mirror.origin = origin;
      mirror.direction = Program::reflect(ray.direction * (1.0f / ray_length), n, s.geometric_normal, math);
      reflected = secondary(mirror, rt::RayType::reflection, path, rt::splitmix64(pixel ^ 0x3e0000ull), tc);
    }
    const glm::vec3 c = Program::combine(local, albedo, indirect, samples, reflectivity, reflected, math);
    position = s.position;
    return Program::finish(lighting_, c, s.position, math);
  }

  // A bounce: the local shading of its closest hit, or the miss program.
  glm::vec3 secondary(const rt::Ray& ray, rt::RayType type, float path_before, uint64_t seed, TileCounters& tc) const {
    const rt::Hit hit = intersect(ray, type, path_before, seed, tc);
    if (!hit.hit()) return shaders::RtMissProgram::radiance(scene_.background);
    const float path = path_before + hit.t * glm::length(ray.direction);
    shaders::RtFootprint fp;
    fp.cone_width = spread_ * path;
    shaders::RtSurface s;
    glm::vec3 albedo;
    return local_radiance(ray, hit, fp, path, rt::splitmix64(seed), s, albedo, tc);
  }

  // The closest-hit program's local shading at `hit` (`path` from the camera), shadow rays included.
  glm::vec3 local_radiance(const rt::Ray& ray, const rt::Hit& hit, const shaders::RtFootprint& fp, float path,
                           uint64_t seed, shaders::RtSurface& s, glm::vec3& albedo, TileCounters& tc) const {
    s = surface(ray, hit, fp, tc.shading.math);
    float visible[kMaxLights];
    const glm::vec3 origin = Program::secondary_origin(s);
    for (int l = 0; l < lighting_.light_count; ++l) {
      visible[l] = 1.0f;
      if (!config_.trace.shadows) continue;
      rt::Ray shadow;
      shadow.origin = origin;
      if (!Program::light_direction(lighting_, l, origin, s.normal, shadow.direction, shadow.tmax)) {
        continue;  // the light adds nothing here: no ray needed
      }
      if (occluded(shadow, path, seed + uint64_t(l), tc)) visible[l] = 0.0f;
    }
    return Program::shade(lighting_, s, ray.origin, visible, albedo, tc.shading);
  }

  // The closest-hit program's inputs at `hit`: its triangle's vertices, instance and material.
  shaders::RtSurface surface(const rt::Ray& ray, const rt::Hit& hit, const shaders::RtFootprint& fp,
                             EuShaderMath& math) const {
    const Instance& inst = scene_.instances[hit.instance];
    const Material& material = scene_.materials[inst.material];
    const Texture* texture = material.texture >= 0 && size_t(material.texture) < scene_.textures.size()
                                 ? &scene_.textures[size_t(material.texture)]
                                 : nullptr;
    const Vertex* vertex[3];
    triangle(inst, hit, vertex);
    return Program::surface(inst.transform, normal_matrix_[hit.instance], vertex, hit.u, hit.v, ray.direction, material,
                            texture, fp, math);
  }

  // The vertices of `hit`'s triangle, in the mesh its primitive indexes: the instance's, or for
  // an LOD instance the level hit.
  void triangle(const Instance& inst, const rt::Hit& hit, const Vertex* vertex[3]) const {
    const Mesh* mesh = &scene_.meshes[inst.mesh];
    if (inst.lod_group >= 0 && hit.lod_level >= 0 && size_t(inst.lod_group) < scene_.lod_groups.size()) {
      const LodGroup& group = scene_.lod_groups[size_t(inst.lod_group)];
      if (size_t(hit.lod_level) < group.levels.size()) mesh = &scene_.meshes[group.levels[size_t(hit.lod_level)]];
    }
    for (int k = 0; k < 3; ++k) vertex[k] = &mesh->vertices[mesh->indices[size_t(hit.primitive) * 3 + size_t(k)]];
  }

  const Scene& scene_;
  const Camera& camera_;
  const Config& config_;
  const rt::AccelerationStructure& as_;
  rt::LodSettings lod_;
  std::vector<int8_t> object_levels_;  // lod_selection "object": lod_.object_levels views it
  shaders::LambertLighting lighting_;
  std::vector<glm::mat3> normal_matrix_;
  float spread_ = 0.0f;  // angle between neighbouring pixels' rays (radians, at the centre)
  glm::mat4 view_projection_{1.0f};
};

// The common part of rt and hybrid frames: the traced scene, its cached structure and
// residency, the tracer, the tile loop and what both publish. A scene with patch instances is
// traced with this view's tessellated meshes (what the raster path draws) added as meshes and
// instances, on a copy of the scene; its structure is rebuilt every frame then, since
// tessellation follows the view (and LOD residency starts over with it).
class TracedFrame {
 public:
  TracedFrame(const Scene& scene, const Camera& camera, const Config& cfg, RtFrameCache& cache, tbb::task_arena& arena)
      : arena(arena), cfg_(cfg), traced_(&scene) {
    const auto t_start = Clock::now();
    if (!scene.patch_instances.empty()) {
      TessellationView view;
      view.view_projection = camera_matrices(camera, cfg.frame.width, cfg.frame.height).view_projection;
      view.eye = camera.position;
      view.viewport = glm::vec2(float(cfg.frame.width), float(cfg.frame.height));
      arena.execute([&] { tessellation.emplace(run_tessellation_stage(scene, cfg.tessellation, view)); });
      with_patches_.emplace(scene);
      for (TessellatedMesh& m : tessellation->meshes) {
        const PatchInstance& source = scene.patch_instances.at(m.patch_instance);
        Instance inst;
        inst.mesh = uint32_t(with_patches_->meshes.size());
        inst.material = source.material;
        inst.transform = source.transform;
        with_patches_->meshes.push_back(std::move(m.mesh));
        with_patches_->instances.push_back(inst);
      }
      tessellation->meshes.clear();
      traced_ = &*with_patches_;
    }
    built_ = prepare_cache(*traced_, cfg, arena, cache, with_patches_.has_value());
    build_ms_ = ms_since(t_start);
    as = cache.as.get();
    residency_ = cache.residency.get();
    tracer.emplace(*traced_, camera, cfg, *as, *residency_);
  }
  TracedFrame(const TracedFrame&) = delete;
  TracedFrame& operator=(const TracedFrame&) = delete;

  const std::vector<timing::TileLoad>& tile_loads() const { return tile_loads_; }
  int tiles_x() const { return (cfg_.frame.width + kTile - 1) / kTile; }
  int tiles_y() const { return (cfg_.frame.height + kTile - 1) / kTile; }

  // Runs `pixel(x, y, i, counters)` over every pixel (i = y * width + x), in parallel over the
  // fixed tiles, each counting into its own TileCounters; returns them merged in tile order.
  template <typename Pixel>
  TileCounters trace(Pixel&& pixel) {
    const int width = cfg_.frame.width, height = cfg_.frame.height;
    std::vector<TileCounters> counters(size_t(tiles_x()) * size_t(tiles_y()));
    const auto t_trace = Clock::now();
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, counters.size(), 1), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t tile = r.begin(); tile < r.end(); ++tile) {
          const int x0 = int(tile % size_t(tiles_x())) * kTile, y0 = int(tile / size_t(tiles_x())) * kTile;
          for (int y = y0; y < std::min(y0 + kTile, height); ++y) {
            for (int x = x0; x < std::min(x0 + kTile, width); ++x) {
              pixel(x, y, size_t(y) * size_t(width) + size_t(x), counters[tile]);
            }
          }
        }
      });
    });
    trace_ms_ = ms_since(t_trace);
    // What each tile asked of the RT units, the EUs and memory (the timing model).
    tile_loads_.assign(counters.size(), timing::TileLoad{});
    for (size_t i = 0; i < counters.size(); ++i) {
      const TileCounters& t = counters[i];
      timing::TileLoad& l = tile_loads_[i];
      l.rt_box_tests = 8 * t.rays[rt::Counters::nodes_interior] + t.rays[rt::Counters::nodes_instance] +
                       t.rays[rt::Counters::nodes_lod];
      l.rt_triangle_tests = t.rays[rt::Counters::triangles_tested];
      l.fragment_instructions =
          double(cfg_.hardware.math_library == MathLibrary::baseline ? t.shading.math.baseline_instructions()
                                                                     : t.shading.math.instructions());
      l.texels = t.shading.sampler.texel_fetches;
      l.memory_bytes = t.rays[rt::Counters::node_bytes] + t.rays[rt::Counters::triangle_bytes] +
                       t.rays[rt::Counters::lod_bytes] + t.shading.sampler.texel_fetches * sizeof(Rgba8);
    }
    TileCounters all;
    for (const TileCounters& t : counters) {
      all.rays.merge(t.rays);
      all.shading.math.merge(t.shading.math);
      all.shading.sampler.samples += t.shading.sampler.samples;
      all.shading.sampler.texel_fetches += t.shading.sampler.texel_fetches;
      all.pixels.merge(t.pixels);
      all.hybrid.merge(t.hybrid);
    }
    return all;
  }

  // What rt and hybrid frames both publish: the RT unit's counters and build figures, the
  // closest-hit program's share of the EU, residency and whether the structure was built.
  // Ends the residency frame and returns its figures.
  rt::ResidencyFrame publish(Stats& s, const TileCounters& all) {
    const rt::ResidencyFrame residency_frame = residency_->end_frame();
    s.set("frame.mode", std::string(choice_name(cfg_.frame.mode)));
    all.rays.publish(s);
    as->publish(s);
    all.pixels.publish(s);
    s.set("rt.texture.samples", all.shading.sampler.samples);
    s.set("rt.texture.texel_fetches", all.shading.sampler.texel_fetches);
    s.set("rt.trace.shadows", uint64_t(cfg_.trace.shadows));
    s.set("rt.trace.reflections", uint64_t(cfg_.trace.reflections));
    all.shading.math.publish_stage(s, "eu.stage.closest_hit");
    s.set("frame.time_ms.bvh_build", build_ms_);
    s.set("frame.time_ms.trace", trace_ms_);
    rt::Residency::publish(residency_frame, s);
    s.set("rt.bvh.built", uint64_t(built_));
    return residency_frame;
  }

  tbb::task_arena& arena;                               // the Renderer's, kept between frames (see Renderer::Impl)
  std::optional<TessellationStageResult> tessellation;  // scenes with patch instances
  const rt::AccelerationStructure* as = nullptr;
  std::optional<Tracer> tracer;

 private:
  const Config& cfg_;
  std::optional<Scene> with_patches_;
  const Scene* traced_;
  rt::Residency* residency_ = nullptr;
  bool built_ = false;
  double build_ms_ = 0.0;  // tessellation and structure
  double trace_ms_ = 0.0;
  std::vector<timing::TileLoad> tile_loads_;
};

}  // namespace

Frame render_rt_frame(const Scene& scene, const Camera& camera, const Config& cfg, RtFrameCache& cache,
                      tbb::task_arena& arena) {
  const auto t_start = Clock::now();
  const int width = cfg.frame.width, height = cfg.frame.height;
  TracedFrame traced(scene, camera, cfg, cache, arena);
  const Tracer& tracer = *traced.tracer;

  Frame frame;
  frame.color = Image(width, height);
  frame.depth.assign(size_t(width) * size_t(height), 1.0f);
  if (cfg.frame.diagnostics) {
    FrameDiagnostics& d = frame.diagnostics;
    d.lod_levels.assign(size_t(width) * size_t(height), int8_t(-1));
    d.tile_size = kTile;
    d.tiles_x = traced.tiles_x();
    d.tiles_y = traced.tiles_y();
    d.tiles.resize(size_t(d.tiles_x) * size_t(d.tiles_y));
  }
  const glm::vec3 background = shaders::RtMissProgram::radiance(scene.background);
  const TileCounters all = traced.trace([&](int x, int y, size_t i, TileCounters& tc) {
    // The raster path's near and far planes: t along a camera ray is the view depth (its
    // direction's component along the view axis is 1).
    rt::Ray ray = tracer.camera_ray(float(x) + 0.5f, float(y) + 0.5f);
    ray.tmin = camera.near_plane;
    ray.tmax = camera.far_plane;
    const rt::Hit hit = tracer.intersect(ray, rt::RayType::primary, 0.0f, i, tc);
    if (!hit.hit()) {
      frame.color.pixels[i] = encode_color(background);
      return;
    }
    const glm::vec3 position = tracer.shade_pixel(x, y, ray, hit, true, frame, tc);
    const glm::vec4 clip = tracer.view_projection() * glm::vec4(position, 1.0f);
    frame.depth[i] = std::clamp(clip.z / clip.w, 0.0f, 1.0f);
  });

  Stats& s = frame.stats;
  const rt::ResidencyFrame residency_frame = traced.publish(s, all);
  s.set("frame.width", uint64_t(width));
  s.set("frame.height", uint64_t(height));
  s.set("frame.triangles", traced.as->info().triangles);
  s.set("frame.tile_size", uint64_t(kTile));
  s.set("frame.tiles", uint64_t(traced.tiles_x()) * uint64_t(traced.tiles_y()));
  s.set("frame.threads", uint64_t(traced.arena.max_concurrency()));
  if (traced.tessellation) traced.tessellation->publish(s);  // tessellation.*, as the raster path
  all.shading.math.publish(s);
  s.set("eu.dynamic_instructions", all.shading.math.instructions());
  // Memory: what the traversal fetched (memory client rt) and the texels the programs read.
  MemoryLedger ledger;
  rt::record(all.rays, ledger);
  ledger.add_read(MemoryClient::texture, all.shading.sampler.texel_fetches * sizeof(Rgba8));
  ledger.add_write(MemoryClient::color, uint64_t(width) * uint64_t(height) * sizeof(Rgba8));
  rt::Residency::record(residency_frame, ledger);
  ledger.publish(s);
  // The timing model: the tiles' rays on the RT units, their programs on the EUs, their
  // fetches from memory (the structure's build is not charged).
  timing::publish(s, cfg.hardware, timing::model_frame(cfg.hardware, timing::FrontEndLoad{}, traced.tile_loads()));
  s.set("frame.time_ms.total", ms_since(t_start));
  return frame;
}

Frame render_hybrid_frame(const Scene& scene, const Camera& camera, const Config& cfg, Frame frame, RtFrameCache& cache,
                          tbb::task_arena& arena) {
  const auto t_start = Clock::now();
  const int width = cfg.frame.width, height = cfg.frame.height;
  if (frame.color.width != width || frame.color.height != height ||
      frame.depth.size() != size_t(width) * size_t(height)) {
    throw Error("render: hybrid frame needs the raster frame of the same size");
  }
  TracedFrame traced(scene, camera, cfg, cache, arena);
  const Tracer& tracer = *traced.tracer;
  const glm::mat4 inverse_vp = glm::inverse(tracer.view_projection());
  if (cfg.frame.diagnostics) frame.diagnostics.lod_levels.assign(size_t(width) * size_t(height), int8_t(-1));
  // The depth buffer holds sample 0 of each pixel: its position within the pixel.
  SampleOffset sample0 = SamplePattern<1>::offsets[0];
  switch (cfg.raster.msaa) {
    case 2: sample0 = SamplePattern<2>::offsets[0]; break;
    case 4: sample0 = SamplePattern<4>::offsets[0]; break;
    case 8: sample0 = SamplePattern<8>::offsets[0]; break;
    default: break;
  }
  const float sx = float(sample0.x) / 256.0f, sy = float(sample0.y) / 256.0f;
  const bool centred = sample0.x == 128 && sample0.y == 128;
  const TileCounters all = traced.trace([&](int x, int y, size_t i, TileCounters& tc) {
    const float depth = frame.depth[i];
    if (!(depth < 1.0f)) return;  // nothing drawn: the raster clear colour stays
    // The raster sample's visible point, unprojected from its depth (NDC y = -1 is the top
    // row), as a distance along the ray through that sample.
    const glm::vec4 ndc(2.0f * (float(x) + sx) / float(width) - 1.0f, 2.0f * (float(y) + sy) / float(height) - 1.0f,
                        depth, 1.0f);
    const glm::vec4 q = inverse_vp * ndc;
    const glm::vec3 p = glm::vec3(q) / q.w;
    const rt::Ray ray = tracer.camera_ray(float(x) + 0.5f, float(y) + 0.5f);
    const rt::Ray at_sample = centred ? ray : tracer.camera_ray(float(x) + sx, float(y) + sy);
    const float t =
        glm::dot(p - at_sample.origin, at_sample.direction) / glm::dot(at_sample.direction, at_sample.direction);
    // The triangle and barycentrics the shading needs are not in the raster frame: a primary
    // ray restricted to a thin window around that distance finds them (few nodes overlap the
    // window); an unrestricted one where the window misses (depth of an MSAA sample off the
    // centre, depth precision far away).
    rt::Ray window = at_sample;
    window.tmin = t * (1.0f - kHybridWindow);
    window.tmax = t * (1.0f + kHybridWindow);
    rt::Hit hit;
    if (std::isfinite(t) && t > 0.0f) hit = tracer.intersect(window, rt::RayType::primary, 0.0f, i, tc);
    if (hit.hit()) {
      ++tc.hybrid[HybridCounters::window_hits];
      // Shade at the pixel centre on the sample's triangle, as the raster path does.
      if (!centred && !tracer.on_triangle_plane(ray, hit)) {
        hit = tracer.intersect(ray, rt::RayType::primary, 0.0f, i, tc);
      }
    } else {
      ++tc.hybrid[HybridCounters::full_primary_rays];
      hit = tracer.intersect(ray, rt::RayType::primary, 0.0f, i, tc);
    }
    if (!hit.hit()) {
      ++tc.hybrid[HybridCounters::raster_kept];
      return;
    }
    (void)tracer.shade_pixel(x, y, ray, hit, false, frame, tc);
  });
  Stats& s = frame.stats;
  traced.publish(s, all);
  all.hybrid.publish(s);
  // The timing model: the raster frame's modelled time, then the rays' (after the raster pass,
  // as this frame runs them).
  const timing::FrameTiming rays = timing::model_frame(cfg.hardware, timing::FrontEndLoad{}, traced.tile_loads());
  if (s.has("timing.frame.cycles")) {
    const double cycles = s.get_number("timing.frame.cycles") + rays.frame_cycles;
    s.set("timing.hybrid.raster_cycles", s.get_number("timing.frame.cycles"));
    s.set("timing.hybrid.ray_cycles", rays.frame_cycles);
    s.set("timing.frame.cycles", cycles);
    s.set("timing.frame.ms", cycles / (cfg.hardware.clock_mhz * 1000.0));
  }
  // The raster pass's own total plus the tracing pass.
  const double raster_ms = s.has("frame.time_ms.total") ? s.get_number("frame.time_ms.total") : 0.0;
  s.set("frame.time_ms.raster", raster_ms);
  s.set("frame.time_ms.total", raster_ms + ms_since(t_start));
  return frame;
}

}  // namespace tessera
