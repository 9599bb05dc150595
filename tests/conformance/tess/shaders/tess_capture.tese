#version 450
// The evaluation shader of the capture pipelines, compiled once per domain and spacing like
// tess.tese: every invocation appends its gl_TessCoord (bit patterns) with the case index and
// gl_PrimitiveID to the point buffer, and passes gl_TessCoord on to the geometry shader.
layout(TESS_DOMAIN, TESS_SPACING, ccw) in;

layout(push_constant) uniform Capture {
  layout(offset = 24) uint case_index;
} capture;

// Records of 4 words: u, v, w bits, case index | gl_PrimitiveID << 24. Past `capacity` only
// `count` grows, so the host sees an overflow instead of lost points.
layout(std430, set = 0, binding = 0) buffer Points {
  uint count;
  uint capacity;
  uint pad0;
  uint pad1;
  uvec4 records[];
} points;

layout(location = 0) out vec3 coord;

void main() {
  const uint i = atomicAdd(points.count, 1u);
  if (i < points.capacity) {
    points.records[i] = uvec4(floatBitsToUint(gl_TessCoord), capture.case_index | (uint(gl_PrimitiveID) << 24));
  }
  coord = gl_TessCoord;
  gl_Position = vec4(gl_TessCoord.xy * 1.6 - 0.8, 0.5, 1.0);
}
