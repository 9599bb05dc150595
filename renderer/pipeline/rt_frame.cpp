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

#include "pipeline/tessellation_stage.h"
#include "raster/sample_pattern.h"
#include "raster/tile_rasterizer.h"
#include "shaders/rt_programs.h"
#include "core/timing.h"
#include "tessera/error.h"
#include "tessera/memory_ledger.h"
#include "tessera/rt.h"
#include "tessera/rt_residency.h"

namespace tessera {

namespace {


constexpr int kTile = 16;  // pixel tile edge: the unit of parallel work
// Hybrid: the primary ray that recovers the raster pixel's triangle searches this relative
// window around the distance unprojected from the depth buffer.
constexpr float kHybridWindow = 1e-3f;

uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
float unit_float(uint64_t h) { return float(h >> 40) * 0x1p-24f; }

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

// What one tile counts: RT unit traversal, shading, and the hybrid's primary-ray outcomes.
struct TileCounters {
  rt::Counters rays;
  shaders::FragmentCounters shading;
  uint64_t pixels_hit = 0;
  uint64_t hybrid_window_hits = 0;    // raster pixels whose triangle the windowed ray found
  uint64_t hybrid_full_rays = 0;      // ... that needed an unrestricted primary ray
  uint64_t hybrid_raster_kept = 0;    // ... where no ray found it (raster colour kept)
};

// How a hit's texture level of detail is found: the neighbouring pixels' rays meeting the hit
// triangle's plane (ray differentials: what the raster path's quad derivatives measure), or for
// bounces a cone of the pixel's spread angle over the path length.
struct Footprint {
  const rt::Ray* dx = nullptr;
  const rt::Ray* dy = nullptr;
  float cone_width = 0.0f;  // world-space footprint at the hit (bounces)
};

class Tracer {
 public:
  // LOD selection and residency of the config's rt section.
  Tracer(const Scene& scene, const Camera& camera, const Config& config, const rt::AccelerationStructure& as,
         rt::Residency& residency)
      : scene_(scene), config_(config), as_(as), lod_(rt::lod_settings(config.rt, &residency)),
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

  // Queries with the frame's LOD settings; `path` is the distance travelled before the ray's
  // origin and `seed` its LOD jitter seed (from the pixel, never the thread).
  rt::Hit intersect(const rt::Ray& ray, rt::RayType type, float path, uint64_t seed, TileCounters& tc) const {
    return as_.intersect(ray, type, rt::RayLod{path, 0.0f, seed}, lod_, tc.rays);
  }
  bool occluded(const rt::Ray& ray, float path, uint64_t seed, TileCounters& tc) const {
    return as_.occluded(ray, rt::RayType::shadow, rt::RayLod{path, 0.0f, seed}, lod_, tc.rays);
  }

