// A Vulkan 1.0 application for VK_LAYER_TESSERA_stats, as third-party samples are written: an
// instance of apiVersion 1.0 without VK_KHR_get_physical_device_properties2, features through
// pEnabledFeatures, a VkRenderPass from vkCreateRenderPass with a resolve-style 4x MSAA colour
// attachment (TRANSIENT, cleared, stored DONT_CARE, resolved in the subpass into a stored
// single-sample image), a triangle pipeline and a tessellation pipeline in that pass, SPIR-V
// 1.0 shaders. Offscreen, one submission per frame waited on with a fence. Exit status 0 = pass.
//
//   layer_app_vk10 [--validation]
//
// Checks, from the layer's output (TESSERA_LAYER_OUTPUT, JSON Lines, frame_delimiter=submit):
// every CPU and query counter exactly; with TESSERA_LAYER_MSAA_INTERVAL=N the read-back frames'
// `msaa` equal to Tessera's colour unit run here on the dumped samples
// (TESSERA_LAYER_MSAA_DUMP), which hold what was drawn, the others null; `gpu_ms` > 0 and at
// most the CPU-measured time from vkQueueSubmit to the fence; with --validation, no
// validation message at all (errors or warnings), whatever the layer's settings.

#include <vulkan/vulkan.h>

#include "msaa_check.h"
#include "test_app_support.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
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

constexpr uint64_t kFsPerSquare = 96;  // lavapipe: whole 4x4 blocks, see layer_app.cpp check_frame
constexpr int kFrames = 4;

uint64_t env_u64(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : 0;
}

