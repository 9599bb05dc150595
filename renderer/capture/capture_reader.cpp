// read_capture: a .tcap file to the model, validated strictly (docs/capture.md, "Reading").
// Order matters for hostile files: the header and the manifest are checked whole, and every
// chunk reference is matched against the chunk table and the memory budget, before any chunk
// is decompressed; no buffer is allocated that the file's own declared sizes do not justify.
#include <cfloat>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>
#include <zstd.h>

#include "capture/capture_format.h"
#include "core/strict_json.h"
#include "tessera/capture.h"
#include "tessera/error.h"
#include "tessera/input_file.h"
#include "tessera/scene.h"

namespace tessera::capture {

namespace {

using namespace format;
using strict_json::Json;
using strict_json::ObjectReader;
using strict_json::Where;

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
  return buf;
}

// "123 bytes" for small sizes (tests, hostile files), "12.3 MiB" otherwise.
std::string mib(uint64_t bytes) {
  if (bytes < (uint64_t(1) << 20)) return std::to_string(bytes) + " bytes";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
  return buf;
}

struct ChunkEntry {
  ChunkKind kind = ChunkKind::positions;
  uint64_t offset = 0, stored_bytes = 0, raw_bytes = 0;
  uint32_t crc = 0;
  bool referenced = false;
};

// A chunk to decompress into a buffer the model already holds (sized from the manifest).
struct ChunkJob {
  size_t chunk = 0;
  uint8_t* destination = nullptr;
};

// Decompresses one zstd frame of exactly `raw_bytes` into `destination`.
void decompress(std::span<const uint8_t> stored, uint8_t* destination, uint64_t raw_bytes, const std::string& where) {
  const unsigned long long declared = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) throw Error(where + ": not a zstd frame");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != raw_bytes) {
    throw Error(where + ": the zstd frame holds " + std::to_string(declared) + " bytes, the manifest declares " +
                std::to_string(raw_bytes));
  }
  const size_t frame = ZSTD_findFrameCompressedSize(stored.data(), stored.size());
  if (ZSTD_isError(frame) || frame != stored.size())
    throw Error(where + ": the zstd frame does not fill its stored bytes");
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  if (!dctx) throw Error(where + ": zstd: out of memory");
  const size_t n = ZSTD_decompressDCtx(dctx, destination, raw_bytes, stored.data(), stored.size());
  ZSTD_freeDCtx(dctx);
  if (ZSTD_isError(n)) throw Error(where + ": corrupt zstd data: " + ZSTD_getErrorName(n));
  if (n != raw_bytes) {
    throw Error(where + ": decompressed to " + std::to_string(n) + " bytes, the manifest declares " +
                std::to_string(raw_bytes));
  }
}

class ManifestReader {
 public:
  // `raw_allowance`: what the chunks may decompress to within the memory budget.
  ManifestReader(std::string where, uint32_t version, uint64_t chunks_end, uint32_t header_chunks,
                 uint64_t raw_allowance)
      : where_(std::move(where)),
        version_(version),
        chunks_end_(chunks_end),
        header_chunks_(header_chunks),
        raw_allowance_(raw_allowance) {}

  Capture read(const Json& j) {
    Capture c;
    ObjectReader r(j, where_, "");
    r.allow_only({"format_version", "application", "engine", "api_version", "device", "driver", "vendor_id",
                  "device_id", "driver_version", "layer_version", "chunks", "frames"});
    c.format_version = u32(r, "format_version");
    if (c.format_version != version_) {
      r.at("format_version")
          .fail(std::to_string(c.format_version) + " disagrees with the header's version " + std::to_string(version_));
    }
    c.application = r.string("application");
    c.engine = r.string("engine");
    c.api_version = u32(r, "api_version");
    c.device = r.string("device");
    c.driver = r.string("driver");
    c.vendor_id = u32(r, "vendor_id");
    c.device_id = u32(r, "device_id");
    c.driver_version = u32(r, "driver_version");
    c.layer_version = r.string("layer_version");
    read_chunk_table(r.require("chunks"), r.at("chunks"));
    const auto& frames = strict_json::as_array(r.require("frames"), r.at("frames"));
    c.frames.resize(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) read_frame(frames[i], strict_json::join("frames", i), c.frames[i]);
    for (size_t i = 0; i < chunks_.size(); ++i) {
      if (!chunks_[i].referenced) {
        Where{where_, strict_json::join("chunks", i)}.fail("not referenced by any draw or attachment");
      }
    }
    return c;
  }

