// Patch control points for the Vulkan reference renderer's tessellation pipeline: passed
// through in object space; the hull (patch.tesc) and domain (patch.tese) programs, twins of
// shaders/patch_programs.h, do the rest.
#version 450

// Vertex layout = tessera::Vertex (32 bytes): position @0, normal @12, uv @24.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

layout(location = 0) out vec3 out_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;

void main() {
  out_position = in_position;
  out_normal = in_normal;
  out_uv = in_uv;
}
