// Frame capture, device side: the frame list, transformFeedback enabled on a copy of the
// device create info, shader modules remembered, the last pre-rasterization stage of every
// graphics pipeline patched (spirv_patch.h) with the original kept when that fails, the
// pipelines' fixed-function state, and attachment images made copyable.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "layer_state.h"
#include "spirv_patch.h"

namespace tessera::layer {

bool capture_on() { return settings().capture.on; }

bool parse_capture_frames(const std::string& text, CaptureFrames& out) {
  auto number = [](const std::string& s, uint64_t& v) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18) return false;
    v = std::strtoull(s.c_str(), nullptr, 10);
    return true;
  };
  CaptureFrames f;
  if (text == "off" || text == "none") {
    out = f;
    return true;
  }
  f.on = true;
  if (text.rfind("every:", 0) == 0) {
    if (!number(text.substr(6), f.every) || f.every == 0) return false;
  } else if (size_t dash = text.find('-'); dash != std::string::npos) {
    if (!number(text.substr(0, dash), f.first) || !number(text.substr(dash + 1), f.last) || f.last < f.first)
      return false;
  } else {
    if (!number(text, f.first)) return false;
    f.last = f.first;
  }
  out = f;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Device creation

bool plan_capture_device(InstanceData* inst, VkPhysicalDevice physical, const DeviceAllowance& allow,
                         VkDeviceCreateInfo& modified, CaptureDevicePlan& plan) {
  plan = CaptureDevicePlan{};
  if (!settings().capture_xfb) {
    plan.note = "transform feedback turned off (setting capture_transform_feedback = 0)";
    return false;
  }
  // vkGetPhysicalDeviceFeatures2 is core 1.1; a Vulkan 1.0 application has the KHR form only when
  // VK_KHR_get_physical_device_properties2 is enabled (CreateInstance adds it for capture).
  // (device.cpp's DeviceAllowance says what the application's versions allow.)
  PFN_vkGetPhysicalDeviceFeatures2 features2 =
      allow.core(1, 1) ? inst->table.GetPhysicalDeviceFeatures2 : inst->table.GetPhysicalDeviceFeatures2KHR;
  if (!allow.feature_chains || !features2) {
    plan.note = "Vulkan 1.0 without VK_KHR_get_physical_device_properties2: transformFeedback cannot be asked for";
    return false;
  }
  if (!allow.may_enable(VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME)) {
    plan.note = "device lacks VK_EXT_transform_feedback";
    return false;
  }
  VkPhysicalDeviceTransformFeedbackFeaturesEXT q{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &q;
  features2(physical, &f2);
  if (!q.transformFeedback) {
    plan.note = "device lacks transformFeedback";
    return false;
  }
  bool changed = false;
  if (auto* app = find_in_chain<VkPhysicalDeviceTransformFeedbackFeaturesEXT>(
          modified.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT)) {
    if (!app->transformFeedback) {  // the application's own structure: never written
      plan.note = "the application's VkPhysicalDeviceTransformFeedbackFeaturesEXT turns transformFeedback off";
      return false;
    }
  } else {
    plan.features.transformFeedback = VK_TRUE;
    plan.features.pNext = const_cast<void*>(modified.pNext);
    modified.pNext = &plan.features;
    changed = true;
  }
  plan.extensions.assign(modified.ppEnabledExtensionNames,
                         modified.ppEnabledExtensionNames + modified.enabledExtensionCount);
  bool present = false;
  for (const char* e : plan.extensions) present |= std::strcmp(e, VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME) == 0;
  if (!present) {
    plan.extensions.push_back(VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME);
    modified.enabledExtensionCount = uint32_t(plan.extensions.size());
    modified.ppEnabledExtensionNames = plan.extensions.data();
    changed = true;
  }
  plan.xfb = true;
  return changed;
}

void init_capture_device(DeviceData* d, const CaptureDevicePlan& plan, PFN_vkGetDeviceProcAddr gdpa) {
  auto c = std::make_unique<CaptureDevice>();
  c->xfb = plan.xfb;
  c->note = plan.note;
  const InstanceTable& it = d->instance->table;
  it.GetPhysicalDeviceMemoryProperties(d->physical, &c->memory);
  VkPhysicalDeviceProperties props{};
  it.GetPhysicalDeviceProperties(d->physical, &props);
  c->api_version = std::min(d->instance->api_version, props.apiVersion);
  if (c->xfb) {
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &c->xfb_props;
    const bool core = !(VK_API_VERSION_MAJOR(c->api_version) <= 1 && VK_API_VERSION_MINOR(c->api_version) < 1);
    PFN_vkGetPhysicalDeviceProperties2 properties2 =
        core ? it.GetPhysicalDeviceProperties2 : it.GetPhysicalDeviceProperties2KHR;
    if (properties2) properties2(d->physical, &p2);
    auto load = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(gdpa(d->device, name));
    };
    load(c->bind_xfb, "vkCmdBindTransformFeedbackBuffersEXT");
    load(c->begin_xfb, "vkCmdBeginTransformFeedbackEXT");
    load(c->end_xfb, "vkCmdEndTransformFeedbackEXT");
    load(c->begin_query, "vkCmdBeginQueryIndexedEXT");
    load(c->end_query, "vkCmdEndQueryIndexedEXT");
    if (!c->bind_xfb || !c->begin_xfb || !c->end_xfb || !c->begin_query || !c->end_query ||
        !d->table.CmdResetQueryPool || !d->table.GetQueryPoolResults) {
      c->xfb = false;
      c->note = "transform feedback commands unavailable";
    } else if (!c->xfb_props.transformFeedbackQueries || c->xfb_props.maxTransformFeedbackBuffers < 2) {
      c->xfb = false;
      c->note = "device lacks transformFeedbackQueries or two transform feedback buffers";
    }
  }
  capture::Capture& h = c->header;
  h.application = d->instance->application;
  h.engine = d->instance->engine;
  h.api_version = d->instance->api_version;
  h.device = props.deviceName;
  h.vendor_id = props.vendorID;
  h.device_id = props.deviceID;
  h.driver_version = props.driverVersion;
  h.driver = "driver version " + std::to_string(props.driverVersion);
  // The driver's name and version text (Vulkan 1.2's VkPhysicalDeviceDriverProperties): capture
  // info decodes driverVersion by vendor, and Mesa's Intel driver differs from Intel's Windows
  // driver only by name. Asked only where the application's versions make it valid.
  const bool v12 = VK_API_VERSION_MAJOR(c->api_version) > 1 || VK_API_VERSION_MINOR(c->api_version) >= 2;
  if (v12 && it.GetPhysicalDeviceProperties2) {
    VkPhysicalDeviceDriverProperties dp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &dp};
    it.GetPhysicalDeviceProperties2(d->physical, &p2);
    dp.driverName[VK_MAX_DRIVER_NAME_SIZE - 1] = 0;
    dp.driverInfo[VK_MAX_DRIVER_INFO_SIZE - 1] = 0;
    std::string text = dp.driverName;
    if (dp.driverInfo[0]) text += std::string(text.empty() ? "" : " ") + dp.driverInfo;
    if (!text.empty()) h.driver = text;
  }
  h.layer_version = std::string(kLayerName) + " " + std::to_string(VK_API_VERSION_MAJOR(VK_HEADER_VERSION_COMPLETE)) +
                    "." + std::to_string(VK_API_VERSION_MINOR(VK_HEADER_VERSION_COMPLETE)) + "." +
                    std::to_string(VK_HEADER_VERSION);
  if (!c->xfb)
    std::fprintf(stderr, "VK_LAYER_TESSERA_stats: capture on device %u (%s) records no geometry: %s\n", d->index,
                 props.deviceName, c->note.c_str());
  d->capture = std::move(c);
}

