// Modes of layer_capture_app that check replay (docs/replay.md, "Agreement with the GPU") against
// what lavapipe did with the same draws:
//
//   layer_capture_app clipping TCAP
//       three frames (submit = frame delimiter) of one render pass, 64x64, D16 depth, with draws
//       chosen for clipping and culling: wholly inside, back faces culled, straddling the side
//       planes, the near and far planes and the eye (w <= 0), wholly outside, a viewport smaller
//       than the attachment, a scissor away from the triangles, degenerate triangles. Each draw
//       sits in the application's own pipeline-statistics query (clipping invocations and
//       clipping primitives). TCAP is the layer's capture of frame 1; it is replayed here
//       (tessera::replay::replay_frame) with the default guard band and with none, and every
//       draw's counts are compared with the GPU's (printed as a table).
//   layer_capture_app load TCAP
//       the draws mode's capture: its dynamic-rendering pass loads the colour image pass 0 drew;
//       replayed with loaded attachments its covered pixels equal the GPU's on every pixel, where
//       the format version 1 replay (from a clear) differs (see run_load).
//   layer_capture_app scene SCENE.json WIDTH HEIGHT DRAWS TCAP
//       a Tessera scene's mesh instances drawn as a Vulkan application draws them: the scene
//       camera's matrices, back faces culled, counter-clockwise front faces, LESS depth (D32),
//       each instance's index buffer cut into DRAWS indexed draws; three frames. TCAP is the
//       capture of frame 1: every draw captured, the triangles the scene's. With
//       assets/bench/terrain_1m.json at 1920x1080 this is the 1M-triangle capture that
//       `tessera bench replay --capture` times (docs/replay.md, "Speed").
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "tessera/capture.h"
#include "tessera/config.h"
#include "tessera/replay.h"
#include "tessera/scene.h"
#include "test_app_support.h"

