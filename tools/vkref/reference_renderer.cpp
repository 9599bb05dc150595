#include "vkref/reference_renderer.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tessera/error.h"
#include "vkref/device_arena.h"
#include "vkref/shader_interface.h"
#include "vkref/staging_uploader.h"
#include "vkref/vk_context.h"
#include "vkutil/check.h"
#include "vkutil/device.h"

namespace tessera::vkref {

namespace {

// The material's alpha, sidedness and emission in the model matrix's fourth row
// (shader_interface.h, InstancePushConstants).
void pack_material(InstancePushConstants& push, const Material& material) {
  auto byte = [](float v) { return uint32_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  push.model[0][3] = material.base_alpha;
  push.model[1][3] = material.alpha_cutoff;
  push.model[2][3] = float(int(material.alpha_mode) + (material.double_sided ? 4 : 0));
  push.model[3][3] =
      float(byte(material.emissive.r) + 256u * byte(material.emissive.g) + 65536u * byte(material.emissive.b));
}

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_SRGB;  // linear shader output, sRGB bytes
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;

// SPIR-V compiled by glslc at build time (-mfmt=c), embedded so the binary needs no files.
constexpr uint32_t kLambertVertSpirv[] =
#include "lambert.vert.inc"
    ;
constexpr uint32_t kLambertFragSpirv[] =
#include "lambert.frag.inc"
    ;
constexpr uint32_t kPatchVertSpirv[] =
#include "patch.vert.inc"
    ;
constexpr uint32_t kPatchTescSpirv[] =
#include "patch.tesc.inc"
    ;
constexpr uint32_t kPatchTeseSpirv[] =
#include "patch.tese.inc"
    ;

// SPIR-V execution modes of the evaluation shader (SPIR-V specification, "Execution Mode").
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kModeSpacingEqual = 1, kModeSpacingFractionalEven = 2, kModeSpacingFractionalOdd = 3;
constexpr uint32_t kModeTriangles = 22, kModeQuads = 24;

// patch.tese with its domain and spacing execution modes replaced. They are fixed in GLSL and
// cannot be specialisation constants, and the module's code does not depend on them, so one
// compiled module serves all six (domain, spacing) pairs.
std::vector<uint32_t> patch_tese_code(TessDomain domain, TessSpacing spacing) {
  std::vector<uint32_t> code(std::begin(kPatchTeseSpirv), std::end(kPatchTeseSpirv));
  const uint32_t spacing_mode = spacing == TessSpacing::kEqual           ? kModeSpacingEqual
                                : spacing == TessSpacing::kFractionalOdd ? kModeSpacingFractionalOdd
                                                                         : kModeSpacingFractionalEven;
  int domains = 0, spacings = 0;
  for (size_t i = 5; i < code.size();) {  // after the 5-word header
    const uint32_t words = code[i] >> 16;
    if (words == 0 || i + words > code.size()) throw Error("vkref: malformed patch.tese SPIR-V");
    if ((code[i] & 0xffffu) == kOpExecutionMode && words >= 3) {
      uint32_t& mode = code[i + 2];
      if (mode == kModeTriangles || mode == kModeQuads) {
        mode = domain == TessDomain::kTriangle ? kModeTriangles : kModeQuads;
        ++domains;
      } else if (mode == kModeSpacingEqual || mode == kModeSpacingFractionalEven || mode == kModeSpacingFractionalOdd) {
        mode = spacing_mode;
        ++spacings;
      }
    }
    i += words;
  }
  if (domains != 1 || spacings != 1) throw Error("vkref: patch.tese SPIR-V lacks its domain or spacing mode");
  return code;
}

// Patches per draw call so that a draw's domain points stay within 65,536: lavapipe's draw
// module (Mesa 22.3, draw_tess.c) numbers the evaluated points of all patches of a draw with
// 16-bit indices, so beyond that triangles join the wrong points. A level L gives at most
// ceil(L) + 1 segments per edge (fractional spacings round up to their parity; at most 64),
// so a quad patch at most (segments + 1)^2 points, a triangle fewer.
uint32_t max_patches_per_draw(const TessellationSettings& settings) {
  const float level = settings.level;
  const uint32_t segments = level <= 63.0f ? uint32_t(std::ceil(std::max(level, 1.0f))) + 1u : 64u;
  return std::max(1u, 65536u / ((segments + 1u) * (segments + 1u)));
}

// Control points per patch of each tessera::PatchKind.
uint32_t control_points_of(PatchKind kind) {
  return kind == PatchKind::bezier_quad ? 16u : kind == PatchKind::pn_triangle ? 3u : 4u;
}

// Per-mesh device buffers; empty meshes have none and are skipped when drawing.
struct MeshBuffers {
  GpuBuffer vertices;  // tessera::Vertex, 32 bytes each
  GpuBuffer indices;   // uint32
  uint32_t index_count = 0;
};

// Per-patch-mesh device buffers and its set 2 (per-draw block, height field).
struct PatchMeshBuffers {
  GpuBuffer control_points;  // tessera::Vertex, 32 bytes each
  GpuBuffer indices;         // uint32, control_points_of(kind) per patch
  GpuBuffer heightfield;     // displaced quads: heights, then normals (3 floats each)
  uint32_t index_count = 0;
  uint32_t patches_per_draw = 1;  // see max_patches_per_draw()
  VkDescriptorSet set = VK_NULL_HANDLE;
};

// What the hull and domain programs need of a patch mesh besides its buffers.
struct PatchMeshInfo {
  PatchKind kind = PatchKind::bezier_quad;
  TessellationSettings settings;
  glm::vec4 field{0.0f};  // PatchDrawUniforms::field
  uint32_t field_resolution = 0;
};

// The scene state render() needs besides device buffers.
struct SceneDraws {
  std::vector<Material> materials;
  std::vector<Instance> instances;
  std::vector<PatchInstance> patch_instances;
  std::vector<PatchMeshInfo> patch_meshes;
  std::vector<Light> lights;
  glm::vec3 ambient{0.0f};
  glm::vec3 background{0.0f};
  Fog fog;
  ToneMapping tone_mapping = ToneMapping::clamp;
  float exposure = 1.0f;
};

}  // namespace

struct ReferenceRenderer::Impl {
  ~Impl();

  void init(const DeviceOptions& options);
  void create_layouts_and_pipelines();
  void create_frame_resources();
  VkSampler sampler_for(uint32_t levels, const SamplerState& state = SamplerState{});
  VkDescriptorSet allocate_texture_set(VkDescriptorPool pool, const GpuImage& image, uint32_t levels,
                                       const SamplerState& state = SamplerState{});
  GpuImage upload_texture(const Texture& texture, DeviceArena& arena, const char* what);
  void release_scene();
  struct PassVariant {
    VkRenderPass render_pass = VK_NULL_HANDLE;
    int samples = 1;
    // [cull + 2 * blend]: cull 0 none, 1 back faces; blend 0 opaque, 1 source-over without depth
    // writes (tessera's blended materials).
    std::array<VkPipeline, 4> pipelines{};
    // Tessellation pipelines by (PatchKind, TessSpacing, culling), created on first use.
    std::map<std::tuple<int, int, int>, VkPipeline> patch_pipelines;
  };
  // Render pass and pipelines for a sample count, created on first use.
  PassVariant& pass_for(int samples);
  // A graphics pipeline for `variant`: triangle lists with the Lambert programs, or with
  // `patch` the tessellation pipeline of that patch kind and spacing.
  VkPipeline create_pipeline(const PassVariant& variant, bool cull, const PatchMeshInfo* patch, bool blend = false);
  VkPipeline patch_pipeline(PassVariant& variant, const PatchMeshInfo& patch, bool cull);
  void write_patch_uniforms(const Camera& camera, int width, int height);
  // Control points, indices and height fields of the scene's patch meshes, their descriptor
  // sets and the per-draw uniform buffer; fills draws.patch_meshes.
  void upload_patches(const Scene& scene);
  void read_statistics();
  void ensure_target(int width, int height, int samples);
  void release_target();
  void write_frame_uniforms(const Camera& camera, int width, int height);
  void record(VkCommandBuffer cmd, const ReferenceOptions& options, bool readback);

