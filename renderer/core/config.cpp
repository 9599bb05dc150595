#include "tessera/config.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "tessera/error.h"
#include "tessera/input_file.h"

namespace tessera {

namespace {

using json = nlohmann::json;

// Every config field, once: X(section, field). The JSON reader and writer are generated from
// it, so a new key cannot be read but not written (docs/config.md documents each).
// clang-format off
#define TESSERA_CONFIG_FIELDS(X)                                                          \
  X(frame, width) X(frame, height) X(frame, threads) X(frame, keep_samples) X(frame, diagnostics) X(frame, mode) \
  X(raster, tile_size) X(raster, cull_backface) X(raster, guard_band) X(raster, store_depth) \
  X(raster, msaa)                                                                         \
  X(color, cache_bytes) X(color, line_bytes) X(color, ways) X(color, compression)         \
  X(color, accounting)                                                                    \
  X(tiling, mode) X(tiling, atomic_size) X(tiling, tile_buffer_bytes) X(tiling, alpha) \
  X(tiling, accounting) X(tiling, baselines)                                                                    \
  X(tessellation, gpps) X(tessellation, batch_size) X(tessellation, policy)               \
  X(tessellation, baselines) X(tessellation, gpp_map) X(tessellation, design)                                    \
  X(trace, shadows) X(trace, reflections) X(trace, diffuse_samples) X(trace, seed)        \
  X(rt, lod) X(rt, lod_selection) X(rt, residency) X(rt, budget_mib) X(rt, lod_jitter) X(rt, diffuse_lod_bias)  \
  X(rt, shadow_lod_level)                                                                 \
  X(hardware, preset) X(hardware, clock_mhz) X(hardware, eus) X(hardware, eu_lanes)       \
  X(hardware, eu_issue_per_clock) X(hardware, math_library) X(hardware, setup_per_clock) X(hardware, bin_entries_per_clock) \
  X(hardware, raster_slices) X(hardware, raster_samples_per_clock) X(hardware, texels_per_clock) \
  X(hardware, depth_samples_per_clock) X(hardware, color_samples_per_clock)              \
  X(hardware, memory_bytes_per_clock) X(hardware, memory_latency_clocks) X(hardware, rt_units) \
  X(hardware, rt_box_tests_per_clock) X(hardware, rt_triangle_tests_per_clock)
// clang-format on

constexpr const char* kSections[] = {"frame", "raster", "color", "tiling", "tessellation", "trace", "rt", "hardware"};

// Reads one object strictly: every key must be consumed by a field reader.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, const std::string& what) : j_(j), path_(std::move(path)), what_(what) {
    if (!j.is_object()) fail(path_, "expected an object");
  }

  template <typename T>
  void field(const char* key, T& out) {
    auto it = j_.find(key);
    seen_.push_back(key);
    if (it == j_.end()) return;
    const std::string p = path_ + "." + key;
    if constexpr (std::is_enum_v<T>) {
      if (!it->is_string()) fail(p, "expected a string");
      try {
        out = parse_choice<T>(p, it->get<std::string>());
      } catch (const Error& e) {
        throw Error(what_ + ": " + e.what());
      }
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) fail(p, "expected a string");
      out = it->get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) fail(p, "expected true or false");
      out = it->get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!it->is_number_integer()) fail(p, "expected an integer");
      // Range-check in 64 bits before narrowing: get<int>() would wrap 4294967297 to 1 and
      // slip it past validate_config.
      const bool fits =
          it->is_number_unsigned() ? std::in_range<T>(it->get<uint64_t>()) : std::in_range<T>(it->get<int64_t>());
      if (!fits) {
        fail(p, it->dump() + " is out of range [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                    std::to_string(std::numeric_limits<T>::max()) + "]");
      }
      out = it->get<T>();
    } else {
      if (!it->is_number()) fail(p, "expected a number");
      out = it->get<T>();
      if (!std::isfinite(double(out))) fail(p, "must be finite");
    }
  }

  const json* child(const char* key) {
    seen_.push_back(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }

  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      bool known = false;
      for (const auto& k : seen_) known = known || k == it.key();
      if (!known) fail(path_ + "." + it.key(), "unknown key");
    }
  }

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw Error(what_ + ": " + path + ": " + msg);
  }

 private:
  const json& j_;
  std::string path_;
  const std::string& what_;
  std::vector<std::string> seen_;
};

