// Lambert vertex program for the Vulkan reference renderer: the GLSL twin of
// tessera::shaders::LambertVertexShader (shaders/lambert.h). Change both together.
//
// world = model * position; normal = normalize(normal_matrix * normal);
// clip = view_projection * world. normalize(v) is v * inversesqrt(max(dot(v, v), 1e-30)).
// Varyings: world.xyz (location 0), normal.xyz (location 1), uv.xy (location 2).
#version 450

// Vertex layout = tessera::Vertex (32 bytes): position @0, normal @12, uv @24.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

layout(location = 0) out vec3 out_world;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;

// Frame block (set 0, binding 0, std140). Only its first member is read here; the full
// layout is declared in lambert.frag and mirrored by vkref::FrameUniforms.
layout(set = 0, binding = 0, std140) uniform FrameBlock {
  mat4 view_projection;  // byte 0
} frame;

// Per-draw push constants (128 bytes, vkref::InstancePushConstants); the vertex stage reads
// bytes 0..111, the fragment stage bytes 112..127.
layout(push_constant, std430) uniform InstanceBlock {
  mat4 model;               // byte 0: object to world (affine; the fourth row carries the
                            // fragment stage's material, so it is not read here)
  vec4 normal_matrix[3];    // byte 64: columns of transpose(inverse(mat3(model))), xyz used
                            // (w: the fragment stage's specular colour)
} instance;

void main() {
  const vec4 world = vec4((instance.model * vec4(in_position, 1.0)).xyz, 1.0);
  const mat3 normal_matrix = mat3(instance.normal_matrix[0].xyz, instance.normal_matrix[1].xyz,
                                  instance.normal_matrix[2].xyz);
  out_world = world.xyz;
  const vec3 normal = normal_matrix * in_normal;
  out_normal = normal * inversesqrt(max(dot(normal, normal), 1e-30));
  out_uv = in_uv;
  gl_Position = frame.view_projection * world;
}
