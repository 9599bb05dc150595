#include "vkutil/instance.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "vkutil/check.h"

namespace tessera::vkutil {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT types,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  const bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  if ((types & ~VkDebugUtilsMessageTypeFlagsEXT(VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT)) == 0 && !error) {
    return VK_FALSE;
  }
  auto* log = static_cast<MessageLog*>(user);
  if (log) ++(error ? log->errors : log->warnings);
  const char* text = data && data->pMessage ? data->pMessage : "(no message)";
  if (log && log->on_message) {
    log->on_message(error, text);
  } else {
    std::fprintf(stderr, "validation %s: %s\n", error ? "error" : "warning", text);
  }
  return VK_FALSE;
}

}  // namespace

bool validation_layer_installed() {
  uint32_t count = 0;
  check(vkEnumerateInstanceLayerProperties(&count, nullptr), "vkEnumerateInstanceLayerProperties");
  std::vector<VkLayerProperties> layers(count);
  check(vkEnumerateInstanceLayerProperties(&count, layers.data()), "vkEnumerateInstanceLayerProperties");
  for (const VkLayerProperties& layer : layers) {
    if (std::strcmp(layer.layerName, kValidationLayer) == 0) return true;
  }
  return false;
}

Instance::Instance(const InstanceOptions& options) : allocator_(options.allocator) {
  std::vector<const char*> layers;
  std::vector<const char*> extensions = options.extensions;
  if (options.validation) {
    if (!validation_layer_installed()) {
      throw Error(std::string("validation requested but ") + kValidationLayer +
                  " is not installed (Debian: vulkan-validationlayers)");
    }
    layers.push_back(kValidationLayer);
    const auto named = [](const char* name) { return std::strcmp(name, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0; };
    if (std::none_of(extensions.begin(), extensions.end(), named)) {
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = options.application_name;
  app.applicationVersion = 1;
  app.pEngineName = "tessera";
  app.engineVersion = 1;
  app.apiVersion = options.api_version;

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &on_debug_message;
  messenger_info.pUserData = options.log;

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  // Chained, the messenger also reports during vkCreateInstance and vkDestroyInstance.
  if (options.validation) info.pNext = &messenger_info;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  const VkResult result = vkCreateInstance(&info, allocator_, &instance_);
  if (result != VK_SUCCESS) instance_ = VK_NULL_HANDLE;
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    throw DeviceUnavailable(
        "no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); install a driver such as "
        "lavapipe (mesa-vulkan-drivers) or check VK_DRIVER_FILES / VK_ICD_FILENAMES");
  }
  check(result, "vkCreateInstance");

  if (options.validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    const VkResult created =
        create ? create(instance_, &messenger_info, allocator_, &messenger_) : VK_ERROR_EXTENSION_NOT_PRESENT;
    if (created != VK_SUCCESS) {
      messenger_ = VK_NULL_HANDLE;
      destroy();
      check(created, "vkCreateDebugUtilsMessengerEXT");
    }
  }
}

Instance::Instance(Instance&& other) noexcept
    : instance_(std::exchange(other.instance_, VK_NULL_HANDLE)),
      messenger_(std::exchange(other.messenger_, VK_NULL_HANDLE)),
      allocator_(other.allocator_) {}

Instance& Instance::operator=(Instance&& other) noexcept {
  if (this != &other) {
    destroy();
    instance_ = std::exchange(other.instance_, VK_NULL_HANDLE);
    messenger_ = std::exchange(other.messenger_, VK_NULL_HANDLE);
    allocator_ = other.allocator_;
  }
  return *this;
}

void Instance::destroy() {
  if (instance_ == VK_NULL_HANDLE) return;
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy_messenger) destroy_messenger(instance_, messenger_, allocator_);
    messenger_ = VK_NULL_HANDLE;
  }
  vkDestroyInstance(instance_, allocator_);
  instance_ = VK_NULL_HANDLE;
}

}  // namespace tessera::vkutil
