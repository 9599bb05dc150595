#version 450
// VK_LAYER_TESSERA_stats frame capture (docs/capture.md): copies every sample of a multisampled
// depth attachment (sampled through a depth-aspect view) into a buffer, pixel-major
// ((y * width + x) * samples + s), as the float32 bits of each sample's depth. A depth copy
// cannot do this: vkCmdCopyImageToBuffer takes single-sample images only, and resolves never
// apply to depth in Vulkan 1.0.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2DMS attachment;
layout(std430, set = 0, binding = 1) writeonly buffer Samples { uint samples[]; };
layout(push_constant) uniform Extent { uint width; uint height; uint sample_count; };
void main() {
  const uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= width || p.y >= height) return;
  const uint base = (p.y * width + p.x) * sample_count;
  for (uint s = 0u; s < sample_count; ++s)
    samples[base + s] = floatBitsToUint(texelFetch(attachment, ivec2(p), int(s)).r);
}
