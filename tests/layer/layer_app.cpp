// Test application for VK_LAYER_TESSERA_stats: plain Vulkan, offscreen, on whatever driver the
// loader picks (lavapipe in the tests). It records known work, runs it, tears everything down,
// then reads the layer's output (TESSERA_LAYER_OUTPUT) and checks it. Exit status 0 = pass.
//
//   layer_app full [--validation]  every draw kind, indirect draws with GPU-written arguments,
//                                  secondaries recorded on threads, tessellation, a 4x MSAA
//                                  pass, 3 frames (run with TESSERA_LAYER_FRAME_DELIMITER=submit)
//   layer_app absent               no output file may appear (layer must be inactive)
//   layer_app robust               two instances, two devices each, odd destruction orders,
//                                  recorded-but-never-submitted work, an extension the layer
//                                  does not know (push descriptors), a counting allocator
//   layer_app csv                  the full scenario's first frame, checked in CSV form
//   layer_app smoke                the robust scenario without checking the output
//   layer_app interface LIBRARY    the library's exports and loader interface, without loader
//   layer_app bench FRAMES [WARMUP] timed frames of a fixed workload, JSON on stdout
//                                  (`tessera bench layer`)

#include <dlfcn.h>
#include <sys/resource.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "test_app_support.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace layer_test;

const uint32_t kQuadVert[] =
#include "quad.vert.inc"
    ;
const uint32_t kColorFrag[] =
#include "color.frag.inc"
    ;
const uint32_t kTriTesc[] =
#include "tri.tesc.inc"
    ;
const uint32_t kTriTese[] =
#include "tri.tese.inc"
    ;
const uint32_t kArgsComp[] =
#include "args.comp.inc"
    ;
const uint32_t kWorkComp[] =
#include "work.comp.inc"
    ;

// ---------------------------------------------------------------------------------------------
// Small Vulkan helpers

vkutil::Instance make_instance(uint32_t api, bool validation, const VkAllocationCallbacks* alloc = nullptr,
                               bool debug_utils = false) {
  vkutil::InstanceOptions options;
  options.application_name = "tessera_layer_app";
  options.api_version = api;
  options.validation = validation;
  options.log = &g_validation;
  if (debug_utils) options.extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  options.allocator = alloc;
  return vkutil::Instance(options);
}

// The first device, with a queue family that does graphics and compute.
vkutil::Device first_device(VkInstance instance) {
  return vkutil::choose_physical_device(instance, VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT);
}

