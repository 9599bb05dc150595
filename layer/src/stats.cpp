#include "stats.h"

#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <map>
#include <vector>
#include <string>
#include <string_view>

#include "tessera/color_state.h"

namespace tessera::layer {

uint64_t CpuCounters::draws() const {
  uint64_t n = 0;
  for (int i = kDraw; i <= kDrawMultiIndexed; ++i) n += v[size_t(i)];
  return n;
}

uint64_t CpuCounters::dispatches() const {
  uint64_t n = 0;
  for (int i = kDispatch; i <= kDispatchBase; ++i) n += v[size_t(i)];
  return n;
}

std::string expand_path(std::string pattern, uint32_t device, uint64_t frame, int64_t image) {
  const std::pair<const char*, std::string> keys[] = {
      {"{device}", std::to_string(device)}, {"{frame}", std::to_string(frame)}, {"{image}", std::to_string(image)}};
  for (size_t k = 0; k < (image < 0 ? 2u : 3u); ++k) {  // no image number: "{image}" stays
    const auto& [key, value] = keys[k];
    for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at + value.size()))
      pattern.replace(at, std::strlen(key), value);
  }
  return pattern;
}

// ---------------------------------------------------------------------------------------------
// Settings

namespace {

void warn(const std::string& msg) { std::fprintf(stderr, "VK_LAYER_TESSERA_stats: %s\n", msg.c_str()); }

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool parse_u64(const std::string& s, uint64_t& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || s[0] == '-') return false;
  out = v;
  return true;
}

// Applies one setting (key without the "tessera_stats." prefix). `where` names its origin.
void apply(Settings& s, const std::string& key, const std::string& value, const std::string& where) {
  auto bad = [&] { warn(where + ": bad value '" + value + "' for " + key + ", ignored"); };
  if (key == "output") {
    s.output = value;
  } else if (key == "frames") {
    // "A-B" (inclusive), "A-" (from A on), "A" (only frame A).
    uint64_t a = 0, b = UINT64_MAX;
    size_t dash = value.find('-');
    std::string lo = trim(dash == std::string::npos ? value : value.substr(0, dash));
    std::string hi = dash == std::string::npos ? lo : trim(value.substr(dash + 1));
    if (!parse_u64(lo, a) || (!hi.empty() && !parse_u64(hi, b)) || b < a) return bad();
    s.first_frame = a;
    s.last_frame = b;
  } else if (key == "interval") {
    uint64_t n = 0;
    if (!parse_u64(value, n) || n == 0) return bad();
    s.interval = n;
  } else if (key == "frame_delimiter") {
    if (value == "present")
      s.delimiter = FrameDelimiter::kPresent;
    else if (value == "submit")
      s.delimiter = FrameDelimiter::kSubmit;
    else if (value == "label")
      s.delimiter = FrameDelimiter::kLabel;
    else
      return bad();
  } else if (key == "submits_per_frame") {
    uint64_t n = 0;
    if (!parse_u64(value, n) || n == 0) return bad();
    s.submits_per_frame = n;
  } else if (key == "frame_label") {
    if (value.empty()) return bad();
    s.frame_label = value;
  } else if (key == "gpps") {
    uint64_t n = 0;
    if (!parse_u64(value, n) || n > 16) return bad();
    s.gpps = int(n);
  } else if (key == "msaa_interval") {
    uint64_t n = 0;
    if (!parse_u64(value, n)) return bad();
    s.msaa_interval = n;
  } else if (key == "capture") {
    if (!parse_capture_frames(value, s.capture)) return bad();
  } else if (key == "capture_path") {
    if (value.empty()) return bad();
    s.capture_path = value;
  } else if (key == "capture_transform_feedback") {
    if (value == "1" || value == "true" || value == "on")
      s.capture_xfb = true;
    else if (value == "0" || value == "false" || value == "off")
      s.capture_xfb = false;
    else
      return bad();
  } else if (key == "msaa_dump") {
    s.msaa_dump = value;
  } else if (key == "msaa_state_image") {
    s.msaa_state_image = value;
  } else if (key == "query_interval" || key == "gpu_time_interval") {
    uint64_t n = 0;
    if (!parse_u64(value, n) || n == 0) return bad();
    (key == "query_interval" ? s.query_interval : s.gpu_time_interval) = n;
  } else if (key == "query_granularity") {
    if (value == "render_pass")
      s.query_granularity = QueryGranularity::kRenderPass;
    else if (value == "draw")
      s.query_granularity = QueryGranularity::kDraw;
    else
      return bad();
  } else if (key == "hud_position") {
    const char* names[] = {"top_left", "top_right", "bottom_left", "bottom_right"};
    int found = -1;
    for (int i = 0; i < 4; ++i)
      if (value == names[i]) found = i;
    if (found < 0) return bad();
    s.hud_position = HudPosition(found);
  } else if (key == "hud_scale" || key == "hud_opacity") {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    const bool scale = key == "hud_scale";
    // Documented ranges; NaN fails both comparisons.
    if (value.empty() || *end != '\0' || !(v >= (scale ? 0.25 : 0.0)) || !(v <= (scale ? 4.0 : 1.0))) return bad();
    (scale ? s.hud_scale : s.hud_opacity) = float(v);
  } else if (key == "hud_refresh_ms") {
    uint64_t n = 0;
    if (!parse_u64(value, n) || n > 60000) return bad();
    s.hud_refresh_ms = n;
  } else if (key == "hud_panels") {
    uint32_t panels = 0;
    size_t at = 0;
    while (at <= value.size()) {
      const size_t comma = std::min(value.find(',', at), value.size());
      const std::string name = trim(value.substr(at, comma - at));
      int found = -1;
      for (int i = 0; i < kHudPanelCount; ++i)
        if (name == kHudPanelNames[i]) found = i;
      if (found < 0) return bad();
      panels |= 1u << found;
      at = comma + 1;
    }
    s.hud_panels = panels;
  } else if (key == "summary" || key == "queries" || key == "gpu_time" || key == "hud") {
    bool& flag = key == "summary" ? s.summary : key == "queries" ? s.queries : key == "gpu_time" ? s.gpu_time : s.hud;
    if (value == "1" || value == "true" || value == "on")
      flag = true;
    else if (value == "0" || value == "false" || value == "off")
      flag = false;
    else
      return bad();
  } else {
    warn(where + ": unknown setting tessera_stats." + key + ", ignored");
  }
}

