#version 450
// Frame capture: a vertex shader that already writes transform feedback (the patcher leaves it
// alone and says why).
layout(location = 0, xfb_buffer = 0, xfb_stride = 16, xfb_offset = 0) out vec4 captured;
void main() {
  captured = vec4(float(gl_VertexIndex), 0.0, 0.0, 1.0);
  gl_Position = captured;
}
