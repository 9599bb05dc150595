#version 450
// Writes the tessellation levels from push constants, laid out exactly as tessera::TessFactors
// (outer[4] at offset 0, inner[2] at offset 16): every level is passed through bit for bit,
// NaN and infinities included.
layout(vertices = 1) out;
layout(push_constant) uniform Levels {
  vec4 outer_level;
  vec2 inner_level;
} levels;

void main() {
  gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
  gl_TessLevelOuter[0] = levels.outer_level.x;
  gl_TessLevelOuter[1] = levels.outer_level.y;
  gl_TessLevelOuter[2] = levels.outer_level.z;
  gl_TessLevelOuter[3] = levels.outer_level.w;
  gl_TessLevelInner[0] = levels.inner_level.x;
  gl_TessLevelInner[1] = levels.inner_level.y;
}
