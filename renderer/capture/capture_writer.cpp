// write_capture: the model to a .tcap file (docs/capture.md). Chunks are compressed and written
// as they are met, so the writer holds one compressed chunk at a time beside the capture; the
// manifest follows the chunks (it holds their offsets) and the header is written last.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>
#include <zstd.h>

#include "capture/capture_format.h"
#include "tessera/capture.h"
#include "tessera/error.h"

namespace tessera::capture {

namespace {

using OJson = nlohmann::ordered_json;
using namespace format;

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The temporary file beside the target: removed unless commit() renamed it onto the target.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& target) : target_(target) {
    static std::atomic<uint64_t> counter{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    temp_ = target.parent_path() / ("." + target.filename().string() + "." + std::to_string(getpid()) + "." +
                                    std::to_string(counter++) + "." + std::to_string(now % 1000000) + ".tmp");
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) fail("cannot create " + temp_.string() + ": " + std::strerror(errno));
  }
  ~AtomicFile() {
    if (file_) std::fclose(file_);
    if (!committed_) {
      std::error_code ec;
      std::filesystem::remove(temp_, ec);
    }
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(target_.string() + ": cannot write capture: " + what);
  }

  void write(const void* data, size_t bytes) {
    if (bytes && std::fwrite(data, 1, bytes, file_) != bytes) fail(std::strerror(errno));
    offset_ += bytes;
  }
  uint64_t offset() const { return offset_; }

  void write_header_and_commit(const std::array<uint8_t, kHeaderBytes>& header) {
    if (std::fseek(file_, 0, SEEK_SET) != 0) fail(std::strerror(errno));
    if (std::fwrite(header.data(), 1, header.size(), file_) != header.size()) fail(std::strerror(errno));
    // The data must be on disk before the rename makes it the target, or a crash could leave
    // a complete-looking name over a partial file.
    if (std::fflush(file_) != 0 || fsync(fileno(file_)) != 0) fail(std::strerror(errno));
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (closed != 0) fail(std::strerror(errno));
    std::error_code ec;
    std::filesystem::rename(temp_, target_, ec);
    if (ec) fail("cannot rename " + temp_.string() + ": " + ec.message());
    committed_ = true;
  }

 private:
  std::filesystem::path target_, temp_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
  bool committed_ = false;
};

class ChunkWriter {
 public:
  explicit ChunkWriter(AtomicFile& out) : out_(out), cctx_(ZSTD_createCCtx()) {
    if (!cctx_) out_.fail("zstd: out of memory");
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, kZstdLevel);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_contentSizeFlag, 1);
  }
  ~ChunkWriter() { ZSTD_freeCCtx(cctx_); }
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // Compresses bytes into the stored form; returns the stored bytes (valid until the next call).
  std::span<const uint8_t> compress(std::span<const uint8_t> raw) {
    buffer_.resize(ZSTD_compressBound(raw.size()));
    const size_t n = ZSTD_compress2(cctx_, buffer_.data(), buffer_.size(), raw.data(), raw.size());
    if (ZSTD_isError(n)) out_.fail(std::string("zstd: ") + ZSTD_getErrorName(n));
    return {buffer_.data(), n};
  }

  // Writes one chunk and adds it to the chunk table; returns the manifest's reference to it.
  template <typename T>
  OJson chunk(ChunkKind kind, const std::vector<T>& data, const char* count_key) {
    if (data.empty()) return nullptr;
    std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(data.data()), data.size() * sizeof(T));
    std::vector<uint8_t> swapped;
    if constexpr (std::endian::native == std::endian::big) {
      swapped.assign(raw.begin(), raw.end());
      if (kind != ChunkKind::texels) words_to_from_little_endian(swapped);
      raw = swapped;
    }
    const std::span<const uint8_t> stored = compress(raw);
    OJson entry = OJson::object();
    entry["kind"] = std::string(kChunkKindNames[size_t(kind)]);
    entry["offset"] = out_.offset();
    entry["stored_bytes"] = stored.size();
    entry["raw_bytes"] = raw.size();
    entry["crc32"] = crc32(stored);
    out_.write(stored.data(), stored.size());
    table_.push_back(std::move(entry));
    OJson ref = OJson::object();
    ref["chunk"] = table_.size() - 1;
    ref[count_key] = data.size();
    return ref;
  }

  OJson& table() { return table_; }

 private:
  AtomicFile& out_;
  ZSTD_CCtx* cctx_;
  std::vector<uint8_t> buffer_;
  OJson table_ = OJson::array();
};

