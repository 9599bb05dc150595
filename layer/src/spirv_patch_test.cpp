// The capture patcher on real modules compiled by glslc (shaders/glsl and tests/layer/shaders):
// every patched module validates on its own, carries the transform-feedback decorations the
// layer's buffers expect, and the modules the layer must not touch say why.
#include "spirv_patch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <spirv-tools/libspirv.hpp>

namespace tessera::layer {
namespace {

constexpr uint32_t api(uint32_t major, uint32_t minor) { return (major << 22) | (minor << 12); }

std::vector<uint32_t> load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

std::string shader(const std::string& name) { return std::string(TESSERA_CAPTURE_SHADERS) + "/" + name + ".spv"; }

std::string disassemble(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string text;
  EXPECT_TRUE(
      tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_NO_HEADER | SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES));
  return text;
}

bool validates(const std::vector<uint32_t>& words, spv_target_env env) {
  spvtools::SpirvTools tools(env);
  spvtools::ValidatorOptions options;
  options.SetSkipBlockLayout(true);
  return tools.Validate(words.data(), words.size(), options);
}

size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return size_t(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

struct Case {
  const char* file;
  PreRasterStage stage;
  bool ids;
};

TEST(SpirvPatch, PatchedModulesValidateAndCarryXfb) {
  const Case cases[] = {{"quad.vert", PreRasterStage::kVertex, true},
                        {"slant.vert", PreRasterStage::kVertex, true},
                        {"capture_calls.vert", PreRasterStage::kVertex, true},
                        {"lambert.vert", PreRasterStage::kVertex, true},
                        {"tri.tese", PreRasterStage::kTessellationEvaluation, false},
                        {"patch.tese", PreRasterStage::kTessellationEvaluation, false},
                        {"capture_tri.geom", PreRasterStage::kGeometry, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const std::vector<uint32_t> original = load(shader(c.file));
    ASSERT_GT(original.size(), 5u);
    for (spv_target_env env : {SPV_ENV_VULKAN_1_1, SPV_ENV_VULKAN_1_2, SPV_ENV_VULKAN_1_3}) {
      const SpirvPatch p = patch_for_capture(original, "main", c.stage, env);
      ASSERT_EQ(p.skip_reason, "") << p.detail;
      EXPECT_EQ(p.ids, c.ids);
      EXPECT_TRUE(validates(p.words, env));
      const std::string text = disassemble(p.words);
      EXPECT_EQ(count(text, "OpCapability TransformFeedback"), 1u);
      EXPECT_EQ(count(text, "OpExecutionMode %\\w+ Xfb"), 1u);
      EXPECT_EQ(count(text, "XfbBuffer 0"), 1u);
      EXPECT_EQ(count(text, "XfbStride 16"), 1u);
      EXPECT_EQ(count(text, "XfbBuffer 1"), c.ids ? 1u : 0u);
      EXPECT_EQ(count(text, "XfbStride 8"), c.ids ? 1u : 0u);
      // Position's offset: on the block member (glslang's gl_PerVertex) or the variable.
      EXPECT_EQ(count(text, "OpMemberDecorate %\\w+ 0 Offset 0"),
                count(disassemble(original), "OpMemberDecorate %\\w+ 0 Offset 0") + 1);
      if (c.ids) {
        // One store of the index pair before every return of main (and only main).
        EXPECT_GE(count(text, "OpCompositeConstruct %v2int"),
                  count(disassemble(original), "OpCompositeConstruct %v2int") + 1);
        EXPECT_GE(count(text, "BuiltIn VertexIndex"), 1u);
        EXPECT_GE(count(text, "BuiltIn InstanceIndex"), 1u);
      }
    }
  }
}

TEST(SpirvPatch, IndexOutputAvoidsTheApplicationsLocations) {
  const std::vector<uint32_t> original = load(shader("capture_calls.vert"));
  const SpirvPatch p = patch_for_capture(original, "main", PreRasterStage::kVertex, SPV_ENV_VULKAN_1_2);
  ASSERT_EQ(p.skip_reason, "") << p.detail;
  const std::string text = disassemble(p.words);
  EXPECT_EQ(count(text, "Location 0\\b"), 1u);  // only the application's colour
  // Compiled without optimisation: main keeps its early return and calls place(); each return
  // of main stores the pair (two), place()'s return does not.
  EXPECT_EQ(count(text, "OpCompositeConstruct %v2int"), 2u);
}

TEST(SpirvPatch, LeavesWhatItMustNotTouch) {
  const std::vector<uint32_t> xfb = load(shader("capture_xfb.vert"));
  EXPECT_EQ(patch_for_capture(xfb, "main", PreRasterStage::kVertex, SPV_ENV_VULKAN_1_2).skip_reason,
            "uses_transform_feedback");
  const std::vector<uint32_t> stream = load(shader("capture_stream.geom"));
  EXPECT_EQ(patch_for_capture(stream, "main", PreRasterStage::kGeometry, SPV_ENV_VULKAN_1_2).skip_reason,
            "geometry_stream");
  const std::vector<uint32_t> vert = load(shader("quad.vert"));
  // Wrong entry point, wrong stage, garbage, truncation: patch_failed with a reason.
  for (const SpirvPatch& p :
       {patch_for_capture(vert, "other", PreRasterStage::kVertex, SPV_ENV_VULKAN_1_2),
        patch_for_capture(vert, "main", PreRasterStage::kGeometry, SPV_ENV_VULKAN_1_2),
        patch_for_capture({1, 2, 3, 4, 5, 6}, "main", PreRasterStage::kVertex, SPV_ENV_VULKAN_1_2),
        patch_for_capture(std::vector<uint32_t>(vert.begin(), vert.end() - 3), "main", PreRasterStage::kVertex,
                          SPV_ENV_VULKAN_1_2)}) {
    EXPECT_EQ(p.skip_reason, "patch_failed");
    EXPECT_FALSE(p.detail.empty());
    EXPECT_TRUE(p.words.empty());
  }
}

TEST(SpirvPatch, InstructionCountsFollowCalls) {
  const std::vector<uint32_t> calls = load(shader("capture_calls.vert"));
  const std::vector<uint32_t> quad = load(shader("quad.vert"));
  const uint32_t n_calls = entry_instruction_count(calls, "main");
  const uint32_t n_quad = entry_instruction_count(quad, "main");
  EXPECT_GT(n_calls, 10u);
  EXPECT_GT(n_quad, 10u);
  EXPECT_LT(n_quad, quad.size());
  EXPECT_EQ(entry_instruction_count(quad, "nope"), 0u);
  EXPECT_EQ(entry_instruction_count({7, 7}, "main"), 0u);
  // The patch adds instructions to main: the count sees them.
  const SpirvPatch p = patch_for_capture(quad, "main", PreRasterStage::kVertex, SPV_ENV_VULKAN_1_2);
  ASSERT_EQ(p.skip_reason, "");
  EXPECT_EQ(entry_instruction_count(p.words, "main"), n_quad + 4);  // 2 loads, construct, store
}

TEST(SpirvPatch, HashAndEnvironment) {
  const std::vector<uint32_t> a = load(shader("quad.vert"));
  std::vector<uint32_t> b = a;
  b.back() ^= 1;
  EXPECT_EQ(module_hash(a.data(), a.size()), module_hash(a.data(), a.size()));
  EXPECT_NE(module_hash(a.data(), a.size()), module_hash(b.data(), b.size()));
  EXPECT_EQ(target_env(api(1, 0), 0x10000), SPV_ENV_VULKAN_1_0);
  EXPECT_EQ(target_env(api(1, 1), 0x10300), SPV_ENV_VULKAN_1_1);
  EXPECT_EQ(target_env(api(1, 1), 0x10400), SPV_ENV_VULKAN_1_1_SPIRV_1_4);
  EXPECT_EQ(target_env(api(1, 2), 0x10500), SPV_ENV_VULKAN_1_2);
  EXPECT_EQ(target_env(api(1, 3), 0x10600), SPV_ENV_VULKAN_1_3);
}

}  // namespace
}  // namespace tessera::layer
