// Scene consistency checks: everything a renderer relies on without checking again.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "tessera/error.h"
#include "tessera/scene.h"

namespace tessera {

namespace {

bool finite(glm::vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool finite(glm::vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }
bool non_negative(glm::vec3 v) { return v.x >= 0.0f && v.y >= 0.0f && v.z >= 0.0f; }

std::string describe(const char* list, size_t i, const std::string& name) {
  std::string s = std::string(list) + "[" + std::to_string(i) + "]";
  if (!name.empty()) s += " \"" + name + "\"";
  return s;
}

void validate_mesh(const Mesh& mesh, const std::string& where) {
  if (mesh.vertices.size() > size_t(std::numeric_limits<uint32_t>::max())) {
    throw Error(where + ": more vertices than 32-bit indices can address");
  }
  if (mesh.indices.size() % 3 != 0) {
    throw Error(where + ": index count " + std::to_string(mesh.indices.size()) + " is not a multiple of 3");
  }
  for (size_t i = 0; i < mesh.indices.size(); ++i) {
    if (mesh.indices[i] >= mesh.vertices.size()) {
      throw Error(where + ": indices[" + std::to_string(i) + "] = " + std::to_string(mesh.indices[i]) +
                  " is not below the vertex count " + std::to_string(mesh.vertices.size()));
    }
  }
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Vertex& v = mesh.vertices[i];
    const char* bad = !finite(v.position) ? "position" : !finite(v.normal) ? "normal" : !finite(v.uv) ? "uv" : nullptr;
    if (bad) {
      throw Error(where + ": vertices[" + std::to_string(i) + "] has a non-finite " + bad);
    }
  }
}

void validate_texture(const Texture& tex, const std::string& where) {
  if (tex.levels.empty()) throw Error(where + ": texture has no levels");
  for (size_t l = 0; l < tex.levels.size(); ++l) {
    const Image& img = tex.levels[l];
    const std::string level = where + ": level " + std::to_string(l);
    if (img.width <= 0 || img.height <= 0 || img.pixels.size() != size_t(img.width) * size_t(img.height)) {
      throw Error(level + " is malformed (" + std::to_string(img.width) + "x" + std::to_string(img.height) + ", " +
                  std::to_string(img.pixels.size()) + " pixels)");
    }
    if (l > 0) {
      const Image& prev = tex.levels[l - 1];
      if (img.width != std::max(1, prev.width / 2) || img.height != std::max(1, prev.height / 2)) {
        throw Error(level + " is not half the size of the level above");
      }
    }
  }
  const Image& last = tex.levels.back();
  if (last.width != 1 || last.height != 1) throw Error(where + ": mip chain does not end at 1x1");
}

}  // namespace

void validate_camera(const Camera& c, const std::string& where) {
  if (!finite(c.position) || !finite(c.target) || !finite(c.up)) {
    throw Error(where + ": position, target and up must be finite");
  }
  if (!(c.fov_y_degrees > 0.0f && c.fov_y_degrees < 180.0f)) {
    throw Error(where + ": fov_y_degrees must be in (0, 180)");
  }
  if (!(c.near_plane > 0.0f && c.near_plane < c.far_plane && std::isfinite(c.far_plane))) {
    throw Error(where + ": need 0 < near < far (finite)");
  }
  const glm::vec3 forward = c.target - c.position;
  if (glm::length(forward) == 0.0f) throw Error(where + ": position and target coincide");
  if (glm::length(c.up) == 0.0f) throw Error(where + ": up is the zero vector");
  const glm::vec3 side = glm::cross(glm::normalize(forward), glm::normalize(c.up));
  if (glm::length(side) < 1e-6f) throw Error(where + ": up is parallel to the view direction");
}

void validate_scene(const Scene& scene, const std::string& what) {
  const std::string prefix = what + ": ";
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    validate_mesh(scene.meshes[i], prefix + describe("meshes", i, scene.meshes[i].name));
  }
  for (size_t i = 0; i < scene.textures.size(); ++i) {
    validate_texture(scene.textures[i], prefix + describe("textures", i, scene.textures[i].name));
  }
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& m = scene.materials[i];
    const std::string where = prefix + describe("materials", i, m.name);
    if (!finite(m.base_color) || !non_negative(m.base_color)) {
      throw Error(where + ": base_color must be finite and non-negative");
    }
    if (!finite(m.specular) || !non_negative(m.specular)) {
      throw Error(where + ": specular must be finite and non-negative");
    }
    if (!(m.shininess >= kMinShininess && m.shininess <= kMaxShininess)) {
      throw Error(where + ": shininess must be in [" + std::to_string(int(kMinShininess)) + ", " +
                  std::to_string(int(kMaxShininess)) + "]");
    }
    if (m.texture < -1 || (m.texture >= 0 && size_t(m.texture) >= scene.textures.size())) {
      throw Error(where + ": texture index " + std::to_string(m.texture) + " is out of range (" +
                  std::to_string(scene.textures.size()) + " textures)");
    }
  }
  for (size_t i = 0; i < scene.lod_groups.size(); ++i) {
    const LodGroup& g = scene.lod_groups[i];
    const std::string where = prefix + describe("lod_groups", i, g.name);
    if (g.levels.empty() || g.levels.size() > size_t(kMaxLodLevels) || g.ranges.size() != g.levels.size()) {
      throw Error(where + ": needs 1.." + std::to_string(kMaxLodLevels) + " levels and one range per level");
    }
    for (size_t l = 0; l < g.levels.size(); ++l) {
      if (g.levels[l] >= scene.meshes.size())
        throw Error(where + ": level " + std::to_string(l) + " names a missing mesh");
      if (!(std::isfinite(g.ranges[l]) && g.ranges[l] > 0.0f) || (l > 0 && !(g.ranges[l] > g.ranges[l - 1]))) {
        throw Error(where + ": ranges must be finite, positive and strictly increasing");
      }
    }
    if (!std::isfinite(g.bias)) throw Error(where + ": bias must be finite");
  }
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    const Instance& inst = scene.instances[i];
    const std::string where = prefix + "instances[" + std::to_string(i) + "]";
    if (inst.lod_group >= 0 && size_t(inst.lod_group) >= scene.lod_groups.size()) {
      throw Error(where + ": LOD group index " + std::to_string(inst.lod_group) + " is out of range");
    }
    if (inst.mesh >= scene.meshes.size()) {
      throw Error(where + ": mesh index " + std::to_string(inst.mesh) + " is out of range (" +
                  std::to_string(scene.meshes.size()) + " meshes)");
    }
    if (inst.material >= scene.materials.size()) {
      throw Error(where + ": material index " + std::to_string(inst.material) + " is out of range (" +
                  std::to_string(scene.materials.size()) + " materials)");
    }
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 4; ++r) {
        if (!std::isfinite(inst.transform[c][r])) throw Error(where + ": transform is not finite");
      }
    }
    // A singular transform has no inverse transpose, so its normals would be NaN.
    const float det = glm::determinant(glm::mat3(inst.transform));
    if (!(std::fabs(det) > 1e-30f) || !std::isfinite(det)) {
      throw Error(where + ": transform is singular (a zero scale?)");
    }
  }
  for (size_t i = 0; i < scene.patch_meshes.size(); ++i) {
    const PatchMesh& m = scene.patch_meshes[i];
    const std::string where = prefix + describe("patch_meshes", i, m.name);
    const uint32_t expected = m.kind == PatchKind::bezier_quad ? 16 : m.kind == PatchKind::pn_triangle ? 3 : 4;
    if (m.control_points_per_patch != expected) {
      throw Error(where + ": " + std::to_string(m.control_points_per_patch) + " control points per patch, expected " +
                  std::to_string(expected));
    }
    if (m.indices.size() % expected != 0) throw Error(where + ": index count is not a whole number of patches");
    for (uint32_t idx : m.indices) {
      if (idx >= m.control_points.size())
        throw Error(where + ": control point index " + std::to_string(idx) + " is out of range");
    }
    for (const Vertex& v : m.control_points) {
      if (!finite(v.position) || !finite(v.normal) || !std::isfinite(v.uv.x) || !std::isfinite(v.uv.y)) {
        throw Error(where + ": control points must be finite");
      }
    }
    const TessellationSettings& t = m.tessellation;
    if (!(t.level >= 1.0f && t.level <= float(kMaxTessLevel)))
      throw Error(where + ": tessellation level must be in [1, 64]");
    if (!(t.reference_distance > 0.0f && std::isfinite(t.reference_distance))) {
      throw Error(where + ": tessellation reference_distance must be positive and finite");
    }
    if (!(t.edge_pixels >= 0.25f && t.edge_pixels <= 4096.0f))
      throw Error(where + ": tessellation edge_pixels must be in [0.25, 4096]");
    if (m.kind == PatchKind::displaced_quad) {
      const Heightfield* f = m.displacement.get();
      if (!f || f->resolution < 2 || f->heights.size() != size_t(f->resolution) * size_t(f->resolution) ||
          f->normals.size() != f->heights.size() || !(f->extent > 0.0f)) {
        throw Error(where + ": displaced patches need a height field of resolution^2 heights and normals");
      }
    }
  }
  for (size_t i = 0; i < scene.patch_instances.size(); ++i) {
    const PatchInstance& inst = scene.patch_instances[i];
    const std::string where = prefix + "patch_instances[" + std::to_string(i) + "]";
    if (inst.patch_mesh >= scene.patch_meshes.size()) throw Error(where + ": patch mesh index is out of range");
    if (inst.material >= scene.materials.size()) throw Error(where + ": material index is out of range");
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 4; ++r) {
        if (!std::isfinite(inst.transform[c][r])) throw Error(where + ": transform is not finite");
      }
    }
    const float det = glm::determinant(glm::mat3(inst.transform));
    if (!(std::fabs(det) > 1e-30f) || !std::isfinite(det))
      throw Error(where + ": transform is singular (a zero scale?)");
  }
  if (scene.lights.size() > size_t(kMaxLights)) {
    throw Error(prefix + "lights: " + std::to_string(scene.lights.size()) + " lights, at most " +
                std::to_string(kMaxLights) + " are supported");
  }
  for (size_t i = 0; i < scene.lights.size(); ++i) {
    const Light& l = scene.lights[i];
    const std::string where = prefix + "lights[" + std::to_string(i) + "]";
    if (l.type != LightType::directional && l.type != LightType::point) {
      throw Error(where + ": unknown light type");
    }
    if (!finite(l.color) || !non_negative(l.color)) {
      throw Error(where + ": color must be finite and non-negative");
    }
    if (!(std::isfinite(l.intensity) && l.intensity >= 0.0f)) {
      throw Error(where + ": intensity must be finite and non-negative");
    }
    if (l.type == LightType::directional && (!finite(l.direction) || glm::length(l.direction) == 0.0f)) {
      throw Error(where + ": direction must be finite and non-zero");
    }
    if (l.type == LightType::point && !finite(l.position)) {
      throw Error(where + ": position must be finite");
    }
  }
  validate_camera(scene.camera, prefix + "camera");
  for (size_t i = 0; i < scene.cameras.size(); ++i) {
    validate_camera(scene.cameras[i], prefix + "cameras[" + std::to_string(i) + "]");
  }
  if (!finite(scene.ambient) || !non_negative(scene.ambient)) {
    throw Error(prefix + "ambient must be finite and non-negative");
  }
  if (!finite(scene.background) || !non_negative(scene.background)) {
    throw Error(prefix + "background must be finite and non-negative");
  }
  if (!finite(scene.fog.color) || !non_negative(scene.fog.color)) {
    throw Error(prefix + "fog.color must be finite and non-negative");
  }
  if (!(scene.fog.density >= 0.0f && scene.fog.density <= kMaxFogDensity)) {
    throw Error(prefix + "fog.density must be in [0, " + std::to_string(int(kMaxFogDensity)) + "]");
  }
  if (scene.tone_mapping != ToneMapping::clamp && scene.tone_mapping != ToneMapping::reinhard &&
      scene.tone_mapping != ToneMapping::exponential) {
    throw Error(prefix + "tone_mapping: unknown operator");
  }
  if (!(scene.exposure > 0.0f && scene.exposure <= kMaxExposure)) {
    throw Error(prefix + "exposure must be in (0, " + std::to_string(int(kMaxExposure)) + "]");
  }
}

}  // namespace tessera
