#include "capture/capture_format.h"

#include <cmath>

#include "tessera/error.h"

namespace tessera::capture::format {

namespace {

// Slicing-by-8 tables: table[0] is the classic byte table; table[k][b] is the CRC of byte b
// followed by k zero bytes, so eight input bytes are folded per step (captures run to hundreds
// of MB, and both the layer's writer thread and every reader checksum all of it).
constexpr std::array<std::array<uint32_t, 256>, 8> make_crc_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (size_t k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}

constexpr std::array<std::array<uint32_t, 256>, 8> kCrcTables = make_crc_tables();

bool power_of_two_samples(int64_t s) { return s >= 1 && s <= kMaxSamples && (s & (s - 1)) == 0; }

class Checker {
 public:
  explicit Checker(const std::string& file) : file_(file) {}
  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw Error(file_ + ": " + path + ": " + message);
  }
  void finite(const std::string& path, float v) const {
    if (!std::isfinite(v)) fail(path, "must be finite");
  }
  void range(const std::string& path, int64_t v, int64_t lo, int64_t hi) const {
    if (v < lo || v > hi) {
      fail(path, std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  }
  void samples(const std::string& path, int64_t v) const {
    if (!power_of_two_samples(v)) fail(path, std::to_string(v) + " is not a sample count (1, 2, 4, ... 64)");
  }
  template <typename E, size_t N>
  void enumerator(const std::string& path, E e, const std::array<std::string_view, N>& names) const {
    if (size_t(e) >= N) {
      std::string expected;
      for (const std::string_view n : names) expected += (expected.empty() ? "" : ", ") + std::string(n);
      fail(path, "unknown value " + std::to_string(size_t(e)) + " (expected one of " + expected + ")");
    }
  }

 private:
  const std::string& file_;
};

std::string at(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

void validate_viewport(const Checker& c, const std::string& p, const ViewportState& v) {
  c.finite(p + ".x", v.x);
  c.finite(p + ".y", v.y);
  c.finite(p + ".width", v.width);
  c.finite(p + ".height", v.height);
  c.finite(p + ".min_depth", v.min_depth);
  c.finite(p + ".max_depth", v.max_depth);
}

bool zero(const glm::vec4& v) { return v.r == 0.0f && v.g == 0.0f && v.b == 0.0f && v.a == 0.0f; }

// Version 2: load and store ops, clear values only where an attachment is cleared, resumed passes.
void validate_load_ops(const Checker& c, const std::string& p, const RenderPass& pass) {
  if (pass.resumes && !pass.dynamic_rendering) c.fail(p + ".resumes", "only a dynamic-rendering pass resumes");
  size_t colours = 0;
  bool depth_clears = false, has_depth = false;
  for (size_t i = 0; i < pass.attachments.size(); ++i) {
    const Attachment& a = pass.attachments[i];
    const std::string ap = at(p + ".attachments", i);
    c.enumerator(ap + ".load_op", a.load_op, kLoadOpNames);
    c.enumerator(ap + ".store_op", a.store_op, kStoreOpNames);
    if (pass.resumes && a.load_op != LoadOp::load) {
      c.fail(ap + ".load_op",
             std::string(kLoadOpNames[size_t(a.load_op)]) + " in a resumed pass (it continues the previous one: load)");
    }
    if (a.kind == AttachmentKind::depth) {
      has_depth = true;
      depth_clears = a.load_op == LoadOp::clear;
      continue;
    }
    const size_t k = colours++;
    if (a.load_op == LoadOp::clear && k >= pass.clear_colors.size()) {
      c.fail(ap + ".load_op", "clear without a clear colour (colour attachment " + std::to_string(k) + ")");
    }
    if (a.load_op != LoadOp::clear && k < pass.clear_colors.size() && !zero(pass.clear_colors[k])) {
      c.fail(at(p + ".clear_colors", k), "a clear colour for an attachment loaded with " +
                                             std::string(kLoadOpNames[size_t(a.load_op)]) + " (only clear has one)");
    }
  }
  if (pass.clear_colors.size() > colours) {
    c.fail(p + ".clear_colors", std::to_string(pass.clear_colors.size()) + " clear colours for " +
                                    std::to_string(colours) + " colour attachments");
  }
  if (has_depth && pass.clears_depth != depth_clears) {
    c.fail(p + ".clears_depth",
           std::string(pass.clears_depth ? "true" : "false") + " disagrees with the depth attachment's load_op");
  }
  if (!pass.clears_depth && pass.clear_depth != 1.0f) {
    c.fail(p + ".clear_depth", "a clear depth for a pass that does not clear depth (only clear has one; 1 otherwise)");
  }
}

void validate_pass(const Checker& c, const std::string& p, const RenderPass& pass, uint32_t version) {
  c.range(p + ".area_x", pass.area_x, 0, kMaxExtent);
  c.range(p + ".area_y", pass.area_y, 0, kMaxExtent);
  c.range(p + ".area_width", pass.area_width, 0, kMaxExtent);
  c.range(p + ".area_height", pass.area_height, 0, kMaxExtent);
  c.samples(p + ".samples", pass.samples);
  for (size_t i = 0; i < pass.clear_colors.size(); ++i) {
    for (int k = 0; k < 4; ++k) c.finite(at(at(p + ".clear_colors", i), size_t(k)), pass.clear_colors[i][k]);
  }
  c.finite(p + ".clear_depth", pass.clear_depth);
  bool depth_seen = false;
  for (size_t i = 0; i < pass.attachments.size(); ++i) {
    const Attachment& a = pass.attachments[i];
    const std::string ap = at(p + ".attachments", i);
    c.enumerator(ap + ".kind", a.kind, kAttachmentKindNames);
    // Replay and `capture info` rely on the model's order: colour attachments, then the depth one.
    if (depth_seen)
      c.fail(ap + ".kind", "an attachment after the depth attachment (colour ones come first, depth last)");
    depth_seen = a.kind == AttachmentKind::depth;
    c.range(ap + ".width", a.width, 1, kMaxExtent);
    c.range(ap + ".height", a.height, 1, kMaxExtent);
    c.samples(ap + ".samples", a.samples);
    c.range(ap + ".texel_bytes", a.texel_bytes, 1, kMaxTexelBytes);
    if (a.texels.empty() && a.skip_reason.empty()) c.fail(ap + ".skip_reason", "no texels and no skip reason");
    if (!a.texels.empty() && !a.skip_reason.empty()) {
      c.fail(ap + ".skip_reason", "\"" + a.skip_reason + "\" on an attachment that has texels");
    }
    const uint64_t expected = uint64_t(a.width) * a.height * a.samples * a.texel_bytes;
    if (!a.texels.empty() && a.texels.size() != expected) {
      c.fail(ap + ".texels",
             std::to_string(a.texels.size()) +
                 " bytes, expected width * height * samples * texel_bytes = " + std::to_string(expected));
    }
  }
  if (version >= 2) validate_load_ops(c, p, pass);
}

void validate_draw(const Checker& c, const std::string& p, const Draw& d, size_t passes) {
  if (d.pass >= passes) {
    c.fail(p + ".pass",
           std::to_string(d.pass) + " is out of range (the frame has " + std::to_string(passes) + " render passes)");
  }
  c.enumerator(p + ".call", d.call, kDrawCallNames);
  for (size_t i = 0; i < d.shaders.size(); ++i)
    c.enumerator(at(p + ".shaders", i) + ".stage", d.shaders[i].stage, kShaderStageNames);
  const std::string sp = p + ".state";
  const DrawState& s = d.state;
  c.enumerator(sp + ".raster.topology", s.raster.topology, kTopologyNames);
  c.enumerator(sp + ".raster.cull", s.raster.cull, kCullModeNames);
  c.enumerator(sp + ".raster.front_face", s.raster.front_face, kFrontFaceNames);
  c.enumerator(sp + ".raster.depth.compare", s.raster.depth.compare, kCompareOpNames);
  validate_viewport(c, sp + ".raster.viewport", s.raster.viewport);
  c.samples(sp + ".raster.samples", s.raster.samples);
  c.range(sp + ".application_topology", s.application_topology, 0, 10);  // VK_PRIMITIVE_TOPOLOGY_PATCH_LIST
  if (s.polygon_mode > 2 && s.polygon_mode != 1000153000u) {             // FILL, LINE, POINT, FILL_RECTANGLE_NV
    c.fail(sp + ".polygon_mode", "unknown VkPolygonMode " + std::to_string(s.polygon_mode));
  }
  c.finite(sp + ".depth_bias_constant", s.depth_bias_constant);
  c.finite(sp + ".depth_bias_clamp", s.depth_bias_clamp);
  c.finite(sp + ".depth_bias_slope", s.depth_bias_slope);
  for (size_t i = 0; i < s.blend.size(); ++i)
    c.range(at(sp + ".blend", i) + ".write_mask", s.blend[i].write_mask, 0, 15);
  for (size_t i = 0; i < s.viewports.size(); ++i) validate_viewport(c, at(sp + ".viewports", i), s.viewports[i]);
  if (d.captured) {
    if (!d.skip_reason.empty()) c.fail(p + ".skip_reason", "\"" + d.skip_reason + "\" on a captured draw");
    if (d.positions.size() % 3 != 0) {
      c.fail(p + ".positions",
             std::to_string(d.positions.size()) + " positions, not a multiple of 3 (a triangle list)");
    }
  } else {
    if (d.skip_reason.empty()) c.fail(p + ".skip_reason", "a draw not captured needs a reason");
    if (!d.positions.empty()) c.fail(p + ".positions", "positions on a draw not captured");
  }
  if (!d.vertex_ids.empty() && d.vertex_ids.size() != d.positions.size()) {
    c.fail(p + ".vertex_ids", std::to_string(d.vertex_ids.size()) + " ids for " + std::to_string(d.positions.size()) +
                                  " positions (one per position, or none)");
  }
  if (!d.instance_ids.empty() && d.instance_ids.size() != d.positions.size()) {
    c.fail(p + ".instance_ids", std::to_string(d.instance_ids.size()) + " ids for " +
                                    std::to_string(d.positions.size()) + " positions (one per position, or none)");
  }
}

}  // namespace

uint32_t crc32(std::span<const uint8_t> bytes, uint32_t crc) {
  const auto& t = kCrcTables;
  crc = ~crc;
  const uint8_t* p = bytes.data();
  size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) {
    // Little-endian assembly of the words, whatever the host's byte order.
    const uint32_t lo = crc ^ get_u32(p);
    const uint32_t hi = get_u32(p + 4);
    crc = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^ t[3][hi & 0xFF] ^
          t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; n > 0; ++p, --n) crc = t[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

void validate(const Capture& capture, const std::string& file, uint32_t version) {
  const Checker c(file);
  for (size_t f = 0; f < capture.frames.size(); ++f) {
    const Frame& frame = capture.frames[f];
    const std::string fp = at("frames", f);
    for (size_t i = 0; i < frame.passes.size(); ++i) validate_pass(c, at(fp + ".passes", i), frame.passes[i], version);
    for (size_t i = 0; i < frame.draws.size(); ++i) {
      validate_draw(c, at(fp + ".draws", i), frame.draws[i], frame.passes.size());
    }
  }
}

}  // namespace tessera::capture::format
