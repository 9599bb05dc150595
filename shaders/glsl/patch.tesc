// Hull program for the Vulkan reference renderer's patch path: the GLSL twin of
// tessera::shaders::PatchHullShader (shaders/patch_programs.h). Change both together.
//
// Once per patch (invocation 0 writes the levels), in world space (model x control point):
//   corners: Bezier control points 0, 3, 12, 15; displaced quads their 4 control points, each
//     raised by the height field at its (x, z); PN triangles points 0, 1, 2.
//   outer levels in Vulkan edge order: quads u=0 (c00-c01), v=0 (c00-c10), u=1 (c10-c11),
//     v=1 (c01-c11); triangles u=0 (p1-p2), v=0 (p2-p0), w=0 (p0-p1).
//   edge level: constant: level; distance: level * reference_distance / |eye - (a + b) * 0.5|;
//     edge_length: |pixel(a) - pixel(b)| / edge_pixels (level when an end is behind the eye);
//     clamped to [1, level] (NaN -> 1).
//   inner: quads max(outer 1, outer 3), max(outer 0, outer 2); triangles max(outer 0..2).
//   cull (when enabled): the world box of the control points (PN padded by a quarter of the
//     longest edge, displaced quads by the field's height span) outside one clip plane ->
//     outer 0 = 0, which makes the tessellator discard the patch.
// Every invocation copies one control point (object space) to the domain program; the output
// patch always has 16 points, of which Bezier patches use 16, displaced quads 4, PN triangles 3.
// `precise` keeps the level arithmetic unfused, as the C++ program (-ffp-contract=off), so the
// levels and thus the tessellation counts agree.
#version 450

layout(vertices = 16) out;

layout(location = 0) in vec3 in_position[];
layout(location = 1) in vec3 in_normal[];
layout(location = 2) in vec2 in_uv[];

layout(location = 0) out vec3 out_position[];
layout(location = 1) out vec3 out_normal[];
layout(location = 2) out vec2 out_uv[];

// Frame block (set 0, binding 0, std140); only its first member is read here (lambert.frag
// declares all of it, vkref::FrameUniforms mirrors it).
layout(set = 0, binding = 0, std140) uniform FrameBlock {
  mat4 view_projection;  // byte 0
} frame;

// Per-draw block of a patch instance (set 2, binding 0, dynamic offset), 192 bytes,
// vkref::PatchDrawUniforms.
layout(set = 2, binding = 0, std140) uniform PatchDrawBlock {
  mat4 model;              // byte 0: object to world
  vec4 normal_matrix[3];   // byte 64: columns of transpose(inverse(mat3(model))), xyz
  vec4 eye;                // byte 112: xyz camera position (world)
  vec4 viewport;           // byte 128: xy frame size in pixels
  vec4 levels;             // byte 144: x level, y reference_distance, z edge_pixels
  vec4 field;              // byte 160: x, y world (x, z) of sample (0, 0); z extent; w height span
  uvec4 mode;              // byte 176: x TessFactorMode, y cull, z PatchKind, w field resolution (0: none)
} draw;

// Height field of a displaced-quad mesh (set 2, binding 1): resolution^2 heights (row-major in
// z, then x), then resolution^2 normals as 3 floats each.
layout(set = 2, binding = 1, std430) readonly buffer HeightfieldBlock {
  float samples[];
} heightfield;

const uint kBezier = 0u, kPnTriangle = 1u, kDisplaced = 2u;  // tessera::PatchKind
const uint kConstant = 0u, kDistance = 1u, kEdgeLength = 2u;  // tessera::TessFactorMode

// Heightfield::sample (renderer/scene/patches.cpp), height only: the same arithmetic.
float field_height(float x, float z) {
  const int resolution = int(draw.mode.w);
  precise float last = float(resolution - 1);
  precise float sx = clamp((x - draw.field.x) / draw.field.z * last, 0.0, last);
  precise float sz = clamp((z - draw.field.y) / draw.field.z * last, 0.0, last);
  const int i0 = min(int(sx), resolution - 2);
  const int j0 = min(int(sz), resolution - 2);
  precise float fx = sx - float(i0);
  precise float fz = sz - float(j0);
  const int a = j0 * resolution + i0, b = a + 1, c = a + resolution, d = c + 1;
  precise float w00 = (1.0 - fx) * (1.0 - fz);
  precise float w10 = fx * (1.0 - fz);
  precise float w01 = (1.0 - fx) * fz;
  precise float w11 = fx * fz;
  precise float h = ((w00 * heightfield.samples[a] + w10 * heightfield.samples[b]) + w01 * heightfield.samples[c]) +
                    w11 * heightfield.samples[d];
  return h;
}

