#include "pipeline/tessellation_stage.h"

#include <algorithm>
#include <chrono>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

#include "shaders/patch_programs.h"
#include "core/timing.h"
#include "tessera/error.h"
#include "tessera/stats.h"

namespace tessera {

namespace {

struct PatchRef {
  uint32_t instance;
  uint32_t patch;
};

EuShaderMath combine(tbb::combinable<EuShaderMath>& parts) {
  return parts.combine([](EuShaderMath a, const EuShaderMath& b) {
    a.merge(b);
    return a;
  });
}

}  // namespace

TessellationStageResult run_tessellation_stage(const Scene& scene, const TessellationConfig& config,
                                               const TessellationView& view) {
  TessellationStageResult out;
  if (scene.patch_instances.empty()) return out;

  // Patch stream in application order: instances in scene order, patches in mesh order.
  std::vector<PatchRef> refs;
  std::vector<shaders::HullUniforms> hull_uniforms(scene.patch_instances.size());
  for (size_t i = 0; i < scene.patch_instances.size(); ++i) {
    const PatchInstance& inst = scene.patch_instances[i];
    if (inst.patch_mesh >= scene.patch_meshes.size() || inst.material >= scene.materials.size()) {
      throw Error("render: patch instance " + std::to_string(i) + " refers to a missing patch mesh or material");
    }
    const PatchMesh& mesh = scene.patch_meshes[inst.patch_mesh];
    shaders::HullUniforms& u = hull_uniforms[i];
    u.model = inst.transform;
    u.view_projection = view.view_projection;
    u.eye = view.eye;
    u.viewport = view.viewport;
    u.settings = mesh.tessellation;
    u.displacement = mesh.displacement.get();
    if (u.displacement && !u.displacement->heights.empty()) {
      const auto [lo, hi] = std::minmax_element(u.displacement->heights.begin(), u.displacement->heights.end());
      u.displacement_min = *lo;
      u.displacement_max = *hi;
    }
    for (size_t p = 0; p < mesh.patch_count(); ++p) refs.push_back({uint32_t(i), uint32_t(p)});
  }
  out.patches = refs.size();

  auto control_points = [&](const PatchRef& r, const Vertex** cp) {
    const PatchMesh& mesh = scene.patch_meshes[scene.patch_instances[r.instance].patch_mesh];
    const uint32_t n = mesh.control_points_per_patch;
    for (uint32_t k = 0; k < n; ++k) cp[k] = &mesh.control_points[mesh.indices[size_t(r.patch) * n + k]];
    return &mesh;
  };

  // Hull shader, once per patch.
  auto t0 = Clock::now();
  std::vector<GppPatch> stream(refs.size());
  tbb::combinable<EuShaderMath> hull_math;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, refs.size(), 256), [&](const tbb::blocked_range<size_t>& range) {
    EuShaderMath math;
    const Vertex* cp[16];
    for (size_t k = range.begin(); k < range.end(); ++k) {
      const PatchMesh* mesh = control_points(refs[k], cp);
      GppPatch& g = stream[k];
      g.domain = mesh->domain();
      g.spacing = mesh->tessellation.spacing;
      g.factors = shaders::PatchHullShader::run(hull_uniforms[refs[k].instance], mesh->kind, cp, math);
      g.id = uint32_t(k);
    }
    hull_math.local().merge(math);
  });
  out.hull_math = combine(hull_math);
  for (const GppPatch& g : stream) out.hull_culled += !(g.factors.outer[0] > 0.0f);
  out.hull_ms = ms_since(t0);

  // The GPP array tessellates the stream; the baselines run on the same stream for counters.
  t0 = Clock::now();
  GppArrayConfig gc;
  gc.gpp_count = config.gpps;
  gc.batch_size = config.batch_size;
  gc.dpm_buffer_depth = std::max(64, config.batch_size);
  gc.policy = config.policy;
  GppRunResult run = run_gpp_array(GppDesign::kOnChip, stream, gc);
  if (config.baselines) {
    GppArrayConfig counts_only = gc;
    counts_only.build_primitives = false;
    out.noredist = run_gpp_array(GppDesign::kNoRedistribution, stream, counts_only);
    out.offchip = run_gpp_array(GppDesign::kOffChip, stream, counts_only);
  }
  out.gpp_ms = ms_since(t0);

  // Domain shader: meshes per patch instance (and per GPP for the map), in output order.
  t0 = Clock::now();
  struct Placement {
    uint32_t mesh;
    uint32_t first_vertex;
    uint32_t first_index;
  };
  std::vector<Placement> placement(run.output.size());
  std::vector<std::pair<uint64_t, uint64_t>> sizes;  // vertices, indices per mesh
  {
    int64_t current_instance = -1;
    size_t first_mesh = 0;
    for (size_t k = 0; k < run.output.size(); ++k) {
      const GppPatchOutput& o = run.output[k];
      const PatchRef& r = refs[o.patch_id];
      if (int64_t(r.instance) != current_instance) {
        current_instance = r.instance;
        first_mesh = out.meshes.size();
        const int groups = config.gpp_map ? config.gpps : 1;
        for (int g = 0; g < groups; ++g) {
          TessellatedMesh m;
          m.patch_instance = r.instance;
          m.gpp = config.gpp_map ? g : -1;
          m.mesh.name = scene.patch_meshes[scene.patch_instances[r.instance].patch_mesh].name;
          out.meshes.push_back(std::move(m));
          sizes.emplace_back(0, 0);
        }
      }
      const size_t slot = first_mesh + (config.gpp_map ? o.gpp : 0);
      placement[k] = {uint32_t(slot), uint32_t(sizes[slot].first), uint32_t(sizes[slot].second)};
      sizes[slot].first += o.tessellated.points.size();
      sizes[slot].second += o.tessellated.indices.size();
      if (sizes[slot].first > UINT32_MAX) throw Error("render: a tessellated patch instance exceeds 2^32 vertices");
      out.domain_points += o.counts.points;
      out.triangles += o.counts.primitives;
    }
  }
  for (size_t m = 0; m < out.meshes.size(); ++m) {
    out.meshes[m].mesh.vertices.resize(sizes[m].first);
    out.meshes[m].mesh.indices.resize(sizes[m].second);
  }
  tbb::combinable<EuShaderMath> domain_math;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, run.output.size(), 16), [&](const tbb::blocked_range<size_t>& range) {
    EuShaderMath math;
    const Vertex* cp[16];
    for (size_t k = range.begin(); k < range.end(); ++k) {
      const GppPatchOutput& o = run.output[k];
      const PatchMesh* pm = control_points(refs[o.patch_id], cp);
      Mesh& mesh = out.meshes[placement[k].mesh].mesh;
      Vertex* v = mesh.vertices.data() + placement[k].first_vertex;
      for (const glm::vec3& t : o.tessellated.points) {
        *v++ = shaders::PatchDomainShader::run(pm->kind, cp, pm->displacement.get(), t, math);
      }
      uint32_t* idx = mesh.indices.data() + placement[k].first_index;
      for (uint32_t i : o.tessellated.indices) *idx++ = i + placement[k].first_vertex;
    }
    domain_math.local().merge(math);
  });
  out.domain_math = combine(domain_math);
  for (TessellatedMesh& m : out.meshes) compute_bounds(m.mesh);
  // Control points read: the hull's per patch and the domain shader's per tessellated patch.
  for (const PatchRef& r : refs) {
    out.control_point_fetches +=
        scene.patch_meshes[scene.patch_instances[r.instance].patch_mesh].control_points_per_patch;
  }
  for (const GppPatchOutput& o : run.output) {
    out.control_point_fetches +=
        scene.patch_meshes[scene.patch_instances[refs[o.patch_id].instance].patch_mesh].control_points_per_patch;
  }
  // The frame keeps the counters, not the geometry twice.
  for (GppPatchOutput& o : run.output) o.tessellated = TessellatedPatch{};
  out.onchip = std::move(run);
  out.domain_ms = ms_since(t0);
  return out;
}

void TessellationStageResult::publish(Stats& s) const {
  s.set("tessellation.patches", patches);
  s.set("tessellation.hull_culled", hull_culled);
  s.set("tessellation.domain_points", domain_points);
  s.set("tessellation.triangles", triangles);
  s.set("tessellation.control_point_fetches", control_point_fetches);
  s.set("frame.time_ms.tessellation", hull_ms + gpp_ms + domain_ms);
  s.set("frame.time_ms.tessellation_hull", hull_ms);
  s.set("frame.time_ms.tessellation_gpp", gpp_ms);
  s.set("frame.time_ms.tessellation_domain", domain_ms);
  if (onchip) {
    onchip->publish(s);
    if (noredist) {
      noredist->publish(s);
      s.set("geometry.gpp.speedup_vs_noredist",
            noredist->timing.makespan_cycles / std::max(onchip->timing.makespan_cycles, 1.0));
    }
    if (offchip) {
      offchip->publish(s);
      s.set("geometry.gpp.speedup_vs_offchip",
            offchip->timing.makespan_cycles / std::max(onchip->timing.makespan_cycles, 1.0));
    }
  }
}

}  // namespace tessera