// ---------------------------------------------------------------------------------------------
// Shader modules and pipelines

VKAPI_ATTR VkResult VKAPI_CALL CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo* ci,
                                                  const VkAllocationCallbacks* pAllocator, VkShaderModule* module) {
  DeviceData* d = get_device(device);
  VkResult r = d->table.CreateShaderModule(device, ci, pAllocator, module);
  if (r == VK_SUCCESS && d->capture) {
    auto words = std::make_shared<const std::vector<uint32_t>>(ci->pCode, ci->pCode + ci->codeSize / 4);
    std::lock_guard lock(d->capture->mutex);
    d->capture->modules[*module] = std::move(words);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyShaderModule(VkDevice device, VkShaderModule module,
                                               const VkAllocationCallbacks* pAllocator) {
  DeviceData* d = get_device(device);
  if (d->capture) {
    std::lock_guard lock(d->capture->mutex);
    d->capture->modules.erase(module);
  }
  d->table.DestroyShaderModule(device, module, pAllocator);
}

namespace {

bool stage_of(VkShaderStageFlagBits s, capture::ShaderStage& out) {
  switch (s) {
    case VK_SHADER_STAGE_VERTEX_BIT: out = capture::ShaderStage::vertex; return true;
    case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: out = capture::ShaderStage::tessellation_control; return true;
    case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT: out = capture::ShaderStage::tessellation_evaluation; return true;
    case VK_SHADER_STAGE_GEOMETRY_BIT: out = capture::ShaderStage::geometry; return true;
    case VK_SHADER_STAGE_FRAGMENT_BIT: out = capture::ShaderStage::fragment; return true;
    default: return false;
  }
}

// The fixed-function state of a pipeline as the units take it (the draw's dynamic state is
// applied at record time).
void read_state(const VkGraphicsPipelineCreateInfo& ci, CapturePipeline& p) {
  capture::DrawState& s = p.state;
  s.raster.topology = Topology::triangle_list;  // transform feedback emits separate triangles
  if (ci.pInputAssemblyState) {
    s.application_topology = ci.pInputAssemblyState->topology;
    s.primitive_restart = ci.pInputAssemblyState->primitiveRestartEnable;
  }
  if (const auto* r = ci.pRasterizationState) {
    s.raster.cull = CullMode(r->cullMode & 3);
    s.raster.front_face = r->frontFace == VK_FRONT_FACE_CLOCKWISE ? FrontFace::clockwise : FrontFace::counter_clockwise;
    s.polygon_mode = r->polygonMode;
    s.depth_clamp = r->depthClampEnable;
    s.depth_bias = r->depthBiasEnable;
    s.depth_bias_constant = r->depthBiasConstantFactor;
    s.depth_bias_clamp = r->depthBiasClamp;
    s.depth_bias_slope = r->depthBiasSlopeFactor;
  }
  s.raster.depth.test = s.raster.depth.write = false;
  if (const auto* ds = ci.pDepthStencilState) {
    s.raster.depth.test = ds->depthTestEnable;
    s.raster.depth.write = ds->depthWriteEnable;
    s.raster.depth.compare = CompareOp(std::min<uint32_t>(ds->depthCompareOp, 7));
  }
  bool dyn_vp = false, dyn_sc = false;
  if (ci.pDynamicState)
    for (uint32_t i = 0; i < ci.pDynamicState->dynamicStateCount; ++i) {
      // The EXT enumerants of extended dynamic state have the core values.
      const VkDynamicState ds = ci.pDynamicState->pDynamicStates[i];
      dyn_vp |= ds == VK_DYNAMIC_STATE_VIEWPORT || ds == VK_DYNAMIC_STATE_VIEWPORT_WITH_COUNT;
      dyn_sc |= ds == VK_DYNAMIC_STATE_SCISSOR || ds == VK_DYNAMIC_STATE_SCISSOR_WITH_COUNT;
      p.dynamic_cull |= ds == VK_DYNAMIC_STATE_CULL_MODE;
      p.dynamic_front_face |= ds == VK_DYNAMIC_STATE_FRONT_FACE;
      p.dynamic_topology |= ds == VK_DYNAMIC_STATE_PRIMITIVE_TOPOLOGY;
      p.dynamic_depth_test |= ds == VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE;
      p.dynamic_depth_write |= ds == VK_DYNAMIC_STATE_DEPTH_WRITE_ENABLE;
      p.dynamic_depth_compare |= ds == VK_DYNAMIC_STATE_DEPTH_COMPARE_OP;
    }
  p.dynamic_viewport = dyn_vp;
  p.dynamic_scissor = dyn_sc;
  if (const auto* vp = ci.pViewportState) {
    if (!dyn_vp && vp->pViewports)
      for (uint32_t i = 0; i < vp->viewportCount; ++i) {
        const VkViewport& v = vp->pViewports[i];
        s.viewports.push_back({v.x, v.y, v.width, v.height, v.minDepth, v.maxDepth});
      }
    if (!dyn_sc && vp->pScissors)
      for (uint32_t i = 0; i < vp->scissorCount; ++i) {
        const VkRect2D& r = vp->pScissors[i];
        s.scissors.push_back({r.offset.x, r.offset.y, r.extent.width, r.extent.height});
      }
  }
  if (!s.viewports.empty()) s.raster.viewport = s.viewports[0];
  if (!s.scissors.empty()) s.raster.scissor = s.scissors[0];
  if (const auto* ms = ci.pMultisampleState) {
    s.raster.samples = int(ms->rasterizationSamples);
    if (ms->pSampleMask) s.sample_mask = ms->pSampleMask[0];
  }
  if (const auto* cb = ci.pColorBlendState; cb && cb->pAttachments)
    for (uint32_t i = 0; i < cb->attachmentCount; ++i)
      s.blend.push_back({bool(cb->pAttachments[i].blendEnable), uint8_t(cb->pAttachments[i].colorWriteMask & 0xF)});
}

}  // namespace

VkResult capture_create_graphics_pipelines(DeviceData* d, VkDevice device, VkPipelineCache cache, uint32_t count,
                                           const VkGraphicsPipelineCreateInfo* infos,
                                           const VkAllocationCallbacks* pAllocator, VkPipeline* pipelines) {
  CaptureDevice& c = *d->capture;
  std::vector<CapturePipeline> notes(count);
  std::vector<VkGraphicsPipelineCreateInfo> copies(infos, infos + count);
  std::vector<std::vector<VkPipelineShaderStageCreateInfo>> stages(count);
  std::vector<VkShaderModule> temporary;
  bool any_patched = false;
  for (uint32_t i = 0; i < count; ++i) {
    const VkGraphicsPipelineCreateInfo& ci = infos[i];
    CapturePipeline& p = notes[i];
    read_state(ci, p);
    int last = -1;  // the last pre-rasterization stage
    int rank = -1;
    for (uint32_t s = 0; s < ci.stageCount; ++s) {
      const VkPipelineShaderStageCreateInfo& st = ci.pStages[s];
      if (st.stage & (VK_SHADER_STAGE_MESH_BIT_EXT | VK_SHADER_STAGE_TASK_BIT_EXT)) p.mesh = true;
      p.tessellation |= (st.stage & VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT) != 0;
      p.geometry |= (st.stage & VK_SHADER_STAGE_GEOMETRY_BIT) != 0;
      const int r = st.stage == VK_SHADER_STAGE_VERTEX_BIT                    ? 0
                    : st.stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT ? 1
                    : st.stage == VK_SHADER_STAGE_GEOMETRY_BIT                ? 2
                                                                              : -1;
      if (r > rank) {
        rank = r;
        last = int(s);
      }
      capture::ShaderInfo info;
      if (!stage_of(st.stage, info.stage)) continue;
      info.entry_point = st.pName ? st.pName : "";
      std::shared_ptr<const std::vector<uint32_t>> words;
      {
        std::lock_guard lock(c.mutex);
        auto it = c.modules.find(st.module);
        if (it != c.modules.end()) words = it->second;
      }
      if (words) {
        info.instructions = entry_instruction_count(*words, info.entry_point);
        info.module_hash = module_hash(words->data(), words->size());
      }
      p.shaders.push_back(info);
    }
    if (p.mesh) {
      p.skip_reason = "mesh_shader";
      continue;
    }
    if (!c.xfb) {
      p.skip_reason = "no_transform_feedback";
      continue;
    }
    // Graphics pipeline libraries (VK_EXT_graphics_pipeline_library): a library, or a pipeline
    // linked from libraries, has no twin (its stages were compiled into the libraries, which
    // would need patched twins of their own, linked into a twin): its draws say so.
    const auto* linked =
        find_in_chain<VkPipelineLibraryCreateInfoKHR>(ci.pNext, VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR);
    if ((ci.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) || (linked && linked->libraryCount > 0)) {
      p.skip_reason = "pipeline_library";
      continue;
    }
    if (last < 0) {
      p.skip_reason = "patch_failed";
      continue;
    }
    const VkPipelineShaderStageCreateInfo& st = ci.pStages[last];
    std::shared_ptr<const std::vector<uint32_t>> words;
    {
      std::lock_guard lock(c.mutex);
      auto it = c.modules.find(st.module);
      if (it != c.modules.end()) words = it->second;
    }
    const PreRasterStage stage = rank == 0   ? PreRasterStage::kVertex
                                 : rank == 1 ? PreRasterStage::kTessellationEvaluation
                                             : PreRasterStage::kGeometry;
    SpirvPatch patch;
    if (!words) {
      patch.skip_reason = "patch_failed";  // module given inline (VkShaderModuleCreateInfo in pNext) or unknown
    } else {
      patch = patch_for_capture(*words, st.pName ? st.pName : "main", stage,
                                target_env(c.api_version, words->size() > 1 ? (*words)[1] : 0));
    }
    if (!patch.skip_reason.empty()) {
      p.skip_reason = patch.skip_reason;
      continue;
    }
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = patch.words.size() * 4;
    smci.pCode = patch.words.data();
    VkShaderModule module = VK_NULL_HANDLE;
    if (d->table.CreateShaderModule(device, &smci, d->alloc(), &module) != VK_SUCCESS) {
      p.skip_reason = "patch_failed";
      continue;
    }
    temporary.push_back(module);
    stages[i].assign(ci.pStages, ci.pStages + ci.stageCount);
    stages[i][size_t(last)].module = module;
    copies[i].pStages = stages[i].data();
    p.patched = true;
    p.ids = patch.ids;
    any_patched = true;
    // The vertex stage's extra output gets a matching unused input in the fragment stage.
    for (uint32_t s = 0; p.ids && s < ci.stageCount; ++s) {
      if (ci.pStages[s].stage != VK_SHADER_STAGE_FRAGMENT_BIT) continue;
      std::shared_ptr<const std::vector<uint32_t>> frag;
      {
        std::lock_guard lock(c.mutex);
        auto it = c.modules.find(ci.pStages[s].module);
        if (it != c.modules.end()) frag = it->second;
      }
      if (!frag) break;
      const SpirvPatch fp =
          patch_fragment_input(*frag, ci.pStages[s].pName ? ci.pStages[s].pName : "main", patch.location,
                               target_env(c.api_version, frag->size() > 1 ? (*frag)[1] : 0));
      if (!fp.skip_reason.empty()) break;  // the original: validation may note the unread output
      VkShaderModuleCreateInfo fci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
      fci.codeSize = fp.words.size() * 4;
      fci.pCode = fp.words.data();
      VkShaderModule fm = VK_NULL_HANDLE;
      if (d->table.CreateShaderModule(device, &fci, d->alloc(), &fm) != VK_SUCCESS) break;
      temporary.push_back(fm);
      stages[i][s].module = fm;
    }
  }
  // The twins first, one by one (so the application's own creation runs last and any creation
  // feedback it chained reports its pipeline): not derivatives (the base index is the
  // application's array), and compiled even when the application asked to fail on compilation.
  std::vector<VkPipeline> twins(count, VK_NULL_HANDLE);
  for (uint32_t i = 0; any_patched && i < count; ++i) {
    if (!notes[i].patched) continue;
    VkGraphicsPipelineCreateInfo twin = copies[i];
    twin.flags &= ~VkPipelineCreateFlags(VK_PIPELINE_CREATE_DERIVATIVE_BIT |
                                         VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT |
                                         VK_PIPELINE_CREATE_EARLY_RETURN_ON_FAILURE_BIT);
    twin.basePipelineHandle = VK_NULL_HANDLE;
    twin.basePipelineIndex = -1;
    if (d->table.CreateGraphicsPipelines(device, cache, 1, &twin, d->alloc(), &twins[i]) != VK_SUCCESS) {
      twins[i] = VK_NULL_HANDLE;  // the driver refused the patched pipeline: its draws say patch_failed
      notes[i].patched = false;
      notes[i].skip_reason = "patch_failed";
    }
  }
  for (VkShaderModule m : temporary) d->table.DestroyShaderModule(device, m, d->alloc());
  // The application's pipelines exactly as asked.
  const VkResult r = d->table.CreateGraphicsPipelines(device, cache, count, infos, pAllocator, pipelines);
  std::lock_guard lock(c.mutex);
  for (uint32_t i = 0; i < count; ++i) {
    if (pipelines[i] == VK_NULL_HANDLE) {
      if (twins[i]) d->table.DestroyPipeline(device, twins[i], d->alloc());
      continue;
    }
    notes[i].twin = twins[i];
    if (notes[i].patched)
      ++c.patched;
    else if (c.xfb)
      ++c.patch_failed;  // the summary's "not": every pipeline without a twin, whatever the reason
    c.pipelines[pipelines[i]] = std::make_shared<const CapturePipeline>(std::move(notes[i]));
  }
  return r;
}

void capture_forget_pipeline(DeviceData* d, VkPipeline pipeline) {
  VkPipeline twin = VK_NULL_HANDLE;
  {
    std::lock_guard lock(d->capture->mutex);
    auto it = d->capture->pipelines.find(pipeline);
    if (it != d->capture->pipelines.end()) {
      twin = it->second->twin;
      d->capture->pipelines.erase(it);
    }
    d->capture->budgets.erase(pipeline);
  }
  // The application destroys a pipeline once no pending work uses it: nor its twin then.
  if (twin) d->table.DestroyPipeline(d->device, twin, d->alloc());
}

void capture_destroy_twins(DeviceData* d) {
  std::lock_guard lock(d->capture->mutex);
  for (auto& [handle, p] : d->capture->pipelines)
    if (p->twin) d->table.DestroyPipeline(d->device, p->twin, d->alloc());
  d->capture->pipelines.clear();
}

// ---------------------------------------------------------------------------------------------
// Images

namespace {

// Multisampled attachments the capture reads sample by sample with the compute read-back:
// 8-bit UNORM RGBA colour (what its shader packs exactly) and depth.
bool sample_readable_format(VkFormat f) { return msaa_format(f) || depth_stencil_format(f); }

bool has_lazy_memory(const VkPhysicalDeviceMemoryProperties& mp) {
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT) return true;
  return false;
}

}  // namespace

const VkImageCreateInfo* capture_image_info(DeviceData* d, const VkImageCreateInfo* ci, VkImageCreateInfo& copy) {
  const VkImageUsageFlags attachment =
      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
  if (!(ci->usage & attachment) || ci->imageType != VK_IMAGE_TYPE_2D) return ci;
  if (ci->samples != VK_SAMPLE_COUNT_1_BIT) {
    // Read by a compute shader (copies take single-sample images only): SAMPLED usage. A
    // TRANSIENT attachment may carry attachment usages only, so it is dropped, as the MSAA
    // read-back does, where that leaves the application's memory choice valid (no lazily
    // allocated memory on the device).
    if ((ci->usage & VK_IMAGE_USAGE_SAMPLED_BIT) || ci->samples > VK_SAMPLE_COUNT_8_BIT ||
        ci->tiling != VK_IMAGE_TILING_OPTIMAL || !sample_readable_format(ci->format) ||
        !d->instance->table.GetPhysicalDeviceFormatProperties)
      return ci;
    if ((ci->usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT) && has_lazy_memory(d->capture->memory)) return ci;
    VkFormatProperties fp{};
    d->instance->table.GetPhysicalDeviceFormatProperties(d->physical, ci->format, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) return ci;
    copy = *ci;
    copy.usage = (ci->usage & ~VkImageUsageFlags(VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT)) | VK_IMAGE_USAGE_SAMPLED_BIT;
    return &copy;
  }
  // Transient attachments may carry no other usage.
  if ((ci->usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) || (ci->usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT)) return ci;
  copy = *ci;
  copy.usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  return &copy;
}

void capture_image_created(DeviceData* d, VkImage image, const VkImageCreateInfo& ci, VkImageUsageFlags usage) {
  // Single-sample images are copied out, multisampled ones sampled by the compute read-back.
  const bool readable = ci.samples == VK_SAMPLE_COUNT_1_BIT
                            ? (usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0
                            : (usage & VK_IMAGE_USAGE_SAMPLED_BIT) != 0 && sample_readable_format(ci.format);
  std::lock_guard lock(d->capture->mutex);
  d->capture->images[image] = {ci.format, ci.extent, uint32_t(ci.samples), readable};
}

void capture_forget_image(DeviceData* d, VkImage image) {
  std::lock_guard lock(d->capture->mutex);
  d->capture->images.erase(image);
}

// Swapchains: the intercepts are in objects.cpp (the HUD uses them too) and call these.
VkResult capture_create_swapchain(DeviceData* d, VkDevice device, const VkSwapchainCreateInfoKHR* ci,
                                  const VkAllocationCallbacks* pAllocator, VkSwapchainKHR* swapchain) {
  // The presented image is the frame's colour attachment: copyable in capture (a copy of the
  // create info; exactly as asked when the surface refuses it).
  VkSwapchainCreateInfoKHR copy = *ci;
  copy.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  bool readable = true;
  VkResult r = d->table.CreateSwapchainKHR(device, &copy, pAllocator, swapchain);
  if (r != VK_SUCCESS && !(ci->imageUsage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT)) {
    readable = false;
    r = d->table.CreateSwapchainKHR(device, ci, pAllocator, swapchain);
  }
  if (r == VK_SUCCESS) {
    std::lock_guard lock(d->capture->mutex);
    d->capture->swapchains[*swapchain] = {
        ci->imageFormat, {ci->imageExtent.width, ci->imageExtent.height, 1}, 1, readable};
  }
  return r;
}

void capture_swapchain_images(DeviceData* d, VkSwapchainKHR swapchain, uint32_t count, const VkImage* images) {
  std::lock_guard lock(d->capture->mutex);
  auto it = d->capture->swapchains.find(swapchain);
  if (it != d->capture->swapchains.end())
    for (uint32_t i = 0; i < count; ++i) d->capture->images[images[i]] = it->second;
}

void capture_destroy_swapchain(DeviceData* d, VkSwapchainKHR swapchain) {
  std::lock_guard lock(d->capture->mutex);
  d->capture->swapchains.erase(swapchain);
}

}  // namespace tessera::layer
