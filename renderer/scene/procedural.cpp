// Basic shapes: sphere, box, plane, torus. Terrain, instance grids and textures have their
// own files.
#include "tessera/procedural.h"

#include <cmath>
#include <numbers>

#include "scene/generator_checks.h"

namespace tessera {

namespace gc = generator_checks;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

// Two triangles per cell of a (nu x nv)-cell vertex grid stored row by row (vertex (i, j) at
// j * (nu + 1) + i). Wound so that the face normal is d(j) x d(i): the caller orders its axes
// so this points outwards.
void append_grid_triangles(Mesh& mesh, int nu, int nv) {
  const uint32_t row = uint32_t(nu) + 1;
  mesh.indices.reserve(mesh.indices.size() + size_t(nu) * size_t(nv) * 6);
  for (int j = 0; j < nv; ++j) {
    for (int i = 0; i < nu; ++i) {
      const uint32_t a = uint32_t(j) * row + uint32_t(i);
      const uint32_t b = a + 1;    // (i+1, j)
      const uint32_t c = a + row;  // (i, j+1)
      const uint32_t d = c + 1;    // (i+1, j+1)
      mesh.indices.insert(mesh.indices.end(), {a, c, b, b, c, d});
    }
  }
}

}  // namespace

Mesh make_sphere(float radius, int segments, int rings) {
  gc::require_positive("sphere", "radius", radius);
  gc::require_range("sphere", "segments", segments, 3, kMaxGeneratorResolution);
  gc::require_range("sphere", "rings", rings, 2, kMaxGeneratorResolution);
  Mesh mesh;
  mesh.name = "sphere";
  mesh.vertices.reserve(size_t(segments + 1) * size_t(rings + 1));
  for (int i = 0; i <= rings; ++i) {
    const float theta = kPi * float(i) / float(rings);  // 0 at the north pole (+Y)
    // Exact poles and equator values, so pole vertices coincide bit for bit.
    const float sin_t = (i == 0 || i == rings) ? 0.0f : std::sin(theta);
    const float cos_t = i == 0 ? 1.0f : (i == rings ? -1.0f : std::cos(theta));
    for (int j = 0; j <= segments; ++j) {
      const float phi = 2.0f * kPi * float(j % segments) / float(segments);
      const glm::vec3 n(sin_t * std::cos(phi), cos_t, sin_t * std::sin(phi));
      mesh.vertices.push_back({n * radius, n, glm::vec2(float(j) / float(segments), float(i) / float(rings))});
    }
  }
  // Ring i is the row, segment j the column; the pole rows lose their degenerate triangle.
  const uint32_t row = uint32_t(segments) + 1;
  mesh.indices.reserve(size_t(segments) * size_t(rings - 1) * 6);
  for (int i = 0; i < rings; ++i) {
    for (int j = 0; j < segments; ++j) {
      const uint32_t a = uint32_t(i) * row + uint32_t(j);
      const uint32_t c = a + 1;    // next longitude
      const uint32_t b = a + row;  // next ring down
      const uint32_t d = b + 1;
      if (i != 0) mesh.indices.insert(mesh.indices.end(), {a, c, b});
      if (i != rings - 1) mesh.indices.insert(mesh.indices.end(), {c, d, b});
    }
  }
  compute_bounds(mesh);
  return mesh;
}

