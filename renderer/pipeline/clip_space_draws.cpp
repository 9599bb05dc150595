#include "pipeline/clip_space_draws.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "raster/sample_pattern.h"
#include "tessera/error.h"

namespace tessera {

namespace {

// A clip-space draw's triangles as a list of indices: strips and fans unrolled in Vulkan's
// vertex order (odd strip triangles swap their first two vertices, keeping the winding), a
// restart index ending the current strip or fan.
std::vector<uint32_t> triangle_list(const ClipSpaceDraw& d, size_t draw_index) {
  const size_t n = d.indices.empty() ? d.positions.size() : d.indices.size();
  auto index = [&](size_t i) { return d.indices.empty() ? uint32_t(i) : d.indices[i]; };
  constexpr uint32_t kRestart = 0xFFFFFFFFu;
  std::vector<uint32_t> out;
  if (d.state.topology == Topology::triangle_list) {
    out.reserve(n / 3 * 3);
    for (size_t i = 0; i + 2 < n; i += 3) {
      for (size_t k = 0; k < 3; ++k) out.push_back(index(i + k));
    }
  } else {
    const bool restart = d.state.primitive_restart && !d.indices.empty();
    size_t start = 0;
    while (start < n) {
      size_t end = start;
      while (end < n && !(restart && index(end) == kRestart)) ++end;
      for (size_t i = start; i + 2 < end; ++i) {
        const size_t k = i - start;
        if (d.state.topology == Topology::triangle_strip) {
          const uint32_t a = index(i + (k & 1)), b = index(i + 1 - (k & 1)), c = index(i + 2);
          out.insert(out.end(), {a, b, c});
        } else {
          out.insert(out.end(), {index(i + 1), index(i + 2), index(start)});
        }
      }
      start = end + 1;
    }
  }
  for (uint32_t v : out) {
    if (v >= d.positions.size()) {
      throw Error("clip-space draw " + std::to_string(draw_index) + ": index " + std::to_string(v) + " is past its " +
                  std::to_string(d.positions.size()) + " vertices");
    }
  }
  return out;
}

void check_frame(const ClipSpaceFrame& f) {
  auto fail = [](const std::string& what) { throw Error("clip-space frame: " + what); };
  if (f.width < 1 || f.width > 16384 || f.height < 1 || f.height > 16384) {
    fail("size " + std::to_string(f.width) + "x" + std::to_string(f.height) + " is out of range [1, 16384]");
  }
  if (f.samples != 1 && f.samples != 2 && f.samples != 4 && f.samples != 8) {
    fail("samples = " + std::to_string(f.samples) + " is not one of 1, 2, 4, 8");
  }
  if (!std::isfinite(f.clear_depth) || f.clear_depth < 0.0f || f.clear_depth > 1.0f)
    fail("clear_depth is not in [0, 1]");
  const size_t values = size_t(f.width) * size_t(f.height) * size_t(f.samples);
  if (!f.initial_color.empty() && f.initial_color.size() != values)
    fail("initial_color holds " + std::to_string(f.initial_color.size()) + " values, not width x height x samples");
  if (!f.initial_depth.empty() && f.initial_depth.size() != values)
    fail("initial_depth holds " + std::to_string(f.initial_depth.size()) + " values, not width x height x samples");
  for (float z : f.initial_depth)
    if (!(z >= 0.0f && z <= 1.0f)) fail("initial_depth holds a depth outside [0, 1]");
  for (size_t i = 0; i < f.draws.size(); ++i) {
    const ClipSpaceDraw& d = f.draws[i];
    const std::string name = "draw " + std::to_string(i) + ": ";
    if (d.state.samples != f.samples) {
      fail(name + "rasterizes " + std::to_string(d.state.samples) + " samples into a " + std::to_string(f.samples) +
           "-sample frame");
    }
    if (d.varying_count < 0 || d.varying_count > kMaxVaryings) fail(name + "varying_count is not in [0, 8]");
    if (d.varyings.size() != d.positions.size() * size_t(d.varying_count)) {
      fail(name + "has " + std::to_string(d.varyings.size()) + " varying floats for " +
           std::to_string(d.positions.size()) + " vertices x " + std::to_string(d.varying_count));
    }
    const ViewportState& v = d.state.viewport;
    for (float x : {v.x, v.y, v.width, v.height, v.min_depth, v.max_depth}) {
      if (!std::isfinite(x)) fail(name + "viewport is not finite");
    }
    if (v.min_depth < 0.0f || v.min_depth > 1.0f || v.max_depth < 0.0f || v.max_depth > 1.0f) {
      fail(name + "viewport depth range is not within [0, 1]");
    }
  }
}

}  // namespace

void build_clip_space_draws(const ClipSpaceFrame& in, float guard_band_pixels, ClipSpaceDrawList& list) {
  constexpr int kColorVaryings = 3;
  check_frame(in);
  size_t vertex_count = 0;
  for (const ClipSpaceDraw& d : in.draws) vertex_count += d.positions.size();
  list.vertices.assign(vertex_count, ClipVertex{});
  list.triangles_of.assign(in.draws.size(), {});
  list.draws.clear();
  list.depth.clear();
  list.blend.clear();
  list.triangles = list.indices = 0;
  size_t vertex_base = 0;
  for (size_t i = 0; i < in.draws.size(); ++i) {
    const ClipSpaceDraw& d = in.draws[i];
    for (size_t v = 0; v < d.positions.size(); ++v) {
      ClipVertex& out = list.vertices[vertex_base + v];
      out.clip = d.positions[v];
      for (int k = 0; k < kColorVaryings; ++k) {
        out.varyings[k] =
            d.varying_count >= kColorVaryings ? d.varyings[v * size_t(d.varying_count) + size_t(k)] : d.color[k];
      }
    }
    list.triangles_of[i] = triangle_list(d, i);
    list.indices += d.indices.size();
    if (!list.triangles_of[i].empty()) {
      PrimitiveDraw p;
      p.indices = list.triangles_of[i].data();
      p.triangle_count = list.triangles_of[i].size() / 3;
      p.vertex_base = vertex_base;
      p.triangle_base = list.triangles;
      p.cull = d.state.cull;
      p.front_face = d.state.front_face;
      p.viewport =
          Viewport::of_state(in.width, in.height, sample_extent(in.samples), d.state.viewport, d.state.scissor);
      // The guard band reaches the same number of pixels past the viewport as for scenes.
      const float vw = p.viewport.custom ? std::abs(p.viewport.w) : float(in.width);
      const float vh = p.viewport.custom ? std::abs(p.viewport.h) : float(in.height);
      p.guard = GuardBand{1.0f + 2.0f * guard_band_pixels / std::max(vw, 1.0f),
                          1.0f + 2.0f * guard_band_pixels / std::max(vh, 1.0f)};
      list.draws.push_back(p);
      list.depth.push_back(d.state.depth);
      list.blend.push_back(d.state.blend);
      list.triangles += p.triangle_count;
    }
    vertex_base += d.positions.size();
  }
}

}  // namespace tessera
