#version 450
// Compiled with -DCAPTURE_INPUT=triangles|lines (VERTICES 3|2): appends each primitive the
// tessellator emitted as the gl_TessCoord.xy bit patterns of its vertices, the case index and
// gl_PrimitiveIDIn, to the primitive buffer, and emits nothing (rasterizer discard is on).
layout(CAPTURE_INPUT) in;
layout(points, max_vertices = 1) out;

layout(push_constant) uniform Capture {
  layout(offset = 24) uint case_index;
} capture;

// Records of 8 words: u0, v0, u1, v1, u2, v2 (0, 0 for lines), case index, gl_PrimitiveIDIn.
layout(std430, set = 0, binding = 1) buffer Primitives {
  uint count;
  uint capacity;
  uint pad0;
  uint pad1;
  uint words[];
} primitives;

layout(location = 0) in vec3 coord[];

void main() {
  const uint i = atomicAdd(primitives.count, 1u);
  if (i < primitives.capacity) {
    const uint base = i * 8u;
    for (int k = 0; k < 3; ++k) {
      primitives.words[base + 2u * uint(k)] = k < VERTICES ? floatBitsToUint(coord[min(k, VERTICES - 1)].x) : 0u;
      primitives.words[base + 2u * uint(k) + 1u] = k < VERTICES ? floatBitsToUint(coord[min(k, VERTICES - 1)].y) : 0u;
    }
    primitives.words[base + 6u] = capture.case_index;
    primitives.words[base + 7u] = uint(gl_PrimitiveIDIn);
  }
}
