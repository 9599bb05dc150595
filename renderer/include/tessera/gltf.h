// glTF 2.0 models (.gltf with external or data-URI resources, .glb): loaded through tinygltf,
// validated before any of its data is trusted, and turned into the scene's meshes, textures,
// materials, instances, lights and cameras (docs/scene-format.md, "glTF models").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/scene.h"

namespace tessera {

// What a load cost and what it left out.
struct ModelLoadReport {
  uint64_t triangles = 0;             // stored over all primitives
  uint64_t vertices = 0;              // stored over all primitives
  uint64_t mesh_bytes = 0;            // vertices and indices
  uint64_t texture_bytes = 0;         // every mip level of every decoded texture
  uint64_t images_decoded = 0;        // images used by materials (decoded in parallel)
  uint64_t primitives_skipped = 0;    // points and lines
  double parse_ms = 0.0;              // tinygltf: JSON, buffers, image bytes
  double geometry_ms = 0.0;           // accessors to meshes
  double decode_ms = 0.0;             // images to mip chains
  std::vector<std::string> warnings;  // each said once
};

// One file's contribution to a scene. Instances index `meshes`/`materials` of this struct;
// materials index `textures`.
struct ModelContent {
  std::vector<Mesh> meshes;
  std::vector<Texture> textures;
  std::vector<Material> materials;
  std::vector<Instance> instances;
  std::vector<Light> lights;    // KHR_lights_punctual, in node order, world space
  std::vector<Camera> cameras;  // perspective cameras, in node order, named
  ModelLoadReport report;
};

// True for the .gltf and .glb extensions (any case); is_model_path also for .obj.
bool is_gltf_path(const std::filesystem::path& path);
bool is_model_path(const std::filesystem::path& path);

// Loads the default scene of a glTF file placed by `placement` (object to world). Throws
// tessera::Error naming the file and the JSON path of the problem (malformed, truncated,
// out-of-range, cyclic, over the size caps or the memory budget, unsupported required
// extensions, sparse accessors).
ModelContent load_gltf(const std::filesystem::path& path, const glm::mat4& placement = glm::mat4(1.0f));

// The same from bytes already in memory (a .glb when they start with "glTF", else .gltf JSON);
// external resources resolve against `base_dir`, errors name `name`.
ModelContent load_gltf_from_memory(std::string_view bytes, const std::string& name,
                                   const std::filesystem::path& base_dir, const glm::mat4& placement = glm::mat4(1.0f));

// An OBJ with its .mtl materials (Kd, map_Kd, Ks, Ns, d/Tr, map_d): one mesh and instance per
// material used, faces without a material on a default one. Same errors as load_obj, plus
// textures that cannot be read (naming the material and key).
ModelContent load_obj_model(const std::filesystem::path& path, const glm::mat4& placement = glm::mat4(1.0f));

// Appends a file's content to a scene, rebasing its indices. Throws tessera::Error naming
// `where` when the scene would hold more than kMaxLights lights.
void append_model(Scene& scene, ModelContent&& content, const std::string& where);

// A scene of one glTF file: its content, its first camera as the main view (or a camera
// framing the model's bounds) with every camera in Scene::cameras by name, and a default
// light when the file has none. Warnings go to stderr, once each.
// An .obj renders the same way with its .mtl materials (load_obj_model).
Scene load_gltf_scene(const std::filesystem::path& path);

// The camera that frames world bounds from the front (+Z), a little above and to the right.
Camera framing_camera(const glm::vec3& bounds_min, const glm::vec3& bounds_max);

}  // namespace tessera
