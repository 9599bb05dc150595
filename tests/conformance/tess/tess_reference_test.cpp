// Tessera's tessellator against the Vulkan driver's (lavapipe: Mesa's port of the D3D11
// reference tessellator). Each case renders ONE patch through a tessellation pipeline whose
// control shader writes the levels from push constants, inside a pipeline-statistics query:
//   tessellation evaluation shader invocations == the number of domain points,
//   clipping invocations == the number of triangles (line segments for isolines),
// compared exactly with tessera::tessellate(). A second set of pipelines captures what the
// driver's tessellator produced for the same cases: the evaluation shader appends every
// gl_TessCoord to a storage buffer and a geometry shader appends every primitive's vertices to
// another; the sets of unique domain points and the multisets of primitives must equal
// Tessera's, bit for bit. docs/tessellator.md, "Reference check against lavapipe", records
// what the driver counts, why these relations hold and exactly how the sets are compared.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tessera/tessellator.h"
#include "vkutil/check.h"
#include "vkutil/device.h"
#include "vkutil/instance.h"
#include "vkutil/resources.h"

namespace tessera {
namespace {

// SPIR-V compiled by glslc at build time (tests/conformance/tess/CMakeLists.txt).
const uint32_t kVertSpirv[] =
#include "tess.vert.inc"
    ;
const uint32_t kTescSpirv[] =
#include "tess.tesc.inc"
    ;
const uint32_t kFragSpirv[] =
#include "tess.frag.inc"
    ;
const uint32_t kTeseTriEqual[] =
#include "tess_triangles_equal.tese.inc"
    ;
const uint32_t kTeseTriOdd[] =
#include "tess_triangles_fractional_odd.tese.inc"
    ;
const uint32_t kTeseTriEven[] =
#include "tess_triangles_fractional_even.tese.inc"
    ;
const uint32_t kTeseQuadEqual[] =
#include "tess_quads_equal.tese.inc"
    ;
const uint32_t kTeseQuadOdd[] =
#include "tess_quads_fractional_odd.tese.inc"
    ;
const uint32_t kTeseQuadEven[] =
#include "tess_quads_fractional_even.tese.inc"
    ;
const uint32_t kTeseIsoEqual[] =
#include "tess_isolines_equal.tese.inc"
    ;
const uint32_t kTeseIsoOdd[] =
#include "tess_isolines_fractional_odd.tese.inc"
    ;
const uint32_t kTeseIsoEven[] =
#include "tess_isolines_fractional_even.tese.inc"
    ;

const uint32_t kCaptureTriEqual[] =
#include "tess_capture_triangles_equal.tese.inc"
    ;
const uint32_t kCaptureTriOdd[] =
#include "tess_capture_triangles_fractional_odd.tese.inc"
    ;
const uint32_t kCaptureTriEven[] =
#include "tess_capture_triangles_fractional_even.tese.inc"
    ;
const uint32_t kCaptureQuadEqual[] =
#include "tess_capture_quads_equal.tese.inc"
    ;
const uint32_t kCaptureQuadOdd[] =
#include "tess_capture_quads_fractional_odd.tese.inc"
    ;
const uint32_t kCaptureQuadEven[] =
#include "tess_capture_quads_fractional_even.tese.inc"
    ;
const uint32_t kCaptureIsoEqual[] =
#include "tess_capture_isolines_equal.tese.inc"
    ;
const uint32_t kCaptureIsoOdd[] =
#include "tess_capture_isolines_fractional_odd.tese.inc"
    ;
const uint32_t kCaptureIsoEven[] =
#include "tess_capture_isolines_fractional_even.tese.inc"
    ;
const uint32_t kCaptureGeomTriangles[] =
#include "tess_capture_triangles.geom.inc"
    ;
const uint32_t kCaptureGeomLines[] =
#include "tess_capture_lines.geom.inc"
    ;

constexpr TessDomain kDomains[] = {TessDomain::kTriangle, TessDomain::kQuad, TessDomain::kIsoline};
constexpr TessSpacing kSpacings[] = {TessSpacing::kEqual, TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven};

std::span<const uint32_t> tese_spirv(TessDomain domain, TessSpacing spacing) {
  const std::span<const uint32_t> table[3][3] = {
      {kTeseTriEqual, kTeseTriOdd, kTeseTriEven},
      {kTeseQuadEqual, kTeseQuadOdd, kTeseQuadEven},
      {kTeseIsoEqual, kTeseIsoOdd, kTeseIsoEven},
  };
  return table[int(domain)][int(spacing)];
}

std::span<const uint32_t> capture_tese_spirv(TessDomain domain, TessSpacing spacing) {
  const std::span<const uint32_t> table[3][3] = {
      {kCaptureTriEqual, kCaptureTriOdd, kCaptureTriEven},
      {kCaptureQuadEqual, kCaptureQuadOdd, kCaptureQuadEven},
      {kCaptureIsoEqual, kCaptureIsoOdd, kCaptureIsoEven},
  };
  return table[int(domain)][int(spacing)];
}

// What the capture pipelines write: one record per evaluation shader invocation and one per
// primitive the tessellator emitted (words as in shaders/tess_capture.*).
struct CapturedPoint {
  uint32_t u, v, w;             // gl_TessCoord bit patterns
  uint32_t case_and_primitive;  // case index | gl_PrimitiveID << 24
};
static_assert(sizeof(CapturedPoint) == 16);
struct CapturedPrimitive {
  std::array<uint32_t, 6> uv;  // gl_TessCoord.xy bits of each vertex (lines: the last pair 0)
  uint32_t case_index;
  uint32_t primitive_id;  // gl_PrimitiveIDIn
};
static_assert(sizeof(CapturedPrimitive) == 32);
struct Capture {
  std::vector<CapturedPoint> points;
  std::vector<CapturedPrimitive> primitives;
};
constexpr uint32_t kCaptureHeaderBytes = 16;  // count, capacity, 2 words of padding
// Push constants of the capture pipelines: the levels (as tess.tesc reads them), then the case.
constexpr uint32_t kCapturePushBytes = sizeof(TessFactors) + sizeof(uint32_t);
constexpr VkShaderStageFlags kCaptureStages = VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT |
                                              VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT |
                                              VK_SHADER_STAGE_GEOMETRY_BIT;

constexpr uint32_t kExtent = 16;  // colour attachment is kExtent x kExtent
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Statistics requested from the driver; Vulkan returns them in increasing bit order.
constexpr VkQueryPipelineStatisticFlags kStatistics =
    VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT |                       // 0x040
    VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT |                        // 0x080
    VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_CONTROL_SHADER_PATCHES_BIT |        // 0x200
    VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_EVALUATION_SHADER_INVOCATIONS_BIT;  // 0x400
struct Statistics {
  uint64_t clipping_invocations = 0;
  uint64_t clipping_primitives = 0;
  uint64_t control_patches = 0;
  uint64_t evaluation_invocations = 0;
};
static_assert(sizeof(Statistics) == 4 * sizeof(uint64_t));

using vkutil::check;

// Instance (with VK_LAYER_KHRONOS_validation when installed), a device with tessellationShader
// and pipelineStatisticsQuery, a render pass over a 16x16 RGBA8 attachment and one pipeline per
// domain and spacing. `unavailable` is set instead when no such device exists.
class TessDevice {
 public:
  TessDevice() {
    try {
      init();
    } catch (const vkutil::DeviceUnavailable& e) {
      unavailable = e.what();
    } catch (const Error& e) {
      failure = e.what();
    }
  }
  ~TessDevice() { destroy(); }
  // Releases everything (idempotent); the layer reports leaked objects here.
  void destroy() {
    destroy_all();
    for (auto& row : pipelines_) {
      for (VkPipeline& p : row) p = VK_NULL_HANDLE;
    }
    for (auto& row : capture_pipelines_) {
      for (VkPipeline& p : row) p = VK_NULL_HANDLE;
    }
    capture_set_layout_ = VK_NULL_HANDLE;
    capture_pool_ = VK_NULL_HANDLE;
    capture_set_ = VK_NULL_HANDLE;
    capture_layout_ = VK_NULL_HANDLE;
    modules_.clear();
    layout_ = VK_NULL_HANDLE;
    framebuffer_ = VK_NULL_HANDLE;
    render_pass_ = VK_NULL_HANDLE;
    command_pool_ = VK_NULL_HANDLE;
    cmd_ = VK_NULL_HANDLE;
    gpu_.device = VK_NULL_HANDLE;
  }
  TessDevice(const TessDevice&) = delete;
  TessDevice& operator=(const TessDevice&) = delete;