  const std::vector<ChunkEntry>& chunks() const { return chunks_; }
  const std::vector<ChunkJob>& jobs() const { return jobs_; }

 private:
  static uint64_t as_u64(const Json& j, const Where& w, uint64_t hi = std::numeric_limits<uint64_t>::max()) {
    if (!j.is_number_integer()) w.fail("expected an unsigned integer");
    if (!j.is_number_unsigned()) w.fail(std::to_string(j.get<int64_t>()) + " is negative");
    const uint64_t v = j.get<uint64_t>();
    if (v > hi) w.fail(std::to_string(v) + " is out of range [0, " + std::to_string(hi) + "]");
    return v;
  }
  static uint32_t u32(ObjectReader& r, const char* key) {
    return uint32_t(as_u64(r.require(key), r.at(key), std::numeric_limits<uint32_t>::max()));
  }
  static uint64_t u64(ObjectReader& r, const char* key) { return as_u64(r.require(key), r.at(key)); }
  static int32_t i32(ObjectReader& r, const char* key) {
    return int32_t(strict_json::as_integer(r.require(key), r.at(key), std::numeric_limits<int32_t>::min(),
                                           std::numeric_limits<int32_t>::max()));
  }
  static float f32(const Json& j, const Where& w) {
    return float(strict_json::as_number(j, w, strict_json::Range{-FLT_MAX, FLT_MAX}));
  }
  static float f32(ObjectReader& r, const char* key) { return f32(r.require(key), r.at(key)); }
  static bool boolean(ObjectReader& r, const char* key) { return strict_json::as_bool(r.require(key), r.at(key)); }
  // 64-bit identities are written as "0x" and 16 hex digits: JSON numbers beyond 2^53 lose
  // precision in many readers.
  static uint64_t hex64(ObjectReader& r, const char* key) {
    const std::string s = r.string(key);
    uint64_t v = 0;
    bool ok = s.size() == 18 && s[0] == '0' && s[1] == 'x';
    for (size_t i = 2; ok && i < s.size(); ++i) {
      const char ch = s[i];
      const int digit = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
      ok = digit >= 0;
      v = (v << 4) | uint64_t(digit & 0xF);
    }
    if (!ok) r.at(key).fail("\"" + s + "\" is not \"0x\" and 16 lower-case hex digits");
    return v;
  }
  template <typename E, size_t N>
  static E choice(ObjectReader& r, const char* key, const std::array<std::string_view, N>& names) {
    const std::string s = r.string(key);
    for (size_t i = 0; i < N; ++i) {
      if (names[i] == s) return E(i);
    }
    std::string expected;
    for (size_t i = 0; i < N; ++i) expected += (i ? ", " : "") + std::string(names[i]);
    r.at(key).fail("unknown value \"" + s + "\" (expected " + expected + ")");
  }

