#include "vkref/vk_context.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tessera/error.h"

namespace tessera::vkref {

std::string vk_result_name(VkResult result) {
  switch (result) {
#define TESSERA_VK_RESULT(name) \
  case name:                    \
    return #name;
    TESSERA_VK_RESULT(VK_SUCCESS)
    TESSERA_VK_RESULT(VK_NOT_READY)
    TESSERA_VK_RESULT(VK_TIMEOUT)
    TESSERA_VK_RESULT(VK_INCOMPLETE)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    TESSERA_VK_RESULT(VK_ERROR_DEVICE_LOST)
    TESSERA_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    TESSERA_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    TESSERA_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    TESSERA_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TESSERA_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_UNKNOWN)
#undef TESSERA_VK_RESULT
    default:
      return "VkResult(" + std::to_string(int(result)) + ")";
  }
}

void check_vk(VkResult result, const char* call) {
  if (result != VK_SUCCESS) {
    throw Error(std::string("vkref: ") + call + " failed: " + vk_result_name(result));
  }
}

VulkanContext::~VulkanContext() {
  if (device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device);
    if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
    if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, command_pool, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (instance != VK_NULL_HANDLE) {
    if (messenger_ != VK_NULL_HANDLE) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
      if (destroy) destroy(instance, messenger_, nullptr);
    }
    vkDestroyInstance(instance, nullptr);
  }
}

void VulkanContext::init(const ContextOptions& options) {
  options_ = options;
  create_instance();
  pick_physical_device();
  create_device();
}

