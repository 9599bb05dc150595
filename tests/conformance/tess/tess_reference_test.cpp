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
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/tessellator.h"

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

struct Spirv {
  const uint32_t* words;
  size_t bytes;
};
template <size_t N>
constexpr Spirv spirv(const uint32_t (&words)[N]) {
  return {words, N * sizeof(uint32_t)};
}

constexpr TessDomain kDomains[] = {TessDomain::kTriangle, TessDomain::kQuad, TessDomain::kIsoline};
constexpr TessSpacing kSpacings[] = {TessSpacing::kEqual, TessSpacing::kFractionalOdd,
                                     TessSpacing::kFractionalEven};

Spirv tese_spirv(TessDomain domain, TessSpacing spacing) {
  const Spirv table[3][3] = {
      {spirv(kTeseTriEqual), spirv(kTeseTriOdd), spirv(kTeseTriEven)},
      {spirv(kTeseQuadEqual), spirv(kTeseQuadOdd), spirv(kTeseQuadEven)},
      {spirv(kTeseIsoEqual), spirv(kTeseIsoOdd), spirv(kTeseIsoEven)},
  };
  return table[int(domain)][int(spacing)];
}

constexpr uint32_t kExtent = 16;  // colour attachment is kExtent x kExtent
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Statistics requested from the driver; Vulkan returns them in increasing bit order.
constexpr VkQueryPipelineStatisticFlags kStatistics =
    VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT |               // 0x040
    VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT |                // 0x080
    VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_CONTROL_SHADER_PATCHES_BIT |  // 0x200
    VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_EVALUATION_SHADER_INVOCATIONS_BIT;  // 0x400
struct Statistics {
  uint64_t clipping_invocations = 0;
  uint64_t clipping_primitives = 0;
  uint64_t control_patches = 0;
  uint64_t evaluation_invocations = 0;
};
static_assert(sizeof(Statistics) == 4 * sizeof(uint64_t));

class VulkanFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) {
    throw VulkanFailure(std::string(call) + " failed: VkResult " + std::to_string(int(result)));
  }
}

