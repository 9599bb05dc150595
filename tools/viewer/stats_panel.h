// Statistics panels: the frame's Stats registry as a tree by dotted-name prefix, and
// per-frame series of a few headline statistics for plots.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tessera/stats.h"

namespace tessera::viewer {

// The registry as a tree: "raster.triangles.in" is raster -> triangles -> in. Every top-level
// unit in the registry becomes a root, so units added later appear without viewer changes.
struct StatsNode {
  std::string label;  // last name component
  std::string value;  // formatted value; empty for inner nodes
  std::vector<StatsNode> children;
};

std::vector<StatsNode> build_stats_tree(const Stats& stats);

// Formats a value: integers with thousands separators, floats with 3 decimals.
std::string format_stat(const Stats::Value& value);

// Draws the tree in the current ImGui window (a two-column table: name, value).
void draw_stats_tree(const std::vector<StatsNode>& roots);

// The last kCapacity values of each plotted series.
class StatsHistory {
 public:
  static constexpr size_t kCapacity = 300;

  struct Series {
    std::string title;               // plot label
    std::vector<std::string> terms;  // statistic names summed into one value
    std::vector<float> values;       // oldest first, at most kCapacity
  };

  // Appends one frame; series are created on first sight (memory clients are discovered from
  // the registry's memory.<client>.read_bytes / written_bytes names).
  void add(const Stats& stats);
  void clear() { series_.clear(); }
  const std::vector<Series>& series() const { return series_; }

 private:
  Series& find_or_add(const std::string& title, std::vector<std::string> terms);
  std::vector<Series> series_;
};

// Draws one ImGui::PlotLines per series with its latest value.
void draw_stats_history(const StatsHistory& history);

// The timing model's units (docs/timing.md) as bars: each unit's busy time in milliseconds at
// the modelled clock and its share of the frame, in the registry's unit order; empty when the
// frame has no timing.* keys.
struct TimingBar {
  std::string unit;
  double ms = 0;
  double share = 0;  // of the modelled frame time (per-slice units: over every slice)
};
std::vector<TimingBar> timing_bars(const Stats& stats);
// The modelled frame time, its limiter, and one progress bar per unit.
void draw_timing_bars(const Stats& stats);

}  // namespace tessera::viewer
