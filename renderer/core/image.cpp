#include "tessera/image.h"

#include <stb_image.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <system_error>
#include <thread>

#include "tessera/error.h"
#include "tessera/input_file.h"

namespace tessera {

// stb reads and writes bytes in R, G, B, A order; Rgba8 keeps R in the lowest byte, so the
// pixel vector already is that byte stream on a little-endian host.
static_assert(std::endian::native == std::endian::little, "Rgba8 pixel vectors are handed to stb as RGBA byte streams");

namespace {

// Largest image edge read_image accepts: the largest frame the renderer produces.
constexpr int kMaxImageSide = 16384;
static_assert(kMaxImageFileBytes < (uint64_t(1) << 31), "stb takes the file length as an int");

// Temporary name next to the target, so the final rename stays within one file system and is
// atomic. Process id and thread id keep concurrent writers of the same target apart.
std::filesystem::path temporary_path_for(const std::filesystem::path& path) {
  const size_t thread_hash = std::hash<std::thread::id>{}(std::this_thread::get_id());
  std::string name = "." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                     std::to_string(thread_hash % 1000000007u);
  return path.parent_path() / name;
}

// Linear value at which the encoded byte steps from k-1 to k: the decoded midpoint between
// the two codes, (k - 0.5) / 255 in the sRGB domain. Computed in double so comparing a float
// against it rounds exactly as the standard formula evaluated exactly would.
}  // namespace

void write_png(const std::filesystem::path& path, const Image& image) {
  if (path.empty()) throw Error("write_png: empty output path");
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() != size_t(image.width) * size_t(image.height)) {
    throw Error(path.string() + ": cannot write PNG: image is " + std::to_string(image.width) + "x" +
                std::to_string(image.height) + " with " + std::to_string(image.pixels.size()) + " pixels");
  }
  if (image.width > std::numeric_limits<int>::max() / 4) {
    throw Error(path.string() + ": cannot write PNG: image too wide");
  }
  std::error_code ec;
  const std::filesystem::path parent = path.parent_path();
  if (!parent.empty()) {
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      throw Error(path.string() + ": cannot create folder " + parent.string() + ": " + ec.message());
    }
  }
  const std::filesystem::path tmp = temporary_path_for(path);
  errno = 0;
  const int ok = stbi_write_png(tmp.c_str(), image.width, image.height, 4, image.pixels.data(), image.width * 4);
  const int write_errno = errno;
  if (!ok) {
    std::filesystem::remove(tmp, ec);
    throw Error(path.string() + ": cannot write PNG" +
                (write_errno ? std::string(": ") + std::strerror(write_errno) : std::string()));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error(path.string() + ": cannot replace file with the new PNG: " + ec.message());
  }
}

Image read_image(const std::filesystem::path& path) {
  const std::string bytes = read_input_file(path, kMaxImageFileBytes, "image");
  const auto* data_in = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int length = int(bytes.size());  // kMaxImageFileBytes fits an int
  int w = 0, h = 0, channels = 0;
  // Read the header first, so a file claiming absurd dimensions is refused before decoding.
  if (!stbi_info_from_memory(data_in, length, &w, &h, &channels)) {
    const char* reason = stbi_failure_reason();
    throw Error(path.string() + ": cannot read image: " + (reason ? reason : "unknown reason"));
  }
  if (w > kMaxImageSide || h > kMaxImageSide) {
    throw Error(path.string() + ": cannot read image: " + std::to_string(w) + "x" + std::to_string(h) + " exceeds " +
                std::to_string(kMaxImageSide) + " per side");
  }
  stbi_uc* data = stbi_load_from_memory(data_in, length, &w, &h, &channels, 4);
  if (!data) {
    const char* reason = stbi_failure_reason();
    throw Error(path.string() + ": cannot read image: " + (reason ? reason : "unknown reason"));
  }
  Image image;
  try {
    image = Image(w, h);
  } catch (...) {
    stbi_image_free(data);
    throw;
  }
  std::memcpy(image.pixels.data(), data, image.pixels.size() * sizeof(Rgba8));
  stbi_image_free(data);
  return image;
}

double psnr_rgb(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height) {
    throw Error("psnr_rgb: image sizes differ (" + std::to_string(a.width) + "x" + std::to_string(a.height) + " vs " +
                std::to_string(b.width) + "x" + std::to_string(b.height) + ")");
  }
  if (a.pixels.size() != b.pixels.size()) throw Error("psnr_rgb: pixel counts differ");
  // Integer sum of squared differences: exact, and independent of summation order.
  uint64_t sse = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const int d = int(channel(a.pixels[i], c)) - int(channel(b.pixels[i], c));
      sse += uint64_t(d * d);
    }
  }
  if (sse == 0) return std::numeric_limits<double>::infinity();
  const double mse = double(sse) / (3.0 * double(a.pixels.size()));
  return 10.0 * std::log10(255.0 * 255.0 / mse);
}

float srgb_to_linear(float c) {
  const double s = c;
  return float(s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4));
}

float linear_to_srgb(float c) {
  const double l = c;
  return float(l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1.0 / 2.4) - 0.055);
}

namespace detail {

namespace {
SrgbTables make_srgb_tables() {
  SrgbTables t{};
  for (int i = 0; i < 256; ++i) {
    const double s = double(i) / 255.0;
    t.decode[i] = float(s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4));
  }
  t.step[0] = 0.0;
  for (int k = 1; k < 256; ++k) {
    const double s = (double(k) - 0.5) / 255.0;
    t.step[k] = s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  }
  // `linear` and the steps both rise, so each bucket's search starts at the previous bucket's
  // code (the same codes as searching from 0, in 4k steps instead of 1M: loading the layer,
  // which links this library, paid 4.4 M instructions for the full search).
  int code = 0;
  for (int i = 0; i <= 4096; ++i) {
    const double linear = double(i) / 4096.0;
    while (code < 255 && linear >= t.step[code + 1]) ++code;
    t.bucket[i] = uint8_t(code);
  }
  return t;
}
}  // namespace

// Built during static initialisation; nothing reads it before main().
const SrgbTables srgb_tables = make_srgb_tables();

}  // namespace detail

}  // namespace tessera
