// Shared by the libFuzzer targets (docs/fuzzing.md): the contract every reader must keep on
// hostile bytes is "a result or a tessera::Error"; anything else (another exception, a
// sanitizer report, a wrong round trip) is a finding, so it must abort the run.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tessera/error.h"

namespace tessera::fuzz {

// Aborts with a message: libFuzzer saves the input that got here as a crash artifact.
[[noreturn]] inline void finding(const char* what) {
  std::fprintf(stderr, "tessera fuzz finding: %s\n", what);
  std::abort();
}

// Runs `f`, accepting a tessera::Error as the documented outcome of bad input. Any other
// exception escaping a reader is a finding (the CLI would print "unexpected error").
template <typename F>
void expect_result_or_error(F&& f) {
  try {
    f();
  } catch (const tessera::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera fuzz finding: non-tessera exception: %s\n", e.what());
    std::abort();
  }
}

// The file readers take paths (they check the path names a regular file first), so inputs go
// through a real file in a folder private to this process.
inline std::filesystem::path write_input(const uint8_t* data, size_t size, const char* name) {
  static const std::filesystem::path dir = [] {
    std::filesystem::path d = std::filesystem::temp_directory_path() / ("tessera_fuzz_" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const std::filesystem::path path = dir / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  if (!out) finding("cannot write the fuzz input file");
  return path;
}

// Reads fixed-size values from the front of the input; zeros once it runs out.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  T get() {
    T value{};
    uint8_t* out = reinterpret_cast<uint8_t*>(&value);
    for (size_t i = 0; i < sizeof(T) && pos_ < size_; ++i) out[i] = data_[pos_++];
    return value;
  }
  size_t left() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace tessera::fuzz