  void read_chunk_table(const Json& j, const Where& w) {
    const auto& entries = strict_json::as_array(j, w);
    if (entries.size() != header_chunks_) {
      w.fail(std::to_string(entries.size()) + " chunks, the header declares " + std::to_string(header_chunks_));
    }
    chunks_.resize(entries.size());
    uint64_t expected_offset = kHeaderBytes;
    for (size_t i = 0; i < entries.size(); ++i) {
      ObjectReader r(entries[i], where_, strict_json::join(w.path, i));
      r.allow_only({"kind", "offset", "stored_bytes", "raw_bytes", "crc32"});
      ChunkEntry& e = chunks_[i];
      e.kind = choice<ChunkKind>(r, "kind", kChunkKindNames);
      e.offset = u64(r, "offset");
      e.stored_bytes = u64(r, "stored_bytes");
      e.raw_bytes = u64(r, "raw_bytes");
      e.crc = u32(r, "crc32");
      // Chunks lie back to back between the header and the manifest: no gaps, no overlaps.
      if (e.offset != expected_offset) {
        r.at("offset").fail(std::to_string(e.offset) + ", expected " + std::to_string(expected_offset) +
                            " (chunks are stored back to back after the header)");
      }
      if (e.stored_bytes == 0 || e.stored_bytes > chunks_end_ - e.offset) {
        r.at("stored_bytes")
            .fail(std::to_string(e.stored_bytes) + " bytes at offset " + std::to_string(e.offset) +
                  " do not fit before the manifest at " + std::to_string(chunks_end_));
      }
      if (e.raw_bytes == 0 || e.raw_bytes > kMaxChunkRawBytes) {
        r.at("raw_bytes")
            .fail(std::to_string(e.raw_bytes) + " is out of range [1, " + std::to_string(kMaxChunkRawBytes) +
                  "] (the format's limit per chunk)");
      }
      if (e.raw_bytes % element_bytes(e.kind) != 0) {
        r.at("raw_bytes")
            .fail(std::to_string(e.raw_bytes) + " is not a multiple of " + std::to_string(element_bytes(e.kind)) +
                  " (the size of one " + std::string(kChunkKindNames[size_t(e.kind)]) + " element)");
      }
      expected_offset = e.offset + e.stored_bytes;
      raw_total_ += e.raw_bytes;
    }
    if (expected_offset != chunks_end_) {
      w.fail("the chunks end at " + std::to_string(expected_offset) + ", the manifest starts at " +
             std::to_string(chunks_end_));
    }
    // Checked before any buffer is sized from a reference.
    if (raw_total_ > raw_allowance_) {
      w.fail("the chunks decompress to " + mib(raw_total_) + ", more than the memory limit leaves beside the file (" +
             mib(raw_allowance_) + "; tessera::memory_limit(), --memory-limit)");
    }
  }

  // A reference to a chunk ({"chunk": i, "<count_key>": n} or null): checked against the chunk
  // table (kind, size, used once) and returns n. The buffer is sized only after this.
  uint64_t reference(const Json& j, const Where& w, ChunkKind kind, const char* count_key) {
    if (j.is_null()) return 0;
    ObjectReader r(j, where_, w.path);
    r.allow_only({"chunk", count_key});
    const uint64_t index = as_u64(r.require("chunk"), r.at("chunk"));
    if (index >= chunks_.size()) {
      r.at("chunk").fail(std::to_string(index) + " is out of range (the file has " + std::to_string(chunks_.size()) +
                         " chunks)");
    }
    ChunkEntry& e = chunks_[index];
    if (e.kind != kind) {
      r.at("chunk").fail("chunk " + std::to_string(index) + " holds " + std::string(kChunkKindNames[size_t(e.kind)]) +
                         ", not " + std::string(kChunkKindNames[size_t(kind)]));
    }
    // One reference per chunk: a small chunk named a million times would decompress a million times.
    if (e.referenced) r.at("chunk").fail("chunk " + std::to_string(index) + " is referenced twice");
    e.referenced = true;
    const uint64_t count = as_u64(r.require(count_key), r.at(count_key));
    if (count == 0 || count != e.raw_bytes / element_bytes(kind)) {
      r.at(count_key).fail(std::to_string(count) + " disagrees with chunk " + std::to_string(index) + " (" +
                           std::to_string(e.raw_bytes) + " bytes, " +
                           std::to_string(e.raw_bytes / element_bytes(kind)) + " elements)");
    }
    return count;
  }

  template <typename T>
  void read_array_chunk(ObjectReader& r, const char* key, ChunkKind kind, const char* count_key, std::vector<T>& out) {
    const Json& j = r.require(key);
    const uint64_t count = reference(j, r.at(key), kind, count_key);
    if (count == 0) return;
    out.resize(size_t(count));
    jobs_.push_back({size_t(j.at("chunk").get<uint64_t>()), reinterpret_cast<uint8_t*>(out.data())});
  }