  std::string unavailable;  // why there is no usable device (empty when there is one)
  std::string failure;      // a Vulkan call failed while setting up a usable device
  bool validation = false;  // VK_LAYER_KHRONOS_validation is enabled
  std::vector<std::string> validation_errors;
  std::string device_name;
  bool capture_supported = false;  // geometryShader and vertexPipelineStoresAndAtomics

  // One patch per case, all in one command buffer with one query each.
  std::vector<Statistics> run(const std::vector<std::pair<TessDomain, TessSpacing>>& pipelines,
                              const std::vector<TessFactors>& factors) {
    const uint32_t count = uint32_t(factors.size());
    VkQueryPool pool = VK_NULL_HANDLE;
    VkQueryPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    pool_info.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
    pool_info.queryCount = count;
    pool_info.pipelineStatistics = kStatistics;
    check(vkCreateQueryPool(gpu_.device, &pool_info, nullptr, &pool), "vkCreateQueryPool");

    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
    check(vkBeginCommandBuffer(cmd_, &begin), "vkBeginCommandBuffer");
    vkCmdResetQueryPool(cmd_, pool, 0, count);
    VkClearValue clear{};
    VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rp.renderPass = render_pass_;
    rp.framebuffer = framebuffer_;
    rp.renderArea.extent = {kExtent, kExtent};
    rp.clearValueCount = 1;
    rp.pClearValues = &clear;
    vkCmdBeginRenderPass(cmd_, &rp, VK_SUBPASS_CONTENTS_INLINE);
    VkPipeline bound = VK_NULL_HANDLE;
    for (uint32_t i = 0; i < count; ++i) {
      const VkPipeline pipeline = pipelines_[int(pipelines[i].first)][int(pipelines[i].second)];
      if (pipeline != bound) {
        vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        bound = pipeline;
      }
      vkCmdPushConstants(cmd_, layout_, VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, 0, sizeof(TessFactors), &factors[i]);
      vkCmdBeginQuery(cmd_, pool, i, 0);
      vkCmdDraw(cmd_, 1, 1, 0, 0);
      vkCmdEndQuery(cmd_, pool, i);
    }
    vkCmdEndRenderPass(cmd_);
    check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    vkutil::submit_and_wait(gpu_, cmd_);

    std::vector<Statistics> results(count);
    const VkResult got =
        vkGetQueryPoolResults(gpu_.device, pool, 0, count, results.size() * sizeof(Statistics), results.data(),
                              sizeof(Statistics), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    vkDestroyQueryPool(gpu_.device, pool, nullptr);
    check(got, "vkGetQueryPoolResults");
    return results;
  }

  // Renders one patch per case through the capture pipelines (rasterizer discard) and returns
  // every record the shaders wrote. Capacities are in records; more is an error, not a loss.
  Capture capture(const std::vector<std::pair<TessDomain, TessSpacing>>& pipelines,
                  const std::vector<TessFactors>& factors, uint32_t point_capacity, uint32_t primitive_capacity) {
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkDeviceSize point_bytes = kCaptureHeaderBytes + VkDeviceSize(point_capacity) * sizeof(CapturedPoint);
    const VkDeviceSize prim_bytes = kCaptureHeaderBytes + VkDeviceSize(primitive_capacity) * sizeof(CapturedPrimitive);
    struct Buffers {
      VkDevice device;
      vkutil::Buffer points, primitives;
      ~Buffers() {
        vkutil::destroy_buffer(device, points);
        vkutil::destroy_buffer(device, primitives);
      }
    } buffers{gpu_.device, {}, {}};
    buffers.points = vkutil::create_buffer(gpu_, point_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
    buffers.primitives = vkutil::create_buffer(gpu_, prim_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
    const uint32_t point_header[4] = {0, point_capacity, 0, 0};
    const uint32_t prim_header[4] = {0, primitive_capacity, 0, 0};
    std::memcpy(buffers.points.mapped, point_header, sizeof point_header);
    std::memcpy(buffers.primitives.mapped, prim_header, sizeof prim_header);

    VkDescriptorBufferInfo infos[2] = {{buffers.points.buffer, 0, VK_WHOLE_SIZE},
                                       {buffers.primitives.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet writes[2] = {};
    for (uint32_t b = 0; b < 2; ++b) {
      writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[b].dstSet = capture_set_;
      writes[b].dstBinding = b;
      writes[b].descriptorCount = 1;
      writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[b].pBufferInfo = &infos[b];
    }
    vkUpdateDescriptorSets(gpu_.device, 2, writes, 0, nullptr);

    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
    check(vkBeginCommandBuffer(cmd_, &begin), "vkBeginCommandBuffer");
    VkClearValue clear{};
    VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rp.renderPass = render_pass_;
    rp.framebuffer = framebuffer_;
    rp.renderArea.extent = {kExtent, kExtent};
    rp.clearValueCount = 1;
    rp.pClearValues = &clear;
    vkCmdBeginRenderPass(cmd_, &rp, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, capture_layout_, 0, 1, &capture_set_, 0, nullptr);
    VkPipeline bound = VK_NULL_HANDLE;
    for (uint32_t i = 0; i < uint32_t(factors.size()); ++i) {
      const VkPipeline pipeline = capture_pipelines_[int(pipelines[i].first)][int(pipelines[i].second)];
      if (pipeline != bound) {
        vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        bound = pipeline;
      }
      struct {
        TessFactors factors;
        uint32_t case_index;
      } constants{factors[i], i};
      static_assert(sizeof(constants) == kCapturePushBytes);
      vkCmdPushConstants(cmd_, capture_layout_, kCaptureStages, 0, kCapturePushBytes, &constants);
      vkCmdDraw(cmd_, 1, 1, 0, 0);
    }
    vkCmdEndRenderPass(cmd_);
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                         nullptr, 0, nullptr);
    check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    vkutil::submit_and_wait(gpu_, cmd_);

    uint32_t point_count = 0, prim_count = 0;
    std::memcpy(&point_count, buffers.points.mapped, sizeof point_count);
    std::memcpy(&prim_count, buffers.primitives.mapped, sizeof prim_count);
    if (point_count > point_capacity) {
      throw Error("capture: the driver ran the evaluation shader " + std::to_string(point_count) +
                  " times, more than the " + std::to_string(point_capacity) + " records reserved");
    }
    if (prim_count > primitive_capacity) {
      throw Error("capture: the driver emitted " + std::to_string(prim_count) + " primitives, more than the " +
                  std::to_string(primitive_capacity) + " records reserved");
    }
    Capture out;
    out.points.resize(point_count);
    out.primitives.resize(prim_count);
    const auto* point_data = static_cast<const unsigned char*>(buffers.points.mapped) + kCaptureHeaderBytes;
    const auto* prim_data = static_cast<const unsigned char*>(buffers.primitives.mapped) + kCaptureHeaderBytes;
    std::memcpy(out.points.data(), point_data, size_t(point_count) * sizeof(CapturedPoint));
    std::memcpy(out.primitives.data(), prim_data, size_t(prim_count) * sizeof(CapturedPrimitive));
    return out;
  }

  // Makes one deliberate, harmless API error (a query pool of zero queries) so a test can see
  // the messenger count it.
  void provoke_validation_error() {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_OCCLUSION;
    info.queryCount = 0;  // VUID-VkQueryPoolCreateInfo-queryCount-02763
    VkQueryPool pool = VK_NULL_HANDLE;
    if (vkCreateQueryPool(gpu_.device, &info, nullptr, &pool) == VK_SUCCESS && pool != VK_NULL_HANDLE) {
      vkDestroyQueryPool(gpu_.device, pool, nullptr);
    }
  }

 private:
  void init() {
    validation = vkutil::validation_layer_installed();
    log_.on_message = [this](bool error, const char* message) {
      if (error) validation_errors.push_back(message);
    };
    vkutil::InstanceOptions options;
    options.application_name = "tessera-tess-reference";
    options.validation = validation;
    options.log = &log_;
    instance_ = vkutil::Instance(options);
    gpu_ = vkutil::choose_physical_device(
        instance_.handle(), VK_QUEUE_GRAPHICS_BIT,
        [](VkPhysicalDevice candidate, const VkPhysicalDeviceProperties& props) -> std::string {
          VkPhysicalDeviceFeatures features{};
          vkGetPhysicalDeviceFeatures(candidate, &features);
          if (!features.tessellationShader || !features.pipelineStatisticsQuery ||
              props.limits.maxTessellationGenerationLevel < 64) {
            return "needs tessellationShader, pipelineStatisticsQuery, generation level 64";
          }
          return "";
        });
    device_name = gpu_.properties.deviceName;
    VkPhysicalDeviceFeatures available{};
    vkGetPhysicalDeviceFeatures(gpu_.physical, &available);
    capture_supported = available.geometryShader && available.vertexPipelineStoresAndAtomics;
    VkPhysicalDeviceFeatures enabled{};
    enabled.tessellationShader = VK_TRUE;
    enabled.pipelineStatisticsQuery = VK_TRUE;
    enabled.geometryShader = capture_supported ? VK_TRUE : VK_FALSE;
    enabled.vertexPipelineStoresAndAtomics = capture_supported ? VK_TRUE : VK_FALSE;
    vkutil::DeviceRequest request;
    request.features = &enabled;
    vkutil::create_device(gpu_, request);
    command_pool_ = vkutil::create_command_pool(gpu_, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
    cmd_ = vkutil::allocate_command_buffer(gpu_.device, command_pool_);

    create_target();
    create_pipelines();
    if (capture_supported) create_capture_pipelines();
  }

  void create_target() {
    constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
    target_ = vkutil::create_image(gpu_, {kExtent, kExtent, 1, kFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT});

    VkAttachmentDescription attachment{};
    attachment.format = kFormat;
    attachment.samples = VK_SAMPLE_COUNT_1_BIT;
    attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    attachment.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    attachment.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    attachment.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    attachment.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    attachment.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    VkRenderPassCreateInfo rp_info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rp_info.attachmentCount = 1;
    rp_info.pAttachments = &attachment;
    rp_info.subpassCount = 1;
    rp_info.pSubpasses = &subpass;
    check(vkCreateRenderPass(gpu_.device, &rp_info, nullptr, &render_pass_), "vkCreateRenderPass");
    VkFramebufferCreateInfo fb_info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fb_info.renderPass = render_pass_;
    fb_info.attachmentCount = 1;
    fb_info.pAttachments = &target_.view;
    fb_info.width = kExtent;
    fb_info.height = kExtent;
    fb_info.layers = 1;
    check(vkCreateFramebuffer(gpu_.device, &fb_info, nullptr, &framebuffer_), "vkCreateFramebuffer");
  }

  VkShaderModule module(std::span<const uint32_t> code) {
    modules_.push_back(vkutil::create_shader_module(gpu_.device, code));
    return modules_.back();
  }

  void create_pipelines() {
    VkPushConstantRange range{VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, 0, sizeof(TessFactors)};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(gpu_.device, &layout_info, nullptr, &layout_), "vkCreatePipelineLayout");

    const VkShaderModule vert = module(kVertSpirv);
    const VkShaderModule tesc = module(kTescSpirv);
    const VkShaderModule frag = module(kFragSpirv);

    VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST;
    VkPipelineTessellationStateCreateInfo tessellation{VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
    tessellation.patchControlPoints = 1;
    VkViewport viewport{0.0f, 0.0f, float(kExtent), float(kExtent), 0.0f, 1.0f};
    VkRect2D scissor{{0, 0}, {kExtent, kExtent}};
    VkPipelineViewportStateCreateInfo viewport_state{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport_state.viewportCount = 1;
    viewport_state.pViewports = &viewport;
    viewport_state.scissorCount = 1;
    viewport_state.pScissors = &scissor;
    // No culling and no discard: every primitive the tessellator emits reaches the clipper.
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend_attachment{};
    blend_attachment.colorWriteMask =
        VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend.attachmentCount = 1;
    blend.pAttachments = &blend_attachment;

    for (TessDomain domain : kDomains) {
      for (TessSpacing spacing : kSpacings) {
        const VkShaderModule tese = module(tese_spirv(domain, spacing));
        VkPipelineShaderStageCreateInfo stages[4] = {};
        const VkShaderStageFlagBits stage_bits[4] = {
            VK_SHADER_STAGE_VERTEX_BIT, VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
            VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, VK_SHADER_STAGE_FRAGMENT_BIT};
        const VkShaderModule modules[4] = {vert, tesc, tese, frag};
        for (int s = 0; s < 4; ++s) {
          stages[s].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
          stages[s].stage = stage_bits[s];
          stages[s].module = modules[s];
          stages[s].pName = "main";
        }
        VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
        info.stageCount = 4;
        info.pStages = stages;
        info.pVertexInputState = &vertex_input;
        info.pInputAssemblyState = &assembly;
        info.pTessellationState = &tessellation;
        info.pViewportState = &viewport_state;
        info.pRasterizationState = &raster;
        info.pMultisampleState = &multisample;
        info.pColorBlendState = &blend;
        info.layout = layout_;
        info.renderPass = render_pass_;
        check(vkCreateGraphicsPipelines(gpu_.device, VK_NULL_HANDLE, 1, &info, nullptr,
                                        &pipelines_[int(domain)][int(spacing)]),
              "vkCreateGraphicsPipelines");
      }
    }
  }

  // Vertex, control, capturing evaluation and capturing geometry shader, rasterizer discard.
  void create_capture_pipelines() {
    VkDescriptorSetLayoutBinding bindings[2] = {};
    bindings[0] = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, nullptr};
    bindings[1] = {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_GEOMETRY_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = 2;
    set_info.pBindings = bindings;
    check(vkCreateDescriptorSetLayout(gpu_.device, &set_info, nullptr, &capture_set_layout_),
          "vkCreateDescriptorSetLayout");
    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &pool_size;
    check(vkCreateDescriptorPool(gpu_.device, &pool_info, nullptr, &capture_pool_), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = capture_pool_;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &capture_set_layout_;
    check(vkAllocateDescriptorSets(gpu_.device, &alloc, &capture_set_), "vkAllocateDescriptorSets");
    VkPushConstantRange range{kCaptureStages, 0, kCapturePushBytes};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &capture_set_layout_;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(gpu_.device, &layout_info, nullptr, &capture_layout_), "vkCreatePipelineLayout");

    const VkShaderModule vert = module(kVertSpirv);
    const VkShaderModule tesc = module(kTescSpirv);
    const VkShaderModule geom_triangles = module(kCaptureGeomTriangles);
    const VkShaderModule geom_lines = module(kCaptureGeomLines);
    VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST;
    VkPipelineTessellationStateCreateInfo tessellation{VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
    tessellation.patchControlPoints = 1;
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.rasterizerDiscardEnable = VK_TRUE;  // the shaders' stores are the output
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    for (TessDomain domain : kDomains) {
      for (TessSpacing spacing : kSpacings) {
        const VkShaderModule tese = module(capture_tese_spirv(domain, spacing));
        const VkShaderModule geom = domain == TessDomain::kIsoline ? geom_lines : geom_triangles;
        VkPipelineShaderStageCreateInfo stages[4] = {};
        const VkShaderStageFlagBits stage_bits[4] = {
            VK_SHADER_STAGE_VERTEX_BIT, VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
            VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, VK_SHADER_STAGE_GEOMETRY_BIT};
        const VkShaderModule modules[4] = {vert, tesc, tese, geom};
        for (int st = 0; st < 4; ++st) {
          stages[st].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
          stages[st].stage = stage_bits[st];
          stages[st].module = modules[st];
          stages[st].pName = "main";
        }
        VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
        info.stageCount = 4;
        info.pStages = stages;
        info.pVertexInputState = &vertex_input;
        info.pInputAssemblyState = &assembly;
        info.pTessellationState = &tessellation;
        info.pRasterizationState = &raster;
        info.layout = capture_layout_;
        info.renderPass = render_pass_;
        check(vkCreateGraphicsPipelines(gpu_.device, VK_NULL_HANDLE, 1, &info, nullptr,
                                        &capture_pipelines_[int(domain)][int(spacing)]),
              "vkCreateGraphicsPipelines (capture)");
      }
    }
  }

  void destroy_all() {
    if (gpu_.device != VK_NULL_HANDLE) {
      vkDeviceWaitIdle(gpu_.device);
      for (auto& row : pipelines_) {
        for (VkPipeline p : row) {
          if (p != VK_NULL_HANDLE) vkDestroyPipeline(gpu_.device, p, nullptr);
        }
      }
      for (auto& row : capture_pipelines_) {
        for (VkPipeline p : row) {
          if (p != VK_NULL_HANDLE) vkDestroyPipeline(gpu_.device, p, nullptr);
        }
      }
      if (capture_layout_) vkDestroyPipelineLayout(gpu_.device, capture_layout_, nullptr);
      if (capture_pool_) vkDestroyDescriptorPool(gpu_.device, capture_pool_, nullptr);
      if (capture_set_layout_) vkDestroyDescriptorSetLayout(gpu_.device, capture_set_layout_, nullptr);
      for (VkShaderModule m : modules_) vkDestroyShaderModule(gpu_.device, m, nullptr);
      if (layout_) vkDestroyPipelineLayout(gpu_.device, layout_, nullptr);
      if (framebuffer_) vkDestroyFramebuffer(gpu_.device, framebuffer_, nullptr);
      if (render_pass_) vkDestroyRenderPass(gpu_.device, render_pass_, nullptr);
      vkutil::destroy_image(gpu_.device, target_);
      if (command_pool_) vkDestroyCommandPool(gpu_.device, command_pool_, nullptr);
      vkDestroyDevice(gpu_.device, nullptr);
    }
    instance_.destroy();
  }

  vkutil::MessageLog log_;  // outlives instance_
  vkutil::Instance instance_;
  vkutil::Device gpu_;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  vkutil::Image target_;
  VkRenderPass render_pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  std::vector<VkShaderModule> modules_;
  VkPipeline pipelines_[3][3] = {};
  VkDescriptorSetLayout capture_set_layout_ = VK_NULL_HANDLE;
  VkDescriptorPool capture_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet capture_set_ = VK_NULL_HANDLE;
  VkPipelineLayout capture_layout_ = VK_NULL_HANDLE;
  VkPipeline capture_pipelines_[3][3] = {};
};

// ---------------------------------------------------------------------------------------------
// Capture comparison. A domain point is the triple of gl_TessCoord bit patterns (u, v, w); a
// primitive is its vertices' (u, v) bit pairs in increasing order (lines: the third pair 0, 0),
// so neither the order of the points nor the vertex order or winding of a primitive matters.
// Per case, the set of distinct point values the driver evaluated must equal the set of
// Tessera's point values, and the driver's primitives must equal Tessera's as multisets.

using PointKey = std::array<uint32_t, 3>;
using PrimitiveKey = std::array<uint32_t, 6>;

uint32_t float_bits(float f) {
  uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float bits_float(uint32_t b) {
  float f = 0;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

PrimitiveKey primitive_key(std::array<std::array<uint32_t, 2>, 3> v, int vertices) {
  if (vertices == 2) v[2] = {0, 0};
  std::sort(v.begin(), v.begin() + vertices);
  return {v[0][0], v[0][1], v[1][0], v[1][1], v[2][0], v[2][1]};
}

struct ExpectedSets {
  std::vector<PointKey> points;          // sorted
  std::vector<PrimitiveKey> primitives;  // sorted
};

ExpectedSets tessera_sets(const TessellatedPatch& patch) {
  ExpectedSets out;
  for (const glm::vec3& q : patch.points) out.points.push_back({float_bits(q.x), float_bits(q.y), float_bits(q.z)});
  const int n = patch.kind == TessPrimitive::kLines ? 2 : 3;
  for (size_t i = 0; i + size_t(n) <= patch.indices.size(); i += size_t(n)) {
    std::array<std::array<uint32_t, 2>, 3> v{};
    for (int k = 0; k < n; ++k) {
      const glm::vec3& q = patch.points[patch.indices[i + size_t(k)]];
      v[size_t(k)] = {float_bits(q.x), float_bits(q.y)};
    }
    out.primitives.push_back(primitive_key(v, n));
  }
  // Unique values: where a fractional_odd inner level rounds to 1 + 2^-16 the first inner ring
  // lies on the outer corners, so distinct points can share a position (on both sides).
  std::sort(out.points.begin(), out.points.end());
  out.points.erase(std::unique(out.points.begin(), out.points.end()), out.points.end());
  std::sort(out.primitives.begin(), out.primitives.end());
  return out;
}

std::string point_text(const PointKey& k) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%.9g, %.9g, %.9g)", double(bits_float(k[0])), double(bits_float(k[1])),
                double(bits_float(k[2])));
  return buf;
}

std::string primitive_text(const PrimitiveKey& k) {
  std::string s;
  for (int v = 0; v < 3; ++v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s(%.9g, %.9g)", v ? " " : "", double(bits_float(k[size_t(2 * v)])),
                  double(bits_float(k[size_t(2 * v + 1)])));
    s += buf;
  }
  return s;
}

// The first element of `a` that `b` lacks (both sorted), as text, or "" when none.
template <typename Key, typename Text>
std::string first_missing(const std::vector<Key>& a, const std::vector<Key>& b, Text text) {
  std::vector<Key> diff;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(diff));
  return diff.empty() ? std::string("none") : text(diff.front());
}

// ---------------------------------------------------------------------------------------------
// Cases

struct Case {
  TessDomain domain;
  TessSpacing spacing;
  TessFactors factors;
};

std::string level_text(float f) {
  if (std::isnan(f)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", double(f));
  return buf;
}

std::string describe(const Case& c) {
  std::ostringstream s;
  s << tess_domain_name(c.domain) << " " << tess_spacing_name(c.spacing) << " outer=";
  const int outer = c.domain == TessDomain::kQuad ? 4 : c.domain == TessDomain::kTriangle ? 3 : 2;
  for (int i = 0; i < outer; ++i) s << (i ? "," : "") << level_text(c.factors.outer[size_t(i)]);
  if (c.domain == TessDomain::kTriangle) s << " inner=" << level_text(c.factors.inner[0]);
  if (c.domain == TessDomain::kQuad) {
    s << " inner=" << level_text(c.factors.inner[0]) << "," << level_text(c.factors.inner[1]);
  }
  return s.str();
}

// Every level the domain uses set to `level` (isolines: `level` lines of `level` segments).
TessFactors uniform(float level) {
  TessFactors f;
  f.outer = {level, level, level, level};
  f.inner = {level, level};
  return f;
}

TessFactors factors(std::array<float, 4> outer, std::array<float, 2> inner) {
  TessFactors f;
  f.outer = outer;
  f.inner = inner;
  return f;
}

class TessReference : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device_ = std::make_unique<TessDevice>(); }
  static void TearDownTestSuite() {
    // Destroying the device and instance is when the layer reports leaked objects.
    device_->validation_errors.clear();
    device_->destroy();
    for (const std::string& m : device_->validation_errors) {
      ADD_FAILURE() << "validation at teardown: " << m;
    }
    device_.reset();
  }
  void SetUp() override {
    if (!device_->unavailable.empty()) GTEST_SKIP() << device_->unavailable;
    if (!device_->failure.empty()) FAIL() << device_->failure;
    device_->validation_errors.clear();
  }
  void TearDown() override {
    if (!device_ || !device_->unavailable.empty() || !device_->failure.empty()) return;
    for (const std::string& m : device_->validation_errors) ADD_FAILURE() << "validation: " << m;
  }

  // Renders every case and compares with tessera::tessellate(). Returns the driver's counts.
  std::vector<Statistics> check_cases(const std::vector<Case>& cases) {
    std::vector<std::pair<TessDomain, TessSpacing>> pipelines;
    std::vector<TessFactors> levels;
    for (const Case& c : cases) {
      pipelines.emplace_back(c.domain, c.spacing);
      levels.push_back(c.factors);
    }
    std::vector<Statistics> got;
    try {
      got = device_->run(pipelines, levels);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      return {};
    }
    int mismatches = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      const TessellatedPatch patch = tessellate(c.domain, c.spacing, c.factors);
      const TessCounts closed = tess_counts(c.domain, resolve_tess_factors(c.domain, c.spacing, c.factors));
      const uint64_t points = patch.points.size();
      const uint64_t prims = patch.primitive_count();
      const Statistics& s = got[i];
      if (std::getenv("TESSERA_TESS_DUMP")) {
        std::printf("%s: lavapipe tes=%" PRIu64 " clip=%" PRIu64 " clip_prims=%" PRIu64 " patches=%" PRIu64
                    "; tessera points=%" PRIu64 " prims=%" PRIu64 "\n",
                    describe(c).c_str(), s.evaluation_invocations, s.clipping_invocations, s.clipping_primitives,
                    s.control_patches, points, prims);
      }
      // Tessera's own closed forms agree with what it builds.
      EXPECT_EQ(closed.points, points) << describe(c);
      EXPECT_EQ(closed.primitives, prims) << describe(c);
      // The control shader runs once per patch, culled or not.
      EXPECT_EQ(s.control_patches, 1u) << describe(c);
      const bool same = s.evaluation_invocations == points && s.clipping_invocations == prims &&
                        patch.culled == (s.evaluation_invocations == 0);
      if (!same && ++mismatches <= 40) {
        ADD_FAILURE() << describe(c) << ": lavapipe " << s.evaluation_invocations << " points / "
                      << s.clipping_invocations << " primitives, Tessera " << points << " points / " << prims
                      << " primitives" << (patch.culled ? " (culled)" : "");
      }
    }
    EXPECT_EQ(mismatches, 0) << "of " << cases.size() << " cases differ";
    std::printf("%zu patches on %s%s\n", cases.size(), device_->device_name.c_str(),
                device_->validation ? " with VK_LAYER_KHRONOS_validation" : "");
    check_capture(cases);
    return got;
  }

  // Captures the driver's points and primitives for every case, in batches of bounded size,
  // and compares them with Tessera's as described above.
  void check_capture(const std::vector<Case>& cases) {
    if (!device_->capture_supported) {
      std::printf("capture skipped: the device lacks geometryShader or vertexPipelineStoresAndAtomics\n");
      return;
    }
    constexpr uint64_t kBatchRecords = 1u << 20;  // per buffer, to bound memory
    std::vector<ExpectedSets> expected(cases.size());
    size_t point_mismatches = 0, primitive_mismatches = 0, reported = 0;
    uint64_t invocations = 0, unique_points = 0, primitives = 0;
    for (size_t first = 0; first < cases.size();) {
      size_t last = first;
      uint64_t points = 0, prims = 0;
      std::vector<std::pair<TessDomain, TessSpacing>> pipelines;
      std::vector<TessFactors> levels;
      while (last < cases.size()) {
        const Case& c = cases[last];
        const TessCounts n = tess_counts(c.domain, resolve_tess_factors(c.domain, c.spacing, c.factors));
        if (last > first && (2 * (points + n.points) > kBatchRecords || prims + n.primitives > kBatchRecords)) break;
        points += n.points;
        prims += n.primitives;
        pipelines.emplace_back(c.domain, c.spacing);
        levels.push_back(c.factors);
        ++last;
      }
      Capture got;
      try {
        // Room for every point evaluated twice and a quarter more primitives: overflowing is
        // reported as an error, never silently cut.
        got = device_->capture(pipelines, levels, uint32_t(2 * points + 256), uint32_t(prims + prims / 4 + 256));
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
        return;
      }
      const size_t batch = last - first;
      std::vector<std::vector<PointKey>> ref_points(batch);
      std::vector<std::vector<PrimitiveKey>> ref_prims(batch);
      for (const CapturedPoint& r : got.points) {
        const uint32_t index = r.case_and_primitive & 0xffffffu;
        ASSERT_LT(index, batch) << "captured point with a bad case index";
        EXPECT_EQ(r.case_and_primitive >> 24, 0u) << "gl_PrimitiveID of the only patch of a draw";
        ref_points[index].push_back({r.u, r.v, r.w});
      }
      for (const CapturedPrimitive& r : got.primitives) {
        ASSERT_LT(r.case_index, batch) << "captured primitive with a bad case index";
        // Not checked: lavapipe numbers gl_PrimitiveIDIn by tessellated primitive (0, 1, 2, ...
        // within the patch), where Vulkan asks for the patch's ID (docs/tessellator.md).
        const int n = cases[first + r.case_index].domain == TessDomain::kIsoline ? 2 : 3;
        ref_prims[r.case_index].push_back(
            primitive_key({{{r.uv[0], r.uv[1]}, {r.uv[2], r.uv[3]}, {r.uv[4], r.uv[5]}}}, n));
      }
      invocations += got.points.size();
      primitives += got.primitives.size();
      for (size_t i = 0; i < batch; ++i) {
        const Case& c = cases[first + i];
        const ExpectedSets ours = tessera_sets(tessellate(c.domain, c.spacing, c.factors));
        std::vector<PointKey>& rp = ref_points[i];
        std::vector<PrimitiveKey>& rt = ref_prims[i];
        std::sort(rp.begin(), rp.end());
        rp.erase(std::unique(rp.begin(), rp.end()), rp.end());
        std::sort(rt.begin(), rt.end());
        unique_points += rp.size();
        const bool points_same = rp == ours.points;
        const bool prims_same = rt == ours.primitives;
        point_mismatches += !points_same;
        primitive_mismatches += !prims_same;
        if ((!points_same || !prims_same) && ++reported <= 20) {
          ADD_FAILURE() << describe(c) << ": points " << (points_same ? "identical" : "differ") << " (lavapipe "
                        << rp.size() << ", Tessera " << ours.points.size()
                        << "; first only in lavapipe: " << first_missing(rp, ours.points, point_text)
                        << "; first only in Tessera: " << first_missing(ours.points, rp, point_text) << "), primitives "
                        << (prims_same ? "identical" : "differ") << " (lavapipe " << rt.size() << ", Tessera "
                        << ours.primitives.size()
                        << "; first only in lavapipe: " << first_missing(rt, ours.primitives, primitive_text)
                        << "; first only in Tessera: " << first_missing(ours.primitives, rt, primitive_text) << ")";
        }
      }
      first = last;
    }
    EXPECT_EQ(point_mismatches, 0u) << "of " << cases.size() << " cases have different domain points";
    EXPECT_EQ(primitive_mismatches, 0u) << "of " << cases.size() << " cases have different primitives";
    std::printf("capture: %zu patches, domain points bit-identical in %zu, primitives in %zu (%" PRIu64
                " evaluation invocations for %" PRIu64 " unique points, %" PRIu64 " primitives)\n",
                cases.size(), cases.size() - point_mismatches, cases.size() - primitive_mismatches, invocations,
                unique_points, primitives);
  }

  static std::unique_ptr<TessDevice> device_;
};
std::unique_ptr<TessDevice> TessReference::device_;

// The validation layer is on when installed, and its errors reach the test.
TEST_F(TessReference, ValidationErrorsAreCounted) {
  if (!device_->validation) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
  device_->provoke_validation_error();
  EXPECT_GE(device_->validation_errors.size(), 1u) << "the messenger saw no error";
  device_->validation_errors.clear();
}

// Every uniform level 1..64 with equal spacing, for all three domains.
TEST_F(TessReference, EqualSpacingEveryUniformLevel) {
  std::vector<Case> cases;
  for (TessDomain domain : kDomains) {
    for (int n = 1; n <= 64; ++n) cases.push_back({domain, TessSpacing::kEqual, uniform(float(n))});
  }
  const std::vector<Statistics> got = check_cases(cases);
  if (got.empty()) return;
  // The closed forms of docs/tessellator.md, straight from the driver's counts.
  for (size_t i = 0; i < cases.size(); ++i) {
    const uint64_t n = uint64_t(cases[i].factors.outer[0]);
    if (cases[i].domain == TessDomain::kQuad) {
      EXPECT_EQ(got[i].clipping_invocations, 2 * n * n) << n;
      EXPECT_EQ(got[i].evaluation_invocations, (n + 1) * (n + 1)) << n;
    } else if (cases[i].domain == TessDomain::kTriangle) {
      EXPECT_EQ(got[i].clipping_invocations, n % 2 ? (3 * n * n - 1) / 2 : 3 * n * n / 2) << n;
    } else {
      EXPECT_EQ(got[i].clipping_invocations, n * n) << n;
      EXPECT_EQ(got[i].evaluation_invocations, n * (n + 1)) << n;
    }
  }
}

// Every uniform level 1..64 with both fractional spacings, and the non-integer sweep with all
// three spacings.
TEST_F(TessReference, FractionalSpacingUniformLevels) {
  std::vector<Case> cases;
  for (TessDomain domain : kDomains) {
    for (TessSpacing spacing : {TessSpacing::kFractionalOdd, TessSpacing::kFractionalEven}) {
      for (int n = 1; n <= 64; ++n) cases.push_back({domain, spacing, uniform(float(n))});
    }
  }
  check_cases(cases);
}

TEST_F(TessReference, NonIntegerLevelSweep) {
  const float sweep[] = {1.0f,  1.0001f, 1.3f,    1.5f,  1.99f,  2.0f,  2.01f,   2.5f,  3.0f,  3.0001f,
                         4.7f,  5.5f,    6.9999f, 7.99f, 15.0f,  16.2f, 31.01f,  33.3f, 62.5f, 63.0f,
                         63.1f, 63.9f,   64.0f,   0.5f,  0.001f, 65.0f, 1000.0f, kInf};
  std::vector<Case> cases;
  for (TessDomain domain : kDomains) {
    for (TessSpacing spacing : kSpacings) {
      for (float level : sweep) cases.push_back({domain, spacing, uniform(level)});
      // Outer levels swept alone (inner fixed) and inner alone (outer fixed).
      for (float level : sweep) {
        cases.push_back({domain, spacing, factors({level, 3.0f, level, 5.0f}, {4.0f, 4.0f})});
        cases.push_back({domain, spacing, factors({2.0f, 5.0f, 3.0f, 4.0f}, {level, level})});
        cases.push_back({domain, spacing, factors({4.0f, 4.0f, 4.0f, 4.0f}, {level, 2.5f})});
      }
    }
  }
  check_cases(cases);
}

// 30 random patches per domain and spacing, mixed outer and inner levels, fixed seed. The
// generator's raw output is mapped by hand so the cases are the same with any standard library.
TEST_F(TessReference, RandomMixedLevels) {
  std::mt19937 rng(20261121u);
  auto unit = [&rng] { return float(rng() >> 8) * (1.0f / 16777216.0f); };  // [0, 1)
  auto level = [&]() -> float {
    const uint32_t kind = rng() % 8;
    if (kind == 0) return float(1 + rng() % 64);   // exact integer
    if (kind == 1) return 1.0f;                    // level 1 (inner-level-1 rules)
    if (kind == 2) return 0.05f + unit() * 70.0f;  // anywhere, also above 64
    return 0.5f + unit() * 12.0f;                  // typical
  };
  std::vector<Case> cases;
  for (TessDomain domain : kDomains) {
    for (TessSpacing spacing : kSpacings) {
      for (int i = 0; i < 30; ++i) {
        TessFactors f;
        for (float& o : f.outer) o = level();
        for (float& in : f.inner) in = level();
        cases.push_back({domain, spacing, f});
      }
    }
  }
  check_cases(cases);
}

// Many more random patches (500 per domain and spacing), same generator, another seed.
TEST_F(TessReference, RandomMixedLevelsMany) {
  std::mt19937 rng(5u);
  auto unit = [&rng] { return float(rng() >> 8) * (1.0f / 16777216.0f); };
  std::vector<Case> cases;
  for (TessDomain domain : kDomains) {
    for (TessSpacing spacing : kSpacings) {
      for (int i = 0; i < 500; ++i) {
        TessFactors f;
        const float top = (i % 4 == 0) ? 66.0f : 12.0f;
        for (float& o : f.outer) o = rng() % 10 == 0 ? float(1 + rng() % 8) : 0.5f + unit() * top;
        for (float& in : f.inner) in = rng() % 10 == 0 ? 1.0f : 0.5f + unit() * top;
        cases.push_back({domain, spacing, f});
      }
    }
  }
  check_cases(cases);
}

// Levels one or two 16.16 steps above an integer, where the fixed-point placement has new
// points on old ones and folds an edge's middle back by a few 2^-16 (docs/tessellator.md): every
// domain and spacing, uniform and with the outer and inner levels on different sides of an
// integer. Not in the count suite above; it pins what only positions show.
TEST_F(TessReference, NearIntegerLevels) {
  std::vector<Case> cases;
  for (TessDomain domain : kDomains) {
    for (TessSpacing spacing : kSpacings) {
      for (int k = 1; k <= 63; k += 1) {
        for (int steps : {1, 2, 5}) {
          const float up = float(k) + float(steps) / 65536.0f;
          cases.push_back({domain, spacing, uniform(up)});
          if (k % 4 == 2) cases.push_back({domain, spacing, factors({up, float(k), up, float(k + 1)}, {float(k), up})});
        }
      }
    }
  }
  check_cases(cases);
}

// Inner level 1 with outer levels above 1 (the "1 + epsilon" rule), all-ones patches, one
// inner level 1 on quads, inner levels below the range.
TEST_F(TessReference, InnerLevelOneAndClamping) {
  std::vector<Case> cases;
  for (TessDomain domain : {TessDomain::kTriangle, TessDomain::kQuad}) {
    for (TessSpacing spacing : kSpacings) {
      for (float outer : {1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 7.0f}) {
        cases.push_back({domain, spacing, factors({outer, outer, outer, outer}, {1.0f, 1.0f})});
        cases.push_back({domain, spacing, factors({outer, 1.0f, 1.0f, 1.0f}, {1.0f, 1.0f})});
        cases.push_back({domain, spacing, factors({outer, outer, outer, outer}, {1.0f, 4.0f})});
        cases.push_back({domain, spacing, factors({outer, outer, outer, outer}, {3.0f, 1.0f})});
        cases.push_back({domain, spacing, factors({outer, outer, outer, outer}, {0.0f, -2.0f})});
        cases.push_back({domain, spacing, factors({outer, outer, outer, outer}, {kNaN, kNaN})});
        cases.push_back({domain, spacing, factors({outer, outer, outer, outer}, {0.5f, 1.2f})});
      }
    }
  }
  check_cases(cases);
}

// An outer level the domain uses that is 0, -0, negative, -inf or NaN culls the patch (no
// evaluation invocations, no primitives); the same values in unused entries do not.
TEST_F(TessReference, CullingOuterLevels) {
  const float culling[] = {0.0f, -0.0f, -1.0f, -1e-30f, -kInf, kNaN};
  std::vector<Case> cases;
  for (TessDomain domain : kDomains) {
    const int used = domain == TessDomain::kQuad ? 4 : domain == TessDomain::kTriangle ? 3 : 2;
    for (TessSpacing spacing : kSpacings) {
      for (float bad : culling) {
        for (int slot = 0; slot < 4; ++slot) {
          TessFactors f = factors({3.0f, 4.0f, 5.0f, 2.0f}, {3.0f, 2.0f});
          f.outer[size_t(slot)] = bad;
          cases.push_back({domain, spacing, f});
          EXPECT_EQ(tessellate(domain, spacing, f).culled, slot < used) << describe(cases.back());
        }
        // Inner levels never cull, and isolines ignore them altogether.
        cases.push_back({domain, spacing, factors({3.0f, 4.0f, 5.0f, 2.0f}, {bad, bad})});
        cases.push_back({domain, spacing, factors({bad, bad, bad, bad}, {4.0f, 4.0f})});
      }
    }
  }
  const std::vector<Statistics> got = check_cases(cases);
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].evaluation_invocations == 0) {
      EXPECT_EQ(got[i].clipping_invocations, 0u) << describe(cases[i]);
    }
  }
}

}  // namespace
}  // namespace tessera
