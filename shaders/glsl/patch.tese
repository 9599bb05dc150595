// Domain program for the Vulkan reference renderer's patch path: the GLSL twin of
// tessera::shaders::PatchDomainShader (shaders/patch_programs.h) followed by the Lambert vertex
// transform (lambert.vert), feeding lambert.frag. Change them together.
//
// Once per domain point, in object space:
//   Bezier: P = sum_i Bu_i (sum_j Bv_j P_ij) with cubic Bernstein weights; N = normalize(dP/du x
//     dP/dv); uv bilinear in the corner uvs (control points 0, 3, 12, 15).
//   PN triangles (Vlachos et al. 2001): cubic Bezier triangle from the positions and normals,
//     quadratic normal; uv barycentric.
//   displaced quads: P = bilinear corners, raised by the height field at (x, z)
//     (Heightfield::sample: the same clamping and bilinear arithmetic); N = the field's
//     bilinear normal, normalised; uv bilinear.
// Then world = model * P; normal = normalize(normal_matrix * N); clip = view_projection * world.
// normalize(v) is v * (1 / sqrt(max(dot(v, v), 1e-30))), as in the C++ programs.
//
// Domain and spacing: vkref compiles this module once and rewrites its two execution modes
// (Quads/Triangles, SpacingEqual/FractionalOdd/FractionalEven) per pipeline, because SPIR-V
// execution modes cannot be specialisation constants. Vertex order: Tessera emits triangles
// counter-clockwise in (u, v) with v up; Vulkan's domain origin is upper-left (v down), where
// the same triangles are clockwise, hence `cw`.
#version 450

layout(quads, equal_spacing, cw) in;

layout(location = 0) in vec3 in_position[];
layout(location = 1) in vec3 in_normal[];
layout(location = 2) in vec2 in_uv[];

layout(location = 0) out vec3 out_world;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;

// Frame block (set 0, binding 0, std140); only its first member is read here.
layout(set = 0, binding = 0, std140) uniform FrameBlock {
  mat4 view_projection;  // byte 0
} frame;

// Per-draw block of a patch instance (set 2, binding 0), as declared in patch.tesc.
layout(set = 2, binding = 0, std140) uniform PatchDrawBlock {
  mat4 model;              // byte 0: object to world
  vec4 normal_matrix[3];   // byte 64: columns of transpose(inverse(mat3(model))), xyz
  vec4 eye;                // byte 112
  vec4 viewport;           // byte 128
  vec4 levels;             // byte 144
  vec4 field;              // byte 160: x, y world (x, z) of sample (0, 0); z extent; w height span
  uvec4 mode;              // byte 176: x TessFactorMode, y cull, z PatchKind, w field resolution (0: none)
} draw;

// Height field (set 2, binding 1): resolution^2 heights, then resolution^2 normals (3 floats).
layout(set = 2, binding = 1, std430) readonly buffer HeightfieldBlock {
  float samples[];
} heightfield;

const uint kBezier = 0u, kPnTriangle = 1u, kDisplaced = 2u;  // tessera::PatchKind

vec3 normalize_eu(vec3 v) { return v * inversesqrt(max(dot(v, v), 1e-30)); }

// Heightfield::sample (renderer/scene/patches.cpp): bilinear height and unnormalised normal.
void field_sample(float x, float z, out float height, out vec3 normal) {
  const int resolution = int(draw.mode.w);
  const float last = float(resolution - 1);
  const float sx = clamp((x - draw.field.x) / draw.field.z * last, 0.0, last);
  const float sz = clamp((z - draw.field.y) / draw.field.z * last, 0.0, last);
  const int i0 = min(int(sx), resolution - 2);
  const int j0 = min(int(sz), resolution - 2);
  const float fx = sx - float(i0), fz = sz - float(j0);
  const int a = j0 * resolution + i0, b = a + 1, c = a + resolution, d = c + 1;
  const float w00 = (1.0 - fx) * (1.0 - fz), w10 = fx * (1.0 - fz), w01 = (1.0 - fx) * fz, w11 = fx * fz;
  height = ((w00 * heightfield.samples[a] + w10 * heightfield.samples[b]) + w01 * heightfield.samples[c]) +
           w11 * heightfield.samples[d];
  const int n = resolution * resolution;
  vec3 na = vec3(heightfield.samples[n + 3 * a], heightfield.samples[n + 3 * a + 1], heightfield.samples[n + 3 * a + 2]);
  vec3 nb = vec3(heightfield.samples[n + 3 * b], heightfield.samples[n + 3 * b + 1], heightfield.samples[n + 3 * b + 2]);
  vec3 nc = vec3(heightfield.samples[n + 3 * c], heightfield.samples[n + 3 * c + 1], heightfield.samples[n + 3 * c + 2]);
  vec3 nd = vec3(heightfield.samples[n + 3 * d], heightfield.samples[n + 3 * d + 1], heightfield.samples[n + 3 * d + 2]);
  normal = ((w00 * na + w10 * nb) + w01 * nc) + w11 * nd;
}

void bernstein(float t, out float b[4], out float d[4]) {
  const float s = 1.0 - t;
  b[0] = s * s * s;
  b[1] = 3.0 * t * s * s;
  b[2] = 3.0 * t * t * s;
  b[3] = t * t * t;
  d[0] = -3.0 * s * s;
  d[1] = 3.0 * s * s - 6.0 * t * s;
  d[2] = 6.0 * t * s - 3.0 * t * t;
  d[3] = 3.0 * t * t;
}

