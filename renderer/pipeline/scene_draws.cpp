#include "pipeline/scene_draws.h"

#include "tessera/error.h"
#include "tessera/lod.h"

namespace tessera {

namespace {

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

}  // namespace

void build_scene_draws(const Scene& scene, const Camera& camera, const glm::mat4& view_projection,
                       const TessellationStageResult& tessellated, bool gpp_map, SceneDrawList& list) {
  list.lighting = shaders::LambertLighting::of_scene(scene, camera.position);
  list.flat = shaders::LambertLighting{};
  list.flat.ambient = glm::vec3(1.0f);
  list.flat.exposure = 1.0f;
  list.draws.clear();
  list.draws.reserve(scene.instances.size() + tessellated.meshes.size());
  list.vertices = list.triangles = 0;
  auto add_draw = [&](const Mesh& mesh, const glm::mat4& transform, uint32_t material, int gpp, bool blended_pass) {
    if (mesh.indices.empty()) return;
    const Material& mat = scene.materials[material];
    if ((mat.alpha_mode == AlphaMode::blend) != blended_pass) return;
    SceneDraw d;
    d.mesh = &mesh;
    d.vs.model = transform;
    d.vs.normal_matrix = glm::transpose(glm::inverse(glm::mat3(transform)));
    d.vs.view_projection = view_projection;
    d.fs.lighting = &list.lighting;
    d.fs.base_color = mat.base_color;
    d.fs.specular = mat.specular;
    d.fs.shininess = mat.shininess;
    d.fs.texture = (mat.texture >= 0 && size_t(mat.texture) < scene.textures.size())
                       ? &scene.textures[size_t(mat.texture)]
                       : nullptr;
    d.fs.base_alpha = mat.base_alpha;
    d.fs.alpha_mode = mat.alpha_mode;
    d.fs.alpha_cutoff = mat.alpha_cutoff;
    d.fs.double_sided = mat.double_sided;
    d.fs.emissive = mat.emissive;
    d.blend = mat.alpha_mode == AlphaMode::blend ? BlendMode::alpha : BlendMode::none;
    d.double_sided = mat.double_sided;
    if (gpp_map) {
      d.fs.lighting = &list.flat;
      d.fs.texture = nullptr;
      d.fs.specular = glm::vec3(0.0f);
      d.fs.base_color = gpp >= 0 ? gpp_color(gpp) : glm::vec3(0.18f);
    }
    d.vertex_base = list.vertices;
    d.triangle_base = list.triangles;
    list.vertices += mesh.vertices.size();
    list.triangles += mesh.triangle_count();
    list.draws.push_back(d);
  };
  list.stored_vertices = list.stored_triangles = 0;
  for (const bool blended_pass : {false, true}) {
    for (const Instance& inst : scene.instances) {
      if (inst.mesh >= scene.meshes.size() || inst.material >= scene.materials.size()) {
        throw Error("render: instance refers to a missing mesh or material");
      }
      // LOD groups: the raster path picks one level per object by camera distance (the
      // ray-tracing unit chooses per ray, docs/rt.md).
      const uint32_t mesh = camera_lod_mesh(scene, inst, camera.position);
      if (mesh == kLodDiscarded) continue;
      const size_t before_v = list.vertices, before_t = list.triangles;
      add_draw(scene.meshes[mesh], inst.transform, inst.material, -1, blended_pass);
      list.stored_vertices += list.vertices - before_v;
      list.stored_triangles += list.triangles - before_t;
    }
    for (const TessellatedMesh& m : tessellated.meshes) {
      const PatchInstance& inst = scene.patch_instances[m.patch_instance];
      add_draw(m.mesh, inst.transform, inst.material, m.gpp, blended_pass);
    }
  }
}

}  // namespace tessera
