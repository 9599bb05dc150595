// libFuzzer entry point for the .tcap reader (docs/capture.md): any bytes must give a Capture or
// a tessera::Error, never a crash, a hang or an allocation the input does not justify.
//
// Two input modes, so that mutations reach past the checksums:
//   - a .tcap file as it comes (starts with the magic "TCAP..."): header, manifest and chunk
//     checksums stop most mutations early, which is what a damaged file meets;
//   - 'M' + manifest JSON + '\0' + chunk bytes: wrapped into a file with a valid header
//     (sizes, version, manifest checksum), so mutated manifests reach the JSON parser, the
//     chunk table and reference checks, the model's rules and the chunk decompression. The
//     chunks' own CRC-32 values stay as the manifest says (the dictionary-free way in is the
//     seed corpus's real manifests).
// The memory budget is lowered so that a small input declaring large (legitimately
// compressible) chunks stays within the fuzzer's RSS limit; the reader enforces it before
// allocating.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>
#include <zstd.h>

#include "capture/capture_format.h"
#include "tessera/capture.h"
#include "tessera/error.h"
#include "tessera/scene.h"

namespace {

std::vector<uint8_t> wrap_manifest(const uint8_t* data, size_t size) {
  using namespace tessera::capture::format;
  const uint8_t* end = data + size;
  const uint8_t* zero = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  const uint8_t* json_end = zero ? zero : end;
  const uint8_t* chunks = zero ? zero + 1 : end;
  std::vector<uint8_t> file(kHeaderBytes);
  file.insert(file.end(), chunks, end);
  const uint64_t manifest_offset = file.size();
  const size_t raw = size_t(json_end - data);
  std::vector<uint8_t> stored(ZSTD_compressBound(raw));
  stored.resize(ZSTD_compress(stored.data(), stored.size(), data, raw, 1));
  file.insert(file.end(), stored.begin(), stored.end());
  uint8_t* h = file.data();
  std::memcpy(h + kOffMagic, kMagic.data(), kMagic.size());
  put_u32(h + kOffVersion, tessera::capture::kFormatVersion);
  put_u32(h + kOffHeaderBytes, kHeaderBytes);
  put_u64(h + kOffFileBytes, file.size());
  put_u64(h + kOffManifestOffset, manifest_offset);
  put_u64(h + kOffManifestStored, stored.size());
  put_u64(h + kOffManifestRaw, raw);
  put_u32(h + kOffManifestCrc, crc32(stored));
  // The chunk count the manifest's table would need is unknown here: count its "kind" keys.
  uint32_t kinds = 0;
  const std::string_view text(reinterpret_cast<const char*>(data), raw);
  for (size_t at = text.find("\"kind\""); at != std::string_view::npos; at = text.find("\"kind\"", at + 1)) ++kinds;
  put_u32(h + kOffChunkCount, kinds);
  put_u32(h + kOffHeaderCrc, crc32({h, kOffHeaderCrc}));
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool budget_set = [] {
    tessera::set_memory_limit(uint64_t(256) << 20);
    return true;
  }();
  (void)budget_set;
  std::vector<uint8_t> wrapped;
  std::span<const uint8_t> bytes(data, size);
  if (size > 0 && data[0] == 'M') {
    wrapped = wrap_manifest(data + 1, size - 1);
    bytes = wrapped;
  }
  try {
    const tessera::capture::Capture c = tessera::capture::read_capture_bytes(bytes, "fuzz.tcap");
    // Use what was read as a consumer would, and hold the reader to its guarantees.
    for (const auto& frame : c.frames) {
      for (const auto& draw : frame.draws) {
        if (draw.positions.size() % 3 != 0 || draw.pass >= frame.passes.size()) __builtin_trap();
        if (!draw.vertex_ids.empty() && draw.vertex_ids.size() != draw.positions.size()) __builtin_trap();
      }
    }
  } catch (const tessera::Error&) {
  }
  return 0;
}
