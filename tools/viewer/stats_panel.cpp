#include "viewer/stats_panel.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <variant>

#include <imgui.h>

namespace tessera::viewer {

namespace {

std::string group_thousands(const std::string& digits) {
  std::string out;
  const size_t first = (digits.size() > 0 && digits[0] == '-') ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    out += digits[i];
    const size_t left = digits.size() - 1 - i;
    if (i >= first && left > 0 && left % 3 == 0) out += ',';
  }
  return out;
}

void insert(std::vector<StatsNode>& level, const std::string& name, size_t from, const std::string& value) {
  const size_t dot = name.find('.', from);
  const std::string part = name.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
  auto it = std::find_if(level.begin(), level.end(), [&](const StatsNode& n) { return n.label == part; });
  if (it == level.end()) {
    level.push_back({part, {}, {}});
    it = level.end() - 1;
  }
  if (dot == std::string::npos) {
    it->value = value;
  } else {
    insert(it->children, name, dot + 1, value);
  }
}

void draw_node(const StatsNode& node, int depth) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (node.children.empty()) {
    ImGui::TreeNodeEx(node.label.c_str(),
                      ImGuiTreeNodeFlags_Leaf | ImGuiTreeNodeFlags_NoTreePushOnOpen | ImGuiTreeNodeFlags_SpanFullWidth);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(node.value.c_str());
    return;
  }
  if (depth == 0) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  const bool open = ImGui::TreeNodeEx(node.label.c_str(), ImGuiTreeNodeFlags_SpanFullWidth);
  ImGui::TableNextColumn();
  if (!node.value.empty()) ImGui::TextUnformatted(node.value.c_str());
  if (open) {
    for (const StatsNode& child : node.children) draw_node(child, depth + 1);
    ImGui::TreePop();
  }
}

// Short form for plot captions: 4 significant digits, k/M/G above a thousand.
std::string compact_number(double v) {
  char buf[32];
  const double a = std::abs(v);
  if (a >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
  else if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  else if (a >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

double number(const Stats& stats, const std::string& name) { return stats.has(name) ? stats.get_number(name) : 0.0; }

}  // namespace

std::string format_stat(const Stats::Value& value) {
  if (const auto* u = std::get_if<uint64_t>(&value)) return group_thousands(std::to_string(*u));
  if (const auto* i = std::get_if<int64_t>(&value)) return group_thousands(std::to_string(*i));
  if (const auto* d = std::get_if<double>(&value)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", *d);
    return buf;
  }
  return std::get<std::string>(value);
}

std::vector<StatsNode> build_stats_tree(const Stats& stats) {
  std::vector<StatsNode> roots;
  for (const auto& [name, value] : stats.values()) insert(roots, name, 0, format_stat(value));
  return roots;
}

void draw_stats_tree(const std::vector<StatsNode>& roots) {
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersV | ImGuiTableFlags_RowBg | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("stats", 2, flags)) return;
  // Both columns share the panel's width (names a little more), so narrow panels clip both
  // rather than hiding the names.
  ImGui::TableSetupColumn("statistic", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  for (const StatsNode& root : roots) draw_node(root, 0);
  ImGui::EndTable();
}

StatsHistory::Series& StatsHistory::find_or_add(const std::string& title, std::vector<std::string> terms) {
  for (Series& s : series_) {
    if (s.title == title) return s;
  }
  series_.push_back({title, std::move(terms), {}});
  return series_.back();
}

void StatsHistory::add(const Stats& stats) {
  find_or_add("frame time (ms)", {"frame.time_ms.total"});
  find_or_add("triangles set up", {"raster.triangles.setup"});
  find_or_add("fragments covered", {"raster.fragments.covered"});
  const std::string prefix = "memory.", suffix = ".read_bytes";
  for (const auto& [name, value] : stats.values()) {
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const std::string client = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    find_or_add("memory " + client + " (bytes read + written)",
                {prefix + client + ".read_bytes", prefix + client + ".written_bytes"});
  }
  // Headline series of units that report only in some frames (the colour unit with MSAA)
  // appear once a frame carries them; afterwards frames without them plot 0.
  static const struct {
    const char* title;
    const char* key;
  } kUnitSeries[] = {
      {"colour stored / uncompressed", "color.ratio.vs_uncompressed"},
      {"colour cache hit rate", "color.cache.hit_rate"},
      {"supertile generation (ms)", "frame.time_ms.supertile_generation"},
  };
  for (const auto& u : kUnitSeries) {
    if (stats.has(u.key)) find_or_add(u.title, {u.key});
  }
  for (Series& s : series_) {
    double v = 0;
    for (const std::string& term : s.terms) v += number(stats, term);
    if (s.values.size() == kCapacity) s.values.erase(s.values.begin());
    s.values.push_back(float(v));
  }
}

void draw_stats_history(const StatsHistory& history) {
  if (history.series().empty()) {
    ImGui::TextDisabled("No frames yet.");
    return;
  }
  const float width = ImGui::GetContentRegionAvail().x;
  for (const StatsHistory::Series& s : history.series()) {
    const auto [lo, hi] = std::minmax_element(s.values.begin(), s.values.end());
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "last %s  (min %s, max %s)", compact_number(s.values.back()).c_str(),
                  compact_number(*lo).c_str(), compact_number(*hi).c_str());
    ImGui::TextUnformatted(s.title.c_str());
    ImGui::PushID(s.title.c_str());
    // Scale from 0 so a flat series reads as flat rather than as noise.
    ImGui::PlotLines("##plot", s.values.data(), int(s.values.size()), 0, overlay, 0.0f, *hi > 0 ? *hi * 1.1f : 1.0f,
                     ImVec2(width, ImGui::GetFontSize() * 3.0f));
    ImGui::PopID();
  }
}

std::vector<TimingBar> timing_bars(const Stats& stats) {
  std::vector<TimingBar> bars;
  if (!stats.has("timing.clock_mhz")) return bars;
  const double per_ms = stats.get_number("timing.clock_mhz") * 1000.0;
  const std::string prefix = "timing.unit.", suffix = ".cycles";
  for (const auto& [key, value] : stats.values()) {
    if (key.rfind(prefix, 0) != 0 || key.size() <= prefix.size() + suffix.size() ||
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    TimingBar bar;
    bar.unit = key.substr(prefix.size(), key.size() - prefix.size() - suffix.size());
    bar.ms = stats.get_number(key) / per_ms;
    const std::string utilization = prefix + bar.unit + ".utilization";
    bar.share = stats.has(utilization) ? stats.get_number(utilization) : 0.0;
    bars.push_back(bar);
  }
  return bars;
}

void draw_timing_bars(const Stats& stats) {
  const std::vector<TimingBar> bars = timing_bars(stats);
  if (bars.empty()) {
    ImGui::TextDisabled("No timing for this frame (raster frames only).");
    return;
  }
  const auto* limiter = std::get_if<std::string>(&stats.get("timing.bottleneck.frame"));
  ImGui::Text("Modelled frame: %.3f ms on %s hardware, limited by %s", stats.get_number("timing.frame.ms"),
              std::get<std::string>(stats.get("timing.hardware")).c_str(), limiter ? limiter->c_str() : "?");
  for (const TimingBar& bar : bars) {
    char overlay[96];
    std::snprintf(overlay, sizeof(overlay), "%s %.3f ms (%.0f%%)", bar.unit.c_str(), bar.ms, 100.0 * bar.share);
    ImGui::ProgressBar(float(std::clamp(bar.share, 0.0, 1.0)), ImVec2(-1.0f, 0.0f), overlay);
  }
}

}  // namespace tessera::viewer