  ViewportState viewport(const Json& j, const Where& w) {
    ObjectReader r(j, where_, w.path);
    r.allow_only({"x", "y", "width", "height", "min_depth", "max_depth"});
    return {f32(r, "x"), f32(r, "y"), f32(r, "width"), f32(r, "height"), f32(r, "min_depth"), f32(r, "max_depth")};
  }
  ScissorRect scissor(const Json& j, const Where& w) {
    ObjectReader r(j, where_, w.path);
    r.allow_only({"x", "y", "width", "height"});
    return {i32(r, "x"), i32(r, "y"), u32(r, "width"), u32(r, "height")};
  }

  void read_state(const Json& j, const Where& w, DrawState& s) {
    ObjectReader r(j, where_, w.path);
    r.allow_only({"raster", "application_topology", "primitive_restart", "polygon_mode", "depth_clamp", "depth_bias",
                  "depth_bias_constant", "depth_bias_clamp", "depth_bias_slope", "sample_mask", "blend", "viewports",
                  "scissors"});
    {
      ObjectReader ra(r.require("raster"), where_, r.at("raster").path);
      ra.allow_only({"topology", "primitive_restart", "cull", "front_face", "depth", "viewport", "scissor", "samples"});
      s.raster.topology = choice<Topology>(ra, "topology", kTopologyNames);
      s.raster.primitive_restart = boolean(ra, "primitive_restart");
      s.raster.cull = choice<CullMode>(ra, "cull", kCullModeNames);
      s.raster.front_face = choice<FrontFace>(ra, "front_face", kFrontFaceNames);
      ObjectReader d(ra.require("depth"), where_, ra.at("depth").path);
      d.allow_only({"test", "write", "compare"});
      s.raster.depth.test = boolean(d, "test");
      s.raster.depth.write = boolean(d, "write");
      s.raster.depth.compare = choice<CompareOp>(d, "compare", kCompareOpNames);
      s.raster.viewport = viewport(ra.require("viewport"), ra.at("viewport"));
      s.raster.scissor = scissor(ra.require("scissor"), ra.at("scissor"));
      s.raster.samples = int(strict_json::as_integer(ra.require("samples"), ra.at("samples"), 0, kMaxSamples));
    }
    s.application_topology = u32(r, "application_topology");
    s.primitive_restart = boolean(r, "primitive_restart");
    s.polygon_mode = u32(r, "polygon_mode");
    s.depth_clamp = boolean(r, "depth_clamp");
    s.depth_bias = boolean(r, "depth_bias");
    s.depth_bias_constant = f32(r, "depth_bias_constant");
    s.depth_bias_clamp = f32(r, "depth_bias_clamp");
    s.depth_bias_slope = f32(r, "depth_bias_slope");
    s.sample_mask = u32(r, "sample_mask");
    const auto& blend = strict_json::as_array(r.require("blend"), r.at("blend"));
    for (size_t i = 0; i < blend.size(); ++i) {
      ObjectReader b(blend[i], where_, strict_json::join(r.at("blend").path, i));
      b.allow_only({"enable", "write_mask"});
      const bool enable = boolean(b, "enable");
      const auto mask = uint8_t(strict_json::as_integer(b.require("write_mask"), b.at("write_mask"), 0, 15));
      s.blend.push_back({enable, mask});
    }
    const auto& viewports = strict_json::as_array(r.require("viewports"), r.at("viewports"));
    for (size_t i = 0; i < viewports.size(); ++i) {
      s.viewports.push_back(viewport(viewports[i], Where{where_, strict_json::join(r.at("viewports").path, i)}));
    }
    const auto& scissors = strict_json::as_array(r.require("scissors"), r.at("scissors"));
    for (size_t i = 0; i < scissors.size(); ++i) {
      s.scissors.push_back(scissor(scissors[i], Where{where_, strict_json::join(r.at("scissors").path, i)}));
    }
  }

