// `tessera capture info|export`: what a .tcap capture holds (docs/capture.md, docs/cli.md), and
// one draw's geometry as an OBJ mesh for any mesh viewer.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "files.h"
#include "tessera/capture.h"
#include "tessera/error.h"

namespace tessera::cli {

namespace {

using OJson = nlohmann::ordered_json;
using namespace capture;

// VkFormat names of the formats attachments commonly have; others print as their number.
const char* vk_format_name(uint32_t f) {
  switch (f) {
    case 4: return "R5G6B5_UNORM_PACK16";
    case 9: return "R8_UNORM";
    case 16: return "R8G8_UNORM";
    case 37: return "R8G8B8A8_UNORM";
    case 38: return "R8G8B8A8_SNORM";
    case 41: return "R8G8B8A8_UINT";
    case 43: return "R8G8B8A8_SRGB";
    case 44: return "B8G8R8A8_UNORM";
    case 50: return "B8G8R8A8_SRGB";
    case 58: return "A2R10G10B10_UNORM_PACK32";
    case 64: return "A2B10G10R10_UNORM_PACK32";
    case 76: return "R16_SFLOAT";
    case 83: return "R16G16_SFLOAT";
    case 91: return "R16G16B16A16_UNORM";
    case 97: return "R16G16B16A16_SFLOAT";
    case 98: return "R32_UINT";
    case 100: return "R32_SFLOAT";
    case 103: return "R32G32_SFLOAT";
    case 109: return "R32G32B32A32_SFLOAT";
    case 122: return "B10G11R11_UFLOAT_PACK32";
    case 123: return "E5B9G9R9_UFLOAT_PACK32";
    case 124: return "D16_UNORM";
    case 125: return "X8_D24_UNORM_PACK32";
    case 126: return "D32_SFLOAT";
    case 127: return "S8_UINT";
    case 128: return "D16_UNORM_S8_UINT";
    case 129: return "D24_UNORM_S8_UINT";
    case 130: return "D32_SFLOAT_S8_UINT";
    default: return nullptr;
  }
}

std::string format_label(uint32_t f) {
  const char* name = vk_format_name(f);
  return name ? std::string(name) + " (VkFormat " + std::to_string(f) + ")" : "VkFormat " + std::to_string(f);
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string vulkan_version(uint32_t v) {
  if (v == 0) return "unknown";
  return std::to_string(v >> 22 & 0x7F) + "." + std::to_string(v >> 12 & 0x3FF) + "." + std::to_string(v & 0xFFF);
}

std::string bytes_text(uint64_t b) {
  if (b < 10 * 1024) return std::to_string(b) + " B";
  char buf[32];
  if (b < (uint64_t(10) << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1 << 20));
  }
  return buf;
}

std::string plural(uint64_t n, const std::string& word) {
  if (n == 1) return "1 " + word;
  if (word == "vertex" || word == "index") return std::to_string(n) + " " + (word == "vertex" ? "vertices" : "indices");
  return std::to_string(n) + " " + word + (word.back() == 's' ? "es" : "s");
}

// vertex_count counts indices for indexed draws.
bool indexed(DrawCall call) {
  return call == DrawCall::draw_indexed || call == DrawCall::draw_indexed_indirect ||
         call == DrawCall::draw_indexed_indirect_count || call == DrawCall::draw_multi_indexed;
}

template <size_t N>
std::string name(size_t i, const std::array<const char*, N>& names) {
  return i < N ? names[i] : "?";
}

// clang-format off
constexpr std::array<const char*, 11> kCallNames{"draw", "draw_indexed", "draw_indirect", "draw_indexed_indirect",
                                                 "draw_indirect_count", "draw_indexed_indirect_count", "draw_multi",
                                                 "draw_multi_indexed", "draw_mesh_tasks", "draw_mesh_tasks_indirect",
                                                 "draw_mesh_tasks_indirect_count"};
constexpr std::array<const char*, 4> kCullNames{"none", "front", "back", "front_and_back"};
constexpr std::array<const char*, 2> kFrontNames{"counter_clockwise", "clockwise"};
constexpr std::array<const char*, 8> kCompareNames{"never", "less", "equal", "less_or_equal", "greater", "not_equal",
                                                   "greater_or_equal", "always"};
constexpr std::array<const char*, 5> kStageNames{"vertex", "tessellation_control", "tessellation_evaluation",
                                                 "geometry", "fragment"};
// clang-format on

uint64_t position_bytes(const Draw& d) { return d.positions.size() * sizeof(glm::vec4); }
uint64_t id_bytes(const Draw& d) { return (d.vertex_ids.size() + d.instance_ids.size()) * sizeof(uint32_t); }

struct Totals {
  uint64_t passes = 0, draws = 0, captured = 0, triangles = 0, position_bytes = 0, id_bytes = 0;
  uint64_t attachments_read = 0, attachments_skipped = 0, texel_bytes = 0;
  std::map<std::string, uint64_t> draw_skips, attachment_skips;
};

Totals totals_of(const Capture& c) {
  Totals t;
  for (const Frame& f : c.frames) {
    t.passes += f.passes.size();
    for (const RenderPass& p : f.passes) {
      for (const Attachment& a : p.attachments) {
        if (a.texels.empty()) {
          ++t.attachments_skipped;
          ++t.attachment_skips[a.skip_reason];
        } else {
          ++t.attachments_read;
          t.texel_bytes += a.texels.size();
        }
      }
    }
    t.draws += f.draws.size();
    for (const Draw& d : f.draws) {
      if (d.captured) {
        ++t.captured;
      } else {
        ++t.draw_skips[d.skip_reason];
      }
      t.triangles += d.positions.size() / 3;
      t.position_bytes += position_bytes(d);
      t.id_bytes += id_bytes(d);
    }
  }
  return t;
}

constexpr std::array<const char*, 4> kLoadOpNames{"load", "clear", "dont_care", "none"};
constexpr std::array<const char*, 3> kStoreOpNames{"store", "dont_care", "none"};

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The earlier pass of the frame that last stored the image attachment `a` of pass `pass` loads
// (replay starts it from there), or -1 (not loaded, image unknown, or first on its image).
int64_t loaded_from(const Frame& f, size_t pass, const Attachment& a) {
  if ((a.load_op != LoadOp::load && a.load_op != LoadOp::none) || a.image == 0) return -1;
  for (size_t q = pass; q-- > 0;) {
    for (const Attachment& b : f.passes[q].attachments) {
      if (b.image == a.image && b.mip_level == a.mip_level && b.base_layer == a.base_layer)
        return b.store_op == StoreOp::dont_care ? -1 : int64_t(q);
    }
  }
  return -1;
}

std::string load_text(const Frame& f, size_t pass, const Attachment& a) {
  const std::string op = std::string("load ") + kLoadOpNames[size_t(a.load_op) < 4 ? size_t(a.load_op) : 0];
  if (a.load_op != LoadOp::load && a.load_op != LoadOp::none) return op;
  const int64_t from = loaded_from(f, pass, a);
  return op + (from >= 0 ? " (pass " + std::to_string(from) + "'s contents)" : " (contents from before the frame)");
}

std::string reasons_text(const std::map<std::string, uint64_t>& reasons) {
  std::string s;
  for (const auto& [reason, n] : reasons) s += (s.empty() ? "" : ", ") + reason + ": " + std::to_string(n);
  return s;
}

void print_info_text(std::ostream& os, const std::filesystem::path& file, uint64_t file_bytes, const Capture& c) {
  os << file.string() << ": Tessera capture, format " << c.format_version << ", " << bytes_text(file_bytes) << "\n";
  os << "application  " << (c.application.empty() ? "(unnamed)" : c.application);
  if (!c.engine.empty()) os << " (engine " << c.engine << ")";
  os << ", Vulkan " << vulkan_version(c.api_version) << "\n";
  os << "device       " << c.device << " (vendor " << hex(c.vendor_id) << ", device " << hex(c.device_id) << ")\n";
  os << "driver       " << c.driver << " (version " << driver_version_text(c.vendor_id, c.driver_version, c.driver)
     << ", raw " << c.driver_version << ")\n";
  os << "layer        " << c.layer_version << "\n";
  os << "frames       " << c.frames.size() << "\n";
  for (const Frame& f : c.frames) {
    uint64_t captured = 0, triangles = 0;
    for (const Draw& d : f.draws) {
      captured += d.captured ? 1 : 0;
      triangles += d.positions.size() / 3;
    }
    os << "\nframe " << f.number << ": " << plural(f.passes.size(), "pass") << ", " << plural(f.draws.size(), "draw")
       << " (" << captured << " captured), " << plural(triangles, "triangle") << "\n";
    for (size_t i = 0; i < f.passes.size(); ++i) {
      const RenderPass& p = f.passes[i];
      os << "  pass " << i << ": "
         << (p.dynamic_rendering ? "dynamic rendering" : "render pass, subpass " + std::to_string(p.subpass))
         << ", area " << p.area_width << "x" << p.area_height << " at (" << p.area_x << ", " << p.area_y << "), "
         << plural(p.samples, "sample");
      if (p.resumes) os << ", resumes the previous pass";
      // Clear values of the attachments that are cleared (version 1: every clear value recorded).
      size_t colour = 0;
      bool first_clear = true;
      for (const Attachment& a : p.attachments) {
        if (a.kind == AttachmentKind::depth || colour >= p.clear_colors.size()) continue;
        const glm::vec4& cc = p.clear_colors[colour++];
        if (a.load_op != LoadOp::clear) continue;
        os << (first_clear ? ", clears colour (" : ", (") << cc.r << ", " << cc.g << ", " << cc.b << ", " << cc.a
           << ")";
        first_clear = false;
      }
      if (p.clears_depth) os << ", clears depth to " << p.clear_depth;
      os << "\n";
      for (size_t k = 0; k < p.attachments.size(); ++k) {
        const Attachment& a = p.attachments[k];
        os << "    attachment " << k << ": " << (a.kind == AttachmentKind::depth ? "depth " : "colour ")
           << format_label(a.vk_format) << ", " << a.width << "x" << a.height << ", " << plural(a.samples, "sample")
           << ", " << a.texel_bytes << " B/sample";
        if (c.format_version >= 2) {
          os << ", " << load_text(f, i, a) << ", store " << name(size_t(a.store_op), kStoreOpNames);
          if (a.image) os << ", image " << hex64(a.image);
          if (a.mip_level || a.base_layer) os << " mip " << a.mip_level << " layer " << a.base_layer;
        }
        os << ": ";
        if (a.texels.empty()) {
          os << "skipped (" << a.skip_reason << ")\n";
        } else {
          os << "read back (" << bytes_text(a.texels.size()) << ")\n";
        }
      }
    }
    for (size_t i = 0; i < f.draws.size(); ++i) {
      const Draw& d = f.draws[i];
      os << "  draw " << i << ": pass " << d.pass << ", " << name(size_t(d.call), kCallNames) << ", "
         << plural(d.vertex_count, indexed(d.call) ? "index" : "vertex") << " x "
         << plural(d.instance_count, "instance") << ", ";
      if (d.captured) {
        os << "captured " << plural(d.positions.size() / 3, "triangle") << " (" << bytes_text(position_bytes(d))
           << " positions";
        if (id_bytes(d)) os << ", " << bytes_text(id_bytes(d)) << " ids";
        os << ")";
      } else {
        os << "not captured (" << d.skip_reason << ")";
      }
      os << ", cull " << name(size_t(d.state.raster.cull), kCullNames) << ", depth ";
      const DepthState& z = d.state.raster.depth;
      if (z.test) {
        os << name(size_t(z.compare), kCompareNames) << (z.write ? "" : " (no write)");
      } else {
        os << "off";
      }
      os << ", " << plural(d.shaders.size(), "shader") << "\n";
    }
  }
  const Totals t = totals_of(c);
  os << "\ntotals: " << plural(c.frames.size(), "frame") << ", " << plural(t.passes, "pass") << ", "
     << plural(t.draws, "draw") << ": " << t.captured << " captured, " << (t.draws - t.captured) << " not captured";
  if (!t.draw_skips.empty()) os << " (" << reasons_text(t.draw_skips) << ")";
  os << "\n        " << plural(t.triangles, "triangle") << ", positions " << bytes_text(t.position_bytes) << ", ids "
     << bytes_text(t.id_bytes) << "\n        attachments: " << t.attachments_read << " read back ("
     << bytes_text(t.texel_bytes) << "), " << t.attachments_skipped << " skipped";
  if (!t.attachment_skips.empty()) os << " (" << reasons_text(t.attachment_skips) << ")";
  os << "\n";
}

OJson info_json(const std::filesystem::path& file, uint64_t file_bytes, const Capture& c) {
  OJson frames = OJson::array();
  for (const Frame& f : c.frames) {
    OJson passes = OJson::array();
    for (size_t pi = 0; pi < f.passes.size(); ++pi) {
      const RenderPass& p = f.passes[pi];
      OJson attachments = OJson::array();
      for (const Attachment& a : p.attachments) {
        const int64_t from = c.format_version >= 2 ? loaded_from(f, pi, a) : -1;
        const char* fname = vk_format_name(a.vk_format);
        attachments.push_back({{"kind", a.kind == AttachmentKind::depth ? "depth" : "color"},
                               {"vk_format", a.vk_format},
                               {"format_name", fname ? OJson(fname) : OJson(nullptr)},
                               {"width", a.width},
                               {"height", a.height},
                               {"samples", a.samples},
                               {"texel_bytes", a.texel_bytes},
                               {"read_back", !a.texels.empty()},
                               {"skip_reason", a.skip_reason},
                               {"bytes", a.texels.size()},
                               {"load_op", name(size_t(a.load_op), kLoadOpNames)},
                               {"store_op", name(size_t(a.store_op), kStoreOpNames)},
                               {"image", hex64(a.image)},
                               {"mip_level", a.mip_level},
                               {"base_layer", a.base_layer},
                               {"loads_from_pass", from >= 0 ? OJson(from) : OJson(nullptr)}});
      }
      OJson clears = OJson::array();
      for (const glm::vec4& cc : p.clear_colors) clears.push_back({cc.r, cc.g, cc.b, cc.a});
      passes.push_back({{"dynamic_rendering", p.dynamic_rendering},
                        {"subpass", p.subpass},
                        {"area", {p.area_x, p.area_y, p.area_width, p.area_height}},
                        {"samples", p.samples},
                        {"clear_colors", clears},
                        {"clears_depth", p.clears_depth},
                        {"clear_depth", p.clear_depth},
                        {"resumes", p.resumes},
                        {"attachments", attachments}});
    }
    OJson draws = OJson::array();
    for (const Draw& d : f.draws) {
      OJson shaders = OJson::array();
      for (const ShaderInfo& s : d.shaders) {
        shaders.push_back({{"stage", name(size_t(s.stage), kStageNames)},
                           {"entry_point", s.entry_point},
                           {"instructions", s.instructions}});
      }
      const ClipSpaceState& r = d.state.raster;
      draws.push_back({{"pass", d.pass},
                       {"call", name(size_t(d.call), kCallNames)},
                       {"vertex_count", d.vertex_count},
                       {"instance_count", d.instance_count},
                       {"captured", d.captured},
                       {"skip_reason", d.skip_reason},
                       {"triangles", d.positions.size() / 3},
                       {"primitives_needed", d.primitives_needed},
                       {"primitives_written", d.primitives_written},
                       {"position_bytes", position_bytes(d)},
                       {"id_bytes", id_bytes(d)},
                       {"cull", name(size_t(r.cull), kCullNames)},
                       {"front_face", name(size_t(r.front_face), kFrontNames)},
                       {"depth_test", r.depth.test},
                       {"depth_write", r.depth.write},
                       {"depth_compare", name(size_t(r.depth.compare), kCompareNames)},
                       {"samples", r.samples},
                       {"shaders", shaders}});
    }
    frames.push_back({{"number", f.number}, {"passes", passes}, {"draws", draws}});
  }
  const Totals t = totals_of(c);
  return {{"file", file.string()},
          {"bytes", file_bytes},
          {"format_version", c.format_version},
          {"application", c.application},
          {"engine", c.engine},
          {"api_version", vulkan_version(c.api_version)},
          {"device", c.device},
          {"driver", c.driver},
          {"vendor_id", c.vendor_id},
          {"device_id", c.device_id},
          {"driver_version", c.driver_version},
          {"driver_version_text", driver_version_text(c.vendor_id, c.driver_version, c.driver)},
          {"layer_version", c.layer_version},
          {"frames", frames},
          {"totals",
           {{"frames", c.frames.size()},
            {"passes", t.passes},
            {"draws", t.draws},
            {"captured", t.captured},
            {"not_captured", t.draws - t.captured},
            {"not_captured_reasons", t.draw_skips},
            {"triangles", t.triangles},
            {"position_bytes", t.position_bytes},
            {"id_bytes", t.id_bytes},
            {"attachments_read_back", t.attachments_read},
            {"attachments_skipped", t.attachments_skipped},
            {"attachment_skip_reasons", t.attachment_skips},
            {"texel_bytes", t.texel_bytes}}}};
}

std::string frame_numbers(const Capture& c) {
  std::string s;
  for (size_t i = 0; i < c.frames.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(c.frames[i].number);
  if (c.frames.size() > 16) s += ", ... (" + std::to_string(c.frames.size()) + " frames)";
  return s;
}

int run_export(const CaptureArgs& args, const Capture& c) {
  const Frame* frame = nullptr;
  for (const Frame& f : c.frames) {
    if (f.number == args.frame) frame = &f;
  }
  const std::string file = args.file.string();
  if (!frame) {
    throw Error(c.frames.empty() ? file + ": --frame " + std::to_string(args.frame) + ": the capture holds no frames"
                                 : file + ": --frame " + std::to_string(args.frame) +
                                       ": not in the capture (it holds frames " + frame_numbers(c) + ")");
  }
  const std::string which = "frame " + std::to_string(frame->number);
  if (args.draw >= frame->draws.size()) {
    throw Error(file + ": --draw " + std::to_string(args.draw) + ": " + which + " has " +
                plural(frame->draws.size(), "draw") +
                (frame->draws.empty() ? "" : " (0.." + std::to_string(frame->draws.size() - 1) + ")"));
  }
  const Draw& d = frame->draws[args.draw];
  if (!d.captured) {
    throw Error(file + ": --draw " + std::to_string(args.draw) + ": " + which + "'s draw " + std::to_string(args.draw) +
                " was not captured (" + d.skip_reason + ")");
  }
  // OBJ of normalized device coordinates turned 180 degrees about x: (x, -y, -z). Vulkan's NDC
  // has y down and z into the screen; a mesh viewer's default camera (at +z, y up) then sees
  // the draw as the application's screen showed it, with the same winding.
  std::ostringstream obj;
  obj.precision(9);
  obj << "# tessera capture export: " << file << ", " << which << ", draw " << args.draw << "\n"
      << "# vertices: clip-space positions / w (NDC) as (x, -y, -z); triangles with a vertex at w <= 0 or not\n"
      << "# finite are left out\n";
  uint64_t written = 0, skipped = 0;
  for (size_t t = 0; t + 3 <= d.positions.size(); t += 3) {
    bool ok = true;
    glm::vec3 ndc[3];
    for (int k = 0; k < 3; ++k) {
      const glm::vec4& p = d.positions[t + size_t(k)];
      ndc[k] = glm::vec3(p) / p.w;
      ok = ok && p.w > 0.0f && std::isfinite(ndc[k].x) && std::isfinite(ndc[k].y) && std::isfinite(ndc[k].z);
    }
    if (!ok) {
      ++skipped;
      continue;
    }
    // + 0.0f: no "-0" in the file.
    for (const glm::vec3& v : ndc) obj << "v " << v.x + 0.0f << " " << -v.y + 0.0f << " " << -v.z + 0.0f << "\n";
    ++written;
  }
  for (uint64_t t = 0; t < written; ++t) obj << "f " << 3 * t + 1 << " " << 3 * t + 2 << " " << 3 * t + 3 << "\n";
  write_text_file(args.obj, obj.str());
  std::cout << "wrote " << args.obj.string() << ": " << which << ", draw " << args.draw << ", "
            << plural(written, "triangle");
  if (skipped) std::cout << " (" << skipped << " left out: a vertex at w <= 0 or not finite)";
  std::cout << "\n";
  return 0;
}

}  // namespace

void add_capture_command(CLI::App& app, CaptureArgs& args) {
  CLI::App* cmd = app.add_subcommand("capture", "Inspect a frame capture (.tcap) written by the Vulkan layer");
  cmd->require_subcommand(1);
  CLI::App* info = cmd->add_subcommand("info", "Frames, passes, attachments and draws of a capture, and totals");
  info->add_option("file", args.file, "Capture file (.tcap)")->required();
  info->add_flag("--json", args.json, "Print the summary as JSON");
  info->add_option("--memory-limit", args.memory_limit, "Memory budget for reading, as in render (e.g. 8G)");
  info->callback([&args] { args.action = "info"; });
  CLI::App* exp = cmd->add_subcommand("export", "Write one captured draw's triangles as an OBJ mesh (NDC)");
  exp->add_option("file", args.file, "Capture file (.tcap)")->required();
  exp->add_option("--frame", args.frame, "The frame's number, as capture info lists it")->required();
  exp->add_option("--draw", args.draw, "The draw's index in the frame, from 0")->required();
  exp->add_option("--obj", args.obj, "Output OBJ file")->required();
  exp->add_option("--memory-limit", args.memory_limit, "Memory budget for reading, as in render (e.g. 8G)");
  exp->callback([&args] { args.action = "export"; });
}

int run_capture(const CaptureArgs& args) {
  if (!args.memory_limit.empty()) apply_memory_limit_option(args.memory_limit);
  if (args.action == "export") check_outputs({{"--obj", args.obj, false}}, {{"capture", args.file, false}});
  const Capture c = read_capture(args.file);
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(args.file, ec);
  if (args.action == "export") return run_export(args, c);
  if (args.json) {
    std::cout << info_json(args.file, file_bytes, c).dump(1) << "\n";
  } else {
    print_info_text(std::cout, args.file, file_bytes, c);
  }
  return 0;
}

}  // namespace tessera::cli
