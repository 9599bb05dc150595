// The Vulkan reference renderer: draws a tessera::Scene with the Lambert GLSL programs on any
// Vulkan device (lavapipe by default) with pipeline state matching the software GPU, headless.
// It is the conformance oracle (tests/conformance) and the benchmark peer (`tessera bench`).
// See docs/reference-renderer.md. Not thread-safe: one thread drives one renderer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/image.h"
#include "tessera/scene.h"

namespace tessera::vkref {

// Per-frame options.
struct ReferenceOptions {
  int width = 1280;           // pixels, 1..device limit (16384 on lavapipe)
  int height = 720;           // pixels
  bool cull_backface = true;  // counter-clockwise on screen is front-facing
  int samples = 1;            // MSAA: 1, 2, 4 or 8 at the standard positions, box-resolved
};

// Pipeline statistics of the last render() (not render_timed()), one query over the frame's
// draws. docs/reference-renderer.md, "Tessellation".
struct ReferenceStats {
  bool available = false;                     // the device counts pipeline statistics (pipelineStatisticsQuery)
  bool tessellation = false;                  // the tessellation counters below are present
  uint64_t clipping_invocations = 0;          // primitives reaching the clipper, tessellated included
  uint64_t tessellation_control_patches = 0;  // hull invocations: patches, culled ones included
  // Domain program invocations; lavapipe runs it once per unique domain point of each patch
  // (docs/tessellator.md), i.e. Tessera's tessellation.domain_points.
  uint64_t tessellation_evaluation_invocations = 0;
};

// Device choice and debugging; the defaults suit tests and benchmarks.
struct DeviceOptions {
  // Loads VK_LAYER_KHRONOS_validation and sends each warning/error message to
  // on_validation_message (stderr when empty). create() throws if the layer is missing.
  bool validation = false;
  std::function<void(const std::string&)> on_validation_message;
  // Only devices whose name contains this text are used; empty takes the first usable one.
  std::string device_name_contains;
};

class ReferenceRenderer {
 public:
  // Opens a headless Vulkan device. Throws tessera::Error with a clear message if no Vulkan
  // driver or no usable device is present.
  static std::unique_ptr<ReferenceRenderer> create(const DeviceOptions& options = {});

  ~ReferenceRenderer();
  ReferenceRenderer(const ReferenceRenderer&) = delete;
  ReferenceRenderer& operator=(const ReferenceRenderer&) = delete;

  // Device name as the driver reports it, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
  std::string device_name() const;
  // Sample counts the device renders with colour and depth (e.g. {1, 4} on lavapipe 22.3).
  std::vector<int> supported_sample_counts() const;
  // Whether the device draws patch meshes (the tessellationShader feature); upload() of a
  // scene with patch instances throws on a device without it.
  bool supports_tessellation() const;

  // Copies meshes, patch meshes and textures (every mip level of Texture::levels as given,
  // sRGB) to the device and keeps the materials, instances and patch instances, lights,
  // ambient and background for render().
  // Replaces any previous scene. Throws tessera::Error on an invalid scene or device limits.
  void upload(const Scene& scene);

  // Renders one frame of the uploaded scene and reads it back as sRGB RGBA8: the instances,
  // then the patch instances through a tessellation pipeline (shaders/glsl/patch.*).
  Image render(const Camera& camera, const ReferenceOptions& options);
  // The pipeline statistics of the last render().
  const ReferenceStats& last_stats() const;

  // Records the frame once, submits it once untimed (warm-up) and then `repetitions` times,
  // waiting for each. Returns the median milliseconds from submit to fence signalled; each
  // timing goes to *frame_ms when given. Excludes setup, upload and read-back.
  double render_timed(const Camera& camera, const ReferenceOptions& options, int repetitions,
                      std::vector<double>* frame_ms = nullptr);

 private:
  ReferenceRenderer();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::vkref
