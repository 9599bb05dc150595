// Small file helpers for the CLI.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::cli {

// Writes text atomically (temporary file in the same folder, then rename), creating missing
// parent folders. Throws tessera::Error naming the path.
void write_text_file(const std::filesystem::path& path, const std::string& text);

// A unique temporary name next to `path` (same folder, so renaming it onto `path` is atomic).
std::filesystem::path temporary_path_next_to(const std::filesystem::path& path);

// "out/frame.png", 3 -> "out/frame_0003.png"
std::filesystem::path numbered(const std::filesystem::path& path, size_t index);

// One file a command will write, named by the option that asked for it.
struct OutputFile {
  std::string option;  // "-o", "--stats", ...
  std::filesystem::path path;
  bool png = false;  // an image: the name must end in .png (Tessera writes PNG only)
};

// Checks, before any work is done, that every output can be written: a PNG name for images,
// an existing writable folder (output folders are never created, as in the Vulkan layer), no
// folder or device in the file's place, no two outputs naming the same file, and no output
// naming one of the command's input files (`inputs`: option and path, e.g. the scene). Throws
// tessera::Error naming the path, the option and the problem.
void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<OutputFile>& inputs = {});

}  // namespace tessera::cli
