// Tessera's tessellator against the Vulkan driver's (lavapipe: Mesa's port of the D3D11
// reference tessellator). Each case renders ONE patch through a tessellation pipeline whose
// control shader writes the levels from push constants, inside a pipeline-statistics query:
//   tessellation evaluation shader invocations == the number of domain points,
//   clipping invocations == the number of triangles (line segments for isolines),
// compared exactly with tessera::tessellate(). docs/tessellator.md, "Reference check against
// lavapipe", records what the driver counts and why these relations hold.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
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
    VkPhysicalDeviceFeatures enabled{};
    enabled.tessellationShader = VK_TRUE;
    enabled.pipelineStatisticsQuery = VK_TRUE;
    vkutil::DeviceRequest request;
    request.features = &enabled;
    vkutil::create_device(gpu_, request);
    command_pool_ = vkutil::create_command_pool(gpu_, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
    cmd_ = vkutil::allocate_command_buffer(gpu_.device, command_pool_);

    create_target();
    create_pipelines();
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

  void destroy_all() {
    if (gpu_.device != VK_NULL_HANDLE) {
      vkDeviceWaitIdle(gpu_.device);
      for (auto& row : pipelines_) {
        for (VkPipeline p : row) {
          if (p != VK_NULL_HANDLE) vkDestroyPipeline(gpu_.device, p, nullptr);
        }
      }
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
};

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
    return got;
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
