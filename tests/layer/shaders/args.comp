#version 450
// Writes the indirect arguments and draw counts the test's indirect draws consume (the
// layer cannot see them on the CPU). Layout in uints, see layer_app.cpp.
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer Args { uint data[]; };
void main() {
  if (gl_GlobalInvocationID.x != 0) return;
  // VkDrawIndirectCommand x2 at uint 0 and 4: {6 vertices, 2 instances}, {12, 1}
  data[0] = 6u; data[1] = 2u; data[2] = 0u; data[3] = 0u;
  data[4] = 12u; data[5] = 1u; data[6] = 0u; data[7] = 0u;
  // VkDrawIndexedIndirectCommand x2 at uint 8 and 13: {6 indices, 3 instances}, {6, 1}
  data[8] = 6u; data[9] = 3u; data[10] = 0u; data[11] = 0u; data[12] = 0u;
  data[13] = 6u; data[14] = 1u; data[15] = 0u; data[16] = 0u; data[17] = 0u;
  // draw counts at uint 18 (non-indexed) and 19 (indexed)
  data[18] = 2u; data[19] = 1u;
  // VkDispatchIndirectCommand at uint 20: {2, 1, 1}
  data[20] = 2u; data[21] = 1u; data[22] = 1u;
}
