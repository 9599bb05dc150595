// Test application for Tessera's units on real frames in VK_LAYER_TESSERA_stats, and for frames
// that span several submissions (docs/layer.md). Plain Vulkan, offscreen, on lavapipe in the
// tests; it records known work, runs it, tears everything down, then reads the layer's output
// (TESSERA_LAYER_OUTPUT, JSON Lines) and checks it exactly. Exit status 0 = pass.
//
//   layer_units_app gpp          tessellation at known levels; the layer's per-frame GPP-model
//                                figures must equal Tessera's GPP array run here on the true
//                                factors (TESSERA_LAYER_FRAME_DELIMITER=submit)
//   layer_units_app multisubmit  frames of three submissions each, nothing waited on between
//                                submissions or frames: every counter lands in the frame its
//                                work was submitted in (TESSERA_LAYER_SUBMITS_PER_FRAME=3)
//   layer_units_app msaa [--validation]
//                                two 4x attachments (render pass object, dynamic rendering) read
//                                back every 2nd frame (TESSERA_LAYER_MSAA_INTERVAL=2): the dumped
//                                samples hold what was drawn, and Tessera's colour unit run here
//                                on the dumps gives exactly the record's figures and state image;
//                                B is stored DONT_CARE (the layer stores it in read-back
//                                frames) and moved to GENERAL after its pass (the read-back must
//                                follow); with --validation, zero validation errors

#include <vulkan/vulkan.h>

#include "msaa_check.h"
#include "test_app_support.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "color/color_counters.h"
#include "geometry/gpp_array.h"
#include "tessera/image.h"