// Host-visible and coherent, mapped: the application writes arguments and indices directly.
vkutil::Buffer make_buffer(const vkutil::Device& g, VkDeviceSize size, VkBufferUsageFlags usage) {
  return vkutil::create_buffer(g, size, usage,
                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
}

constexpr uint64_t kFsPerSquare = 96;  // lavapipe, see check_frame

VkRenderPass make_render_pass(const vkutil::Device& g, VkSampleCountFlagBits samples) {
  // Created through vkCreateRenderPass2 so that path is exercised too.
  VkAttachmentDescription2 att{VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2};
  att.format = kFormat;
  att.samples = samples;
  att.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  VkAttachmentReference2 ref{VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2};
  ref.attachment = 0;
  ref.layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  ref.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
  VkSubpassDescription2 sub{VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &ref;
  VkRenderPassCreateInfo2 ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2};
  ci.attachmentCount = 1;
  ci.pAttachments = &att;
  ci.subpassCount = 1;
  ci.pSubpasses = &sub;
  VkRenderPass rp = VK_NULL_HANDLE;
  CHECK_VK(vkCreateRenderPass2(g.device, &ci, nullptr, &rp));
  return rp;
}

VkFramebuffer make_framebuffer(const vkutil::Device& g, VkRenderPass rp, VkImageView view) {
  VkFramebufferCreateInfo ci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  ci.renderPass = rp;
  ci.attachmentCount = 1;
  ci.pAttachments = &view;
  ci.width = kSize;
  ci.height = kSize;
  ci.layers = 1;
  VkFramebuffer fb = VK_NULL_HANDLE;
  CHECK_VK(vkCreateFramebuffer(g.device, &ci, nullptr, &fb));
  return fb;
}

struct GraphicsDesc {
  VkRenderPass render_pass = VK_NULL_HANDLE;  // null: dynamic rendering
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  bool tessellation = false;
};

VkPipeline make_graphics(const vkutil::Device& g, VkPipelineLayout layout, const std::vector<VkShaderModule>& mods,
                         const GraphicsDesc& desc) {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  const VkShaderStageFlagBits kinds[] = {VK_SHADER_STAGE_VERTEX_BIT, VK_SHADER_STAGE_FRAGMENT_BIT,
                                         VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
                                         VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT};
  for (size_t i = 0; i < mods.size(); ++i) {
    VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    s.stage = kinds[i];
    s.module = mods[i];
    s.pName = "main";
    stages.push_back(s);
  }
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = desc.tessellation ? VK_PRIMITIVE_TOPOLOGY_PATCH_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineTessellationStateCreateInfo ts{VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
  ts.patchControlPoints = 3;
  VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
  VkRect2D scissor{{0, 0}, {kSize, kSize}};
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.pViewports = &viewport;
  vp.scissorCount = 1;
  vp.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.polygonMode = VK_POLYGON_MODE_FILL;
  rs.cullMode = VK_CULL_MODE_NONE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = desc.samples;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachmentFormats = &kFormat;
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.pNext = desc.render_pass ? nullptr : &rendering;
  ci.stageCount = uint32_t(stages.size());
  ci.pStages = stages.data();
  ci.pVertexInputState = &vi;
  ci.pInputAssemblyState = &ia;
  ci.pTessellationState = desc.tessellation ? &ts : nullptr;
  ci.pViewportState = &vp;
  ci.pRasterizationState = &rs;
  ci.pMultisampleState = &ms;
  ci.pColorBlendState = &cb;
  ci.layout = layout;
  ci.renderPass = desc.render_pass;
  VkPipeline p = VK_NULL_HANDLE;
  CHECK_VK(vkCreateGraphicsPipelines(g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  return p;
}

// Command buffers are recorded again (an implicit reset), which their pool must allow.
VkCommandPool make_pool(const vkutil::Device& g) {
  return vkutil::create_command_pool(g, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
}

void begin_primary(VkCommandBuffer cb) {
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK_VK(vkBeginCommandBuffer(cb, &bi));
}

// vkutil::submit_and_wait through vkQueueSubmit2, which the layer counts on its own path.
void submit2_and_wait(const vkutil::Device& g, VkCommandBuffer cb, VkFence fence) {
  VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
  cbi.commandBuffer = cb;
  VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
  si.commandBufferInfoCount = 1;
  si.pCommandBufferInfos = &cbi;
  CHECK_VK(vkQueueSubmit2(g.queue, 1, &si, fence));
  CHECK_VK(vkWaitForFences(g.device, 1, &fence, VK_TRUE, UINT64_MAX));
  CHECK_VK(vkResetFences(g.device, 1, &fence));
}

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  if (!in) {
    expect(false, "layer output " + path + " exists");
    return out;
  }
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::string output_path() {
  const char* p = std::getenv("TESSERA_LAYER_OUTPUT");
  return p ? p : "";
}

// ---------------------------------------------------------------------------------------------
// The full scenario

// Expected counters of one frame, accumulated while recording.
struct Expect {
  std::map<std::string, uint64_t> draws_by_kind;
  uint64_t draws = 0, instances = 0, vertices = 0, indices = 0, triangles = 0, patches = 0, control_points = 0;
  uint64_t dispatches = 0, workgroups = 0, rp1 = 0, rp4 = 0, msaa_pixels = 0, secondaries = 0;
  uint64_t tess_draws = 0, msaa_draws = 0;
  // GPU truth
  uint64_t ia_vertices = 0, ia_primitives = 0, squares = 0, cs_invocations = 0, tess_patches = 0;
  void draw(const std::string& kind) {
    ++draws_by_kind[kind];
    ++draws;
  }
  // A direct triangle-list draw of n vertices (multiple of 6) and k instances.
  void direct(uint64_t n, uint64_t k, bool indexed) {
    instances += k;
    vertices += n * k;
    if (indexed) indices += n * k;
    triangles += n / 3 * k;
    gpu(n, k);
  }
  // Work the GPU sees (indirect draws too).
  void gpu(uint64_t n, uint64_t k) {
    ia_vertices += n * k;
    ia_primitives += n / 3 * k;
    squares += n / 6 * k;
  }
};

struct FullScene {
  vkutil::Instance instance;
  vkutil::Device g;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout compute_layout = VK_NULL_HANDLE, graphics_layout = VK_NULL_HANDLE;
  VkPipeline args_pipe = VK_NULL_HANDLE, work_pipe = VK_NULL_HANDLE, quad_pipe = VK_NULL_HANDLE,
             msaa_pipe = VK_NULL_HANDLE, tess_pipe = VK_NULL_HANDLE;
  std::vector<VkShaderModule> modules;
  VkRenderPass rp1 = VK_NULL_HANDLE, rp4 = VK_NULL_HANDLE;
  Image target1, target4, target_dyn;
  VkFramebuffer fb1 = VK_NULL_HANDLE, fb4 = VK_NULL_HANDLE;
  vkutil::Buffer args, scratch, indices;
  VkCommandPool pool = VK_NULL_HANDLE;
  std::vector<VkCommandPool> thread_pools;
  PFN_vkCmdPushDescriptorSetKHR push_descriptor = nullptr;
  PFN_vkCmdDrawMultiEXT draw_multi = nullptr;
  PFN_vkCmdDrawMultiIndexedEXT draw_multi_indexed = nullptr;
  PFN_vkCmdDrawIndexedIndirectCountKHR draw_indexed_indirect_count_khr = nullptr;
};

bool label_delimiter() {
  const char* d = std::getenv("TESSERA_LAYER_FRAME_DELIMITER");
  return d && std::string(d) == "label";
}

void create_device_full(FullScene& s, bool validation) {
  s.instance = make_instance(VK_API_VERSION_1_3, validation, nullptr, label_delimiter());
  s.g = first_device(s.instance.handle());
  vkutil::Device& g = s.g;

  // Features through a VkPhysicalDeviceFeatures2 chain with Vulkan12Features in it: the layer
  // has to add pipelineStatisticsQuery and hostQueryReset without touching these structs.
  VkPhysicalDeviceMultiDrawFeaturesEXT multi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT};
  multi.multiDraw = VK_TRUE;
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  f13.pNext = &multi;
  f13.dynamicRendering = VK_TRUE;
  f13.synchronization2 = VK_TRUE;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.pNext = &f13;
  f12.drawIndirectCount = VK_TRUE;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f12;
  f2.features.tessellationShader = VK_TRUE;
  f2.features.multiDrawIndirect = VK_TRUE;
  const VkPhysicalDeviceFeatures2 f2_before = f2;
  const VkPhysicalDeviceVulkan12Features f12_before = f12;

  vkutil::DeviceRequest request;
  request.next = &f2;
  request.extensions = {VK_EXT_MULTI_DRAW_EXTENSION_NAME, VK_KHR_DRAW_INDIRECT_COUNT_EXTENSION_NAME,
                        VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  vkutil::create_device(g, request);
  expect(std::memcmp(&f2, &f2_before, sizeof f2) == 0 && std::memcmp(&f12, &f12_before, sizeof f12) == 0,
         "the application's feature structs are unchanged by vkCreateDevice");

  s.push_descriptor =
      reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(g.device, "vkCmdPushDescriptorSetKHR"));
  s.draw_multi = reinterpret_cast<PFN_vkCmdDrawMultiEXT>(vkGetDeviceProcAddr(g.device, "vkCmdDrawMultiEXT"));
  s.draw_multi_indexed =
      reinterpret_cast<PFN_vkCmdDrawMultiIndexedEXT>(vkGetDeviceProcAddr(g.device, "vkCmdDrawMultiIndexedEXT"));
  s.draw_indexed_indirect_count_khr = reinterpret_cast<PFN_vkCmdDrawIndexedIndirectCountKHR>(
      vkGetDeviceProcAddr(g.device, "vkCmdDrawIndexedIndirectCountKHR"));
  expect(s.push_descriptor && s.draw_multi && s.draw_multi_indexed && s.draw_indexed_indirect_count_khr,
         "extension commands resolve");
  expect(vkGetDeviceProcAddr(g.device, "vkCmdDrawMeshTasksEXT") == nullptr,
         "a command of an extension not enabled stays null");
  expect(vkGetDeviceProcAddr(g.device, "vkNoSuchCommandTESSERA") == nullptr, "an unknown command stays null");
}

void build_full(FullScene& s) {
  vkutil::Device& g = s.g;
  VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dl.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  dl.bindingCount = 1;
  dl.pBindings = &binding;
  CHECK_VK(vkCreateDescriptorSetLayout(g.device, &dl, nullptr, &s.set_layout));
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &s.set_layout;
  CHECK_VK(vkCreatePipelineLayout(g.device, &pl, nullptr, &s.compute_layout));
  VkPipelineLayoutCreateInfo gl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  CHECK_VK(vkCreatePipelineLayout(g.device, &gl, nullptr, &s.graphics_layout));

  VkShaderModule vert = make_shader(g, kQuadVert), frag = make_shader(g, kColorFrag), tesc = make_shader(g, kTriTesc),
                 tese = make_shader(g, kTriTese), args = make_shader(g, kArgsComp), work = make_shader(g, kWorkComp);
  s.modules = {vert, frag, tesc, tese, args, work};
  s.rp1 = make_render_pass(g, VK_SAMPLE_COUNT_1_BIT);
  s.rp4 = make_render_pass(g, VK_SAMPLE_COUNT_4_BIT);
  s.target1 = make_image(g, VK_SAMPLE_COUNT_1_BIT);
  s.target4 = make_image(g, VK_SAMPLE_COUNT_4_BIT);
  s.target_dyn = make_image(g, VK_SAMPLE_COUNT_1_BIT);
  s.fb1 = make_framebuffer(g, s.rp1, s.target1.view);
  s.fb4 = make_framebuffer(g, s.rp4, s.target4.view);
  s.args_pipe = make_compute(g, s.compute_layout, args);
  s.work_pipe = make_compute(g, s.compute_layout, work);
  s.quad_pipe = make_graphics(g, s.graphics_layout, {vert, frag}, {s.rp1, VK_SAMPLE_COUNT_1_BIT, false});
  s.msaa_pipe = make_graphics(g, s.graphics_layout, {vert, frag}, {s.rp4, VK_SAMPLE_COUNT_4_BIT, false});
  s.tess_pipe =
      make_graphics(g, s.graphics_layout, {vert, frag, tesc, tese}, {VK_NULL_HANDLE, VK_SAMPLE_COUNT_1_BIT, true});
  s.args = make_buffer(g, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
  s.scratch = make_buffer(g, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  s.indices = make_buffer(g, 64, VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
  std::memset(s.args.mapped, 0, 256);
  auto* idx = static_cast<uint16_t*>(s.indices.mapped);
  for (uint16_t i = 0; i < 32; ++i) idx[i] = i % 12;
  s.pool = make_pool(g);
}

void push_buffer(FullScene& s, VkCommandBuffer cb, VkBuffer buffer) {
  VkDescriptorBufferInfo bi{buffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstBinding = 0;
  w.descriptorCount = 1;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w.pBufferInfo = &bi;
  s.push_descriptor(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.compute_layout, 0, 1, &w);
}

void begin_pass(VkCommandBuffer cb, VkRenderPass rp, VkFramebuffer fb, VkSubpassContents contents, bool v2) {
  VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  bi.renderPass = rp;
  bi.framebuffer = fb;
  bi.renderArea = {{0, 0}, {kSize, kSize}};
  if (v2) {
    VkSubpassBeginInfo sbi{VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO};
    sbi.contents = contents;
    vkCmdBeginRenderPass2(cb, &bi, &sbi);
  } else {
    vkCmdBeginRenderPass(cb, &bi, contents);
  }
}

// Records the frame-0 primary (also frame 1): compute writing indirect arguments, every draw
// kind, a 4x MSAA pass, a tessellation pass with dynamic rendering, and three secondaries
// recorded on three threads.
VkCommandBuffer record_main(FullScene& s, Expect& e) {
  vkutil::Device& g = s.g;
  VkCommandBuffer cb = vkutil::allocate_command_buffer(g.device, s.pool);
  begin_primary(cb);
  // Compute: the argument writer (1 group of 4), then indirect and base dispatches of the work
  // shader (groups of 8).
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.args_pipe);
  push_buffer(s, cb, s.args.buffer);
  vkCmdDispatch(cb, 1, 1, 1);
  e.dispatches++, e.workgroups += 1, e.cs_invocations += 4;
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &mb, 0,
                       nullptr, 0, nullptr);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.work_pipe);
  push_buffer(s, cb, s.scratch.buffer);
  vkCmdDispatchIndirect(cb, s.args.buffer, 80);  // {2,1,1} written by the GPU
  e.dispatches++, e.cs_invocations += 16;
  vkCmdDispatchBase(cb, 0, 0, 0, 3, 1, 1);
  e.dispatches++, e.workgroups += 3, e.cs_invocations += 24;

  // Pass A: 1x, inline, every draw kind.
  begin_pass(cb, s.rp1, s.fb1, VK_SUBPASS_CONTENTS_INLINE, false);
  e.rp1++;
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s.quad_pipe);
  vkCmdBindIndexBuffer(cb, s.indices.buffer, 0, VK_INDEX_TYPE_UINT16);
  vkCmdDraw(cb, 6, 1, 0, 0);
  e.draw("draw"), e.direct(6, 1, false);
  vkCmdDraw(cb, 12, 3, 0, 0);
  e.draw("draw"), e.direct(12, 3, false);
  vkCmdDrawIndexed(cb, 6, 2, 0, 0, 0);
  e.draw("draw_indexed"), e.direct(6, 2, true);
  vkCmdDrawIndirect(cb, s.args.buffer, 0, 2, 16);  // {6 x2}, {12 x1}
  e.draw("draw_indirect"), e.gpu(6, 2), e.gpu(12, 1);
  vkCmdDrawIndexedIndirect(cb, s.args.buffer, 32, 2, 20);  // {6 x3}, {6 x1}
  e.draw("draw_indexed_indirect"), e.gpu(6, 3), e.gpu(6, 1);
  vkCmdDrawIndirectCount(cb, s.args.buffer, 0, s.args.buffer, 72, 4, 16);  // count 2
  e.draw("draw_indirect_count"), e.gpu(6, 2), e.gpu(12, 1);
  s.draw_indexed_indirect_count_khr(cb, s.args.buffer, 32, s.args.buffer, 76, 4, 20);  // count 1
  e.draw("draw_indexed_indirect_count"), e.gpu(6, 3);
  const VkMultiDrawInfoEXT multi[2] = {{0, 6}, {0, 12}};
  s.draw_multi(cb, 2, multi, 1, 0, sizeof(VkMultiDrawInfoEXT));
  e.draw("draw_multi"), e.direct(6, 1, false), e.direct(12, 1, false);
  const VkMultiDrawIndexedInfoEXT multi_indexed[2] = {{0, 6, 0}, {0, 6, 0}};
  s.draw_multi_indexed(cb, 2, multi_indexed, 2, 0, sizeof(VkMultiDrawIndexedInfoEXT), nullptr);
  e.draw("draw_multi_indexed"), e.direct(6, 2, true), e.direct(6, 2, true);
  vkCmdEndRenderPass(cb);

  // Pass B: 4x MSAA through vkCmdBeginRenderPass2.
  begin_pass(cb, s.rp4, s.fb4, VK_SUBPASS_CONTENTS_INLINE, true);
  e.rp4++, e.msaa_pixels += kSize * kSize;
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s.msaa_pipe);
  vkCmdDraw(cb, 6, 4, 0, 0);
  e.draw("draw"), e.direct(6, 4, false), e.msaa_draws++;
  VkSubpassEndInfo sei{VK_STRUCTURE_TYPE_SUBPASS_END_INFO};
  vkCmdEndRenderPass2(cb, &sei);

  // Pass C: dynamic rendering, tessellation: 6 control points = 2 patches = one square.
  VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  ib.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  ib.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  ib.image = s.target_dyn.image;
  ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &ib);
  VkRenderingAttachmentInfo att{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  att.imageView = s.target_dyn.view;
  att.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  att.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
  ri.renderArea = {{0, 0}, {kSize, kSize}};
  ri.layerCount = 1;
  ri.colorAttachmentCount = 1;
  ri.pColorAttachments = &att;
  vkCmdBeginRendering(cb, &ri);
  e.rp1++;
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s.tess_pipe);
  vkCmdDraw(cb, 6, 1, 0, 0);
  e.draw("draw"), e.instances += 1, e.vertices += 6, e.patches += 2, e.control_points += 6, e.tess_draws++;
  e.ia_vertices += 6, e.ia_primitives += 2, e.squares += 1, e.tess_patches += 2;
  vkCmdEndRendering(cb);

  // Pass D: three secondaries, each recorded on its own thread with its own pool; secondary k
  // draws one square with k+1 instances.
  std::vector<VkCommandBuffer> secondaries(3);
  s.thread_pools.resize(3);
  for (auto& p : s.thread_pools) p = make_pool(g);
  std::vector<std::thread> threads;
  for (int k = 0; k < 3; ++k) {
    threads.emplace_back([&, k] {
      VkCommandBuffer sc =
          vkutil::allocate_command_buffer(g.device, s.thread_pools[k], VK_COMMAND_BUFFER_LEVEL_SECONDARY);
      VkCommandBufferInheritanceInfo inh{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
      inh.renderPass = s.rp1;
      inh.subpass = 0;
      inh.framebuffer = s.fb1;
      VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      bi.flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT;
      bi.pInheritanceInfo = &inh;
      CHECK_VK(vkBeginCommandBuffer(sc, &bi));
      vkCmdBindPipeline(sc, VK_PIPELINE_BIND_POINT_GRAPHICS, s.quad_pipe);
      vkCmdDraw(sc, 6, uint32_t(k + 1), 0, 0);
      CHECK_VK(vkEndCommandBuffer(sc));
      secondaries[k] = sc;
    });
  }
  for (auto& t : threads) t.join();
  for (int k = 0; k < 3; ++k) e.draw("draw"), e.direct(6, uint64_t(k + 1), false);
  begin_pass(cb, s.rp1, s.fb1, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS, false);
  e.rp1++;
  vkCmdExecuteCommands(cb, 3, secondaries.data());
  e.secondaries += 3;
  vkCmdEndRenderPass(cb);
  CHECK_VK(vkEndCommandBuffer(cb));
  return cb;
}

// Frame 2: one dispatch of 5 groups and one square, submitted with vkQueueSubmit2.
VkCommandBuffer record_small(FullScene& s, Expect& e) {
  VkCommandBuffer cb = vkutil::allocate_command_buffer(s.g.device, s.pool);
  begin_primary(cb);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.work_pipe);
  push_buffer(s, cb, s.scratch.buffer);
  vkCmdDispatch(cb, 5, 1, 1);
  e.dispatches++, e.workgroups += 5, e.cs_invocations += 40;
  begin_pass(cb, s.rp1, s.fb1, VK_SUBPASS_CONTENTS_INLINE, false);
  e.rp1++;
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s.quad_pipe);
  vkCmdDraw(cb, 6, 1, 0, 0);
  e.draw("draw"), e.direct(6, 1, false);
  vkCmdEndRenderPass(cb);
  CHECK_VK(vkEndCommandBuffer(cb));
  return cb;
}

void destroy_full(FullScene& s) {
  vkutil::Device& g = s.g;
  CHECK_VK(vkDeviceWaitIdle(g.device));
  for (VkCommandPool p : s.thread_pools) vkDestroyCommandPool(g.device, p, nullptr);
  vkDestroyCommandPool(g.device, s.pool, nullptr);
  vkutil::destroy_buffer(g.device, s.args);
  vkutil::destroy_buffer(g.device, s.scratch);
  vkutil::destroy_buffer(g.device, s.indices);
  for (VkPipeline p : {s.args_pipe, s.work_pipe, s.quad_pipe, s.msaa_pipe, s.tess_pipe})
    vkDestroyPipeline(g.device, p, nullptr);
  for (VkShaderModule m : s.modules) vkDestroyShaderModule(g.device, m, nullptr);
  vkDestroyFramebuffer(g.device, s.fb1, nullptr);
  vkDestroyFramebuffer(g.device, s.fb4, nullptr);
  destroy_image(g, s.target1);
  destroy_image(g, s.target4);
  destroy_image(g, s.target_dyn);
  vkDestroyRenderPass(g.device, s.rp1, nullptr);
  vkDestroyRenderPass(g.device, s.rp4, nullptr);
  vkDestroyPipelineLayout(g.device, s.compute_layout, nullptr);
  vkDestroyPipelineLayout(g.device, s.graphics_layout, nullptr);
  vkDestroyDescriptorSetLayout(g.device, s.set_layout, nullptr);
  vkDestroyDevice(g.device, nullptr);
  s.instance.destroy();
}

void check_frame(const nlohmann::json& r, uint64_t frame, const Expect& e) {
  const std::string f = "frame " + std::to_string(frame) + " ";
  expect_eq(f + "frame", r.at("frame").get<uint64_t>(), frame);
  expect(r.at("cpu_frame_time_ms").get<double>() >= 0.0, f + "cpu_frame_time_ms >= 0");
  expect_eq(f + "submits", r.at("submits"), 1);
  expect_eq(f + "command_buffers", r.at("command_buffers"), 1);
  expect_eq(f + "draws", r.at("draws"), e.draws);
  for (const auto& [kind, v] : r.at("draws_by_kind").items()) {
    auto it = e.draws_by_kind.find(kind);
    expect_eq(f + "draws_by_kind." + kind, v.get<uint64_t>(), it == e.draws_by_kind.end() ? 0 : it->second);
  }
  expect_eq(f + "draws_by_pipeline.tessellation", r.at("draws_by_pipeline").at("tessellation"), e.tess_draws);
  expect_eq(f + "draws_by_pipeline.geometry", r.at("draws_by_pipeline").at("geometry"), 0);
  expect_eq(f + "draws_by_pipeline.multisampled", r.at("draws_by_pipeline").at("multisampled"), e.msaa_draws);
  expect_eq(f + "instances", r.at("instances"), e.instances);
  expect_eq(f + "vertices", r.at("vertices"), e.vertices);
  expect_eq(f + "indices", r.at("indices"), e.indices);
  for (const auto& [topo, v] : r.at("primitives_by_topology").items()) {
    uint64_t want = topo == "triangle_list" ? e.triangles : topo == "patch_list" ? e.patches : 0;
    expect_eq(f + "primitives_by_topology." + topo, v.get<uint64_t>(), want);
  }
  expect_eq(f + "patches", r.at("patches"), e.patches);
  expect_eq(f + "control_points", r.at("control_points"), e.control_points);
  expect_eq(f + "dispatches", r.at("dispatches"), e.dispatches);
  expect_eq(f + "workgroups", r.at("workgroups"), e.workgroups);
  expect_eq(f + "render_passes.1", r.at("render_passes").at("1"), e.rp1);
  expect_eq(f + "render_passes.4", r.at("render_passes").at("4"), e.rp4);
  expect_eq(f + "msaa_covered_pixels", r.at("msaa_covered_pixels"), e.msaa_pixels);
  expect_eq(f + "secondary_executions", r.at("secondary_executions"), e.secondaries);
  // GPU truth from the pipeline-statistics queries. lavapipe: no vertex reuse, tessellation
  // level 1 gives 3 evaluation invocations per patch, and fragment shading runs on whole 4x4
  // blocks: each triangle of an 8x8 square on the 4-pixel grid touches 3 blocks, so a square
  // counts 2 x 3 x 16 = 96 fragment invocations for its 64 covered pixels (the specification
  // leaves that count to the implementation).
  expect(r.at("query_complete").get<bool>(), f + "query_complete");
  const auto& q = r.at("query");
  expect(q.is_object(), f + "query present");
  if (!q.is_object()) return;
  expect_eq(f + "query.ia_vertices", q.at("ia_vertices"), e.ia_vertices);
  expect_eq(f + "query.ia_primitives", q.at("ia_primitives"), e.ia_primitives);
  expect_eq(f + "query.vs_invocations", q.at("vs_invocations"), e.ia_vertices);
  expect_eq(f + "query.gs_invocations", q.at("gs_invocations"), 0);
  expect_eq(f + "query.gs_primitives", q.at("gs_primitives"), 0);
  const uint64_t raster_triangles = e.ia_primitives;  // level-1 tessellation: one triangle per patch
  expect_eq(f + "query.clipping_invocations", q.at("clipping_invocations"), raster_triangles);
  expect_eq(f + "query.clipping_primitives", q.at("clipping_primitives"), raster_triangles);
  expect_eq(f + "query.fs_invocations", q.at("fs_invocations"), e.squares * kFsPerSquare);
  expect_eq(f + "query.tcs_patches", q.at("tcs_patches"), e.tess_patches);
  expect_eq(f + "query.tes_invocations", q.at("tes_invocations"), e.tess_patches * 3);
  expect_eq(f + "query.cs_invocations", q.at("cs_invocations"), e.cs_invocations);
  // Tessera's GPP model on the frame's patches (level 1: 3 domain points each); the model's
  // figures are checked in layer_units_app gpp.
  const auto& gpp = r.at("gpp");
  expect(gpp.is_null() == (e.tess_patches == 0), f + "gpp present exactly when the frame tessellates");
  if (gpp.is_object()) {
    expect_eq(f + "gpp.patches", gpp.at("patches"), e.tess_patches);
    expect_eq(f + "gpp.domain_points", gpp.at("domain_points"), e.tess_patches * 3);
  }
}

int run_full(bool validation, bool csv) {
  FullScene s;
  create_device_full(s, validation);
  build_full(s);
  Expect e_main, e_small;
  VkCommandBuffer main_cb = record_main(s, e_main);
  VkCommandBuffer small_cb = record_small(s, e_small);
  VkFence fence = vkutil::create_fence(s.g.device);
  // With TESSERA_LAYER_FRAME_DELIMITER=label a debug-utils queue label ends each frame, else
  // (delimiter "submit") each submission does.
  auto insert_label = reinterpret_cast<PFN_vkQueueInsertDebugUtilsLabelEXT>(
      vkGetInstanceProcAddr(s.instance.handle(), "vkQueueInsertDebugUtilsLabelEXT"));
  auto end_frame = [&] {
    if (!label_delimiter()) return;
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = "some other label";
    insert_label(s.g.queue, &label);
    label.pLabelName = "tessera.frame";
    insert_label(s.g.queue, &label);
  };
  vkutil::submit_and_wait(s.g, main_cb, fence);  // frame 0
  end_frame();
  vkutil::submit_and_wait(s.g, main_cb, fence);  // frame 1: the same recording again
  end_frame();
  submit2_and_wait(s.g, small_cb, fence);  // frame 2, vkQueueSubmit2
  end_frame();
  vkDestroyFence(s.g.device, fence, nullptr);
  destroy_full(s);

  if (validation) {
    expect_no_validation_errors();
  }
  const std::string path = output_path();
  if (csv) {
    std::ifstream in(path);
    std::string header, row;
    std::getline(in, header);
    std::vector<std::string> names, values;
    std::stringstream hs(header);
    for (std::string c; std::getline(hs, c, ',');) names.push_back(c);
    int rows = 0;
    while (std::getline(in, row)) {
      ++rows;
      if (rows != 1) continue;
      std::stringstream rs(row);
      for (std::string c; std::getline(rs, c, ',');) values.push_back(c);
      if (!row.empty() && row.back() == ',') values.emplace_back();  // a last empty column (no MSAA read-back)
    }
    expect_eq("csv rows (3 frames)", uint64_t(rows), 3);
    expect_eq("csv columns", values.size(), names.size());
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) m[names[i]] = values[i];
    expect(m["frame"] == "0", "csv frame 0");
    expect(m["draws"] == std::to_string(e_main.draws), "csv draws");
    expect(m["vertices"] == std::to_string(e_main.vertices), "csv vertices");
    expect(m["query.fs_invocations"] == std::to_string(e_main.squares * kFsPerSquare), "csv query.fs_invocations");
    expect(m["gpp.patches"] == std::to_string(e_main.tess_patches), "csv gpp.patches");
  } else {
    auto records = read_jsonl(path);
    std::vector<nlohmann::json> frames;
    int summaries = 0;
    for (auto& r : records) {
      if (r.contains("summary"))
        ++summaries;
      else
        frames.push_back(r);
    }
    expect_eq("frame records", frames.size(), 3);
    expect_eq("summary records", uint64_t(summaries), 1);
    if (frames.size() == 3) {
      check_frame(frames[0], 0, e_main);
      check_frame(frames[1], 1, e_main);
      check_frame(frames[2], 2, e_small);
    }
  }
  std::printf("%s: %d failures\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Robustness

struct CountingAllocator {
  std::atomic<int64_t> live{0};
  std::atomic<int64_t> total{0};
  std::mutex mutex;
  std::map<void*, size_t> sizes;
  static void* alloc(void* user, size_t size, size_t align, VkSystemAllocationScope) {
    auto* self = static_cast<CountingAllocator*>(user);
    const size_t a = align < sizeof(void*) ? sizeof(void*) : align;
    void* p = std::aligned_alloc(a, (size + a - 1) / a * a);
    if (p) {
      std::lock_guard lock(self->mutex);
      self->sizes[p] = size;
      ++self->live, ++self->total;
    }
    return p;
  }
  static void* realloc(void* user, void* old, size_t size, size_t align, VkSystemAllocationScope scope) {
    auto* self = static_cast<CountingAllocator*>(user);
    if (!old) return alloc(user, size, align, scope);
    if (size == 0) {
      free(user, old);
      return nullptr;
    }
    void* p = alloc(user, size, align, scope);
    if (!p) return nullptr;
    size_t old_size;
    {
      std::lock_guard lock(self->mutex);
      old_size = self->sizes[old];
    }
    std::memcpy(p, old, old_size < size ? old_size : size);
    free(user, old);
    return p;
  }
  static void free(void* user, void* p) {
    if (!p) return;
    auto* self = static_cast<CountingAllocator*>(user);
    {
      std::lock_guard lock(self->mutex);
      self->sizes.erase(p);
      --self->live;
    }
    std::free(p);
  }
  VkAllocationCallbacks callbacks() {
    VkAllocationCallbacks cb{};
    cb.pUserData = this;
    cb.pfnAllocation = alloc;
    cb.pfnReallocation = realloc;
    cb.pfnFree = free;
    return cb;
  }
};

// A Vulkan 1.0 device with features through pEnabledFeatures (the layer then needs
// VK_EXT_host_query_reset) or none at all.
vkutil::Device make_simple_device(VkInstance instance, const VkAllocationCallbacks* alloc, bool features) {
  vkutil::Device g = first_device(instance);
  VkPhysicalDeviceFeatures f{};
  f.tessellationShader = VK_TRUE;
  vkutil::DeviceRequest request;
  request.features = features ? &f : nullptr;
  request.extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};  // unknown to the layer
  request.allocator = alloc;
  vkutil::create_device(g, request);
  expect(vkGetDeviceProcAddr(g.device, "vkCmdPushDescriptorSetKHR") != nullptr, "push descriptor command passes");
  return g;
}

// Records one render pass with one draw of 6 vertices (no pipeline: counting only, never
// submitted) or with a clear (submitted).
void record_clear(const vkutil::Device& g, VkCommandBuffer cb, bool draw) {
  begin_primary(cb);
  if (draw) {
    // Recorded and never submitted: the layer counts it nowhere.
    vkCmdDispatch(cb, 1, 1, 1);
  }
  CHECK_VK(vkEndCommandBuffer(cb));
  (void)g;
}

int run_robust(bool check_output) {
  CountingAllocator counting;
  VkAllocationCallbacks alloc = counting.callbacks();
  vkutil::Instance a = make_instance(VK_API_VERSION_1_0, false);
  vkutil::Instance b = make_instance(VK_API_VERSION_1_3, false, &alloc);
  vkutil::Device a0 = make_simple_device(a.handle(), nullptr, true);
  vkutil::Device a1 = make_simple_device(a.handle(), nullptr, false);
  vkutil::Device b0 = make_simple_device(b.handle(), &alloc, true);
  vkutil::Device b1 = make_simple_device(b.handle(), nullptr, true);
  const int64_t after_create = counting.total.load();

  // On every device: a command buffer recorded and submitted, one recorded and never
  // submitted, one allocated and never begun.
  std::vector<VkCommandPool> pools;
  for (vkutil::Device* g : {&a0, &a1, &b0, &b1}) {
    VkCommandPool pool = make_pool(*g);
    pools.push_back(pool);
    VkCommandBuffer run = vkutil::allocate_command_buffer(g->device, pool);
    VkCommandBuffer never = vkutil::allocate_command_buffer(g->device, pool);
    vkutil::allocate_command_buffer(g->device, pool);
    record_clear(*g, run, false);
    record_clear(*g, never, true);
    VkFence fence = vkutil::create_fence(g->device);
    vkutil::submit_and_wait(*g, run, fence);
    // Re-record and resubmit (reuse of the same command buffer), then reset the pool.
    record_clear(*g, run, false);
    vkutil::submit_and_wait(*g, run, fence);
    vkDestroyFence(g->device, fence, nullptr);
  }
  // Unusual orders: a pool reset before its buffers are freed, pools destroyed with live
  // command buffers (one after its device's sibling device is gone), devices destroyed in
  // reverse order, instance b destroyed before instance a.
  CHECK_VK(vkResetCommandPool(a0.device, pools[0], 0));
  vkDestroyCommandPool(a0.device, pools[0], nullptr);
  vkDestroyCommandPool(a1.device, pools[1], nullptr);
  vkDestroyCommandPool(b1.device, pools[3], nullptr);
  vkDestroyCommandPool(b0.device, pools[2], nullptr);
  vkDestroyDevice(b1.device, nullptr);
  vkDestroyDevice(b0.device, &alloc);
  vkDestroyDevice(a1.device, nullptr);
  vkDestroyDevice(a0.device, nullptr);
  b.destroy();
  a.destroy();
  expect(after_create > 0, "the application's allocator was used");
  expect_eq("allocations still live after destruction", uint64_t(counting.live.load()), 0);

  const std::string path = output_path();
  if (check_output) {
    auto records = read_jsonl(path);
    std::set<uint64_t> devices;
    int summaries = 0;
    for (auto& r : records) {
      if (r.contains("summary")) {
        ++summaries;
        expect_eq("robust draws", r.at("draws"), 0);
        expect_eq("robust dispatches (never-submitted one not counted)", r.at("dispatches"), 0);
        expect_eq("robust submits", r.at("submits"), 2);
      }
      devices.insert(r.at("device").get<uint64_t>());
    }
    expect_eq("summaries (one per device)", uint64_t(summaries), 4);
    expect_eq("devices seen", devices.size(), 4);
  }
  std::printf("%s: %d failures\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}

int run_absent() {
  const std::string path = output_path();
  std::remove(path.c_str());
  vkutil::Instance instance = make_instance(VK_API_VERSION_1_3, false);
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const auto& l : layers)
    if (std::strcmp(l.layerName, "VK_LAYER_TESSERA_stats") == 0) std::printf("note: layer listed (inactive)\n");
  vkutil::Device g = make_simple_device(instance.handle(), nullptr, true);
  VkCommandPool pool = make_pool(g);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(g.device, pool);
  record_clear(g, cb, false);
  VkFence fence = vkutil::create_fence(g.device);
  vkutil::submit_and_wait(g, cb, fence);
  vkDestroyFence(g.device, fence, nullptr);
  vkDestroyCommandPool(g.device, pool, nullptr);
  vkDestroyDevice(g.device, nullptr);
  instance.destroy();
  std::ifstream in(path);
  expect(!in, "no layer output when the layer is inactive");
  std::printf("%s: %d failures\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}

// The library's loader interface, called directly (no loader): exports, negotiation, and
// vkCreateInstance without the loader's link info.
int run_interface(const char* library) {
  void* h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  expect(h != nullptr, std::string("dlopen ") + library);
  if (!h) return 1;
  auto negotiate =
      reinterpret_cast<PFN_vkNegotiateLoaderLayerInterfaceVersion>(dlsym(h, "vkNegotiateLoaderLayerInterfaceVersion"));
  auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(h, "vkGetInstanceProcAddr"));
  expect(negotiate && gipa && dlsym(h, "vkGetDeviceProcAddr"), "the three loader entry points are exported");
  for (const char* hidden : {"vkCreateInstance", "vkCreateDevice", "vkCmdDraw", "vkQueueSubmit"})
    expect(dlsym(h, hidden) == nullptr, std::string("not exported: ") + hidden);
  if (negotiate && gipa) {
    VkNegotiateLayerInterface ni{};
    ni.sType = LAYER_NEGOTIATE_INTERFACE_STRUCT;
    ni.loaderLayerInterfaceVersion = 5;
    expect(negotiate(&ni) == VK_SUCCESS, "negotiation succeeds");
    expect_eq("negotiated interface version", ni.loaderLayerInterfaceVersion, 2);
    expect(ni.pfnGetInstanceProcAddr && ni.pfnGetDeviceProcAddr, "negotiation hands out vkGet*ProcAddr");
    auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
    expect(create != nullptr, "vkCreateInstance through vkGetInstanceProcAddr");
    if (create) {
      VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
      VkInstance instance = VK_NULL_HANDLE;
      expect(create(&ci, nullptr, &instance) == VK_ERROR_INITIALIZATION_FAILED,
             "vkCreateInstance without a next layer fails with VK_ERROR_INITIALIZATION_FAILED");
    }
  }
  dlclose(h);
  std::printf("%s: %d failures\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Benchmark (`tessera bench layer`): a fixed frame re-recorded every frame (as real renderers
// do, so the layer's per-command cost is in it) and ended by submit + fence wait, since a
// headless program has no present. The application times its own frames, so process start-up,
// instance and pipeline creation stay out of the numbers.

// One frame: a compute dispatch, a 1x pass of 48 draws (36 direct, 12 indexed), a 4x MSAA
// pass of 16 draws; every draw 16 instanced squares (a quarter of the 64x64 target), so the
// driver has real raster work (about 1 ms a frame on lavapipe). Returns the draws recorded.
int record_bench_frame(FullScene& s, VkCommandBuffer cb) {
  int draws = 0;
  begin_primary(cb);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.work_pipe);
  push_buffer(s, cb, s.scratch.buffer);
  vkCmdDispatch(cb, 4, 1, 1);
  begin_pass(cb, s.rp1, s.fb1, VK_SUBPASS_CONTENTS_INLINE, false);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s.quad_pipe);
  vkCmdBindIndexBuffer(cb, s.indices.buffer, 0, VK_INDEX_TYPE_UINT16);
  for (uint32_t i = 0; i < 48; ++i, ++draws) {
    if (i % 4 == 3)
      vkCmdDrawIndexed(cb, 6, 16, 0, 0, i);
    else
      vkCmdDraw(cb, 6, 16, 0, i);
  }
  vkCmdEndRenderPass(cb);
  begin_pass(cb, s.rp4, s.fb4, VK_SUBPASS_CONTENTS_INLINE, false);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s.msaa_pipe);
  for (uint32_t i = 0; i < 16; ++i, ++draws) vkCmdDraw(cb, 6, 16, 0, 4 * i);
  vkCmdEndRenderPass(cb);
  CHECK_VK(vkEndCommandBuffer(cb));
  return draws;
}

// User + system time of the whole process (every thread, the driver's too).
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// layer_app bench FRAMES [WARMUP]: prints one JSON line {"bench":"layer_app","frames":N,
// "warmup":W,"draws_per_frame":D,...,"cpu_ms_per_frame":C,"frame_ms":[...]} (wall time of
// each timed frame; CPU time of the process over them).
int run_bench(int argc, char** argv) {
  const long frames = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 300;
  const long warmup = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 10;
  if (frames < 1 || frames > 1000000 || warmup < 0 || warmup > 1000000) {
    std::fprintf(stderr, "layer_app bench: FRAMES must be 1..1000000 and WARMUP 0..1000000\n");
    return 2;
  }
  FullScene s;
  create_device_full(s, false);
  build_full(s);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(s.g.device, s.pool);
  VkFence fence = vkutil::create_fence(s.g.device);
  std::vector<double> frame_ms;
  frame_ms.reserve(size_t(frames));
  int draws = 0;
  double cpu_start = 0;
  for (long f = 0; f < warmup + frames; ++f) {
    if (f == warmup) cpu_start = process_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    draws = record_bench_frame(s, cb);
    vkutil::submit_and_wait(s.g, cb, fence);
    const auto t1 = std::chrono::steady_clock::now();
    if (f >= warmup) frame_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  const double cpu_ms_per_frame = (process_cpu_seconds() - cpu_start) * 1000.0 / double(frames);
  vkDestroyFence(s.g.device, fence, nullptr);
  destroy_full(s);
  if (g_failures) return 1;
  nlohmann::json out;
  out["bench"] = "layer_app";
  out["frames"] = frames;
  out["warmup"] = warmup;
  out["draws_per_frame"] = draws;
  out["dispatches_per_frame"] = 1;
  out["render_passes_per_frame"] = 2;
  out["cpu_ms_per_frame"] = cpu_ms_per_frame;
  out["frame_ms"] = frame_ms;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

int run(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool validation = argc > 2 && std::string(argv[2]) == "--validation";
  if (mode == "full") return run_full(validation, false);
  if (mode == "csv") return run_full(false, true);
  if (mode == "robust") return run_robust(true);
  if (mode == "smoke") return run_robust(false);
  if (mode == "absent") return run_absent();
  if (mode == "interface" && argc > 2) return run_interface(argv[2]);
  if (mode == "bench") return run_bench(argc, argv);
  std::fprintf(stderr,
               "usage: layer_app full [--validation] | csv | robust | smoke | absent | bench FRAMES [WARMUP]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) { return layer_test::run_main(run, argc, argv); }
