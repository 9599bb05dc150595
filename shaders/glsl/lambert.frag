// Lambert fragment program for the Vulkan reference renderer: the GLSL twin of
// tessera::shaders::LambertFragmentShader (shaders/lambert.h). Change both together.
//
//   t = textured ? texture(uv) : 1; albedo = base_color * t.rgb; alpha = base_alpha * t.a
//   mask: discard when !(alpha >= cutoff)
//   n = normalize(normal), reversed on the back of a double-sided material
//   e2 = max(dot(eye - world, eye - world), 1e-30); v = (eye - world) * inversesqrt(e2); e = sqrt(e2)
//   radiance = ambient + sum over lights of color * intensity * attenuation * max(dot(n, l), 0)
//     directional: l = -normalize(direction), attenuation = 1
//     point:       d = position - world, l = d * inversesqrt(max(dot(d, d), 1e-30)),
//                  attenuation = 1 / max(dot(d, d), 1e-4)
//   highlight = sum over lights of color * intensity * attenuation * s,
//     s = dot(n, l) > 0 ? pow(max(dot(n, h), 0), shininess) : 0, h = normalize(l + v)
//   c = albedo * radiance + specular * highlight + emissive
//   fog (density > 0): c = fog_color + (c - fog_color) * exp(-density * e)
//   x = exposure * c; tone mapping per channel: clamp x; reinhard x / (1 + x); exponential 1 - exp(-x)
//   out = (c, alpha) (linear; the R8G8B8A8_SRGB attachment clamps and encodes; blended
//   materials' pipelines blend source-over in linear space)
// normalize(v) is v * inversesqrt(max(dot(v, v), 1e-30)), as in the C++ program.
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

// Frame block (set 0, binding 0, std140, 672 bytes), vkref::FrameUniforms.
layout(set = 0, binding = 0, std140) uniform FrameBlock {
  mat4 view_projection;      // byte 0
  vec4 ambient;              // byte 64: rgb linear ambient radiance
  ivec4 light_count;         // byte 80: x = number of valid lights
  Light lights[kMaxLights];  // byte 96
  vec4 eye;                  // byte 608: xyz camera position (world)
  vec4 fog;                  // byte 624: rgb fog colour, a density (0 = no fog)
  vec4 exposure;             // byte 640: x exposure
  uvec4 tone_mapping;        // byte 656: x 0 clamp, 1 reinhard, 2 exponential (tessera::ToneMapping)
} frame;

// Base colour texture (sRGB texels, decoded by the sampler before filtering).
layout(set = 1, binding = 0) uniform sampler2D albedo_texture;

// Per-draw push constants (vkref::InstancePushConstants): the fragment stage reads the
// material from the model's fourth row (bytes 12, 28, 44, 60), the specular colour from the w
// components of the normal matrix columns (bytes 76, 92, 108) and bytes 112..127.
layout(push_constant, std430) uniform InstanceBlock {
  // The model matrix's columns; their w (the fourth row) carries the material: base alpha,
  // alpha cutoff, alpha mode (0 opaque, 1 mask, 2 blend) + 4 when double-sided, and the
  // emissive colour as r + 256 g + 65536 b in 8-bit steps.
  vec4 model[4];
  vec4 normal_matrix[3];  // w: specular r, g, b (linear)
  vec4 base_color;        // rgb: linear base colour; a: shininess, negated when not textured
} instance;

vec3 normalize_eu(vec3 v) { return v * inversesqrt(max(dot(v, v), 1e-30)); }

void main() {
  vec4 t = vec4(1.0);
  if (instance.base_color.a > 0.0) {
    t = texture(albedo_texture, in_uv);
  }
  const vec3 albedo = instance.base_color.rgb * t.rgb;
  const float alpha = instance.model[0].w * t.a;
  const int flags = int(instance.model[2].w);
  const int alpha_mode = flags & 3;
  if (alpha_mode == 1 && !(alpha >= instance.model[1].w)) {
    discard;
  }
  const uint emission_bits = uint(instance.model[3].w);
  const vec3 emissive = vec3(emission_bits & 255u, (emission_bits >> 8) & 255u, emission_bits >> 16) / 255.0;
  const float shininess = abs(instance.base_color.a);
  const vec3 specular = vec3(instance.normal_matrix[0].w, instance.normal_matrix[1].w, instance.normal_matrix[2].w);
  vec3 n = normalize_eu(in_normal);
  if ((flags & 4) != 0 && !gl_FrontFacing) {
    n = -n;
  }
  const bool highlights = specular != vec3(0.0);
  const bool fog = frame.fog.a > 0.0;
  vec3 to_eye = vec3(0.0);
  float eye_distance = 0.0;
  if (highlights || fog) {
    const vec3 e = frame.eye.xyz - in_world;
    const float e2 = max(dot(e, e), 1e-30);
    eye_distance = sqrt(e2);
    to_eye = e * inversesqrt(e2);
  }
  vec3 radiance = frame.ambient.rgb;
  vec3 highlight = vec3(0.0);
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
    const float cosine = dot(n, dir);
    const float scale = frame.lights[i].color.a * attenuation;
    radiance += frame.lights[i].color.rgb * (scale * max(cosine, 0.0));
    if (highlights) {
      const vec3 h = normalize_eu(dir + to_eye);
      const float s = pow(max(dot(n, h), 0.0), shininess);
      highlight += frame.lights[i].color.rgb * (scale * (cosine > 0.0 ? s : 0.0));
    }
  }
  vec3 c = albedo * radiance;
  if (highlights) {
    c += specular * highlight;
  }
  c += emissive;
  if (fog) {
    c = frame.fog.rgb + (c - frame.fog.rgb) * exp(-frame.fog.a * eye_distance);
  }
  c *= frame.exposure.x;
  if (frame.tone_mapping.x == 1u) {
    c = c * (1.0 / (1.0 + c));
  } else if (frame.tone_mapping.x == 2u) {
    c = 1.0 - exp(-c);
  }
  out_color = vec4(c, alpha_mode == 2 ? alpha : 1.0);
}
