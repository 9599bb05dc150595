// The vertex program's lane batches (LambertVertexShader::run_lanes, what the vertex stage runs)
// against the one-vertex program: every output bit and every EU count the same, for batches of
// 1 to 16 lanes, with zero, tiny, huge and non-finite normals among ordinary ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "geometry/clipper.h"
#include "shaders/lambert.h"

namespace tessera {
namespace {

using shaders::LambertVertexShader;

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(VertexStageLanes, BitIdenticalToOneVertexProgramWithSameCounts) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> coord(-50.0f, 50.0f);
  LambertVertexShader::Uniforms u;
  u.model = glm::rotate(glm::translate(glm::mat4(1.0f), {1.5f, -2.0f, 3.25f}), 0.7f, glm::vec3(0.3f, 1.0f, -0.2f));
  u.normal_matrix = glm::transpose(glm::inverse(glm::mat3(u.model)));
  u.view_projection = glm::perspective(0.9f, 1.7f, 0.1f, 100.0f) *
                      glm::lookAt(glm::vec3(4.0f, 5.0f, 20.0f), glm::vec3(0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
  std::vector<Vertex> vertices(64);
  for (Vertex& v : vertices) {
    v.position = {coord(rng), coord(rng), coord(rng)};
    v.normal = {coord(rng), coord(rng), coord(rng)};
    v.uv = {coord(rng), coord(rng)};
  }
  // Normals whose rsqrt leaves the vector fast path: zero, subnormal squares, overflow, NaN, inf.
  const float inf = std::numeric_limits<float>::infinity();
  vertices[3].normal = glm::vec3(0.0f);
  vertices[7].normal = glm::vec3(1e-25f, 0.0f, 0.0f);
  vertices[11].normal = glm::vec3(3e19f, 0.0f, 0.0f);
  vertices[12].normal = glm::vec3(std::nanf(""), 1.0f, 0.0f);
  vertices[20].normal = glm::vec3(inf, 0.0f, 0.0f);
  for (int n = 1; n <= 16; ++n) {
    for (size_t first = 0; first + size_t(n) <= vertices.size(); first += 13) {
      ClipVertex lanes[16];
      EuShaderMath lane_math;
      LambertVertexShader::run_lanes(u, &vertices[first], n, lanes, lane_math);
      EuShaderMath one_math;
      for (int i = 0; i < n; ++i) {
        ClipVertex one;
        LambertVertexShader::run(u, vertices[first + size_t(i)], one.clip, one.varyings, one_math);
        for (int k = 0; k < 4; ++k) {
          EXPECT_EQ(bits(lanes[i].clip[k]), bits(one.clip[k])) << "n " << n << " vertex " << first + size_t(i);
        }
        for (int k = 0; k < LambertVertexShader::kVaryings; ++k) {
          EXPECT_EQ(bits(lanes[i].varyings[k]), bits(one.varyings[k]))
              << "n " << n << " vertex " << first + size_t(i) << " varying " << k;
        }
      }
      EXPECT_EQ(lane_math.calls(EuMathFunction::rsqrt), one_math.calls(EuMathFunction::rsqrt));
      EXPECT_EQ(lane_math.total_calls(), one_math.total_calls());
      EXPECT_EQ(lane_math.alu_fma(), one_math.alu_fma());
      EXPECT_EQ(lane_math.alu_mul(), one_math.alu_mul());
      EXPECT_EQ(lane_math.alu_add(), one_math.alu_add());
      EXPECT_EQ(lane_math.instructions(), one_math.instructions());
    }
  }
}

}  // namespace
}  // namespace tessera
