// The vertex stage: the vertex program over every vertex of every draw, parallel over fixed
// vertex ranges, into the post-vertex-shading array the primitive stage reads.
#pragma once

#include <vector>

#include "core/uninitialized.h"
#include "geometry/clipper.h"
#include "pipeline/scene_draws.h"
#include "tessera/eu_shader_math.h"

namespace tessera {

struct VertexStageResult {
  // list.vertices entries, draw after draw; sized without writing them (the stage writes each
  // once, in parallel, instead of after a serial zero fill).
  UninitializedVector<ClipVertex> vertices;
  EuShaderMath math;  // the vertex program's EU work (integer sums: order-free)
};

// Runs inside the caller's task arena.
void run_vertex_stage(const SceneDrawList& list, VertexStageResult& out);

}  // namespace tessera
