// Frames through the ray-tracing unit (frame.mode "rt" and "hybrid", docs/rt.md Rendering).
#pragma once

#include <cstdint>
#include <memory>

#include <tbb/task_arena.h>

#include "tessera/config.h"
#include "tessera/renderer.h"
#include "tessera/rt.h"
#include "tessera/rt_residency.h"
#include "tessera/scene.h"

namespace tessera {

// What a Renderer keeps between its rt/hybrid frames: the acceleration structure of the scene
// it last traced and that structure's LOD residency, so levels a lazy policy wanted load
// before the next frame (a batch or the viewer). Rebuilt when the scene (its address, meshes,
// instances, LOD groups) or the config's rt section changes.
struct RtFrameCache {
  uint64_t key = 0;
  std::unique_ptr<rt::AccelerationStructure> as;
  std::unique_ptr<rt::Residency> residency;
};

// Every pixel by rays: a primary ray through the pixel centre, shadow rays, one mirror
// bounce and config.trace.diffuse_samples diffuse bounces. Parallel over fixed pixel tiles;
// the frame and its stats (but frame.time_ms.* and frame.threads) do not depend on threads.
// Runs in `arena`, the Renderer's threads kept between frames.
Frame render_rt_frame(const Scene& scene, const Camera& camera, const Config& config, RtFrameCache& cache,
                      tbb::task_arena& arena);

// Hybrid: `raster` is the raster frame of the same view (frame.mode "raster"); its depth
// buffer gives each pixel's visible point, rays add shadows and mirror reflections.
Frame render_hybrid_frame(const Scene& scene, const Camera& camera, const Config& config, Frame raster,
                          RtFrameCache& cache, tbb::task_arena& arena);

}  // namespace tessera
