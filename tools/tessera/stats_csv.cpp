#include "stats_csv.h"

#include <cmath>
#include <variant>

#include "files.h"
#include "tessera/error.h"

namespace tessera::cli {

StatsCsv::StatsCsv(const std::filesystem::path& path) : path_(path), tmp_(temporary_path_next_to(path)) {
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error(path.string() + ": cannot open for writing");
}

StatsCsv::~StatsCsv() {
  std::error_code ec;
  if (!renamed_) std::filesystem::remove(tmp_, ec);
}

void StatsCsv::add(const Stats& stats) {
  if (columns_.empty()) {
    for (const auto& [name, value] : stats.values()) {
      if (!std::holds_alternative<std::string>(value)) columns_.push_back(name);
    }
    for (size_t i = 0; i < columns_.size(); ++i) out_ << (i ? "," : "") << columns_[i];
    out_ << "\n";
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (i) out_ << ',';
    if (!stats.has(columns_[i])) continue;  // empty cell: not measured in this frame
    const Stats::Value& v = stats.get(columns_[i]);
    if (const auto* u = std::get_if<uint64_t>(&v))
      out_ << *u;
    else if (const auto* n = std::get_if<int64_t>(&v))
      out_ << *n;
    else if (const auto* d = std::get_if<double>(&v); d && std::isfinite(*d))
      out_ << *d;
  }
  out_ << "\n";
  out_.flush();
  if (!out_) throw Error(path_.string() + ": write failed");
  // The open stream keeps appending to the renamed file: an interrupted batch keeps its rows.
  if (!renamed_) {
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) throw Error(path_.string() + ": cannot replace file: " + ec.message());
    renamed_ = true;
  }
}

}  // namespace tessera::cli
