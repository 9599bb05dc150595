#include "pipeline/vertex_stage.h"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

namespace tessera {

namespace {
constexpr size_t kVertexGrain = 4096;
constexpr int kVertexLanes = 16;
}  // namespace

void run_vertex_stage(const SceneDrawList& list, VertexStageResult& out) {
  using VertexShader = shaders::LambertVertexShader;
  const std::vector<SceneDraw>& draws = list.draws;
  out.vertices.resize(list.vertices);
  tbb::combinable<EuShaderMath> math;
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, list.vertices, kVertexGrain), [&](const tbb::blocked_range<size_t>& r) {
        // The draw holding the range's first vertex, then forward.
        size_t d = size_t(std::upper_bound(draws.begin(), draws.end(), r.begin(),
                                           [](size_t v, const SceneDraw& x) { return v < x.vertex_base; }) -
                          draws.begin()) -
                   1;
        EuShaderMath local;
        // Batches of up to 16 vertices of one draw run as lanes (the modelled EU's width).
        for (size_t i = r.begin(); i < r.end();) {
          while (d + 1 < draws.size() && i >= draws[d + 1].vertex_base) ++d;
          const SceneDraw& draw = draws[d];
          const size_t draw_end = d + 1 < draws.size() ? draws[d + 1].vertex_base : list.vertices;
          const size_t n = std::min({size_t(kVertexLanes), r.end() - i, draw_end - i});
          VertexShader::run_lanes(draw.vs, &draw.mesh->vertices[i - draw.vertex_base], int(n), &out.vertices[i], local);
          i += n;
        }
        math.local().merge(local);
      });
  out.math = math.combine([](EuShaderMath a, const EuShaderMath& b) {
    a.merge(b);
    return a;
  });
}

}  // namespace tessera
