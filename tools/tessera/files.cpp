#include "files.h"

#include <cstdio>
#include <fstream>

#include "tessera/error.h"

namespace tessera::cli {

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw Error(path.string() + ": cannot create folder: " + ec.message());
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path.string() + ": cannot open for writing");
    out << text;
    out.flush();
    if (!out) throw Error(path.string() + ": write failed");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(path.string() + ": cannot replace file");
  }
}

std::filesystem::path numbered(const std::filesystem::path& path, size_t index) {
  char suffix[32];
  std::snprintf(suffix, sizeof(suffix), "_%04zu", index);
  const std::string name = path.filename().string();
  // Keep multi-part extensions such as ".stats.json" together.
  const size_t dot = name.find('.');
  const std::string stem = dot == std::string::npos ? name : name.substr(0, dot);
  const std::string ext = dot == std::string::npos ? "" : name.substr(dot);
  return path.parent_path() / (stem + suffix + ext);
}

}  // namespace tessera::cli