  VulkanContext context;  // destroyed last
  std::unique_ptr<DeviceArena> persistent_arena;
  std::unique_ptr<DeviceArena> scene_arena;
  std::unique_ptr<DeviceArena> target_arena;
  std::unique_ptr<StagingUploader> uploader;

  VkDescriptorSetLayout frame_set_layout = VK_NULL_HANDLE;    // set 0: frame block
  VkDescriptorSetLayout texture_set_layout = VK_NULL_HANDLE;  // set 1: albedo texture
  VkDescriptorSetLayout patch_set_layout = VK_NULL_HANDLE;    // set 2: patch draw, height field
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  bool tessellation = false;  // the device has tessellationShader (enabled)
  VkShaderModule patch_vertex_module = VK_NULL_HANDLE;
  VkShaderModule patch_control_module = VK_NULL_HANDLE;
  std::map<std::pair<int, int>, VkShaderModule> patch_evaluation_modules;  // (TessDomain, TessSpacing)
  VkQueryPool statistics_pool = VK_NULL_HANDLE;                            // one pipeline-statistics query per frame
  VkQueryPipelineStatisticFlags statistics_flags = 0;
  ReferenceStats last_stats;
  std::map<int, PassVariant> passes;  // by samples per pixel
  VkShaderModule vertex_module = VK_NULL_HANDLE;
  VkShaderModule fragment_module = VK_NULL_HANDLE;
  // By mip level count (maxLod = levels - 1) and sampler state (wrap, filters).
  std::map<std::tuple<uint32_t, int, int, int, int, int>, VkSampler> samplers;

  VkDescriptorPool persistent_pool = VK_NULL_HANDLE;
  VkDescriptorSet frame_set = VK_NULL_HANDLE;
  VkDescriptorSet white_set = VK_NULL_HANDLE;  // 1x1 white texture for untextured materials
  GpuBuffer frame_uniforms;
  GpuImage white_texture;
  VkCommandBuffer frame_cmd = VK_NULL_HANDLE;

  std::vector<MeshBuffers> meshes;
  std::vector<GpuImage> textures;
  std::vector<VkDescriptorSet> texture_sets;
  VkDescriptorPool scene_pool = VK_NULL_HANDLE;
  std::vector<PatchMeshBuffers> patch_meshes;
  GpuBuffer patch_uniforms;  // PatchDrawUniforms per patch instance, patch_uniform_stride apart
  VkDeviceSize patch_uniform_stride = 0;
  GpuBuffer empty_heightfield;  // bound by patch meshes without a height field
  VkDescriptorPool patch_pool = VK_NULL_HANDLE;
  SceneDraws draws;

