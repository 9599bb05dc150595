#version 450
// Frame capture: a vertex shader with a function call, early returns and its own use of
// gl_VertexIndex, and an output at location 0 the patcher's index output must not collide with.
layout(location = 0) out vec3 colour;
vec4 place(int i) { return vec4(float(i % 3) * 0.5 - 0.5, float(i / 3) * 0.5 - 0.5, 0.0, 1.0); }
void main() {
  colour = vec3(1.0);
  gl_Position = place(gl_VertexIndex);
  if (gl_InstanceIndex > 7) {
    gl_Position.x += 0.25;
    return;
  }
  colour = vec3(0.5);
}
