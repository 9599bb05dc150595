// A one-line progress bar on stderr for batch work; silent when stderr is not a terminal
// unless forced, so logs stay readable.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace tessera::cli {

class ProgressBar {
 public:
  ProgressBar(std::string label, size_t total)
      : label_(std::move(label)), total_(total), tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

  void update(size_t done) {
    const double secs = std::chrono::duration<double>(Clock::now() - start_).count();
    const int width = 30;
    const int filled = total_ ? int(double(width) * double(done) / double(total_)) : width;
    std::string bar(size_t(filled), '#');
    bar.resize(size_t(width), '.');
    const double eta = done ? secs / double(done) * double(total_ - done) : 0.0;
    if (tty_) {
      std::fprintf(stderr, "\r%s [%s] %zu/%zu  %.1fs elapsed, %.1fs left ", label_.c_str(), bar.c_str(), done, total_,
                   secs, eta);
      if (done == total_) std::fprintf(stderr, "\n");
    } else {
      std::fprintf(stderr, "%s %zu/%zu (%.1fs)\n", label_.c_str(), done, total_, secs);
    }
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  size_t total_;
  bool tty_;
  Clock::time_point start_;
};

}  // namespace tessera::cli
