#version 450
// Frame capture: a stream-0 geometry shader (two triangles out per triangle in), patched like
// any last pre-rasterization stage.
layout(triangles) in;
layout(triangle_strip, max_vertices = 6) out;
void main() {
  for (int copy = 0; copy < 2; ++copy) {
    for (int i = 0; i < 3; ++i) {
      gl_Position = gl_in[i].gl_Position + vec4(0.1 * copy, 0.0, 0.0, 0.0);
      EmitVertex();
    }
    EndPrimitive();
  }
}
