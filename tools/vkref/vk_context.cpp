#include "vkref/vk_context.h"

#include <cstdio>
#include <string>

#include "vkutil/check.h"
#include "vkutil/resources.h"

namespace tessera::vkref {

namespace {

bool has_features(VkPhysicalDevice device, VkFormat format, VkFormatFeatureFlags wanted) {
  VkFormatProperties props{};
  vkGetPhysicalDeviceFormatProperties(device, format, &props);
  return (props.optimalTilingFeatures & wanted) == wanted;
}

// Why `device` cannot run the reference renderer, or an empty string when it can.
std::string why_unusable(VkPhysicalDevice device, const VkPhysicalDeviceProperties& props,
                         const std::string& name_contains) {
  const VkFormatFeatureFlags color_features = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                              VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                              VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                              VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  if (!name_contains.empty() && std::string(props.deviceName).find(name_contains) == std::string::npos) {
    return "name does not match the requested device";
  }
  if (props.apiVersion < VK_API_VERSION_1_1) return "Vulkan 1.1 is required";
  if (!has_features(device, VK_FORMAT_R8G8B8A8_SRGB, color_features)) {
    return "VK_FORMAT_R8G8B8A8_SRGB lacks attachment/linear-sampling/transfer support";
  }
  if (!has_features(device, VK_FORMAT_D32_SFLOAT, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)) {
    return "VK_FORMAT_D32_SFLOAT is not a depth attachment format";
  }
  return "";
}

}  // namespace

VulkanContext::~VulkanContext() {
  if (gpu.device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(gpu.device);
    if (fence != VK_NULL_HANDLE) vkDestroyFence(gpu.device, fence, nullptr);
    if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(gpu.device, command_pool, nullptr);
    vkDestroyDevice(gpu.device, nullptr);
  }
}

void VulkanContext::init(const DeviceOptions& options) {
  options_ = options;
  validation_log_.on_message = [this](bool error, const char* message) {
    const std::string text = std::string("vkref validation ") + (error ? "error" : "warning") + ": " + message;
    if (options_.on_validation_message) {
      options_.on_validation_message(text);
    } else {
      std::fprintf(stderr, "%s\n", text.c_str());
    }
  };
  vkutil::InstanceOptions instance_options;
  instance_options.application_name = "tessera-vkref";
  instance_options.api_version = VK_API_VERSION_1_1;
  instance_options.validation = options.validation;
  instance_options.log = &validation_log_;
  instance_ = vkutil::Instance(instance_options);

  gpu = vkutil::choose_physical_device(instance_.handle(), VK_QUEUE_GRAPHICS_BIT,
                                       [&](VkPhysicalDevice device, const VkPhysicalDeviceProperties& props) {
                                         return why_unusable(device, props, options.device_name_contains);
                                       });
  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props2.pNext = &maintenance3;
  vkGetPhysicalDeviceProperties2(gpu.physical, &props2);
  max_allocation_size = maintenance3.maxMemoryAllocationSize;

  VkPhysicalDeviceFeatures supported{};
  vkGetPhysicalDeviceFeatures(gpu.physical, &supported);
  // No anisotropy, no wide lines. Tessellation (patch meshes) and pipeline statistics (the
  // frame's counters) when the device has them; render() reports what is missing when used.
  enabled_features = VkPhysicalDeviceFeatures{};
  enabled_features.tessellationShader = supported.tessellationShader;
  enabled_features.pipelineStatisticsQuery = supported.pipelineStatisticsQuery;
  vkutil::DeviceRequest request;
  request.features = &enabled_features;
  vkutil::create_device(gpu, request);
  command_pool = vkutil::create_command_pool(gpu, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
  fence = vkutil::create_fence(gpu.device);
}

uint32_t VulkanContext::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                         VkMemoryPropertyFlags preferred) const {
  return vkutil::memory_type(gpu.memory, type_bits, required, preferred);
}

VkCommandBuffer VulkanContext::allocate_command_buffer() {
  return vkutil::allocate_command_buffer(gpu.device, command_pool);
}

double VulkanContext::submit_and_wait(VkCommandBuffer cmd) { return vkutil::submit_and_wait(gpu, cmd, fence); }

}  // namespace tessera::vkref