void range(const std::string& what, const char* key, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi)) {
    std::ostringstream os;
    os << what << ": " << key << " = " << v << " is out of range [" << lo << ", " << hi << "]";
    throw Error(os.str());
  }
}

template <typename T>
auto json_value(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return std::string(choice_name(v));
  } else {
    return v;
  }
}

}  // namespace

void throw_bad_choice(std::string_view key, std::string_view value, const std::string_view* names, size_t count) {
  std::string list;
  for (size_t i = 0; i < count; ++i) {
    if (i) list += i + 1 == count ? " or " : ", ";
    list += "\"" + std::string(names[i]) + "\"";
  }
  throw Error("config: " + std::string(key) + " = \"" + std::string(value) + "\" is not " + list);
}

HardwareConfig hardware_preset(HardwarePreset preset) {
  HardwareConfig h;
  h.preset = preset;
  switch (preset) {
    case HardwarePreset::small:  // a phone/integrated GPU, loosely Arm Mali-G710 MC10
      h.clock_mhz = 850.0;
      h.eus = 20;
      h.setup_per_clock = 0.5;
      h.bin_entries_per_clock = 2.0;
      h.raster_slices = 2;
      h.raster_samples_per_clock = 16.0;
      h.texels_per_clock = 8.0;
      h.depth_samples_per_clock = 32.0;
      h.color_samples_per_clock = 8.0;
      h.memory_bytes_per_clock = 40.0;  // ~34 GB/s LPDDR5
      h.memory_latency_clocks = 300;
      h.rt_units = 10;
      h.rt_box_tests_per_clock = 2.0;
      h.rt_triangle_tests_per_clock = 0.5;
      break;
    case HardwarePreset::medium:  // the defaults: a mid-range desktop GPU, loosely AMD RX 7600
      break;
    case HardwarePreset::large:  // a high-end desktop GPU, loosely NVIDIA RTX 4090
      h.clock_mhz = 2500.0;
      h.eus = 1024;
      h.setup_per_clock = 8.0;
      h.bin_entries_per_clock = 32.0;
      h.raster_slices = 11;
      h.raster_samples_per_clock = 64.0;
      h.texels_per_clock = 48.0;
      h.depth_samples_per_clock = 64.0;
      h.color_samples_per_clock = 16.0;
      h.memory_bytes_per_clock = 400.0;  // ~1 TB/s GDDR6X
      h.memory_latency_clocks = 500;
      h.rt_units = 128;
      h.rt_box_tests_per_clock = 4.0;
      h.rt_triangle_tests_per_clock = 1.0;
      break;
  }
  return h;
}

