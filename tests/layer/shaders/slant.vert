#version 450
// One triangle with slanted edges over a 64x64 target, so edge pixels are partly covered and
// their samples differ (the MSAA read-back test needs tiles of several colour-unit states).
const vec2 corners[3] = vec2[](vec2(-0.95, -0.3), vec2(0.9, -0.9), vec2(0.3, 0.95));
void main() { gl_Position = vec4(corners[gl_VertexIndex % 3], 0.0, 1.0); }
