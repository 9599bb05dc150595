#version 450
// Frame capture's tessellation draw: fixed levels, so the captured triangles can be compared
// with Tessera's tessellator for the same levels (equal spacing, tri.tese).
layout(vertices = 3) out;
void main() {
  gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
  if (gl_InvocationID == 0) {
    gl_TessLevelOuter[0] = 2.0;
    gl_TessLevelOuter[1] = 3.0;
    gl_TessLevelOuter[2] = 4.0;
    gl_TessLevelInner[0] = 3.0;
  }
}
