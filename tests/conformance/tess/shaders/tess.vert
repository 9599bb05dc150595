#version 450
// One control point per patch; its position is never read (the evaluation shader places the
// points from gl_TessCoord alone).
void main() { gl_Position = vec4(0.0, 0.0, 0.5, 1.0); }
