// The summary's frame-time statistics: exact nearest-rank percentiles and mean up to the bound,
// then within the histogram's documented error, in memory that stops growing.
#include "frame_times.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace tessera::layer {
namespace {

// The reference: every value sorted, nearest rank.
TimeSummary reference(std::vector<double> v) {
  TimeSummary t;
  t.n = v.size();
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  t.mean = sum / double(v.size());
  auto rank = [&](double p) { return v[std::min(v.size() - 1, size_t(std::ceil(p * double(v.size()))) - 1)]; };
  t.p50 = rank(0.5), t.p95 = rank(0.95), t.p99 = rank(0.99);
  return t;
}

// Frame times as an application has them: mostly near 16 ms, a long tail, some tiny ones.
std::vector<double> frame_times(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> body(std::log(16.0), 0.3);
  std::exponential_distribution<double> stall(0.02);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i % 97 == 0 ? 0.01 + stall(rng) * 10 : body(rng);
  return v;
}

TEST(FrameTimes, EmptyHasNoFrames) {
  FrameTimes t;
  EXPECT_EQ(t.summary().n, 0u);
  EXPECT_TRUE(t.summary().exact);
}

TEST(FrameTimes, ExactUpToTheBound) {
  for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(100), FrameTimes::kExactFrames}) {
    const std::vector<double> v = frame_times(n, unsigned(n));
    FrameTimes t;
    for (double x : v) t.add(x);
    const TimeSummary got = t.summary(), want = reference(v);
    EXPECT_TRUE(got.exact) << n;
    EXPECT_EQ(got.n, n);
    // Bit for bit: the numbers the summary printed before the bound existed.
    EXPECT_EQ(got.mean, want.mean) << n;
    EXPECT_EQ(got.p50, want.p50) << n;
    EXPECT_EQ(got.p95, want.p95) << n;
    EXPECT_EQ(got.p99, want.p99) << n;
  }
}

TEST(FrameTimes, PastTheBoundWithinTheHistogramError) {
  const size_t n = FrameTimes::kExactFrames * 3 + 17;
  const std::vector<double> v = frame_times(n, 5);
  FrameTimes t;
  for (double x : v) t.add(x);
  const TimeSummary got = t.summary(), want = reference(v);
  EXPECT_FALSE(got.exact);
  EXPECT_EQ(got.n, n);
  EXPECT_NEAR(got.mean, want.mean, 1e-9 * want.mean);
  for (auto [g, w] : {std::pair{got.p50, want.p50}, {got.p95, want.p95}, {got.p99, want.p99}})
    EXPECT_LE(std::abs(g - w), FrameTimes::kHistogramError * w) << g << " vs " << w;
}

TEST(FrameTimes, MemoryStopsGrowing) {
  FrameTimes t;
  for (size_t i = 0; i < FrameTimes::kExactFrames; ++i) t.add(1.0 + double(i % 1000) * 0.01);
  const size_t at_bound = t.memory_bytes();
  EXPECT_GE(at_bound, FrameTimes::kExactFrames * sizeof(double));
  for (size_t i = 0; i < 4 * FrameTimes::kExactFrames; ++i) t.add(1.0 + double(i % 1000) * 0.01);
  const size_t later = t.memory_bytes();
  EXPECT_LT(later, at_bound / 8);  // the histogram, a few tens of KiB
  for (size_t i = 0; i < 4 * FrameTimes::kExactFrames; ++i) t.add(2.0);
  EXPECT_EQ(t.memory_bytes(), later);
}

TEST(FrameTimes, ExtremesAndNonTimes) {
  FrameTimes t;
  t.add(std::numeric_limits<double>::quiet_NaN());
  t.add(-1.0);
  EXPECT_EQ(t.count(), 0u);
  // Past the bound: values outside the bins' range come back as the exact minimum and maximum.
  for (size_t i = 0; i <= FrameTimes::kExactFrames; ++i) t.add(i % 2 ? 3e8 : 0.0);
  const TimeSummary s = t.summary();
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.p50, 0.0);  // (n + 1) / 2 zeros: the median's rank is the last of them
  EXPECT_EQ(s.p95, 3e8);
  EXPECT_EQ(s.p99, 3e8);
}

}  // namespace
}  // namespace tessera::layer
