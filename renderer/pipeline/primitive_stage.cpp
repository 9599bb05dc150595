#include "pipeline/primitive_stage.h"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace tessera {

namespace {

// A vertex's frustum outcode (ClipBits) and, in bit 7, whether a clip coordinate is not
// finite: what the trivial-reject tests read, once per vertex rather than once per corner of
// every triangle using it (about six on a mesh).
constexpr uint8_t kNonFinite = 0x80;
inline uint8_t vertex_flags(const ClipVertex& v) {
  bool finite = true;
  for (int k = 0; k < 4; ++k) finite = finite && std::isfinite(v.clip[k]);
  return finite ? uint8_t(frustum_outcode(v.clip)) : kNonFinite;
}

}  // namespace

void run_primitive_stage(const PrimitiveStageInput& in, PrimitiveStageOutput& out) {
  const std::vector<PrimitiveDraw>& draws = *in.draws;
  // When every draw maps clip space to the window alike (always for scenes), the window
  // position of each vertex inside the frustum is computed here once, instead of at each of the
  // some six triangle corners it is: set-up of a triangle inside the frustum then culls from
  // these 16 bytes per corner and reads a vertex's 48 only for a triangle it keeps.
  bool one_window = in.vertex_count > 0 && !draws.empty();
  for (const PrimitiveDraw& d : draws) one_window = one_window && same_window_transform(d.viewport, draws[0].viewport);
  UninitializedVector<uint8_t>& flags = out.vertex_flags;
  UninitializedVector<WindowVertex>& window = out.window;
  flags.resize(in.vertex_count);
  window.resize(one_window ? in.vertex_count : 0);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, in.vertex_count, 4096), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t v = r.begin(); v < r.end(); ++v) flags[v] = vertex_flags(in.vertices[v]);
    if (one_window) {
      const Viewport& vp = draws[0].viewport;
      // Only vertices inside the frustum: the others may lie beyond what the fixed point
      // holds, and their triangles take the full set-up (or the clipper).
      for (size_t v = r.begin(); v < r.end(); ++v) {
        if (!flags[v]) window[v] = window_vertex(in.vertices[v].clip, vp);
      }
    }
  });
  auto flags_of = [&](size_t v) { return in.vertex_count ? flags[v] : vertex_flags(in.vertices[v]); };
  const size_t chunk_count = (in.triangles + kChunkTriangles - 1) / kChunkTriangles;
  // Resized, not assigned: an output kept from an earlier frame keeps its chunks' buffers
  // (each chunk clears what it refills), so their pages are not faulted in again every frame.
  out.chunks.resize(chunk_count);
  out.counters.assign(chunk_count, RasterCounters{});
  out.sources.resize(in.record_sources ? chunk_count : 0);
  const TileGrid* atomic = in.record_sources ? in.atomic : nullptr;
  out.atomic.resize(atomic ? chunk_count : 0);
  out.draw_runs.resize(in.per_draw ? chunk_count : 0);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunk_count, 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t c = r.begin(); c < r.end(); ++c) {
      BinChunk& chunk = out.chunks[c];
      RasterCounters& rc = out.counters[c];
      std::vector<uint32_t>* sources = in.record_sources ? &out.sources[c] : nullptr;
      if (sources) {
        sources->clear();
        sources->reserve(std::min(kChunkTriangles, in.triangles - c * kChunkTriangles));
      }
      if (in.per_draw) out.draw_runs[c].clear();
      const size_t first = c * kChunkTriangles;
      const size_t last = std::min(first + kChunkTriangles, in.triangles);
      chunk.setups.clear();
      chunk.setups.reserve(last - first);
      size_t d = size_t(std::upper_bound(draws.begin(), draws.end(), first,
                                         [](size_t t, const PrimitiveDraw& x) { return t < x.triangle_base; }) -
                        draws.begin()) -
                 1;
      ClipVertex poly[kMaxClipVertices];
      TriangleSetup setup;
      auto keep = [&](SetupResult result, uint32_t source) {
        switch (result) {
          case SetupResult::ok:
            chunk.setups.push_back(setup);
            if (sources) sources->push_back(source);
            break;
          case SetupResult::culled_backface: ++rc[RasterCounters::culled_backface]; break;
          case SetupResult::culled_frontface: ++rc[RasterCounters::culled_frontface]; break;
          case SetupResult::culled_degenerate: ++rc[RasterCounters::culled_degenerate]; break;
          case SetupResult::culled_scissor: ++rc[RasterCounters::culled_scissor]; break;
        }
      };
      auto emit = [&](const ClipVertex& a, const ClipVertex& b, const ClipVertex& v, const PrimitiveDraw& draw,
                      uint32_t draw_index, uint32_t source) {
        keep(setup_triangle(a, b, v, draw.viewport, draw.cull, draw.front_face, in.varyings, draw_index, setup),
             source);
      };
      // Per draw: the chunk's counters when its first triangle started; the difference at the
      // next draw (or the chunk's end) is the draw's share.
      RasterCounters run_start;
      auto close_run = [&](size_t draw) {
        if (!in.per_draw) return;
        DrawRun run{uint32_t(draw), rc};
        for (size_t i = 0; i < run.counters.v.size(); ++i) run.counters.v[i] -= run_start.v[i];
        out.draw_runs[c].push_back(run);
        run_start = rc;
      };
      for (size_t tri = first; tri < last; ++tri) {
        const size_t run_draw = d;
        while (d + 1 < draws.size() && tri >= draws[d + 1].triangle_base) ++d;
        if (d != run_draw && tri != first) close_run(run_draw);
        const PrimitiveDraw& draw = draws[d];
        const uint32_t* idx = &draw.indices[(tri - draw.triangle_base) * 3];
        const size_t i0 = draw.vertex_base + idx[0], i1 = draw.vertex_base + idx[1], i2 = draw.vertex_base + idx[2];
        ++rc[RasterCounters::triangles_in];
        const uint32_t f0 = flags_of(i0), f1 = flags_of(i1), f2 = flags_of(i2);
        if ((f0 | f1 | f2) & kNonFinite) {
          ++rc[RasterCounters::culled_nonfinite];
          continue;
        }
        if (f0 & f1 & f2) {
          ++rc[RasterCounters::culled_frustum];
          continue;
        }
        const ClipVertex& v0 = in.vertices[i0];
        const ClipVertex& v1 = in.vertices[i1];
        const ClipVertex& v2 = in.vertices[i2];
        const GuardBand& guard = draw.guard;
        // A vertex inside the frustum has w >= z >= 0, so it is inside any guard band at least as
        // wide (g * w >= w, and rounding is monotone): its guard-band outcode is 0 without
        // evaluating it, which is the common case.
        const bool inside = !(f0 | f1 | f2) && guard.gx >= 1.0f && guard.gy >= 1.0f;
        const uint32_t planes =
            inside ? 0u : clip_outcode(v0.clip, guard) | clip_outcode(v1.clip, guard) | clip_outcode(v2.clip, guard);
        if (!planes) {
          if (one_window && inside) {
            const WindowVertex* w[3] = {&window[i0], &window[i1], &window[i2]};
            const ClipVertex* v[3] = {&v0, &v1, &v2};
            keep(setup_triangle(w, v, draw.viewport, draw.cull, draw.front_face, in.varyings, uint32_t(d), setup),
                 uint32_t(tri));
          } else {
            emit(v0, v1, v2, draw, uint32_t(d), uint32_t(tri));
          }
          continue;
        }
        ++rc[RasterCounters::clipped];
        const int n = clip_triangle(v0, v1, v2, planes, guard, in.varyings, poly);
        for (int k = 1; k + 1 < n; ++k) {
          ++rc[RasterCounters::clip_output];
          emit(poly[0], poly[k], poly[k + 1], draw, uint32_t(d), uint32_t(tri));
        }
      }
      if (last > first) close_run(d);
      rc[RasterCounters::setup] += chunk.setups.size();
      // The tiling accounting reads each triangle's tiles: binning finds them in that order.
      bin_chunk(in.grid, in.samples, chunk, in.record_sources ? BinLists::by_setup : BinLists::by_tile);
      rc[RasterCounters::bin_entries] += chunk.entries.size();
      if (atomic) {
        BinChunk& a = out.atomic[c];
        bin_setups(*atomic, in.samples, chunk.setups, a.offsets, a.entries, &a.setup_offsets, &a.setup_tiles);
      }
    }
  });
}

}  // namespace tessera