void validate_config(const Config& c) {
  const std::string what = "config";
  range(what, "frame.width", c.frame.width, 1, 16384);
  range(what, "frame.height", c.frame.height, 1, 16384);
  range(what, "frame.threads", c.frame.threads, 0, 1024);
  range(what, "trace.diffuse_samples", c.trace.diffuse_samples, 0, 64);
  range(what, "rt.budget_mib", c.rt.budget_mib, 1.0 / 1024.0, 1024.0 * 1024.0);
  range(what, "rt.lod_jitter", c.rt.lod_jitter, 0, 1e7);
  range(what, "rt.diffuse_lod_bias", c.rt.diffuse_lod_bias, -1e7, 1e7);
  range(what, "rt.shadow_lod_level", c.rt.shadow_lod_level, -1, 3);
  range(what, "raster.tile_size", c.raster.tile_size, 8, 1024);
  if (c.raster.tile_size % 8 != 0) throw Error("config: raster.tile_size must be a multiple of 8");
  range(what, "raster.guard_band", c.raster.guard_band, 0, 32768);
  if (c.color.line_bytes != 64 && c.color.line_bytes != 128) {
    throw Error("config: color.line_bytes = " + std::to_string(c.color.line_bytes) + " is not 64 or 128");
  }
  range(what, "color.ways", c.color.ways, 1, 64);
  range(what, "color.cache_bytes", c.color.cache_bytes, double(c.color.line_bytes) * c.color.ways, 64.0 * 1024 * 1024);
  if (c.color.cache_bytes % (c.color.line_bytes * c.color.ways) != 0) {
    throw Error("config: color.cache_bytes must be a multiple of line_bytes x ways (" +
                std::to_string(c.color.line_bytes * c.color.ways) + ")");
  }
  range(what, "tiling.atomic_size", c.tiling.atomic_size, 8, 256);
  if (c.tiling.atomic_size % 8 != 0) throw Error("config: tiling.atomic_size must be a multiple of 8");
  range(what, "tiling.tile_buffer_bytes", c.tiling.tile_buffer_bytes, 1024, 1 << 30);
  range(what, "tiling.alpha", c.tiling.alpha, 0, 1);
  range(what, "tessellation.gpps", c.tessellation.gpps, 1, 16);
  range(what, "tessellation.batch_size", c.tessellation.batch_size, 1, 1024);
  const HardwareConfig& h = c.hardware;
  range(what, "hardware.clock_mhz", h.clock_mhz, 1.0, 1e5);
  range(what, "hardware.eus", h.eus, 1, 1 << 16);
  range(what, "hardware.eu_lanes", h.eu_lanes, 1, 1024);
  range(what, "hardware.eu_issue_per_clock", h.eu_issue_per_clock, 1e-3, 64);
  range(what, "hardware.setup_per_clock", h.setup_per_clock, 1e-3, 1024);
  range(what, "hardware.bin_entries_per_clock", h.bin_entries_per_clock, 1e-3, 1024);
  range(what, "hardware.raster_slices", h.raster_slices, 1, 1024);
  range(what, "hardware.raster_samples_per_clock", h.raster_samples_per_clock, 1e-3, 1 << 16);
  range(what, "hardware.texels_per_clock", h.texels_per_clock, 1e-3, 1 << 16);
  range(what, "hardware.depth_samples_per_clock", h.depth_samples_per_clock, 1e-3, 1 << 16);
  range(what, "hardware.color_samples_per_clock", h.color_samples_per_clock, 1e-3, 1 << 16);
  range(what, "hardware.memory_bytes_per_clock", h.memory_bytes_per_clock, 1e-3, 1 << 20);
  range(what, "hardware.memory_latency_clocks", h.memory_latency_clocks, 0, 1 << 20);
  range(what, "hardware.rt_units", h.rt_units, 1, 1 << 16);
  range(what, "hardware.rt_box_tests_per_clock", h.rt_box_tests_per_clock, 1e-3, 1024);
  range(what, "hardware.rt_triangle_tests_per_clock", h.rt_triangle_tests_per_clock, 1e-3, 1024);
  if (c.raster.msaa != 1 && c.raster.msaa != 2 && c.raster.msaa != 4 && c.raster.msaa != 8) {
    throw Error("config: raster.msaa = " + std::to_string(c.raster.msaa) + " is not one of 1, 2, 4, 8");
  }
}

Config config_from_json_text(const std::string& text, const std::string& what) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error for bad syntax, out_of_range.406 for a number such as 1e999 that overflows.
    throw Error(what + ": invalid JSON: " + e.what());
  }
  Config c;
  ObjectReader root(j, "$", what);
  // Sections in file order; within each, every field of TESSERA_CONFIG_FIELDS.
  for (const char* section : kSections) {
    const json* f = root.child(section);
    if (!f) continue;
    ObjectReader r(*f, section, what);
    // A preset fills the whole section first; the keys given beside it override.
    if (std::string_view(section) == "hardware") {
      HardwarePreset preset = c.hardware.preset;
      r.field("preset", preset);
      c.hardware = hardware_preset(preset);
    }
#define TESSERA_X(sec, name) \
  if (std::string_view(section) == #sec) r.field(#name, c.sec.name);
    TESSERA_CONFIG_FIELDS(TESSERA_X)
#undef TESSERA_X
    r.finish();
  }
  root.finish();
  try {
    validate_config(c);
  } catch (const Error& e) {
    throw Error(what + ": " + e.what());
  }
  return c;
}