OJson viewport_json(const ViewportState& v) {
  return {{"x", v.x},
          {"y", v.y},
          {"width", v.width},
          {"height", v.height},
          {"min_depth", v.min_depth},
          {"max_depth", v.max_depth}};
}

OJson scissor_json(const ScissorRect& s) { return {{"x", s.x}, {"y", s.y}, {"width", s.width}, {"height", s.height}}; }

OJson state_json(const DrawState& s) {
  OJson raster = {
      {"topology", kTopologyNames[size_t(s.raster.topology)]},
      {"primitive_restart", s.raster.primitive_restart},
      {"cull", kCullModeNames[size_t(s.raster.cull)]},
      {"front_face", kFrontFaceNames[size_t(s.raster.front_face)]},
      {"depth",
       {{"test", s.raster.depth.test},
        {"write", s.raster.depth.write},
        {"compare", kCompareOpNames[size_t(s.raster.depth.compare)]}}},
      {"viewport", viewport_json(s.raster.viewport)},
      {"scissor", scissor_json(s.raster.scissor)},
      {"samples", s.raster.samples},
  };
  OJson blend = OJson::array();
  for (const BlendAttachment& b : s.blend) blend.push_back({{"enable", b.enable}, {"write_mask", b.write_mask}});
  OJson viewports = OJson::array();
  for (const ViewportState& v : s.viewports) viewports.push_back(viewport_json(v));
  OJson scissors = OJson::array();
  for (const ScissorRect& r : s.scissors) scissors.push_back(scissor_json(r));
  return {
      {"raster", std::move(raster)},
      {"application_topology", s.application_topology},
      {"primitive_restart", s.primitive_restart},
      {"polygon_mode", s.polygon_mode},
      {"depth_clamp", s.depth_clamp},
      {"depth_bias", s.depth_bias},
      {"depth_bias_constant", s.depth_bias_constant},
      {"depth_bias_clamp", s.depth_bias_clamp},
      {"depth_bias_slope", s.depth_bias_slope},
      {"sample_mask", s.sample_mask},
      {"blend", std::move(blend)},
      {"viewports", std::move(viewports)},
      {"scissors", std::move(scissors)},
  };
}

OJson pass_json(const RenderPass& p, ChunkWriter& chunks) {
  OJson attachments = OJson::array();
  for (const Attachment& a : p.attachments) {
    attachments.push_back({
        {"kind", kAttachmentKindNames[size_t(a.kind)]},
        {"vk_format", a.vk_format},
        {"width", a.width},
        {"height", a.height},
        {"samples", a.samples},
        {"texel_bytes", a.texel_bytes},
        {"texels", chunks.chunk(ChunkKind::texels, a.texels, "bytes")},
        {"skip_reason", a.skip_reason},
        {"load_op", kLoadOpNames[size_t(a.load_op)]},
        {"store_op", kStoreOpNames[size_t(a.store_op)]},
        {"image", hex64(a.image)},
        {"mip_level", a.mip_level},
        {"base_layer", a.base_layer},
    });
  }
  OJson clears = OJson::array();
  for (const glm::vec4& c : p.clear_colors) clears.push_back({c.r, c.g, c.b, c.a});
  return {
      {"dynamic_rendering", p.dynamic_rendering},
      {"subpass", p.subpass},
      {"area_x", p.area_x},
      {"area_y", p.area_y},
      {"area_width", p.area_width},
      {"area_height", p.area_height},
      {"samples", p.samples},
      {"attachments", std::move(attachments)},
      {"clear_colors", std::move(clears)},
      {"clear_depth", p.clear_depth},
      {"clears_depth", p.clears_depth},
      {"resumes", p.resumes},
  };
}