  // Radiance of a primary path: the closest-hit program at `hit` with its shadow rays and
  // bounces, then fog and tone mapping. `pixel` seeds the diffuse directions.
  // `position` receives the hit's world position (for the depth buffer).
  glm::vec3 shade_primary(const rt::Ray& ray, const rt::Hit& hit, const Footprint& fp, uint64_t pixel, bool diffuse,
                          glm::vec3& position, TileCounters& tc) const {
    EuShaderMath& math = tc.shading.math;
    shaders::RtSurface s;
    glm::vec3 albedo;
    const float ray_length = glm::length(ray.direction);
    const float path = hit.t * ray_length;
    const glm::vec3 local = local_radiance(ray, hit, fp, path, mix(pixel ^ 0x5ead0000ull), s, albedo, tc);
    const glm::vec3 n = shaders::normalize_eu(s.normal, math);
    const glm::vec3 origin = offset(s);
    glm::vec3 indirect(0.0f);
    const int samples = diffuse ? config_.trace.diffuse_samples : 0;
    for (int k = 0; k < samples; ++k) {
      const uint64_t h = mix(uint64_t(uint32_t(config_.trace.seed)) ^ mix(pixel * 64 + uint64_t(k)));
      rt::Ray bounce;
      bounce.origin = origin;
      bounce.direction = shaders::RtClosestHitProgram::cosine_direction(n, s.geometric_normal, unit_float(h),
                                                                         unit_float(mix(h)), math);
      indirect += secondary(bounce, rt::RayType::diffuse, path, h, tc);
    }
    if (samples > 0) {
      indirect *= 1.0f / float(samples);
      math.alu(0, 3, 0);
    }
    glm::vec3 reflected(0.0f);
    const float reflectivity = config_.trace.reflections ? s.material->reflectivity : 0.0f;
    if (reflectivity > 0.0f) {
      rt::Ray mirror;
      mirror.origin = origin;
      mirror.direction = shaders::RtClosestHitProgram::reflect(ray.direction * (1.0f / ray_length), n,
                                                               s.geometric_normal, math);
      reflected = secondary(mirror, rt::RayType::reflection, path, mix(pixel ^ 0x3e0000ull), tc);
    }
    const glm::vec3 c = shaders::RtClosestHitProgram::combine(local, albedo, indirect, reflectivity, reflected, math);
    // Eye distance for fog: a difference, a dot product and a square root, as lambert.h.
    float eye_distance = 0.0f;
    if (lighting_.fog.density > 0.0f) {
      const glm::vec3 e = lighting_.eye - s.position;
      math.alu(2, 1, 3);
      eye_distance = math.sqrt(std::max(glm::dot(e, e), 1e-30f));
    }
    position = s.position;
    return shaders::RtClosestHitProgram::finish(lighting_, c, eye_distance, math);
  }

  float spread() const { return spread_; }

  // The mesh a hit's primitive indexes: the instance's, or for an LOD instance the level hit.
  const Mesh& hit_mesh(const Instance& inst, const rt::Hit& hit) const {
    if (inst.lod_group >= 0 && hit.lod_level >= 0 && size_t(inst.lod_group) < scene_.lod_groups.size()) {
      const LodGroup& group = scene_.lod_groups[size_t(inst.lod_group)];
      if (size_t(hit.lod_level) < group.levels.size()) return scene_.meshes[group.levels[size_t(hit.lod_level)]];
    }
    return scene_.meshes[inst.mesh];
  }

  // `hit`'s triangle met by another ray on its plane (extrapolated outside the triangle, as
  // raster attributes are at a pixel centre the triangle covers only with other samples).
  bool on_triangle_plane(const rt::Ray& ray, rt::Hit& hit) const {
    const Instance& inst = scene_.instances[hit.instance];
    const Mesh& mesh = hit_mesh(inst, hit);
    glm::vec3 p[3];
    for (int k = 0; k < 3; ++k) {
      p[k] = glm::vec3(inst.transform * glm::vec4(mesh.vertices[mesh.indices[size_t(hit.primitive) * 3 + size_t(k)]].position, 1.0f));
    }
    const glm::vec3 e1 = p[1] - p[0], e2 = p[2] - p[0], ng = glm::cross(e1, e2);
    const float dn = glm::dot(ray.direction, ng);
    const float d11 = glm::dot(e1, e1), d12 = glm::dot(e1, e2), d22 = glm::dot(e2, e2);
    const float denom = d11 * d22 - d12 * d12;
    if (!(std::fabs(dn) > 0.0f) || !(denom > 0.0f)) return false;
    const float t = glm::dot(p[0] - ray.origin, ng) / dn;
    const glm::vec3 q = ray.origin + ray.direction * t - p[0];
    const float a = glm::dot(q, e1), b = glm::dot(q, e2);
    const float u = (d22 * a - d12 * b) / denom, v = (d11 * b - d12 * a) / denom;
    if (!std::isfinite(t) || !(t > 0.0f) || !std::isfinite(u) || !std::isfinite(v)) return false;
    hit.t = t;
    hit.u = u;
    hit.v = v;
    return true;
  }

