#version 450
// Compiled once per domain and spacing: glslc -DTESS_DOMAIN=triangles|quads|isolines
// -DTESS_SPACING=equal_spacing|fractional_odd_spacing|fractional_even_spacing.
// Every domain point lands inside [-0.8, 0.8]^2 at depth 0.5: nothing is clipped or culled.
layout(TESS_DOMAIN, TESS_SPACING, ccw) in;

void main() {
  gl_Position = vec4(gl_TessCoord.xy * 1.6 - 0.8, 0.5, 1.0);
}
