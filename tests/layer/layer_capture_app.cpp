// Frame capture end to end (docs/layer.md "Frame capture"): a Vulkan application on lavapipe
// under the layer with TESSERA_LAYER_CAPTURE set, then the capture file read back with
// tessera::capture::read_capture and checked against what the application knows.
//
//   layer_capture_app draws TCAP IMAGE [--validation] [--no-xfb]
//       three frames (one submission each, frame_delimiter = submit) of a render pass with an
//       indexed instanced draw, a tessellation draw and an indirect draw, then a dynamic-rendering
//       pass whose triangle strip is drawn by a secondary command buffer; each draw inside the application's own
//       pipeline-statistics query. TCAP is the capture of frame 1: per draw the captured primitives equal the GPU's
//       clipping invocations, positions equal the CPU transform of the known vertices (1e-6
//       relative), vertex and instance indices match, the tessellation draw's triangles equal
//       Tessera's tessellator count, and the colour attachment equals the application's own
//       read-back. IMAGE receives the final colour image (compared with a run without capture).
//       TCAP "-": no capture to check (the run without capture, for its image).
//       --no-xfb: the layer was told to do without transform feedback: every draw recorded as
//       not captured ("no_transform_feedback"), attachments still there.
//   layer_capture_app msaa TCAP [--validation]
//       the same render pass drawn 4x, resolve-style (colour and depth transient, not stored),
//       the list draws with a dynamic cull mode: the capture holds both 4x attachments per sample
//       (see run_msaa); `tessera replay` then compares coverage with them (layer.capture_msaa_replay).
//   layer_capture_app dynamic TCAP RECORDS [--validation]
//       five frames (0-4; the ctest captures frame 3) of a dynamic-rendering resolve-style 4x pass
//       (colour and depth TRANSIENT, stored DONT_CARE, colour resolved into a single-sample image):
//       the capture holds both 4x attachments per sample and the draw; RECORDS (the layer's
//       JSON Lines output) says the patched pipeline was bound in frame 3 only
//       (`capture_patched_binds`) and frame 3 has its `msaa` record.
//   layer_capture_app library TCAP RECORDS [--validation]
//       three frames (frame 1 captured) of the render pass with an indexed draw of a pipeline
//       linked from four VK_EXT_graphics_pipeline_library libraries, then the same draw with an
//       ordinary pipeline: the linked pipeline's draw is recorded `pipeline_library` (no patched
//       twin), the other captured; the records count one patched bind in frame 1 and in frame 0
//       (recorded in frame 0 or 1 before a capture frame: noted, as a recording ahead may be), none
//       in frame 2.
//   layer_capture_app ahead TCAP RECORDS
//       six frames recorded one frame ahead (each ONE_TIME_SUBMIT recording made before the
//       previous frame's submission ends that frame), frame 4 captured: the layer sees the
//       application record ahead (frame 1 submits a recording begun in frame 0), so the
//       recording made in frame 3 is noted and frame 4's draw captured; the records count patched
//       binds in frames 4 and 5 (frame 5's recording was begun in capture frame 4), none before.
//   layer_capture_app many TCAP1 TCAP2
//       300 draws in one pass instance, frames 0 and 1 captured: the first runs out of the
//       pass's 256 queries (44 draws query_limit), the second captures all (queries doubled).
//   layer_capture_app vkcube TCAP
//       vkcube's frame: 1 draw, 12 triangles, back faces culled, depth test, colour and depth.
//   layer_capture_app resume TCAP
//       the strip in a suspended and a resumed dynamic-rendering pass instance (see run_resume).
//   layer_capture_app list TCAP
//       one line per draw and attachment.
//   layer_capture_app clipping TCAP | scene SCENE.json WIDTH HEIGHT DRAWS TCAP
//       replay's checks against the GPU (layer_capture_replay.cpp).
#include <vulkan/vulkan.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "tessera/capture.h"
#include "tessera/config.h"
#include "tessera/replay.h"
#include "tessera/tessellator.h"
#include "test_app_support.h"

