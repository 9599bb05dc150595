// What the layer's two test applications (layer_app.cpp, layer_units_app.cpp) share on top of
// tools/vkutil: failure accounting, the Vulkan result check, their colour targets, shaders and
// compute pipelines.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "vkutil/check.h"
#include "vkutil/device.h"
#include "vkutil/instance.h"
#include "vkutil/resources.h"

namespace layer_test {

namespace vkutil = tessera::vkutil;

// A failed call throws tessera::Error naming the call and its VkResult; see run_main().
#define CHECK_VK(expr) ::tessera::vkutil::check((expr), #expr)

// The application's main: a failed Vulkan call ends it with status 2 (could not run), apart
// from the status 1 of checks that failed.
inline int run_main(int (*run)(int argc, char** argv), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
}

inline int g_failures = 0;  // checks that failed; the application's exit status depends on it

inline void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++g_failures;
  }
}

inline void expect_eq(const std::string& what, uint64_t got, uint64_t want) {
  if (got != want) {
    std::fprintf(stderr, "MISMATCH %s: got %llu, want %llu\n", what.c_str(), (unsigned long long)got,
                 (unsigned long long)want);
    ++g_failures;
  }
}

// Validation messages of --validation runs (tools/vkutil's messenger): printed to stderr and
// counted.
inline vkutil::MessageLog g_validation;

inline void expect_no_validation_errors() {
  std::printf("validation errors: %d\n", g_validation.errors.load());
  expect(g_validation.errors.load() == 0, "no validation errors");
}

// Colour targets of both applications: small, RGBA8 UNORM (the layer's MSAA read-back reads it).
constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr uint32_t kSize = 64;

using Image = vkutil::Image;

// A kSize x kSize colour attachment of kFormat with `samples` samples, its memory and view.
inline Image make_image(const vkutil::Device& g, VkSampleCountFlagBits samples) {
  return vkutil::create_image(
      g, {kSize, kSize, 1, kFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT, samples});
}

inline void destroy_image(const vkutil::Device& g, Image& im) { vkutil::destroy_image(g.device, im); }

inline VkShaderModule make_shader(const vkutil::Device& g, std::span<const uint32_t> spirv) {
  return vkutil::create_shader_module(g.device, spirv);
}

inline VkPipeline make_compute(const vkutil::Device& g, VkPipelineLayout layout, VkShaderModule mod) {
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = mod;
  ci.stage.pName = "main";
  ci.layout = layout;
  VkPipeline p = VK_NULL_HANDLE;
  CHECK_VK(vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  return p;
}

}  // namespace layer_test