VKAPI_ATTR VkBool32 VKAPI_CALL VulkanContext::debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  // General warnings are the loader's notes (e.g. layers added by VK_INSTANCE_LAYERS), not
  // findings about this renderer's API use.
  if ((types & ~VkDebugUtilsMessageTypeFlagsEXT(VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT)) ==
          0 &&
      !(severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
    return VK_FALSE;
  }
  const auto* self = static_cast<const VulkanContext*>(user);
  const char* level =
      (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
  std::string text = std::string("vkref validation ") + level + ": " +
                     (data && data->pMessage ? data->pMessage : "(no message)");
  if (self && self->options_.on_validation_message) {
    self->options_.on_validation_message(text);
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  return VK_FALSE;
}

void VulkanContext::create_instance() {
  constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (options_.validation) {
    uint32_t count = 0;
    check_vk(vkEnumerateInstanceLayerProperties(&count, nullptr),
             "vkEnumerateInstanceLayerProperties");
    std::vector<VkLayerProperties> available(count);
    check_vk(vkEnumerateInstanceLayerProperties(&count, available.data()),
             "vkEnumerateInstanceLayerProperties");
    bool found = false;
    for (const VkLayerProperties& layer : available) {
      found = found || std::strcmp(layer.layerName, kValidationLayer) == 0;
    }
    if (!found) {
      throw Error(std::string("vkref: validation requested but ") + kValidationLayer +
                  " is not installed (Debian: vulkan-validationlayers)");
    }
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tessera-vkref";
  app.applicationVersion = 1;
  app.pEngineName = "tessera";
  app.engineVersion = 1;
  app.apiVersion = VK_API_VERSION_1_1;

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &VulkanContext::debug_callback;
  messenger_info.pUserData = this;

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (options_.validation) info.pNext = &messenger_info;

  const VkResult result = vkCreateInstance(&info, nullptr, &instance);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    instance = VK_NULL_HANDLE;
    throw Error(
        "vkref: no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); install "
        "a driver such as lavapipe (mesa-vulkan-drivers) or check VK_DRIVER_FILES / "
        "VK_ICD_FILENAMES");
  }
  if (result != VK_SUCCESS) instance = VK_NULL_HANDLE;
  check_vk(result, "vkCreateInstance");

  if (options_.validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    if (!create) throw Error("vkref: vkCreateDebugUtilsMessengerEXT is not available");
    check_vk(create(instance, &messenger_info, nullptr, &messenger_),
             "vkCreateDebugUtilsMessengerEXT");
  }
}

namespace {

bool has_features(VkPhysicalDevice device, VkFormat format, VkFormatFeatureFlags wanted) {
  VkFormatProperties props{};
  vkGetPhysicalDeviceFormatProperties(device, format, &props);
  return (props.optimalTilingFeatures & wanted) == wanted;
}

}  // namespace

void VulkanContext::pick_physical_device() {
  uint32_t count = 0;
  const VkResult result = vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (result == VK_ERROR_INITIALIZATION_FAILED) {
    throw Error(
        "vkref: vkEnumeratePhysicalDevices failed: VK_ERROR_INITIALIZATION_FAILED (the installed "
        "Vulkan drivers found no device; select one with VK_DRIVER_FILES / VK_ICD_FILENAMES, "
        "e.g. lavapipe's lvp_icd.*.json)");
  }
  check_vk(result, "vkEnumeratePhysicalDevices");
  if (count == 0) {
    throw Error(
        "vkref: no Vulkan physical device found; install a driver such as lavapipe "
        "(mesa-vulkan-drivers) or check VK_DRIVER_FILES / VK_ICD_FILENAMES");
  }
  std::vector<VkPhysicalDevice> devices(count);
  check_vk(vkEnumeratePhysicalDevices(instance, &count, devices.data()),
           "vkEnumeratePhysicalDevices");

  const VkFormatFeatureFlags color_features =
      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
      VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  std::string rejected;
  for (VkPhysicalDevice candidate : devices) {
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(candidate, &props);
    const std::string name = props.deviceName;
    auto reject = [&](const char* why) { rejected += "\n  " + name + ": " + why; };
    if (!options_.device_name_contains.empty() &&
        name.find(options_.device_name_contains) == std::string::npos) {
      reject("name does not match the requested device");
      continue;
    }
    if (props.apiVersion < VK_API_VERSION_1_1) {
      reject("Vulkan 1.1 is required");
      continue;
    }
    if (!has_features(candidate, VK_FORMAT_R8G8B8A8_SRGB, color_features)) {
      reject("VK_FORMAT_R8G8B8A8_SRGB lacks attachment/linear-sampling/transfer support");
      continue;
    }
    if (!has_features(candidate, VK_FORMAT_D32_SFLOAT,
                      VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)) {
      reject("VK_FORMAT_D32_SFLOAT is not a depth attachment format");
      continue;
    }
    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, families.data());
    uint32_t family = UINT32_MAX;
    for (uint32_t i = 0; i < family_count; ++i) {
      if (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
        family = i;
        break;
      }
    }
    if (family == UINT32_MAX) {
      reject("no graphics queue");
      continue;
    }
    physical_device = candidate;
    queue_family = family;
    properties = props;
    vkGetPhysicalDeviceMemoryProperties(candidate, &memory_properties);
    VkPhysicalDeviceMaintenance3Properties maintenance3{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &maintenance3;
    vkGetPhysicalDeviceProperties2(candidate, &props2);
    max_allocation_size = maintenance3.maxMemoryAllocationSize;
    return;
  }
  throw Error("vkref: no usable Vulkan device among " + std::to_string(count) + ":" + rejected);
}

void VulkanContext::create_device() {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  VkPhysicalDeviceFeatures supported{};
  vkGetPhysicalDeviceFeatures(physical_device, &supported);
  // No anisotropy, no wide lines. Tessellation (patch meshes) and pipeline statistics (the
  // frame's counters) when the device has them; render() reports what is missing when used.
  enabled_features = VkPhysicalDeviceFeatures{};
  enabled_features.tessellationShader = supported.tessellationShader;
  enabled_features.pipelineStatisticsQuery = supported.pipelineStatisticsQuery;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.pEnabledFeatures = &enabled_features;
  check_vk(vkCreateDevice(physical_device, &info, nullptr, &device), "vkCreateDevice");
  vkGetDeviceQueue(device, queue_family, 0, &queue);

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = queue_family;
  check_vk(vkCreateCommandPool(device, &pool_info, nullptr, &command_pool), "vkCreateCommandPool");

  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check_vk(vkCreateFence(device, &fence_info, nullptr, &fence), "vkCreateFence");
}

uint32_t VulkanContext::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                         VkMemoryPropertyFlags preferred) const {
  const VkMemoryPropertyFlags wanted[2] = {required | preferred, required};
  for (VkMemoryPropertyFlags flags : wanted) {
    for (uint32_t i = 0; i < memory_properties.memoryTypeCount; ++i) {
      if ((type_bits & (1u << i)) &&
          (memory_properties.memoryTypes[i].propertyFlags & flags) == flags) {
        return i;
      }
    }
  }
  throw Error("vkref: no memory type with property flags " + std::to_string(required) +
              " for type bits " + std::to_string(type_bits));
}

VkCommandBuffer VulkanContext::allocate_command_buffer() {
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = command_pool;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  check_vk(vkAllocateCommandBuffers(device, &info, &cmd), "vkAllocateCommandBuffers");
  return cmd;
}

double VulkanContext::submit_and_wait(VkCommandBuffer cmd) {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  const auto start = std::chrono::steady_clock::now();
  check_vk(vkQueueSubmit(queue, 1, &submit, fence), "vkQueueSubmit");
  check_vk(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  const auto end = std::chrono::steady_clock::now();
  check_vk(vkResetFences(device, 1, &fence), "vkResetFences");
  return std::chrono::duration<double, std::milli>(end - start).count();
}

}  // namespace tessera::vkref
