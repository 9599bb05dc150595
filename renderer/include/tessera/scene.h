// The scene: meshes, textures, materials, instances, lights and a camera, as loaded from the
// JSON scene format (docs/scene-format.md) or built by the procedural generators.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/image.h"
#include "tessera/patches.h"
#include "tessera/vertex.h"

namespace tessera {

// Indexed triangle list.
struct Mesh {
  std::string name;
  std::vector<Vertex> vertices;
  std::vector<uint32_t> indices;  // 3 per triangle
  glm::vec3 bounds_min{0.0f};
  glm::vec3 bounds_max{0.0f};

  size_t triangle_count() const { return indices.size() / 3; }
};

// A texture is a full mip chain of sRGB-encoded RGBA8 levels; level 0 is the base image.
// Levels are built by the loader (box filter in linear space), so every renderer that draws
// the scene samples the same texels.
// How a texture is sampled (glTF samplers; VkSamplerCreateInfo): addressing per axis, the
// magnification and minification filters and how mip levels are used (none: level 0 only).
// The default is the scenes' sampler: repeat, trilinear.
enum class TextureWrap : uint8_t { repeat, clamp_to_edge, mirrored_repeat };
enum class TextureFilter : uint8_t { nearest, linear };
enum class MipFilter : uint8_t { none, nearest, linear };
struct SamplerState {
  TextureWrap wrap_u = TextureWrap::repeat;
  TextureWrap wrap_v = TextureWrap::repeat;
  TextureFilter mag = TextureFilter::linear;
  TextureFilter min = TextureFilter::linear;
  MipFilter mip = MipFilter::linear;
  bool operator==(const SamplerState&) const = default;
};

struct Texture {
  std::string name;
  std::vector<Image> levels;
  SamplerState sampler;
};

// How a material's alpha (base alpha x texture alpha) is used, as glTF's alphaMode: ignored
// (opaque), discard below the cutoff (mask), or source-over blending (blend; such draws test
// depth but do not write it and are drawn after every opaque draw, docs/scene-format.md).
enum class AlphaMode : uint8_t { opaque, mask, blend };

struct Material {
  std::string name;
  glm::vec3 base_color{0.8f};  // linear RGB, multiplied with the texture
  int texture = -1;            // index into Scene::textures, -1 for none
  glm::vec3 specular{0.0f};    // linear RGB Blinn-Phong highlight colour; 0 = none
  float shininess = 32.0f;     // Blinn-Phong exponent, [kMinShininess, kMaxShininess]
  float reflectivity = 0.0f;   // mirror reflection weight in [0, 1] (rt and hybrid frames)
  float base_alpha = 1.0f;     // [0, 1], multiplied with the texture's alpha
  AlphaMode alpha_mode = AlphaMode::opaque;
  float alpha_cutoff = 0.5f;  // mask: fragments with alpha < cutoff are discarded
  bool double_sided = false;  // not culled; back faces lit with the reversed normal
  glm::vec3 emissive{0.0f};   // linear RGB added to the lit colour
};

constexpr float kMinShininess = 1.0f;
constexpr float kMaxShininess = 8192.0f;

struct Instance {
  uint32_t mesh = 0;  // for an LOD instance: its group's finest level
  uint32_t material = 0;
  glm::mat4 transform{1.0f};  // object to world
  int32_t lod_group = -1;     // index into Scene::lod_groups, -1 = a plain mesh instance
};

// A level-of-detail chain (docs/scene-format.md, docs/rt.md): meshes finest first and the
// distances at which each stops being used, near to far; beyond the last range the object is
// discarded. The raster path picks one level per instance from the camera distance
// (tessera/lod.h); the ray tracer picks per ray at a LOD node of its BVH.
constexpr int kMaxLodLevels = 4;
struct LodGroup {
  std::string name;
  std::vector<uint32_t> levels;  // mesh indices, finest first, 1..kMaxLodLevels
  std::vector<float> ranges;     // one per level, strictly increasing, > 0
  float bias = 0.0f;             // node bias added to the ray's distance (> 0 = coarser sooner)
};

enum class LightType : uint32_t { directional = 0, point = 1 };

struct Light {
  LightType type = LightType::directional;
  glm::vec3 direction{0.0f, -1.0f, 0.0f};  // directional: direction the light travels (world)
  glm::vec3 position{0.0f};                // point: world position
  glm::vec3 color{1.0f};                   // linear RGB
  float intensity = 1.0f;                  // point lights fall off as intensity / distance^2
};

constexpr int kMaxLights = 8;

// Exponential distance fog: colour = mix(fog.color, lit, exp(-density * distance to the eye)).
struct Fog {
  glm::vec3 color{0.6f, 0.7f, 0.8f};  // linear RGB
  float density = 0.0f;               // per world unit, [0, kMaxFogDensity]; 0 = no fog
};
constexpr float kMaxFogDensity = 100.0f;

// How linear radiance becomes the [0, 1] frame-buffer value (before sRGB encoding), after
// multiplying by the exposure: clamp (none), reinhard c / (1 + c), exponential 1 - exp(-c).
enum class ToneMapping : uint32_t { clamp = 0, reinhard = 1, exponential = 2 };
constexpr float kMaxExposure = 1.0e4f;

struct Camera {
  std::string name;  // optional; entries of Scene::cameras can be picked by it
  glm::vec3 position{0.0f, 1.0f, 5.0f};
  glm::vec3 target{0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  float fov_y_degrees = 60.0f;
  float near_plane = 0.1f;
  float far_plane = 1000.0f;
};

struct Scene {
  std::vector<Mesh> meshes;
  std::vector<Texture> textures;
  std::vector<Material> materials;
  std::vector<Instance> instances;
  std::vector<LodGroup> lod_groups;  // placed by instances with lod_group >= 0
  std::vector<Light> lights;         // at most kMaxLights
  Camera camera;
  std::vector<Camera> cameras;                 // optional extra named viewpoints for batch capture
  glm::vec3 ambient{0.08f};                    // linear RGB added to every lit surface before albedo
  glm::vec3 background{0.0f};                  // linear RGB clear colour
  std::vector<PatchMesh> patch_meshes;         // surfaces tessellated every frame
  std::vector<PatchInstance> patch_instances;  // drawn after `instances`, in this order
  Fog fog;
  ToneMapping tone_mapping = ToneMapping::clamp;
  float exposure = 1.0f;         // (0, kMaxExposure]
  std::filesystem::path source;  // file the scene came from (empty if generated)