namespace {

using namespace layer_test;

const uint32_t kQuadVert[] =
#include "quad.vert.inc"
    ;
const uint32_t kColorFrag[] =
#include "color.frag.inc"
    ;
const uint32_t kLevelTesc[] =
#include "level.tesc.inc"
    ;
const uint32_t kTriTese[] =
#include "tri.tese.inc"
    ;
const uint32_t kIdleComp[] =
#include "idle.comp.inc"
    ;
const uint32_t kSlantVert[] =
#include "slant.vert.inc"
    ;
const uint32_t kGradientFrag[] =
#include "gradient.frag.inc"
    ;

// Doubles are written with 17 significant digits, so they read back bit for bit.
void expect_same(const std::string& what, const nlohmann::json& got, double want) {
  if (!got.is_number() || got.get<double>() != want) {
    std::fprintf(stderr, "MISMATCH %s: got %s, want %.17g\n", what.c_str(), got.dump().c_str(), want);
    ++g_failures;
  }
}

// ---------------------------------------------------------------------------------------------
// Vulkan helpers

// The device with the instance it was made on and one command pool (no flags: command buffers
// are never reset, only reused as recorded).
struct Gpu : vkutil::Device {
  vkutil::Instance instance;
  VkCommandPool pool = VK_NULL_HANDLE;
};

Gpu make_gpu(bool validation = false) {
  vkutil::InstanceOptions options;
  options.application_name = "tessera_layer_units_app";
  options.api_version = VK_API_VERSION_1_3;
  options.validation = validation;
  options.log = &g_validation;
  vkutil::Instance instance(options);
  Gpu g{vkutil::choose_physical_device(instance.handle(), VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT),
        std::move(instance)};
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  f13.dynamicRendering = VK_TRUE;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f13;
  f2.features.tessellationShader = VK_TRUE;
  vkutil::DeviceRequest request;
  request.next = &f2;
  vkutil::create_device(g, request);
  g.pool = vkutil::create_command_pool(g, 0);
  return g;
}

void destroy_gpu(Gpu& g) {
  vkDestroyCommandPool(g.device, g.pool, nullptr);
  vkDestroyDevice(g.device, nullptr);
  g.instance.destroy();
}

// A dynamic-rendering pipeline drawing triangles (no tessellation module) or 3-point patches
// tessellated at `level` (the level shader's specialization constant).
VkPipeline make_graphics(const Gpu& g, VkPipelineLayout layout, VkShaderModule vert, VkShaderModule frag,
                         VkShaderModule tesc, VkShaderModule tese, float level,
                         VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT, VkRenderPass rp = VK_NULL_HANDLE) {
  VkSpecializationMapEntry entry{0, 0, sizeof(float)};
  VkSpecializationInfo spec{1, &entry, sizeof(float), &level};
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  auto stage = [&](VkShaderStageFlagBits kind, VkShaderModule m, const VkSpecializationInfo* si) {
    VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    s.stage = kind;
    s.module = m;
    s.pName = "main";
    s.pSpecializationInfo = si;
    stages.push_back(s);
  };
  stage(VK_SHADER_STAGE_VERTEX_BIT, vert, nullptr);
  stage(VK_SHADER_STAGE_FRAGMENT_BIT, frag, nullptr);
  const bool tess = tesc != VK_NULL_HANDLE;
  if (tess) {
    stage(VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, tesc, &spec);
    stage(VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, tese, nullptr);
  }
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = tess ? VK_PRIMITIVE_TOPOLOGY_PATCH_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
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
  ms.rasterizationSamples = samples;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachmentFormats = &kFormat;
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.pNext = rp ? nullptr : &rendering;
  ci.renderPass = rp;
  ci.stageCount = uint32_t(stages.size());
  ci.pStages = stages.data();
  ci.pVertexInputState = &vi;
  ci.pInputAssemblyState = &ia;
  ci.pTessellationState = tess ? &ts : nullptr;
  ci.pViewportState = &vp;
  ci.pRasterizationState = &rs;
  ci.pMultisampleState = &ms;
  ci.pColorBlendState = &cb;
  ci.layout = layout;
  VkPipeline p = VK_NULL_HANDLE;
  CHECK_VK(vkCreateGraphicsPipelines(g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  return p;
}

VkCommandBuffer begin_cb(const Gpu& g) {
  VkCommandBuffer cb = vkutil::allocate_command_buffer(g.device, g.pool);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK_VK(vkBeginCommandBuffer(cb, &bi));
  return cb;
}

// The target goes to COLOR_ATTACHMENT_OPTIMAL once, at the start of every command buffer that
// renders (its contents are not kept: loadOp DONT_CARE, or cleared to `clear`).
void begin_rendering(VkCommandBuffer cb, const Image& target, const VkClearColorValue* clear = nullptr,
                     VkAttachmentStoreOp store = VK_ATTACHMENT_STORE_OP_STORE) {
  VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  ib.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  ib.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  ib.image = target.image;
  ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                       0, 0, nullptr, 0, nullptr, 1, &ib);
  VkRenderingAttachmentInfo att{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  att.imageView = target.view;
  att.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  att.loadOp = clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att.storeOp = store;
  if (clear) att.clearValue.color = *clear;
  VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
  ri.renderArea = {{0, 0}, {kSize, kSize}};
  ri.layerCount = 1;
  ri.colorAttachmentCount = 1;
  ri.pColorAttachments = &att;
  vkCmdBeginRendering(cb, &ri);
}

void submit(const Gpu& g, const std::vector<std::vector<VkCommandBuffer>>& batches) {
  std::vector<VkSubmitInfo> infos;
  for (const auto& b : batches) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = uint32_t(b.size());
    si.pCommandBuffers = b.data();
    infos.push_back(si);
  }
  CHECK_VK(vkQueueSubmit(g.queue, uint32_t(infos.size()), infos.data(), VK_NULL_HANDLE));
}

// Frame records (summary lines left out), in order.
std::vector<nlohmann::json> read_frames() {
  const char* p = std::getenv("TESSERA_LAYER_OUTPUT");
  std::vector<nlohmann::json> out;
  std::ifstream in(p ? p : "");
  expect(bool(in), std::string("layer output ") + (p ? p : "(TESSERA_LAYER_OUTPUT unset)") + " exists");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json r = nlohmann::json::parse(line);
    if (!r.contains("summary")) out.push_back(r);
  }
  return out;
}

int finish() {
  std::printf("%s: %d failures\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// gpp: tessellation at known levels

// Domain points of a triangle patch with every level n (equal spacing, integer n >= 1): rings
// of n, n-2, ... segments per edge, 3k points each, and the centre point when n is even
// (docs/tessellator.md).
uint64_t triangle_points(uint64_t n) {
  uint64_t points = n % 2 == 0 ? 1 : 0;
  for (uint64_t k = n; k >= 1; k = k >= 2 ? k - 2 : 0) points += 3 * k;
  return points;
}

// One draw of `patches` patches at `level`, in its own render pass instance (so its own query
// segment).
struct TessDraw {
  int level;
  uint32_t patches;
};

int gpp_count() {
  const char* v = std::getenv("TESSERA_LAYER_GPPS");
  return v ? std::atoi(v) : 4;
}

// What Tessera's GPP array makes of the frame's true patches, in submission order.
void check_gpp(const nlohmann::json& r, const std::vector<TessDraw>& draws) {
  const std::string f = "frame " + std::to_string(r.value("frame", -1)) + " ";
  uint64_t patches = 0, points = 0;
  std::vector<tessera::GppPatch> stream;
  for (const TessDraw& d : draws) {
    patches += d.patches;
    points += d.patches * triangle_points(uint64_t(d.level));
    for (uint32_t i = 0; i < d.patches; ++i) {
      tessera::GppPatch p;
      p.domain = tessera::TessDomain::kTriangle;
      p.spacing = tessera::TessSpacing::kEqual;
      p.factors.outer = {float(d.level), float(d.level), float(d.level), 0.0f};
      p.factors.inner = {float(d.level), 0.0f};
      p.id = uint32_t(stream.size());
      stream.push_back(p);
    }
  }
  const auto& q = r.at("query");
  expect_eq(f + "query.tcs_patches", q.at("tcs_patches"), patches);
  // lavapipe runs the evaluation shader once per domain point.
  expect_eq(f + "query.tes_invocations", q.at("tes_invocations"), points);
  const auto& g = r.at("gpp");
  if (draws.empty()) {
    expect(g.is_null(), f + "gpp is null without tessellation");
    return;
  }
  expect(g.is_object(), f + "gpp present");
  if (!g.is_object()) return;
  const int n = gpp_count();
  tessera::GppArrayConfig config;
  config.gpp_count = n;
  config.build_primitives = false;
  tessera::GppRunResult onchip = tessera::run_gpp_array(tessera::GppDesign::kOnChip, stream, config);
  tessera::GppRunResult noredist = tessera::run_gpp_array(tessera::GppDesign::kNoRedistribution, stream, config);
  config.gpp_count = 1;
  tessera::GppRunResult single = tessera::run_gpp_array(tessera::GppDesign::kOnChip, stream, config);
  expect_eq(f + "gpp.count", g.at("count"), uint64_t(n));
  expect_eq(f + "gpp.patches", g.at("patches"), patches);
  expect_eq(f + "gpp.domain_points", g.at("domain_points"), points);
  const auto& busy = g.at("busy_cycles");
  expect_eq(f + "gpp.busy_cycles entries", busy.size(), uint64_t(n));
  double max_busy = 0, sum_busy = 0;
  for (int i = 0; i < n && i < int(busy.size()); ++i) {
    const double want = onchip.timing.busy_cycles[size_t(i)];
    expect_same(f + "gpp.busy_cycles[" + std::to_string(i) + "]", busy[size_t(i)], want);
    max_busy = std::max(max_busy, want);
    sum_busy += want;
  }
  expect_same(f + "gpp.max_busy_cycles", g.at("max_busy_cycles"), max_busy);
  expect_same(f + "gpp.mean_busy_cycles", g.at("mean_busy_cycles"), sum_busy / n);
  expect_same(f + "gpp.balance", g.at("balance"), onchip.timing.load_balance);
  expect_same(f + "gpp.makespan_cycles", g.at("makespan_cycles"), onchip.timing.makespan_cycles);
  expect_same(f + "gpp.speedup_vs_1gpp", g.at("speedup_vs_1gpp"),
              single.timing.makespan_cycles / onchip.timing.makespan_cycles);
  expect_same(f + "gpp.speedup_vs_noredist", g.at("speedup_vs_noredist"),
              noredist.timing.makespan_cycles / onchip.timing.makespan_cycles);
  expect(g.at("estimate_exact").get<bool>(), f + "gpp.estimate_exact");
}

int run_gpp() {
  Gpu g = make_gpu();
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  CHECK_VK(vkCreatePipelineLayout(g.device, &pl, nullptr, &layout));
  VkShaderModule vert = make_shader(g, kQuadVert), frag = make_shader(g, kColorFrag), tesc = make_shader(g, kLevelTesc),
                 tese = make_shader(g, kTriTese);
  Image target = make_image(g, VK_SAMPLE_COUNT_1_BIT);
  const int levels[] = {2, 4, 9};
  VkPipeline pipes[3];
  for (int i = 0; i < 3; ++i) pipes[i] = make_graphics(g, layout, vert, frag, tesc, tese, float(levels[i]));
  VkPipeline plain = make_graphics(g, layout, vert, frag, VK_NULL_HANDLE, VK_NULL_HANDLE, 0.0f);
  auto pipe_for = [&](int level) { return pipes[level == 2 ? 0 : level == 4 ? 1 : 2]; };

  // Frame 0: 40 patches at level 4, then 70 at level 9 (uneven batches for the GPPs).
  // Frame 1: 33 patches at level 2 and a plain square. Frame 2: no tessellation at all.
  const std::vector<std::vector<TessDraw>> frames = {{{4, 40}, {9, 70}}, {{2, 33}}, {}};
  for (size_t fi = 0; fi < frames.size(); ++fi) {
    VkCommandBuffer cb = begin_cb(g);
    for (const TessDraw& d : frames[fi]) {
      begin_rendering(cb, target);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe_for(d.level));
      vkCmdDraw(cb, 3 * d.patches, 1, 0, 0);
      vkCmdEndRendering(cb);
    }
    if (fi > 0) {
      begin_rendering(cb, target);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, plain);
      vkCmdDraw(cb, 6, 1, 0, 0);
      vkCmdEndRendering(cb);
    }
    CHECK_VK(vkEndCommandBuffer(cb));
    vkutil::submit_and_wait(g, cb);
  }
  for (VkPipeline p : pipes) vkDestroyPipeline(g.device, p, nullptr);
  vkDestroyPipeline(g.device, plain, nullptr);
  for (VkShaderModule m : {vert, frag, tesc, tese}) vkDestroyShaderModule(g.device, m, nullptr);
  destroy_image(g, target);
  vkDestroyPipelineLayout(g.device, layout, nullptr);
  destroy_gpu(g);

  std::vector<nlohmann::json> records = read_frames();
  expect_eq("frame records", records.size(), frames.size());
  for (size_t i = 0; i < records.size() && i < frames.size(); ++i) {
    uint64_t patches = 0;
    for (const TessDraw& d : frames[i]) patches += d.patches;
    expect_eq("frame " + std::to_string(i) + " patches (CPU)", records[i].at("patches"), patches);
    expect(records[i].at("query_complete").get<bool>(), "frame " + std::to_string(i) + " query_complete");
    check_gpp(records[i], frames[i]);
  }
  return finish();
}

// ---------------------------------------------------------------------------------------------
// multisubmit: frames of three submissions, nothing waited on in between

// What one command buffer does: `squares` squares of 6 vertices (one draw, `squares` instances)
// and `groups` workgroups of the idle compute shader (4 invocations each).
struct Work {
  uint32_t squares = 0;
  uint32_t groups = 0;
};

int run_multisubmit() {
  Gpu g = make_gpu();
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  CHECK_VK(vkCreatePipelineLayout(g.device, &pl, nullptr, &layout));
  VkShaderModule vert = make_shader(g, kQuadVert), frag = make_shader(g, kColorFrag), comp = make_shader(g, kIdleComp);
  Image target = make_image(g, VK_SAMPLE_COUNT_1_BIT);
  VkPipeline plain = make_graphics(g, layout, vert, frag, VK_NULL_HANDLE, VK_NULL_HANDLE, 0.0f);
  VkPipeline idle = make_compute(g, layout, comp);

  // Seven command buffers, each with a different amount of work, so any misattribution shows.
  const std::vector<Work> work = {{1, 0}, {2, 3}, {0, 5}, {3, 0}, {4, 1}, {5, 2}, {6, 0}};
  std::vector<VkCommandBuffer> cbs;
  for (const Work& w : work) {
    VkCommandBuffer cb = begin_cb(g);
    if (w.groups) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, idle);
      vkCmdDispatch(cb, w.groups, 1, 1);
    }
    if (w.squares) {
      begin_rendering(cb, target);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, plain);
      vkCmdDraw(cb, 6, w.squares, 0, 0);
      vkCmdEndRendering(cb);
    }
    CHECK_VK(vkEndCommandBuffer(cb));
    cbs.push_back(cb);
  }
  // Frames by submission call (3 per frame); a call may carry several VkSubmitInfos.
  // Frame 0: {0} {1} {2}. Frame 1: {3 | 4} (two submit infos in one call) {5} {6}; no wait
  // between the frames. Frame 2, after a wait: {0, 1} (two command buffers in one info) {2} {6}.
  // Frame 3 (unfinished, written at vkDestroyDevice): {3}.
  using Call = std::vector<std::vector<int>>;
  const std::vector<std::vector<Call>> frames = {
      {{{0}}, {{1}}, {{2}}}, {{{3}, {4}}, {{5}}, {{6}}}, {{{0, 1}}, {{2}}, {{6}}}, {{{3}}}};
  for (size_t fi = 0; fi < frames.size(); ++fi) {
    if (fi == 2 || fi == 3) CHECK_VK(vkQueueWaitIdle(g.queue));  // command buffers are reused
    for (const Call& call : frames[fi]) {
      std::vector<std::vector<VkCommandBuffer>> batches;
      for (const auto& infos : call) {
        batches.emplace_back();
        for (int i : infos) batches.back().push_back(cbs[size_t(i)]);
      }
      submit(g, batches);
    }
  }
  CHECK_VK(vkQueueWaitIdle(g.queue));
  vkDestroyPipeline(g.device, plain, nullptr);
  vkDestroyPipeline(g.device, idle, nullptr);
  for (VkShaderModule m : {vert, frag, comp}) vkDestroyShaderModule(g.device, m, nullptr);
  destroy_image(g, target);
  vkDestroyPipelineLayout(g.device, layout, nullptr);
  destroy_gpu(g);

  std::vector<nlohmann::json> records = read_frames();
  expect_eq("frame records", records.size(), frames.size());
  for (size_t fi = 0; fi < records.size() && fi < frames.size(); ++fi) {
    const nlohmann::json& r = records[fi];
    const std::string f = "frame " + std::to_string(fi) + " ";
    uint64_t cb_count = 0, draws = 0, squares = 0, dispatches = 0, groups = 0;
    for (const Call& call : frames[fi])
      for (const auto& infos : call)
        for (int i : infos) {
          const Work& w = work[size_t(i)];
          ++cb_count;
          draws += w.squares ? 1 : 0;
          squares += w.squares;
          dispatches += w.groups ? 1 : 0;
          groups += w.groups;
        }
    expect_eq(f + "frame", r.at("frame"), fi);
    expect_eq(f + "submits", r.at("submits"), frames[fi].size());
    expect_eq(f + "command_buffers", r.at("command_buffers"), cb_count);
    expect_eq(f + "draws", r.at("draws"), draws);
    expect_eq(f + "instances", r.at("instances"), squares);
    expect_eq(f + "vertices", r.at("vertices"), squares * 6);
    expect_eq(f + "dispatches", r.at("dispatches"), dispatches);
    expect_eq(f + "workgroups", r.at("workgroups"), groups);
    expect(r.at("query_complete").get<bool>(), f + "query_complete");
    const auto& q = r.at("query");
    expect(q.is_object(), f + "query present");
    if (!q.is_object()) continue;
    expect_eq(f + "query.ia_vertices", q.at("ia_vertices"), squares * 6);
    expect_eq(f + "query.vs_invocations", q.at("vs_invocations"), squares * 6);
    expect_eq(f + "query.clipping_primitives", q.at("clipping_primitives"), squares * 2);
    expect_eq(f + "query.cs_invocations", q.at("cs_invocations"), groups * 4);
  }
  return finish();
}