  void read_pass(const Json& j, const std::string& path, RenderPass& p) {
    ObjectReader r(j, where_, path);
    const bool v2 = version_ >= 2;
    if (v2) {
      r.allow_only({"dynamic_rendering", "subpass", "area_x", "area_y", "area_width", "area_height", "samples",
                    "attachments", "clear_colors", "clear_depth", "clears_depth", "resumes"});
    } else {
      r.allow_only({"dynamic_rendering", "subpass", "area_x", "area_y", "area_width", "area_height", "samples",
                    "attachments", "clear_colors", "clear_depth", "clears_depth"});
    }
    p.dynamic_rendering = boolean(r, "dynamic_rendering");
    p.subpass = u32(r, "subpass");
    p.area_x = i32(r, "area_x");
    p.area_y = i32(r, "area_y");
    p.area_width = u32(r, "area_width");
    p.area_height = u32(r, "area_height");
    p.samples = u32(r, "samples");
    const auto& clears = strict_json::as_array(r.require("clear_colors"), r.at("clear_colors"));
    for (size_t i = 0; i < clears.size(); ++i) {
      const Where w{where_, strict_json::join(r.at("clear_colors").path, i)};
      const auto& c = strict_json::as_array(clears[i], w);
      if (c.size() != 4) w.fail("expected an array of 4 numbers, got " + std::to_string(c.size()));
      glm::vec4 v;
      for (int k = 0; k < 4; ++k) v[k] = f32(c[size_t(k)], Where{where_, strict_json::join(w.path, size_t(k))});
      p.clear_colors.push_back(v);
    }
    p.clear_depth = f32(r, "clear_depth");
    p.clears_depth = boolean(r, "clears_depth");
    if (v2) p.resumes = boolean(r, "resumes");
    const auto& attachments = strict_json::as_array(r.require("attachments"), r.at("attachments"));
    p.attachments.resize(attachments.size());
    for (size_t i = 0; i < attachments.size(); ++i) {
      ObjectReader a(attachments[i], where_, strict_json::join(r.at("attachments").path, i));
      if (v2) {
        a.allow_only({"kind", "vk_format", "width", "height", "samples", "texel_bytes", "texels", "skip_reason",
                      "load_op", "store_op", "image", "mip_level", "base_layer"});
      } else {
        a.allow_only({"kind", "vk_format", "width", "height", "samples", "texel_bytes", "texels", "skip_reason"});
      }
      Attachment& at = p.attachments[i];
      at.kind = choice<AttachmentKind>(a, "kind", kAttachmentKindNames);
      at.vk_format = u32(a, "vk_format");
      at.width = u32(a, "width");
      at.height = u32(a, "height");
      at.samples = u32(a, "samples");
      at.texel_bytes = u32(a, "texel_bytes");
      at.skip_reason = a.string("skip_reason");
      read_array_chunk(a, "texels", ChunkKind::texels, "bytes", at.texels);
      if (v2) {
        at.load_op = choice<LoadOp>(a, "load_op", kLoadOpNames);
        at.store_op = choice<StoreOp>(a, "store_op", kStoreOpNames);
        at.image = hex64(a, "image");
        at.mip_level = u32(a, "mip_level");
        at.base_layer = u32(a, "base_layer");
      }
    }
    if (!v2) version1_load_ops(p);
  }

  // Version 1 recorded no load ops, only clear values: an attachment with a clear value is
  // cleared, any other reads as dont_care (replay starts it from the documented default, as it
  // started every attachment without a clear value before version 2).
  static void version1_load_ops(RenderPass& p) {
    size_t colours = 0;
    for (Attachment& a : p.attachments) {
      if (a.kind == AttachmentKind::depth) {
        a.load_op = p.clears_depth ? LoadOp::clear : LoadOp::dont_care;
        continue;
      }
      const size_t k = colours++;
      a.load_op = k < p.clear_colors.size() ? LoadOp::clear : LoadOp::dont_care;
    }
  }