  size_t triangle_count() const;  // over all instances
};

// Loads a scene JSON file; relative paths inside resolve against its folder.
// Throws tessera::Error naming the file (and the key or line) on any problem, including a
// scene whose estimated memory (scene_memory_estimate) exceeds memory_limit().
Scene load_scene(const std::filesystem::path& path);

// The memory budget scenes are checked against before their instances are built
// (docs/scene-format.md, "Memory budget"): by default half of physical memory; the CLI's
// --memory-limit sets it for the process. 0 restores the default.
uint64_t memory_limit();
void set_memory_limit(uint64_t bytes);
uint64_t default_memory_limit();

// Bytes a scene is estimated to need to load and render one frame (either path): its meshes
// and textures, and per instance its record, its draw and, for the raster path, every vertex
// shaded and every triangle set up. Cheap: no geometry is built.
struct SceneMemoryEstimate {
  uint64_t stored_bytes = 0;     // meshes, textures, instance records
  uint64_t per_frame_bytes = 0;  // draws, shaded vertices, triangle setups
  uint64_t total() const { return stored_bytes + per_frame_bytes; }
};
// Adds `count` instances of `mesh` to an estimate.
void add_instances_to_estimate(SceneMemoryEstimate& estimate, const Mesh& mesh, uint64_t count);

// Loads an OBJ as one mesh (all shapes merged); computes normals when the file has none.
// Throws tessera::Error on a missing/malformed file or non-finite vertex data.
Mesh load_obj(const std::filesystem::path& path);

// Builds the mip chain of an sRGB RGBA8 image (box filter in linear space, down to 1x1).
Texture make_texture(std::string name, Image base);
Texture load_texture(const std::filesystem::path& path);

// Computes bounds_min/bounds_max.
void compute_bounds(Mesh& mesh);

// Checks internal consistency (indices in range, finite positions, light count, references),
// throwing tessera::Error naming `what` and the offending element.
void validate_scene(const Scene& scene, const std::string& what);
// The camera checks every view passes, from a scene file or the command line: finite,
// 0 < fov < 180, 0 < near < far, target apart from position, up neither zero nor parallel to
// the view direction (that view has no defined orientation and renders nothing).
void validate_camera(const Camera& camera, const std::string& where);

// Camera matrices in Vulkan conventions: right-handed view, clip z in [0, w], and clip y
// pointing down the framebuffer (NDC y = -1 is the top row). Shared by every renderer.
struct CameraMatrices {
  glm::mat4 view;
  glm::mat4 projection;
  glm::mat4 view_projection;
};
CameraMatrices camera_matrices(const Camera& camera, int width, int height);

}  // namespace tessera