OJson draw_json(const Draw& d, ChunkWriter& chunks) {
  OJson shaders = OJson::array();
  for (const ShaderInfo& s : d.shaders) {
    shaders.push_back({{"stage", kShaderStageNames[size_t(s.stage)]},
                       {"entry_point", s.entry_point},
                       {"instructions", s.instructions},
                       {"module_hash", hex64(s.module_hash)}});
  }
  return {
      {"pass", d.pass},
      {"pipeline", hex64(d.pipeline)},
      {"call", kDrawCallNames[size_t(d.call)]},
      {"vertex_count", d.vertex_count},
      {"instance_count", d.instance_count},
      {"shaders", std::move(shaders)},
      {"state", state_json(d.state)},
      {"captured", d.captured},
      {"skip_reason", d.skip_reason},
      {"primitives_needed", d.primitives_needed},
      {"primitives_written", d.primitives_written},
      {"positions", chunks.chunk(ChunkKind::positions, d.positions, "count")},
      {"vertex_ids", chunks.chunk(ChunkKind::vertex_ids, d.vertex_ids, "count")},
      {"instance_ids", chunks.chunk(ChunkKind::instance_ids, d.instance_ids, "count")},
  };
}

}  // namespace

void write_capture(const std::filesystem::path& path, const Capture& capture) {
  // The writer refuses what the reader would refuse, so a capture it writes can always be read.
  validate(capture, path.string());
  const std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    throw Error(path.string() + ": cannot write capture: folder " + folder.string() + " does not exist");
  }
  if (std::filesystem::is_directory(path, ec)) throw Error(path.string() + ": cannot write capture: is a folder");

  AtomicFile out(path);
  // The header's room, zeroed: its sizes and checksums are known only after the chunks and the
  // manifest, so it is written last over these bytes (docs/capture.md).
  const std::array<uint8_t, kHeaderBytes> header_room{};
  out.write(header_room.data(), header_room.size());
  ChunkWriter chunks(out);

  OJson frames = OJson::array();
  for (const Frame& f : capture.frames) {
    OJson passes = OJson::array();
    for (const RenderPass& p : f.passes) passes.push_back(pass_json(p, chunks));
    OJson draws = OJson::array();
    for (const Draw& d : f.draws) draws.push_back(draw_json(d, chunks));
    frames.push_back({{"number", f.number}, {"passes", std::move(passes)}, {"draws", std::move(draws)}});
  }
  const size_t chunk_count = chunks.table().size();
  const OJson manifest = {
      {"format_version", kFormatVersion},
      {"application", capture.application},
      {"engine", capture.engine},
      {"api_version", capture.api_version},
      {"device", capture.device},
      {"driver", capture.driver},
      {"vendor_id", capture.vendor_id},
      {"device_id", capture.device_id},
      {"driver_version", capture.driver_version},
      {"layer_version", capture.layer_version},
      {"chunks", std::move(chunks.table())},
      {"frames", std::move(frames)},
  };
  // Strings from the application (names, skip reasons) may hold any bytes: invalid UTF-8 is
  // replaced rather than refused, so a capture is never lost over a name.
  const std::string text = manifest.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  if (text.size() > kMaxManifestRawBytes) {
    out.fail("the manifest needs " + std::to_string(text.size()) + " bytes, more than the format's limit of " +
             std::to_string(kMaxManifestRawBytes >> 20) + " MiB (too many draws in one capture)");
  }
  const std::span<const uint8_t> stored = chunks.compress({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  const uint64_t manifest_offset = out.offset();
  out.write(stored.data(), stored.size());

  std::array<uint8_t, kHeaderBytes> header{};
  std::memcpy(header.data() + kOffMagic, kMagic.data(), kMagic.size());
  put_u32(header.data() + kOffVersion, kFormatVersion);
  put_u32(header.data() + kOffHeaderBytes, kHeaderBytes);
  put_u64(header.data() + kOffFileBytes, out.offset());
  put_u64(header.data() + kOffManifestOffset, manifest_offset);
  put_u64(header.data() + kOffManifestStored, stored.size());
  put_u64(header.data() + kOffManifestRaw, text.size());
  put_u32(header.data() + kOffManifestCrc, crc32(stored));
  put_u32(header.data() + kOffChunkCount, uint32_t(chunk_count));
  put_u32(header.data() + kOffReserved, 0);
  put_u32(header.data() + kOffHeaderCrc, crc32({header.data(), kOffHeaderCrc}));
  out.write_header_and_commit(header);
}

}  // namespace tessera::capture
