// Height-field terrain from fBm value noise.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "scene/generator_checks.h"
#include "scene/noise.h"
#include "tessera/procedural.h"

namespace tessera {

namespace gc = generator_checks;

namespace {

void check_terrain(const TerrainParams& p) {
  gc::require_positive("terrain", "size", p.size);
  gc::require_range("terrain", "resolution", p.resolution, 1, kMaxGeneratorResolution);
  gc::require_range("terrain", "height", p.height, 0.0f, 1e5f);
  gc::require_positive("terrain", "uv_scale", p.uv_scale, 1e4f);
  gc::require_range("terrain", "octaves", p.octaves, 1, 12);
  gc::require_positive("terrain", "frequency", p.frequency, 1e4f);
  gc::require_range("terrain", "flat_radius", p.flat_radius, 0.0f, 1e6f);
}

// Height at normalised terrain coordinates (u, v) in [0,1]^2 and world (x, z).
float height_at(const TerrainParams& p, float u, float v, float x, float z) {
  const noise::FbmParams fbm{p.seed, p.octaves, 0};
  float h = p.height * noise::fbm(u * p.frequency, v * p.frequency, fbm);
  if (p.flat_radius > 0.0f) {
    // Smoothstep from the flat floor (inside flat_radius) to full height one more
    // flat_radius out: C1 continuous, so normals show no ring-shaped crease.
    const float d = std::sqrt(x * x + z * z);
    const float t = std::clamp((d - p.flat_radius) / p.flat_radius, 0.0f, 1.0f);
    h *= t * t * (3.0f - 2.0f * t);
  }
  return h;
}

}  // namespace

float terrain_height(const TerrainParams& params, float x, float z) {
  check_terrain(params);
  const float u = x / params.size + 0.5f;
  const float v = z / params.size + 0.5f;
  return height_at(params, u, v, x, z);
}

Mesh make_terrain(const TerrainParams& params) {
  check_terrain(params);
  const int r = params.resolution;
  const size_t row = size_t(r) + 1;
  const float cell = params.size / float(r);  // world units per grid cell

  Mesh mesh;
  mesh.name = "terrain";
  mesh.vertices.resize(row * row);

  // Heights first (every vertex is independent, so any thread count gives the same bits),
  // then normals from central differences of those heights.
  std::vector<float> heights(row * row);
  tbb::parallel_for(size_t(0), row, [&](size_t j) {
    const float v = float(j) / float(r);
    const float z = (v - 0.5f) * params.size;
    for (size_t i = 0; i < row; ++i) {
      const float u = float(i) / float(r);
      const float x = (u - 0.5f) * params.size;
      heights[j * row + i] = height_at(params, u, v, x, z);
    }
  });
  tbb::parallel_for(size_t(0), row, [&](size_t j) {
    const float v = float(j) / float(r);
    const size_t j0 = j == 0 ? 0 : j - 1;
    const size_t j1 = j == size_t(r) ? j : j + 1;
    for (size_t i = 0; i < row; ++i) {
      const float u = float(i) / float(r);
      const size_t i0 = i == 0 ? 0 : i - 1;
      const size_t i1 = i == size_t(r) ? i : i + 1;
      const float dhdx = (heights[j * row + i1] - heights[j * row + i0]) / (float(i1 - i0) * cell);
      const float dhdz = (heights[j1 * row + i] - heights[j0 * row + i]) / (float(j1 - j0) * cell);
      Vertex& vert = mesh.vertices[j * row + i];
      vert.position = glm::vec3((u - 0.5f) * params.size, heights[j * row + i], (v - 0.5f) * params.size);
      vert.normal = glm::normalize(glm::vec3(-dhdx, 1.0f, -dhdz));
      vert.uv = glm::vec2(u, v) * params.uv_scale;
    }
  });

  // Two triangles per cell, counter-clockwise seen from above (+Y).
  mesh.indices.resize(size_t(r) * size_t(r) * 6);
  tbb::parallel_for(size_t(0), size_t(r), [&](size_t j) {
    uint32_t* out = mesh.indices.data() + j * size_t(r) * 6;
    for (size_t i = 0; i < size_t(r); ++i) {
      const uint32_t a = uint32_t(j * row + i);
      const uint32_t b = a + 1;
      const uint32_t c = a + uint32_t(row);
      const uint32_t d = c + 1;
      const uint32_t tri[6] = {a, c, b, b, c, d};
      std::copy(tri, tri + 6, out + i * 6);
    }
  });
  compute_bounds(mesh);
  return mesh;
}

}  // namespace tessera