namespace layer_test {
int run_replay_modes(int argc, char** argv);  // layer_capture_replay.cpp; -1: not one of its modes
namespace {

const uint32_t kMvpVert[] =
#include "capture_mvp.vert.inc"
    ;
const uint32_t kColorFrag[] =
#include "color.frag.inc"
    ;
const uint32_t kLevelsTesc[] =
#include "capture_levels.tesc.inc"
    ;
const uint32_t kTriTese[] =
#include "tri.tese.inc"
    ;

constexpr VkFormat kDepth = VK_FORMAT_D32_SFLOAT;
constexpr uint32_t kInstances = 2;
constexpr std::array<float, 3> kOuter{2, 3, 4};
constexpr float kInner = 3;

// The known geometry: 8 vertices, 4 indexed triangles, tessellation patches and a strip from it.
const std::array<glm::vec3, 8> kVertices{{{-0.9f, -0.8f, 0.2f},
                                          {-0.1f, -0.7f, 0.3f},
                                          {-0.5f, 0.1f, 0.4f},
                                          {0.2f, -0.2f, 0.5f},
                                          {0.8f, 0.1f, 0.6f},
                                          {0.4f, 0.8f, 0.7f},
                                          {-0.7f, 0.5f, 0.25f},
                                          {0.0f, 0.9f, 0.35f}}};
const std::array<uint32_t, 12> kIndices{0, 1, 2, 1, 3, 2, 3, 4, 5, 2, 5, 7};
constexpr uint32_t kPatchVertices = 6;  // vertices 0..5: two patches
constexpr uint32_t kStripVertices = 5;  // vertices 3..7: three triangles
constexpr int32_t kVertexOffset = 0;

glm::mat4 transform() {
  // A perspective-ish matrix with every entry non-trivial, so the check sees a real transform.
  glm::mat4 m(1.0f);
  m[0] = {0.9f, 0.1f, 0.05f, 0.02f};
  m[1] = {-0.15f, 1.1f, 0.03f, -0.01f};
  m[2] = {0.2f, 0.12f, 0.8f, 0.3f};
  m[3] = {0.05f, -0.03f, 0.1f, 1.0f};
  return m;
}

struct App {
  vkutil::Instance instance;
  vkutil::Device g;
  Image colour, depth;
  // The msaa mode: the render pass draws into 4x colour and depth (TRANSIENT, not stored) and
  // resolves the colour into `colour`; the list pipeline takes its cull mode from the command
  // buffer (VK_DYNAMIC_STATE_CULL_MODE), set to back faces while the pipeline says none.
  // It also draws with vkCmdDrawMultiEXT (VK_EXT_multi_draw) when the device offers it.
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  Image msaa_colour, msaa_depth;
  PFN_vkCmdDrawMultiEXT draw_multi = nullptr;
  bool want_library = false;  // the library mode: VK_EXT_graphics_pipeline_library enabled
  bool library = false;       // and offered by the device
  VkRenderPass pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline list = VK_NULL_HANDLE, tess = VK_NULL_HANDLE, strip = VK_NULL_HANDLE;
  std::vector<VkShaderModule> modules;
  vkutil::Buffer vertices, indices, indirect, readback;
  VkQueryPool stats = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
};

// `rendering_samples` > 1: a dynamic-rendering pipeline of that many samples with depth.
VkPipeline make_pipeline(App& a, VkPrimitiveTopology topology, bool tessellation, bool dynamic_rendering,
                         bool dynamic_cull = false, VkSampleCountFlagBits rendering_samples = VK_SAMPLE_COUNT_1_BIT) {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  auto stage = [&](VkShaderStageFlagBits s, VkShaderModule m) {
    VkPipelineShaderStageCreateInfo i{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    i.stage = s;
    i.module = m;
    i.pName = "main";
    stages.push_back(i);
  };
  stage(VK_SHADER_STAGE_VERTEX_BIT, a.modules[0]);
  stage(VK_SHADER_STAGE_FRAGMENT_BIT, a.modules[1]);
  if (tessellation) {
    stage(VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, a.modules[2]);
    stage(VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, a.modules[3]);
  }
  VkVertexInputBindingDescription binding{0, sizeof(glm::vec3), VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attribute{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0};
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vi.vertexBindingDescriptionCount = 1;
  vi.pVertexBindingDescriptions = &binding;
  vi.vertexAttributeDescriptionCount = 1;
  vi.pVertexAttributeDescriptions = &attribute;
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = topology;
  VkPipelineTessellationStateCreateInfo ts{VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
  ts.patchControlPoints = 3;
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.scissorCount = 1;
  const VkDynamicState dynamic[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR, VK_DYNAMIC_STATE_CULL_MODE};
  VkPipelineDynamicStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  ds.dynamicStateCount = dynamic_cull ? 3 : 2;
  ds.pDynamicStates = dynamic;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.polygonMode = VK_POLYGON_MODE_FILL;
  rs.cullMode = VK_CULL_MODE_NONE;
  rs.frontFace = VK_FRONT_FACE_CLOCKWISE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  const bool rendering_depth = dynamic_rendering && rendering_samples != VK_SAMPLE_COUNT_1_BIT;
  ms.rasterizationSamples = dynamic_rendering ? rendering_samples : a.samples;
  VkPipelineDepthStencilStateCreateInfo dss{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  dss.depthTestEnable = !dynamic_rendering || rendering_depth;
  dss.depthWriteEnable = !dynamic_rendering || rendering_depth;
  dss.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachmentFormats = &kFormat;
  if (rendering_depth) rendering.depthAttachmentFormat = kDepth;
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.pNext = dynamic_rendering ? &rendering : nullptr;
  ci.stageCount = uint32_t(stages.size());
  ci.pStages = stages.data();
  ci.pVertexInputState = &vi;
  ci.pInputAssemblyState = &ia;
  ci.pTessellationState = tessellation ? &ts : nullptr;
  ci.pViewportState = &vp;
  ci.pRasterizationState = &rs;
  ci.pMultisampleState = &ms;
  ci.pDepthStencilState = &dss;
  ci.pColorBlendState = &cb;
  ci.pDynamicState = &ds;
  ci.layout = a.layout;
  ci.renderPass = dynamic_rendering ? VK_NULL_HANDLE : a.pass;
  VkPipeline p = VK_NULL_HANDLE;
  CHECK_VK(vkCreateGraphicsPipelines(a.g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  return p;
}

bool has_device_extension(VkPhysicalDevice physical, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> props(n);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, props.data());
  for (const VkExtensionProperties& p : props)
    if (std::strcmp(p.extensionName, name) == 0) return true;
  return false;
}

void setup(App& a, bool validation, VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT) {
  a.samples = samples;
  vkutil::InstanceOptions options;
  options.application_name = "tessera_layer_capture_app";
  options.api_version = VK_API_VERSION_1_3;
  options.validation = validation;
  options.log = &g_validation;
  a.instance = vkutil::Instance(options);
  a.g = vkutil::choose_physical_device(a.instance.handle(), VK_QUEUE_GRAPHICS_BIT);
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  f13.dynamicRendering = VK_TRUE;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f13;
  f2.features.tessellationShader = VK_TRUE;
  f2.features.pipelineStatisticsQuery = VK_TRUE;
  vkutil::DeviceRequest request;
  request.next = &f2;
  VkPhysicalDeviceMultiDrawFeaturesEXT multi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT};
  if (samples != VK_SAMPLE_COUNT_1_BIT && has_device_extension(a.g.physical, VK_EXT_MULTI_DRAW_EXTENSION_NAME)) {
    multi.multiDraw = VK_TRUE;
    f13.pNext = &multi;
    request.extensions.push_back(VK_EXT_MULTI_DRAW_EXTENSION_NAME);
  }
  VkPhysicalDeviceGraphicsPipelineLibraryFeaturesEXT gpl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT};
  if (a.want_library && has_device_extension(a.g.physical, VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME)) {
    gpl.graphicsPipelineLibrary = VK_TRUE;
    gpl.pNext = f13.pNext;
    f13.pNext = &gpl;
    request.extensions.push_back(VK_KHR_PIPELINE_LIBRARY_EXTENSION_NAME);
    request.extensions.push_back(VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME);
    a.library = true;
  }
  vkutil::create_device(a.g, request);
  const VkDevice dev = a.g.device;
  if (multi.multiDraw)
    a.draw_multi = reinterpret_cast<PFN_vkCmdDrawMultiEXT>(vkGetDeviceProcAddr(dev, "vkCmdDrawMultiEXT"));

  // Colour readable by the application itself; depth only an attachment (the layer makes it
  // copyable for the capture).
  a.colour = vkutil::create_image(
      a.g, {kSize, kSize, 1, kFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
            VK_IMAGE_ASPECT_COLOR_BIT, VK_SAMPLE_COUNT_1_BIT});
  a.depth = vkutil::create_image(a.g, {kSize, kSize, 1, kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                       VK_IMAGE_ASPECT_DEPTH_BIT, VK_SAMPLE_COUNT_1_BIT});
  VkAttachmentDescription att[3] = {};
  att[0].format = kFormat;
  att[0].samples = VK_SAMPLE_COUNT_1_BIT;
  att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att[0].finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  att[1] = att[0];
  att[1].format = kDepth;
  att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  VkAttachmentReference colour_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkAttachmentReference resolve_ref{2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &colour_ref;
  sub.pDepthStencilAttachment = &depth_ref;
  const bool msaa = samples != VK_SAMPLE_COUNT_1_BIT;
  if (msaa) {
    // Resolve-style, as engines write it: 4x colour and depth transient and not stored, the
    // colour resolved into the single-sample image.
    const VkImageUsageFlags transient = VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
    a.msaa_colour =
        vkutil::create_image(a.g, {kSize, kSize, 1, kFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | transient,
                                   VK_IMAGE_ASPECT_COLOR_BIT, samples});
    a.msaa_depth =
        vkutil::create_image(a.g, {kSize, kSize, 1, kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | transient,
                                   VK_IMAGE_ASPECT_DEPTH_BIT, samples});
    att[2] = att[0];  // the resolve target: the single-sample colour, stored
    att[2].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    for (int i = 0; i < 2; ++i) {
      att[i].samples = samples;
      att[i].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    }
    sub.pResolveAttachments = &resolve_ref;
  }
  VkSubpassDependency dep{
      VK_SUBPASS_EXTERNAL,
      0,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
          VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
          VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT,
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
      0};
  VkRenderPassCreateInfo rpci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rpci.attachmentCount = msaa ? 3 : 2;
  rpci.pAttachments = att;
  rpci.subpassCount = 1;
  rpci.pSubpasses = &sub;
  rpci.dependencyCount = 1;
  rpci.pDependencies = &dep;
  CHECK_VK(vkCreateRenderPass(dev, &rpci, nullptr, &a.pass));
  const VkImageView views[3] = {msaa ? a.msaa_colour.view : a.colour.view, msaa ? a.msaa_depth.view : a.depth.view,
                                a.colour.view};
  VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fci.renderPass = a.pass;
  fci.attachmentCount = msaa ? 3 : 2;
  fci.pAttachments = views;
  fci.width = fci.height = kSize;
  fci.layers = 1;
  CHECK_VK(vkCreateFramebuffer(dev, &fci, nullptr, &a.framebuffer));

  const VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(glm::mat4)};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  CHECK_VK(vkCreatePipelineLayout(dev, &plci, nullptr, &a.layout));
  a.modules = {make_shader(a.g, kMvpVert), make_shader(a.g, kColorFrag), make_shader(a.g, kLevelsTesc),
               make_shader(a.g, kTriTese)};
  a.list = make_pipeline(a, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, msaa);
  a.tess = make_pipeline(a, VK_PRIMITIVE_TOPOLOGY_PATCH_LIST, true, false);
  a.strip = make_pipeline(a, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, false, true);

  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  a.vertices = vkutil::create_buffer(a.g, sizeof kVertices, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, host);
  std::memcpy(a.vertices.mapped, kVertices.data(), sizeof kVertices);
  a.indices = vkutil::create_buffer(a.g, sizeof kIndices, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, host);
  std::memcpy(a.indices.mapped, kIndices.data(), sizeof kIndices);
  a.indirect = vkutil::create_buffer(a.g, sizeof(VkDrawIndirectCommand), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, host);
  const VkDrawIndirectCommand args{3, 1, 5, 0};  // vertices 5, 6, 7
  std::memcpy(a.indirect.mapped, &args, sizeof args);
  a.readback = vkutil::create_buffer(a.g, kSize * kSize * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, host);
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
  qci.queryCount = 4;
  qci.pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT;
  CHECK_VK(vkCreateQueryPool(dev, &qci, nullptr, &a.stats));
  a.pool = vkutil::create_command_pool(a.g, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
}

// The dynamic-rendering pass's contents: a secondary command buffer (its draws are captured
// through transform-feedback counters: no query can be reset inside a pass).
void record_secondary(App& a, VkCommandBuffer sec) {
  VkCommandBufferInheritanceRenderingInfo rendering{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_RENDERING_INFO};
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachmentFormats = &kFormat;
  rendering.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkCommandBufferInheritanceInfo inh{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
  inh.pNext = &rendering;
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT | VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT;
  bi.pInheritanceInfo = &inh;
  CHECK_VK(vkBeginCommandBuffer(sec, &bi));
  const VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
  const VkRect2D scissor{{0, 0}, {kSize, kSize}};
  const glm::mat4 m = transform();
  const VkDeviceSize zero = 0;
  vkCmdBindPipeline(sec, VK_PIPELINE_BIND_POINT_GRAPHICS, a.strip);
  vkCmdSetViewport(sec, 0, 1, &viewport);
  vkCmdSetScissor(sec, 0, 1, &scissor);
  vkCmdBindVertexBuffers(sec, 0, 1, &a.vertices.buffer, &zero);
  vkCmdPushConstants(sec, a.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
  vkCmdBeginQuery(sec, a.stats, 3, 0);
  vkCmdDraw(sec, kStripVertices, 1, 3, 0);
  vkCmdEndQuery(sec, a.stats, 3);
  CHECK_VK(vkEndCommandBuffer(sec));
}

// One frame's commands (recorded anew each frame, ONE_TIME_SUBMIT, as most engines do).
void record(App& a, VkCommandBuffer cb, VkCommandBuffer sec) {
  const bool msaa = a.samples != VK_SAMPLE_COUNT_1_BIT;
  if (!msaa) record_secondary(a, sec);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  CHECK_VK(vkBeginCommandBuffer(cb, &bi));
  vkCmdResetQueryPool(cb, a.stats, 0, 4);
  VkClearValue clears[3];
  clears[0].color = {{0.1f, 0.2f, 0.3f, 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  clears[2] = clears[0];
  VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rbi.renderPass = a.pass;
  rbi.framebuffer = a.framebuffer;
  rbi.renderArea = {{0, 0}, {kSize, kSize}};
  rbi.clearValueCount = msaa ? 3 : 2;
  rbi.pClearValues = clears;
  vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
  const VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
  const VkRect2D scissor{{0, 0}, {kSize, kSize}};
  vkCmdSetViewport(cb, 0, 1, &viewport);
  vkCmdSetScissor(cb, 0, 1, &scissor);
  const glm::mat4 m = transform();
  const VkDeviceSize zero = 0;
  vkCmdBindVertexBuffers(cb, 0, 1, &a.vertices.buffer, &zero);
  vkCmdBindIndexBuffer(cb, a.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a.list);
  if (msaa) vkCmdSetCullMode(cb, VK_CULL_MODE_BACK_BIT);
  vkCmdPushConstants(cb, a.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
  vkCmdBeginQuery(cb, a.stats, 0, 0);
  vkCmdDrawIndexed(cb, uint32_t(kIndices.size()), kInstances, 0, kVertexOffset, 0);
  vkCmdEndQuery(cb, a.stats, 0);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a.tess);
  vkCmdBeginQuery(cb, a.stats, 1, 0);
  vkCmdDraw(cb, kPatchVertices, 1, 0, 0);
  vkCmdEndQuery(cb, a.stats, 1);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a.list);
  if (msaa) vkCmdSetCullMode(cb, VK_CULL_MODE_BACK_BIT);  // a static pipeline bound since: set again
  vkCmdBeginQuery(cb, a.stats, 2, 0);
  vkCmdDrawIndirect(cb, a.indirect.buffer, 0, 1, sizeof(VkDrawIndirectCommand));
  vkCmdEndQuery(cb, a.stats, 2);
  if (a.draw_multi) {
    // One call of one list draw (vertices 3-5), one of two (vertices 0-2 and 3-5).
    const VkMultiDrawInfoEXT parts[2] = {{0, 3}, {3, 3}};
    a.draw_multi(cb, 1, parts + 1, 1, 0, sizeof(VkMultiDrawInfoEXT));
    a.draw_multi(cb, 2, parts, 1, 0, sizeof(VkMultiDrawInfoEXT));
  }
  vkCmdEndRenderPass(cb);
  if (msaa) {
    CHECK_VK(vkEndCommandBuffer(cb));
    return;
  }

  VkRenderingAttachmentInfo colour{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  colour.imageView = a.colour.view;
  colour.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  colour.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
  colour.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
  ri.renderArea = {{0, 0}, {kSize, kSize}};
  ri.layerCount = 1;
  ri.colorAttachmentCount = 1;
  ri.pColorAttachments = &colour;
  ri.flags = VK_RENDERING_CONTENTS_SECONDARY_COMMAND_BUFFERS_BIT;
  vkCmdBeginRendering(cb, &ri);
  vkCmdExecuteCommands(cb, 1, &sec);
  vkCmdEndRendering(cb);

  // The application's own read-back of its colour image.
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = a.colour.image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                       0, nullptr, 1, &b);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {kSize, kSize, 1};
  vkCmdCopyImageToBuffer(cb, a.colour.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, a.readback.buffer, 1, &region);
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                       nullptr);
  CHECK_VK(vkEndCommandBuffer(cb));
}

void teardown(App& a) {
  const VkDevice dev = a.g.device;
  vkDestroyCommandPool(dev, a.pool, nullptr);
  vkDestroyQueryPool(dev, a.stats, nullptr);
  for (vkutil::Buffer* b : {&a.vertices, &a.indices, &a.indirect, &a.readback}) vkutil::destroy_buffer(dev, *b);
  for (VkPipeline p : {a.list, a.tess, a.strip}) vkDestroyPipeline(dev, p, nullptr);
  for (VkShaderModule m : a.modules) vkDestroyShaderModule(dev, m, nullptr);
  vkDestroyPipelineLayout(dev, a.layout, nullptr);
  vkDestroyFramebuffer(dev, a.framebuffer, nullptr);
  vkDestroyRenderPass(dev, a.pass, nullptr);
  destroy_image(a.g, a.colour);
  destroy_image(a.g, a.depth);
  if (a.samples != VK_SAMPLE_COUNT_1_BIT) {
    destroy_image(a.g, a.msaa_colour);
    destroy_image(a.g, a.msaa_depth);
  }
  vkDestroyDevice(dev, nullptr);
  a.instance.destroy();
}

bool close(const glm::vec4& got, const glm::vec4& want) {
  const float scale = std::max({std::fabs(want.x), std::fabs(want.y), std::fabs(want.z), std::fabs(want.w)});
  for (int i = 0; i < 4; ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-6f * scale)) return false;
  return true;
}

glm::vec4 cpu_vertex(uint32_t index, uint32_t instance) {
  const glm::vec3 p = kVertices[index] + glm::vec3(0.25f * float(instance), 0.0f, 0.0f);
  return transform() * glm::vec4(p, 1.0f);
}

// Begins a one-time recording and the single-sample render pass with the usual clears.
void begin_frame_pass(App& a, VkCommandBuffer cb) {
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  CHECK_VK(vkBeginCommandBuffer(cb, &bi));
  VkClearValue clears[2];
  clears[0].color = {{0.1f, 0.2f, 0.3f, 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rbi.renderPass = a.pass;
  rbi.framebuffer = a.framebuffer;
  rbi.renderArea = {{0, 0}, {kSize, kSize}};
  rbi.clearValueCount = 2;
  rbi.pClearValues = clears;
  vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
}

void expect_no_validation_messages() {
  std::printf("validation messages: %d errors, %d warnings\n", g_validation.errors.load(),
              g_validation.warnings.load());
  expect(g_validation.errors.load() == 0 && g_validation.warnings.load() == 0, "no validation messages");
}

// Calls check(frame, record) for each frame record of the layer's JSON lines file and expects
// one per frame.
void check_records(const std::string& records, int frames,
                   const std::function<void(int, const nlohmann::json&)>& check) {
  std::ifstream in(records);
  expect(bool(in), "read " + records);
  std::string line;
  int seen = 0;
  while (std::getline(in, line)) {
    const nlohmann::json r = nlohmann::json::parse(line);
    if (r.contains("summary")) continue;
    ++seen;
    check(r.at("frame").get<int>(), r);
  }
  expect_eq("frame records", seen, frames);
}

int run_draws(const std::string& tcap, const std::string& image_out, bool validation, bool no_xfb) {
  App a;
  setup(a, validation);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(a.g.device, a.pool);
  VkCommandBuffer sec = vkutil::allocate_command_buffer(a.g.device, a.pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
  VkFence fence = vkutil::create_fence(a.g.device);
  std::array<uint64_t, 4> clipping{};
  std::vector<uint8_t> image(kSize * kSize * 4);
  for (int frame = 0; frame < 3; ++frame) {
    record(a, cb, sec);
    vkutil::submit_and_wait(a.g, cb, fence);
    if (frame == 1) {
      CHECK_VK(vkGetQueryPoolResults(a.g.device, a.stats, 0, 4, sizeof clipping, clipping.data(), sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      std::memcpy(image.data(), a.readback.mapped, image.size());
    }
  }
  vkDestroyFence(a.g.device, fence, nullptr);
  teardown(a);  // the layer's writer thread has finished when vkDestroyDevice returns
  if (validation) expect_no_validation_messages();
  {
    std::ofstream out(image_out, std::ios::binary);
    out.write(reinterpret_cast<const char*>(image.data()), std::streamsize(image.size()));
    expect(bool(out), "wrote " + image_out);
  }

  if (tcap == "-") return g_failures ? 1 : 0;  // no capture: the image only
  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames in the capture", cap.frames.size(), 1);
  if (cap.frames.size() != 1) return 1;
  const tessera::capture::Frame& f = cap.frames[0];
  expect_eq("frame number", f.number, 1);
  expect_eq("application", cap.application == "tessera_layer_capture_app", 1);
  expect_eq("draws", f.draws.size(), 4);
  expect_eq("passes", f.passes.size(), 2);
  if (f.draws.size() != 4 || f.passes.size() != 2) return 1;

  // Attachments: the render pass's colour and depth, the dynamic-rendering pass's colour.
  const auto& p0 = f.passes[0];
  expect_eq("pass 0 attachments", p0.attachments.size(), 2);
  expect(!p0.dynamic_rendering && f.passes[1].dynamic_rendering, "pass kinds");
  if (p0.attachments.size() == 2) {
    const auto& c = p0.attachments[0];
    const auto& dpt = p0.attachments[1];
    expect(c.kind == tessera::capture::AttachmentKind::color && c.skip_reason.empty(), "pass 0 colour read back");
    expect(dpt.kind == tessera::capture::AttachmentKind::depth && dpt.skip_reason.empty(), "pass 0 depth read back");
    expect_eq("depth texels", dpt.texels.size(), kSize * kSize * 4);
    if (dpt.texels.size() == kSize * kSize * 4) {
      size_t drawn = 0, cleared = 0;
      for (size_t i = 0; i < kSize * kSize; ++i) {
        float z = 0;
        std::memcpy(&z, dpt.texels.data() + i * 4, 4);
        drawn += z < 1.0f && z >= 0.0f;
        cleared += z == 1.0f;
      }
      expect(drawn > 0 && cleared > 0, "depth holds drawn and cleared pixels");
    }
    expect_eq("pass 0 clear colour", p0.clear_colors.size() == 1 && p0.clear_colors[0].y == 0.2f, 1);
  }
  if (f.passes[1].attachments.size() == 1)
    expect(f.passes[1].attachments[0].texels == image, "the final colour attachment equals the application's image");
  else
    expect(false, "pass 1 has one attachment");

  const auto& d0 = f.draws[0];
  const auto& d1 = f.draws[1];
  const auto& d2 = f.draws[2];
  const auto& d3 = f.draws[3];
  expect(d0.call == tessera::capture::DrawCall::draw_indexed && d1.call == tessera::capture::DrawCall::draw &&
             d2.call == tessera::capture::DrawCall::draw_indirect && d3.call == tessera::capture::DrawCall::draw,
         "draw calls in submission order");
  expect(d0.pass == 0 && d1.pass == 0 && d2.pass == 0 && d3.pass == 1, "draws' passes");
  expect(d0.state.raster.depth.test && d0.state.raster.depth.compare == tessera::CompareOp::less_or_equal &&
             d0.state.raster.front_face == tessera::FrontFace::clockwise &&
             d0.state.raster.cull == tessera::CullMode::none && !d3.state.raster.depth.test,
         "draw state");
  expect(d0.state.viewports.size() == 1 && d0.state.viewports[0].width == float(kSize), "dynamic viewport");
  expect(d3.state.application_topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, "strip topology");
  expect(d0.shaders.size() == 2 && d1.shaders.size() == 4 && d0.shaders[0].instructions > 0,
         "shaders and their instruction counts");
  if (no_xfb) {
    for (const auto& d : f.draws)
      expect(!d.captured && d.skip_reason == "no_transform_feedback" && d.positions.empty(),
             "draw recorded as not captured: no_transform_feedback");
    return g_failures ? 1 : 0;
  }

  // Every draw captured; primitives = the GPU's clipping invocations for that draw.
  for (size_t i = 0; i < 4; ++i) {
    const auto& d = f.draws[i];
    expect(d.captured && d.skip_reason.empty(), "draw " + std::to_string(i) + " captured (" + d.skip_reason + ")");
    expect_eq("draw " + std::to_string(i) + " primitives vs clipping invocations", d.positions.size() / 3, clipping[i]);
    expect_eq("draw " + std::to_string(i) + " primitives written", d.primitives_written, clipping[i]);
  }
  // Positions: the CPU's transform of the known vertices, in the order the GPU emitted them.
  expect_eq("draw 0 positions", d0.positions.size(), kIndices.size() * kInstances);
  expect_eq("draw 0 vertex ids", d0.vertex_ids.size(), d0.positions.size());
  for (size_t i = 0; i < d0.positions.size() && i < kIndices.size() * kInstances; ++i) {
    const uint32_t instance = uint32_t(i / kIndices.size()), index = kIndices[i % kIndices.size()];
    expect(close(d0.positions[i], cpu_vertex(index, instance)), "draw 0 position " + std::to_string(i));
    if (i < d0.vertex_ids.size())
      expect(d0.vertex_ids[i] == index + kVertexOffset && d0.instance_ids[i] == instance,
             "draw 0 vertex/instance index " + std::to_string(i));
  }
  for (size_t i = 0; i < d2.positions.size(); ++i)
    expect(close(d2.positions[i], cpu_vertex(uint32_t(5 + i), 0)), "indirect draw position " + std::to_string(i));
  // A strip is emitted as separate triangles: (3,4,5), (5,4,6) or (4,5,6) order per the rules for
  // odd triangles; compare as sets of vertices per triangle.
  for (size_t t = 0; t * 3 + 2 < d3.positions.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      bool found = false;
      for (uint32_t v = 0; v < 3; ++v) found |= close(d3.positions[t * 3 + k], cpu_vertex(uint32_t(3 + t + v), 0));
      expect(found, "strip triangle " + std::to_string(t) + " vertex " + std::to_string(k));
    }
  // Tessellation: Tessera's tessellator on the same levels, per patch.
  tessera::TessFactors factors;
  factors.outer = {kOuter[0], kOuter[1], kOuter[2], 0.0f};
  factors.inner = {kInner, 0.0f};
  const size_t per_patch =
      tessera::tessellate(tessera::TessDomain::kTriangle, tessera::TessSpacing::kEqual, factors).primitive_count();
  expect_eq("tessellation triangles vs Tessera's tessellator", d1.positions.size() / 3,
            per_patch * (kPatchVertices / 3));
  expect(d1.vertex_ids.empty(), "tessellation draw: no vertex indices");
  std::printf("capture: %zu draws, %zu + %zu + %zu + %zu triangles, tessellator %zu per patch\n", f.draws.size(),
              d0.positions.size() / 3, d1.positions.size() / 3, d2.positions.size() / 3, d3.positions.size() / 3,
              per_patch);
  return g_failures ? 1 : 0;
}

// The msaa mode: three frames of the 4x resolve-style pass (one submission each); TCAP is the
// capture of frame 1. Its multisampled colour and depth are read back per sample and agree with
// each other sample by sample (a sample is drawn exactly where its depth left the clear value),
// with drawn and partly covered pixels; the resolved colour equals the samples where a pixel's
// samples agree; the list draws record the dynamic cull mode (back) over the pipeline's none.
int run_msaa(const std::string& tcap, bool validation) {
  App a;
  setup(a, validation, VK_SAMPLE_COUNT_4_BIT);
  const bool multi_draw = a.draw_multi != nullptr;
  VkCommandBuffer cb = vkutil::allocate_command_buffer(a.g.device, a.pool);
  VkFence fence = vkutil::create_fence(a.g.device);
  for (int frame = 0; frame < 3; ++frame) {
    record(a, cb, VK_NULL_HANDLE);
    vkutil::submit_and_wait(a.g, cb, fence);
  }
  vkDestroyFence(a.g.device, fence, nullptr);
  teardown(a);
  if (validation) expect_no_validation_messages();
  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames in the capture", cap.frames.size(), 1);
  if (cap.frames.size() != 1) return 1;
  const tessera::capture::Frame& f = cap.frames[0];
  const size_t draws = multi_draw ? 5 : 3;
  expect_eq("passes", f.passes.size(), 1);
  expect_eq("draws", f.draws.size(), draws);
  if (f.passes.size() != 1 || f.draws.size() != draws) return 1;
  if (multi_draw) {
    // vkCmdDrawMultiEXT: each call one captured draw holding its parts' triangles, in order.
    const auto& one = f.draws[3];
    expect(one.captured && one.call == tessera::capture::DrawCall::draw_multi && one.vertex_count == 3,
           "one-part multi draw captured (" + one.skip_reason + ")");
    expect_eq("one-part multi draw triangles", one.positions.size() / 3, 1);
    for (size_t i = 0; i < one.positions.size() && i < 3; ++i)
      expect(close(one.positions[i], cpu_vertex(uint32_t(3 + i), 0)), "multi draw position " + std::to_string(i));
    expect(one.state.raster.cull == tessera::CullMode::back, "multi draw: the dynamic cull mode (back)");
    // Two parts: transform feedback carries on from the first into the second.
    const auto& two = f.draws[4];
    expect(two.captured && two.vertex_count == 6 && two.primitives_needed == 2,
           "two-part multi draw captured: 6 vertices, 2 primitives (" + two.skip_reason + ")");
    expect_eq("two-part multi draw triangles", two.positions.size() / 3, 2);
    for (size_t i = 0; i < two.positions.size() && i < 6; ++i)
      expect(close(two.positions[i], cpu_vertex(uint32_t(i), 0)), "multi draw position " + std::to_string(i));
    std::printf("two-part multi draw: %s (written %llu of %llu)\n", two.captured ? "captured" : two.skip_reason.c_str(),
                (unsigned long long)two.primitives_written, (unsigned long long)two.primitives_needed);
  }
  std::printf("multi draw: %s\n", multi_draw ? "VK_EXT_multi_draw used" : "VK_EXT_multi_draw not offered");
  const auto& p = f.passes[0];
  expect_eq("pass samples", p.samples, 4);
  expect_eq("attachments (4x colour, resolve, 4x depth)", p.attachments.size(), 3);
  if (p.attachments.size() != 3) return 1;
  const auto& ms = p.attachments[0];
  const auto& resolve = p.attachments[1];
  const auto& depth = p.attachments[2];
  const size_t pixels = size_t(kSize) * kSize, n = 4;
  expect(ms.skip_reason.empty() && ms.samples == 4 && ms.texels.size() == pixels * n * 4,
         "4x colour read back per sample (" + ms.skip_reason + ")");
  expect(resolve.skip_reason.empty() && resolve.samples == 1 && resolve.texels.size() == pixels * 4,
         "resolved colour read back (" + resolve.skip_reason + ")");
  expect(depth.kind == tessera::capture::AttachmentKind::depth && depth.skip_reason.empty() && depth.samples == 4 &&
             depth.texels.size() == pixels * n * 4,
         "4x depth read back per sample (" + depth.skip_reason + ")");
  for (size_t i = 0; i < 2; ++i)
    expect(f.draws[i == 0 ? 0 : 2].state.raster.cull == tessera::CullMode::back,
           "list draw " + std::to_string(i == 0 ? 0 : 2) + ": the dynamic cull mode (back)");
  expect(f.draws[1].state.raster.cull == tessera::CullMode::none, "tessellation draw: the pipeline's cull mode (none)");
  if (!g_failures) {
    auto word = [](const std::vector<uint8_t>& t, size_t i) {
      uint32_t w = 0;
      std::memcpy(&w, t.data() + 4 * i, 4);
      return w;
    };
    auto z = [&](size_t i) {
      float v = 0;
      std::memcpy(&v, depth.texels.data() + 4 * i, 4);
      return v;
    };
    // The clear colour as stored: a sample whose depth is the clear depth.
    uint32_t clear = 0;
    bool have_clear = false;
    for (size_t i = 0; i < pixels * n && !have_clear; ++i)
      if (z(i) == 1.0f) clear = word(ms.texels, i), have_clear = true;
    expect(have_clear, "some samples keep the clear depth");
    size_t drawn = 0, partial = 0, disagree = 0, resolved_checked = 0, resolved_wrong = 0;
    for (size_t px = 0; px < pixels; ++px) {
      size_t covered = 0;
      bool same = true;
      for (size_t k = 0; k < n; ++k) {
        const size_t i = px * n + k;
        const bool colour_drawn = word(ms.texels, i) != clear, depth_drawn = z(i) != 1.0f;
        disagree += colour_drawn != depth_drawn;
        covered += depth_drawn;
        same &= word(ms.texels, i) == word(ms.texels, px * n);
      }
      drawn += covered > 0;
      partial += covered > 0 && covered < n;
      if (same) {
        ++resolved_checked;
        resolved_wrong += word(resolve.texels, px) != word(ms.texels, px * n);
      }
    }
    expect_eq("samples whose colour and depth disagree on being drawn", disagree, 0);
    expect(drawn > 0 && partial > 0, "drawn pixels and partly covered edge pixels");
    expect(resolved_checked > 0, "pixels whose samples agree");
    expect_eq("resolved pixels differing from their (equal) samples", resolved_wrong, 0);
    std::printf("msaa capture: %zu pixels drawn, %zu partly covered, %zu resolved pixels checked\n", drawn, partial,
                resolved_checked);
  }
  return g_failures ? 1 : 0;
}

// The dynamic mode (see the top): a dynamic-rendering pass drawn 4x resolve-style, one
// submission per frame, recorded anew each frame (ONE_TIME_SUBMIT).
int run_dynamic(const std::string& tcap, const std::string& records, bool validation) {
  constexpr int kFrames = 5, kCaptured = 3;
  App a;
  setup(a, validation, VK_SAMPLE_COUNT_4_BIT);
  const VkPipeline pipe = make_pipeline(a, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, true, false, a.samples);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(a.g.device, a.pool);
  VkFence fence = vkutil::create_fence(a.g.device);
  for (int frame = 0; frame < kFrames; ++frame) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cb, &bi));
    // Every attachment from UNDEFINED (cleared, or overwritten by the resolve).
    VkImageMemoryBarrier b[3] = {};
    const VkImage images[3] = {a.msaa_colour.image, a.colour.image, a.msaa_depth.image};
    for (int i = 0; i < 3; ++i) {
      b[i].sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
      b[i].oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
      b[i].srcQueueFamilyIndex = b[i].dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
      b[i].image = images[i];
      const bool depth = i == 2;
      b[i].srcAccessMask = depth ? VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT : VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
      b[i].dstAccessMask =
          depth ? VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT
                : VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
      b[i].newLayout = depth ? VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
      b[i].subresourceRange = {VkImageAspectFlags(depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT), 0, 1,
                               0, 1};
    }
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                        VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                        VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    vkCmdPipelineBarrier(cb, stages, stages, 0, 0, nullptr, 0, nullptr, 3, b);
    VkRenderingAttachmentInfo colour{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    colour.imageView = a.msaa_colour.view;
    colour.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colour.resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
    colour.resolveImageView = a.colour.view;
    colour.resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colour.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    colour.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    colour.clearValue.color = {{0.1f, 0.2f, 0.3f, 1.0f}};
    VkRenderingAttachmentInfo depth{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    depth.imageView = a.msaa_depth.view;
    depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    depth.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    depth.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    depth.clearValue.depthStencil = {1.0f, 0};
    VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
    ri.renderArea = {{0, 0}, {kSize, kSize}};
    ri.layerCount = 1;
    ri.colorAttachmentCount = 1;
    ri.pColorAttachments = &colour;
    ri.pDepthAttachment = &depth;
    vkCmdBeginRendering(cb, &ri);
    const VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
    const VkRect2D scissor{{0, 0}, {kSize, kSize}};
    const glm::mat4 m = transform();
    const VkDeviceSize zero = 0;
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
    vkCmdSetViewport(cb, 0, 1, &viewport);
    vkCmdSetScissor(cb, 0, 1, &scissor);
    vkCmdBindVertexBuffers(cb, 0, 1, &a.vertices.buffer, &zero);
    vkCmdBindIndexBuffer(cb, a.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    vkCmdPushConstants(cb, a.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
    vkCmdDrawIndexed(cb, uint32_t(kIndices.size()), kInstances, 0, kVertexOffset, 0);
    vkCmdEndRendering(cb);
    CHECK_VK(vkEndCommandBuffer(cb));
    vkutil::submit_and_wait(a.g, cb, fence);
  }
  vkDestroyFence(a.g.device, fence, nullptr);
  vkDestroyPipeline(a.g.device, pipe, nullptr);
  teardown(a);  // the layer's records and capture are written when vkDestroyDevice returns
  if (validation) expect_no_validation_messages();

  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames in the capture", cap.frames.size(), 1);
  if (cap.frames.size() != 1) return 1;
  const tessera::capture::Frame& f = cap.frames[0];
  expect_eq("frame number", f.number, kCaptured);
  expect_eq("passes", f.passes.size(), 1);
  expect_eq("draws", f.draws.size(), 1);
  if (f.passes.size() != 1 || f.draws.size() != 1) return 1;
  const auto& d = f.draws[0];
  expect(d.captured && d.positions.size() == kIndices.size() * kInstances,
         "the draw captured with every vertex (" + d.skip_reason + ")");
  for (size_t i = 0; i < d.positions.size() && i < kIndices.size() * kInstances; ++i)
    expect(close(d.positions[i], cpu_vertex(kIndices[i % kIndices.size()], uint32_t(i / kIndices.size()))),
           "position " + std::to_string(i));
  const auto& p = f.passes[0];
  expect(p.dynamic_rendering && p.samples == 4, "a 4x dynamic-rendering pass");
  expect_eq("attachments (4x colour, 4x depth)", p.attachments.size(), 2);
  if (p.attachments.size() != 2) return 1;
  const size_t pixels = size_t(kSize) * kSize;
  const auto& ms = p.attachments[0];
  const auto& dz = p.attachments[1];
  expect(ms.skip_reason.empty() && ms.samples == 4 && ms.texels.size() == pixels * 4 * 4,
         "4x colour stored DONT_CARE read back per sample (" + ms.skip_reason + ")");
  expect(dz.kind == tessera::capture::AttachmentKind::depth && dz.skip_reason.empty() && dz.samples == 4 &&
             dz.texels.size() == pixels * 4 * 4,
         "4x depth stored DONT_CARE read back per sample (" + dz.skip_reason + ")");
  // Sample by sample: the colour differs from the clear colour exactly where the depth was drawn.
  if (ms.texels.size() == pixels * 16 && dz.texels.size() == pixels * 16) {
    uint32_t clear = 0;
    bool have_clear = false;
    size_t drawn = 0, disagree = 0;
    for (size_t i = 0; i < pixels * 4; ++i) {
      float z = 0;
      std::memcpy(&z, dz.texels.data() + 4 * i, 4);
      uint32_t w = 0;
      std::memcpy(&w, ms.texels.data() + 4 * i, 4);
      if (z == 1.0f && !have_clear) clear = w, have_clear = true;
    }
    for (size_t i = 0; i < pixels * 4 && have_clear; ++i) {
      float z = 0;
      std::memcpy(&z, dz.texels.data() + 4 * i, 4);
      uint32_t w = 0;
      std::memcpy(&w, ms.texels.data() + 4 * i, 4);
      drawn += z != 1.0f;
      disagree += (z != 1.0f) != (w != clear);
    }
    expect(have_clear && drawn > 0, "drawn and cleared samples");
    expect_eq("samples whose colour and depth disagree on being drawn", disagree, 0);
  }

  // The records: the patched twin bound in the capture frame's recording only.
  check_records(records, kFrames, [&](int frame, const nlohmann::json& r) {
    const uint64_t binds = r.at("capture_patched_binds").get<uint64_t>();
    std::printf("frame %d: capture_patched_binds %llu, msaa %s\n", frame, (unsigned long long)binds,
                r.at("msaa").is_null() ? "null" : "present");
    expect_eq("frame " + std::to_string(frame) + " capture_patched_binds", binds, frame == kCaptured ? 1 : 0);
    if (frame == kCaptured) {
      expect(!r.at("msaa").is_null(), "frame " + std::to_string(frame) + ": msaa record");
      if (!r.at("msaa").is_null()) expect_eq("msaa images skipped", r.at("msaa").at("skipped").get<int>(), 0);
    }
  });
  return g_failures ? 1 : 0;
}

// A pipeline linked from four graphics pipeline libraries (vertex input, pre-rasterization
// shaders, fragment shader, fragment output), the list pipeline's state.
VkPipeline make_linked_pipeline(App& a, std::vector<VkPipeline>& libraries_out) {
  VkGraphicsPipelineLibraryCreateInfoEXT parts[4];
  const VkGraphicsPipelineLibraryFlagsEXT kinds[4] = {VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT,
                                                      VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT,
                                                      VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT,
                                                      VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT};
  VkPipelineShaderStageCreateInfo vs{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  vs.stage = VK_SHADER_STAGE_VERTEX_BIT;
  vs.module = a.modules[0];
  vs.pName = "main";
  VkPipelineShaderStageCreateInfo fs = vs;
  fs.stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  fs.module = a.modules[1];
  VkVertexInputBindingDescription binding{0, sizeof(glm::vec3), VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attribute{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0};
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vi.vertexBindingDescriptionCount = 1;
  vi.pVertexBindingDescriptions = &binding;
  vi.vertexAttributeDescriptionCount = 1;
  vi.pVertexAttributeDescriptions = &attribute;
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.scissorCount = 1;
  const VkDynamicState dynamic[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  ds.dynamicStateCount = 2;
  ds.pDynamicStates = dynamic;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.polygonMode = VK_POLYGON_MODE_FILL;
  rs.cullMode = VK_CULL_MODE_NONE;
  rs.frontFace = VK_FRONT_FACE_CLOCKWISE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo dss{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  dss.depthTestEnable = VK_TRUE;
  dss.depthWriteEnable = VK_TRUE;
  dss.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkPipeline libraries[4] = {};
  for (int i = 0; i < 4; ++i) {
    parts[i] = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT};
    parts[i].flags = kinds[i];
    VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    ci.pNext = &parts[i];
    ci.flags = VK_PIPELINE_CREATE_LIBRARY_BIT_KHR;
    ci.renderPass = a.pass;
    ci.layout = a.layout;
    if (i == 0) {
      ci.pVertexInputState = &vi;
      ci.pInputAssemblyState = &ia;
    } else if (i == 1) {
      ci.stageCount = 1;
      ci.pStages = &vs;
      ci.pViewportState = &vp;
      ci.pRasterizationState = &rs;
      ci.pDynamicState = &ds;
    } else if (i == 2) {
      ci.stageCount = 1;
      ci.pStages = &fs;
      ci.pDepthStencilState = &dss;
      ci.pMultisampleState = &ms;
    } else {
      ci.pColorBlendState = &cb;
      ci.pMultisampleState = &ms;
    }
    CHECK_VK(vkCreateGraphicsPipelines(a.g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &libraries[i]));
  }
  VkPipelineLibraryCreateInfoKHR link{VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR};
  link.libraryCount = 4;
  link.pLibraries = libraries;
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.pNext = &link;
  ci.layout = a.layout;
  ci.renderPass = a.pass;
  ci.pMultisampleState = &ms;  // the validation layer asks for it on the link too (VUID ...-renderpass-06631)
  VkPipeline linked = VK_NULL_HANDLE;
  CHECK_VK(vkCreateGraphicsPipelines(a.g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &linked));
  // Kept while the linked pipeline is in use: lavapipe 22.3 crashes drawing with a pipeline whose
  // libraries were destroyed after linking.
  libraries_out.assign(libraries, libraries + 4);
  return linked;
}

// The library mode (see the top).
int run_library(const std::string& tcap, const std::string& records, bool validation) {
  constexpr int kFrames = 3, kCaptured = 1;
  App a;
  a.want_library = true;
  setup(a, validation);
  if (!a.library) {
    std::printf("VK_EXT_graphics_pipeline_library not offered: nothing to check\n");
    teardown(a);
    return 77;  // ctest's SKIP_RETURN_CODE
  }
  std::vector<VkPipeline> libraries;
  const VkPipeline linked = make_linked_pipeline(a, libraries);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(a.g.device, a.pool);
  VkFence fence = vkutil::create_fence(a.g.device);
  for (int frame = 0; frame < kFrames; ++frame) {
    begin_frame_pass(a, cb);
    const VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
    const VkRect2D scissor{{0, 0}, {kSize, kSize}};
    const glm::mat4 m = transform();
    const VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &a.vertices.buffer, &zero);
    vkCmdBindIndexBuffer(cb, a.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    for (VkPipeline p : {linked, a.list}) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p);
      vkCmdSetViewport(cb, 0, 1, &viewport);
      vkCmdSetScissor(cb, 0, 1, &scissor);
      vkCmdPushConstants(cb, a.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
      vkCmdDrawIndexed(cb, uint32_t(kIndices.size()), 1, 0, kVertexOffset, 0);
    }
    vkCmdEndRenderPass(cb);
    CHECK_VK(vkEndCommandBuffer(cb));
    vkutil::submit_and_wait(a.g, cb, fence);
  }
  vkDestroyFence(a.g.device, fence, nullptr);
  vkDestroyPipeline(a.g.device, linked, nullptr);
  for (VkPipeline l : libraries) vkDestroyPipeline(a.g.device, l, nullptr);
  teardown(a);
  if (validation) expect_no_validation_messages();

  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames in the capture", cap.frames.size(), 1);
  if (cap.frames.size() != 1) return 1;
  const tessera::capture::Frame& f = cap.frames[0];
  expect_eq("draws", f.draws.size(), 2);
  if (f.draws.size() != 2) return 1;
  expect(!f.draws[0].captured && f.draws[0].skip_reason == "pipeline_library" && f.draws[0].positions.empty(),
         "the linked pipeline's draw: not captured, pipeline_library (" + f.draws[0].skip_reason + ")");
  expect(f.draws[1].captured && f.draws[1].positions.size() == kIndices.size(),
         "the ordinary pipeline's draw captured (" + f.draws[1].skip_reason + ")");
  check_records(records, kFrames, [&](int frame, const nlohmann::json& r) {
    expect_eq("frame " + std::to_string(frame) + " draws", r.at("draws").get<int>(), 2);
    expect_eq("frame " + std::to_string(frame) + " capture_patched_binds",
              r.at("capture_patched_binds").get<uint64_t>(), frame <= kCaptured ? 1 : 0);
  });
  return g_failures ? 1 : 0;
}

// The ahead mode (see the top): one indexed draw of the list pipeline per frame.
int run_ahead(const std::string& tcap, const std::string& records) {
  constexpr int kFrames = 6, kCaptured = 4;
  App a;
  setup(a, false);
  VkCommandBuffer cbs[2] = {vkutil::allocate_command_buffer(a.g.device, a.pool),
                            vkutil::allocate_command_buffer(a.g.device, a.pool)};
  auto record_frame = [&](VkCommandBuffer cb) {
    begin_frame_pass(a, cb);
    const VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
    const VkRect2D scissor{{0, 0}, {kSize, kSize}};
    const glm::mat4 m = transform();
    const VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &a.vertices.buffer, &zero);
    vkCmdBindIndexBuffer(cb, a.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a.list);
    vkCmdSetViewport(cb, 0, 1, &viewport);
    vkCmdSetScissor(cb, 0, 1, &scissor);
    vkCmdPushConstants(cb, a.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
    vkCmdDrawIndexed(cb, uint32_t(kIndices.size()), 1, 0, kVertexOffset, 0);
    vkCmdEndRenderPass(cb);
    CHECK_VK(vkEndCommandBuffer(cb));
  };
  VkFence fence = vkutil::create_fence(a.g.device);
  record_frame(cbs[0]);
  for (int frame = 0; frame < kFrames; ++frame) {
    if (frame + 1 < kFrames) record_frame(cbs[(frame + 1) % 2]);  // the next frame's, made now
    vkutil::submit_and_wait(a.g, cbs[frame % 2], fence);
  }
  vkDestroyFence(a.g.device, fence, nullptr);
  teardown(a);

  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames in the capture", cap.frames.size(), 1);
  if (cap.frames.size() != 1) return 1;
  const tessera::capture::Frame& f = cap.frames[0];
  expect_eq("frame number", f.number, kCaptured);
  expect_eq("draws", f.draws.size(), 1);
  if (f.draws.size() == 1)
    expect(f.draws[0].captured && f.draws[0].positions.size() == kIndices.size(),
           "the draw recorded a frame ahead captured (" + f.draws[0].skip_reason + ")");
  check_records(records, kFrames, [&](int frame, const nlohmann::json& r) {
    expect_eq("frame " + std::to_string(frame) + " capture_patched_binds",
              r.at("capture_patched_binds").get<uint64_t>(), frame >= kCaptured ? 1 : 0);
  });
  return g_failures ? 1 : 0;
}

// The many mode: 300 draws in one render pass instance, frames 0-2; TESSERA_LAYER_CAPTURE=0-1
// captures frames 0 and 1 (TCAP1, TCAP2). Frame 0 runs out of the pass's 256 stream queries
// (44 draws recorded as query_limit), the layer doubles them, and frame 1 captures all 300
// (the first capture frame: later ones are recorded while an earlier one is noted already).
int run_many(const std::string& tcap1, const std::string& tcap2) {
  constexpr uint32_t kDraws = 300;
  App a;
  setup(a, false);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(a.g.device, a.pool);
  VkFence fence = vkutil::create_fence(a.g.device);
  for (int frame = 0; frame < 3; ++frame) {
    begin_frame_pass(a, cb);
    const VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
    const VkRect2D scissor{{0, 0}, {kSize, kSize}};
    vkCmdSetViewport(cb, 0, 1, &viewport);
    vkCmdSetScissor(cb, 0, 1, &scissor);
    const glm::mat4 m = transform();
    const VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &a.vertices.buffer, &zero);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a.list);
    vkCmdPushConstants(cb, a.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
    for (uint32_t i = 0; i < kDraws; ++i) vkCmdDraw(cb, 3, 1, i % 6, 0);
    vkCmdEndRenderPass(cb);
    CHECK_VK(vkEndCommandBuffer(cb));
    vkutil::submit_and_wait(a.g, cb, fence);
  }
  vkDestroyFence(a.g.device, fence, nullptr);
  teardown(a);
  for (int k = 0; k < 2; ++k) {
    const tessera::capture::Capture cap = tessera::capture::read_capture(k == 0 ? tcap1 : tcap2);
    expect_eq("frames", cap.frames.size(), 1);
    if (cap.frames.size() != 1) return 1;
    const auto& f = cap.frames[0];
    expect_eq("draws", f.draws.size(), kDraws);
    size_t captured = 0, limit = 0;
    for (const auto& d : f.draws) {
      captured += d.captured && d.positions.size() == 3;
      limit += d.skip_reason == "query_limit";
    }
    std::printf("frame %llu: %zu draws captured, %zu past the pass's queries\n", (unsigned long long)f.number, captured,
                limit);
    expect_eq("frame " + std::to_string(f.number) + " draws captured", captured, k == 0 ? 256 : kDraws);
    expect_eq("frame " + std::to_string(f.number) + " draws past the queries", limit, k == 0 ? kDraws - 256 : 0);
  }
  return g_failures ? 1 : 0;
}

int run_vkcube(const std::string& tcap) {
  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames", cap.frames.size(), 1);
  if (cap.frames.empty()) return 1;
  const auto& f = cap.frames[0];
  expect_eq("frame number", f.number, 10);
  expect_eq("draws", f.draws.size(), 1);
  if (f.draws.size() != 1) return 1;
  const auto& d = f.draws[0];
  expect(d.captured, "the draw is captured (" + d.skip_reason + ")");
  expect_eq("triangles", d.positions.size() / 3, 12);
  expect_eq("vertex ids", d.vertex_ids.size(), 36);
  expect(d.state.raster.cull == tessera::CullMode::back, "back faces culled");
  expect(d.state.raster.depth.test, "depth test");
  expect(d.pass < f.passes.size(), "the draw's pass exists");
  if (d.pass < f.passes.size()) {
    const auto& p = f.passes[d.pass];
    bool colour = false, depth = false;
    for (const auto& a : p.attachments) {
      const bool full = !a.texels.empty() && a.texels.size() == size_t(a.width) * a.height * a.texel_bytes;
      colour |= a.kind == tessera::capture::AttachmentKind::color && full;
      depth |= a.kind == tessera::capture::AttachmentKind::depth && full;
    }
    expect(colour, "colour attachment read back");
    expect(depth, "depth attachment read back");
  }
  std::printf("vkcube capture: %zu draw, %zu triangles\n", f.draws.size(), d.positions.size() / 3);
  return g_failures ? 1 : 0;
}

// Every draw of a capture, one line each (for looking at a capture from the tests' output).
int run_list(const std::string& tcap) {
  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  for (const auto& f : cap.frames) {
    std::printf("frame %llu: %zu passes, %zu draws\n", (unsigned long long)f.number, f.passes.size(), f.draws.size());
    for (size_t i = 0; i < f.draws.size(); ++i) {
      const auto& d = f.draws[i];
      std::printf("  draw %zu: call %d pass %u topology %u, %s%s, %zu triangles (written %llu, needed %llu)\n", i,
                  int(d.call), d.pass, d.state.application_topology,
                  d.captured ? "captured" : "not captured: ", d.skip_reason.c_str(), d.positions.size() / 3,
                  (unsigned long long)d.primitives_written, (unsigned long long)d.primitives_needed);
    }
    for (size_t p = 0; p < f.passes.size(); ++p)
      for (const auto& a : f.passes[p].attachments)
        std::printf("  pass %zu %s %ux%u x%u format %u: %zu bytes%s%s\n", p,
                    a.kind == tessera::capture::AttachmentKind::depth ? "depth" : "colour", a.width, a.height,
                    a.samples, a.vk_format, a.texels.size(),
                    a.skip_reason.empty() ? "" : ", skipped: ", a.skip_reason.c_str());
  }
  return 0;
}

// The resume mode: the strip drawn in two dynamic-rendering pass instances, the first cleared
// and suspended (VK_RENDERING_SUSPENDING_BIT), the second resuming it (VK_RENDERING_RESUMING_BIT:
// its loadOp CLEAR is not applied, the instance continues the first), one triangle each.
void record_resume(App& a, VkCommandBuffer cb) {
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  CHECK_VK(vkBeginCommandBuffer(cb, &bi));
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;  // cleared below
  b.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = a.colour.image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &b);
  const VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
  const VkRect2D scissor{{0, 0}, {kSize, kSize}};
  const glm::mat4 m = transform();
  const VkDeviceSize zero = 0;
  for (int part = 0; part < 2; ++part) {
    // Identical rendering infos but for the flags, as Vulkan requires of a resumed instance.
    VkRenderingAttachmentInfo colour{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    colour.imageView = a.colour.view;
    colour.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colour.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    colour.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    colour.clearValue.color = {{0.1f, 0.2f, 0.3f, 1.0f}};
    VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
    ri.renderArea = {{0, 0}, {kSize, kSize}};
    ri.layerCount = 1;
    ri.colorAttachmentCount = 1;
    ri.pColorAttachments = &colour;
    ri.flags = part == 0 ? VK_RENDERING_SUSPENDING_BIT : VK_RENDERING_RESUMING_BIT;
    vkCmdBeginRendering(cb, &ri);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a.strip);
    vkCmdSetViewport(cb, 0, 1, &viewport);
    vkCmdSetScissor(cb, 0, 1, &scissor);
    vkCmdBindVertexBuffers(cb, 0, 1, &a.vertices.buffer, &zero);
    vkCmdPushConstants(cb, a.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
    vkCmdDraw(cb, 3, 1, part == 0 ? 3 : 5, 0);  // vertices 3-5, then 5-7
    vkCmdEndRendering(cb);
  }
  CHECK_VK(vkEndCommandBuffer(cb));
}

// Frame 1 of three resume frames: two passes, the second resuming the first (every attachment
// `load`, no clear colour) on the same image; replayed, the resumed pass continues the first and
// its covered pixels equal the GPU's (docs/replay.md, "Loaded attachments").
int run_resume(const std::string& tcap) {
  App a;
  setup(a, false);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(a.g.device, a.pool);
  VkFence fence = vkutil::create_fence(a.g.device);
  for (int frame = 0; frame < 3; ++frame) {
    record_resume(a, cb);
    vkutil::submit_and_wait(a.g, cb, fence);
  }
  vkDestroyFence(a.g.device, fence, nullptr);
  teardown(a);
  namespace cap = tessera::capture;
  const cap::Capture c = cap::read_capture(tcap);
  if (c.frames.size() != 1 || c.frames[0].passes.size() != 2 || c.frames[0].draws.size() != 2) {
    expect(false, "one frame of two passes and two draws");
    return 1;
  }
  const cap::Frame& f = c.frames[0];
  const cap::RenderPass& p0 = f.passes[0];
  const cap::RenderPass& p1 = f.passes[1];
  expect(p0.dynamic_rendering && !p0.resumes && p1.dynamic_rendering && p1.resumes, "pass 1 resumes pass 0");
  expect(p0.attachments.size() == 1 && p0.attachments[0].load_op == cap::LoadOp::clear && p0.clear_colors.size() == 1 &&
             p0.clear_colors[0].x == 0.1f,
         "pass 0 clears");
  expect(p1.attachments.size() == 1 && p1.attachments[0].load_op == cap::LoadOp::load && p1.clear_colors.size() == 1 &&
             p1.clear_colors[0] == glm::vec4(0.0f),
         "the resumed pass loads (its CLEAR is not applied) and has no clear colour");
  expect(
      p1.attachments.size() == 1 && p1.attachments[0].image != 0 && p1.attachments[0].image == p0.attachments[0].image,
      "both on the same image");
  expect(f.draws[0].pass == 0 && f.draws[1].pass == 1 && f.draws[0].captured && f.draws[1].captured,
         "one captured draw in each pass");
  tessera::Config config;
  config.frame.threads = 1;
  auto replay = [&](bool load) {
    tessera::Renderer renderer(config);
    tessera::replay::ReplayOptions options;
    options.load_attachments = load;
    return tessera::replay::replay_frame(renderer, c, 0, options);
  };
  const tessera::replay::FrameReplay now = replay(true), before = replay(false);
  if (now.passes.size() != 2 || before.passes.size() != 2) {
    expect(false, "both passes replayed");
    return 1;
  }
  const tessera::replay::PassReplay& r1 = now.passes[1];
  expect_eq("resumed pass continues pass", r1.color_loaded_from, 0);
  expect(r1.coverage.compared && before.passes[1].coverage.compared, "coverage compared on the resumed pass");
  expect_eq("pixels differing from the GPU's, resumed pass continued", r1.coverage.pixels_differ, 0);
  expect(before.passes[1].coverage.pixels_differ > 0, "replayed from a clear, the resumed pass differs");
  std::printf("resume: %llu pixels, covered pixels differing from the GPU's: %llu (from a clear: %llu)\n",
              (unsigned long long)r1.coverage.pixels, (unsigned long long)r1.coverage.pixels_differ,
              (unsigned long long)before.passes[1].coverage.pixels_differ);
  return g_failures ? 1 : 0;
}

int run(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "resume" && argc > 2) return run_resume(argv[2]);
  bool validation = false, no_xfb = false;
  for (int i = 4; i < argc; ++i) {
    validation |= std::string(argv[i]) == "--validation";
    no_xfb |= std::string(argv[i]) == "--no-xfb";
  }
  if (mode == "draws" && argc > 3) return run_draws(argv[2], argv[3], validation, no_xfb);
  if (mode == "vkcube" && argc > 2) return run_vkcube(argv[2]);
  if (mode == "many" && argc > 3) return run_many(argv[2], argv[3]);
  if (mode == "dynamic" && argc > 3) return run_dynamic(argv[2], argv[3], validation);
  if (mode == "ahead" && argc > 3) return run_ahead(argv[2], argv[3]);
  if (mode == "library" && argc > 3) return run_library(argv[2], argv[3], validation);
  if (mode == "msaa" && argc > 2) return run_msaa(argv[2], argc > 3 && std::string(argv[3]) == "--validation");
  if (mode == "list" && argc > 2) return run_list(argv[2]);
  if (const int rc = run_replay_modes(argc, argv); rc >= 0) return rc;
  std::fprintf(stderr,
               "usage: layer_capture_app draws TCAP IMAGE [--validation] [--no-xfb] | msaa TCAP [--validation] | "
               "many TCAP1 TCAP2 | dynamic TCAP RECORDS [--validation] | library TCAP RECORDS [--validation] | ahead "
               "TCAP RECORDS | "
               "vkcube TCAP | list TCAP | clipping TCAP | scene SCENE.json WIDTH HEIGHT DRAWS TCAP\n");
  return 2;
}

}  // namespace
}  // namespace layer_test

int main(int argc, char** argv) { return layer_test::run_main(layer_test::run, argc, argv); }
