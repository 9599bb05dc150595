// Lambert shading: the default program pair of the raster path.
//
// The GLSL twins (glsl/lambert.vert, glsl/lambert.frag) implement the same formulas for the
// Vulkan reference renderer; change both together.
//
// Vertex: world = model * position; normal = normal_matrix * normal; clip = view_proj * world.
// Varyings (8 floats): world.xyz, normal.xyz, uv.xy.
// Fragment (linear RGB):
//   n = normalize(normal); albedo = base_color * (texture ? texture(uv).rgb : 1)
//   radiance = ambient + sum over lights of color * intensity * attenuation * max(dot(n, l), 0)
//     directional: l = -normalize(direction), attenuation = 1
//     point:       d = position - world, l = d / |d|, attenuation = 1 / max(dot(d, d), 1e-4)
//   out = albedo * radiance   (the frame buffer clamps to [0,1] and encodes sRGB)
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "tessera/sampler.h"
#include "tessera/scene.h"

namespace tessera::shaders {

struct LambertVertexShader {
  static constexpr int kVaryings = 8;
  // Length L of the program for the tiler's PIC, in FMA-datapath instructions: two 4x4
  // matrix-vector products (16 each: 4 multiplies + 12 fused adds) and one 3x3 (9). Declared
  // here until the execution unit counts the shaders it runs.
  static constexpr int kInstructionCount = 41;

  struct Uniforms {
    glm::mat4 model{1.0f};
    glm::mat3 normal_matrix{1.0f};  // inverse transpose of model's upper 3x3
    glm::mat4 view_projection{1.0f};
  };

  static void run(const Uniforms& u, const Vertex& in, glm::vec4& clip, float* varyings) {
    const glm::vec4 world = u.model * glm::vec4(in.position, 1.0f);
    const glm::vec3 normal = u.normal_matrix * in.normal;
    clip = u.view_projection * world;
    varyings[0] = world.x;
    varyings[1] = world.y;
    varyings[2] = world.z;
    varyings[3] = normal.x;
    varyings[4] = normal.y;
    varyings[5] = normal.z;
    varyings[6] = in.uv.x;
    varyings[7] = in.uv.y;
  }
};

// Lights and ambient of a frame, shared by every draw's fragment uniforms.
struct LambertLighting {
  glm::vec3 ambient{0.0f};
  int light_count = 0;
  Light lights[kMaxLights];
  // Per light: -normalize(direction) for directional lights. Derived once per frame by
  // prepare() instead of per pixel; the value is the formula's l.
  glm::vec3 to_light[kMaxLights];

  void prepare() {
    for (int l = 0; l < light_count; ++l) {
      to_light[l] = lights[l].type == LightType::directional ? -glm::normalize(lights[l].direction) : glm::vec3(0.0f);
    }
  }
};

struct LambertFragmentShader {
  struct Uniforms {
    glm::vec3 base_color{0.8f};
    const Texture* texture = nullptr;
    const LambertLighting* lighting = nullptr;  // the frame's, shared by all draws
  };

  // Shades the four pixels of a 2x2 quad (order: (0,0), (1,0), (0,1), (1,1)). All four carry
  // interpolated varyings, covered or not (helper pixels), because the level of detail comes
  // from coarse derivatives across the quad. `live` marks pixels whose result is used.
  static void run_quad(const Uniforms& u, const float (*varyings)[LambertVertexShader::kVaryings],
                       unsigned live, glm::vec3* out, SamplerCounters& counters) {
    float lod = 0.0f;
    if (u.texture) {
      const glm::vec2 uv0(varyings[0][6], varyings[0][7]);
      const glm::vec2 duv_dx = glm::vec2(varyings[1][6], varyings[1][7]) - uv0;
      const glm::vec2 duv_dy = glm::vec2(varyings[2][6], varyings[2][7]) - uv0;
      lod = texture_lod(*u.texture, duv_dx, duv_dy);
    }
    for (int i = 0; i < 4; ++i) {
      if (!(live & (1u << i))) continue;
      const float* v = varyings[i];
      glm::vec3 albedo = u.base_color;
      if (u.texture) {
        const glm::vec4 t = sample_trilinear(*u.texture, glm::vec2(v[6], v[7]), lod, counters);
        albedo *= glm::vec3(t);
      }
      const glm::vec3 world(v[0], v[1], v[2]);
      glm::vec3 n(v[3], v[4], v[5]);
      const float len2 = glm::dot(n, n);
      n = len2 > 0.0f ? n * (1.0f / std::sqrt(len2)) : n;
      const LambertLighting& lit = *u.lighting;
      glm::vec3 radiance = lit.ambient;
      for (int l = 0; l < lit.light_count; ++l) {
        const Light& light = lit.lights[l];
        glm::vec3 dir;
        float attenuation = 1.0f;
        if (light.type == LightType::directional) {
          dir = lit.to_light[l];
        } else {
          const glm::vec3 d = light.position - world;
          const float dist2 = glm::dot(d, d);
          dir = d * (1.0f / std::sqrt(std::max(dist2, 1e-30f)));
          attenuation = 1.0f / std::max(dist2, 1e-4f);
        }
        const float ndotl = std::max(glm::dot(n, dir), 0.0f);
        radiance += light.color * (light.intensity * attenuation * ndotl);
      }
      out[i] = albedo * radiance;
    }
  }
};

}  // namespace tessera::shaders