VkPipeline make_pipeline(const vkutil::Device& g, VkPipelineLayout layout, VkRenderPass rp,
                         const std::vector<VkShaderModule>& mods) {
  const VkShaderStageFlagBits kinds[] = {VK_SHADER_STAGE_VERTEX_BIT, VK_SHADER_STAGE_FRAGMENT_BIT,
                                         VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
                                         VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT};
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  for (size_t i = 0; i < mods.size(); ++i) {
    VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    s.stage = kinds[i];
    s.module = mods[i];
    s.pName = "main";
    stages.push_back(s);
  }
  const bool tess = mods.size() == 4;
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
  ms.rasterizationSamples = VK_SAMPLE_COUNT_4_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
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
  ci.renderPass = rp;
  VkPipeline p = VK_NULL_HANDLE;
  CHECK_VK(vkCreateGraphicsPipelines(g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  return p;
}

// The resolve-style pass: attachment 0 multisampled, cleared, DONT_CARE; attachment 1 its
// single-sample resolve, stored.
VkRenderPass make_resolve_pass(const vkutil::Device& g) {
  VkAttachmentDescription att[2] = {};
  att[0].format = kFormat;
  att[0].samples = VK_SAMPLE_COUNT_4_BIT;
  att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  att[0].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att[0].finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  att[1] = att[0];
  att[1].samples = VK_SAMPLE_COUNT_1_BIT;
  att[1].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att[1].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  VkAttachmentReference colour{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference resolve{1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &colour;
  sub.pResolveAttachments = &resolve;
  VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  ci.attachmentCount = 2;
  ci.pAttachments = att;
  ci.subpassCount = 1;
  ci.pSubpasses = &sub;
  VkRenderPass rp = VK_NULL_HANDLE;
  CHECK_VK(vkCreateRenderPass(g.device, &ci, nullptr, &rp));
  return rp;
}

void expect_same(const std::string& what, const nlohmann::json& got, double want) {
  if (!got.is_number() || got.get<double>() != want) {
    std::fprintf(stderr, "MISMATCH %s: got %s, want %.17g\n", what.c_str(), got.dump().c_str(), want);
    ++g_failures;
  }
}

struct FrameWork {
  uint32_t squares = 0;       // triangle-list instances of 6 vertices (one 8x8 square each)
  uint32_t tess_squares = 0;  // tessellated instances of 6 vertices (2 patches each)
  double submit_to_fence_ms = 0;
};

int run(int argc, char** argv) {
  const bool validation = argc > 1 && std::string(argv[1]) == "--validation";
  const std::string output = std::getenv("TESSERA_LAYER_OUTPUT") ? std::getenv("TESSERA_LAYER_OUTPUT") : "";
  const uint64_t msaa_interval = env_u64("TESSERA_LAYER_MSAA_INTERVAL");
  const uint64_t query_interval = std::max<uint64_t>(1, env_u64("TESSERA_LAYER_QUERY_INTERVAL"));
  const char* granularity = std::getenv("TESSERA_LAYER_QUERY_GRANULARITY");
  const bool per_draw = granularity && std::string(granularity) == "draw";
  const char* dump_pattern = std::getenv("TESSERA_LAYER_MSAA_DUMP");
  if (output.empty() || (msaa_interval && !dump_pattern)) {
    std::fprintf(stderr, "set TESSERA_LAYER_OUTPUT (and TESSERA_LAYER_MSAA_DUMP with TESSERA_LAYER_MSAA_INTERVAL)\n");
    return 2;
  }

  vkutil::InstanceOptions options;
  options.application_name = "tessera_layer_app_vk10";
  options.api_version = VK_API_VERSION_1_0;  // and no instance extension of the application's own
  options.validation = validation;
  options.log = &g_validation;
  vkutil::Instance instance(options);
  vkutil::Device g = vkutil::choose_physical_device(instance.handle(), VK_QUEUE_GRAPHICS_BIT);
  VkPhysicalDeviceFeatures features{};
  features.tessellationShader = VK_TRUE;
  vkutil::DeviceRequest request;
  request.features = &features;
  vkutil::create_device(g, request);

  VkRenderPass rp = make_resolve_pass(g);
  Image ms = vkutil::create_image(
      g, {kSize, kSize, 1, kFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
          VK_IMAGE_ASPECT_COLOR_BIT, VK_SAMPLE_COUNT_4_BIT});
  Image resolved = make_image(g, VK_SAMPLE_COUNT_1_BIT);
  VkImageView views[2] = {ms.view, resolved.view};
  VkFramebufferCreateInfo fbi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fbi.renderPass = rp;
  fbi.attachmentCount = 2;
  fbi.pAttachments = views;
  fbi.width = fbi.height = kSize;
  fbi.layers = 1;
  VkFramebuffer fb = VK_NULL_HANDLE;
  CHECK_VK(vkCreateFramebuffer(g.device, &fbi, nullptr, &fb));
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  CHECK_VK(vkCreatePipelineLayout(g.device, &pli, nullptr, &layout));
  VkShaderModule vert = make_shader(g, kQuadVert), frag = make_shader(g, kColorFrag), tesc = make_shader(g, kTriTesc),
                 tese = make_shader(g, kTriTese);
  VkPipeline tri_pipe = make_pipeline(g, layout, rp, {vert, frag});
  VkPipeline tess_pipe = make_pipeline(g, layout, rp, {vert, frag, tesc, tese});
  VkCommandPool pool = vkutil::create_command_pool(g, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(g.device, pool);
  VkFence fence = vkutil::create_fence(g.device);
  const VkClearColorValue clear = {{0.0f, 0.2f, 0.4f, 1.0f}};
  const uint32_t clear8 = kRgba(0, 51, 102, 255);

  // Frame f: 2 + f squares from cell 9 with the triangle pipeline, then 1 + f tessellated squares
  // from cell 40 (two 3-point patches each, level 1) in the same subpass.
  std::vector<FrameWork> work(kFrames);
  for (int f = 0; f < kFrames; ++f) {
    FrameWork& w = work[size_t(f)];
    w.squares = uint32_t(2 + f);
    w.tess_squares = uint32_t(1 + f);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cb, &bi));
    VkClearValue cv[2] = {};
    cv[0].color = clear;
    VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rbi.renderPass = rp;
    rbi.framebuffer = fb;
    rbi.renderArea = {{0, 0}, {kSize, kSize}};
    rbi.clearValueCount = 2;
    rbi.pClearValues = cv;
    vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, tri_pipe);
    vkCmdDraw(cb, 6, w.squares, 0, 9);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, tess_pipe);
    vkCmdDraw(cb, 6, w.tess_squares, 0, 40);
    vkCmdEndRenderPass(cb);
    CHECK_VK(vkEndCommandBuffer(cb));
    w.submit_to_fence_ms = vkutil::submit_and_wait(g, cb, fence);
  }

  vkDestroyFence(g.device, fence, nullptr);
  vkDestroyCommandPool(g.device, pool, nullptr);
  for (VkPipeline p : {tri_pipe, tess_pipe}) vkDestroyPipeline(g.device, p, nullptr);
  for (VkShaderModule m : {vert, frag, tesc, tese}) vkDestroyShaderModule(g.device, m, nullptr);
  vkDestroyPipelineLayout(g.device, layout, nullptr);
  vkDestroyFramebuffer(g.device, fb, nullptr);
  vkDestroyRenderPass(g.device, rp, nullptr);
  destroy_image(g, ms);
  destroy_image(g, resolved);
  vkDestroyDevice(g.device, nullptr);
  instance.destroy();

  // The records.
  std::vector<nlohmann::json> records;
  {
    std::ifstream in(output);
    expect(bool(in), "layer output " + output + " exists");
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) {
        nlohmann::json j = nlohmann::json::parse(line);
        if (!j.contains("summary")) records.push_back(std::move(j));
      }
  }
  expect_eq("frame records", records.size(), uint64_t(kFrames));
  const uint32_t kSquare = kRgba(255, 128, 64, 255);  // color.frag (1, 0.5, 0.25, 1) as UNORM8
  for (size_t fi = 0; fi < records.size() && fi < work.size(); ++fi) {
    const nlohmann::json& r = records[fi];
    const FrameWork& w = work[fi];
    const std::string f = "frame " + std::to_string(fi) + " ";
    const uint64_t squares = w.squares + w.tess_squares, patches = 2ull * w.tess_squares;
    expect_eq(f + "frame", r.at("frame"), fi);
    expect_eq(f + "submits", r.at("submits"), 1);
    expect_eq(f + "draws", r.at("draws"), 2);
    expect_eq(f + "draws_by_kind.draw", r.at("draws_by_kind").at("draw"), 2);
    expect_eq(f + "draws_by_pipeline.tessellation", r.at("draws_by_pipeline").at("tessellation"), 1);
    expect_eq(f + "draws_by_pipeline.multisampled", r.at("draws_by_pipeline").at("multisampled"), 2);
    expect_eq(f + "instances", r.at("instances"), squares);
    expect_eq(f + "vertices", r.at("vertices"), 6 * squares);
    expect_eq(f + "primitives_by_topology.triangle_list", r.at("primitives_by_topology").at("triangle_list"),
              2ull * w.squares);
    expect_eq(f + "primitives_by_topology.patch_list", r.at("primitives_by_topology").at("patch_list"), patches);
    expect_eq(f + "patches", r.at("patches"), patches);
    expect_eq(f + "control_points", r.at("control_points"), 3 * patches);
    expect_eq(f + "render_passes.4", r.at("render_passes").at("4"), 1);
    expect_eq(f + "msaa_covered_pixels", r.at("msaa_covered_pixels"), uint64_t(kSize) * kSize);
    // GPU counts, the pipeline-statistics queries reset in the command buffer (no host reset in
    // Vulkan 1.0 without VK_KHR_get_physical_device_properties2), in every query_interval-th
    // frame: one query for the pass, or one per draw with query_granularity = draw.
    const bool sampled = fi % query_interval == 0;
    expect(r.at("query_complete").get<bool>() == sampled, f + "query_complete exactly in sampled frames");
    expect_eq(f + "query_segments", r.at("query_segments"), sampled ? (per_draw ? 2 : 1) : 0);
    const nlohmann::json& q = r.at("query");
    expect(q.is_object() == sampled, f + "query present exactly in sampled frames");
    if (q.is_object()) {
      expect_eq(f + "query.ia_vertices", q.at("ia_vertices"), 6 * squares);
      expect_eq(f + "query.vs_invocations", q.at("vs_invocations"), 6 * squares);
      expect_eq(f + "query.ia_primitives", q.at("ia_primitives"), 2 * squares);
      expect_eq(f + "query.clipping_primitives", q.at("clipping_primitives"), 2 * squares);
      expect_eq(f + "query.fs_invocations", q.at("fs_invocations"), squares * kFsPerSquare);
      expect_eq(f + "query.tcs_patches", q.at("tcs_patches"), patches);
      expect_eq(f + "query.tes_invocations", q.at("tes_invocations"), patches * 3);
    }
    // GPU time: positive, and inside the time the CPU saw from submission to the fence.
    const nlohmann::json& gpu = r.at("gpu_ms");
    expect(r.at("gpu_complete").get<bool>(), f + "gpu_complete");
    expect(gpu.is_number() && gpu.get<double>() > 0.0, f + "gpu_ms > 0 (" + gpu.dump() + ")");
    if (gpu.is_number())
      expect(gpu.get<double>() <= w.submit_to_fence_ms,
             f + "gpu_ms " + gpu.dump() + " <= submit-to-fence " + std::to_string(w.submit_to_fence_ms) + " ms");

    const nlohmann::json& m = r.at("msaa");
    if (!msaa_interval || fi % msaa_interval != 0) {
      expect(m.is_null(), f + "msaa is null (not a read-back frame)");
      continue;
    }
    expect(m.is_object(), f + "msaa present: the DONT_CARE, TRANSIENT attachment read back");
    if (!m.is_object()) continue;
    expect_eq(f + "msaa.images", m.at("images"), 1);
    expect_eq(f + "msaa.skipped", m.at("skipped"), 0);
    Dump d;
    const std::string path = expand(dump_pattern, fi, 0);
    if (!read_dump(path, d)) {
      expect(false, f + "dump " + path + " readable");
      continue;
    }
    expect_eq(f + "dump width", d.width, kSize);
    expect_eq(f + "dump samples", d.samples, 4);
    expect_eq(f + "dump clear colour", d.clear, clear8);
    if (d.data.size() != size_t(kSize) * kSize * 4) continue;
    // What was drawn: pixel (0, 0) cleared; cell 9 (pixels 8..15, 8..15) a square; cell 40
    // (pixels 0..7, 40..47) a tessellated square.
    for (uint32_t s = 0; s < 4; ++s) {
      expect_eq(f + "sample of pixel (0,0)", d.at(0, 0, s), clear8);
      expect_eq(f + "sample of pixel (12,12)", d.at(12, 12, s), kSquare);
      expect_eq(f + "sample of pixel (4,44)", d.at(4, 44, s), kSquare);
    }
    const UnitResult u = colour_unit(d);
    expect_eq(f + "msaa.samples", m.at("samples"), d.data.size());
    expect_eq(f + "msaa.tiles", m.at("tiles"), u.tiles);
    expect_eq(f + "msaa.stored_bytes", m.at("stored_bytes"), u.stored);
    expect_eq(f + "msaa.uncompressed_bytes", m.at("uncompressed_bytes"), u.uncompressed);
    expect_eq(f + "msaa.planes_only_bytes", m.at("planes_only_bytes"), u.planes_only);
    expect_same(f + "msaa.ratio", m.at("ratio"), double(u.stored) / double(u.uncompressed));
    for (int c = 0; c < 16; ++c)
      if (const char* name = tessera::color_tile_state_name(uint8_t(c)))
        expect_eq(f + "msaa.tiles_by_state." + name, m.at("tiles_by_state").at(name), u.by_state[c]);
  }
  if (validation) {
    std::printf("validation messages: %d errors, %d warnings\n", g_validation.errors.load(),
                g_validation.warnings.load());
    expect(g_validation.errors.load() == 0 && g_validation.warnings.load() == 0, "no validation message");
  }
  if (g_failures) std::fprintf(stderr, "%d check(s) failed\n", g_failures);
  return g_failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return layer_test::run_main(run, argc, argv); }
