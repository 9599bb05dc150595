#version 450
// Tessellation with every level (outer and inner) set by specialization constant 0, so one
// shader gives pipelines of known factors for the GPP-model test (layer_units_app gpp).
layout(vertices = 3) out;
layout(constant_id = 0) const float kLevel = 1.0;
void main() {
  gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
  if (gl_InvocationID == 0) {
    gl_TessLevelOuter[0] = kLevel;
    gl_TessLevelOuter[1] = kLevel;
    gl_TessLevelOuter[2] = kLevel;
    gl_TessLevelInner[0] = kLevel;
  }
}