// Instance (with VK_LAYER_KHRONOS_validation when installed), a device with tessellationShader
// and pipelineStatisticsQuery, a render pass over a 16x16 RGBA8 attachment and one pipeline per
// domain and spacing. `unavailable` is set instead when no such device exists.
class TessDevice {
 public:
  TessDevice() {
    try {
      init();
    } catch (const VulkanFailure& e) {
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
    view_ = VK_NULL_HANDLE;
    image_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    command_pool_ = VK_NULL_HANDLE;
    cmd_ = VK_NULL_HANDLE;
    device_ = VK_NULL_HANDLE;
    messenger_ = VK_NULL_HANDLE;
    instance_ = VK_NULL_HANDLE;
  }
  TessDevice(const TessDevice&) = delete;
  TessDevice& operator=(const TessDevice&) = delete;

  std::string unavailable;        // why there is no usable device (empty when there is one)
  std::string failure;            // a Vulkan call failed while setting up a usable device
  bool validation = false;        // VK_LAYER_KHRONOS_validation is enabled
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
    check(vkCreateQueryPool(device_, &pool_info, nullptr, &pool), "vkCreateQueryPool");

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
      vkCmdPushConstants(cmd_, layout_, VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, 0,
                         sizeof(TessFactors), &factors[i]);
      vkCmdBeginQuery(cmd_, pool, i, 0);
      vkCmdDraw(cmd_, 1, 1, 0, 0);
      vkCmdEndQuery(cmd_, pool, i);
    }
    vkCmdEndRenderPass(cmd_);
    check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd_;
    check(vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    check(vkQueueWaitIdle(queue_), "vkQueueWaitIdle");

    std::vector<Statistics> results(count);
    const VkResult got = vkGetQueryPoolResults(
        device_, pool, 0, count, results.size() * sizeof(Statistics), results.data(),
        sizeof(Statistics), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    vkDestroyQueryPool(device_, pool, nullptr);
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
    if (vkCreateQueryPool(device_, &info, nullptr, &pool) == VK_SUCCESS && pool != VK_NULL_HANDLE) {
      vkDestroyQueryPool(device_, pool, nullptr);
    }
  }

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
      static_cast<TessDevice*>(user)->validation_errors.push_back(
          data && data->pMessage ? data->pMessage : "(no message)");
    }
    return VK_FALSE;
  }

  void init() {
    uint32_t layer_count = 0;
    vkEnumerateInstanceLayerProperties(&layer_count, nullptr);
    std::vector<VkLayerProperties> layers(layer_count);
    vkEnumerateInstanceLayerProperties(&layer_count, layers.data());
    for (const VkLayerProperties& layer : layers) {
      validation = validation || std::strcmp(layer.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    }
    const char* layer_name = "VK_LAYER_KHRONOS_validation";
    const char* extension_name = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "tessera-tess-reference";
    app.apiVersion = VK_API_VERSION_1_1;
    VkDebugUtilsMessengerCreateInfoEXT messenger_info{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger_info.pfnUserCallback = &TessDevice::on_message;
    messenger_info.pUserData = this;
    VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instance_info.pApplicationInfo = &app;
    if (validation) {
      instance_info.enabledLayerCount = 1;
      instance_info.ppEnabledLayerNames = &layer_name;
      instance_info.enabledExtensionCount = 1;
      instance_info.ppEnabledExtensionNames = &extension_name;
      instance_info.pNext = &messenger_info;
    }
    if (vkCreateInstance(&instance_info, nullptr, &instance_) != VK_SUCCESS) {
      instance_ = VK_NULL_HANDLE;
      unavailable = "no Vulkan driver (vkCreateInstance failed)";
      return;
    }
    if (validation) {
      auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
      check(create ? create(instance_, &messenger_info, nullptr, &messenger_)
                   : VK_ERROR_EXTENSION_NOT_PRESENT,
            "vkCreateDebugUtilsMessengerEXT");
    }

    uint32_t device_count = 0;
    if (vkEnumeratePhysicalDevices(instance_, &device_count, nullptr) != VK_SUCCESS ||
        device_count == 0) {
      unavailable = "no Vulkan physical device";
      return;
    }
    std::vector<VkPhysicalDevice> devices(device_count);
    check(vkEnumeratePhysicalDevices(instance_, &device_count, devices.data()),
          "vkEnumeratePhysicalDevices");
    std::string rejected;
    for (VkPhysicalDevice candidate : devices) {
      VkPhysicalDeviceProperties props{};
      vkGetPhysicalDeviceProperties(candidate, &props);
      VkPhysicalDeviceFeatures features{};
      vkGetPhysicalDeviceFeatures(candidate, &features);
      uint32_t family_count = 0;
      vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, nullptr);
      std::vector<VkQueueFamilyProperties> families(family_count);
      vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, families.data());
      uint32_t family = UINT32_MAX;
      for (uint32_t i = 0; i < family_count && family == UINT32_MAX; ++i) {
        if (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) family = i;
      }
      if (!features.tessellationShader || !features.pipelineStatisticsQuery ||
          family == UINT32_MAX || props.limits.maxTessellationGenerationLevel < 64) {
        rejected += std::string(" ") + props.deviceName + " (needs tessellationShader, "
                    "pipelineStatisticsQuery, a graphics queue, generation level 64);";
        continue;
      }
      physical_ = candidate;
      family_ = family;
      device_name = props.deviceName;
      break;
    }
    if (physical_ == VK_NULL_HANDLE) {
      unavailable = "no Vulkan device with tessellationShader and pipelineStatisticsQuery:" +
                    rejected;
      return;
    }

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = family_;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures enabled{};
    enabled.tessellationShader = VK_TRUE;
    enabled.pipelineStatisticsQuery = VK_TRUE;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.pEnabledFeatures = &enabled;
    check(vkCreateDevice(physical_, &device_info, nullptr, &device_), "vkCreateDevice");
    vkGetDeviceQueue(device_, family_, 0, &queue_);

    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = family_;
    check(vkCreateCommandPool(device_, &pool_info, nullptr, &command_pool_), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cmd_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cmd_info.commandPool = command_pool_;
    cmd_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cmd_info.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(device_, &cmd_info, &cmd_), "vkAllocateCommandBuffers");

    create_target();
    create_pipelines();
  }

  void create_target() {
    constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
    VkImageCreateInfo image_info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    image_info.imageType = VK_IMAGE_TYPE_2D;
    image_info.format = kFormat;
    image_info.extent = {kExtent, kExtent, 1};
    image_info.mipLevels = 1;
    image_info.arrayLayers = 1;
    image_info.samples = VK_SAMPLE_COUNT_1_BIT;
    image_info.tiling = VK_IMAGE_TILING_OPTIMAL;
    image_info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    image_info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    check(vkCreateImage(device_, &image_info, nullptr, &image_), "vkCreateImage");
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(device_, image_, &req);
    VkPhysicalDeviceMemoryProperties mem{};
    vkGetPhysicalDeviceMemoryProperties(physical_, &mem);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; ++i) {
      if (req.memoryTypeBits & (1u << i)) type = i;
    }
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    check(vkAllocateMemory(device_, &alloc, nullptr, &memory_), "vkAllocateMemory");
    check(vkBindImageMemory(device_, image_, memory_, 0), "vkBindImageMemory");
    VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view_info.image = image_;
    view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view_info.format = kFormat;
    view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    check(vkCreateImageView(device_, &view_info, nullptr, &view_), "vkCreateImageView");

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
    check(vkCreateRenderPass(device_, &rp_info, nullptr, &render_pass_), "vkCreateRenderPass");
    VkFramebufferCreateInfo fb_info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fb_info.renderPass = render_pass_;
    fb_info.attachmentCount = 1;
    fb_info.pAttachments = &view_;
    fb_info.width = kExtent;
    fb_info.height = kExtent;
    fb_info.layers = 1;
    check(vkCreateFramebuffer(device_, &fb_info, nullptr, &framebuffer_), "vkCreateFramebuffer");
  }

  VkShaderModule module(Spirv code) {
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = code.bytes;
    info.pCode = code.words;
    VkShaderModule m = VK_NULL_HANDLE;
    check(vkCreateShaderModule(device_, &info, nullptr, &m), "vkCreateShaderModule");
    modules_.push_back(m);
    return m;
  }

  void create_pipelines() {
    VkPushConstantRange range{VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, 0, sizeof(TessFactors)};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(device_, &layout_info, nullptr, &layout_),
          "vkCreatePipelineLayout");

    const VkShaderModule vert = module(spirv(kVertSpirv));
    const VkShaderModule tesc = module(spirv(kTescSpirv));
    const VkShaderModule frag = module(spirv(kFragSpirv));

    VkPipelineVertexInputStateCreateInfo vertex_input{
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly{
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST;
    VkPipelineTessellationStateCreateInfo tessellation{
        VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
    tessellation.patchControlPoints = 1;
    VkViewport viewport{0.0f, 0.0f, float(kExtent), float(kExtent), 0.0f, 1.0f};
    VkRect2D scissor{{0, 0}, {kExtent, kExtent}};
    VkPipelineViewportStateCreateInfo viewport_state{
        VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport_state.viewportCount = 1;
    viewport_state.pViewports = &viewport;
    viewport_state.scissorCount = 1;
    viewport_state.pScissors = &scissor;
    // No culling and no discard: every primitive the tessellator emits reaches the clipper.
    VkPipelineRasterizationStateCreateInfo raster{
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample{
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend_attachment{};
    blend_attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                      VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo blend{
        VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
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
        check(vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr,
                                        &pipelines_[int(domain)][int(spacing)]),
              "vkCreateGraphicsPipelines");
      }
    }
  }

  void destroy_all() {
    if (device_ != VK_NULL_HANDLE) {
      vkDeviceWaitIdle(device_);
      for (auto& row : pipelines_) {
        for (VkPipeline p : row) {
          if (p != VK_NULL_HANDLE) vkDestroyPipeline(device_, p, nullptr);
        }
      }
      for (VkShaderModule m : modules_) vkDestroyShaderModule(device_, m, nullptr);
      if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
      if (framebuffer_) vkDestroyFramebuffer(device_, framebuffer_, nullptr);
      if (render_pass_) vkDestroyRenderPass(device_, render_pass_, nullptr);
      if (view_) vkDestroyImageView(device_, view_, nullptr);
      if (image_) vkDestroyImage(device_, image_, nullptr);
      if (memory_) vkFreeMemory(device_, memory_, nullptr);
      if (command_pool_) vkDestroyCommandPool(device_, command_pool_, nullptr);
      vkDestroyDevice(device_, nullptr);
    }
    if (instance_ != VK_NULL_HANDLE) {
      if (messenger_ != VK_NULL_HANDLE) {
        auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy_messenger) destroy_messenger(instance_, messenger_, nullptr);
      }
      vkDestroyInstance(instance_, nullptr);
    }
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
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
    } catch (const VulkanFailure& e) {
      ADD_FAILURE() << e.what();
      return {};
    }
    int mismatches = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      const TessellatedPatch patch = tessellate(c.domain, c.spacing, c.factors);
      const TessCounts closed =
          tess_counts(c.domain, resolve_tess_factors(c.domain, c.spacing, c.factors));
      const uint64_t points = patch.points.size();
      const uint64_t prims = patch.primitive_count();
      const Statistics& s = got[i];
      if (std::getenv("TESSERA_TESS_DUMP")) {
        std::printf("%s: lavapipe tes=%" PRIu64 " clip=%" PRIu64 " clip_prims=%" PRIu64
                    " patches=%" PRIu64 "; tessera points=%" PRIu64 " prims=%" PRIu64 "\n",
                    describe(c).c_str(), s.evaluation_invocations, s.clipping_invocations,
                    s.clipping_primitives, s.control_patches, points, prims);
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
                      << s.clipping_invocations << " primitives, Tessera " << points
                      << " points / " << prims << " primitives"
                      << (patch.culled ? " (culled)" : "");
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
  const float sweep[] = {1.0f,   1.0001f, 1.3f,  1.5f,  1.99f, 2.0f,  2.01f, 2.5f,  3.0f,
                         3.0001f, 4.7f,   5.5f,  6.9999f, 7.99f, 15.0f, 16.2f, 31.01f, 33.3f,
                         62.5f,  63.0f,   63.1f, 63.9f, 64.0f, 0.5f,  0.001f, 65.0f, 1000.0f, kInf};
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
    if (kind == 0) return float(1 + rng() % 64);          // exact integer
    if (kind == 1) return 1.0f;                           // level 1 (inner-level-1 rules)
    if (kind == 2) return 0.05f + unit() * 70.0f;         // anywhere, also above 64
    return 0.5f + unit() * 12.0f;                         // typical
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
