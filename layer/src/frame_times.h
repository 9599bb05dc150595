// Per-frame CPU or GPU times of one device, for the summary's mean and nearest-rank percentiles
// (docs/layer.md, "Running it"), in bounded memory: a long-running application must not grow the
// layer by 8 bytes a frame forever. Every value is kept, and the percentiles are exact, up to
// kExactFrames values; past that the values move into a histogram of logarithmic bins 1% wide,
// whose percentiles are within 0.5% (relative) of the exact ones. The mean, the count, the
// minimum and the maximum stay exact at any length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::layer {

struct TimeSummary {
  uint64_t n = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0;
  bool exact = true;  // false: percentiles from the histogram (within kHistogramError)
};

class FrameTimes {
 public:
  static constexpr size_t kExactFrames = size_t(1) << 15;  // 256 KiB of doubles
  // Bins: [kLowest * kRatio^i, kLowest * kRatio^(i+1)) milliseconds, plus one bin below kLowest
  // and one at or above kHighest. A value is reported at its bin's geometric centre, clamped to
  // the exact minimum and maximum, so within sqrt(kRatio) - 1 of the true one.
  static constexpr double kLowest = 1e-4;  // 0.1 microsecond
  static constexpr double kHighest = 1e7;  // about 2.8 hours
  static constexpr double kRatio = 1.01;
  static constexpr double kHistogramError = 0.005;  // > sqrt(1.01) - 1 = 0.00499

  // Negative and NaN values are not times: ignored (the callers pass measured durations).
  void add(double ms);
  uint64_t count() const { return n_; }
  TimeSummary summary() const;
  // Bytes held, for the test that the memory stays bounded.
  size_t memory_bytes() const { return exact_.capacity() * sizeof(double) + bins_.capacity() * sizeof(uint64_t); }

 private:
  void to_histogram();
  static size_t bin_of(double ms);
  static double centre_of(size_t bin);

  std::vector<double> exact_;   // every value, while n_ <= kExactFrames
  std::vector<uint64_t> bins_;  // empty until the values outgrew exact_
  uint64_t n_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

}  // namespace tessera::layer
