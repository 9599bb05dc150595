// Procedural generators: meshes (terrain, basic shapes), textures and instance grids, so
// scenes of any size can be described in a few lines of JSON. Every generator is a pure
// function of its parameters: the same parameters give the same bits on every machine and for
// any thread count. Triangles wind counter-clockwise seen from the side their normals face
// (the OBJ convention), uv (0,0) is the top-left texel of a texture.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <string>
#include <vector>

#include "tessera/scene.h"

namespace tessera {

// Largest grid resolution or segment count a generator accepts (per side / per ring).
constexpr int kMaxGeneratorResolution = 4096;
// Largest instance count an instance grid may produce.
constexpr uint64_t kMaxGridInstances = uint64_t(1) << 24;
// Largest procedural texture edge in texels.
constexpr int kMaxTextureSize = 4096;

// Height field over the XZ square [-size/2, size/2]^2 with fBm value noise heights in
// [0, height] (y up). resolution cells per side: (r+1)^2 vertices, 2 r^2 triangles.
struct TerrainParams {
  float size = 100.0f;   // world units along X and Z
  int resolution = 256;  // grid cells per side, 1..kMaxGeneratorResolution
  float height = 10.0f;  // world units between the lowest and highest possible point
  uint32_t seed = 1;
  float uv_scale = 8.0f;     // texture repeats across the whole terrain
  int octaves = 6;           // fBm octaves, 1..12
  float frequency = 4.0f;    // noise features (first-octave cells) across the terrain
  float flat_radius = 0.0f;  // world units: heights fade to 0 inside this circle (a valley
                             // floor where objects can stand at y = 0); 0 disables
};
Mesh make_terrain(const TerrainParams& params);

// Height of the terrain surface described by params at world (x, z), before triangulation
// (the mesh interpolates this at its grid vertices).
float terrain_height(const TerrainParams& params, float x, float z);

// Sphere around the origin: `segments` around the Y axis, `rings` from pole to pole.
// (segments+1)*(rings+1) vertices (seam and poles duplicated for uv), 2*segments*(rings-1)
// triangles. u runs with longitude, v from the north pole (0) to the south pole (1).
Mesh make_sphere(float radius = 1.0f, int segments = 32, int rings = 16);

// Axis-aligned box centred on the origin with full edge lengths `size`: 24 vertices (4 per
// face, per-face normals), 12 triangles, each face mapped to the whole [0,1]^2 uv square.
Mesh make_box(glm::vec3 size = glm::vec3(1.0f));

// Plane in XZ at y = 0 facing +Y, centred on the origin, subdivided into cells.x * cells.y
// quads: (cells.x+1)*(cells.y+1) vertices, 2*cells.x*cells.y triangles. uv spans
// [0, uv_scale] across the plane.
Mesh make_plane(glm::vec2 size = glm::vec2(1.0f), glm::ivec2 cells = glm::ivec2(1), float uv_scale = 1.0f);

// Torus around the Y axis: (major+1)*(minor+1) vertices, 2*major*minor triangles.
Mesh make_torus(float major_radius = 1.0f, float minor_radius = 0.25f, int major_segments = 48,
                int minor_segments = 24);

// count.x * count.y * count.z instances of one mesh on a regular grid. Instance (i,j,k) sits
// at origin + (i,j,k) * spacing (plus jitter), scaled by `scale`. With a seed, each instance
// draws its own random rotation about Y, scale jitter and XZ position jitter from a hash of
// (seed, index): the same parameters give the same grid.
struct InstanceGridParams {
  uint32_t mesh = 0;
  uint32_t material = 0;
  glm::ivec3 count{1};             // each >= 1, product <= kMaxGridInstances
  glm::vec3 spacing{1.0f};         // world units between neighbours
  glm::vec3 origin{0.0f};          // world position of instance (0,0,0)
  float scale = 1.0f;              // uniform scale of every instance
  bool random_rotation_y = false;  // rotate each instance by a random angle about +Y
  float scale_jitter = 0.0f;       // [0,1): scale drawn from scale * [1-j, 1+j]
  float position_jitter = 0.0f;    // [0,0.5]: XZ offset up to this fraction of spacing
  uint32_t seed = 0;
};
std::vector<Instance> make_instance_grid(const InstanceGridParams& params);

// Procedural textures (sRGB-encoded RGBA8 base level; pass to make_texture for the mips).
// Colours are linear RGB in [0,1].
struct CheckerParams {
  int size = 256;  // texels per side
  int cells = 8;   // checks per side
  glm::vec3 color_a{0.9f};
  glm::vec3 color_b{0.1f};
};
Image make_checker_image(const CheckerParams& params);

struct BricksParams {
  int size = 256;        // texels per side
  int rows = 8;          // brick courses per texture height
  int columns = 4;       // bricks per course
  float mortar = 0.08f;  // mortar width as a fraction of a brick height
  glm::vec3 brick_color{0.50f, 0.16f, 0.10f};
  glm::vec3 mortar_color{0.60f, 0.58f, 0.55f};
  float variation = 0.25f;  // [0,1]: per-brick brightness jitter
  uint32_t seed = 0;
};
Image make_bricks_image(const BricksParams& params);

// Tileable fBm noise blended between two colours (ground, stone, sand...).
struct NoiseTextureParams {
  int size = 256;     // texels per side
  int frequency = 8;  // first-octave noise cells across the texture
  int octaves = 5;    // 1..12
  glm::vec3 color_a{0.20f, 0.35f, 0.10f};
  glm::vec3 color_b{0.45f, 0.38f, 0.25f};
  uint32_t seed = 0;
};
Image make_noise_image(const NoiseTextureParams& params);

}  // namespace tessera
