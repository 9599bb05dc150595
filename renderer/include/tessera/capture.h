// A frame captured from a real Vulkan application by the layer (docs/capture.md): what each draw
// sent to the rasterizer (post-transform clip-space positions, one triangle list as rasterized),
// the fixed-function state it carried, and each render pass's attachments read back at its end.
// The layer writes it (`.tcap`), `tessera capture info|export` reads it, and `tessera replay`
// feeds its draws to Renderer::render_clip_space.
//
// This is the in-memory model shared by the writer, the reader and replay; the file layout is
// private to renderer/capture/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/clip_space.h"

namespace tessera::capture {

// The .tcap format version this build writes; it reads this one and kOldestFormatVersion up.
// Version 2 added per-attachment load and store ops, image identity and resumed passes
// (docs/capture.md); a version 1 file reads as if every attachment were cleared.
inline constexpr uint32_t kFormatVersion = 2;
inline constexpr uint32_t kOldestFormatVersion = 1;

// Shader stages of a draw's pipeline (VkShaderStageFlagBits' graphics stages).
enum class ShaderStage : uint8_t { vertex, tessellation_control, tessellation_evaluation, geometry, fragment };

struct ShaderInfo {
  ShaderStage stage = ShaderStage::vertex;
  std::string entry_point;
  uint32_t instructions = 0;  // static instruction count of the entry point (SPIR-V, calls included once)
  uint64_t module_hash = 0;   // identity of the SPIR-V (e.g. FNV-1a of the words)
};

enum class AttachmentKind : uint8_t { color, depth };

// What a render pass does with an attachment's contents at its start (VkAttachmentLoadOp; none
// is VK_ATTACHMENT_LOAD_OP_NONE_EXT/KHR: contents kept, not accessed) and at its end
// (VkAttachmentStoreOp). A resumed dynamic-rendering pass and the later subpasses of a
// VkRenderPass continue the contents: load.
enum class LoadOp : uint8_t { load, clear, dont_care, none };
enum class StoreOp : uint8_t { store, dont_care, none };

// One attachment of a render pass, read back at the end of the pass (capture frames only).
// `texels` holds the image as the GPU stored it, `vk_format`'s bytes per sample, pixel-major:
// the bytes of pixel (x, y), sample s start at ((y * width + x) * samples + s) * texel_bytes.
// Depth of a combined depth/stencil format is stored as float32 (vk_format says which source).
// Empty `texels` with a non-empty `skip_reason` (e.g. "store_op_dont_care", "transient",
// "format") when it could not be read.
struct Attachment {
  AttachmentKind kind = AttachmentKind::color;
  uint32_t vk_format = 0;  // VkFormat
  uint32_t width = 0, height = 0, samples = 1;
  uint32_t texel_bytes = 0;  // bytes per sample in `texels`
  std::vector<uint8_t> texels;
  std::string skip_reason;
  // Format version 2. A version 1 file reads as load_op clear, store_op store, image 0.
  LoadOp load_op = LoadOp::clear;
  StoreOp store_op = StoreOp::store;
  // Identity of the image within the capture (the application's VkImage handle value; 0:
  // unknown), so replay can find the pass that last wrote the image an attachment loads; and
  // the view's first mip level and array layer (the layer reads back mip 0, layer 0).
  uint64_t image = 0;
  uint32_t mip_level = 0, base_layer = 0;
};

// A render pass instance (VkRenderPass subpass or dynamic rendering) in submission order.
struct RenderPass {
  bool dynamic_rendering = false;
  uint32_t subpass = 0;
  int32_t area_x = 0, area_y = 0;  // render area
  uint32_t area_width = 0, area_height = 0;
  uint32_t samples = 1;
  std::vector<Attachment> attachments;  // colour attachments in order, then depth (if any)
  // Per colour attachment (in order): its clear colour when its load_op is clear, else
  // (0, 0, 0, 0). The depth attachment's clear value when it is cleared (clears_depth = its
  // load_op is clear), else 1.
  std::vector<glm::vec4> clear_colors;
  float clear_depth = 1.0f;
  bool clears_depth = false;
  // Dynamic rendering with VK_RENDERING_RESUMING_BIT: continues the previous pass instance
  // (its attachments' load_op is load). Format version 2.
  bool resumes = false;
};

// VkPipelineColorBlendAttachmentState, as far as the units need it.
struct BlendAttachment {
  bool enable = false;
  uint8_t write_mask = 0xF;  // VkColorComponentFlags
  bool operator==(const BlendAttachment&) const = default;
};

// How the application issued the draw.
// draw_multi*: one vkCmdDrawMulti(Indexed)EXT call (its draws together); draw_mesh_tasks*: mesh
// shading, recorded but never captured (reason "mesh_shader").
enum class DrawCall : uint8_t { draw, draw_indexed, draw_indirect, draw_indexed_indirect, draw_indirect_count,
                                draw_indexed_indirect_count, draw_multi, draw_multi_indexed, draw_mesh_tasks,
                                draw_mesh_tasks_indirect, draw_mesh_tasks_indirect_count };

struct DrawState {
  // Topology as rasterized (transform feedback emits every primitive as a separate triangle:
  // captured draws are triangle lists), cull mode, front face, depth state, viewport 0,
  // scissor 0, rasterization samples: exactly what Renderer::render_clip_space takes.
  ClipSpaceState raster;
  uint32_t application_topology = 3;  // VkPrimitiveTopology as drawn (3 = TRIANGLE_LIST)
  bool primitive_restart = false;
  uint32_t polygon_mode = 0;  // VkPolygonMode (0 = FILL)
  bool depth_clamp = false;
  bool depth_bias = false;
  float depth_bias_constant = 0.0f, depth_bias_clamp = 0.0f, depth_bias_slope = 0.0f;
  uint32_t sample_mask = 0xFFFFFFFFu;
  std::vector<BlendAttachment> blend;  // per colour attachment
  std::vector<ViewportState> viewports;
  std::vector<ScissorRect> scissors;
};

struct Draw {
  uint32_t pass = 0;          // index into Frame::passes
  uint64_t pipeline = 0;      // the application's VkPipeline handle value (identity within the capture)
  DrawCall call = DrawCall::draw;
  uint32_t vertex_count = 0;  // per instance (index count for indexed draws); for indirect draws the GPU's
  uint32_t instance_count = 0;
  std::vector<ShaderInfo> shaders;
  DrawState state;
  // Captured: positions holds 3 clip-space vertices per rasterized triangle, in the order the
  // GPU emitted them. Not captured: positions is empty and skip_reason says why
  // ("no_transform_feedback", "patch_failed", "uses_transform_feedback", "mesh_shader",
  // "geometry_stream", "overflow", "not_triangles", ...).
  bool captured = false;
  std::string skip_reason;
  uint64_t primitives_needed = 0;   // transform-feedback query: primitives the draw produced
  uint64_t primitives_written = 0;  // ... and those that fit the buffer
  std::vector<glm::vec4> positions;
  // Per captured vertex, vertex shaders only (empty otherwise): gl_VertexIndex and
  // gl_InstanceIndex, so vertex reuse and instancing can be recovered.
  std::vector<uint32_t> vertex_ids;
  std::vector<uint32_t> instance_ids;
};

struct Frame {
  uint64_t number = 0;  // the layer's frame number (presents before it)
  std::vector<RenderPass> passes;
  std::vector<Draw> draws;  // in submission order
};

struct Capture {
  uint32_t format_version = kFormatVersion;
  std::string application, engine;  // VkApplicationInfo names (may be empty)
  uint32_t api_version = 0;         // the instance's apiVersion
  std::string device, driver;       // VkPhysicalDeviceProperties::deviceName, driver name/info
  uint32_t vendor_id = 0, device_id = 0, driver_version = 0;
  std::string layer_version;
  std::vector<Frame> frames;
};

// Reads a .tcap file with strict validation (magic, version, truncation, offsets and counts
// against the file size, checksums, the manifest's fields and ranges): tessera::Error naming
// the file and what is wrong, never a crash, never an allocation the file's size cannot justify.
Capture read_capture(const std::filesystem::path& path);
// read_capture on a file's bytes already in memory (the fuzz target, tests): `name` stands for
// the file in messages. The same checks, the same errors.
Capture read_capture_bytes(std::span<const uint8_t> bytes, const std::string& name);
// The driver version as its vendor encodes VkPhysicalDeviceProperties::driverVersion:
// NVIDIA (vendor 0x10DE) 10.8.8.6 bits ("580.159.04"), Intel's Windows driver (0x8086, a
// driver name without "Mesa") 18.14 bits, everyone else Vulkan's major.minor.patch.
std::string driver_version_text(uint32_t vendor_id, uint32_t driver_version, const std::string& driver);
// Writes atomically (a temporary beside the target, then rename): tessera::Error on failure.
void write_capture(const std::filesystem::path& path, const Capture& capture);

}  // namespace tessera::capture
