// The .tcap layout shared by the writer and the reader (docs/capture.md, byte by byte): the
// 64-byte header, chunk kinds, the size limits the reader enforces, CRC-32 and little-endian
// helpers, and the names the manifest uses for the model's enums.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "tessera/capture.h"

namespace tessera::capture::format {

// PNG-style magic: the CR LF, EOF and LF bytes catch text-mode transfers that rewrite line ends.
inline constexpr std::array<uint8_t, 8> kMagic{'T', 'C', 'A', 'P', 0x0D, 0x0A, 0x1A, 0x0A};
inline constexpr uint32_t kHeaderBytes = 64;

// Header field offsets (all little-endian).
inline constexpr size_t kOffMagic = 0;
inline constexpr size_t kOffVersion = 8;
inline constexpr size_t kOffHeaderBytes = 12;
inline constexpr size_t kOffFileBytes = 16;
inline constexpr size_t kOffManifestOffset = 24;
inline constexpr size_t kOffManifestStored = 32;
inline constexpr size_t kOffManifestRaw = 40;
inline constexpr size_t kOffManifestCrc = 48;
inline constexpr size_t kOffChunkCount = 52;
inline constexpr size_t kOffReserved = 56;
inline constexpr size_t kOffHeaderCrc = 60;

// Limits (docs/capture.md, "Limits"): far beyond a real capture, small enough that a hostile
// file cannot make the reader allocate without end. On top of these, the file plus every
// declared decompressed size must fit the process memory budget (tessera::memory_limit()).
inline constexpr uint64_t kMaxFileBytes = uint64_t(64) << 30;          // a whole .tcap
inline constexpr uint64_t kMaxManifestRawBytes = uint64_t(256) << 20;  // the manifest's JSON
inline constexpr uint64_t kMaxChunkRawBytes = uint64_t(4) << 30;       // one chunk decompressed
inline constexpr uint32_t kMaxExtent = 65536;                          // attachment and render-area sides
inline constexpr uint32_t kMaxTexelBytes = 32;                         // R64G64B64A64
inline constexpr uint32_t kMaxSamples = 64;                            // VK_SAMPLE_COUNT_64_BIT

// The zstd level of chunks and manifest. The layer writes on a worker thread: level 1 wrote a
// 138 MB capture in half the CPU time of level 3 (zstd's default) for a 6% larger file
// (docs/capture.md, "Cost").
inline constexpr int kZstdLevel = 1;

enum class ChunkKind : uint8_t { positions, vertex_ids, instance_ids, texels };
// Bytes per element of a chunk kind: float32x4, uint32, uint32, bytes.
constexpr uint64_t element_bytes(ChunkKind kind) {
  return kind == ChunkKind::positions ? 16 : (kind == ChunkKind::texels ? 1 : 4);
}

// CRC-32 (ISO-HDLC: zlib's and Python's zlib.crc32), so a file can be checked with common tools.
uint32_t crc32(std::span<const uint8_t> bytes, uint32_t crc = 0);

inline void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}
inline uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

// Chunk payloads are arrays of 32-bit words stored little-endian; on a big-endian host each
// word is swapped in place (after reading, before writing a copy).
inline void words_to_from_little_endian(std::span<uint8_t> bytes) {
  if constexpr (std::endian::native == std::endian::big) {
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      std::swap(bytes[i], bytes[i + 3]);
      std::swap(bytes[i + 1], bytes[i + 2]);
    }
  }
}

// The manifest's names of the model's enums, in enumerator order.
// clang-format off
inline constexpr std::array<std::string_view, 4> kChunkKindNames{"positions", "vertex_ids", "instance_ids", "texels"};
inline constexpr std::array<std::string_view, 5> kShaderStageNames{
    "vertex", "tessellation_control", "tessellation_evaluation", "geometry", "fragment"};
inline constexpr std::array<std::string_view, 2> kAttachmentKindNames{"color", "depth"};
inline constexpr std::array<std::string_view, 4> kLoadOpNames{"load", "clear", "dont_care", "none"};
inline constexpr std::array<std::string_view, 3> kStoreOpNames{"store", "dont_care", "none"};
inline constexpr std::array<std::string_view, 11> kDrawCallNames{
    "draw", "draw_indexed", "draw_indirect", "draw_indexed_indirect", "draw_indirect_count",
    "draw_indexed_indirect_count", "draw_multi", "draw_multi_indexed", "draw_mesh_tasks", "draw_mesh_tasks_indirect",
    "draw_mesh_tasks_indirect_count"};
inline constexpr std::array<std::string_view, 3> kTopologyNames{"triangle_list", "triangle_strip", "triangle_fan"};
inline constexpr std::array<std::string_view, 4> kCullModeNames{"none", "front", "back", "front_and_back"};
inline constexpr std::array<std::string_view, 2> kFrontFaceNames{"counter_clockwise", "clockwise"};
inline constexpr std::array<std::string_view, 8> kCompareOpNames{
    "never", "less", "equal", "less_or_equal", "greater", "not_equal", "greater_or_equal", "always"};
// clang-format on

template <typename E, size_t N>
std::string_view name_of(E e, const std::array<std::string_view, N>& names) {
  const size_t i = size_t(e);
  return i < N ? names[i] : std::string_view("?");
}

// Checks the model against the format's rules (the same the reader applies to a file): ranges,
// finite numbers, counts that agree (positions a multiple of 3, ids one per position, texels
// width * height * samples * texel_bytes), captured draws without a skip reason and skipped
// ones with one, attachments colour first then at most one depth, clear values only on
// attachments loaded with clear (version 2's rules; `version` 1 skips them: no load ops). Throws tessera::Error
// "<file>: <path>: <problem>" with the manifest's JSON path.
void validate(const Capture& capture, const std::string& file, uint32_t version = kFormatVersion);

}  // namespace tessera::capture::format
