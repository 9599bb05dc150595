// The object-space vertex every mesh and patch control point is made of.
#pragma once

#include <glm/glm.hpp>

namespace tessera {

// Object-space vertex as fetched by the vertex stage: 32 bytes.
struct Vertex {
  glm::vec3 position;
  glm::vec3 normal;
  glm::vec2 uv;
};
static_assert(sizeof(Vertex) == 32, "vertex fetch accounting assumes 32-byte vertices");

}  // namespace tessera
