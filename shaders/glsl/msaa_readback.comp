#version 450
// VK_LAYER_TESSERA_stats MSAA read-back (docs/layer.md): copies every sample of a multisampled
// RGBA8 colour attachment into a buffer, pixel-major ((y * width + x) * samples + s), as RGBA8
// words with R in the low byte: the layout Tessera's colour unit takes. texelFetch returns the
// stored UNORM value exactly and packUnorm4x8 rounds it back to the same 8 bits.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2DMS attachment;
layout(std430, set = 0, binding = 1) writeonly buffer Samples { uint samples[]; };
layout(push_constant) uniform Extent { uint width; uint height; uint sample_count; };
void main() {
  const uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= width || p.y >= height) return;
  const uint base = (p.y * width + p.x) * sample_count;
  for (uint s = 0u; s < sample_count; ++s)
    samples[base + s] = packUnorm4x8(texelFetch(attachment, ivec2(p), int(s)));
}