namespace layer_test {
namespace {

const uint32_t kReplayMvpVert[] =
#include "capture_mvp.vert.inc"
    ;
const uint32_t kReplayColorFrag[] =
#include "color.frag.inc"
    ;

// A render pass with one RGBA8 colour and one depth attachment of the given size and format,
// the push-constant layout of capture_mvp.vert, and pipelines made on demand.
struct Target {
  vkutil::Instance instance;
  vkutil::Device g;
  uint32_t width = 0, height = 0;
  VkFormat depth_format = VK_FORMAT_D32_SFLOAT;
  Image colour, depth;
  VkRenderPass pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkShaderModule vert = VK_NULL_HANDLE, frag = VK_NULL_HANDLE;
  std::vector<VkPipeline> pipelines;
  VkCommandPool pool = VK_NULL_HANDLE;
};

void make_target(Target& t, const char* name, uint32_t width, uint32_t height, VkFormat depth_format) {
  vkutil::InstanceOptions options;
  options.application_name = name;
  options.api_version = VK_API_VERSION_1_3;
  options.log = &g_validation;
  t.instance = vkutil::Instance(options);
  t.g = vkutil::choose_physical_device(t.instance.handle(), VK_QUEUE_GRAPHICS_BIT);
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.features.pipelineStatisticsQuery = VK_TRUE;
  vkutil::DeviceRequest request;
  request.next = &f2;
  vkutil::create_device(t.g, request);
  const VkDevice dev = t.g.device;
  t.width = width;
  t.height = height;
  t.depth_format = depth_format;
  t.colour = vkutil::create_image(t.g, {width, height, 1, kFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                        VK_IMAGE_ASPECT_COLOR_BIT, VK_SAMPLE_COUNT_1_BIT});
  t.depth = vkutil::create_image(t.g, {width, height, 1, depth_format, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                       VK_IMAGE_ASPECT_DEPTH_BIT, VK_SAMPLE_COUNT_1_BIT});
  VkAttachmentDescription att[2] = {};
  att[0].format = kFormat;
  att[0].samples = VK_SAMPLE_COUNT_1_BIT;
  att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att[0].finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  att[1] = att[0];
  att[1].format = depth_format;
  att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  VkAttachmentReference colour_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &colour_ref;
  sub.pDepthStencilAttachment = &depth_ref;
  // The previous frame's pass wrote both attachments.
  VkSubpassDependency dep{VK_SUBPASS_EXTERNAL,
                          0,
                          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
                          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                              VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                          0};
  VkRenderPassCreateInfo rpci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rpci.attachmentCount = 2;
  rpci.pAttachments = att;
  rpci.subpassCount = 1;
  rpci.pSubpasses = &sub;
  rpci.dependencyCount = 1;
  rpci.pDependencies = &dep;
  CHECK_VK(vkCreateRenderPass(dev, &rpci, nullptr, &t.pass));
  const VkImageView views[2] = {t.colour.view, t.depth.view};
  VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fci.renderPass = t.pass;
  fci.attachmentCount = 2;
  fci.pAttachments = views;
  fci.width = width;
  fci.height = height;
  fci.layers = 1;
  CHECK_VK(vkCreateFramebuffer(dev, &fci, nullptr, &t.framebuffer));
  const VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(glm::mat4)};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  CHECK_VK(vkCreatePipelineLayout(dev, &plci, nullptr, &t.layout));
  t.vert = make_shader(t.g, kReplayMvpVert);
  t.frag = make_shader(t.g, kReplayColorFrag);
  t.pool = vkutil::create_command_pool(t.g, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
}

// A triangle-list pipeline over vec3 positions with dynamic viewport and scissor.
VkPipeline make_list_pipeline(Target& t, VkCullModeFlags cull, VkFrontFace front, VkCompareOp compare) {
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = t.vert;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = t.frag;
  stages[1].pName = "main";
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
  rs.cullMode = cull;
  rs.frontFace = front;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo dss{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  dss.depthTestEnable = VK_TRUE;
  dss.depthWriteEnable = VK_TRUE;
  dss.depthCompareOp = compare;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.stageCount = 2;
  ci.pStages = stages;
  ci.pVertexInputState = &vi;
  ci.pInputAssemblyState = &ia;
  ci.pViewportState = &vp;
  ci.pRasterizationState = &rs;
  ci.pMultisampleState = &ms;
  ci.pDepthStencilState = &dss;
  ci.pColorBlendState = &cb;
  ci.pDynamicState = &ds;
  ci.layout = t.layout;
  ci.renderPass = t.pass;
  VkPipeline p = VK_NULL_HANDLE;
  CHECK_VK(vkCreateGraphicsPipelines(t.g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  t.pipelines.push_back(p);
  return p;
}

void destroy_target(Target& t) {
  const VkDevice dev = t.g.device;
  vkDestroyCommandPool(dev, t.pool, nullptr);
  for (VkPipeline p : t.pipelines) vkDestroyPipeline(dev, p, nullptr);
  vkDestroyShaderModule(dev, t.vert, nullptr);
  vkDestroyShaderModule(dev, t.frag, nullptr);
  vkDestroyPipelineLayout(dev, t.layout, nullptr);
  vkDestroyFramebuffer(dev, t.framebuffer, nullptr);
  vkDestroyRenderPass(dev, t.pass, nullptr);
  destroy_image(t.g, t.colour);
  destroy_image(t.g, t.depth);
  vkDestroyDevice(dev, nullptr);  // the layer's capture writer has finished when this returns
  t.instance.destroy();
}

// Submits one frame's command buffer and waits for it (the layer's frame delimiter is submit).
void submit_and_wait(Target& t, VkCommandBuffer cb, VkFence fence) {
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  CHECK_VK(vkQueueSubmit(t.g.queue, 1, &si, fence));
  CHECK_VK(vkWaitForFences(t.g.device, 1, &fence, VK_TRUE, UINT64_MAX));
  CHECK_VK(vkResetFences(t.g.device, 1, &fence));
}

void begin_pass(Target& t, VkCommandBuffer cb) {
  VkClearValue clears[2];
  clears[0].color = {{0.1f, 0.2f, 0.3f, 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rbi.renderPass = t.pass;
  rbi.framebuffer = t.framebuffer;
  rbi.renderArea = {{0, 0}, {t.width, t.height}};
  rbi.clearValueCount = 2;
  rbi.pClearValues = clears;
  vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
}

// ---------------------------------------------------------------------------------------------
// clipping

// One test draw: its triangles (object space = clip space with the identity, or through
// `perspective`), pipeline, viewport and scissor.
struct ClipDraw {
  const char* name;
  std::vector<glm::vec3> triangles;  // 3 per triangle
  bool cull_back = false;
  bool perspective = false;  // clip = (x, y, z - 0.1, z): w = z, the near plane at z = 0.1
  VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
  VkRect2D scissor{{0, 0}, {kSize, kSize}};
  bool side_planes = false;  // a triangle crosses x = +-w or y = +-w (guard band matters)
};

std::vector<ClipDraw> clip_draws() {
  std::vector<ClipDraw> d;
  d.push_back({"inside",
               {{-0.8f, -0.8f, 0.5f},
                {-0.2f, -0.8f, 0.5f},
                {-0.5f, -0.2f, 0.5f},  // one winding
                {0.2f, 0.2f, 0.3f},
                {0.5f, 0.8f, 0.3f},
                {0.8f, 0.2f, 0.3f}}});  // the other
  ClipDraw culled{"back faces culled",
                  {{-0.9f, 0.1f, 0.4f},
                   {-0.6f, 0.1f, 0.4f},
                   {-0.75f, 0.5f, 0.4f},
                   {-0.5f, 0.1f, 0.4f},
                   {-0.35f, 0.5f, 0.4f},
                   {-0.2f, 0.1f, 0.4f},
                   {-0.1f, 0.1f, 0.45f},
                   {0.2f, 0.1f, 0.45f},
                   {0.05f, 0.5f, 0.45f},
                   {0.3f, 0.1f, 0.45f},
                   {0.45f, 0.5f, 0.45f},
                   {0.6f, 0.1f, 0.45f}}};
  culled.cull_back = true;
  d.push_back(culled);
  ClipDraw sides{"across the side planes",
                 {{0.6f, -0.5f, 0.2f},
                  {1.6f, -0.4f, 0.2f},
                  {0.7f, 0.3f, 0.2f},  // x = +w
                  {-0.3f, -1.7f, 0.25f},
                  {0.1f, -0.6f, 0.25f},
                  {-0.5f, -0.5f, 0.25f},  // y = -w
                  {0.7f, 0.7f, 0.6f},
                  {1.5f, 0.8f, 0.6f},
                  {0.8f, 1.9f, 0.6f},  // a corner
                  {-3.0f, -0.2f, 0.7f},
                  {3.0f, -0.1f, 0.7f},
                  {0.0f, 0.4f, 0.7f}}};  // both x planes
  sides.side_planes = true;
  d.push_back(sides);
  d.push_back({"across near and far",
               {{-0.6f, 0.3f, -0.4f},
                {-0.1f, 0.35f, 0.5f},
                {-0.4f, 0.8f, 0.3f},  // z < 0: near
                {0.2f, -0.6f, 0.8f},
                {0.7f, -0.5f, 1.6f},
                {0.4f, -0.1f, 0.7f},  // z > w: far
                {0.1f, 0.2f, -0.5f},
                {0.6f, 0.25f, 1.5f},
                {0.3f, 0.7f, 0.5f}}});  // both
  ClipDraw outside{"outside the view volume",
                   {{1.2f, 0.0f, 0.5f},
                    {1.8f, 0.1f, 0.5f},
                    {1.5f, 0.6f, 0.5f},  // x > w
                    {-0.3f, -0.3f, -0.2f},
                    {0.3f, -0.3f, -0.5f},
                    {0.0f, 0.3f, -0.1f},  // z < 0
                    {-0.2f, 1.1f, 0.5f},
                    {0.2f, 1.1f, 0.5f},
                    {0.0f, 1.5f, 0.5f},  // y > w
                    // no vertex inside and no common outside plane, yet no point inside either:
                    // only clipping against the side planes finds it empty.
                    {1.6f, 0.5f, 0.5f},
                    {0.5f, 1.6f, 0.5f},
                    {1.6f, 1.6f, 0.5f}}};
  outside.side_planes = true;
  d.push_back(outside);
  ClipDraw eye{"across the eye (w <= 0)",
               {{-0.3f, -0.2f, 0.05f},
                {0.3f, -0.2f, 0.5f},
                {0.0f, 0.3f, 0.6f},  // near plane at z = 0.1
                {-0.2f, 0.1f, -0.5f},
                {0.2f, 0.15f, 0.8f},
                {0.05f, 0.4f, 0.9f},  // behind the eye
                {-0.4f, -0.4f, 0.5f},
                {0.4f, -0.4f, 0.5f},
                {0.0f, -0.1f, 0.5f}}};  // in front, inside
  eye.perspective = true;
  eye.side_planes = true;  // crossing w = 0 takes x/w and y/w across every side plane
  d.push_back(eye);
  ClipDraw quarter{"viewport a quarter of the attachment",
                   {{-0.5f, -0.5f, 0.35f},
                    {0.5f, -0.5f, 0.35f},
                    {0.0f, 0.5f, 0.35f},  // inside the viewport
                    {0.5f, 0.5f, 0.55f},
                    {1.5f, 0.6f, 0.55f},
                    {0.6f, 1.4f, 0.55f},  // beyond its corner
                    {1.5f, -0.5f, 0.55f},
                    {2.5f, -0.4f, 0.55f},
                    {1.9f, 0.5f, 0.55f}}};  // beside it
  quarter.viewport = {0, 0, float(kSize / 2), float(kSize / 2), 0, 1};
  quarter.side_planes = true;
  d.push_back(quarter);
  ClipDraw scissored{"scissor away from the triangles",
                     {{-0.8f, -0.8f, 0.15f},
                      {-0.3f, -0.8f, 0.15f},
                      {-0.55f, -0.3f, 0.15f},
                      {0.6f, 0.6f, 0.15f},
                      {0.9f, 0.6f, 0.15f},
                      {0.75f, 0.9f, 0.15f}}};
  scissored.scissor = {{kSize / 2 - 4, kSize / 2 - 4}, {8, 8}};
  d.push_back(scissored);
  d.push_back({"degenerate",
               {{-0.5f, 0.6f, 0.1f},
                {0.0f, 0.6f, 0.1f},
                {0.5f, 0.6f, 0.1f},  // collinear
                {0.101f, 0.101f, 0.1f},
                {0.102f, 0.101f, 0.1f},
                {0.101f, 0.102f, 0.1f}}});  // no pixel centre
  return d;
}

glm::mat4 clip_matrix(bool perspective) {
  if (!perspective) return glm::mat4(1.0f);
  glm::mat4 m(0.0f);  // column-major: clip = (x, y, z - 0.1, z)
  m[0][0] = 1.0f;
  m[1][1] = 1.0f;
  m[2][2] = 1.0f;
  m[3][2] = -0.1f;
  m[2][3] = 1.0f;
  return m;
}

struct DrawCounts {
  uint64_t in = 0, after_clipping = 0, after_face_culling = 0, facing = 0, scissor = 0, setup = 0;
};

std::vector<DrawCounts> replay_counts(const tessera::capture::Capture& cap, float guard_band, std::string& depth) {
  tessera::Config config;
  config.frame.threads = 1;
  config.raster.guard_band = guard_band;
  tessera::Renderer renderer(config);
  const tessera::replay::FrameReplay r = tessera::replay::replay_frame(renderer, cap, 0);
  std::vector<DrawCounts> out;
  for (const tessera::replay::DrawReport& d : r.draws) {
    const tessera::DrawWork& w = d.work;
    out.push_back(
        {w.primitives_in, w.after_clipping(), w.after_face_culling(), w.culled_facing, w.culled_scissor, w.setup});
  }
  char line[256];
  std::snprintf(line, sizeof line, "covered by both %llu, replay only %llu, capture only %llu, max D16 steps %llu",
                (unsigned long long)r.stats.get_u64("capture.depth_agreement.covered_both"),
                (unsigned long long)r.stats.get_u64("capture.depth_agreement.covered_replay_only"),
                (unsigned long long)r.stats.get_u64("capture.depth_agreement.covered_capture_only"),
                (unsigned long long)r.stats.get_u64("capture.depth_agreement.max_format_steps"));
  depth = line;
  return out;
}

int run_clipping(const std::string& tcap) {
  const std::vector<ClipDraw> draws = clip_draws();
  Target t;
  make_target(t, "tessera_layer_capture_app clipping", kSize, kSize, VK_FORMAT_D16_UNORM);
  const VkPipeline plain =
      make_list_pipeline(t, VK_CULL_MODE_NONE, VK_FRONT_FACE_COUNTER_CLOCKWISE, VK_COMPARE_OP_LESS_OR_EQUAL);
  const VkPipeline cull_back =
      make_list_pipeline(t, VK_CULL_MODE_BACK_BIT, VK_FRONT_FACE_COUNTER_CLOCKWISE, VK_COMPARE_OP_LESS_OR_EQUAL);
  std::vector<glm::vec3> all;
  for (const ClipDraw& d : draws) all.insert(all.end(), d.triangles.begin(), d.triangles.end());
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  vkutil::Buffer vertices =
      vkutil::create_buffer(t.g, all.size() * sizeof(glm::vec3), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, host);
  std::memcpy(vertices.mapped, all.data(), all.size() * sizeof(glm::vec3));
  const uint32_t n = uint32_t(draws.size());
  VkQueryPool stats = VK_NULL_HANDLE;
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
  qci.queryCount = n;
  qci.pipelineStatistics =
      VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT | VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT;
  CHECK_VK(vkCreateQueryPool(t.g.device, &qci, nullptr, &stats));
  VkCommandBuffer cb = vkutil::allocate_command_buffer(t.g.device, t.pool);
  VkFence fence = vkutil::create_fence(t.g.device);
  std::vector<uint64_t> gpu(2 * n);  // per draw: clipping invocations, clipping primitives (bit order)
  for (int frame = 0; frame < 3; ++frame) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cb, &bi));
    vkCmdResetQueryPool(cb, stats, 0, n);
    begin_pass(t, cb);
    const VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &vertices.buffer, &zero);
    uint32_t first = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const ClipDraw& d = draws[i];
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, d.cull_back ? cull_back : plain);
      vkCmdSetViewport(cb, 0, 1, &d.viewport);
      vkCmdSetScissor(cb, 0, 1, &d.scissor);
      const glm::mat4 m = clip_matrix(d.perspective);
      vkCmdPushConstants(cb, t.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
      vkCmdBeginQuery(cb, stats, i, 0);
      vkCmdDraw(cb, uint32_t(d.triangles.size()), 1, first, 0);
      vkCmdEndQuery(cb, stats, i);
      first += uint32_t(d.triangles.size());
    }
    vkCmdEndRenderPass(cb);
    CHECK_VK(vkEndCommandBuffer(cb));
    submit_and_wait(t, cb, fence);
    if (frame == 1) {
      CHECK_VK(vkGetQueryPoolResults(t.g.device, stats, 0, n, gpu.size() * sizeof(uint64_t), gpu.data(),
                                     2 * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    }
  }
  vkDestroyFence(t.g.device, fence, nullptr);
  vkDestroyQueryPool(t.g.device, stats, nullptr);
  vkutil::destroy_buffer(t.g.device, vertices);
  destroy_target(t);

  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames in the capture", cap.frames.size(), 1);
  if (cap.frames.size() != 1) return 1;
  expect_eq("draws in the capture", cap.frames[0].draws.size(), n);
  if (cap.frames[0].draws.size() != n) return 1;
  for (uint32_t i = 0; i < n; ++i) {
    const tessera::capture::Draw& d = cap.frames[0].draws[i];
    expect(d.captured, std::string("draw ") + draws[i].name + " captured (" + d.skip_reason + ")");
  }
  std::string depth_default, depth_none;
  const std::vector<DrawCounts> guard = replay_counts(cap, tessera::Config{}.raster.guard_band, depth_default);
  const std::vector<DrawCounts> exact = replay_counts(cap, 0.0f, depth_none);
  // Columns: the GPU's clipping invocations and clipping primitives; Tessera's triangles in, and
  // after clipping and face culling with no guard band and with its default guard band, then
  // (no guard band) after clipping alone, faces culled, scissored, set up.
  std::printf("%-38s %6s %6s | %6s %8s %8s | %8s %6s %6s %6s\n", "draw", "c.inv", "c.prim", "in", "cull(0)", "cull(gb)",
              "clip(0)", "facing", "sciss.", "setup");
  for (uint32_t i = 0; i < n; ++i) {
    std::printf("%-38s %6llu %6llu | %6llu %8llu %8llu | %8llu %6llu %6llu %6llu\n", draws[i].name,
                (unsigned long long)gpu[2 * i], (unsigned long long)gpu[2 * i + 1], (unsigned long long)exact[i].in,
                (unsigned long long)exact[i].after_face_culling, (unsigned long long)guard[i].after_face_culling,
                (unsigned long long)exact[i].after_clipping, (unsigned long long)exact[i].facing,
                (unsigned long long)exact[i].scissor, (unsigned long long)exact[i].setup);
  }
  std::printf("depth agreement (guard band 0): %s\n", depth_none.c_str());
  std::printf("depth agreement (default guard band): %s\n", depth_default.c_str());
  for (uint32_t i = 0; i < n; ++i) {
    const std::string name = draws[i].name;
    // Every captured triangle reaches clipping, on both sides.
    expect_eq(name + ": triangles in vs the GPU's clipping invocations", exact[i].in, gpu[2 * i]);
    expect_eq(name + ": triangles in, default guard band", guard[i].in, gpu[2 * i]);
    // lavapipe counts clipping primitives after clipping against the view volume's six planes
    // and after face culling (in its draw module), before degenerate and scissor rejection.
    // Without a guard band Tessera clips against the same planes: the triangles left after
    // clipping and face culling are the GPU's count, draw by draw.
    expect_eq(name + ": after clipping and face culling (no guard band) vs the GPU's clipping primitives",
              exact[i].after_face_culling, gpu[2 * i + 1]);
    // With its guard band Tessera does not cut triangles crossing a side plane (the rasterizer's
    // pixel bounds do): only draws without such triangles must agree.
    if (!draws[i].side_planes)
      expect_eq(name + ": after clipping and face culling (default guard band) vs the GPU's clipping primitives",
                guard[i].after_face_culling, gpu[2 * i + 1]);
    // Faces culled, against the geometry: two of the four in the culling draw.
    expect_eq(name + ": faces culled", exact[i].facing, draws[i].cull_back ? 2 : 0);
    expect_eq(name + ": faces culled, default guard band", guard[i].facing, exact[i].facing);
  }
  return g_failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// scene

int run_scene(const std::string& scene_path, uint32_t width, uint32_t height, uint32_t parts, const std::string& tcap) {
  const tessera::Scene scene = tessera::load_scene(scene_path);
  const tessera::CameraMatrices cam = tessera::camera_matrices(scene.camera, int(width), int(height));
  Target t;
  make_target(t, "tessera_layer_capture_app scene", width, height, VK_FORMAT_D32_SFLOAT);
  // Tessera's scene conventions (ARCHITECTURE.md, "Entering at the primitive stage").
  const VkPipeline pipeline =
      make_list_pipeline(t, VK_CULL_MODE_BACK_BIT, VK_FRONT_FACE_COUNTER_CLOCKWISE, VK_COMPARE_OP_LESS);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  struct MeshBuffers {
    vkutil::Buffer vertices, indices;
    uint32_t index_count = 0;
  };
  std::vector<MeshBuffers> meshes(scene.meshes.size());
  uint64_t triangles = 0, draw_count = 0;
  for (const tessera::Instance& inst : scene.instances) {
    MeshBuffers& b = meshes[inst.mesh];
    const tessera::Mesh& mesh = scene.meshes[inst.mesh];
    triangles += mesh.indices.size() / 3;
    const uint32_t tris = uint32_t(mesh.indices.size() / 3);
    draw_count += std::min(parts, std::max(tris, 1u));
    if (b.vertices.buffer || mesh.indices.empty()) continue;
    std::vector<glm::vec3> positions;
    for (const tessera::Vertex& v : mesh.vertices) positions.push_back(v.position);
    b.vertices =
        vkutil::create_buffer(t.g, positions.size() * sizeof(glm::vec3), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, host);
    std::memcpy(b.vertices.mapped, positions.data(), positions.size() * sizeof(glm::vec3));
    b.indices = vkutil::create_buffer(t.g, mesh.indices.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, host);
    std::memcpy(b.indices.mapped, mesh.indices.data(), mesh.indices.size() * 4);
    b.index_count = uint32_t(mesh.indices.size());
  }
  VkCommandBuffer cb = vkutil::allocate_command_buffer(t.g.device, t.pool);
  VkFence fence = vkutil::create_fence(t.g.device);
  const VkViewport viewport{0, 0, float(width), float(height), 0, 1};
  const VkRect2D scissor{{0, 0}, {width, height}};
  for (int frame = 0; frame < 3; ++frame) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cb, &bi));
    begin_pass(t, cb);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    vkCmdSetViewport(cb, 0, 1, &viewport);
    vkCmdSetScissor(cb, 0, 1, &scissor);
    for (const tessera::Instance& inst : scene.instances) {
      const MeshBuffers& b = meshes[inst.mesh];
      if (!b.index_count) continue;
      const glm::mat4 m = cam.view_projection * inst.transform;
      const VkDeviceSize zero = 0;
      vkCmdBindVertexBuffers(cb, 0, 1, &b.vertices.buffer, &zero);
      vkCmdBindIndexBuffer(cb, b.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
      vkCmdPushConstants(cb, t.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, &m);
      // The instance's triangles cut into `parts` draws of whole triangles.
      const uint32_t tris = b.index_count / 3, k = std::min(parts, std::max(tris, 1u));
      for (uint32_t p = 0; p < k; ++p) {
        const uint32_t first = tris * p / k, last = tris * (p + 1) / k;
        vkCmdDrawIndexed(cb, (last - first) * 3, 1, first * 3, 0, 0);
      }
    }
    vkCmdEndRenderPass(cb);
    CHECK_VK(vkEndCommandBuffer(cb));
    submit_and_wait(t, cb, fence);
  }
  vkDestroyFence(t.g.device, fence, nullptr);
  for (MeshBuffers& b : meshes) {
    if (b.vertices.buffer) vkutil::destroy_buffer(t.g.device, b.vertices);
    if (b.indices.buffer) vkutil::destroy_buffer(t.g.device, b.indices);
  }
  destroy_target(t);

  const tessera::capture::Capture cap = tessera::capture::read_capture(tcap);
  expect_eq("frames in the capture", cap.frames.size(), 1);
  if (cap.frames.size() != 1) return 1;
  const tessera::capture::Frame& f = cap.frames[0];
  expect_eq("draws in the capture", f.draws.size(), draw_count);
  uint64_t captured = 0;
  for (size_t i = 0; i < f.draws.size(); ++i) {
    const tessera::capture::Draw& d = f.draws[i];
    expect(d.captured, "draw " + std::to_string(i) + " captured (" + d.skip_reason + ")");
    captured += d.positions.size() / 3;
  }
  expect_eq("captured triangles vs the scene's", captured, triangles);
  std::printf("scene capture: %s at %ux%u, %zu draws, %llu triangles\n", scene_path.c_str(), width, height,
              f.draws.size(), (unsigned long long)captured);
  return g_failures ? 1 : 0;
}

// The load mode: the draws mode's capture (layer.capture_draws), whose dynamic-rendering pass
// loads the colour image the render pass before it drew (VK_ATTACHMENT_LOAD_OP_LOAD). Replayed
// with loaded attachments (format version 2) the pass starts from what pass 0 left, and its
// covered pixels equal the GPU's on every pixel; replayed as format version 1 did (from the
// "clear" (0, 0, 0, 0)) they differ wherever pass 0 drew.
int run_load(const std::string& tcap) {
  namespace cap = tessera::capture;
  const cap::Capture c = cap::read_capture(tcap);
  std::printf("load: %s, driver %s (driverVersion %u, decoded %s)\n", c.device.c_str(), c.driver.c_str(),
              c.driver_version, cap::driver_version_text(c.vendor_id, c.driver_version, c.driver).c_str());
  expect_eq("format version", c.format_version, 2);
  expect_eq("frames", c.frames.size(), 1);
  if (c.frames.size() != 1 || c.frames[0].passes.size() != 2) return 1;
  const cap::Frame& f = c.frames[0];
  const cap::Attachment& drawn = f.passes[0].attachments[0];
  const cap::Attachment& loaded = f.passes[1].attachments.at(0);
  expect(drawn.load_op == cap::LoadOp::clear && drawn.store_op == cap::StoreOp::store, "pass 0 clears its colour");
  expect(f.passes[0].attachments.size() == 2 && f.passes[0].attachments[1].load_op == cap::LoadOp::clear,
         "pass 0 clears its depth");
  expect(loaded.load_op == cap::LoadOp::load && f.passes[1].dynamic_rendering && !f.passes[1].resumes,
         "pass 1 (dynamic rendering) loads its colour");
  expect(loaded.image != 0 && loaded.image == drawn.image, "both passes' colour attachments name the same image");
  expect(f.passes[1].clear_colors.size() == 1 && f.passes[1].clear_colors[0] == glm::vec4(0.0f),
         "no clear colour on the loaded attachment");

  tessera::Config config;
  config.frame.threads = 1;
  auto replay = [&](bool load) {
    tessera::Renderer renderer(config);
    tessera::replay::ReplayOptions options;
    options.load_attachments = load;
    return tessera::replay::replay_frame(renderer, c, 0, options);
  };
  const tessera::replay::FrameReplay now = replay(true), before = replay(false);
  auto pass = [](const tessera::replay::FrameReplay& r, uint32_t index) -> const tessera::replay::PassReplay* {
    for (const tessera::replay::PassReplay& p : r.passes)
      if (p.pass == index) return &p;
    return nullptr;
  };
  const tessera::replay::PassReplay* p0 = pass(now, 0);
  const tessera::replay::PassReplay* p1 = pass(now, 1);
  const tessera::replay::PassReplay* old1 = pass(before, 1);
  if (!p0 || !p1 || !old1) {
    expect(false, "both passes replayed");
    return 1;
  }
  expect_eq("pass 1 continues pass", p1->color_loaded_from, 0);
  expect_eq("seeded loads", now.stats.get_u64("capture.loads.seeded"), 1);
  expect_eq("loads from before the frame", now.stats.get_u64("capture.loads.unknown"), 0);
  expect(p1->coverage.compared && old1->coverage.compared, "coverage compared with the GPU's on the loaded pass");
  const uint64_t pixels = p1->coverage.pixels;
  expect_eq("pixels", pixels, 64 * 64);
  expect_eq("pixels that differ from the GPU's, loaded attachment replayed", p1->coverage.pixels_differ, 0);
  expect(old1->coverage.pixels_differ > 0, "the version-1 replay (from a clear) differs from the GPU's");
  // The loaded pass's replayed image keeps pass 0's draws where its own draws did not reach.
  const std::vector<uint32_t>& own = p1->frame.diagnostics.sample_draw;
  uint64_t kept = 0, kept_same = 0, from_pass0 = 0;
  for (size_t i = 0; i < own.size(); ++i) {
    if (own[i]) continue;
    ++kept;
    kept_same += p1->frame.color.pixels[i] == p0->frame.color.pixels[i];
    from_pass0 += p0->frame.diagnostics.sample_draw[i] != 0;
  }
  expect_eq("pixels pass 1 left as pass 0 drew them", kept_same, kept);
  expect(from_pass0 > 0, "pass 0's draws show through the loaded pass");
  std::printf(
      "load: pass 1 loads pass 0's colour image; %llu pixels; covered pixels differing from the GPU's: %llu "
      "(replay from a clear, as format version 1: %llu); GPU covered %llu samples, replay %llu\n",
      (unsigned long long)pixels, (unsigned long long)p1->coverage.pixels_differ,
      (unsigned long long)old1->coverage.pixels_differ, (unsigned long long)p1->coverage.samples_capture,
      (unsigned long long)p1->coverage.samples_replay);
  return g_failures ? 1 : 0;
}

}  // namespace

// Entry for layer_capture_app's replay modes; 2 = not one of them (usage).
int run_replay_modes(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "load" && argc > 2) return run_load(argv[2]);
  if (mode == "clipping" && argc > 2) return run_clipping(argv[2]);
  if (mode == "scene" && argc > 6) {
    const unsigned long w = std::stoul(argv[3]), h = std::stoul(argv[4]), parts = std::stoul(argv[5]);
    if (w < 1 || h < 1 || w > 4096 || h > 4096 || parts < 1 || parts > 4096) {
      std::fprintf(stderr, "scene: WIDTH and HEIGHT 1-4096, DRAWS 1-4096\n");
      return 2;
    }
    return run_scene(argv[2], uint32_t(w), uint32_t(h), uint32_t(parts), argv[6]);
  }
  return -1;
}

}  // namespace layer_test