  void read_draw(const Json& j, const std::string& path, Draw& d) {
    ObjectReader r(j, where_, path);
    r.allow_only({"pass", "pipeline", "call", "vertex_count", "instance_count", "shaders", "state", "captured",
                  "skip_reason", "primitives_needed", "primitives_written", "positions", "vertex_ids", "instance_ids"});
    d.pass = u32(r, "pass");
    d.pipeline = hex64(r, "pipeline");
    d.call = choice<DrawCall>(r, "call", kDrawCallNames);
    d.vertex_count = u32(r, "vertex_count");
    d.instance_count = u32(r, "instance_count");
    const auto& shaders = strict_json::as_array(r.require("shaders"), r.at("shaders"));
    for (size_t i = 0; i < shaders.size(); ++i) {
      ObjectReader s(shaders[i], where_, strict_json::join(r.at("shaders").path, i));
      s.allow_only({"stage", "entry_point", "instructions", "module_hash"});
      ShaderInfo info;
      info.stage = choice<ShaderStage>(s, "stage", kShaderStageNames);
      info.entry_point = s.string("entry_point");
      info.instructions = u32(s, "instructions");
      info.module_hash = hex64(s, "module_hash");
      d.shaders.push_back(std::move(info));
    }
    read_state(r.require("state"), r.at("state"), d.state);
    d.captured = boolean(r, "captured");
    d.skip_reason = r.string("skip_reason");
    d.primitives_needed = u64(r, "primitives_needed");
    d.primitives_written = u64(r, "primitives_written");
    read_array_chunk(r, "positions", ChunkKind::positions, "count", d.positions);
    read_array_chunk(r, "vertex_ids", ChunkKind::vertex_ids, "count", d.vertex_ids);
    read_array_chunk(r, "instance_ids", ChunkKind::instance_ids, "count", d.instance_ids);
  }

  void read_frame(const Json& j, const std::string& path, Frame& f) {
    ObjectReader r(j, where_, path);
    r.allow_only({"number", "passes", "draws"});
    f.number = u64(r, "number");
    const auto& passes = strict_json::as_array(r.require("passes"), r.at("passes"));
    f.passes.resize(passes.size());
    for (size_t i = 0; i < passes.size(); ++i)
      read_pass(passes[i], strict_json::join(r.at("passes").path, i), f.passes[i]);
    const auto& draws = strict_json::as_array(r.require("draws"), r.at("draws"));
    f.draws.resize(draws.size());
    for (size_t i = 0; i < draws.size(); ++i) read_draw(draws[i], strict_json::join(r.at("draws").path, i), f.draws[i]);
  }

  std::string where_;
  uint32_t version_ = kFormatVersion;
  uint64_t chunks_end_ = 0;
  uint32_t header_chunks_ = 0;
  uint64_t raw_allowance_ = 0;
  std::vector<ChunkEntry> chunks_;
  std::vector<ChunkJob> jobs_;
  uint64_t raw_total_ = 0;
};

}  // namespace