// Keys of the settings file and their environment variables.
const char* const kKeys[][2] = {
    {"output", "TESSERA_LAYER_OUTPUT"},
    {"frames", "TESSERA_LAYER_FRAMES"},
    {"interval", "TESSERA_LAYER_INTERVAL"},
    {"frame_delimiter", "TESSERA_LAYER_FRAME_DELIMITER"},
    {"submits_per_frame", "TESSERA_LAYER_SUBMITS_PER_FRAME"},
    {"frame_label", "TESSERA_LAYER_FRAME_LABEL"},
    {"summary", "TESSERA_LAYER_SUMMARY"},
    {"queries", "TESSERA_LAYER_QUERIES"},
    {"query_interval", "TESSERA_LAYER_QUERY_INTERVAL"},
    {"query_granularity", "TESSERA_LAYER_QUERY_GRANULARITY"},
    {"gpu_time", "TESSERA_LAYER_GPU_TIME"},
    {"gpu_time_interval", "TESSERA_LAYER_GPU_TIME_INTERVAL"},
    {"hud", "TESSERA_LAYER_HUD"},
    {"hud_position", "TESSERA_LAYER_HUD_POSITION"},
    {"hud_scale", "TESSERA_LAYER_HUD_SCALE"},
    {"hud_opacity", "TESSERA_LAYER_HUD_OPACITY"},
    {"hud_panels", "TESSERA_LAYER_HUD_PANELS"},
    {"hud_refresh_ms", "TESSERA_LAYER_HUD_REFRESH_MS"},
    {"gpps", "TESSERA_LAYER_GPPS"},
    {"msaa_interval", "TESSERA_LAYER_MSAA_INTERVAL"},
    {"msaa_dump", "TESSERA_LAYER_MSAA_DUMP"},
    {"msaa_state_image", "TESSERA_LAYER_MSAA_STATE_IMAGE"},
    {"capture", "TESSERA_LAYER_CAPTURE"},
    {"capture_path", "TESSERA_LAYER_CAPTURE_PATH"},
    {"capture_transform_feedback", "TESSERA_LAYER_CAPTURE_TRANSFORM_FEEDBACK"},
};