  int target_width = 0;
  int target_height = 0;
  int target_samples = 0;
  GpuImage msaa_color;  // multisampled colour, resolved into `color` at the end of the pass
  GpuImage color;
  GpuImage depth;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  GpuBuffer readback;  // width * height RGBA8, host-visible
};

ReferenceRenderer::Impl::~Impl() {
  VkDevice device = context.gpu.device;
  if (device == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(device);
  uploader.reset();
  release_scene();
  release_target();
  if (frame_cmd != VK_NULL_HANDLE) vkFreeCommandBuffers(device, context.command_pool, 1, &frame_cmd);
  destroy_image(context, white_texture);
  destroy_buffer(context, frame_uniforms);
  if (persistent_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, persistent_pool, nullptr);
  for (auto& [levels, sampler] : samplers) vkDestroySampler(device, sampler, nullptr);
  for (auto& [samples, variant] : passes) {
    for (VkPipeline pipeline : variant.pipelines) {
      if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device, pipeline, nullptr);
    }
    for (auto& [key, pipeline] : variant.patch_pipelines) vkDestroyPipeline(device, pipeline, nullptr);
    if (variant.render_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, variant.render_pass, nullptr);
  }
  if (vertex_module != VK_NULL_HANDLE) vkDestroyShaderModule(device, vertex_module, nullptr);
  if (fragment_module != VK_NULL_HANDLE) vkDestroyShaderModule(device, fragment_module, nullptr);
  if (patch_vertex_module != VK_NULL_HANDLE) vkDestroyShaderModule(device, patch_vertex_module, nullptr);
  if (patch_control_module != VK_NULL_HANDLE) vkDestroyShaderModule(device, patch_control_module, nullptr);
  for (auto& [key, module] : patch_evaluation_modules) vkDestroyShaderModule(device, module, nullptr);
  if (statistics_pool != VK_NULL_HANDLE) vkDestroyQueryPool(device, statistics_pool, nullptr);
  destroy_buffer(context, empty_heightfield);
  if (pipeline_layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
  if (texture_set_layout != VK_NULL_HANDLE) {
    vkDestroyDescriptorSetLayout(device, texture_set_layout, nullptr);
  }
  if (patch_set_layout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device, patch_set_layout, nullptr);
  if (frame_set_layout != VK_NULL_HANDLE) {
    vkDestroyDescriptorSetLayout(device, frame_set_layout, nullptr);
  }
  target_arena.reset();
  scene_arena.reset();
  persistent_arena.reset();
}

void ReferenceRenderer::Impl::init(const DeviceOptions& options) {
  context.init(options);
  persistent_arena = std::make_unique<DeviceArena>(context);
  scene_arena = std::make_unique<DeviceArena>(context);
  target_arena = std::make_unique<DeviceArena>(context);
  uploader = std::make_unique<StagingUploader>(context, *persistent_arena);
  create_layouts_and_pipelines();
  create_frame_resources();
}

void ReferenceRenderer::Impl::create_layouts_and_pipelines() {
  VkDevice device = context.gpu.device;
  tessellation = context.enabled_features.tessellationShader == VK_TRUE;
  const VkShaderStageFlags tessellation_stages =
      tessellation ? VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT | VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT : 0;

  VkDescriptorSetLayoutBinding frame_binding{};
  frame_binding.binding = 0;
  frame_binding.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  frame_binding.descriptorCount = 1;
  frame_binding.stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | tessellation_stages;
  VkDescriptorSetLayoutCreateInfo frame_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  frame_info.bindingCount = 1;
  frame_info.pBindings = &frame_binding;
  vkutil::check(vkCreateDescriptorSetLayout(device, &frame_info, nullptr, &frame_set_layout),
                "vkCreateDescriptorSetLayout");

  VkDescriptorSetLayoutBinding texture_binding{};
  texture_binding.binding = 0;
  texture_binding.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  texture_binding.descriptorCount = 1;
  texture_binding.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  VkDescriptorSetLayoutCreateInfo texture_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  texture_info.bindingCount = 1;
  texture_info.pBindings = &texture_binding;
  vkutil::check(vkCreateDescriptorSetLayout(device, &texture_info, nullptr, &texture_set_layout),
                "vkCreateDescriptorSetLayout");

  // Set 2, the patch path's: the per-draw block at a dynamic offset (push constants are at the
  // 128-byte minimum already) and the height field. Unused by the triangle-list pipelines.
  VkDescriptorSetLayoutBinding patch_bindings[2]{};
  patch_bindings[0].binding = 0;
  patch_bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
  patch_bindings[0].descriptorCount = 1;
  patch_bindings[0].stageFlags = tessellation ? tessellation_stages : VkShaderStageFlags(VK_SHADER_STAGE_VERTEX_BIT);
  patch_bindings[1] = patch_bindings[0];
  patch_bindings[1].binding = 1;
  patch_bindings[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  VkDescriptorSetLayoutCreateInfo patch_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  patch_info.bindingCount = 2;
  patch_info.pBindings = patch_bindings;
  vkutil::check(vkCreateDescriptorSetLayout(device, &patch_info, nullptr, &patch_set_layout),
                "vkCreateDescriptorSetLayout");

  const VkDescriptorSetLayout set_layouts[3] = {frame_set_layout, texture_set_layout, patch_set_layout};
  VkPushConstantRange push_range{};
  push_range.stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  push_range.offset = 0;
  push_range.size = sizeof(InstancePushConstants);
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 3;
  layout_info.pSetLayouts = set_layouts;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push_range;
  vkutil::check(vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline_layout), "vkCreatePipelineLayout");

  vertex_module = vkutil::create_shader_module(device, kLambertVertSpirv);
  fragment_module = vkutil::create_shader_module(device, kLambertFragSpirv);
  if (tessellation) {
    patch_vertex_module = vkutil::create_shader_module(device, kPatchVertSpirv);
    patch_control_module = vkutil::create_shader_module(device, kPatchTescSpirv);
    for (TessDomain domain : {TessDomain::kTriangle, TessDomain::kQuad}) {
      for (TessSpacing spacing : {TessSpacing::kEqual, TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven}) {
        patch_evaluation_modules[{int(domain), int(spacing)}] =
            vkutil::create_shader_module(device, patch_tese_code(domain, spacing));
      }
    }
  }
  pass_for(1);
}

ReferenceRenderer::Impl::PassVariant& ReferenceRenderer::Impl::pass_for(int samples) {
  if (auto found = passes.find(samples); found != passes.end()) return found->second;
  VkDevice device = context.gpu.device;
  const auto sample_bits = VkSampleCountFlagBits(samples);
  PassVariant& variant = passes[samples];
  // Render pass: colour cleared to the background and kept for read-back (ending in
  // TRANSFER_SRC_OPTIMAL), depth cleared to 1.0 and discarded. With MSAA the multisampled
  // colour is discarded after the subpass resolves it into a third, single-sample attachment
  // (a box filter over the samples) that is kept for read-back.
  const bool msaa = samples > 1;
  VkAttachmentDescription attachments[3]{};
  attachments[0].format = kColorFormat;
  attachments[0].samples = sample_bits;
  attachments[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachments[0].storeOp = msaa ? VK_ATTACHMENT_STORE_OP_DONT_CARE : VK_ATTACHMENT_STORE_OP_STORE;
  attachments[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[0].finalLayout = msaa ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  attachments[1].format = kDepthFormat;
  attachments[1].samples = sample_bits;
  attachments[1].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachments[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[1].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[1].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[1].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  attachments[2] = attachments[0];
  attachments[2].samples = VK_SAMPLE_COUNT_1_BIT;
  attachments[2].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[2].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachments[2].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference resolve_ref{2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color_ref;
  subpass.pDepthStencilAttachment = &depth_ref;
  if (msaa) subpass.pResolveAttachments = &resolve_ref;
  VkSubpassDependency dependencies[2]{};
  // The previous frame's attachment writes and colour read-back finish before this frame
  // clears the attachments.
  dependencies[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[0].dstSubpass = 0;
  dependencies[0].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                 VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                 VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  dependencies[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  dependencies[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                 VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  dependencies[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                                  VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                  VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  // Colour writes finish before the read-back copy.
  dependencies[1].srcSubpass = 0;
  dependencies[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  dependencies[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo pass_info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  pass_info.attachmentCount = msaa ? 3 : 2;
  pass_info.pAttachments = attachments;
  pass_info.subpassCount = 1;
  pass_info.pSubpasses = &subpass;
  pass_info.dependencyCount = 2;
  pass_info.pDependencies = dependencies;
  vkutil::check(vkCreateRenderPass(device, &pass_info, nullptr, &variant.render_pass), "vkCreateRenderPass");

  variant.samples = samples;
  for (int k = 0; k < 4; ++k) variant.pipelines[size_t(k)] = create_pipeline(variant, (k & 1) != 0, nullptr, k >= 2);
  return variant;
}

VkPipeline ReferenceRenderer::Impl::create_pipeline(const PassVariant& variant, bool cull, const PatchMeshInfo* patch,
                                                    bool blend_enabled) {
  const auto sample_bits = VkSampleCountFlagBits(variant.samples);
  VkPipelineShaderStageCreateInfo stages[4]{};
  for (VkPipelineShaderStageCreateInfo& stage : stages) {
    stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stage.pName = "main";
  }
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = patch ? patch_vertex_module : vertex_module;
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fragment_module;
  VkPipelineTessellationStateCreateInfo tessellation_state{VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
  if (patch) {
    stages[2].stage = VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
    stages[2].module = patch_control_module;
    stages[3].stage = VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT;
    const TessDomain domain = patch->kind == PatchKind::pn_triangle ? TessDomain::kTriangle : TessDomain::kQuad;
    stages[3].module = patch_evaluation_modules.at({int(domain), int(patch->settings.spacing)});
    tessellation_state.patchControlPoints = control_points_of(patch->kind);
  }

  // tessera::Vertex: position vec3 @0, normal vec3 @12, uv vec2 @24, 32-byte stride.
  VkVertexInputBindingDescription binding{0, sizeof(Vertex), VK_VERTEX_INPUT_RATE_VERTEX};
  const VkVertexInputAttributeDescription attributes[3] = {
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, uint32_t(offsetof(Vertex, position))},
      {1, 0, VK_FORMAT_R32G32B32_SFLOAT, uint32_t(offsetof(Vertex, normal))},
      {2, 0, VK_FORMAT_R32G32_SFLOAT, uint32_t(offsetof(Vertex, uv))},
  };
  static_assert(offsetof(Vertex, normal) == 12 && offsetof(Vertex, uv) == 24);
  VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vertex_input.vertexBindingDescriptionCount = 1;
  vertex_input.pVertexBindingDescriptions = &binding;
  vertex_input.vertexAttributeDescriptionCount = 3;
  vertex_input.pVertexAttributeDescriptions = attributes;

  VkPipelineInputAssemblyStateCreateInfo input_assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  input_assembly.topology = patch ? VK_PRIMITIVE_TOPOLOGY_PATCH_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;

  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;  // viewport and scissor are dynamic: (0, 0, W, H), depth 0..1
  viewport.scissorCount = 1;

  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  // Vulkan computes a triangle's area from framebuffer coordinates with a minus sign
  // (a = -1/2 * sum(x_i * y_i+1 - x_i+1 * y_i)), i.e. orientation as seen with y down. So
  // COUNTER_CLOCKWISE means counter-clockwise on screen in the final image. camera_matrices
  // flips y in the projection, so an upright image results and a triangle wound
  // counter-clockwise in world space and seen from its front is counter-clockwise on screen.
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;

  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = sample_bits;  // standard sample locations

  VkPipelineDepthStencilStateCreateInfo depth_state{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depth_state.depthTestEnable = VK_TRUE;
  // Blended surfaces test depth but do not write it (docs/scene-format.md, "Alpha").
  depth_state.depthWriteEnable = blend_enabled ? VK_FALSE : VK_TRUE;
  depth_state.depthCompareOp = VK_COMPARE_OP_LESS;
  depth_state.minDepthBounds = 0.0f;
  depth_state.maxDepthBounds = 1.0f;

  VkPipelineColorBlendAttachmentState blend_attachment{};
  blend_attachment.colorWriteMask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  if (blend_enabled) {
    // Source-over with straight alpha; the stored alpha stays 1.
    blend_attachment.blendEnable = VK_TRUE;
    blend_attachment.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
    blend_attachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    blend_attachment.colorBlendOp = VK_BLEND_OP_ADD;
    blend_attachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    blend_attachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    blend_attachment.alphaBlendOp = VK_BLEND_OP_ADD;
  }
  VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend.attachmentCount = 1;
  blend.pAttachments = &blend_attachment;

  const VkDynamicState dynamic_states[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic.dynamicStateCount = 2;
  dynamic.pDynamicStates = dynamic_states;

  {
    raster.cullMode = cull ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE;
    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    info.stageCount = patch ? 4 : 2;
    info.pStages = stages;
    info.pTessellationState = patch ? &tessellation_state : nullptr;
    info.pVertexInputState = &vertex_input;
    info.pInputAssemblyState = &input_assembly;
    info.pViewportState = &viewport;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &multisample;
    info.pDepthStencilState = &depth_state;
    info.pColorBlendState = &blend;
    info.pDynamicState = &dynamic;
    info.layout = pipeline_layout;
    info.renderPass = variant.render_pass;
    info.subpass = 0;
    VkPipeline pipeline = VK_NULL_HANDLE;
    vkutil::check(vkCreateGraphicsPipelines(context.gpu.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline),
                  "vkCreateGraphicsPipelines");
    return pipeline;
  }
}

VkPipeline ReferenceRenderer::Impl::patch_pipeline(PassVariant& variant, const PatchMeshInfo& patch, bool cull) {
  const auto key = std::make_tuple(int(patch.kind), int(patch.settings.spacing), int(cull));
  if (auto found = variant.patch_pipelines.find(key); found != variant.patch_pipelines.end()) return found->second;
  const VkPipeline pipeline = create_pipeline(variant, cull, &patch);
  variant.patch_pipelines.emplace(key, pipeline);
  return pipeline;
}

VkSampler ReferenceRenderer::Impl::sampler_for(uint32_t levels, const SamplerState& state) {
  const auto key =
      std::make_tuple(levels, int(state.wrap_u), int(state.wrap_v), int(state.mag), int(state.min), int(state.mip));
  auto found = samplers.find(key);
  if (found != samplers.end()) return found->second;
  // The default state is trilinear, repeat, no anisotropy: tessera::sample_trilinear's; others
  // follow tessera::sample_texture.
  auto address = [](TextureWrap w) {
    return w == TextureWrap::clamp_to_edge     ? VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
           : w == TextureWrap::mirrored_repeat ? VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT
                                               : VK_SAMPLER_ADDRESS_MODE_REPEAT;
  };
  auto filter = [](TextureFilter f) { return f == TextureFilter::nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR; };
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = filter(state.mag);
  info.minFilter = filter(state.min);
  info.mipmapMode = state.mip == MipFilter::linear ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = address(state.wrap_u);
  info.addressModeV = address(state.wrap_v);
  info.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  info.mipLodBias = 0.0f;
  info.anisotropyEnable = VK_FALSE;
  info.maxAnisotropy = 1.0f;
  info.compareEnable = VK_FALSE;
  info.minLod = 0.0f;
  // Without mip maps only level 0 is read, yet lod > 0 must still select the minification
  // filter: maxLod 0.25 with nearest mip selection, as OpenGL-on-Vulkan layers do.
  info.maxLod = state.mip == MipFilter::none ? 0.25f : float(levels - 1);
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK;
  info.unnormalizedCoordinates = VK_FALSE;
  VkSampler sampler = VK_NULL_HANDLE;
  vkutil::check(vkCreateSampler(context.gpu.device, &info, nullptr, &sampler), "vkCreateSampler");
  samplers.emplace(key, sampler);
  return sampler;
}

VkDescriptorSet ReferenceRenderer::Impl::allocate_texture_set(VkDescriptorPool pool, const GpuImage& image,
                                                              uint32_t levels, const SamplerState& state) {
  VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  info.descriptorPool = pool;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &texture_set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  vkutil::check(vkAllocateDescriptorSets(context.gpu.device, &info, &set), "vkAllocateDescriptorSets");
  VkDescriptorImageInfo image_info{sampler_for(levels, state), image.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  write.pImageInfo = &image_info;
  vkUpdateDescriptorSets(context.gpu.device, 1, &write, 0, nullptr);
  return set;
}

GpuImage ReferenceRenderer::Impl::upload_texture(const Texture& texture, DeviceArena& arena, const char* what) {
  const uint32_t levels = uint32_t(texture.levels.size());
  const uint32_t width = uint32_t(texture.levels[0].width);
  const uint32_t height = uint32_t(texture.levels[0].height);
  GpuImage image =
      create_image(context, arena, width, height, levels, kColorFormat,
                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_IMAGE_ASPECT_COLOR_BIT, what);
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image.image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, levels, 0, 1};
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  vkCmdPipelineBarrier(uploader->commands(), VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &barrier);
  for (uint32_t level = 0; level < levels; ++level) {
    const Image& src = texture.levels[level];
    uploader->copy_to_image(image.image, level, uint32_t(src.width), uint32_t(src.height), src.pixels.data());
  }
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  vkCmdPipelineBarrier(uploader->commands(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0,
                       0, nullptr, 0, nullptr, 1, &barrier);
  return image;
}

void ReferenceRenderer::Impl::create_frame_resources() {
  frame_uniforms = create_buffer(context, *persistent_arena, sizeof(FrameUniforms), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                 VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0,
                                 "the frame uniform buffer");

  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
                                         {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 2;
  pool_info.poolSizeCount = 2;
  pool_info.pPoolSizes = sizes;
  vkutil::check(vkCreateDescriptorPool(context.gpu.device, &pool_info, nullptr, &persistent_pool),
                "vkCreateDescriptorPool");

  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = persistent_pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &frame_set_layout;
  vkutil::check(vkAllocateDescriptorSets(context.gpu.device, &alloc, &frame_set), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo buffer_info{frame_uniforms.buffer, 0, sizeof(FrameUniforms)};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = frame_set;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  write.pBufferInfo = &buffer_info;
  vkUpdateDescriptorSets(context.gpu.device, 1, &write, 0, nullptr);

  Texture white;
  white.name = "vkref white";
  white.levels.emplace_back(1, 1, pack_rgba8(255, 255, 255, 255));
  white_texture = upload_texture(white, *persistent_arena, "the white texture");
  uploader->flush();
  white_set = allocate_texture_set(persistent_pool, white_texture, 1);

  frame_cmd = context.allocate_command_buffer();

  // Storage buffers may not be empty: patch meshes without a height field bind this one.
  empty_heightfield = create_buffer(context, *persistent_arena, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0,
                                    "the empty height field");
  std::memset(empty_heightfield.memory.mapped, 0, 16);

  // One pipeline-statistics query brackets each render() frame (ReferenceStats).
  if (context.enabled_features.pipelineStatisticsQuery) {
    statistics_flags = VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT;
    if (tessellation) {
      statistics_flags |= VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_CONTROL_SHADER_PATCHES_BIT |
                          VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_EVALUATION_SHADER_INVOCATIONS_BIT;
    }
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
    info.queryCount = 1;
    info.pipelineStatistics = statistics_flags;
    vkutil::check(vkCreateQueryPool(context.gpu.device, &info, nullptr, &statistics_pool), "vkCreateQueryPool");
  }
}

void ReferenceRenderer::Impl::read_statistics() {
  last_stats = ReferenceStats{};
  if (statistics_pool == VK_NULL_HANDLE) return;
  // Results come in increasing bit order: clipping invocations, control patches, evaluation
  // invocations.
  uint64_t values[3] = {};
  const uint32_t count = tessellation ? 3 : 1;
  vkutil::check(vkGetQueryPoolResults(context.gpu.device, statistics_pool, 0, 1, count * sizeof(uint64_t), values,
                                      count * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                "vkGetQueryPoolResults");
  last_stats.available = true;
  last_stats.tessellation = tessellation;
  last_stats.clipping_invocations = values[0];
  last_stats.tessellation_control_patches = tessellation ? values[1] : 0;
  last_stats.tessellation_evaluation_invocations = tessellation ? values[2] : 0;
}

void ReferenceRenderer::Impl::release_scene() {
  VkDevice device = context.gpu.device;
  for (MeshBuffers& mesh : meshes) {
    destroy_buffer(context, mesh.vertices);
    destroy_buffer(context, mesh.indices);
  }
  meshes.clear();
  for (GpuImage& image : textures) destroy_image(context, image);
  textures.clear();
  texture_sets.clear();
  if (scene_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, scene_pool, nullptr);
  scene_pool = VK_NULL_HANDLE;
  for (PatchMeshBuffers& mesh : patch_meshes) {
    destroy_buffer(context, mesh.control_points);
    destroy_buffer(context, mesh.indices);
    destroy_buffer(context, mesh.heightfield);
  }
  patch_meshes.clear();
  destroy_buffer(context, patch_uniforms);
  if (patch_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, patch_pool, nullptr);
  patch_pool = VK_NULL_HANDLE;
  if (scene_arena) scene_arena->reset();
  draws = SceneDraws{};
}

void ReferenceRenderer::Impl::release_target() {
  if (framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(context.gpu.device, framebuffer, nullptr);
  framebuffer = VK_NULL_HANDLE;
  destroy_image(context, msaa_color);
  destroy_image(context, color);
  destroy_image(context, depth);
  destroy_buffer(context, readback);
  if (target_arena) target_arena->reset();
  target_width = 0;
  target_height = 0;
  target_samples = 0;
}

void ReferenceRenderer::Impl::ensure_target(int width, int height, int samples) {
  const VkPhysicalDeviceLimits& limits = context.gpu.properties.limits;
  const uint32_t max_w = std::min(limits.maxFramebufferWidth, limits.maxImageDimension2D);
  const uint32_t max_h = std::min(limits.maxFramebufferHeight, limits.maxImageDimension2D);
  if (width < 1 || height < 1 || uint32_t(width) > max_w || uint32_t(height) > max_h) {
    throw Error("vkref: frame size " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1x1.." +
                std::to_string(max_w) + "x" + std::to_string(max_h) + " for this device");
  }
  const VkSampleCountFlags supported = limits.framebufferColorSampleCounts & limits.framebufferDepthSampleCounts;
  if ((samples != 1 && samples != 2 && samples != 4 && samples != 8) || !(supported & VkSampleCountFlags(samples))) {
    throw Error("vkref: " + std::to_string(samples) + " samples per pixel are not supported by this device");
  }
  if (width == target_width && height == target_height && samples == target_samples) return;
  vkutil::check(vkDeviceWaitIdle(context.gpu.device), "vkDeviceWaitIdle");
  release_target();
  const VkSampleCountFlagBits sample_bits = VkSampleCountFlagBits(samples);
  if (samples > 1) {
    msaa_color = create_image(context, *target_arena, uint32_t(width), uint32_t(height), 1, kColorFormat,
                              VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                              VK_IMAGE_ASPECT_COLOR_BIT, "the multisampled colour attachment", sample_bits);
  }
  color = create_image(context, *target_arena, uint32_t(width), uint32_t(height), 1, kColorFormat,
                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
                       "the colour attachment");
  depth = create_image(context, *target_arena, uint32_t(width), uint32_t(height), 1, kDepthFormat,
                       VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, "the depth attachment",
                       sample_bits);
  readback = create_buffer(context, *target_arena, VkDeviceSize(width) * VkDeviceSize(height) * 4,
                           VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                           VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "the read-back buffer");
  const VkImageView single_views[2] = {color.view, depth.view};
  const VkImageView msaa_views[3] = {msaa_color.view, depth.view, color.view};
  const VkImageView* views = samples > 1 ? msaa_views : single_views;
  VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  info.renderPass = pass_for(samples).render_pass;
  info.attachmentCount = samples > 1 ? 3 : 2;
  info.pAttachments = views;
  info.width = uint32_t(width);
  info.height = uint32_t(height);
  info.layers = 1;
  vkutil::check(vkCreateFramebuffer(context.gpu.device, &info, nullptr, &framebuffer), "vkCreateFramebuffer");
  target_width = width;
  target_height = height;
  target_samples = samples;
}

void ReferenceRenderer::Impl::write_frame_uniforms(const Camera& camera, int width, int height) {
  FrameUniforms u{};
  u.view_projection = camera_matrices(camera, width, height).view_projection;
  u.ambient = glm::vec4(draws.ambient, 0.0f);
  u.light_count = glm::ivec4(int(draws.lights.size()), 0, 0, 0);
  u.eye = glm::vec4(camera.position, 1.0f);
  u.fog = glm::vec4(draws.fog.color, draws.fog.density);
  u.exposure = glm::vec4(draws.exposure, 0.0f, 0.0f, 0.0f);
  u.tone_mapping = glm::uvec4(uint32_t(draws.tone_mapping), 0u, 0u, 0u);
  for (size_t i = 0; i < draws.lights.size(); ++i) {
    const Light& light = draws.lights[i];
    u.lights[i].direction = glm::vec4(light.direction, 0.0f);
    u.lights[i].position = glm::vec4(light.position, 1.0f);
    u.lights[i].color = glm::vec4(light.color, light.intensity);
    u.lights[i].type = glm::uvec4(uint32_t(light.type), 0u, 0u, 0u);
  }
  std::memcpy(frame_uniforms.memory.mapped, &u, sizeof(u));
}

void ReferenceRenderer::Impl::upload_patches(const Scene& scene) {
  if (scene.patch_meshes.empty()) return;
  patch_meshes.resize(scene.patch_meshes.size());
  draws.patch_meshes.resize(scene.patch_meshes.size());
  for (size_t m = 0; m < scene.patch_meshes.size(); ++m) {
    const PatchMesh& mesh = scene.patch_meshes[m];
    PatchMeshBuffers& out = patch_meshes[m];
    PatchMeshInfo& info = draws.patch_meshes[m];
    info.kind = mesh.kind;
    info.settings = mesh.tessellation;
    const Heightfield* field = mesh.kind == PatchKind::displaced_quad ? mesh.displacement.get() : nullptr;
    if (field) {
      const auto [lo, hi] = std::minmax_element(field->heights.begin(), field->heights.end());
      info.field = glm::vec4(field->origin.x, field->origin.y, field->extent, *hi - *lo);
      info.field_resolution = uint32_t(field->resolution);
      const std::string what = "patch mesh '" + mesh.name + "' height field";
      const size_t samples = field->heights.size();
      std::vector<float> data(samples * 4);
      std::copy(field->heights.begin(), field->heights.end(), data.begin());
      for (size_t k = 0; k < samples; ++k) {
        for (int c = 0; c < 3; ++c) data[samples + 3 * k + size_t(c)] = field->normals[k][c];
      }
      const VkDeviceSize bytes = data.size() * sizeof(float);
      if (bytes > context.gpu.properties.limits.maxStorageBufferRange) {
        throw Error("vkref: " + what + " takes " + std::to_string(bytes) + " bytes, more than the device's " +
                    std::to_string(context.gpu.properties.limits.maxStorageBufferRange) + "-byte storage buffer range");
      }
      out.heightfield = create_buffer(context, *scene_arena, bytes,
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what.c_str());
      uploader->copy_to_buffer(out.heightfield.buffer, 0, data.data(), bytes);
    }
    if (mesh.indices.empty() || mesh.control_points.empty()) continue;
    const std::string what = "patch mesh '" + mesh.name + "'";
    const VkDeviceSize vertex_bytes = mesh.control_points.size() * sizeof(Vertex);
    const VkDeviceSize index_bytes = mesh.indices.size() * sizeof(uint32_t);
    out.control_points = create_buffer(context, *scene_arena, vertex_bytes,
                                       VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
                                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what.c_str());
    out.indices = create_buffer(context, *scene_arena, index_bytes,
                                VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what.c_str());
    out.index_count = uint32_t(mesh.indices.size());
    out.patches_per_draw = max_patches_per_draw(mesh.tessellation);
    uploader->copy_to_buffer(out.control_points.buffer, 0, mesh.control_points.data(), vertex_bytes);
    uploader->copy_to_buffer(out.indices.buffer, 0, mesh.indices.data(), index_bytes);
  }
  // Vertex, index and height-field reads wait for the copies.
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT | VK_ACCESS_SHADER_READ_BIT;
  const VkPipelineStageFlags dst_stages =
      VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | (tessellation ? VK_PIPELINE_STAGE_TESSELLATION_CONTROL_SHADER_BIT |
                                                               VK_PIPELINE_STAGE_TESSELLATION_EVALUATION_SHADER_BIT
                                                         : VK_PIPELINE_STAGE_VERTEX_SHADER_BIT);
  vkCmdPipelineBarrier(uploader->commands(), VK_PIPELINE_STAGE_TRANSFER_BIT, dst_stages, 0, 1, &barrier, 0, nullptr, 0,
                       nullptr);
  uploader->flush();

  // One PatchDrawUniforms per patch instance, rewritten every frame (eye, viewport).
  const VkDeviceSize alignment =
      std::max<VkDeviceSize>(context.gpu.properties.limits.minUniformBufferOffsetAlignment, 16);
  patch_uniform_stride = (sizeof(PatchDrawUniforms) + alignment - 1) / alignment * alignment;
  const size_t draw_count = std::max<size_t>(scene.patch_instances.size(), 1);
  patch_uniforms = create_buffer(
      context, *scene_arena, patch_uniform_stride * draw_count, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, "the patch draw uniform buffer");

  const uint32_t sets = uint32_t(scene.patch_meshes.size());
  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, sets},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = sets;
  pool_info.poolSizeCount = 2;
  pool_info.pPoolSizes = sizes;
  vkutil::check(vkCreateDescriptorPool(context.gpu.device, &pool_info, nullptr, &patch_pool), "vkCreateDescriptorPool");
  for (PatchMeshBuffers& mesh : patch_meshes) {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = patch_pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &patch_set_layout;
    vkutil::check(vkAllocateDescriptorSets(context.gpu.device, &alloc, &mesh.set), "vkAllocateDescriptorSets");
    const VkDescriptorBufferInfo uniform_info{patch_uniforms.buffer, 0, sizeof(PatchDrawUniforms)};
    const GpuBuffer& field = mesh.heightfield.buffer != VK_NULL_HANDLE ? mesh.heightfield : empty_heightfield;
    const VkDescriptorBufferInfo field_info{field.buffer, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet writes[2]{};
    for (VkWriteDescriptorSet& w : writes) {
      w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      w.dstSet = mesh.set;
      w.descriptorCount = 1;
    }
    writes[0].dstBinding = 0;
    writes[0].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
    writes[0].pBufferInfo = &uniform_info;
    writes[1].dstBinding = 1;
    writes[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[1].pBufferInfo = &field_info;
    vkUpdateDescriptorSets(context.gpu.device, 2, writes, 0, nullptr);
  }
}

void ReferenceRenderer::Impl::write_patch_uniforms(const Camera& camera, int width, int height) {
  for (size_t i = 0; i < draws.patch_instances.size(); ++i) {
    const PatchInstance& instance = draws.patch_instances[i];
    const PatchMeshInfo& mesh = draws.patch_meshes[instance.patch_mesh];
    PatchDrawUniforms u{};
    u.model = instance.transform;
    const glm::mat3 normal_matrix = glm::transpose(glm::inverse(glm::mat3(instance.transform)));
    for (int c = 0; c < 3; ++c) u.normal_matrix[c] = glm::vec4(normal_matrix[c], 0.0f);
    u.eye = glm::vec4(camera.position, 1.0f);
    u.viewport = glm::vec4(float(width), float(height), 0.0f, 0.0f);
    u.levels = glm::vec4(mesh.settings.level, mesh.settings.reference_distance, mesh.settings.edge_pixels, 0.0f);
    u.field = mesh.field;
    u.mode = glm::uvec4(uint32_t(mesh.settings.mode), mesh.settings.cull ? 1u : 0u, uint32_t(mesh.kind),
                        mesh.field_resolution);
    std::memcpy(patch_uniforms.memory.mapped + i * patch_uniform_stride, &u, sizeof(u));
  }
}

void ReferenceRenderer::Impl::record(VkCommandBuffer cmd, const ReferenceOptions& options, bool with_readback) {
  vkutil::check(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkutil::check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");

  const bool statistics = with_readback && statistics_pool != VK_NULL_HANDLE;
  if (statistics) vkCmdResetQueryPool(cmd, statistics_pool, 0, 1);

  VkClearValue clears[3]{};  // the resolve attachment's entry is unused
  // Linear background; the sRGB attachment encodes it like any shader output.
  clears[0].color = {{draws.background.r, draws.background.g, draws.background.b, 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo pass{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  PassVariant& variant = pass_for(target_samples);
  pass.renderPass = variant.render_pass;
  pass.framebuffer = framebuffer;
  pass.renderArea = {{0, 0}, {uint32_t(target_width), uint32_t(target_height)}};
  pass.clearValueCount = target_samples > 1 ? 3 : 2;
  pass.pClearValues = clears;
  vkCmdBeginRenderPass(cmd, &pass, VK_SUBPASS_CONTENTS_INLINE);

  VkPipeline bound_instance_pipeline = variant.pipelines[options.cull_backface ? 1 : 0];
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, bound_instance_pipeline);
  const VkViewport viewport{0.0f, 0.0f, float(target_width), float(target_height), 0.0f, 1.0f};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  const VkRect2D scissor{{0, 0}, {uint32_t(target_width), uint32_t(target_height)}};
  vkCmdSetScissor(cmd, 0, 1, &scissor);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout, 0, 1, &frame_set, 0, nullptr);
  if (statistics) vkCmdBeginQuery(cmd, statistics_pool, 0, 0);

  // Set 1: the material's texture (white without one), rebound only when it changes.
  VkDescriptorSet bound_set = VK_NULL_HANDLE;
  const auto bind_material_set = [&](const Material& material) {
    const VkDescriptorSet set = material.texture >= 0 ? texture_sets[size_t(material.texture)] : white_set;
    if (set == bound_set) return;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout, 1, 1, &set, 0, nullptr);
    bound_set = set;
  };
  uint32_t bound_mesh = UINT32_MAX;
  // Opaque and masked materials first, then blended ones, each in scene order: Tessera's
  // submission order (pipeline/scene_draws.cpp).
  for (const bool blended_pass : {false, true})
    for (const Instance& instance : draws.instances) {
      const MeshBuffers& mesh = meshes[instance.mesh];
      if (mesh.index_count == 0) continue;
      const Material& material = draws.materials[instance.material];
      if ((material.alpha_mode == AlphaMode::blend) != blended_pass) continue;
      const VkPipeline pipeline =
          variant.pipelines[size_t((options.cull_backface && !material.double_sided ? 1 : 0) + (blended_pass ? 2 : 0))];
      if (pipeline != bound_instance_pipeline) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        bound_instance_pipeline = pipeline;
      }
      bind_material_set(material);
      InstancePushConstants push{};
      push.model = instance.transform;
      const glm::mat3 normal_matrix = glm::transpose(glm::inverse(glm::mat3(instance.transform)));
      for (int c = 0; c < 3; ++c) push.normal_matrix[c] = glm::vec4(normal_matrix[c], material.specular[c]);
      push.base_color =
          glm::vec4(material.base_color, material.texture >= 0 ? material.shininess : -material.shininess);
      pack_material(push, material);
      vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                         sizeof(push), &push);
      if (instance.mesh != bound_mesh) {
        const VkDeviceSize offset = 0;
        vkCmdBindVertexBuffers(cmd, 0, 1, &mesh.vertices.buffer, &offset);
        vkCmdBindIndexBuffer(cmd, mesh.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
        bound_mesh = instance.mesh;
      }
      vkCmdDrawIndexed(cmd, mesh.index_count, 1, 0, 0, 0);
    }

  // Patch instances after the instances, in scene order, as Tessera draws them.
  VkPipeline bound_pipeline = VK_NULL_HANDLE;
  for (size_t i = 0; i < draws.patch_instances.size(); ++i) {
    const PatchInstance& instance = draws.patch_instances[i];
    const PatchMeshBuffers& mesh = patch_meshes[instance.patch_mesh];
    if (mesh.index_count == 0) continue;
    const VkPipeline pipeline = patch_pipeline(variant, draws.patch_meshes[instance.patch_mesh], options.cull_backface);
    if (pipeline != bound_pipeline) {
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
      bound_pipeline = pipeline;
    }
    const Material& material = draws.materials[instance.material];
    bind_material_set(material);
    const uint32_t offset = uint32_t(i * patch_uniform_stride);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout, 2, 1, &mesh.set, 1, &offset);
    // The fragment stage's part of the push constants (the vertex part is unused here).
    InstancePushConstants push{};
    push.model = instance.transform;
    for (int c = 0; c < 3; ++c) push.normal_matrix[c] = glm::vec4(0.0f, 0.0f, 0.0f, material.specular[c]);
    push.base_color = glm::vec4(material.base_color, material.texture >= 0 ? material.shininess : -material.shininess);
    pack_material(push, material);
    vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push),
                       &push);
    const VkDeviceSize vertex_offset = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &mesh.control_points.buffer, &vertex_offset);
    vkCmdBindIndexBuffer(cmd, mesh.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    // In runs of patches_per_draw patches (the driver's 16-bit point numbering); the order of
    // the patches, and so of their triangles, is unchanged.
    const uint32_t per_patch = control_points_of(draws.patch_meshes[instance.patch_mesh].kind);
    const uint32_t run = mesh.patches_per_draw * per_patch;
    for (uint32_t first = 0; first < mesh.index_count; first += run) {
      vkCmdDrawIndexed(cmd, std::min(run, mesh.index_count - first), 1, first, 0, 0);
    }
  }
  if (statistics) vkCmdEndQuery(cmd, statistics_pool, 0);
  vkCmdEndRenderPass(cmd);

  if (with_readback) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {uint32_t(target_width), uint32_t(target_height), 1};
    vkCmdCopyImageToBuffer(cmd, color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
    VkBufferMemoryBarrier to_host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    to_host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_host.buffer = readback.buffer;
    to_host.offset = 0;
    to_host.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &to_host, 0,
                         nullptr);
  }
  vkutil::check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
}

namespace {

// Throws tessera::Error naming the scene and the element when the scene could make the device
// read out of bounds or exceeds a device limit.
void check_scene(const Scene& scene, const VkPhysicalDeviceLimits& limits, bool tessellation, const char* device_name) {
  const std::string what = "vkref: scene" + (scene.source.empty() ? std::string() : " " + scene.source.string());
  if (scene.lights.size() > size_t(kMaxLights)) {
    throw Error(what + ": " + std::to_string(scene.lights.size()) + " lights, at most " + std::to_string(kMaxLights));
  }
  // The model matrix's fourth row carries the material (shader_interface.h): transforms must
  // be affine, as every scene and glTF transform is.
  auto affine = [](const glm::mat4& m) {
    return m[0][3] == 0.0f && m[1][3] == 0.0f && m[2][3] == 0.0f && m[3][3] == 1.0f;
  };
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    if (!affine(scene.instances[i].transform)) {
      throw Error(what + ": instances[" + std::to_string(i) + "]: the reference renderer needs affine transforms");
    }
  }
  for (size_t i = 0; i < scene.patch_instances.size(); ++i) {
    if (!affine(scene.patch_instances[i].transform)) {
      throw Error(what + ": patch_instances[" + std::to_string(i) +
                  "]: the reference renderer needs affine transforms");
    }
  }
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    const Mesh& mesh = scene.meshes[m];
    const std::string name = what + ": mesh " + std::to_string(m) + " '" + mesh.name + "'";
    if (mesh.indices.size() % 3 != 0) throw Error(name + ": index count is not a multiple of 3");
    if (mesh.indices.size() > size_t(UINT32_MAX)) throw Error(name + ": too many indices");
    const size_t vertex_count = mesh.vertices.size();
    for (size_t i = 0; i < mesh.indices.size(); ++i) {
      if (mesh.indices[i] >= vertex_count) {
        throw Error(name + ": index " + std::to_string(i) + " = " + std::to_string(mesh.indices[i]) +
                    " is out of range (" + std::to_string(vertex_count) + " vertices)");
      }
    }
  }
  for (size_t t = 0; t < scene.textures.size(); ++t) {
    const Texture& texture = scene.textures[t];
    const std::string name = what + ": texture " + std::to_string(t) + " '" + texture.name + "'";
    if (texture.levels.empty()) throw Error(name + ": no mip levels");
    const int w0 = texture.levels[0].width;
    const int h0 = texture.levels[0].height;
    if (w0 < 1 || h0 < 1 || uint32_t(w0) > limits.maxImageDimension2D || uint32_t(h0) > limits.maxImageDimension2D) {
      throw Error(name + ": size " + std::to_string(w0) + "x" + std::to_string(h0) + " is outside 1.." +
                  std::to_string(limits.maxImageDimension2D));
    }
    const int full_chain = int(std::bit_width(uint32_t(std::max(w0, h0))));
    if (int(texture.levels.size()) > full_chain) {
      throw Error(name + ": " + std::to_string(texture.levels.size()) + " mip levels, at most " +
                  std::to_string(full_chain));
    }
    for (size_t l = 0; l < texture.levels.size(); ++l) {
      const Image& level = texture.levels[l];
      const int w = std::max(1, w0 >> l);
      const int h = std::max(1, h0 >> l);
      if (level.width != w || level.height != h || level.pixels.size() != size_t(w) * size_t(h)) {
        throw Error(name + ": mip level " + std::to_string(l) + " is " + std::to_string(level.width) + "x" +
                    std::to_string(level.height) + " with " + std::to_string(level.pixels.size()) +
                    " pixels, expected " + std::to_string(w) + "x" + std::to_string(h));
      }
    }
  }
  for (size_t m = 0; m < scene.materials.size(); ++m) {
    const int texture = scene.materials[m].texture;
    if (texture < -1 || texture >= int(scene.textures.size())) {
      throw Error(what + ": material " + std::to_string(m) + " uses texture " + std::to_string(texture) + " of " +
                  std::to_string(scene.textures.size()));
    }
  }
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    const Instance& instance = scene.instances[i];
    if (instance.mesh >= scene.meshes.size() || instance.material >= scene.materials.size()) {
      throw Error(what + ": instance " + std::to_string(i) + " uses mesh " + std::to_string(instance.mesh) + " of " +
                  std::to_string(scene.meshes.size()) + " and material " + std::to_string(instance.material) + " of " +
                  std::to_string(scene.materials.size()));
    }
  }
  for (size_t m = 0; m < scene.patch_meshes.size(); ++m) {
    const PatchMesh& mesh = scene.patch_meshes[m];
    const std::string name = what + ": patch mesh " + std::to_string(m) + " '" + mesh.name + "'";
    if (mesh.kind != PatchKind::bezier_quad && mesh.kind != PatchKind::pn_triangle &&
        mesh.kind != PatchKind::displaced_quad) {
      throw Error(name + ": unknown patch kind " + std::to_string(int(mesh.kind)));
    }
    const uint32_t per_patch = control_points_of(mesh.kind);
    if (mesh.control_points_per_patch != per_patch) {
      throw Error(name + ": " + std::to_string(mesh.control_points_per_patch) +
                  " control points per patch, its kind has " + std::to_string(per_patch));
    }
    if (mesh.indices.size() % per_patch != 0) {
      throw Error(name + ": index count is not a multiple of " + std::to_string(per_patch));
    }
    if (mesh.indices.size() > size_t(UINT32_MAX)) throw Error(name + ": too many indices");
    for (size_t i = 0; i < mesh.indices.size(); ++i) {
      if (mesh.indices[i] >= mesh.control_points.size()) {
        throw Error(name + ": index " + std::to_string(i) + " = " + std::to_string(mesh.indices[i]) +
                    " is out of range (" + std::to_string(mesh.control_points.size()) + " control points)");
      }
    }
    if (mesh.tessellation.mode != TessFactorMode::constant && mesh.tessellation.mode != TessFactorMode::distance &&
        mesh.tessellation.mode != TessFactorMode::edge_length) {
      throw Error(name + ": unknown tessellation mode " + std::to_string(int(mesh.tessellation.mode)));
    }
    if (mesh.tessellation.spacing != TessSpacing::kEqual && mesh.tessellation.spacing != TessSpacing::kFractionalOdd &&
        mesh.tessellation.spacing != TessSpacing::kFractionalEven) {
      throw Error(name + ": unknown tessellation spacing " + std::to_string(int(mesh.tessellation.spacing)));
    }
    if (const Heightfield* field = mesh.displacement.get(); field && mesh.kind == PatchKind::displaced_quad) {
      const size_t samples = size_t(std::max(field->resolution, 0)) * size_t(std::max(field->resolution, 0));
      if (field->resolution < 2 || field->resolution > 65536 || field->heights.size() != samples ||
          field->normals.size() != samples) {
        throw Error(name + ": height field of resolution " + std::to_string(field->resolution) + " has " +
                    std::to_string(field->heights.size()) + " heights and " + std::to_string(field->normals.size()) +
                    " normals, expected resolution >= 2 and resolution^2 of each");
      }
      if (!(field->extent > 0.0f)) throw Error(name + ": height field extent must be positive");
    }
  }
  for (size_t i = 0; i < scene.patch_instances.size(); ++i) {
    const PatchInstance& instance = scene.patch_instances[i];
    if (instance.patch_mesh >= scene.patch_meshes.size() || instance.material >= scene.materials.size()) {
      throw Error(what + ": patch instance " + std::to_string(i) + " uses patch mesh " +
                  std::to_string(instance.patch_mesh) + " of " + std::to_string(scene.patch_meshes.size()) +
                  " and material " + std::to_string(instance.material) + " of " +
                  std::to_string(scene.materials.size()));
    }
  }
  if (!scene.patch_instances.empty() && !tessellation) {
    throw Error(what + ": patch instances need the tessellationShader device feature, which " +
                std::string(device_name) + " lacks");
  }
}

}  // namespace

ReferenceRenderer::ReferenceRenderer() : impl_(std::make_unique<Impl>()) {}
ReferenceRenderer::~ReferenceRenderer() = default;

std::unique_ptr<ReferenceRenderer> ReferenceRenderer::create(const DeviceOptions& options) {
  std::unique_ptr<ReferenceRenderer> renderer(new ReferenceRenderer());
  try {
    renderer->impl_->init(options);  // on a throw, ~Impl releases whatever was created
  } catch (const Error& e) {
    // tools/vkutil's errors do not say who asked; the callers' messages name the renderer.
    const std::string what = e.what();
    if (what.starts_with("vkref: ")) throw;
    throw Error("vkref: " + what);
  }
  return renderer;
}

std::string ReferenceRenderer::device_name() const { return impl_->context.gpu.properties.deviceName; }

void ReferenceRenderer::upload(const Scene& scene) {
  Impl& s = *impl_;
  check_scene(scene, s.context.gpu.properties.limits, s.tessellation, s.context.gpu.properties.deviceName);
  vkutil::check(vkDeviceWaitIdle(s.context.gpu.device), "vkDeviceWaitIdle");
  s.release_scene();
  try {
    s.meshes.resize(scene.meshes.size());
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
      const Mesh& mesh = scene.meshes[m];
      MeshBuffers& out = s.meshes[m];
      if (mesh.indices.empty() || mesh.vertices.empty()) continue;
      const std::string what = "mesh '" + mesh.name + "'";
      const VkDeviceSize vertex_bytes = mesh.vertices.size() * sizeof(Vertex);
      const VkDeviceSize index_bytes = mesh.indices.size() * sizeof(uint32_t);
      out.vertices = create_buffer(s.context, *s.scene_arena, vertex_bytes,
                                   VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
                                   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what.c_str());
      out.indices = create_buffer(s.context, *s.scene_arena, index_bytes,
                                  VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
                                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what.c_str());
      out.index_count = uint32_t(mesh.indices.size());
      s.uploader->copy_to_buffer(out.vertices.buffer, 0, mesh.vertices.data(), vertex_bytes);
      s.uploader->copy_to_buffer(out.indices.buffer, 0, mesh.indices.data(), index_bytes);
    }
    // Vertex and index reads wait for the copies.
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT;
    vkCmdPipelineBarrier(s.uploader->commands(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0,
                         1, &barrier, 0, nullptr, 0, nullptr);

    for (const Texture& texture : scene.textures) {
      const std::string what = "texture '" + texture.name + "'";
      s.textures.push_back(s.upload_texture(texture, *s.scene_arena, what.c_str()));
    }
    s.uploader->flush();

    if (!scene.textures.empty()) {
      const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, uint32_t(scene.textures.size())};
      VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      pool_info.maxSets = uint32_t(scene.textures.size());
      pool_info.poolSizeCount = 1;
      pool_info.pPoolSizes = &size;
      vkutil::check(vkCreateDescriptorPool(s.context.gpu.device, &pool_info, nullptr, &s.scene_pool),
                    "vkCreateDescriptorPool");
      for (size_t t = 0; t < scene.textures.size(); ++t) {
        s.texture_sets.push_back(s.allocate_texture_set(
            s.scene_pool, s.textures[t], uint32_t(scene.textures[t].levels.size()), scene.textures[t].sampler));
      }
    }
    s.upload_patches(scene);
  } catch (...) {
    try {
      s.uploader->flush();
    } catch (...) {
      // The device is unusable; the resources below are still released.
    }
    vkDeviceWaitIdle(s.context.gpu.device);
    s.release_scene();
    throw;
  }
  s.draws.materials = scene.materials;
  s.draws.instances = scene.instances;
  s.draws.patch_instances = scene.patch_instances;
  s.draws.lights = scene.lights;
  s.draws.ambient = scene.ambient;
  s.draws.background = scene.background;
  s.draws.fog = scene.fog;
  s.draws.tone_mapping = scene.tone_mapping;
  s.draws.exposure = scene.exposure;
}

bool ReferenceRenderer::supports_tessellation() const { return impl_->tessellation; }

const ReferenceStats& ReferenceRenderer::last_stats() const { return impl_->last_stats; }

std::vector<int> ReferenceRenderer::supported_sample_counts() const {
  const VkPhysicalDeviceLimits& limits = impl_->context.gpu.properties.limits;
  const VkSampleCountFlags supported = limits.framebufferColorSampleCounts & limits.framebufferDepthSampleCounts;
  std::vector<int> counts;
  for (int n : {1, 2, 4, 8}) {
    if (supported & VkSampleCountFlags(n)) counts.push_back(n);
  }
  return counts;
}

Image ReferenceRenderer::render(const Camera& camera, const ReferenceOptions& options) {
  Impl& s = *impl_;
  s.ensure_target(options.width, options.height, options.samples);
  s.write_frame_uniforms(camera, options.width, options.height);
  s.write_patch_uniforms(camera, options.width, options.height);
  s.record(s.frame_cmd, options, true);
  s.context.submit_and_wait(s.frame_cmd);
  s.read_statistics();
  Image image(options.width, options.height);
  std::memcpy(image.pixels.data(), s.readback.memory.mapped, image.pixels.size() * sizeof(Rgba8));
  return image;
}

double ReferenceRenderer::render_timed(const Camera& camera, const ReferenceOptions& options, int repetitions,
                                       std::vector<double>* frame_ms) {
  if (repetitions < 1) {
    throw Error("vkref: render_timed needs at least one repetition, got " + std::to_string(repetitions));
  }
  Impl& s = *impl_;
  s.ensure_target(options.width, options.height, options.samples);
  s.write_frame_uniforms(camera, options.width, options.height);
  s.write_patch_uniforms(camera, options.width, options.height);
  s.record(s.frame_cmd, options, false);
  s.context.submit_and_wait(s.frame_cmd);  // warm-up: lazy pipeline compilation, caches
  std::vector<double> times;
  times.reserve(size_t(repetitions));
  for (int i = 0; i < repetitions; ++i) times.push_back(s.context.submit_and_wait(s.frame_cmd));
  if (frame_ms) *frame_ms = times;
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
}

}  // namespace tessera::vkref