 private:
  // Secondary origins leave the surface along the geometric normal (toward the ray's side),
  // by a margin relative to the coordinates' magnitude, as make_ray_workload does.
  static glm::vec3 offset(const shaders::RtSurface& s) {
    const glm::vec3& p = s.position;
    const float scale = std::max({1.0f, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    return p + s.geometric_normal * (1e-4f * scale);
  }

  // A bounce: the local shading of its closest hit, or the miss program.
  glm::vec3 secondary(const rt::Ray& ray, rt::RayType type, float path_before, uint64_t seed, TileCounters& tc) const {
    const rt::Hit hit = intersect(ray, type, path_before, seed, tc);
    if (!hit.hit()) return shaders::RtMissProgram::radiance(scene_.background);
    const float path = path_before + hit.t * glm::length(ray.direction);
    Footprint fp;
    fp.cone_width = spread_ * path;
    shaders::RtSurface s;
    glm::vec3 albedo;
    return local_radiance(ray, hit, fp, path, mix(seed), s, albedo, tc);
  }

  // The closest-hit program's local shading at `hit` (`path` from the camera), shadow rays included.
  glm::vec3 local_radiance(const rt::Ray& ray, const rt::Hit& hit, const Footprint& fp, float path, uint64_t seed,
                           shaders::RtSurface& s, glm::vec3& albedo, TileCounters& tc) const {
    s = surface(ray, hit, fp, tc.shading.math);
    float visible[kMaxLights];
    const glm::vec3 origin = offset(s);
    for (int l = 0; l < lighting_.light_count; ++l) {
      visible[l] = 1.0f;
      if (!config_.trace.shadows) continue;
      rt::Ray shadow;
      shadow.origin = origin;
      if (!shaders::RtClosestHitProgram::light_direction(lighting_, l, origin, s.normal, shadow.direction, shadow.tmax)) {
        continue;  // the light adds nothing here: no ray needed
      }
      if (occluded(shadow, path, seed + uint64_t(l), tc)) visible[l] = 0.0f;
    }
    return shaders::RtClosestHitProgram::shade(lighting_, s, ray.origin, visible, albedo, tc.shading);
  }

  shaders::RtSurface surface(const rt::Ray& ray, const rt::Hit& hit, const Footprint& fp, EuShaderMath& math) const {
    const Instance& inst = scene_.instances[hit.instance];
    const Mesh& mesh = hit_mesh(inst, hit);
    const Material& material = scene_.materials[inst.material];
    glm::vec3 p[3], n[3];
    glm::vec2 uv[3];
    for (int k = 0; k < 3; ++k) {
      const Vertex& v = mesh.vertices[mesh.indices[size_t(hit.primitive) * 3 + size_t(k)]];
      p[k] = glm::vec3(inst.transform * glm::vec4(v.position, 1.0f));
      n[k] = v.normal;
      uv[k] = v.uv;
    }
    math.alu(27, 9, 0);  // three 4x4 point transforms (3 mul + 9 fma each, w = 1)
    const glm::vec3 w(1.0f - hit.u - hit.v, hit.u, hit.v);
    shaders::RtSurface s = shaders::RtClosestHitProgram::interpolate(p, n, uv, w, normal_matrix_[hit.instance],
                                                                     ray.direction, math);
    s.material = &material;
    s.texture = (material.texture >= 0 && size_t(material.texture) < scene_.textures.size())
                    ? &scene_.textures[size_t(material.texture)]
                    : nullptr;
    if (s.texture) s.lod = texture_lod_at(*s.texture, p, uv, s, fp);
    return s;
  }

  // Level of detail at a hit: ray differentials for primary rays, a ray cone for bounces.
  static float texture_lod_at(const Texture& texture, const glm::vec3 p[3], const glm::vec2 uv[3],
                              const shaders::RtSurface& s, const Footprint& fp) {
    const glm::vec3 e1 = p[1] - p[0], e2 = p[2] - p[0];
    const glm::vec3 ng = glm::cross(e1, e2);
    if (fp.dx && fp.dy) {
      // uv where a neighbour pixel's ray meets the triangle's plane (extrapolated outside it).
      const float d11 = glm::dot(e1, e1), d12 = glm::dot(e1, e2), d22 = glm::dot(e2, e2);
      const float denom = d11 * d22 - d12 * d12;
      auto uv_on_plane = [&](const rt::Ray& r, glm::vec2& out) {
        const float dn = glm::dot(r.direction, ng);
        if (!(std::fabs(dn) > 0.0f) || !(denom > 0.0f)) return false;
        const glm::vec3 q = r.origin + r.direction * (glm::dot(p[0] - r.origin, ng) / dn) - p[0];
        const float a = glm::dot(q, e1), b = glm::dot(q, e2);
        const float v = (d22 * a - d12 * b) / denom, w = (d11 * b - d12 * a) / denom;
        out = uv[0] * (1.0f - v - w) + uv[1] * v + uv[2] * w;
        return std::isfinite(out.x) && std::isfinite(out.y);
      };
      glm::vec2 ux, uy;
      if (uv_on_plane(*fp.dx, ux) && uv_on_plane(*fp.dy, uy)) return texture_lod(texture, ux - s.uv, uy - s.uv);
      return 0.0f;
    }
    // Cone: texels per world unit from the triangle's uv and world areas, footprint widened by
    // the incidence angle (clamped so grazing hits stay finite).
    const float world_area = glm::length(ng);
    const glm::vec2 t1 = uv[1] - uv[0], t2 = uv[2] - uv[0];
    const float uv_area = std::fabs(t1.x * t2.y - t1.y * t2.x);
    if (!(world_area > 0.0f)) return 0.0f;
    const float width = fp.cone_width * std::sqrt(uv_area / world_area);
    return texture_lod(texture, glm::vec2(width, 0.0f), glm::vec2(0.0f, width));
  }

  const Scene& scene_;
  const Config& config_;
  const rt::AccelerationStructure& as_;
  rt::LodSettings lod_;
  std::vector<int8_t> object_levels_;  // lod_selection "object": lod_.object_levels views it
  shaders::LambertLighting lighting_;
  std::vector<glm::mat3> normal_matrix_;
  float spread_ = 0.0f;  // angle between neighbouring pixels' rays (radians, at the centre)
  glm::mat4 view_projection_{1.0f};
};

struct TileRect {
  int x0, y0, x1, y1;
};
TileRect tile_rect(int tile, int tiles_x, int width, int height) {
  const int x0 = (tile % tiles_x) * kTile, y0 = (tile / tiles_x) * kTile;
  return {x0, y0, std::min(x0 + kTile, width), std::min(y0 + kTile, height)};
}

// Merged counters and the rt.* / eu.* statistics of a traced frame.
TileCounters merge(const std::vector<TileCounters>& tiles) {
  TileCounters all;
  for (const TileCounters& t : tiles) {
    all.rays.merge(t.rays);
    all.shading.math.merge(t.shading.math);
    all.shading.sampler.samples += t.shading.sampler.samples;
    all.shading.sampler.texel_fetches += t.shading.sampler.texel_fetches;
    all.pixels_hit += t.pixels_hit;
    all.hybrid_window_hits += t.hybrid_window_hits;
    all.hybrid_full_rays += t.hybrid_full_rays;
    all.hybrid_raster_kept += t.hybrid_raster_kept;
  }
  return all;
}

void publish_trace(Stats& s, const Config& cfg, const rt::AccelerationStructure& as, const TileCounters& all,
                   double build_ms, double trace_ms) {
  all.rays.publish(s);
  as.publish(s);
  s.set("rt.pixels.hit", all.pixels_hit);
  s.set("rt.texture.samples", all.shading.sampler.samples);
  s.set("rt.texture.texel_fetches", all.shading.sampler.texel_fetches);
  s.set("rt.trace.shadows", uint64_t(cfg.trace.shadows));
  s.set("rt.trace.reflections", uint64_t(cfg.trace.reflections));
  all.shading.math.publish_stage(s, "eu.stage.closest_hit");
  s.set("frame.time_ms.bvh_build", build_ms);
  s.set("frame.time_ms.trace", trace_ms);
}

}  // namespace

// The common start of rt and hybrid frames: the traced scene, its cached structure and
// residency, and the tracer. A scene with patch instances is traced with this view's
// tessellated meshes (what the raster path draws) added as meshes and instances, on a copy of
// the scene; its structure is rebuilt every frame then, since tessellation follows the view
// (and LOD residency starts over with it).
class FrameSetup {
 public:
  FrameSetup(const Scene& scene, const Camera& camera, const Config& cfg, RtFrameCache& cache)
      : arena(cfg.frame.threads > 0 ? cfg.frame.threads : tbb::task_arena::automatic), traced_(&scene) {
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
    built = prepare_cache(*traced_, cfg, arena, cache, with_patches_.has_value());
    build_ms = ms_since(t_start);
    as = cache.as.get();
    residency = cache.residency.get();
    tracer.emplace(*traced_, camera, cfg, *as, *residency);
  }
  FrameSetup(const FrameSetup&) = delete;
  FrameSetup& operator=(const FrameSetup&) = delete;

