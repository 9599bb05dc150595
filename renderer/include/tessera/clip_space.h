// Draws that enter the frame pipeline at the primitive stage: vertices already in clip space
// (transformed by another vertex stage: a frame captured from a real application, a test)
// with the fixed-function state a Vulkan draw carries. Renderer::render_clip_space assembles,
// culls, clips, sets up, bins, rasterizes and compresses them with the same stages as a
// scene's draws (docs/ARCHITECTURE.md, "Entering at the primitive stage").
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include <glm/glm.hpp>

namespace tessera {

// VkPrimitiveTopology's triangle topologies (points, lines and patches are not rasterized here).
enum class Topology : uint8_t { triangle_list, triangle_strip, triangle_fan };
// VkCullModeFlags and VkFrontFace: which winding on screen faces the viewer, and which facing is dropped.
enum class CullMode : uint8_t { none, front, back, front_and_back };
enum class FrontFace : uint8_t { counter_clockwise, clockwise };
// VkCompareOp, in Vulkan's order: the incoming depth compared with the stored one.
enum class CompareOp : uint8_t { never, less, equal, less_or_equal, greater, not_equal, greater_or_equal, always };

struct DepthState {
  bool test = true;   // depthTestEnable; without it nothing is written either
  bool write = true;  // depthWriteEnable
  CompareOp compare = CompareOp::less;
  bool operator==(const DepthState&) const = default;
};

// VkViewport: the clip volume maps to [x, x + width] x [y, y + height] (height < 0 flips y, as
// VK_KHR_maintenance1 allows) and depth [min_depth, max_depth]. A zero width or height means the
// whole framebuffer with depth [0, 1].
struct ViewportState {
  float x = 0.0f, y = 0.0f, width = 0.0f, height = 0.0f, min_depth = 0.0f, max_depth = 1.0f;
};

// VkRect2D in framebuffer pixels; the default covers any framebuffer.
struct ScissorRect {
  int32_t x = 0, y = 0;
  uint32_t width = std::numeric_limits<int32_t>::max(), height = std::numeric_limits<int32_t>::max();
};

// How a draw's fragment colour combines with the colour already stored (VkPipelineColorBlendAttachmentState
// reduced to what real content uses): replace; source-over with straight alpha (SRC_ALPHA,
// ONE_MINUS_SRC_ALPHA); source-over with premultiplied alpha (ONE, ONE_MINUS_SRC_ALPHA). Blending runs in
// linear space on the sRGB target (decode, blend, encode), per sample, in submission order.
enum class BlendMode : uint8_t { none, alpha, premultiplied };

struct ClipSpaceState {
  Topology topology = Topology::triangle_list;
  bool primitive_restart = false;  // indexed strips and fans: index 0xFFFFFFFF starts a new one
  CullMode cull = CullMode::back;
  FrontFace front_face = FrontFace::counter_clockwise;
  DepthState depth;
  ViewportState viewport;
  ScissorRect scissor;
  int samples = 1;  // rasterizationSamples: must equal the frame's
  BlendMode blend = BlendMode::none;  // colour attachment 0's blend state
};

struct ClipSpaceDraw {
  std::vector<glm::vec4> positions;  // clip space, one per vertex
  int varying_count = 0;             // floats per vertex, 0..8
  std::vector<float> varyings;       // positions.size() x varying_count, interpolated perspective-correct
  std::vector<uint32_t> indices;     // empty: vertices 0..n-1 in order
  ClipSpaceState state;
  // The fragment colour (linear RGB): varyings 0..2 when the draw has three or more, else this.
  glm::vec3 color{1.0f};
};

struct ClipSpaceFrame {
  int width = 0;  // framebuffer pixels, 1..16384
  int height = 0;
  int samples = 1;              // 1, 2, 4 or 8
  glm::vec3 clear_color{0.0f};  // linear RGB
  float clear_depth = 1.0f;
  // The frame's contents at its start instead of the clears (a render pass that loads its
  // attachments; replay, docs/replay.md): empty, or width x height x samples values, sample
  // by sample, pixel-major (row by row). Colour as Frame::color stores it (RGBA8, sRGB).
  std::vector<uint32_t> initial_color;
  std::vector<float> initial_depth;
  std::vector<ClipSpaceDraw> draws;  // in submission order
  // What the tiler's accounting charges per vertex (PIC, two-pass vertex shading): the bytes
  // fetched per vertex, of which position bytes in the position-only pass, and the vertex
  // program's length L in instructions.
  uint32_t vertex_bytes = 32;
  uint32_t position_bytes = 12;
  uint32_t vertex_shader_instructions = 0;
};

}  // namespace tessera
