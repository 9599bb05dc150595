// Patch meshes: surfaces the tessellation stage turns into triangles every frame (hull shader ->
// GPP array with its tessellators -> domain shader; shaders/patch_programs.h, docs/tessellation.md).
// Three kinds: bicubic Bezier quad patches (16 control points), PN triangles built from an
// ordinary triangle mesh (3 control points: positions and normals), and a terrain of flat quad
// patches displaced by a height field (4 corner control points).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/tessellator.h"
#include "tessera/vertex.h"

namespace tessera {

struct Mesh;
struct TerrainParams;

enum class PatchKind : uint8_t { bezier_quad, pn_triangle, displaced_quad };

// How the hull shader sets each edge's level.
enum class TessFactorMode : uint8_t {
  constant,     // every edge at `level`
  distance,     // level x reference_distance / (distance from the eye to the edge's midpoint)
  edge_length,  // the edge's projected length in pixels / edge_pixels
};

struct TessellationSettings {
  TessFactorMode mode = TessFactorMode::edge_length;
  TessSpacing spacing = TessSpacing::kFractionalOdd;
  float level = 16.0f;               // constant: the level; other modes: the largest level
  float reference_distance = 10.0f;  // distance mode: where an edge gets `level`
  float edge_pixels = 16.0f;         // edge_length mode: pixels per segment wanted
  bool cull = true;                  // the hull shader culls patches outside the view frustum
};

// Heights over a square of the XZ plane, sampled on a resolution x resolution grid (row-major in
// z, then x) with per-sample normals from central differences. Bilinear between samples.
struct Heightfield {
  int resolution = 0;      // samples per side, >= 2
  glm::vec2 origin{0.0f};  // world (x, z) of sample (0, 0)
  float extent = 1.0f;     // world units from the first to the last sample
  std::vector<float> heights;
  std::vector<glm::vec3> normals;

  // Bilinear height and (unnormalised) normal at world (x, z), clamped to the square.
  void sample(float x, float z, float& height, glm::vec3& normal) const;
};

struct PatchMesh {
  std::string name;
  PatchKind kind = PatchKind::bezier_quad;
  // Control points as vertices (position, normal, uv); each patch lists control_points_per_patch
  // indices into them. Bezier: row-major 4x4 (index i + 4 j, i along u, j along v); PN: the
  // triangle's three vertices (barycentric u, v, w weight points 0, 1, 2); displaced quads: the
  // corners (0,0), (1,0), (0,1), (1,1) as i + 2 j.
  std::vector<Vertex> control_points;
  std::vector<uint32_t> indices;
  uint32_t control_points_per_patch = 16;
  TessellationSettings tessellation;
  std::shared_ptr<const Heightfield> displacement;  // displaced_quad only
  glm::vec3 bounds_min{0.0f};                       // of the surface, displacement included (object space)
  glm::vec3 bounds_max{0.0f};

  size_t patch_count() const { return control_points_per_patch ? indices.size() / control_points_per_patch : 0; }
  TessDomain domain() const { return kind == PatchKind::pn_triangle ? TessDomain::kTriangle : TessDomain::kQuad; }
};

struct PatchInstance {
  uint32_t patch_mesh = 0;
  uint32_t material = 0;
  glm::mat4 transform{1.0f};  // object to world
};

// A size x size square of the XZ plane centred on the origin, patches x patches bicubic Bezier
// patches whose control lattice follows smooth noise heights (0..height); C1 across patch edges
// (each shared boundary point is the midpoint of its neighbours across the edge).
struct BezierGridParams {
  float size = 10.0f;
  int patches = 4;  // per side, 1..256
  float height = 2.0f;
  uint32_t seed = 1;
  float uv_scale = 1.0f;
};
PatchMesh make_bezier_grid(const BezierGridParams& params);

// PN triangles (curved point-normal triangles) over every triangle of `mesh`.
PatchMesh make_pn_triangles(const Mesh& mesh);

// The terrain of make_terrain(params) as patches x patches flat quad patches displaced by a
// height field of `params.resolution + 1` samples per side (the terrain's heights).
PatchMesh make_patch_terrain(const TerrainParams& params, int patches);

// Recomputes bounds_min/bounds_max (control points; plus the displacement's height range).
void compute_patch_bounds(PatchMesh& mesh);

}  // namespace tessera
