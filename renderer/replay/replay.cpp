// Replay of a captured frame (tessera/replay.h, docs/replay.md): per render pass, the captured
// draws become a clip-space frame (vertex reuse recovered from the captured vertex ids), the
// frame pipeline runs them, and the colour unit is run again on the captured colours.
#include "tessera/replay.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <span>
#include <tuple>
#include <unordered_map>

#include "raster/sample_pattern.h"
#include "raster/tile_rasterizer.h"
#include "raster/triangle_setup.h"
#include "replay/captured_color.h"
#include "tessera/error.h"

namespace tessera::replay {

namespace {

using capture::AttachmentKind;
using capture::ShaderStage;

// A pass as replayed: its framebuffer extent and samples, or why it cannot be.
struct PassShape {
  int width = 0, height = 0, samples = 1;
  std::string problem;  // empty: replayable
};

PassShape pass_shape(const capture::RenderPass& p, int msaa) {
  PassShape s;
  // The framebuffer: the attachments' extent, else the render area's far corner.
  uint64_t w = 0, h = 0;
  for (const capture::Attachment& a : p.attachments) {
    w = std::max<uint64_t>(w, a.width);
    h = std::max<uint64_t>(h, a.height);
  }
  if (w == 0 || h == 0) {
    w = uint64_t(std::max<int64_t>(0, int64_t(p.area_x) + int64_t(p.area_width)));
    h = uint64_t(std::max<int64_t>(0, int64_t(p.area_y) + int64_t(p.area_height)));
  }
  if (w == 0 || h == 0) {
    s.problem = "zero_area_pass";
  } else if (w > 16384 || h > 16384) {
    s.problem = "pass_too_large";
  } else if (p.samples != 1 && p.samples != 2 && p.samples != 4 && p.samples != 8) {
    s.problem = "pass_sample_count";
  } else if (p.clears_depth && !(p.clear_depth >= 0.0f && p.clear_depth <= 1.0f)) {
    s.problem = "clear_depth_out_of_range";
  }
  s.width = int(w);
  s.height = int(h);
  // Single-sample passes run at the configured sample count (Tessera's coverage).
  s.samples = p.samples == 1 ? msaa : int(p.samples);
  return s;
}

// Why a captured draw cannot be replayed in its pass, or empty.
std::string draw_problem(const capture::Draw& d, const capture::RenderPass& pass) {
  if (!d.captured) return d.skip_reason.empty() ? "not_captured" : d.skip_reason;
  if (d.positions.size() % 3 != 0) return "positions_not_triangles";
  const ClipSpaceState& s = d.state.raster;
  if (uint32_t(s.samples) != pass.samples) return "sample_count_mismatch";
  if (uint8_t(s.cull) > uint8_t(CullMode::front_and_back) || uint8_t(s.front_face) > uint8_t(FrontFace::clockwise) ||
      uint8_t(s.depth.compare) > uint8_t(CompareOp::always)) {
    return "state_out_of_range";
  }
  const ViewportState& v = s.viewport;
  for (float x : {v.x, v.y, v.width, v.height, v.min_depth, v.max_depth}) {
    if (!std::isfinite(x)) return "viewport_not_finite";
  }
  // Vulkan requires a non-zero viewport (Tessera's zero means "the whole framebuffer").
  if (v.width == 0.0f || v.height == 0.0f) return "zero_area_viewport";
  if (v.width < 0.0f) return "viewport_negative_width";
  // Beyond any device's maxViewportDimensions and viewportBoundsRange (Vulkan guarantees 4096
  // and [-8192, 8191]; devices report up to 32768 and [-65536, 65535]): not a real draw.
  constexpr float kMaxViewport = 65536.0f, kMaxBound = 131072.0f;
  if (v.width > kMaxViewport || std::abs(v.height) > kMaxViewport) return "viewport_out_of_range";
  for (float x : {v.x, v.y, v.x + v.width, v.y + v.height}) {
    if (std::abs(x) > kMaxBound) return "viewport_out_of_range";
  }
  if (v.min_depth < 0.0f || v.min_depth > 1.0f || v.max_depth < 0.0f || v.max_depth > 1.0f) return "depth_range";
  return {};
}

uint32_t shader_instructions(const capture::Draw& d, ShaderStage stage) {
  uint32_t n = 0;
  for (const capture::ShaderInfo& s : d.shaders) {
    if (s.stage == stage) n += s.instructions;
  }
  return n;
}

// The draw's positions as an indexed list: vertices with the same (vertex id, instance id) and
// the same position are one vertex (the GPU shaded it once), so the tiler's two-pass and
// parameter-buffer accounting sees the application's vertex reuse. Without ids (or with a
// mismatched count) every captured vertex is its own.
void build_vertices(const capture::Draw& d, ClipSpaceDraw& out) {
  const size_t n = d.positions.size();
  const bool ids = d.vertex_ids.size() == n && (d.instance_ids.empty() || d.instance_ids.size() == n);
  if (!ids) {
    out.positions = d.positions;
    return;
  }
  auto key = [&](size_t i) {
    return uint64_t(d.instance_ids.empty() ? 0 : d.instance_ids[i]) << 32 | uint64_t(d.vertex_ids[i]);
  };
  auto same = [&](const glm::vec4& a, const glm::vec4& b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  out.positions.reserve(n);
  out.indices.resize(n);
  auto add = [&](size_t i, uint32_t* slot) {
    if (*slot != UINT32_MAX && same(out.positions[*slot], d.positions[i])) {
      out.indices[i] = *slot;
      return;
    }
    *slot = uint32_t(out.positions.size());
    out.indices[i] = *slot;
    out.positions.push_back(d.positions[i]);
  };
  // Dense ids (the usual case): a table over the id range; else a hash map.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < n; ++i) {
    lo = std::min(lo, key(i));
    hi = std::max(hi, key(i));
  }
  if (n && hi - lo < 4 * uint64_t(n) + 1024) {
    std::vector<uint32_t> table(size_t(hi - lo + 1), UINT32_MAX);
    for (size_t i = 0; i < n; ++i) add(i, &table[size_t(key(i) - lo)]);
  } else {
    std::unordered_map<uint64_t, uint32_t> table;
    table.reserve(n);
    for (size_t i = 0; i < n; ++i) add(i, &table.try_emplace(key(i), UINT32_MAX).first->second);
  }
  if (out.positions.size() == n) out.indices.clear();  // no reuse: the list as captured
}

// The replayed frames' keys the frame's passes add up (counts); everything else is the main pass's.
bool summed_key(const std::string& key) {
  for (const char* prefix : {"raster.", "memory.", "texture."}) {
    if (key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// " (skipped: reason N, ...)" for the error naming a frame with nothing to replay.
std::string skipped_summary(const std::map<std::string, uint64_t>& skipped) {
  std::string out;
  for (const auto& [reason, n] : skipped)
    out += (out.empty() ? " (skipped: " : ", ") + reason + " " + std::to_string(n);
  return out.empty() ? out : out + ")";
}

// Depth slope per pixel (|dz/dx| + |dz/dy| per pixel) of a multisampled depth attachment (per
// sample, pixel-major), for pixels whose samples all differ from `clear` and lie on one plane:
// samples 0, 1 and 2 fix the plane, every other sample must lie on it to float precision (else
// the pixel holds an edge between triangles). -1 for the other pixels; all -1 below 4 samples.
std::vector<double> depth_slopes(const std::vector<float>& depth, int samples, float clear) {
  const size_t n = size_t(std::max(samples, 1));
  std::vector<double> slopes(depth.size() / n, -1.0);
  std::span<const SampleOffset> offsets;
  if (samples == 4) offsets = SamplePattern<4>::offsets;
  if (samples == 8) offsets = SamplePattern<8>::offsets;
  if (offsets.empty()) return slopes;
  const double unit = 1.0 / double(kSubpixelOne);
  auto delta = [&](int k, int axis) {
    return double(axis == 0 ? offsets[k].x - offsets[0].x : offsets[k].y - offsets[0].y) * unit;
  };
  const double det = delta(1, 0) * delta(2, 1) - delta(1, 1) * delta(2, 0);
  constexpr double kOnPlane = 1e-6;  // a few float steps of depth in [0, 1]
  for (size_t p = 0; p < slopes.size(); ++p) {
    const float* z = depth.data() + p * n;
    if (std::any_of(z, z + n, [&](float v) { return v == clear || !std::isfinite(v); })) continue;
    const double d1 = double(z[1]) - z[0], d2 = double(z[2]) - z[0];
    const double gx = (d1 * delta(2, 1) - d2 * delta(1, 1)) / det;
    const double gy = (delta(1, 0) * d2 - delta(2, 0) * d1) / det;
    bool planar = true;
    for (int k = 3; k < samples; ++k)
      planar = planar && std::abs(double(z[0]) + gx * delta(k, 0) + gy * delta(k, 1) - double(z[k])) <= kOnPlane;
    if (planar) slopes[p] = std::abs(gx) + std::abs(gy);
  }
  return slopes;
}

// An image's identity within the capture: the attachment's image and view subresource.
using ImageKey = std::tuple<uint64_t, uint32_t, uint32_t>;
ImageKey image_key(const capture::Attachment& a) { return {a.image, a.mip_level, a.base_layer}; }

// What the frame's passes so far left in an image (docs/replay.md, "Loaded attachments").
struct ImageContents {
  uint32_t pass = 0;                              // the last pass that stored it
  const capture::Attachment* captured = nullptr;  // what the GPU stored then (null: not read back)
  // Replayed (when that pass was replayed): per sample, the captured draw index + 1 that last
  // wrote it (0: none), at the replayed extent and sample count.
  bool replayed = false;
  int width = 0, height = 0, samples = 0;
  std::vector<uint32_t> draw_ids;
  std::vector<float> depth;  // replayed depth (per pixel, sample 0)
};

bool loads(const capture::Attachment& a) {
  return a.load_op == capture::LoadOp::load || a.load_op == capture::LoadOp::none;
}

const capture::Attachment* first_of(const capture::RenderPass& p, AttachmentKind kind) {
  for (const capture::Attachment& a : p.attachments)
    if (a.kind == kind) return &a;
  return nullptr;
}

// A captured depth attachment as float depth per sample, when it has the replayed shape.
std::vector<float> captured_depth(const capture::Attachment& a, const PassShape& shape) {
  const size_t n = size_t(shape.width) * size_t(shape.height) * size_t(shape.samples);
  std::vector<float> out;
  if (int64_t(a.width) != shape.width || int64_t(a.height) != shape.height || int64_t(a.samples) != shape.samples)
    return out;
  if (a.texel_bytes == 4 && a.texels.size() == n * 4) {
    out.resize(n);
    std::memcpy(out.data(), a.texels.data(), n * 4);
  } else if (a.texel_bytes == 2 && a.texels.size() == n * 2) {
    out.resize(n);
    for (size_t i = 0; i < n; ++i) out[i] = float(uint16_t(a.texels[2 * i] | a.texels[2 * i + 1] << 8)) / 65535.0f;
  }
  for (float z : out)
    if (!(z >= 0.0f && z <= 1.0f)) return {};  // not a depth the pipeline can start from
  return out;
}

}  // namespace

Rgba8 draw_id_color(uint32_t index) {
  // Hues a golden angle apart, so neighbouring draws differ; bright enough never to be black.
  const float h = std::fmod(float(index) * 0.618034f, 1.0f) * 6.0f;
  const float s = index % 2 ? 0.55f : 0.8f, v = index % 3 == 2 ? 0.75f : 0.95f;
  const int sector = int(h) % 6;
  const float f = h - std::floor(h);
  const float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  float r = v, g = t, b = p;
  switch (sector) {
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    case 5: r = v, g = p, b = q; break;
    default: break;
  }
  auto byte = [](float c) { return uint8_t(std::lround(std::clamp(c, 0.0f, 1.0f) * 255.0f)); };
  return pack_rgba8(byte(r), byte(g), byte(b));
}

FrameReplay replay_frame(Renderer& renderer, const capture::Capture& cap, size_t frame_index,
                         const ReplayOptions& options) {
  if (frame_index >= cap.frames.size()) {
    throw Error("capture: frame " + std::to_string(frame_index) + " does not exist (the capture has " +
                std::to_string(cap.frames.size()) + " frame" + (cap.frames.size() == 1 ? "" : "s") + ")");
  }
  const capture::Frame& cf = cap.frames[frame_index];
  const std::string frame_name = "capture frame " + std::to_string(frame_index);
  const Config& cfg = renderer.config();
  FrameReplay out;
  out.draws.resize(cf.draws.size());
  std::map<std::string, uint64_t> skipped;
  auto skip = [&](size_t i, const std::string& reason) {
    // The capture's reasons become stats keys: lower-case letters, digits and '_' only.
    std::string key = reason.substr(0, 64);
    for (char& c : key) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
        c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : '_';
    }
    out.draws[i].replayed = false;
    out.draws[i].skip_reason = key;
    ++skipped[key];
  };
  std::vector<PassShape> shapes;
  for (const capture::RenderPass& p : cf.passes) shapes.push_back(pass_shape(p, cfg.raster.msaa));
  // Each draw's verdict first, so a bad draw is counted whether or not its pass runs.
  std::vector<std::vector<uint32_t>> pass_draws(cf.passes.size());
  const size_t draw_end = options.last_draw ? std::min(cf.draws.size(), *options.last_draw + 1) : cf.draws.size();
  for (size_t i = 0; i < cf.draws.size(); ++i) {
    const capture::Draw& d = cf.draws[i];
    DrawReport& r = out.draws[i];
    r.pass = d.pass;
    r.triangles = d.positions.size() / 3;
    r.vertex_instructions = shader_instructions(d, ShaderStage::vertex);
    r.fragment_instructions = shader_instructions(d, ShaderStage::fragment);
    if (d.pass >= cf.passes.size()) {
      skip(i, "pass_out_of_range");
      continue;
    }
    if (!shapes[d.pass].problem.empty()) {
      skip(i, shapes[d.pass].problem);
      continue;
    }
    const std::string problem = draw_problem(d, cf.passes[d.pass]);
    if (!problem.empty()) {
      skip(i, problem);
      continue;
    }
    r.replayed = true;
    if (i < draw_end) pass_draws[d.pass].push_back(uint32_t(i));
  }

  uint64_t vertices_captured = 0, vertices_unique = 0, vs_instructions = 0, fs_instructions = 0;
  uint64_t loads_seeded = 0, loads_unknown = 0;
  std::map<ImageKey, ImageContents> images;
  // After pass p: what it stored in each attachment's image (the GPU's contents; the replayed
  // ones when it was replayed, `replayed` then filled by the caller).
  auto stored = [&](size_t p) -> ImageContents* {
    ImageContents* colour = nullptr;
    for (const capture::Attachment& a : cf.passes[p].attachments) {
      if (a.image == 0) continue;
      if (a.store_op == capture::StoreOp::dont_care) {
        images.erase(image_key(a));  // undefined after the pass
        continue;
      }
      ImageContents& c = images[image_key(a)];
      c = ImageContents{};
      c.pass = uint32_t(p);
      c.captured = a.texels.empty() ? nullptr : &a;
      if (a.kind == AttachmentKind::color && !colour) colour = &c;
    }
    return colour;
  };
  for (size_t p = 0; p < cf.passes.size(); ++p) {
    const capture::RenderPass& pass = cf.passes[p];
    if (pass_draws[p].empty()) {
      stored(p);
      continue;
    }
    const PassShape& shape = shapes[p];
    ClipSpaceFrame in;
    in.width = shape.width;
    in.height = shape.height;
    in.samples = shape.samples;
    in.clear_color = glm::vec3(0.0f);  // the draw-ID image's background
    in.clear_depth = pass.clears_depth ? pass.clear_depth : 1.0f;
    // Loaded attachments start from what the frame's earlier passes left in their images: the
    // draw-ID colour of the replayed pass that last wrote the colour image, its replayed depth
    // (else the depth the GPU stored); from before the frame: unknown, the clear defaults.
    const size_t values = size_t(shape.width) * size_t(shape.height) * size_t(shape.samples);
    std::vector<uint8_t> covered_before;
    std::vector<uint32_t> seed_ids;  // the colour image's draw ids at the start (loaded)
    int32_t colour_from = -1, depth_from = -1;
    std::string load_note;
    auto note = [&](const std::string& what) { load_note += (load_note.empty() ? "" : "; ") + what; };
    const capture::Attachment* colour = first_of(pass, AttachmentKind::color);
    const capture::Attachment* depth = first_of(pass, AttachmentKind::depth);
    if (options.load_attachments && colour && loads(*colour)) {
      auto it = colour->image ? images.find(image_key(*colour)) : images.end();
      if (it == images.end()) {
        ++loads_unknown;
        note("colour loads contents from before the frame: started from black");
      } else if (!it->second.replayed || it->second.draw_ids.size() != values) {
        ++loads_unknown;
        note("colour loads pass " + std::to_string(it->second.pass) +
             "'s contents, not replayed at this shape: " + "started from black");
      } else {
        ++loads_seeded;
        colour_from = int32_t(it->second.pass);
        note("colour continues pass " + std::to_string(colour_from));
        seed_ids = it->second.draw_ids;
        const std::vector<uint32_t>& ids = seed_ids;
        in.initial_color.resize(values);
        covered_before.resize(values);
        const Rgba8 background = encode_color(in.clear_color);
        for (size_t i = 0; i < values; ++i) {
          covered_before[i] = ids[i] != 0;
          if (ids[i] == 0) {
            in.initial_color[i] = background;
            continue;
          }
          // As the tile stage stores a draw's colour (below: cd.color).
          const Rgba8 id = draw_id_color(ids[i] - 1);
          in.initial_color[i] = encode_color(
              glm::vec3(decode_srgb8(channel(id, 0)), decode_srgb8(channel(id, 1)), decode_srgb8(channel(id, 2))));
        }
      }
    }
    if (options.load_attachments && depth && loads(*depth)) {
      auto it = depth->image ? images.find(image_key(*depth)) : images.end();
      // Tessera's own depth at the end of that pass first: the layer reads attachments back at
      // the end of a submission, so a read-back is the end of the pass only when no later pass
      // of the submission wrote the image (this one, for instance).
      std::vector<float> seed;
      if (it != images.end() && it->second.replayed && it->second.depth.size() * size_t(shape.samples) == values) {
        seed.resize(values);  // the replayed depth (sample 0 per pixel) for every sample
        for (size_t i = 0; i < values; ++i) seed[i] = it->second.depth[i / size_t(shape.samples)];
      }
      if (seed.empty() && it != images.end() && it->second.captured) seed = captured_depth(*it->second.captured, shape);
      if (seed.empty()) {
        ++loads_unknown;
        note(it == images.end() ? "depth loads contents from before the frame: started from 1.0"
                                : "depth loads pass " + std::to_string(it->second.pass) +
                                      "'s contents, neither replayed nor read back at this shape: started from 1.0");
      } else {
        ++loads_seeded;
        depth_from = int32_t(it->second.pass);
        note("depth continues pass " + std::to_string(depth_from));
        in.initial_depth = std::move(seed);
      }
    }
    uint64_t weighted_length = 0, pass_vertices = 0;
    for (uint32_t i : pass_draws[p]) {
      const capture::Draw& d = cf.draws[i];
      ClipSpaceDraw cd;
      build_vertices(d, cd);
      cd.state = d.state.raster;
      cd.state.topology = Topology::triangle_list;  // captured as rasterized: one list
      cd.state.primitive_restart = false;
      cd.state.samples = shape.samples;
      const Rgba8 id = draw_id_color(i);
      cd.color = glm::vec3(decode_srgb8(channel(id, 0)), decode_srgb8(channel(id, 1)), decode_srgb8(channel(id, 2)));
      DrawReport& r = out.draws[i];
      r.vertices = cd.positions.size();
      vertices_captured += d.positions.size();
      vertices_unique += r.vertices;
      pass_vertices += r.vertices;
      weighted_length += uint64_t(r.vertex_instructions) * r.vertices;
      vs_instructions += uint64_t(r.vertex_instructions) * r.vertices;
      in.draws.push_back(std::move(cd));
    }
    // The tiler's L: the pass's vertex programs weighted by the vertices they shade.
    in.vertex_shader_instructions = pass_vertices ? uint32_t((weighted_length + pass_vertices / 2) / pass_vertices) : 0;

    PassReplay pr;
    pr.pass = uint32_t(p);
    pr.samples = shape.samples;
    pr.draws = pass_draws[p];
    pr.color_loaded_from = colour_from;
    pr.depth_loaded_from = depth_from;
    pr.load_note = load_note;
    // Per-draw work always (the EU estimates need each draw's fragment invocations, and the
    // composed colours of a single-sample capture Tessera's per-sample coverage).
    pr.frame = renderer.render_clip_space(in, true);
    decode_attachments(pass, pr);
    compare_coverage(pass, pr, covered_before);
    run_color_unit_on_capture(cfg, pass, pr);
    // What this pass leaves in its colour image for a later pass that loads it.
    if (ImageContents* c = stored(p)) {
      const std::vector<uint32_t>& sd = pr.frame.diagnostics.sample_draw;
      if (sd.size() == values) {
        c->replayed = true;
        c->width = shape.width;
        c->height = shape.height;
        c->samples = shape.samples;
        c->draw_ids.resize(values);
        for (size_t i = 0; i < values; ++i)
          c->draw_ids[i] = sd[i] ? pr.draws[sd[i] - 1] + 1 : (seed_ids.empty() ? 0 : seed_ids[i]);
      }
    }
    if (depth && depth->image) {
      auto it = images.find(image_key(*depth));
      if (it != images.end()) {
        it->second.replayed = true;
        it->second.depth = pr.frame.depth;
      }
    }
    if (!options.draw_diagnostics) {
      pr.frame.diagnostics.sample_draw = {};
      pr.frame.diagnostics.overdraw = {};
    }
    // Per-draw work, in the pass's draw order (render_clip_space keeps its input order).
    const std::vector<DrawWork>& work = pr.frame.diagnostics.draws;
    for (size_t k = 0; k < pr.draws.size(); ++k) {
      DrawReport& r = out.draws[pr.draws[k]];
      if (k < work.size()) {
        r.work = work[k];
        fs_instructions += uint64_t(r.fragment_instructions) * r.work.fs_invocations;
      }
    }
    out.passes.push_back(std::move(pr));
  }
  if (out.passes.empty()) {
    throw Error(frame_name + " (frame number " + std::to_string(cf.number) + "): no replayable draw in " +
                std::to_string(cf.draws.size()) + " draw" + (cf.draws.size() == 1 ? "" : "s") + " and " +
                std::to_string(cf.passes.size()) + " render pass" + (cf.passes.size() == 1 ? "" : "es") +
                skipped_summary(skipped));
  }
  // The main pass: the largest, the last of equals (usually the one presented).
  for (size_t k = 0; k < out.passes.size(); ++k) {
    const Image& a = out.passes[k].frame.color;
    const Image& m = out.passes[out.main_pass].frame.color;
    if (uint64_t(a.width) * uint64_t(a.height) >= uint64_t(m.width) * uint64_t(m.height)) out.main_pass = k;
  }

  Stats& s = out.stats;
  s = out.passes[out.main_pass].frame.stats;
  for (size_t k = 0; k < out.passes.size(); ++k) {
    if (k == out.main_pass) continue;
    for (const auto& [key, value] : out.passes[k].frame.stats.values()) {
      const uint64_t* u = std::get_if<uint64_t>(&value);
      if (u && summed_key(key)) s.add(key, *u);
    }
  }
  // Vertex work happened on the GPU: the captured shaders' sizes estimate the EU's share.
  s.set("raster.vs.invocations", vertices_unique);
  s.set("eu.stage.vertex.dynamic_instructions", vs_instructions);
  s.set("eu.stage.fragment.dynamic_instructions", fs_instructions);
  s.set("eu.dynamic_instructions", vs_instructions + fs_instructions);
  s.set("shader.vertex.instructions_per_invocation",
        uint64_t(vertices_unique ? (vs_instructions + vertices_unique / 2) / vertices_unique : 0));

  s.set("capture.application", cap.application);
  s.set("capture.engine", cap.engine);
  s.set("capture.device", cap.device);
  s.set("capture.driver", cap.driver);
  s.set("capture.format_version", uint64_t(cap.format_version));
  s.set("capture.frame", cf.number);
  s.set("capture.frame_index", uint64_t(frame_index));
  s.set("capture.passes", uint64_t(cf.passes.size()));
  s.set("capture.passes_replayed", uint64_t(out.passes.size()));
  s.set("capture.loads.seeded", loads_seeded);
  s.set("capture.loads.unknown", loads_unknown);
  s.set("capture.main_pass", uint64_t(out.passes[out.main_pass].pass));
  uint64_t captured = 0, replayed = 0, triangles = 0;
  for (size_t i = 0; i < cf.draws.size(); ++i) {
    captured += cf.draws[i].captured;
    replayed += out.draws[i].replayed && i < draw_end;
    if (out.draws[i].replayed && i < draw_end) triangles += out.draws[i].triangles;
  }
  s.set("capture.draws.total", uint64_t(cf.draws.size()));
  s.set("capture.draws.captured", captured);
  s.set("capture.draws.replayed", replayed);
  uint64_t skipped_total = 0;
  for (const auto& [reason, n] : skipped) {
    s.set("capture.draws.skipped." + reason, n);
    skipped_total += n;
  }
  s.set("capture.draws.skipped_total", skipped_total);
  s.set("capture.draws.beyond_last", uint64_t(cf.draws.size() - draw_end));
  s.set("capture.triangles", triangles);
  s.set("capture.vertices.captured", vertices_captured);
  s.set("capture.vertices.unique", vertices_unique);
  const PassReplay& main = out.passes[out.main_pass];
  // Agreement with the GPU: the main pass's replayed depth (sample 0) against the captured depth
  // attachment's sample 0, where both were taken at the same sample count.
  if (!main.captured_depth.empty() && main.captured_depth_samples == main.samples) {
    const std::vector<float>& mine = main.frame.depth;
    const float clear = cf.passes[main.pass].clears_depth ? cf.passes[main.pass].clear_depth : 1.0f;
    // Tessera interpolates depth from the vertices snapped to 1/256 pixel; lavapipe (llvmpipe's
    // setup) from the unsnapped float vertices. Vulkan allows both, and they differ by up to the
    // depth slope times the snapping error (half a subpixel step per axis, to first order). The
    // slope is measured on the GPU's own samples (at the standard locations): per pixel where one
    // plane holds them all, the frame's steepest elsewhere (single-sample captures: no allowance).
    const std::vector<double> slopes = depth_slopes(main.captured_depth, main.captured_depth_samples, clear);
    double slope = 0.0;
    uint64_t planar = 0;
    for (double v : slopes) {
      slope = std::max(slope, v);
      planar += v >= 0.0;
    }
    const double snap_error = 0.5 / double(kSubpixelOne);
    double worst_ratio = 0.0;  // largest difference / the pixel's own tolerance
    uint64_t both = 0, only_replay = 0, only_capture = 0, beyond = 0;
    double max_diff = 0;
    // UNORM depth is compared in the format's units: the replayed depth converted as Vulkan
    // converts floats to UNORM (clamp to [0, 1], x (2^b - 1), round to nearest) against the
    // stored code. The GPU converts its own float depth the same way, so the codes are equal
    // unless the two float depths straddle a rounding boundary: then they differ by one step.
    const int bits = main.captured_depth_unorm_bits;
    const double steps = bits ? double((1u << bits) - 1u) : 0.0;
    // The largest per-pixel tolerance, in the comparison's units.
    const double tolerance = main.captured_depth_tolerance + slope * snap_error * (bits ? steps : 1.0);
    auto code = [&](float d) { return std::llround(std::clamp(double(d), 0.0, 1.0) * steps); };
    uint64_t max_steps = 0, equal = 0;
    for (size_t p = 0; p < mine.size(); ++p) {
      const float gpu = main.captured_depth[p * size_t(main.captured_depth_samples)];
      const bool a = mine[p] != clear, b = gpu != clear;
      if (a && b) {
        ++both;
        const double diff = std::abs(double(mine[p]) - double(gpu));
        // The snapping allowance, in the comparison's units (format steps for UNORM depth).
        const double slope_here = p < slopes.size() && slopes[p] >= 0.0 ? slopes[p] : slope;
        const double allowed = main.captured_depth_tolerance + slope_here * snap_error * (bits ? steps : 1.0);
        if (bits) {
          const uint64_t d = uint64_t(std::llabs(code(mine[p]) - code(gpu)));
          max_steps = std::max(max_steps, d);
          equal += d == 0;
          if (double(d) > allowed) ++beyond;
          worst_ratio = std::max(worst_ratio, double(d) / allowed);
        } else {
          equal += mine[p] == gpu;
          if (!(diff <= allowed)) ++beyond;
          if (std::isfinite(diff)) worst_ratio = std::max(worst_ratio, diff / allowed);
        }
        if (std::isfinite(diff)) max_diff = std::max(max_diff, diff);
      }
      only_replay += a && !b;
      only_capture += b && !a;
    }
    s.set("capture.depth_agreement.pixels", uint64_t(mine.size()));
    s.set("capture.depth_agreement.covered_both", both);
    s.set("capture.depth_agreement.covered_replay_only", only_replay);
    s.set("capture.depth_agreement.covered_capture_only", only_capture);
    s.set("capture.depth_agreement.mismatch_fraction",
          mine.empty() ? 0.0 : double(only_replay + only_capture) / double(mine.size()));
    s.set("capture.depth_agreement.max_abs_difference", max_diff);
    s.set("capture.depth_agreement.equal_in_format", equal);
    s.set("capture.depth_agreement.beyond_tolerance", beyond);
    s.set("capture.depth_agreement.tolerance", tolerance);
    s.set("capture.depth_agreement.format_tolerance", main.captured_depth_tolerance);
    s.set("capture.depth_agreement.unorm_bits", uint64_t(bits));
    s.set("capture.depth_agreement.max_format_steps", max_steps);
    s.set("capture.depth_agreement.max_depth_slope", slope);
    s.set("capture.depth_agreement.pixels_with_slope", planar);
    s.set("capture.depth_agreement.max_difference_over_tolerance", worst_ratio);
  }
  // Agreement with the GPU's multisampled coverage: covered samples per pixel.
  if (main.coverage.compared) {
    const PassReplay::CoverageAgreement& c = main.coverage;
    s.set("capture.coverage_agreement.pixels", c.pixels);
    s.set("capture.coverage_agreement.pixels_differ", c.pixels_differ);
    s.set("capture.coverage_agreement.pixels_partial", c.pixels_partial);
    s.set("capture.coverage_agreement.samples_replay", c.samples_replay);
    s.set("capture.coverage_agreement.samples_capture", c.samples_capture);
    s.set("capture.coverage_agreement.mismatch_fraction", c.pixels ? double(c.pixels_differ) / double(c.pixels) : 0.0);
  }
  s.set("capture.color.source", main.captured_color_samples.empty() ? std::string("draw_id")
                                : main.captured_samples == main.samples
                                    ? std::string("captured_samples")
                                    : std::string("captured_pixels_tessera_coverage"));
  return out;
}

}  // namespace tessera::replay