Config load_config(const std::filesystem::path& path) {
  return config_from_json_text(read_input_file(path, kMaxJsonFileBytes, "config"), path.string());
}

namespace {

// The JSON value a --set text stands for, typed by the field it sets: choices and strings take
// the text itself (quotes optional), everything else parses as JSON so "8", "0.5" and "true"
// read as in a file; text that is not JSON stays a string and fails the field's type check with
// the file's message ("expected an integer").
template <typename T>
json override_value(std::string_view text) {
  if constexpr (std::is_enum_v<T> || std::is_same_v<T, std::string>) {
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    return json(std::string(text));
  } else {
    json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (v.is_discarded()) return json(std::string(text));
    return v;
  }
}

}  // namespace

void apply_config_override(Config& c, std::string_view dotted_key, std::string_view value_text) {
  const std::string what = "--set " + std::string(dotted_key) + "=" + std::string(value_text);
  const size_t dot = dotted_key.find('.');
  const std::string section(dotted_key.substr(0, dot));
  const std::string field = dot == std::string_view::npos ? "" : std::string(dotted_key.substr(dot + 1));
  bool known_section = false;
  for (const char* s : kSections) known_section = known_section || section == s;
  if (!known_section || field.empty()) {
    std::string list;
    for (const char* s : kSections) list += std::string(list.empty() ? "" : ", ") + s;
    throw Error(what + ": " + std::string(dotted_key) + ": unknown key (expected SECTION.KEY, sections: " + list + ")");
  }
  json obj = json::object();
  bool known_field = false;
  // The field's type picks how the text reads; the same ObjectReader as a file then checks it.
#define TESSERA_X(sec, name)                                                                \
  if (section == #sec && field == #name) {                                                  \
    obj[field] = override_value<std::remove_reference_t<decltype(c.sec.name)>>(value_text); \
    known_field = true;                                                                     \
  }
  TESSERA_CONFIG_FIELDS(TESSERA_X)
#undef TESSERA_X
  if (!known_field) throw Error(what + ": " + std::string(dotted_key) + ": unknown key");
  ObjectReader r(obj, section, what);
  if (section == "hardware" && field == "preset") {
    HardwarePreset preset = c.hardware.preset;
    r.field("preset", preset);
    c.hardware = hardware_preset(preset);
    return;
  }
#define TESSERA_X(sec, name) \
  if (section == #sec && field == #name) r.field(#name, c.sec.name);
  TESSERA_CONFIG_FIELDS(TESSERA_X)
#undef TESSERA_X
  r.finish();
}

void apply_config_settings(Config& c, const std::vector<std::string>& settings) {
  for (const std::string& s : settings) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--set " + s + ": expected KEY=VALUE, e.g. tessellation.gpps=8");
    apply_config_override(c, std::string_view(s).substr(0, eq), std::string_view(s).substr(eq + 1));
  }
  try {
    validate_config(c);
  } catch (const Error& e) {
    if (settings.empty()) throw;
    std::string list;
    for (const std::string& s : settings) list += (list.empty() ? "" : " ") + s;
    throw Error("--set " + list + ": " + e.what());
  }
}

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
#define TESSERA_X(sec, name) keys.push_back(#sec "." #name);
  TESSERA_CONFIG_FIELDS(TESSERA_X)
#undef TESSERA_X
  return keys;
}

std::string config_to_json_text(const Config& c) {
  nlohmann::ordered_json j;
#define TESSERA_X(sec, name) j[#sec][#name] = json_value(c.sec.name);
  TESSERA_CONFIG_FIELDS(TESSERA_X)
#undef TESSERA_X
  return j.dump(2);
}

}  // namespace tessera
