// Run-time choice of the lane code's target (tessera/lane_target.h), through Highway's own
// dispatch: the forced target is made the only "supported" one, so HWY_DYNAMIC_DISPATCH picks it
// in every lane file. This file sees the same compiled targets (HWY_TARGETS) as the lane files
// because they all take Highway's settings from core/highway.h.
#include "tessera/lane_target.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "tessera/error.h"

#include "core/highway.h"

namespace tessera {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Compiled targets as single bits, best (lowest bit) first.
std::vector<int64_t> compiled_targets() {
  std::vector<int64_t> out;
  for (int64_t rest = HWY_TARGETS; rest != 0; rest &= rest - 1) out.push_back(rest & -rest);
  return out;
}

std::string names(const std::vector<int64_t>& targets) {
  std::string s;
  for (int64_t t : targets) s += (s.empty() ? "" : ", ") + std::string(hwy::TargetName(t));
  return s;
}

void apply_environment() {
  const char* value = std::getenv("TESSERA_LANE_TARGET");
  if (value == nullptr || *value == '\0') return;
  try {
    set_lane_target(value);
  } catch (const Error& e) {
    throw Error(std::string("TESSERA_LANE_TARGET: ") + e.what());
  }
}

}  // namespace

std::vector<std::string> lane_targets() {
  static const int64_t cpu = [] {
    hwy::SetSupportedTargetsForTest(0);  // before any forcing: what the CPU itself supports
    return hwy::SupportedTargets();
  }();
  std::vector<std::string> out;
  for (int64_t t : compiled_targets()) {
    if (cpu & t) out.emplace_back(hwy::TargetName(t));
  }
  return out;
}

void set_lane_target(std::string_view name) {
  const std::string want = lower(name) == "avx512" ? "avx3" : lower(name);
  if (want == "best") {
    hwy::SetSupportedTargetsForTest(0);  // back to what the CPU supports
    return;
  }
  for (int64_t t : compiled_targets()) {
    if (lower(hwy::TargetName(t)) != want) continue;
    std::vector<int64_t> runnable;
    for (const std::string& r : lane_targets()) {
      for (int64_t c : compiled_targets())
        if (r == hwy::TargetName(c)) runnable.push_back(c);
    }
    if (std::find(runnable.begin(), runnable.end(), t) == runnable.end()) {
      throw Error("lane target '" + std::string(name) + "' is not supported by this CPU (it runs: " + names(runnable) +
                  ")");
    }
    hwy::SetSupportedTargetsForTest(t);
    return;
  }
  throw Error("lane target '" + std::string(name) +
              "' is not compiled into this build (compiled: " + names(compiled_targets()) + "; or 'best', 'avx512')");
}

void apply_lane_target_environment() {
  static std::once_flag environment;
  std::call_once(environment, apply_environment);  // an exception leaves it unset: next call reports again
}

std::string lane_target() {
  apply_lane_target_environment();
  const int64_t runnable = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(runnable & -runnable);
}

}  // namespace tessera
