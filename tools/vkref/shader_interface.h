// Byte layouts shared between the reference renderer and its GLSL programs
// (shaders/glsl/lambert.vert, lambert.frag, patch.tesc, patch.tese). Private to tools/vkref.
#pragma once

#include <cstddef>
#include <glm/glm.hpp>

#include "tessera/scene.h"

namespace tessera::vkref {

// One light in the frame block (std140), 64 bytes:
//   0 direction.xyz  (directional: direction the light travels, world)
//  16 position.xyz   (point: world position)
//  32 color.rgb      (linear), color.a = intensity
//  48 type.x         (tessera::LightType: 0 directional, 1 point)
struct GpuLight {
  glm::vec4 direction{0.0f};
  glm::vec4 position{0.0f};
  glm::vec4 color{0.0f};
  glm::uvec4 type{0u};
};
static_assert(sizeof(GpuLight) == 64, "std140 struct Light in lambert.frag");

// Frame uniform block (set 0, binding 0, std140), 672 bytes:
//   0 view_projection (column-major mat4)
//  64 ambient.rgb (linear)
//  80 light_count.x
//  96 lights[kMaxLights]
// 608 eye.xyz (camera position)
// 624 fog.rgb (linear), fog.a = density
// 640 exposure.x
// 656 tone_mapping.x (tessera::ToneMapping)
struct FrameUniforms {
  glm::mat4 view_projection{1.0f};
  glm::vec4 ambient{0.0f};
  glm::ivec4 light_count{0};
  GpuLight lights[kMaxLights];
  glm::vec4 eye{0.0f};          // xyz camera position
  glm::vec4 fog{0.0f};          // rgb colour, a density
  glm::vec4 exposure{1.0f};     // x
  glm::uvec4 tone_mapping{0u};  // x: tessera::ToneMapping
};
static_assert(sizeof(FrameUniforms) == 672, "std140 FrameBlock in lambert.frag");
static_assert(offsetof(FrameUniforms, eye) == 608);
static_assert(offsetof(FrameUniforms, ambient) == 64);
static_assert(offsetof(FrameUniforms, light_count) == 80);
static_assert(offsetof(FrameUniforms, lights) == 96);

// Per-draw push constants (VERTEX | FRAGMENT):
//   0 model (object to world, column-major mat4)          vertex stage
//  64 normal_matrix[3] (columns of transpose(inverse(mat3(model))), xyz)    vertex stage
//     normal_matrix[c].w = the material's specular colour channel c           fragment stage
// 112 base_color.rgb (linear); base_color.a = shininess (>= 1), negated when the material is
//     not textured                                                           fragment stage
//   model's fourth row (model[c].w, unused by an affine transform; lambert.vert uses
//   (model * p).xyz with w = 1) carries the material for the fragment stage:
//     model[0].w base alpha, model[1].w alpha cutoff, model[2].w alpha mode (tessera::AlphaMode)
//     + 4 for a double-sided material, model[3].w the emissive colour as r + 256 g + 65536 b
//     in 8-bit steps (exact in a float)
// 128 bytes is all lavapipe (Mesa 22.3) offers, hence the packing.
struct InstancePushConstants {
  glm::mat4 model{1.0f};
  glm::vec4 normal_matrix[3];
  glm::vec4 base_color{0.0f};
};
static_assert(sizeof(InstancePushConstants) == 128, "push constant blocks in lambert.vert/.frag");
static_assert(offsetof(InstancePushConstants, normal_matrix) == 64);
static_assert(offsetof(InstancePushConstants, base_color) == 112);

// Per-draw block of a patch instance (set 2, binding 0, a dynamic uniform buffer: the push
// constants are full), std140, 192 bytes, read by patch.tesc and patch.tese:
//   0 model (object to world, column-major mat4)
//  64 normal_matrix[3] (columns of transpose(inverse(mat3(model))), xyz)
// 112 eye.xyz (camera position, world)
// 128 viewport.xy (pixels)
// 144 levels: x level, y reference_distance, z edge_pixels (tessera::TessellationSettings)
// 160 field: x, y world (x, z) of the height field's sample (0, 0); z extent; w height span
//     (max - min, the hull's culling pad)
// 176 mode: x tessera::TessFactorMode, y cull, z tessera::PatchKind, w field resolution (0: none)
struct PatchDrawUniforms {
  glm::mat4 model{1.0f};
  glm::vec4 normal_matrix[3];
  glm::vec4 eye{0.0f};
  glm::vec4 viewport{0.0f};
  glm::vec4 levels{0.0f};
  glm::vec4 field{0.0f};
  glm::uvec4 mode{0u};
};
static_assert(sizeof(PatchDrawUniforms) == 192, "std140 PatchDrawBlock in patch.tesc/.tese");
static_assert(offsetof(PatchDrawUniforms, eye) == 112);
static_assert(offsetof(PatchDrawUniforms, mode) == 176);

}  // namespace tessera::vkref
