// Dispatch: vkGetInstanceProcAddr / vkGetDeviceProcAddr and the exported loader interface.
// The name -> intercept lookups come from the X-lists of commands.h; every command not listed
// there is returned straight from the next layer and never passes through the layer.

#include <cstring>

#include "layer_state.h"

#define TESSERA_EXPORT extern "C" __attribute__((visibility("default")))

namespace tessera::layer {
namespace {

struct Intercept {
  const char* name;
  PFN_vkVoidFunction fn;
};

#define TESSERA_INTERCEPT_ENTRY(name) \
  {"vk" #name, reinterpret_cast<PFN_vkVoidFunction>(static_cast<PFN_vk##name>(&name))},
// clang-format off
#define TESSERA_SHARED_ENTRY(name, body)                                                                          \
  {"vk" #name, reinterpret_cast<PFN_vkVoidFunction>(static_cast<PFN_vk##name>(                                    \
                   &SharedIntercept<&body, &DeviceTable::name, std::remove_pointer_t<PFN_vk##name>>::call))},
// clang-format on
#define TESSERA_NO_ENTRY(name)

const Intercept kInstanceIntercepts[] = {
    TESSERA_INSTANCE_COMMANDS(TESSERA_INTERCEPT_ENTRY, TESSERA_SHARED_ENTRY, TESSERA_NO_ENTRY)};
const Intercept kDeviceIntercepts[] = {
    TESSERA_DEVICE_COMMANDS(TESSERA_INTERCEPT_ENTRY, TESSERA_SHARED_ENTRY, TESSERA_NO_ENTRY)};

#undef TESSERA_INTERCEPT_ENTRY
#undef TESSERA_SHARED_ENTRY
#undef TESSERA_NO_ENTRY

template <size_t N>
PFN_vkVoidFunction find(const Intercept (&table)[N], const char* name) {
  for (const Intercept& i : table)
    if (std::strcmp(i.name, name) == 0) return i.fn;
  return nullptr;
}

}  // namespace

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  if (!name) return nullptr;
  if (!std::strcmp(name, "vkGetInstanceProcAddr")) return reinterpret_cast<PFN_vkVoidFunction>(GetInstanceProcAddr);
  if (!std::strcmp(name, "vkCreateInstance")) return reinterpret_cast<PFN_vkVoidFunction>(CreateInstance);
  if (instance == VK_NULL_HANDLE) return nullptr;  // other global commands: the loader's business
  InstanceData* inst = get_instance(instance);
  if (!inst) return nullptr;
  if (!std::strcmp(name, "vkGetDeviceProcAddr")) return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  if (PFN_vkVoidFunction mine = find(kInstanceIntercepts, name)) return mine;
  PFN_vkVoidFunction next = inst->table.GetInstanceProcAddr(instance, name);
  if (!next) return nullptr;
  if (PFN_vkVoidFunction mine = find(kDeviceIntercepts, name)) return mine;
  return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  if (!name || device == VK_NULL_HANDLE) return nullptr;
  if (!std::strcmp(name, "vkGetDeviceProcAddr")) return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  DeviceData* d = get_device(device);
  if (!d) return nullptr;
  PFN_vkVoidFunction next = d->table.GetDeviceProcAddr(device, name);
  if (!next) return nullptr;  // not enabled on this device: neither is our intercept
  if (PFN_vkVoidFunction mine = find(kDeviceIntercepts, name)) return mine;
  return next;
}

}  // namespace tessera::layer

// ---------------------------------------------------------------------------------------------
// Exported loader interface (the only symbols the library exports; see tessera_stats.map).

TESSERA_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* p) {
  if (!p || p->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
  if (p->loaderLayerInterfaceVersion > 2) p->loaderLayerInterfaceVersion = 2;
  if (p->loaderLayerInterfaceVersion >= 2) {
    p->pfnGetInstanceProcAddr = tessera::layer::GetInstanceProcAddr;
    p->pfnGetDeviceProcAddr = tessera::layer::GetDeviceProcAddr;
    p->pfnGetPhysicalDeviceProcAddr = nullptr;  // no physical-device commands of our own
  }
  return VK_SUCCESS;
}

TESSERA_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char* name) {
  return tessera::layer::GetInstanceProcAddr(instance, name);
}

TESSERA_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name) {
  return tessera::layer::GetDeviceProcAddr(device, name);
}
