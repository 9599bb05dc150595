#include "files.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <thread>

#include "tessera/error.h"

namespace tessera::cli {

std::filesystem::path temporary_path_next_to(const std::filesystem::path& path) {
  // Process and thread id keep concurrent writers of the same target apart.
  const size_t thread_hash = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return path.parent_path() / ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                               std::to_string(thread_hash % 1000000007u));
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  // The benchmarks write their JSON after minutes of work: a missing folder is made rather
  // than losing the run (render and view check their outputs up front instead).
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw Error(path.string() + ": cannot create folder: " + ec.message());
  const std::filesystem::path tmp = temporary_path_next_to(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path.string() + ": cannot open for writing");
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      throw Error(path.string() + ": write failed");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error(path.string() + ": cannot replace file: " + ec.message());
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

void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<OutputFile>& inputs) {
  struct Seen {
    std::filesystem::path canonical;
    const OutputFile* file;
    bool input;
  };
  std::vector<Seen> seen;
  std::error_code ec;
  for (const OutputFile& in : inputs) {
    if (in.path.empty()) continue;
    seen.push_back({std::filesystem::weakly_canonical(std::filesystem::absolute(in.path), ec), &in, true});
  }
  for (const OutputFile& out : outputs) {
    const std::string what = out.path.string() + ": " + out.option + ": ";
    if (out.path.empty() || !out.path.has_filename()) throw Error(what + "expected a file name");
    if (out.png) {
      std::string ext = out.path.extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      if (ext != ".png") throw Error(what + "Tessera writes PNG images only: use a name ending in .png");
    }
    const std::filesystem::path folder = out.path.has_parent_path() ? out.path.parent_path() : ".";
    if (!std::filesystem::is_directory(folder, ec)) {
      throw Error(what + "folder " + folder.string() + " does not exist (output folders are not created)");
    }
    // The file goes in by rename from a temporary next to it: the folder must take new files.
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
      throw Error(what + "folder " + folder.string() + " is not writable");
    const std::filesystem::file_status status = std::filesystem::status(out.path, ec);
    if (status.type() == std::filesystem::file_type::directory) throw Error(what + "is a folder");
    if (std::filesystem::exists(status) && status.type() != std::filesystem::file_type::regular) {
      throw Error(what + "exists and is not a regular file");
    }
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(out.path), ec);
    for (const Seen& other : seen) {
      if (other.canonical == canonical) {
        throw Error(
            what + "is also the " + other.file->option +
            (other.input ? " input: an output must not replace it" : " output: each output needs a file of its own"));
      }
    }
    seen.push_back({canonical, &out, false});
  }
}

}  // namespace tessera::cli