float edge_level(vec3 a, vec3 b) {
  const float max_level = draw.levels.x;
  precise float level = max_level;
  if (draw.mode.x == kDistance) {
    precise vec3 m = (a + b) * 0.5;
    precise vec3 d = draw.eye.xyz - m;
    precise float dist = sqrt(max(dot(d, d), 1e-30));
    level = (max_level * draw.levels.y) / dist;
  } else if (draw.mode.x == kEdgeLength) {
    precise vec4 pa = frame.view_projection * vec4(a, 1.0);
    precise vec4 pb = frame.view_projection * vec4(b, 1.0);
    if (pa.w > 1e-6 && pb.w > 1e-6) {
      precise vec2 half_viewport = 0.5 * draw.viewport.xy;
      precise vec2 sa = vec2(pa.x * (1.0 / pa.w), pa.y * (1.0 / pa.w)) * half_viewport;
      precise vec2 sb = vec2(pb.x * (1.0 / pb.w), pb.y * (1.0 / pb.w)) * half_viewport;
      precise vec2 d = sa - sb;
      level = sqrt(max(dot(d, d), 1e-30)) / draw.levels.z;
    }
  }
  return level >= 1.0 ? min(level, max_level) : 1.0;
}

bool outside_frustum(const vec3 c[4], int corners) {
  const uint kind = draw.mode.z;
  vec3 lo = vec3(1.0 / 0.0), hi = vec3(-1.0 / 0.0);
  if (kind == kBezier) {
    for (int k = 0; k < 16; ++k) {
      precise vec3 p = vec3(draw.model * vec4(in_position[k], 1.0));
      lo = min(lo, p);
      hi = max(hi, p);
    }
  } else {
    for (int k = 0; k < corners; ++k) {
      lo = min(lo, c[k]);
      hi = max(hi, c[k]);
    }
  }
  if (kind == kPnTriangle) {
    precise float e = max(max(length(c[1] - c[0]), length(c[2] - c[1])), length(c[0] - c[2]));
    precise float pad = 0.25 * e;
    lo -= vec3(pad);
    hi += vec3(pad);
  } else if (kind == kDisplaced) {
    lo -= vec3(draw.field.w);
    hi += vec3(draw.field.w);
  }
  int outside[6] = int[6](0, 0, 0, 0, 0, 0);
  for (int k = 0; k < 8; ++k) {
    const vec3 p = vec3((k & 1) != 0 ? hi.x : lo.x, (k & 2) != 0 ? hi.y : lo.y, (k & 4) != 0 ? hi.z : lo.z);
    precise vec4 q = frame.view_projection * vec4(p, 1.0);
    outside[0] += q.x < -q.w ? 1 : 0;
    outside[1] += q.x > q.w ? 1 : 0;
    outside[2] += q.y < -q.w ? 1 : 0;
    outside[3] += q.y > q.w ? 1 : 0;
    outside[4] += q.z < 0.0 ? 1 : 0;
    outside[5] += q.z > q.w ? 1 : 0;
  }
  for (int plane = 0; plane < 6; ++plane) {
    if (outside[plane] == 8) return true;
  }
  return false;
}

void main() {
  const int source = min(gl_InvocationID, gl_PatchVerticesIn - 1);
  out_position[gl_InvocationID] = in_position[source];
  out_normal[gl_InvocationID] = in_normal[source];
  out_uv[gl_InvocationID] = in_uv[source];
  if (gl_InvocationID != 0) return;

  const uint kind = draw.mode.z;
  const bool tri = kind == kPnTriangle;
  const int corners = tri ? 3 : 4;
  const int corner_index[4] = kind == kBezier ? int[4](0, 3, 12, 15) : int[4](0, 1, 2, 3);
  vec3 c[4];
  for (int k = 0; k < 4; ++k) {
    precise vec3 p = k < corners ? in_position[corner_index[k]] : vec3(0.0);
    if (kind == kDisplaced && draw.mode.w != 0u) p.y += field_height(p.x, p.z);
    precise vec3 world = vec3(draw.model * vec4(p, 1.0));
    c[k] = world;
  }
  if (draw.mode.y != 0u && outside_frustum(c, corners)) {
    gl_TessLevelOuter[0] = 0.0;
    gl_TessLevelOuter[1] = 0.0;
    gl_TessLevelOuter[2] = 0.0;
    gl_TessLevelOuter[3] = 0.0;
    gl_TessLevelInner[0] = 0.0;
    gl_TessLevelInner[1] = 0.0;
    return;
  }
  if (tri) {
    const float o0 = edge_level(c[1], c[2]);
    const float o1 = edge_level(c[2], c[0]);
    const float o2 = edge_level(c[0], c[1]);
    gl_TessLevelOuter[0] = o0;
    gl_TessLevelOuter[1] = o1;
    gl_TessLevelOuter[2] = o2;
    gl_TessLevelOuter[3] = 0.0;  // unused by triangles
    gl_TessLevelInner[0] = max(max(o0, o1), o2);
    gl_TessLevelInner[1] = 0.0;
  } else {
    const float o0 = edge_level(c[0], c[2]);
    const float o1 = edge_level(c[0], c[1]);
    const float o2 = edge_level(c[1], c[3]);
    const float o3 = edge_level(c[2], c[3]);
    gl_TessLevelOuter[0] = o0;
    gl_TessLevelOuter[1] = o1;
    gl_TessLevelOuter[2] = o2;
    gl_TessLevelOuter[3] = o3;
    gl_TessLevelInner[0] = max(o1, o3);
    gl_TessLevelInner[1] = max(o0, o2);
  }
}
