// Lambert fragment program for the Vulkan reference renderer: the GLSL twin of
// tessera::shaders::LambertFragmentShader (shaders/lambert.h). Change both together.
//
//   n = normalize(normal); albedo = base_color * (textured ? texture(uv).rgb : 1)
//   radiance = ambient + sum over lights of color * intensity * attenuation * max(dot(n, l), 0)
//     directional: l = -normalize(direction), attenuation = 1
//     point:       d = position - world, l = d * inversesqrt(max(dot(d, d), 1e-30)),
//                  attenuation = 1 / max(dot(d, d), 1e-4)
//   out = albedo * radiance (linear; the R8G8B8A8_SRGB attachment clamps and encodes)
#version 450

layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

layout(location = 0) out vec4 out_color;

const int kMaxLights = 8;  // tessera::kMaxLights

// 64 bytes, vkref::GpuLight.
struct Light {
  vec4 direction;  // xyz: direction the light travels (directional)
  vec4 position;   // xyz: world position (point)
  vec4 color;      // rgb: linear colour, a: intensity
  uvec4 type;      // x: 0 directional, 1 point (tessera::LightType)
};

// Frame block (set 0, binding 0, std140, 608 bytes), vkref::FrameUniforms.
layout(set = 0, binding = 0, std140) uniform FrameBlock {
  mat4 view_projection;      // byte 0
  vec4 ambient;              // byte 64: rgb linear ambient radiance
  ivec4 light_count;         // byte 80: x = number of valid lights
  Light lights[kMaxLights];  // byte 96
} frame;

// Base colour texture (sRGB texels, decoded by the sampler before filtering).
layout(set = 1, binding = 0) uniform sampler2D albedo_texture;

// Per-draw push constants: the fragment stage reads bytes 112..127.
layout(push_constant, std430) uniform InstanceBlock {
  layout(offset = 112) vec4 base_color;  // rgb: linear base colour, a: 1 when textured
} instance;

void main() {
  vec3 albedo = instance.base_color.rgb;
  if (instance.base_color.a != 0.0) {
    albedo *= texture(albedo_texture, in_uv).rgb;
  }
  vec3 n = in_normal;
  const float len2 = dot(n, n);
  if (len2 > 0.0) {
    n = n * inversesqrt(len2);
  }
  vec3 radiance = frame.ambient.rgb;
  for (int i = 0; i < frame.light_count.x; ++i) {
    vec3 dir;
    float attenuation = 1.0;
    if (frame.lights[i].type.x == 0u) {
      dir = -normalize(frame.lights[i].direction.xyz);
    } else {
      const vec3 d = frame.lights[i].position.xyz - in_world;
      const float dist2 = dot(d, d);
      dir = d * inversesqrt(max(dist2, 1e-30));
      attenuation = 1.0 / max(dist2, 1e-4);
    }
    const float ndotl = max(dot(n, dir), 0.0);
    radiance += frame.lights[i].color.rgb * (frame.lights[i].color.a * attenuation * ndotl);
  }
  out_color = vec4(albedo * radiance, 1.0);
}