std::string settings_file_path() {
  const char* p = std::getenv("VK_LAYER_SETTINGS_PATH");
  if (p && *p) {
    struct stat st {};
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) return std::string(p) + "/vk_layer_settings.txt";
    return p;
  }
  return "vk_layer_settings.txt";
}

}  // namespace

Settings load_settings() {
  Settings s;
  const std::string path = settings_file_path();
  std::ifstream in(path);
  if (in) {
    s.source = path;
    std::string line;
    int n = 0;
    const std::string prefix = "tessera_stats.";
    while (std::getline(in, line)) {
      ++n;
      size_t hash = line.find('#');
      if (hash != std::string::npos) line.resize(hash);
      line = trim(line);
      if (line.empty()) continue;
      size_t eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string key = trim(line.substr(0, eq));
      if (key.compare(0, prefix.size(), prefix) != 0) continue;  // another layer's setting
      apply(s, key.substr(prefix.size()), trim(line.substr(eq + 1)), path + ":" + std::to_string(n));
    }
  }
  for (const auto& kv : kKeys) {
    const char* v = std::getenv(kv[1]);
    if (v) apply(s, kv[0], trim(v), kv[1]);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Output

namespace {

// Appends the stats keys of counters [first, last) as CSV columns.
template <typename Set>
void csv_keys(std::string& s, int first, int last) {
  for (int i = first; i < last; ++i) s += std::string(",") + Set::kKeys[i];
}

// Appends counters [first, last) as JSON fields, each after a comma: a plain key as "key":v,
// consecutive "group.name" keys as one "group":{"name":v,...} object.
template <typename Set>
void json_counters(std::string& s, const Set& c, int first, int last) {
  std::string_view group;  // the open object, empty when none
  bool first_in_group = false;
  for (int i = first; i < last; ++i) {
    const std::string_view key = Set::kKeys[i];
    const size_t dot = key.find('.');
    const std::string_view g = dot == std::string_view::npos ? std::string_view() : key.substr(0, dot);
    if (g != group) {
      if (!group.empty()) s += '}';
      if (!g.empty()) s.append(",\"").append(g).append("\":{");
      group = g;
      first_in_group = true;
    }
    if (group.empty() || !first_in_group) s += ',';
    s.append("\"").append(group.empty() ? key : key.substr(dot + 1)).append("\":");
    s += std::to_string(c.v[size_t(i)]);
    first_in_group = false;
  }
  if (!group.empty()) s += '}';
}

}  // namespace

Output::~Output() {
  if (file_) std::fclose(file_);
}

bool Output::ensure_open() {
  if (file_) return true;
  if (failed_ || settings_.output.empty()) return false;
  const std::string& p = settings_.output;
  csv_ = p.size() >= 4 && p.compare(p.size() - 4, 4, ".csv") == 0;
  file_ = std::fopen(p.c_str(), "w");
  if (!file_) {
    failed_ = true;
    warn("cannot write '" + p + "' (" + std::strerror(errno) + "); per-frame records are off");
    return false;
  }
  if (csv_) {
    std::string h = "device,frame,cpu_frame_time_ms,gpu_ms,gpu_complete,submits,command_buffers,draws";
    csv_keys<CpuCounters>(h, CpuCounters::kDraw, CpuCounters::kDispatch);
    h += ",dispatches";
    csv_keys<CpuCounters>(h, CpuCounters::kDispatch, CpuCounters::count);
    h += ",query_complete,query_segments";
    csv_keys<QueryCounters>(h, 0, QueryCounters::count);
    h += ",gpp.count,gpp.patches,gpp.domain_points";
    for (int i = 0; i < settings_.gpps; ++i) h += ",gpp.busy_cycles." + std::to_string(i);
    h += ",gpp.max_busy_cycles,gpp.mean_busy_cycles,gpp.balance,gpp.makespan_cycles,gpp.speedup_vs_1gpp"
         ",gpp.speedup_vs_noredist,gpp.estimate_exact";
    h += ",msaa.images,msaa.samples,msaa.tiles";
    for (int c = 0; c < kColorStateCodes; ++c)
      if (const char* n = color_tile_state_name(uint8_t(c))) h += std::string(",msaa.tiles_by_state.") + n;
    h += ",msaa.stored_bytes,msaa.uncompressed_bytes,msaa.planes_only_bytes,msaa.ratio,msaa.skipped";
    for (const char* k : MsaaSkips::kKeys) h += std::string(",msaa.") + k;
    std::fprintf(file_, "%s\n", h.c_str());
  }
  return true;
}

namespace {

std::string u(uint64_t v) { return std::to_string(v); }

// 17 significant digits: a double reads back bit for bit.
std::string d(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string json_gpp(const GppFrameModel& g) {
  if (!g.valid) return "null";
  std::string s = "{\"count\":" + u(uint64_t(g.count)) + ",\"patches\":" + u(g.patches) +
                  ",\"domain_points\":" + u(g.domain_points) + ",\"busy_cycles\":[";
  for (size_t i = 0; i < g.busy_cycles.size(); ++i) s += (i ? "," : "") + d(g.busy_cycles[i]);
  s += "],\"max_busy_cycles\":" + d(g.max_busy_cycles) + ",\"mean_busy_cycles\":" + d(g.mean_busy_cycles) +
       ",\"balance\":" + d(g.balance) + ",\"makespan_cycles\":" + d(g.makespan_cycles) +
       ",\"speedup_vs_1gpp\":" + d(g.speedup_vs_1gpp) + ",\"speedup_vs_noredist\":" + d(g.speedup_vs_noredist) +
       ",\"estimate_exact\":" + (g.estimate_exact ? "true" : "false") + "}";
  return s;
}

double ratio(const MsaaFrameStats& m) {
  return m.uncompressed_bytes ? double(m.stored_bytes) / double(m.uncompressed_bytes) : 0.0;
}

std::string json_msaa(const MsaaFrameStats& m) {
  if (!m.valid) return "null";
  std::string s = "{\"images\":" + u(m.images) + ",\"samples\":" + u(m.samples) + ",\"tiles\":" + u(m.tiles) +
                  ",\"tiles_by_state\":{";
  bool first = true;
  for (int c = 0; c < kColorStateCodes; ++c) {
    const char* n = color_tile_state_name(uint8_t(c));
    if (!n) continue;
    s += std::string(first ? "" : ",") + "\"" + n + "\":" + u(m.tiles_by_state[c]);
    first = false;
  }
  s += "},\"stored_bytes\":" + u(m.stored_bytes) + ",\"uncompressed_bytes\":" + u(m.uncompressed_bytes) +
       ",\"planes_only_bytes\":" + u(m.planes_only_bytes) + ",\"ratio\":" + d(ratio(m)) +
       ",\"skipped\":" + u(m.skipped);
  json_counters(s, m.skipped_by_reason, 0, MsaaSkips::count);
  return s + "}";
}

std::string csv_msaa(const MsaaFrameStats& m) {
  std::string s;
  const bool v = m.valid;
  s += "," + (v ? u(m.images) : "") + "," + (v ? u(m.samples) : "") + "," + (v ? u(m.tiles) : "");
  for (int c = 0; c < kColorStateCodes; ++c)
    if (color_tile_state_name(uint8_t(c))) s += "," + (v ? u(m.tiles_by_state[c]) : "");
  s += "," + (v ? u(m.stored_bytes) : "") + "," + (v ? u(m.uncompressed_bytes) : "") + "," +
       (v ? u(m.planes_only_bytes) : "") + "," + (v ? d(ratio(m)) : "") + "," + (v ? u(m.skipped) : "");
  for (uint64_t n : m.skipped_by_reason.v) s += "," + (v ? u(n) : "");
  return s;
}

// The GPP columns: empty for a frame without tessellation.
std::string csv_gpp(const GppFrameModel& g, int columns) {
  std::string s;
  if (!g.valid) {
    for (int i = 0; i < columns + 10; ++i) s += ",";
    return s;
  }
  s += "," + u(uint64_t(g.count)) + "," + u(g.patches) + "," + u(g.domain_points);
  for (int i = 0; i < columns; ++i) s += "," + (size_t(i) < g.busy_cycles.size() ? d(g.busy_cycles[size_t(i)]) : "");
  s += "," + d(g.max_busy_cycles) + "," + d(g.mean_busy_cycles) + "," + d(g.balance) + "," + d(g.makespan_cycles) +
       "," + d(g.speedup_vs_1gpp) + "," + d(g.speedup_vs_noredist) + "," + (g.estimate_exact ? "1" : "0");
  return s;
}

std::string json_frame(const FrameRecord& r) {
  const CpuCounters& c = r.cpu;
  char ms[64];
  std::snprintf(ms, sizeof ms, "%.3f", r.cpu_frame_time_ms);
  std::string s = "{\"device\":" + u(r.device) + ",\"frame\":" + u(r.frame) + ",\"cpu_frame_time_ms\":" + ms +
                  ",\"gpu_ms\":" + (r.gpu_ms < 0 ? std::string("null") : d(r.gpu_ms)) +
                  ",\"gpu_complete\":" + (r.gpu_complete ? "true" : "false") + ",\"submits\":" + u(r.submits) +
                  ",\"command_buffers\":" + u(r.command_buffers) + ",\"draws\":" + u(c.draws());
  json_counters(s, c, CpuCounters::kDraw, CpuCounters::kDispatch);
  s += ",\"dispatches\":" + u(c.dispatches());
  json_counters(s, c, CpuCounters::kDispatch, CpuCounters::count);
  if (r.query_enabled) {
    s += ",\"query_complete\":" + std::string(r.query_complete ? "true" : "false") +
         ",\"query_segments\":" + u(r.query_segments);
    json_counters(s, r.query, 0, QueryCounters::count);
  } else {
    s += ",\"query_complete\":false,\"query_segments\":0,\"query\":null";
  }
  return s + ",\"gpp\":" + json_gpp(r.gpp) + ",\"msaa\":" + json_msaa(r.msaa) + "}";
}

std::string csv_frame(const FrameRecord& r, int gpp_columns) {
  const CpuCounters& c = r.cpu;
  char ms[64];
  std::snprintf(ms, sizeof ms, "%.3f", r.cpu_frame_time_ms);
  std::string s = u(r.device) + "," + u(r.frame) + "," + ms + "," + (r.gpu_ms < 0 ? std::string() : d(r.gpu_ms)) + "," +
                  (r.gpu_complete ? "1" : "0") + "," + u(r.submits) + "," + u(r.command_buffers) + "," + u(c.draws());
  for (int i = 0; i < CpuCounters::count; ++i) {
    if (i == CpuCounters::kDispatch) s += "," + u(c.dispatches());
    s += "," + u(c.v[size_t(i)]);
  }
  s += std::string(",") + (r.query_enabled && r.query_complete ? "1" : "0") + "," + u(r.query_segments);
  for (uint64_t v : r.query.v) s += "," + (r.query_enabled ? u(v) : std::string());
  return s + csv_gpp(r.gpp, gpp_columns) + csv_msaa(r.msaa);
}

std::string json_times(const TimeSummary& t) {
  if (t.n == 0) return "null";
  return "{\"frames\":" + u(t.n) + ",\"mean\":" + d(t.mean) + ",\"p50\":" + d(t.p50) + ",\"p95\":" + d(t.p95) +
         ",\"p99\":" + d(t.p99) + ",\"exact\":" + (t.exact ? "true" : "false") + "}";
}

std::string text_times(const char* what, const TimeSummary& t) {
  if (t.n == 0) return std::string("; ") + what + " frame time not measured";
  char buf[200];
  std::snprintf(buf, sizeof buf, "; %s frame time ms mean %.3f p50 %.3f p95 %.3f p99 %.3f (%llu frames%s)", what,
                t.mean, t.p50, t.p95, t.p99, static_cast<unsigned long long>(t.n),
                t.exact ? "" : ", percentiles within 0.5%");
  return buf;
}

}  // namespace

bool Output::write_frame(const FrameRecord& r) {
  std::lock_guard lock(mutex_);
  if (!ensure_open()) return false;
  std::string line = csv_ ? csv_frame(r, settings_.gpps) : json_frame(r);
  std::fprintf(file_, "%s\n", line.c_str());
  std::fflush(file_);
  return true;
}

void Output::write_summary(const FrameRecord& t, uint64_t frames, uint64_t frames_written, uint64_t query_lost,
                           const std::string& query_note, const TimeSummary& cpu_times, const TimeSummary& gpu_times) {
  std::lock_guard lock(mutex_);
  const CpuCounters& c = t.cpu;
  if (ensure_open() && !csv_) {
    std::string s =
        "{\"summary\":true,\"device\":" + u(t.device) + ",\"frames\":" + u(frames) +
        ",\"frames_written\":" + u(frames_written) + ",\"submits\":" + u(t.submits) +
        ",\"command_buffers\":" + u(t.command_buffers) + ",\"draws\":" + u(c.draws()) +
        ",\"instances\":" + u(c[CpuCounters::kInstances]) + ",\"vertices\":" + u(c[CpuCounters::kVertices]) +
        ",\"indices\":" + u(c[CpuCounters::kIndices]) + ",\"dispatches\":" + u(c.dispatches()) +
        ",\"queries_enabled\":" + (t.query_enabled ? "true" : "false") + ",\"query_segments\":" + u(t.query_segments) +
        ",\"query_lost\":" + u(query_lost) + ",\"query_note\":\"" + query_note + "\"";
    if (t.query_enabled) json_counters(s, t.query, 0, QueryCounters::count);
    if (settings_.msaa_interval > 0) s += ",\"msaa\":" + json_msaa(t.msaa);
    s += ",\"cpu_frame_time_ms\":" + json_times(cpu_times) + ",\"gpu_ms\":" + json_times(gpu_times);
    std::fprintf(file_, "%s}\n", s.c_str());
    std::fflush(file_);
  }
  if (settings_.summary) {
    // The MSAA read-back's totals, every skipped attachment by reason (docs/layer.md).
    std::string msaa;
    if (settings_.msaa_interval > 0) {
      msaa = "; MSAA read-back: " + u(t.msaa.images) + " images read, " + u(t.msaa.skipped) + " skipped";
      std::string reasons;
      for (int i = 0; i < MsaaSkips::count; ++i)
        if (t.msaa.skipped_by_reason.v[size_t(i)])
          reasons += std::string(reasons.empty() ? "" : ", ") + (std::strchr(MsaaSkips::kKeys[i], '.') + 1) + " " +
                     u(t.msaa.skipped_by_reason.v[size_t(i)]);
      if (!reasons.empty()) msaa += " (" + reasons + ")";
    }
    std::string query_state = t.query_enabled ? (query_lost ? "partly lost" : "on") : query_note;
    if (t.query_enabled && !query_note.empty()) query_state += " (" + query_note + ")";
    // Name the file only where records reached it; a file that failed to open says so.
    const std::string where = settings_.output.empty() ? ""
                              : failed_                ? " (cannot write " + settings_.output + ")"
                                                       : " to " + settings_.output;
    std::fprintf(stderr,
                 "VK_LAYER_TESSERA_stats: device %u: %" PRIu64 " frames (%" PRIu64 " written%s), %" PRIu64
                 " draws, %" PRIu64 " vertices, %" PRIu64 " dispatches; pipeline statistics %s%s%s%s\n",
                 t.device, frames, frames_written, where.c_str(), c.draws(), c[CpuCounters::kVertices], c.dispatches(),
                 query_state.c_str(), msaa.c_str(), text_times("CPU", cpu_times).c_str(),
                 text_times("GPU", gpu_times).c_str());
  }
}

}  // namespace tessera::layer