  tbb::task_arena arena;
  std::optional<TessellationStageResult> tessellation;  // scenes with patch instances
  bool built = false;
  double build_ms = 0.0;  // tessellation and structure
  const rt::AccelerationStructure* as = nullptr;
  rt::Residency* residency = nullptr;
  std::optional<Tracer> tracer;

 private:
  std::optional<Scene> with_patches_;
  const Scene* traced_;
};

Frame render_rt_frame(const Scene& scene, const Camera& camera, const Config& cfg, RtFrameCache& cache) {
  const auto t_start = Clock::now();
  const int width = cfg.frame.width, height = cfg.frame.height;
  FrameSetup setup(scene, camera, cfg, cache);
  tbb::task_arena& arena = setup.arena;
  const bool built = setup.built;
  const double build_ms = setup.build_ms;
  const rt::AccelerationStructure& as = *setup.as;
  rt::Residency& residency = *setup.residency;
  const Tracer& tracer = *setup.tracer;

  Frame frame;
  frame.color = Image(width, height);
  frame.depth.assign(size_t(width) * size_t(height), 1.0f);
  const int tiles_x = (width + kTile - 1) / kTile, tiles_y = (height + kTile - 1) / kTile;
  std::vector<int8_t>& lod_levels = frame.diagnostics.lod_levels;
  if (cfg.frame.diagnostics) {
    lod_levels.assign(size_t(width) * size_t(height), int8_t(-1));
    frame.diagnostics.tile_size = kTile;
    frame.diagnostics.tiles_x = tiles_x;
    frame.diagnostics.tiles_y = tiles_y;
    frame.diagnostics.tiles.resize(size_t(tiles_x) * size_t(tiles_y));
  }
  std::vector<TileCounters> counters(size_t(tiles_x) * size_t(tiles_y));
  const glm::vec3 background = shaders::RtMissProgram::radiance(scene.background);
  const auto t_trace = Clock::now();
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, counters.size(), 1), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t tile = r.begin(); tile < r.end(); ++tile) {
        TileCounters& tc = counters[tile];
        const TileRect rect = tile_rect(int(tile), tiles_x, width, height);
        for (int y = rect.y0; y < rect.y1; ++y) {
          for (int x = rect.x0; x < rect.x1; ++x) {
            const size_t i = size_t(y) * size_t(width) + size_t(x);
            // The raster path's near and far planes: t along a camera ray is the view depth
            // (its direction's component along the view axis is 1).
            rt::Ray ray = rt::camera_ray(camera, width, height, float(x) + 0.5f, float(y) + 0.5f);
            ray.tmin = camera.near_plane;
            ray.tmax = camera.far_plane;
            const rt::Hit hit = tracer.intersect(ray, rt::RayType::primary, 0.0f, i, tc);
            if (!hit.hit()) {
              frame.color.pixels[i] = encode_color(background);
              continue;
            }
            ++tc.pixels_hit;
            if (!lod_levels.empty()) lod_levels[i] = int8_t(hit.lod_level);
            const rt::Ray rx = rt::camera_ray(camera, width, height, float(x) + 1.5f, float(y) + 0.5f);
            const rt::Ray ry = rt::camera_ray(camera, width, height, float(x) + 0.5f, float(y) + 1.5f);
            glm::vec3 position;
            const glm::vec3 c = tracer.shade_primary(ray, hit, Footprint{&rx, &ry, 0.0f}, i, true, position, tc);
            frame.color.pixels[i] = encode_color(c);
            const glm::vec4 clip = tracer.view_projection() * glm::vec4(position, 1.0f);
            frame.depth[i] = std::clamp(clip.z / clip.w, 0.0f, 1.0f);
          }
        }
      }
    });
  });
  const double trace_ms = ms_since(t_trace);
  const TileCounters all = merge(counters);
  const rt::ResidencyFrame residency_frame = residency.end_frame();

  Stats& s = frame.stats;
  s.set("frame.mode", std::string(choice_name(cfg.frame.mode)));
  s.set("frame.width", uint64_t(width));
  s.set("frame.height", uint64_t(height));
  s.set("frame.triangles", as.info().triangles);
  s.set("frame.tile_size", uint64_t(kTile));
  s.set("frame.tiles", uint64_t(counters.size()));
  s.set("frame.threads", uint64_t(arena.max_concurrency()));
  publish_trace(s, cfg, as, all, build_ms, trace_ms);
  rt::Residency::publish(residency_frame, s);
  s.set("rt.bvh.built", uint64_t(built));
  if (setup.tessellation) setup.tessellation->publish(s);  // tessellation.*, as the raster path
  all.shading.math.publish(s);
  s.set("eu.dynamic_instructions", all.shading.math.instructions());
  // Memory: what the traversal fetched (memory client rt) and the texels the programs read.
  MemoryLedger ledger;
  ledger.add_read(MemoryClient::rt, all.rays[rt::Counters::node_bytes] + all.rays[rt::Counters::triangle_bytes] +
                                        all.rays[rt::Counters::lod_bytes]);
  ledger.add_read(MemoryClient::texture, all.shading.sampler.texel_fetches * sizeof(Rgba8));
  ledger.add_write(MemoryClient::color, uint64_t(width) * uint64_t(height) * sizeof(Rgba8));
  rt::Residency::record(residency_frame, ledger);
  ledger.publish(s);
  s.set("frame.time_ms.total", ms_since(t_start));
  return frame;
}

