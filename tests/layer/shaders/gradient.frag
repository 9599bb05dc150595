#version 450
// A colour that changes from pixel to pixel: tiles the colour unit stores as planes.
layout(location = 0) out vec4 color;
void main() { color = vec4(gl_FragCoord.x / 64.0, gl_FragCoord.y / 64.0, 0.25, 1.0); }
