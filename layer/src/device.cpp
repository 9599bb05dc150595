// Instance and device setup: the loader's link info, the features and extension the pipeline
// statistics need (enabled without touching the application's structures), per-instance and
// per-device data, and the device's teardown (every pending result read, every frame written).

#include <algorithm>
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "layer_state.h"

namespace tessera::layer {

const Settings& settings() {
  static const Settings s = load_settings();
  return s;
}

Output& output() {
  static Output o(settings());
  return o;
}

namespace {

std::mutex g_instances_mutex;
std::unordered_map<void*, InstanceData*> g_instances;
std::shared_mutex g_devices_mutex;
std::unordered_map<void*, DeviceData*> g_devices;
std::atomic<uint32_t> g_device_count{0};

}  // namespace

InstanceData* get_instance(const void* handle) {
  std::lock_guard lock(g_instances_mutex);
  auto it = g_instances.find(dispatch_key(handle));
  return it == g_instances.end() ? nullptr : it->second;
}

DeviceData* get_device(const void* handle) {
  std::shared_lock lock(g_devices_mutex);
  auto it = g_devices.find(dispatch_key(handle));
  return it == g_devices.end() ? nullptr : it->second;
}

// ---------------------------------------------------------------------------------------------
// Instance

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* pAllocator,
                                              VkInstance* pInstance) {
  // The loader's link info: find it, take the next layer's vkGetInstanceProcAddr, and advance
  // the link for the layer below.
  auto* link = const_cast<VkLayerInstanceCreateInfo*>(
      find_in_chain<VkLayerInstanceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO));
  while (link && link->function != VK_LAYER_LINK_INFO)
    link = const_cast<VkLayerInstanceCreateInfo*>(
        find_in_chain<VkLayerInstanceCreateInfo>(link->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO));
  if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  if (!create) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;

  settings();  // read the settings once, before any device exists
  // Frame capture asks a Vulkan 1.0 application's devices for transformFeedback through
  // VK_KHR_get_physical_device_properties2 (VK_EXT_transform_feedback requires it): added to a
  // copy of the create info, exactly as asked when the driver refuses it.
  bool properties2_ext = false;
  std::vector<const char*> extensions(ci->ppEnabledExtensionNames,
                                      ci->ppEnabledExtensionNames + ci->enabledExtensionCount);
  for (const char* e : extensions)
    properties2_ext |= std::strcmp(e, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) == 0;
  const uint32_t app_api = ci->pApplicationInfo ? ci->pApplicationInfo->apiVersion : VK_API_VERSION_1_0;
  VkResult r = VK_ERROR_INITIALIZATION_FAILED;
  auto* next_info = link->u.pLayerInfo;
  if (capture_on() && VK_API_VERSION_MAJOR(app_api) <= 1 && VK_API_VERSION_MINOR(app_api) < 1 && !properties2_ext) {
    extensions.push_back(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    VkInstanceCreateInfo copy = *ci;
    copy.enabledExtensionCount = uint32_t(extensions.size());
    copy.ppEnabledExtensionNames = extensions.data();
    r = create(&copy, pAllocator, pInstance);
    properties2_ext = r == VK_SUCCESS;
  }
  if (r != VK_SUCCESS) {
    link->u.pLayerInfo = next_info;
    r = create(ci, pAllocator, pInstance);
  }
  if (r != VK_SUCCESS) return r;
  auto* data = new InstanceData;
  data->properties2 = properties2_ext;
  data->instance = *pInstance;
  if (ci->pApplicationInfo && ci->pApplicationInfo->apiVersion) data->api_version = ci->pApplicationInfo->apiVersion;
  if (ci->pApplicationInfo && ci->pApplicationInfo->pApplicationName)
    data->application = ci->pApplicationInfo->pApplicationName;
  if (ci->pApplicationInfo && ci->pApplicationInfo->pEngineName) data->engine = ci->pApplicationInfo->pEngineName;
  for (uint32_t i = 0; i < ci->enabledExtensionCount; ++i)
    data->properties2 |=
        std::strcmp(ci->ppEnabledExtensionNames[i], VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) == 0;
  data->table.load(*pInstance, gipa);
  std::lock_guard lock(g_instances_mutex);
  g_instances[dispatch_key(*pInstance)] = data;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* pAllocator) {
  if (instance == VK_NULL_HANDLE) return;
  InstanceData* data = nullptr;
  {
    std::lock_guard lock(g_instances_mutex);
    auto it = g_instances.find(dispatch_key(instance));
    if (it == g_instances.end()) return;
    data = it->second;
    g_instances.erase(it);
  }
  data->table.DestroyInstance(instance, pAllocator);
  delete data;
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                  const char* pLayerName, uint32_t* pCount,
                                                                  VkExtensionProperties* pProperties) {
  if (pLayerName && std::strcmp(pLayerName, kLayerName) == 0) {
    *pCount = 0;  // the layer adds no extensions
    return VK_SUCCESS;
  }
  InstanceData* inst = get_instance(physicalDevice);
  if (!inst) return VK_ERROR_INITIALIZATION_FAILED;
  return inst->table.EnumerateDeviceExtensionProperties(physicalDevice, pLayerName, pCount, pProperties);
}

