// Reading input files (scenes, OBJ meshes, textures, configs) with the checks every reader
// shares: the path must name a regular file, and its size is capped, so a device such as
// /dev/zero, a pipe or a mistyped multi-gigabyte path fails at once with a clear message.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace tessera {

// Size caps per kind of input (docs/cli.md, "Input files"): far beyond any real input of the
// kind, small enough that reading one never threatens the machine.
constexpr uint64_t kMaxJsonFileBytes = uint64_t(64) << 20;    // scene and config JSON
constexpr uint64_t kMaxObjFileBytes = uint64_t(1) << 30;      // OBJ meshes
constexpr uint64_t kMaxImageFileBytes = uint64_t(256) << 20;  // texture images

// Reads the whole file. `kind` names it in messages ("scene", "OBJ", "image", "config").
// Throws tessera::Error naming the path when it is missing, a folder, not a regular file
// (device, pipe, socket), larger than max_bytes (also when it grows while being read) or
// unreadable.
std::string read_input_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& kind);

}  // namespace tessera
