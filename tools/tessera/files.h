// Small file helpers for the CLI.
#pragma once

#include <filesystem>
#include <string>

namespace tessera::cli {

// Writes text atomically (temporary file in the same folder, then rename), creating parent
// folders. Throws tessera::Error naming the path.
void write_text_file(const std::filesystem::path& path, const std::string& text);

// "out/frame.png", 3 -> "out/frame_0003.png"
std::filesystem::path numbered(const std::filesystem::path& path, size_t index);

}  // namespace tessera::cli