vec2 bilinear2(vec2 c00, vec2 c10, vec2 c01, vec2 c11, float u, float v) {
  return (1.0 - u) * ((1.0 - v) * c00 + v * c01) + u * ((1.0 - v) * c10 + v * c11);
}
vec3 bilinear3(vec3 c00, vec3 c10, vec3 c01, vec3 c11, float u, float v) {
  return (1.0 - u) * ((1.0 - v) * c00 + v * c01) + u * ((1.0 - v) * c10 + v * c11);
}

void bezier(float u, float v, out vec3 position, out vec3 normal, out vec2 uv) {
  float bu[4], du[4], bv[4], dv[4];
  bernstein(u, bu, du);
  bernstein(v, bv, dv);
  vec3 p = vec3(0.0), pu = vec3(0.0), pv = vec3(0.0);
  for (int i = 0; i < 4; ++i) {
    // Column i: its curve in v, then weighted by u (edges evaluate identically on both sides).
    vec3 col = vec3(0.0), col_v = vec3(0.0);
    for (int j = 0; j < 4; ++j) {
      col += bv[j] * in_position[i + 4 * j];
      col_v += dv[j] * in_position[i + 4 * j];
    }
    p += bu[i] * col;
    pu += du[i] * col;
    pv += bu[i] * col_v;
  }
  position = p;
  normal = normalize_eu(cross(pu, pv));
  uv = bilinear2(in_uv[0], in_uv[3], in_uv[12], in_uv[15], u, v);
}

vec3 pn_edge(vec3 pi, vec3 pj, vec3 ni) { return (2.0 * pi + pj - dot(pj - pi, ni) * ni) * (1.0 / 3.0); }

vec3 pn_mid_normal(vec3 pi, vec3 pj, vec3 ni, vec3 nj) {
  const vec3 d = pj - pi;
  const float vij = (2.0 * dot(d, ni + nj)) / max(dot(d, d), 1e-30);
  return normalize_eu(ni + nj - vij * d);
}

void pn_triangle(vec3 t, out vec3 position, out vec3 normal, out vec2 uv) {
  const vec3 p1 = in_position[0], p2 = in_position[1], p3 = in_position[2];
  const vec3 n1 = in_normal[0], n2 = in_normal[1], n3 = in_normal[2];
  // Edge control points: b_ij = (2 p_i + p_j - w_ij n_i) / 3, w_ij = (p_j - p_i).n_i.
  const vec3 b210 = pn_edge(p1, p2, n1), b120 = pn_edge(p2, p1, n2);
  const vec3 b021 = pn_edge(p2, p3, n2), b012 = pn_edge(p3, p2, n3);
  const vec3 b102 = pn_edge(p3, p1, n3), b201 = pn_edge(p1, p3, n1);
  const vec3 e = (b210 + b120 + b021 + b012 + b102 + b201) * (1.0 / 6.0);
  const vec3 vc = (p1 + p2 + p3) * (1.0 / 3.0);
  const vec3 b111 = e + (e - vc) * 0.5;
  const float u = t.x, v = t.y, w = t.z;
  const float uu = u * u, vv = v * v, ww = w * w;
  position = p1 * (uu * u) + p2 * (vv * v) + p3 * (ww * w) + b210 * (3.0 * uu * v) + b120 * (3.0 * u * vv) +
             b201 * (3.0 * uu * w) + b021 * (3.0 * vv * w) + b102 * (3.0 * u * ww) + b012 * (3.0 * v * ww) +
             b111 * (6.0 * u * v * w);
  // Quadratic normal: n_ij = normalize(n_i + n_j - v_ij (p_j - p_i)),
  // v_ij = 2 (p_j - p_i).(n_i + n_j) / |p_j - p_i|^2.
  const vec3 n110 = pn_mid_normal(p1, p2, n1, n2), n011 = pn_mid_normal(p2, p3, n2, n3),
             n101 = pn_mid_normal(p3, p1, n3, n1);
  const vec3 n = n1 * uu + n2 * vv + n3 * ww + n110 * (u * v) + n011 * (v * w) + n101 * (w * u);
  normal = normalize_eu(n);
  uv = in_uv[0] * u + in_uv[1] * v + in_uv[2] * w;
}

void displaced(float u, float v, out vec3 position, out vec3 normal, out vec2 uv) {
  position = bilinear3(in_position[0], in_position[1], in_position[2], in_position[3], u, v);
  uv = bilinear2(in_uv[0], in_uv[1], in_uv[2], in_uv[3], u, v);
  vec3 n = vec3(0.0, 1.0, 0.0);
  if (draw.mode.w != 0u) {
    float h;
    field_sample(position.x, position.z, h, n);
    position.y += h;
  }
  normal = normalize_eu(n);
}

void main() {
  vec3 position, normal;
  vec2 uv;
  const uint kind = draw.mode.z;
  if (kind == kBezier) {
    bezier(gl_TessCoord.x, gl_TessCoord.y, position, normal, uv);
  } else if (kind == kPnTriangle) {
    pn_triangle(gl_TessCoord, position, normal, uv);
  } else {
    displaced(gl_TessCoord.x, gl_TessCoord.y, position, normal, uv);
  }
  // lambert.vert: world, normalize(normal_matrix * normal), uv.
  const vec4 world = draw.model * vec4(position, 1.0);
  const mat3 normal_matrix = mat3(draw.normal_matrix[0].xyz, draw.normal_matrix[1].xyz, draw.normal_matrix[2].xyz);
  out_world = world.xyz;
  out_normal = normalize_eu(normal_matrix * normal);
  out_uv = uv;
  gl_Position = frame.view_projection * world;
}
