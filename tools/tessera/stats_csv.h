// Per-frame series for the CLI: one CSV row of numeric statistics per frame (render, replay).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tessera/stats.h"

namespace tessera::cli {

// Per-frame series: a header of statistic names from the first frame, then one row per
// frame, flushed as it is written so an interrupted batch keeps every finished frame.
class StatsCsv {
 public:
  // Rows go to a temporary next to the target; the first finished frame renames it into place,
  // so a run that fails before any frame leaves an earlier series untouched.
  explicit StatsCsv(const std::filesystem::path& path);
  ~StatsCsv();
  StatsCsv(const StatsCsv&) = delete;
  StatsCsv& operator=(const StatsCsv&) = delete;

  void add(const Stats& stats);

 private:
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  std::ofstream out_;
  std::vector<std::string> columns_;
  bool renamed_ = false;
};

}  // namespace tessera::cli
