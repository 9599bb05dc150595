#version 450
// Frame capture: a geometry shader emitting to stream 1 (not captured: only stream 0 is
// rasterized, and the patcher cannot tell which stream the application wants).
layout(points) in;
layout(points, max_vertices = 2) out;
layout(stream = 1, location = 0) out vec4 side;
void main() {
  gl_Position = gl_in[0].gl_Position;
  EmitStreamVertex(0);
  side = gl_in[0].gl_Position;
  EmitStreamVertex(1);
}
