// The draw list of a scene frame: one draw per instance, in scene order (an LOD group's level
// chosen by camera distance), then one per tessellated patch instance, then the draws of
// blended materials in the same order (they need what is behind them already drawn), each with the Lambert
// programs' uniforms and its place in the frame's vertex and primitive numbering.
#pragma once

#include <cstddef>
#include <vector>

#include "pipeline/tessellation_stage.h"
#include "shaders/lambert.h"
#include "tessera/clip_space.h"
#include "tessera/scene.h"

namespace tessera {

struct SceneDraw {
  const Mesh* mesh = nullptr;
  shaders::LambertVertexShader::Uniforms vs;
  shaders::LambertFragmentShader::Uniforms fs;
  // The material's fixed-function state: blended draws test depth without writing it, two-sided
  // ones are not culled.
  BlendMode blend = BlendMode::none;
  bool double_sided = false;
  size_t vertex_base = 0;    // first post-vertex-shading vertex of this draw
  size_t triangle_base = 0;  // first primitive of this draw in frame order
};

struct SceneDrawList {
  std::vector<SceneDraw> draws;
  size_t vertices = 0;  // over all draws
  size_t triangles = 0;
  size_t stored_vertices = 0;  // of those, fetched from memory (not tessellated on chip)
  size_t stored_triangles = 0;
  // The frame's lighting, which the draws' fragment uniforms point to: the list stays where
  // it was built (not copyable).
  shaders::LambertLighting lighting;
  shaders::LambertLighting flat;  // the GPP map's flat shading

  SceneDrawList() = default;
  SceneDrawList(const SceneDrawList&) = delete;
  SceneDrawList& operator=(const SceneDrawList&) = delete;
};

// Fills `list` for the view; with tessellation.gpp_map every draw shades flat, tessellated
// triangles in the colour of their GPP. Throws tessera::Error for an instance naming a
// missing mesh or material.
void build_scene_draws(const Scene& scene, const Camera& camera, const glm::mat4& view_projection,
                       const TessellationStageResult& tessellated, bool gpp_map, SceneDrawList& list);

}  // namespace tessera