Mesh make_box(glm::vec3 size) {
  gc::require_positive("box", "size.x", size.x);
  gc::require_positive("box", "size.y", size.y);
  gc::require_positive("box", "size.z", size.z);
  // Each face: outward normal n, and in-plane axes right x up = n, so the corners listed
  // top-left, top-right, bottom-right, bottom-left run clockwise seen from outside.
  struct Face {
    glm::vec3 n, right, up;
  };
  static constexpr Face kFaces[6] = {
      {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}}, {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},
      {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}, {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},  {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
  };
  const glm::vec3 half = size * 0.5f;
  Mesh mesh;
  mesh.name = "box";
  mesh.vertices.reserve(24);
  mesh.indices.reserve(36);
  for (const Face& f : kFaces) {
    const uint32_t base = uint32_t(mesh.vertices.size());
    const glm::vec3 c = f.n * half;
    const glm::vec3 r = f.right * half;
    const glm::vec3 u = f.up * half;
    mesh.vertices.push_back({c - r + u, f.n, {0.0f, 0.0f}});
    mesh.vertices.push_back({c + r + u, f.n, {1.0f, 0.0f}});
    mesh.vertices.push_back({c + r - u, f.n, {1.0f, 1.0f}});
    mesh.vertices.push_back({c - r - u, f.n, {0.0f, 1.0f}});
    // Counter-clockwise from outside: bottom-left, bottom-right, top-right, top-left.
    mesh.indices.insert(mesh.indices.end(), {base + 3, base + 2, base + 1, base + 3, base + 1, base + 0});
  }
  compute_bounds(mesh);
  return mesh;
}

Mesh make_plane(glm::vec2 size, glm::ivec2 cells, float uv_scale) {
  gc::require_positive("plane", "size.x", size.x);
  gc::require_positive("plane", "size.y", size.y);
  gc::require_range("plane", "cells.x", cells.x, 1, kMaxGeneratorResolution);
  gc::require_range("plane", "cells.y", cells.y, 1, kMaxGeneratorResolution);
  gc::require_positive("plane", "uv_scale", uv_scale, 1e4f);
  Mesh mesh;
  mesh.name = "plane";
  mesh.vertices.reserve(size_t(cells.x + 1) * size_t(cells.y + 1));
  for (int j = 0; j <= cells.y; ++j) {
    const float tz = float(j) / float(cells.y);
    for (int i = 0; i <= cells.x; ++i) {
      const float tx = float(i) / float(cells.x);
      mesh.vertices.push_back({glm::vec3((tx - 0.5f) * size.x, 0.0f, (tz - 0.5f) * size.y), glm::vec3(0.0f, 1.0f, 0.0f),
                               glm::vec2(tx, tz) * uv_scale});
    }
  }
  append_grid_triangles(mesh, cells.x, cells.y);  // +Z x +X = +Y
  compute_bounds(mesh);
  return mesh;
}

Mesh make_torus(float major_radius, float minor_radius, int major_segments, int minor_segments) {
  gc::require_positive("torus", "major_radius", major_radius);
  gc::require_positive("torus", "minor_radius", minor_radius);
  gc::require_range("torus", "major_segments", major_segments, 3, kMaxGeneratorResolution);
  gc::require_range("torus", "minor_segments", minor_segments, 3, kMaxGeneratorResolution);
  Mesh mesh;
  mesh.name = "torus";
  mesh.vertices.reserve(size_t(major_segments + 1) * size_t(minor_segments + 1));
  for (int j = 0; j <= minor_segments; ++j) {
    // Modulo so the seam columns repeat the first column's positions exactly.
    const float theta = 2.0f * kPi * float(j % minor_segments) / float(minor_segments);
    const float ct = std::cos(theta), st = std::sin(theta);
    for (int i = 0; i <= major_segments; ++i) {
      const float phi = 2.0f * kPi * float(i % major_segments) / float(major_segments);
      const glm::vec3 radial(std::cos(phi), 0.0f, std::sin(phi));
      const glm::vec3 n = radial * ct + glm::vec3(0.0f, st, 0.0f);
      mesh.vertices.push_back({radial * major_radius + n * minor_radius, n,
                               glm::vec2(float(i) / float(major_segments), float(j) / float(minor_segments))});
    }
  }
  // i runs along the ring (phi), j around the tube (theta): d(theta) x d(phi) points outwards.
  append_grid_triangles(mesh, major_segments, minor_segments);
  compute_bounds(mesh);
  return mesh;
}

}  // namespace tessera