Frame render_hybrid_frame(const Scene& scene, const Camera& camera, const Config& cfg, Frame frame,
                          RtFrameCache& cache) {
  const auto t_start = Clock::now();
  const int width = cfg.frame.width, height = cfg.frame.height;
  if (frame.color.width != width || frame.color.height != height || frame.depth.size() != size_t(width) * size_t(height)) {
    throw Error("render: hybrid frame needs the raster frame of the same size");
  }
  FrameSetup setup(scene, camera, cfg, cache);
  tbb::task_arena& arena = setup.arena;
  const bool built = setup.built;
  const double build_ms = ms_since(t_start);
  const rt::AccelerationStructure& as = *setup.as;
  rt::Residency& residency = *setup.residency;
  const Tracer& tracer = *setup.tracer;
  const glm::mat4 inverse_vp = glm::inverse(tracer.view_projection());
  const int tiles_x = (width + kTile - 1) / kTile, tiles_y = (height + kTile - 1) / kTile;
  std::vector<TileCounters> counters(size_t(tiles_x) * size_t(tiles_y));
  std::vector<int8_t>& lod_levels = frame.diagnostics.lod_levels;
  if (cfg.frame.diagnostics) lod_levels.assign(size_t(width) * size_t(height), int8_t(-1));
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
  const auto t_trace = Clock::now();
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, counters.size(), 1), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t tile = r.begin(); tile < r.end(); ++tile) {
        TileCounters& tc = counters[tile];
        const TileRect rect = tile_rect(int(tile), tiles_x, width, height);
        for (int y = rect.y0; y < rect.y1; ++y) {
          for (int x = rect.x0; x < rect.x1; ++x) {
            const size_t i = size_t(y) * size_t(width) + size_t(x);
            const float depth = frame.depth[i];
            if (!(depth < 1.0f)) continue;  // nothing drawn: the raster clear colour stays
            // The raster sample's visible point, unprojected from its depth (NDC y = -1 is the
            // top row), as a distance along the ray through that sample.
            const glm::vec4 ndc(2.0f * (float(x) + sx) / float(width) - 1.0f,
                                2.0f * (float(y) + sy) / float(height) - 1.0f, depth, 1.0f);
            const glm::vec4 q = inverse_vp * ndc;
            const glm::vec3 p = glm::vec3(q) / q.w;
            const rt::Ray ray = rt::camera_ray(camera, width, height, float(x) + 0.5f, float(y) + 0.5f);
            const rt::Ray at_sample = centred ? ray : rt::camera_ray(camera, width, height, float(x) + sx, float(y) + sy);
            const float t =
                glm::dot(p - at_sample.origin, at_sample.direction) / glm::dot(at_sample.direction, at_sample.direction);
            // The triangle and barycentrics the shading needs are not in the raster frame: a
            // primary ray restricted to a thin window around that distance finds them (few
            // nodes overlap the window); an unrestricted one where the window misses (depth
            // of an MSAA sample off the centre, depth precision far away).
            rt::Ray window = at_sample;
            window.tmin = t * (1.0f - kHybridWindow);
            window.tmax = t * (1.0f + kHybridWindow);
            rt::Hit hit;
            if (std::isfinite(t) && t > 0.0f) hit = tracer.intersect(window, rt::RayType::primary, 0.0f, i, tc);
            if (hit.hit()) {
              ++tc.hybrid_window_hits;
              // Shade at the pixel centre on the sample's triangle, as the raster path does.
              if (!centred && !tracer.on_triangle_plane(ray, hit)) hit = tracer.intersect(ray, rt::RayType::primary, 0.0f, i, tc);
              if (!hit.hit()) {
                ++tc.hybrid_raster_kept;
                continue;
              }
            } else {
              ++tc.hybrid_full_rays;
              hit = tracer.intersect(ray, rt::RayType::primary, 0.0f, i, tc);
              if (!hit.hit()) {
                ++tc.hybrid_raster_kept;
                continue;
              }
            }
            ++tc.pixels_hit;
            if (!lod_levels.empty()) lod_levels[i] = int8_t(hit.lod_level);
            const rt::Ray rx = rt::camera_ray(camera, width, height, float(x) + 1.5f, float(y) + 0.5f);
            const rt::Ray ry = rt::camera_ray(camera, width, height, float(x) + 0.5f, float(y) + 1.5f);
            glm::vec3 position;
            frame.color.pixels[i] =
                encode_color(tracer.shade_primary(ray, hit, Footprint{&rx, &ry, 0.0f}, i, false, position, tc));
          }
        }
      }
    });
  });
  const double trace_ms = ms_since(t_trace);
  const TileCounters all = merge(counters);
  const rt::ResidencyFrame residency_frame = residency.end_frame();
  Stats& s = frame.stats;
  s.set("frame.mode", std::string(choice_name(cfg.frame.mode)));
  publish_trace(s, cfg, as, all, build_ms, trace_ms);
  rt::Residency::publish(residency_frame, s);
  s.set("rt.bvh.built", uint64_t(built));
  s.set("rt.hybrid.window_hits", all.hybrid_window_hits);
  s.set("rt.hybrid.full_primary_rays", all.hybrid_full_rays);
  s.set("rt.hybrid.raster_kept", all.hybrid_raster_kept);
  // The raster pass's own total plus the tracing pass.
  const double raster_ms = s.has("frame.time_ms.total") ? s.get_number("frame.time_ms.total") : 0.0;
  s.set("frame.time_ms.raster", raster_ms);
  s.set("frame.time_ms.total", raster_ms + ms_since(t_start));
  return frame;
}

}  // namespace tessera
