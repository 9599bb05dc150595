// A Vulkan instance, with VK_LAYER_KHRONOS_validation and a debug messenger that counts what
// the layer reports when asked for.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <functional>
#include <vector>

namespace tessera::vkutil {

// Whether VK_LAYER_KHRONOS_validation is installed.
bool validation_layer_installed();

// What a validation messenger reported: warnings and errors about the program's API use,
// counted. The loader's general warnings (notes such as layers added by VK_INSTANCE_LAYERS)
// are not findings and are left out.
struct MessageLog {
  // Called for each counted message (from any thread the driver calls back on); when empty the
  // message goes to stderr as "validation warning: ..." or "validation error: ...".
  std::function<void(bool error, const char* message)> on_message;
  std::atomic<int> warnings{0};
  std::atomic<int> errors{0};
};

struct InstanceOptions {
  const char* application_name = "tessera";
  uint32_t api_version = VK_API_VERSION_1_1;
  // Enables VK_LAYER_KHRONOS_validation (throws when it is not installed) with a messenger
  // reporting into *log, which must outlive the instance (no log: stderr, uncounted). The
  // messenger also sees instance creation and destruction, where leaked objects are reported.
  bool validation = false;
  MessageLog* log = nullptr;
  std::vector<const char*> extensions;               // instance extensions besides the validation's
  const VkAllocationCallbacks* allocator = nullptr;  // for the instance and its messenger
};

class Instance {
 public:
  Instance() = default;
  // Throws DeviceUnavailable when there is no Vulkan driver, tessera::Error on other failures.
  explicit Instance(const InstanceOptions& options);
  ~Instance() { destroy(); }
  Instance(Instance&& other) noexcept;
  Instance& operator=(Instance&& other) noexcept;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  // Destroys the messenger, then the instance (its devices must be gone already). Idempotent.
  void destroy();
  VkInstance handle() const { return instance_; }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  const VkAllocationCallbacks* allocator_ = nullptr;
};

}  // namespace tessera::vkutil
