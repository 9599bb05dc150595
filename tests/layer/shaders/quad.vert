#version 450
// Every 6 vertices draw one 8x8-pixel square (two triangles) of a 64x64 target; the square's
// place comes from the instance index, so each square covers exactly 64 pixels.
const vec2 corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 0), vec2(1, 1), vec2(0, 1));
void main() {
  int cell = gl_InstanceIndex % 64;
  vec2 px = vec2(cell % 8, cell / 8) * 8.0 + corners[gl_VertexIndex % 6] * 8.0;
  gl_Position = vec4(px / 32.0 - 1.0, 0.0, 1.0);
}