Capture read_capture_bytes(std::span<const uint8_t> bytes, const std::string& name) {
  const uint64_t size = bytes.size();
  const auto fail = [&](const std::string& what) -> void { throw Error(name + ": " + what); };
  if (size == 0) fail("empty file, not a Tessera capture (.tcap)");
  const size_t magic_seen = std::min<size_t>(bytes.size(), kMagic.size());
  if (!std::equal(bytes.begin(), bytes.begin() + magic_seen, kMagic.begin())) {
    fail("not a Tessera capture (.tcap): the file does not start with the format's magic bytes");
  }
  if (size < kHeaderBytes) {
    fail("truncated: " + std::to_string(size) + " bytes, shorter than the " + std::to_string(kHeaderBytes) +
         "-byte header");
  }
  const uint8_t* h = bytes.data();
  const uint32_t version = get_u32(h + kOffVersion);
  if (version < kOldestFormatVersion || version > kFormatVersion) {
    fail("format version " + std::to_string(version) + " is not supported (this build reads versions " +
         std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion) + ")");
  }
  const uint32_t header_crc = crc32({h, kOffHeaderCrc});
  if (header_crc != get_u32(h + kOffHeaderCrc)) {
    fail("header checksum mismatch (stored " + hex32(get_u32(h + kOffHeaderCrc)) + ", computed " + hex32(header_crc) +
         "): the file is corrupt");
  }
  if (get_u32(h + kOffHeaderBytes) != kHeaderBytes || get_u32(h + kOffReserved) != 0) {
    fail("header: header size " + std::to_string(get_u32(h + kOffHeaderBytes)) + " and reserved word " +
         std::to_string(get_u32(h + kOffReserved)) + " must be 64 and 0");
  }
  const uint64_t file_bytes = get_u64(h + kOffFileBytes);
  if (size < file_bytes) {
    fail("truncated: " + std::to_string(size) + " bytes of the " + std::to_string(file_bytes) + " the header declares");
  }
  if (size > file_bytes) {
    fail(std::to_string(size - file_bytes) + " bytes after the end the header declares (" + std::to_string(file_bytes) +
         " bytes)");
  }
  const uint64_t manifest_offset = get_u64(h + kOffManifestOffset);
  const uint64_t manifest_stored = get_u64(h + kOffManifestStored);
  const uint64_t manifest_raw = get_u64(h + kOffManifestRaw);
  if (manifest_offset < kHeaderBytes || manifest_offset > size || manifest_stored != size - manifest_offset ||
      manifest_stored == 0) {
    fail("header: the manifest at offset " + std::to_string(manifest_offset) + " with " +
         std::to_string(manifest_stored) + " stored bytes does not end the " + std::to_string(size) + "-byte file");
  }
  if (manifest_raw < 2 || manifest_raw > kMaxManifestRawBytes) {
    fail("header: manifest size " + std::to_string(manifest_raw) + " is out of range [2, " +
         std::to_string(kMaxManifestRawBytes) + "]");
  }
  const std::span<const uint8_t> manifest_bytes = bytes.subspan(size_t(manifest_offset), size_t(manifest_stored));
  const uint32_t manifest_crc = crc32(manifest_bytes);
  if (manifest_crc != get_u32(h + kOffManifestCrc)) {
    fail("manifest checksum mismatch (stored " + hex32(get_u32(h + kOffManifestCrc)) + ", computed " +
         hex32(manifest_crc) + "): the file is corrupt");
  }
  // Budget: the file, the manifest and every chunk decompressed must fit the process's memory
  // limit together; the chunk part is checked once the chunk table is read.
  const uint64_t budget = memory_limit();
  if (size + manifest_raw > budget) {
    fail("needs " + mib(size + manifest_raw) + " to read, more than the memory limit of " + mib(budget));
  }
  std::string text(size_t(manifest_raw), '\0');
  decompress(manifest_bytes, reinterpret_cast<uint8_t*>(text.data()), manifest_raw, name + ": manifest");
  const std::string where = name + ": manifest";
  const Json json = strict_json::parse(text, where);
  ManifestReader reader(where, version, manifest_offset, get_u32(h + kOffChunkCount), budget - size - manifest_raw);
  Capture capture = reader.read(json);
  validate(capture, where, version);
  for (const ChunkJob& job : reader.jobs()) {
    const ChunkEntry& e = reader.chunks()[job.chunk];
    const std::string chunk_where = where + ": chunks[" + std::to_string(job.chunk) + "]";
    const std::span<const uint8_t> stored = bytes.subspan(size_t(e.offset), size_t(e.stored_bytes));
    const uint32_t crc = crc32(stored);
    if (crc != e.crc) {
      throw Error(chunk_where + ": checksum mismatch (stored " + hex32(e.crc) + ", computed " + hex32(crc) +
                  "): the file is corrupt");
    }
    decompress(stored, job.destination, e.raw_bytes, chunk_where);
    if (e.kind != ChunkKind::texels) words_to_from_little_endian({job.destination, size_t(e.raw_bytes)});
  }
  return capture;
}

Capture read_capture(const std::filesystem::path& path) {
  const uint64_t cap = std::min(kMaxFileBytes, memory_limit());
  const std::string bytes = read_input_file(path, cap, "capture");
  return read_capture_bytes({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, path.string());
}

}  // namespace tessera::capture
