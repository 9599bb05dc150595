#include "tessera/input_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <system_error>

#include "tessera/error.h"

namespace tessera {

namespace {

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// "an OBJ file", "a scene file".
std::string a_file(const std::string& kind) {
  const bool vowel = !kind.empty() && std::string_view("aeiouAEIOU").find(kind[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + kind + " file";
}

}  // namespace

std::string read_input_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& kind) {
  const std::string file = path.string();
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) throw Error(file + ": " + kind + " file not found");
  if (ec) throw Error(file + ": cannot read " + kind + " file: " + ec.message());
  if (status.type() == std::filesystem::file_type::directory) throw Error(file + ": is a folder, not " + a_file(kind));
  // Devices, pipes and sockets can stream without end (/dev/zero, /dev/stdin): only regular
  // files have a size to check before reading.
  if (status.type() != std::filesystem::file_type::regular) {
    throw Error(file + ": cannot read " + kind + " file: not a regular file (a device, pipe or socket)");
  }
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(file + ": cannot read " + kind + " file: " + ec.message());
  const std::string limit = kind + " files are limited to " + mib(max_bytes);
  if (size > max_bytes) throw Error(file + ": " + std::to_string(size) + " bytes, too large (" + limit + ")");

  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(file + ": cannot open " + kind + " file: " + std::strerror(errno));
  std::string text(size_t(size), '\0');
  in.read(text.data(), std::streamsize(size));
  if (in.bad() || size_t(in.gcount()) != text.size()) throw Error(file + ": cannot read " + kind + " file");
  // A file that grew since its size was taken is read only up to the cap, never without end.
  char extra[4096];
  while (in.read(extra, sizeof(extra)) || in.gcount() > 0) {
    text.append(extra, size_t(in.gcount()));
    if (text.size() > max_bytes) throw Error(file + ": grew past the limit while being read (" + limit + ")");
  }
  if (in.bad()) throw Error(file + ": cannot read " + kind + " file");
  return text;
}

}  // namespace tessera
