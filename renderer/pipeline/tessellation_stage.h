// The tessellation stage of a frame: hull shader per patch, the GPP array (on-chip
// redistribution; the baselines on the same stream for their counters), domain shader per
// domain point. Its output is ordinary triangle meshes in object space, one per patch instance
// (per patch instance and GPP for the GPP map), in application order, which the vertex stage
// then transforms like any mesh. docs/tessellation.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <glm/glm.hpp>

#include "geometry/gpp_array.h"
#include "tessera/config.h"
#include "tessera/eu_shader_math.h"
#include "tessera/scene.h"

namespace tessera {

class Stats;

struct TessellatedMesh {
  uint32_t patch_instance = 0;
  int gpp = -1;  // the GPP that tessellated every triangle of it (GPP map), else -1
  Mesh mesh;
};

struct TessellationStageResult {
  std::vector<TessellatedMesh> meshes;  // application order
  uint64_t patches = 0;                 // over all patch instances
  uint64_t hull_culled = 0;             // patches the hull shader culled (outer level 0)
  uint64_t control_point_fetches = 0;   // control points the hull and domain stages read
  uint64_t domain_points = 0;
  uint64_t triangles = 0;
  EuShaderMath hull_math, domain_math;
  std::optional<GppRunResult> onchip, noredist, offchip;  // tessellated geometry dropped
  double hull_ms = 0, gpp_ms = 0, domain_ms = 0;

  // tessellation.* and geometry.gpp.<design>.* (docs/stats.md).
  void publish(Stats& stats) const;
};

struct TessellationView {
  glm::mat4 view_projection{1.0f};
  glm::vec3 eye{0.0f};
  glm::vec2 viewport{1.0f};
};

// Runs inside the caller's task arena. Throws tessera::Error for a malformed patch instance.
TessellationStageResult run_tessellation_stage(const Scene& scene, const TessellationConfig& config,
                                               const TessellationView& view);

}  // namespace tessera
