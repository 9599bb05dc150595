#include "frame_times.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::layer {
namespace {

// Bins between kLowest and kHighest, plus the one below and the one above.
const size_t kLogBins =
    size_t(std::ceil(std::log(FrameTimes::kHighest / FrameTimes::kLowest) / std::log(FrameTimes::kRatio)));
const size_t kBins = kLogBins + 2;

// Nearest rank of percentile p among n values (1-based), as the exact path computes it.
uint64_t nearest_rank(double p, uint64_t n) { return std::clamp<uint64_t>(uint64_t(std::ceil(p * double(n))), 1, n); }

}  // namespace

size_t FrameTimes::bin_of(double ms) {
  if (ms < kLowest) return 0;
  if (ms >= kHighest) return kBins - 1;
  const double b = std::floor(std::log(ms / kLowest) / std::log(kRatio));
  return 1 + std::min(kLogBins - 1, size_t(std::max(0.0, b)));
}

double FrameTimes::centre_of(size_t bin) {
  // The open-ended bins: clamped to the exact minimum or maximum by the caller.
  if (bin == 0) return 0.0;
  if (bin == kBins - 1) return std::numeric_limits<double>::infinity();
  return kLowest * std::pow(kRatio, double(bin - 1) + 0.5);
}

void FrameTimes::add(double ms) {
  if (!(ms >= 0.0)) return;
  min_ = n_ == 0 ? ms : std::min(min_, ms);
  max_ = n_ == 0 ? ms : std::max(max_, ms);
  ++n_;
  sum_ += ms;
  if (bins_.empty()) {
    exact_.push_back(ms);
    if (exact_.size() > kExactFrames) to_histogram();
  } else {
    ++bins_[bin_of(ms)];
  }
}

void FrameTimes::to_histogram() {
  bins_.assign(kBins, 0);
  for (double v : exact_) ++bins_[bin_of(v)];
  std::vector<double>().swap(exact_);  // give the memory back
}

TimeSummary FrameTimes::summary() const {
  TimeSummary t;
  t.n = n_;
  if (n_ == 0) return t;
  if (bins_.empty()) {
    // Exact: sorted values, the mean summed in sorted order (as the summary always did).
    std::vector<double> v = exact_;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    t.mean = sum / double(v.size());
    auto rank = [&](double p) { return v[nearest_rank(p, v.size()) - 1]; };
    t.p50 = rank(0.50), t.p95 = rank(0.95), t.p99 = rank(0.99);
    return t;
  }
  t.exact = false;
  t.mean = sum_ / double(n_);
  auto rank = [&](double p) {
    const uint64_t k = nearest_rank(p, n_);
    uint64_t seen = 0;
    for (size_t b = 0; b < bins_.size(); ++b) {
      seen += bins_[b];
      if (seen >= k) return std::clamp(centre_of(b), min_, max_);
    }
    return max_;
  };
  t.p50 = rank(0.50), t.p95 = rank(0.95), t.p99 = rank(0.99);
  return t;
}

}  // namespace tessera::layer
