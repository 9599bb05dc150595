// SPIR-V editing for frame capture (docs/layer.md "Frame capture"): a copy of the last
// pre-rasterization stage made to write its clip-space Position to transform-feedback buffer 0
// and, in vertex shaders, gl_VertexIndex and gl_InstanceIndex to buffer 1; the static
// instruction count of an entry point; the identity of a module. Plain word editing, then
// SPIRV-Tools validation for the pipeline's target environment. No Vulkan calls here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <spirv-tools/libspirv.h>

namespace tessera::layer {

// The stages whose outputs are rasterized (SPIR-V execution models).
enum class PreRasterStage : uint8_t { kVertex, kTessellationEvaluation, kGeometry };

// Strides of the patched module's transform-feedback buffers.
inline constexpr uint32_t kXfbPositionStride = 16;  // vec4 Position
inline constexpr uint32_t kXfbIdStride = 8;         // VertexIndex, InstanceIndex (int32 each)

struct SpirvPatch {
  std::vector<uint32_t> words;  // the patched module, empty when `skip_reason` is set
  // Empty on success, else a capture.h skip reason: "uses_transform_feedback", "geometry_stream",
  // "patch_failed" (with `detail` saying what: no entry point, no Position, validation ...).
  std::string skip_reason;
  std::string detail;
  bool ids = false;       // buffer 1 (vertex and instance index) is written
  uint32_t location = 0;  // the index pair's output location (when `ids`)
};

// Patches a copy of `words` for entry point `entry` of `stage`, validated for `env`.
SpirvPatch patch_for_capture(const std::vector<uint32_t>& words, const std::string& entry, PreRasterStage stage,
                             spv_target_env env);

// The fragment shader's side of the index pair: an unused flat ivec2 input at `location`, so the
// vertex stage's extra output is consumed (validation warns about outputs nobody reads).
SpirvPatch patch_fragment_input(const std::vector<uint32_t>& words, const std::string& entry, uint32_t location,
                                spv_target_env env);

// Static instruction count of the entry point's function and every function it calls (each
// counted once): the instructions between OpFunction and OpFunctionEnd, labels excluded. 0 when
// the entry point is not found or the module is malformed.
uint32_t entry_instruction_count(const std::vector<uint32_t>& words, const std::string& entry);

// FNV-1a over the words: the module's identity in a capture.
uint64_t module_hash(const uint32_t* words, size_t count);

// The Vulkan target environment for a device API version (VK_MAKE_API_VERSION form) and the
// module's SPIR-V version (its header's second word).
spv_target_env target_env(uint32_t api_version, uint32_t spirv_version);

}  // namespace tessera::layer
