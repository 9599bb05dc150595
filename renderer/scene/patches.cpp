// Patch mesh generators: a C1 Bezier grid, PN triangles over a triangle mesh, and a terrain of
// displaced quad patches.
#include "tessera/patches.h"

#include <algorithm>
#include <cmath>

#include "scene/generator_checks.h"
#include "scene/noise.h"
#include "tessera/procedural.h"
#include "tessera/scene.h"

namespace tessera {

namespace gc = generator_checks;

void Heightfield::sample(float x, float z, float& height, glm::vec3& normal) const {
  // Sample coordinates, clamped so the four taps stay inside the grid.
  const float last = float(resolution - 1);
  const float sx = std::clamp((x - origin.x) / extent * last, 0.0f, last);
  const float sz = std::clamp((z - origin.y) / extent * last, 0.0f, last);
  const int i0 = std::min(int(sx), resolution - 2);
  const int j0 = std::min(int(sz), resolution - 2);
  const float fx = sx - float(i0), fz = sz - float(j0);
  const size_t r = size_t(resolution);
  const size_t a = size_t(j0) * r + size_t(i0), b = a + 1, c = a + r, d = c + 1;
  const float w00 = (1.0f - fx) * (1.0f - fz), w10 = fx * (1.0f - fz), w01 = (1.0f - fx) * fz, w11 = fx * fz;
  height = ((w00 * heights[a] + w10 * heights[b]) + w01 * heights[c]) + w11 * heights[d];
  normal = ((w00 * normals[a] + w10 * normals[b]) + w01 * normals[c]) + w11 * normals[d];
}

namespace {

void grow(glm::vec3& lo, glm::vec3& hi, glm::vec3 p) {
  lo = glm::min(lo, p);
  hi = glm::max(hi, p);
}

}  // namespace

void compute_patch_bounds(PatchMesh& mesh) {
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (uint32_t i : mesh.indices) grow(lo, hi, mesh.control_points[i].position);
  if (mesh.displacement && !mesh.displacement->heights.empty()) {
    const auto [mn, mx] = std::minmax_element(mesh.displacement->heights.begin(), mesh.displacement->heights.end());
    lo.y += std::min(*mn, 0.0f);
    hi.y += std::max(*mx, 0.0f);
  }
  if (mesh.indices.empty()) lo = hi = glm::vec3(0.0f);
  mesh.bounds_min = lo;
  mesh.bounds_max = hi;
}

PatchMesh make_bezier_grid(const BezierGridParams& p) {
  gc::require_positive("bezier_grid", "size", p.size);
  gc::require_range("bezier_grid", "patches", p.patches, 1, 256);
  gc::require_range("bezier_grid", "height", p.height, 0.0f, 1e5f);
  gc::require_positive("bezier_grid", "uv_scale", p.uv_scale, 1e4f);
  const int n = 3 * p.patches + 1;  // control lattice points per side
  const float step = p.size / float(n - 1);
  // Lattice heights from smooth noise, then C1 across patch boundaries: every boundary point
  // becomes the midpoint of its two neighbours across the boundary (the lattice is uniform in
  // x and z, so positions stay collinear and evenly spaced).
  std::vector<float> h(size_t(n) * size_t(n));
  const noise::FbmParams fbm{p.seed, 4, 0};
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      h[size_t(j) * size_t(n) + size_t(i)] =
          p.height * noise::fbm(2.5f * float(i) / float(n - 1), 2.5f * float(j) / float(n - 1), fbm);
    }
  }
  auto at = [&](int i, int j) -> float& { return h[size_t(j) * size_t(n) + size_t(i)]; };
  for (int j = 0; j < n; ++j) {
    for (int i = 3; i + 3 < n; i += 3) at(i, j) = 0.5f * (at(i - 1, j) + at(i + 1, j));
  }
  for (int j = 3; j + 3 < n; j += 3) {
    for (int i = 0; i < n; ++i) at(i, j) = 0.5f * (at(i, j - 1) + at(i, j + 1));
  }
  PatchMesh mesh;
  mesh.name = "bezier_grid";
  mesh.kind = PatchKind::bezier_quad;
  mesh.control_points_per_patch = 16;
  mesh.control_points.resize(size_t(n) * size_t(n));
  const float half = 0.5f * p.size;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      Vertex& v = mesh.control_points[size_t(j) * size_t(n) + size_t(i)];
      // Lattice row j runs toward -z, so dP/du x dP/dv points up (+y): the front face.
      v.position = glm::vec3(-half + float(i) * step, at(i, j), half - float(j) * step);
      v.normal = glm::vec3(0.0f, 1.0f, 0.0f);  // the domain shader derives the surface normal
      v.uv = glm::vec2(float(i), float(j)) / float(n - 1) * p.uv_scale;
    }
  }
  for (int pj = 0; pj < p.patches; ++pj) {
    for (int pi = 0; pi < p.patches; ++pi) {
      for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 4; ++i) mesh.indices.push_back(uint32_t((3 * pj + j) * n + 3 * pi + i));
      }
    }
  }
  compute_patch_bounds(mesh);
  return mesh;
}

PatchMesh make_pn_triangles(const Mesh& source) {
  PatchMesh mesh;
  mesh.name = source.name;
  mesh.kind = PatchKind::pn_triangle;
  mesh.control_points_per_patch = 3;
  mesh.control_points = source.vertices;
  mesh.indices = source.indices;
  compute_patch_bounds(mesh);
  // PN surfaces bulge out of the flat triangles by at most a fraction of the edge length; the
  // hull's frustum test pads by the same margin (shaders/patch_programs.h).
  return mesh;
}

PatchMesh make_patch_terrain(const TerrainParams& params, int patches) {
  gc::require_range("patch_terrain", "patches", patches, 1, 1024);
  const Mesh terrain = make_terrain(params);  // heights and normals on (resolution + 1)^2 samples
  auto field = std::make_shared<Heightfield>();
  field->resolution = params.resolution + 1;
  field->origin = glm::vec2(-0.5f * params.size);
  field->extent = params.size;
  field->heights.reserve(terrain.vertices.size());
  field->normals.reserve(terrain.vertices.size());
  for (const Vertex& v : terrain.vertices) {
    field->heights.push_back(v.position.y);
    field->normals.push_back(v.normal);
  }
  PatchMesh mesh;
  mesh.name = "patch_terrain";
  mesh.kind = PatchKind::displaced_quad;
  mesh.control_points_per_patch = 4;
  mesh.displacement = field;
  const int n = patches + 1;
  const float half = 0.5f * params.size;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      Vertex v;
      const float u = float(i) / float(patches), w = float(j) / float(patches);
      v.position = glm::vec3(-half + u * params.size, 0.0f, half - w * params.size);  // row j toward -z
      v.normal = glm::vec3(0.0f, 1.0f, 0.0f);
      // The terrain mesh's uv: (x, z) mapped to [0, 1] times the scale.
      v.uv = glm::vec2(u, 1.0f - w) * params.uv_scale;
      mesh.control_points.push_back(v);
    }
  }
  for (int pj = 0; pj < patches; ++pj) {
    for (int pi = 0; pi < patches; ++pi) {
      const uint32_t a = uint32_t(pj * n + pi);
      mesh.indices.insert(mesh.indices.end(), {a, a + 1, a + uint32_t(n), a + uint32_t(n) + 1});
    }
  }
  compute_patch_bounds(mesh);
  return mesh;
}

}  // namespace tessera