// ---------------------------------------------------------------------------------------------
// Device creation: enabling what the queries need without touching the application's structs.

namespace {

size_t known_struct_size(VkStructureType t) {
  switch (t) {
// clang-format off
#define TESSERA_SIZE(type, stype) \
  case stype:                     \
    return sizeof(type);
    // clang-format on
    TESSERA_SIZE(VkLayerDeviceCreateInfo, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO)
    TESSERA_SIZE(VkPhysicalDeviceFeatures2, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
    TESSERA_SIZE(VkPhysicalDeviceVulkan11Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceVulkan12Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceVulkan13Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceHostQueryResetFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceDynamicRenderingFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceSynchronization2Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceTimelineSemaphoreFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceBufferDeviceAddressFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceDescriptorIndexingFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceMultiDrawFeaturesEXT, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT)
    TESSERA_SIZE(VkPhysicalDeviceExtendedDynamicStateFeaturesEXT,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_FEATURES_EXT)
    TESSERA_SIZE(VkPhysicalDeviceExtendedDynamicState2FeaturesEXT,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_2_FEATURES_EXT)
    TESSERA_SIZE(VkPhysicalDeviceMultiviewFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceShaderDrawParametersFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES)
    TESSERA_SIZE(VkPhysicalDevice16BitStorageFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES)
    TESSERA_SIZE(VkPhysicalDevice8BitStorageFeatures, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceScalarBlockLayoutFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceShaderFloat16Int8Features,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceMaintenance4Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceImagelessFramebufferFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceVulkanMemoryModelFeatures,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES)
    TESSERA_SIZE(VkPhysicalDeviceRobustness2FeaturesEXT, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT)
    TESSERA_SIZE(VkDeviceGroupDeviceCreateInfo, VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO)
    TESSERA_SIZE(VkDevicePrivateDataCreateInfo, VK_STRUCTURE_TYPE_DEVICE_PRIVATE_DATA_CREATE_INFO)
    TESSERA_SIZE(VkPhysicalDeviceTransformFeedbackFeaturesEXT,
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT)
#undef TESSERA_SIZE
    default: return 0;
  }
}

// A copy of the front of a pNext chain, up to and including the last structure of interest; the
// rest of the chain is shared with the application. Fails (leaving the chain untouched) when a
// structure of unknown size precedes one of interest.
struct ChainCopy {
  std::vector<std::unique_ptr<unsigned char[]>> nodes;
  const void* head = nullptr;

  bool build(const void* app_head, std::initializer_list<VkStructureType> wanted) {
    head = app_head;
    int last = -1, i = 0;
    for (auto* p = static_cast<const VkBaseInStructure*>(app_head); p; p = p->pNext, ++i)
      if (std::find(wanted.begin(), wanted.end(), p->sType) != wanted.end()) last = i;
    if (last < 0) return true;
    VkBaseOutStructure* prev = nullptr;
    i = 0;
    for (auto* p = static_cast<const VkBaseInStructure*>(app_head); i <= last; p = p->pNext, ++i) {
      const size_t size = known_struct_size(p->sType);
      if (size == 0) {
        nodes.clear();
        head = app_head;
        return false;
      }
      nodes.emplace_back(new unsigned char[size]);
      std::memcpy(nodes.back().get(), p, size);
      auto* copy = reinterpret_cast<VkBaseOutStructure*>(nodes.back().get());
      if (prev)
        prev->pNext = copy;
      else
        head = copy;
      prev = copy;
    }
    return true;
  }

  template <typename T>
  T* find(VkStructureType type) {
    for (auto& n : nodes)
      if (reinterpret_cast<VkBaseOutStructure*>(n.get())->sType == type) return reinterpret_cast<T*>(n.get());
    return nullptr;
  }
};

uint32_t minor_version(uint32_t v) { return VK_API_VERSION_MAJOR(v) * 1000 + VK_API_VERSION_MINOR(v); }

}  // namespace

bool DeviceAllowance::offers(const char* extension) const {
  return std::find(offered.begin(), offered.end(), extension) != offered.end();
}

DeviceAllowance device_allowance(const InstanceData* inst, VkPhysicalDevice physical) {
  DeviceAllowance a;
  VkPhysicalDeviceProperties props{};
  inst->table.GetPhysicalDeviceProperties(physical, &props);
  a.api = std::min(minor_version(inst->api_version), minor_version(props.apiVersion));
  a.feature_chains = a.api >= 1001 || inst->properties2;
  uint32_t n = 0;
  inst->table.EnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  inst->table.EnumerateDeviceExtensionProperties(physical, nullptr, &n, exts.data());
  for (uint32_t i = 0; i < n; ++i) a.offered.emplace_back(exts[i].extensionName);
  return a;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* pAllocator, VkDevice* pDevice) {
  InstanceData* inst = get_instance(physicalDevice);
  auto* link = const_cast<VkLayerDeviceCreateInfo*>(
      find_in_chain<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO));
  while (link && link->function != VK_LAYER_LINK_INFO)
    link = const_cast<VkLayerDeviceCreateInfo*>(
        find_in_chain<VkLayerDeviceCreateInfo>(link->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO));
  if (!inst || !link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(inst->instance, "vkCreateDevice"));
  if (!create || !gdpa) return VK_ERROR_INITIALIZATION_FAILED;
  VkLayerDeviceLink* next_link = link->u.pLayerInfo->pNext;
  link->u.pLayerInfo = next_link;
  // The loader's callback for dispatchable objects the layer makes itself (read-back command
  // buffers).
  PFN_vkSetDeviceLoaderData set_loader_data = nullptr;
  for (auto* cb = find_in_chain<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO); cb;
       cb = find_in_chain<VkLayerDeviceCreateInfo>(cb->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO))
    if (cb->function == VK_LOADER_DATA_CALLBACK) set_loader_data = cb->u.pfnSetDeviceLoaderData;

  // What the device offers and what the application's versions allow.
  VkPhysicalDeviceFeatures supported{};
  inst->table.GetPhysicalDeviceFeatures(physicalDevice, &supported);
  const DeviceAllowance allow = device_allowance(inst, physicalDevice);

  // Plan: pipelineStatisticsQuery, plus host query reset where the application's versions allow
  // it (core 1.2, else VK_EXT_host_query_reset when the instance has
  // VK_KHR_get_physical_device_properties2 or 1.1); without it slots are reset in the recording.
  std::string note;
  bool want = true;
  if (!settings().queries) {
    want = false;
    note = "turned off (setting queries = 0)";
  } else if (!supported.pipelineStatisticsQuery) {
    want = false;
    note = "device lacks pipelineStatisticsQuery";
  }
  const bool core_reset = allow.core(1, 2);
  bool host_reset = want && (core_reset || allow.may_enable(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME));

  VkDeviceCreateInfo modified = *ci;
  ChainCopy chain;
  VkPhysicalDeviceFeatures features{};
  VkPhysicalDeviceHostQueryResetFeatures reset_features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
  std::vector<const char*> extensions;
  bool modified_any = false;
  if (want && !chain.build(ci->pNext, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                       VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES})) {
    // The features struct may lie behind it: keep the chain, and reset in the recording.
    host_reset = false;
    if (!chain.build(ci->pNext, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2})) {
      want = false;
      note = "unknown structure in VkDeviceCreateInfo::pNext ahead of the features to enable";
    }
  }
  if (want) {
    modified.pNext = chain.head;
    // pipelineStatisticsQuery
    if (auto* f2 = chain.find<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)) {
      modified_any |= !f2->features.pipelineStatisticsQuery;
      f2->features.pipelineStatisticsQuery = VK_TRUE;
    } else {
      if (ci->pEnabledFeatures) features = *ci->pEnabledFeatures;
      modified_any |= !features.pipelineStatisticsQuery;
      features.pipelineStatisticsQuery = VK_TRUE;
      modified.pEnabledFeatures = &features;
    }
  }
  if (want && host_reset) {
    // hostQueryReset
    auto* v12 =
        core_reset ? chain.find<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
                   : nullptr;
    auto* hqr =
        chain.find<VkPhysicalDeviceHostQueryResetFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES);
    if (v12) {
      modified_any |= !v12->hostQueryReset;
      v12->hostQueryReset = VK_TRUE;
    } else if (hqr) {
      modified_any |= !hqr->hostQueryReset;
      hqr->hostQueryReset = VK_TRUE;
    } else {
      reset_features.hostQueryReset = VK_TRUE;
      reset_features.pNext = const_cast<void*>(modified.pNext);
      modified.pNext = &reset_features;
      modified_any = true;
    }
    if (!core_reset) {
      extensions.assign(ci->ppEnabledExtensionNames, ci->ppEnabledExtensionNames + ci->enabledExtensionCount);
      bool present = false;
      for (const char* e : extensions) present |= std::strcmp(e, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME) == 0;
      if (!present) {
        extensions.push_back(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
        modified.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
        modified.ppEnabledExtensionNames = extensions.data();
        modified_any = true;
      }
    }
  }

  // Frame capture: transformFeedback on top of what the queries need (capture.h).
  CaptureDevicePlan capture_plan;
  const VkDeviceCreateInfo without_capture = modified;
  const bool capture_modified =
      capture_on() && plan_capture_device(inst, physicalDevice, allow, modified, capture_plan);
  VkResult r = create(physicalDevice, want || capture_modified ? &modified : ci, pAllocator, pDevice);
  if (r != VK_SUCCESS && capture_modified) {
    link->u.pLayerInfo = next_link;
    capture_plan = CaptureDevicePlan{};
    capture_plan.note = "enabling transformFeedback failed";
    r = create(physicalDevice, want ? &without_capture : ci, pAllocator, pDevice);
  }
  if (r != VK_SUCCESS && want && modified_any) {
    // The additions were refused: create the device exactly as asked, without queries.
    link->u.pLayerInfo = next_link;
    want = false;
    note = host_reset ? "enabling pipelineStatisticsQuery/hostQueryReset failed"
                      : "enabling pipelineStatisticsQuery failed";
    host_reset = false;
    r = create(physicalDevice, ci, pAllocator, pDevice);
  }
  if (r != VK_SUCCESS) return r;

  void* mem = pAllocator ? pAllocator->pfnAllocation(pAllocator->pUserData, sizeof(DeviceData), alignof(DeviceData),
                                                     VK_SYSTEM_ALLOCATION_SCOPE_DEVICE)
                         : ::operator new(sizeof(DeviceData), std::nothrow);
  if (!mem) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDevice>(gdpa(*pDevice, "vkDestroyDevice"));
    if (destroy) destroy(*pDevice, pAllocator);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  auto* d = new (mem) DeviceData;
  d->device = *pDevice;
  d->physical = physicalDevice;
  d->instance = inst;
  d->index = g_device_count.fetch_add(1);
  if (pAllocator) {
    d->allocator = *pAllocator;
    d->has_allocator = true;
  }
  d->table.load(*pDevice, gdpa);
  d->set_loader_data = set_loader_data;
  uint32_t nf = 0;
  inst->table.GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &nf, nullptr);
  d->families.resize(nf);
  inst->table.GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &nf, d->families.data());
  if (want && host_reset)
    d->reset_query_pool =
        reinterpret_cast<PFN_vkResetQueryPool>(gdpa(*pDevice, core_reset ? "vkResetQueryPool" : "vkResetQueryPoolEXT"));
  d->queries = want && (d->reset_query_pool || d->table.CmdResetQueryPool) && d->table.CreateQueryPool &&
               d->table.GetQueryPoolResults && d->table.CmdBeginQuery && d->table.CmdEndQuery;
  if (want && !d->queries) note = "query commands unavailable";
  if (d->queries && !d->reset_query_pool)
    note = "reset in the command buffers (host query reset not available at the application's API version)";
  d->query_note = note;
  {
    VkPhysicalDeviceProperties props{};
    inst->table.GetPhysicalDeviceProperties(physicalDevice, &props);
    // Timestamps on graphics and compute queues need timestampComputeAndGraphics; without it a
    // family's timestampValidBits says, which acquire_timer checks.
    d->timestamp_period = props.limits.timestampPeriod;
  }
  d->slabs.reserve(4096);
  Frame first;
  first.index = 0;
  first.start = Clock::now();
  d->frames.push_back(first);
  d->totals.device = d->index;
  d->totals.query_enabled = d->queries;
  if (capture_on()) init_capture_device(d, capture_plan, gdpa);

  std::unique_lock lock(g_devices_mutex);
  g_devices[dispatch_key(*pDevice)] = d;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* pAllocator) {
  if (device == VK_NULL_HANDLE) return;
  DeviceData* d = nullptr;
  {
    std::unique_lock lock(g_devices_mutex);
    auto it = g_devices.find(dispatch_key(device));
    if (it == g_devices.end()) return;
    d = it->second;
    g_devices.erase(it);
  }
  {
    // All work has finished (the application must not destroy a busy device): read every
    // result still pending, close the open frame if it holds work, write everything.
    std::lock_guard lock(d->state_mutex);
    poll_readbacks(d, true);
    harvest_all(d);
    poll_timers(d, true);
    if (d->frames.back().has_work) end_frame(d);
    d->frames.back().ended = true;  // the empty open frame: not written
    const uint64_t frames = d->frames.back().index;
    d->frames.pop_back();
    write_ready_frames(d);
    output().write_summary(d->totals, frames, d->frames_written, d->query_lost, d->query_note, d->cpu_times.summary(),
                           d->gpu_times.summary());
    destroy_query_pools(d);
    destroy_timers(d);
    hud_destroy_device(d);
    destroy_msaa_resources(d);
  }
  if (d->capture) {
    capture_destroy_twins(d);
    destroy_capture_device(d);
  }
  // Command buffers still allocated are freed with the device: out of the lock-free index.
  for (const auto& [handle, state] : d->command_buffers) g_command_buffers.erase(handle);
  PFN_vkDestroyDevice destroy = d->table.DestroyDevice;
  const bool has_allocator = d->has_allocator;
  VkAllocationCallbacks allocator = d->allocator;
  d->~DeviceData();
  if (has_allocator)
    allocator.pfnFree(allocator.pUserData, d);
  else
    ::operator delete(d);
  destroy(device, pAllocator);
}

}  // namespace tessera::layer