// ---------------------------------------------------------------------------------------------
// msaa: the read-back of two 4x attachments every 2nd frame

int run_msaa(bool validation) {
  const char* dump_pattern = std::getenv("TESSERA_LAYER_MSAA_DUMP");
  const char* png_pattern = std::getenv("TESSERA_LAYER_MSAA_STATE_IMAGE");
  if (!dump_pattern || !png_pattern) {
    std::fprintf(stderr, "msaa: set TESSERA_LAYER_MSAA_DUMP and TESSERA_LAYER_MSAA_STATE_IMAGE\n");
    return 2;
  }
  Gpu g = make_gpu(validation);
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  CHECK_VK(vkCreatePipelineLayout(g.device, &pl, nullptr, &layout));
  VkShaderModule quad = make_shader(g, kQuadVert), flat = make_shader(g, kColorFrag),
                 slant = make_shader(g, kSlantVert), gradient = make_shader(g, kGradientFrag);
  // Attachment A through a render pass object (vkCreateRenderPass), B through dynamic rendering;
  // both created with colour-attachment usage only: the layer adds what it needs.
  Image a = make_image(g, VK_SAMPLE_COUNT_4_BIT), b = make_image(g, VK_SAMPLE_COUNT_4_BIT);
  VkAttachmentDescription att{};
  att.format = kFormat;
  att.samples = VK_SAMPLE_COUNT_4_BIT;
  att.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &ref;
  VkRenderPassCreateInfo rpi{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rpi.attachmentCount = 1;
  rpi.pAttachments = &att;
  rpi.subpassCount = 1;
  rpi.pSubpasses = &sub;
  VkRenderPass rp = VK_NULL_HANDLE;
  CHECK_VK(vkCreateRenderPass(g.device, &rpi, nullptr, &rp));
  VkFramebufferCreateInfo fbi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fbi.renderPass = rp;
  fbi.attachmentCount = 1;
  fbi.pAttachments = &a.view;
  fbi.width = fbi.height = kSize;
  fbi.layers = 1;
  VkFramebuffer fb = VK_NULL_HANDLE;
  CHECK_VK(vkCreateFramebuffer(g.device, &fbi, nullptr, &fb));
  const auto x4 = VK_SAMPLE_COUNT_4_BIT;
  VkPipeline squares_rp = make_graphics(g, layout, quad, flat, VK_NULL_HANDLE, VK_NULL_HANDLE, 0, x4, rp);
  VkPipeline slant_rp = make_graphics(g, layout, slant, gradient, VK_NULL_HANDLE, VK_NULL_HANDLE, 0, x4, rp);
  VkPipeline squares_dyn = make_graphics(g, layout, quad, flat, VK_NULL_HANDLE, VK_NULL_HANDLE, 0, x4);
  VkPipeline slant_dyn = make_graphics(g, layout, slant, gradient, VK_NULL_HANDLE, VK_NULL_HANDLE, 0, x4);
  const VkClearColorValue clear_a = {{0.0f, 0.2f, 0.4f, 1.0f}}, clear_b = {{1.0f, 1.0f, 1.0f, 1.0f}};
  const uint32_t clear_a8 = kRgba(0, 51, 102, 255), clear_b8 = kRgba(255, 255, 255, 255);

  // Frame f: A gets the slanted gradient triangle, then 3 + f squares from cell 9 on (cells are
  // 8x8 pixels, 8 per row); B gets 1 + f squares, and the triangle from frame 2 on. Nothing is
  // waited on until the end.
  const int kFrames = 4;
  for (int f = 0; f < kFrames; ++f) {
    VkCommandBuffer cb = begin_cb(g);
    VkClearValue cv{};
    cv.color = clear_a;
    VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    bi.renderPass = rp;
    bi.framebuffer = fb;
    bi.renderArea = {{0, 0}, {kSize, kSize}};
    bi.clearValueCount = 1;
    bi.pClearValues = &cv;
    vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, slant_rp);
    vkCmdDraw(cb, 3, 1, 0, 0);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, squares_rp);
    vkCmdDraw(cb, 6, uint32_t(3 + f), 0, 9);
    vkCmdEndRenderPass(cb);
    // B is stored DONT_CARE (resolve-style): the layer stores it in read-back frames.
    begin_rendering(cb, b, &clear_b, VK_ATTACHMENT_STORE_OP_DONT_CARE);
    if (f >= 2) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, slant_dyn);
      vkCmdDraw(cb, 3, 1, 0, 0);
    }
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, squares_dyn);
    vkCmdDraw(cb, 6, uint32_t(1 + f), 0, 9);
    vkCmdEndRendering(cb);
    // B leaves the command buffer in GENERAL, not in its rendering layout.
    VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    ib.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    ib.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    ib.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = b.image;
    ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &ib);
    CHECK_VK(vkEndCommandBuffer(cb));
    submit(g, {{cb}});
  }
  CHECK_VK(vkQueueWaitIdle(g.queue));
  for (VkPipeline p : {squares_rp, slant_rp, squares_dyn, slant_dyn}) vkDestroyPipeline(g.device, p, nullptr);
  for (VkShaderModule m : {quad, flat, slant, gradient}) vkDestroyShaderModule(g.device, m, nullptr);
  vkDestroyFramebuffer(g.device, fb, nullptr);
  vkDestroyRenderPass(g.device, rp, nullptr);
  destroy_image(g, a);
  destroy_image(g, b);
  vkDestroyPipelineLayout(g.device, layout, nullptr);
  destroy_gpu(g);

  std::vector<nlohmann::json> records = read_frames();
  expect_eq("frame records", records.size(), uint64_t(kFrames));
  const uint32_t kSquare = kRgba(255, 128, 64, 255);  // color.frag (1, 0.5, 0.25, 1) as UNORM8
  std::set<uint8_t> states_seen;
  for (size_t fi = 0; fi < records.size(); ++fi) {
    const std::string f = "frame " + std::to_string(fi) + " ";
    const nlohmann::json& m = records[fi].at("msaa");
    if (fi % 2 == 1) {
      expect(m.is_null(), f + "msaa is null (not a read-back frame)");
      continue;
    }
    expect(m.is_object(), f + "msaa present");
    if (!m.is_object()) continue;
    expect_eq(f + "msaa.images", m.at("images"), 2);
    expect_eq(f + "msaa.skipped", m.at("skipped"), 0);
    UnitResult sum;
    uint64_t samples = 0;
    for (uint32_t image = 0; image < 2; ++image) {
      const std::string what = f + "image " + std::to_string(image) + " ";
      Dump d;
      if (!read_dump(expand(dump_pattern, fi, image), d)) {
        expect(false, what + "dump " + expand(dump_pattern, fi, image) + " readable");
        continue;
      }
      expect_eq(what + "width", d.width, kSize);
      expect_eq(what + "height", d.height, kSize);
      expect_eq(what + "samples", d.samples, 4);
      expect_eq(what + "clear colour", d.clear, image == 0 ? clear_a8 : clear_b8);
      if (d.data.size() != size_t(kSize) * kSize * 4) continue;
      // What was drawn: pixel (0, 0) is never covered; cell 9's square covers pixel (12, 12);
      // pixel (40, 40) is inside the gradient triangle: (40.5 / 64, 40.5 / 64, 0.25) as UNORM8.
      for (uint32_t s = 0; s < 4; ++s) {
        expect_eq(what + "sample of pixel (0,0)", d.at(0, 0, s), d.clear);
        expect_eq(what + "sample of pixel (12,12)", d.at(12, 12, s), kSquare);
        const bool triangle = image == 0 || fi >= 2;
        expect_eq(what + "sample of pixel (40,40)", d.at(40, 40, s), triangle ? kRgba(161, 161, 64, 255) : d.clear);
      }
      samples += d.data.size();
      const UnitResult u = colour_unit(d);
      sum.tiles += u.tiles, sum.stored += u.stored, sum.uncompressed += u.uncompressed,
          sum.planes_only += u.planes_only;
      for (int c = 0; c < 16; ++c) sum.by_state[c] += u.by_state[c];
      for (uint8_t st : u.states) states_seen.insert(st);
      // The state image: every pixel in its tile's state colour.
      const std::string png = expand(png_pattern, fi, image);
      try {
        const tessera::Image img = tessera::read_image(png);
        uint64_t wrong = 0;
        for (uint32_t y = 0; y < kSize; ++y)
          for (uint32_t x = 0; x < kSize; ++x)
            wrong +=
                img.at(int(x), int(y)) != tessera::color_tile_state_swatch(u.states[(y / 4) * (kSize / 8) + x / 8]);
        expect_eq(what + "state image pixels not in their tile's state colour", wrong, 0);
      } catch (const std::exception& e) {
        expect(false, what + "state image " + png + ": " + e.what());
      }
    }
    expect_eq(f + "msaa.samples", m.at("samples"), samples);
    expect_eq(f + "msaa.tiles", m.at("tiles"), sum.tiles);
    expect_eq(f + "msaa.stored_bytes", m.at("stored_bytes"), sum.stored);
    expect_eq(f + "msaa.uncompressed_bytes", m.at("uncompressed_bytes"), sum.uncompressed);
    expect_eq(f + "msaa.planes_only_bytes", m.at("planes_only_bytes"), sum.planes_only);
    expect_same(f + "msaa.ratio", m.at("ratio"), double(sum.stored) / double(sum.uncompressed));
    for (int c = 0; c < 16; ++c)
      if (const char* name = tessera::color_tile_state_name(uint8_t(c)))
        expect_eq(f + "msaa.tiles_by_state." + name, m.at("tiles_by_state").at(name), sum.by_state[c]);
  }
  if (validation) {
    expect_no_validation_errors();
  }
  // The scene is meant to exercise the unit: cleared, one-colour, edge and gradient tiles.
  expect(states_seen.size() >= 4,
         "at least four colour-unit states among the tiles (" + std::to_string(states_seen.size()) + ")");
  return finish();
}

int run(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "gpp") return run_gpp();
  if (mode == "multisubmit") return run_multisubmit();
  if (mode == "msaa") return run_msaa(argc > 2 && std::string(argv[2]) == "--validation");
  std::fprintf(stderr, "usage: layer_units_app gpp | multisubmit | msaa\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) { return layer_test::run_main(run, argc, argv); }
