#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <zstd.h>

#include "capture/capture_format.h"
#include "tessera/capture.h"
#include "tessera/error.h"
#include "tessera/scene.h"

namespace tessera::capture {
namespace {

using Bytes = std::vector<uint8_t>;
using nlohmann::json;

// A capture that sets every field of the model to something other than its default.
Capture rich_capture() {
  Capture c;
  c.application = "cube demo";
  c.engine = "hand-made";
  c.api_version = (1u << 22) | (3u << 12) | 250;
  c.device = "llvmpipe (LLVM 15.0.6, 256 bits)";
  c.driver = "llvmpipe Mesa 22.3.6";
  c.vendor_id = 0x10005;
  c.device_id = 7;
  c.driver_version = 0x1234567;
  c.layer_version = "0.1.0";

  Frame f0;
  f0.number = 120;
  RenderPass p0;
  p0.subpass = 1;
  p0.area_x = 2;
  p0.area_y = 3;
  p0.area_width = 4;
  p0.area_height = 2;
  p0.samples = 4;
  p0.clear_colors = {{0.25f, 0.5f, 0.75f, 1.0f}};
  p0.clear_depth = 0.5f;
  p0.clears_depth = true;
  Attachment color;
  color.vk_format = 44;  // VK_FORMAT_B8G8R8A8_UNORM
  color.width = 4;
  color.height = 2;
  color.samples = 4;
  color.texel_bytes = 4;
  for (size_t i = 0; i < 4 * 2 * 4 * 4; ++i) color.texels.push_back(uint8_t(i * 7 + 1));
  Attachment depth;
  depth.kind = AttachmentKind::depth;
  depth.vk_format = 130;  // VK_FORMAT_D32_SFLOAT_S8_UINT, depth stored as float32
  depth.width = 4;
  depth.height = 2;
  depth.samples = 4;
  depth.texel_bytes = 4;
  depth.skip_reason = "store_op_dont_care";
  depth.store_op = StoreOp::dont_care;
  color.image = 0x00007F00DEADBEEFull;
  color.mip_level = 2;
  color.base_layer = 5;
  depth.image = 0x1122334455667788ull;
  p0.attachments = {color, depth};
  RenderPass p1;
  p1.dynamic_rendering = true;
  p1.area_width = 3;
  p1.area_height = 1;
  Attachment small;
  small.vk_format = 109;  // R32G32B32A32_SFLOAT
  small.width = 3;
  small.height = 1;
  small.texel_bytes = 16;
  for (size_t i = 0; i < 3 * 16; ++i) small.texels.push_back(uint8_t(255 - i));
  small.load_op = LoadOp::load;  // a resumed pass continues: load
  small.store_op = StoreOp::none;
  small.image = 0x00007F00DEADBEEFull;
  p1.resumes = true;
  p1.attachments = {small};
  f0.passes = {p0, p1};

  Draw d0;
  d0.pass = 0;
  d0.pipeline = 0xFEDCBA9876543210ull;
  d0.call = DrawCall::draw_indexed;
  d0.vertex_count = 6;
  d0.instance_count = 2;
  d0.shaders = {{ShaderStage::vertex, "main", 42, 0x0123456789ABCDEFull},
                {ShaderStage::fragment, "frag_main", 17, 0xFFFFFFFFFFFFFFFFull}};
  DrawState& s = d0.state;
  s.raster.topology = Topology::triangle_strip;
  s.raster.primitive_restart = true;
  s.raster.cull = CullMode::front_and_back;
  s.raster.front_face = FrontFace::clockwise;
  s.raster.depth = {true, false, CompareOp::greater_or_equal};
  s.raster.viewport = {1.5f, 2.5f, 640.0f, -480.0f, 0.125f, 0.875f};
  s.raster.scissor = {-3, 4, 100, 200};
  s.raster.samples = 4;
  s.application_topology = 5;
  s.primitive_restart = true;
  s.polygon_mode = 1;
  s.depth_clamp = true;
  s.depth_bias = true;
  s.depth_bias_constant = 1.25f;
  s.depth_bias_clamp = -0.5f;
  s.depth_bias_slope = 3.0e-7f;
  s.sample_mask = 0xA5A5A5A5u;
  s.blend = {{true, 0x7}, {false, 0xF}};
  s.viewports = {s.raster.viewport, {0, 0, 16, 16, 0, 1}};
  s.scissors = {s.raster.scissor, {0, 0, 8, 8}};
  d0.captured = true;
  d0.primitives_needed = 4;
  d0.primitives_written = 2;
  for (int i = 0; i < 6; ++i) {
    d0.positions.push_back({0.1f * float(i), -0.3f * float(i), 0.5f, 1.0f + float(i)});
    d0.vertex_ids.push_back(uint32_t(i % 4));
    d0.instance_ids.push_back(uint32_t(i / 3));
  }
  Draw d1;
  d1.pass = 1;
  d1.call = DrawCall::draw_indirect_count;
  d1.captured = true;
  d1.vertex_count = 3;
  d1.instance_count = 1;
  d1.shaders = {{ShaderStage::tessellation_evaluation, "te", 9, 1}};
  // Positions need not be finite: the primitive stage drops such triangles.
  d1.positions = {{std::numeric_limits<float>::quiet_NaN(), 0, 0, 1},
                  {1, 0, 0, 1},
                  {0, std::numeric_limits<float>::infinity(), 0, 1}};
  Draw d2;
  d2.pass = 1;
  d2.call = DrawCall::draw_indexed_indirect_count;
  d2.captured = false;
  d2.skip_reason = "mesh_shader";
  d2.primitives_needed = 9;
  f0.draws = {d0, d1, d2};

  Frame f1;
  f1.number = 121;
  f1.passes = {p1};
  Draw d3;
  d3.call = DrawCall::draw_indexed_indirect;
  d3.captured = true;  // a draw that produced nothing
  d3.shaders = {{ShaderStage::geometry, "gs", 3, 2}, {ShaderStage::tessellation_control, "tc", 4, 3}};
  f1.draws = {d3};
  c.frames = {f0, f1};
  return c;
}

void expect_same_viewport(const ViewportState& a, const ViewportState& b) {
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  EXPECT_EQ(a.min_depth, b.min_depth);
  EXPECT_EQ(a.max_depth, b.max_depth);
}

void expect_same_scissor(const ScissorRect& a, const ScissorRect& b) {
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
}

void expect_same(const Capture& a, const Capture& b) {
  EXPECT_EQ(b.format_version, kFormatVersion);
  EXPECT_EQ(a.application, b.application);
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.api_version, b.api_version);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.driver, b.driver);
  EXPECT_EQ(a.vendor_id, b.vendor_id);
  EXPECT_EQ(a.device_id, b.device_id);
  EXPECT_EQ(a.driver_version, b.driver_version);
  EXPECT_EQ(a.layer_version, b.layer_version);
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (size_t f = 0; f < a.frames.size(); ++f) {
    const Frame& fa = a.frames[f];
    const Frame& fb = b.frames[f];
    EXPECT_EQ(fa.number, fb.number);
    ASSERT_EQ(fa.passes.size(), fb.passes.size());
    for (size_t i = 0; i < fa.passes.size(); ++i) {
      const RenderPass& pa = fa.passes[i];
      const RenderPass& pb = fb.passes[i];
      EXPECT_EQ(pa.dynamic_rendering, pb.dynamic_rendering);
      EXPECT_EQ(pa.subpass, pb.subpass);
      EXPECT_EQ(pa.area_x, pb.area_x);
      EXPECT_EQ(pa.area_y, pb.area_y);
      EXPECT_EQ(pa.area_width, pb.area_width);
      EXPECT_EQ(pa.area_height, pb.area_height);
      EXPECT_EQ(pa.samples, pb.samples);
      EXPECT_EQ(pa.clear_colors, pb.clear_colors);
      EXPECT_EQ(pa.clear_depth, pb.clear_depth);
      EXPECT_EQ(pa.clears_depth, pb.clears_depth);
      EXPECT_EQ(pa.resumes, pb.resumes);
      ASSERT_EQ(pa.attachments.size(), pb.attachments.size());
      for (size_t k = 0; k < pa.attachments.size(); ++k) {
        const Attachment& aa = pa.attachments[k];
        const Attachment& ab = pb.attachments[k];
        EXPECT_EQ(aa.kind, ab.kind);
        EXPECT_EQ(aa.load_op, ab.load_op);
        EXPECT_EQ(aa.store_op, ab.store_op);
        EXPECT_EQ(aa.image, ab.image);
        EXPECT_EQ(aa.mip_level, ab.mip_level);
        EXPECT_EQ(aa.base_layer, ab.base_layer);
        EXPECT_EQ(aa.vk_format, ab.vk_format);
        EXPECT_EQ(aa.width, ab.width);
        EXPECT_EQ(aa.height, ab.height);
        EXPECT_EQ(aa.samples, ab.samples);
        EXPECT_EQ(aa.texel_bytes, ab.texel_bytes);
        EXPECT_EQ(aa.texels, ab.texels);
        EXPECT_EQ(aa.skip_reason, ab.skip_reason);
      }
    }
    ASSERT_EQ(fa.draws.size(), fb.draws.size());
    for (size_t i = 0; i < fa.draws.size(); ++i) {
      const Draw& da = fa.draws[i];
      const Draw& db = fb.draws[i];
      EXPECT_EQ(da.pass, db.pass);
      EXPECT_EQ(da.pipeline, db.pipeline);
      EXPECT_EQ(da.call, db.call);
      EXPECT_EQ(da.vertex_count, db.vertex_count);
      EXPECT_EQ(da.instance_count, db.instance_count);
      ASSERT_EQ(da.shaders.size(), db.shaders.size());
      for (size_t k = 0; k < da.shaders.size(); ++k) {
        EXPECT_EQ(da.shaders[k].stage, db.shaders[k].stage);
        EXPECT_EQ(da.shaders[k].entry_point, db.shaders[k].entry_point);
        EXPECT_EQ(da.shaders[k].instructions, db.shaders[k].instructions);
        EXPECT_EQ(da.shaders[k].module_hash, db.shaders[k].module_hash);
      }
      const DrawState& sa = da.state;
      const DrawState& sb = db.state;
      EXPECT_EQ(sa.raster.topology, sb.raster.topology);
      EXPECT_EQ(sa.raster.primitive_restart, sb.raster.primitive_restart);
      EXPECT_EQ(sa.raster.cull, sb.raster.cull);
      EXPECT_EQ(sa.raster.front_face, sb.raster.front_face);
      EXPECT_EQ(sa.raster.depth, sb.raster.depth);
      expect_same_viewport(sa.raster.viewport, sb.raster.viewport);
      expect_same_scissor(sa.raster.scissor, sb.raster.scissor);
      EXPECT_EQ(sa.raster.samples, sb.raster.samples);
      EXPECT_EQ(sa.application_topology, sb.application_topology);
      EXPECT_EQ(sa.primitive_restart, sb.primitive_restart);
      EXPECT_EQ(sa.polygon_mode, sb.polygon_mode);
      EXPECT_EQ(sa.depth_clamp, sb.depth_clamp);
      EXPECT_EQ(sa.depth_bias, sb.depth_bias);
      EXPECT_EQ(sa.depth_bias_constant, sb.depth_bias_constant);
      EXPECT_EQ(sa.depth_bias_clamp, sb.depth_bias_clamp);
      EXPECT_EQ(sa.depth_bias_slope, sb.depth_bias_slope);
      EXPECT_EQ(sa.sample_mask, sb.sample_mask);
      EXPECT_EQ(sa.blend, sb.blend);
      ASSERT_EQ(sa.viewports.size(), sb.viewports.size());
      for (size_t k = 0; k < sa.viewports.size(); ++k) expect_same_viewport(sa.viewports[k], sb.viewports[k]);
      ASSERT_EQ(sa.scissors.size(), sb.scissors.size());
      for (size_t k = 0; k < sa.scissors.size(); ++k) expect_same_scissor(sa.scissors[k], sb.scissors[k]);
      EXPECT_EQ(da.captured, db.captured);
      EXPECT_EQ(da.skip_reason, db.skip_reason);
      EXPECT_EQ(da.primitives_needed, db.primitives_needed);
      EXPECT_EQ(da.primitives_written, db.primitives_written);
      // Bit for bit: NaN positions must survive too.
      ASSERT_EQ(da.positions.size(), db.positions.size());
      // memcmp with an empty vector's null data() is undefined (UBSan), so only compare bytes there are.
      if (!da.positions.empty()) {
        EXPECT_EQ(0, std::memcmp(da.positions.data(), db.positions.data(), da.positions.size() * sizeof(glm::vec4)));
      }
      EXPECT_EQ(da.vertex_ids, db.vertex_ids);
      EXPECT_EQ(da.instance_ids, db.instance_ids);
    }
  }
}

class CaptureFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tessera_capture_test_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    set_memory_limit(0);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Bytes written(const Capture& c) {
    const auto path = dir_ / "c.tcap";
    write_capture(path, c);
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
  }
  std::filesystem::path dir_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string read_error(const Bytes& bytes, const std::string& name = "t.tcap") {
  return error_of([&] { read_capture_bytes(bytes, name); });
}

using namespace format;

// Rewrites the manifest of a valid file (the edit sees the JSON text) and fixes sizes and
// checksums, so only what the edit changed is wrong.
Bytes with_manifest_text(const Bytes& file, const std::function<void(std::string&)>& edit) {
  const uint64_t offset = get_u64(file.data() + kOffManifestOffset);
  const uint64_t raw = get_u64(file.data() + kOffManifestRaw);
  std::string text(raw, '\0');
  const size_t n = ZSTD_decompress(text.data(), raw, file.data() + offset, file.size() - offset);
  EXPECT_EQ(n, raw);
  edit(text);
  Bytes stored(ZSTD_compressBound(text.size()));
  stored.resize(ZSTD_compress(stored.data(), stored.size(), text.data(), text.size(), 1));
  Bytes out(file.begin(), file.begin() + std::ptrdiff_t(offset));
  out.insert(out.end(), stored.begin(), stored.end());
  put_u64(out.data() + kOffFileBytes, out.size());
  put_u64(out.data() + kOffManifestStored, stored.size());
  put_u64(out.data() + kOffManifestRaw, text.size());
  put_u32(out.data() + kOffManifestCrc, crc32(stored));
  put_u32(out.data() + kOffHeaderCrc, crc32({out.data(), kOffHeaderCrc}));
  return out;
}

Bytes with_manifest(const Bytes& file, const std::function<void(json&)>& edit) {
  return with_manifest_text(file, [&](std::string& text) {
    json j = json::parse(text);
    edit(j);
    text = j.dump();
  });
}

// Sets a header field and fixes the header checksum.
Bytes with_header_u32(Bytes file, size_t offset, uint32_t value) {
  put_u32(file.data() + offset, value);
  put_u32(file.data() + kOffHeaderCrc, crc32({file.data(), kOffHeaderCrc}));
  return file;
}

TEST_F(CaptureFileTest, RoundTripKeepsEveryField) {
  const Capture c = rich_capture();
  write_capture(dir_ / "rich.tcap", c);
  const Capture back = read_capture(dir_ / "rich.tcap");
  expect_same(c, back);
  // The model round-trips through bytes too, and writing is deterministic.
  const Bytes a = written(c);
  expect_same(c, read_capture_bytes(a, "mem"));
  EXPECT_EQ(a, written(back));
}

TEST_F(CaptureFileTest, EmptyCaptureRoundTrips) {
  Capture c;
  c.application = "nothing";
  const Bytes bytes = written(c);
  const Capture back = read_capture_bytes(bytes, "empty.tcap");
  EXPECT_EQ(back.application, "nothing");
  EXPECT_TRUE(back.frames.empty());
}

TEST_F(CaptureFileTest, HeaderIsLaidOutAsDocumented) {
  const Bytes b = written(rich_capture());
  ASSERT_GE(b.size(), kHeaderBytes);
  EXPECT_EQ(0, std::memcmp(b.data(), "TCAP\r\n\x1a\n", 8));
  EXPECT_EQ(get_u32(b.data() + 8), 2u);
  EXPECT_EQ(get_u32(b.data() + 12), 64u);
  EXPECT_EQ(get_u64(b.data() + 16), b.size());
  EXPECT_EQ(get_u64(b.data() + 24) + get_u64(b.data() + 32), b.size());
  // 7 chunks: 2 attachments' texels, d0's positions and both ids, d1's positions (and f1's p1 texels).
  EXPECT_EQ(get_u32(b.data() + 52), 7u);
  // CRC-32 as zlib computes it: crc32("123456789") = 0xCBF43926.
  const char* check = "123456789";
  EXPECT_EQ(crc32({reinterpret_cast<const uint8_t*>(check), 9}), 0xCBF43926u);
  EXPECT_EQ(get_u32(b.data() + 60), crc32({b.data(), 60}));
}

TEST_F(CaptureFileTest, WriterRefusesWhatTheReaderWouldRefuseAndKeepsTheOldFile) {
  const auto path = dir_ / "keep.tcap";
  write_capture(path, rich_capture());
  const auto before = std::filesystem::file_size(path);
  Capture bad = rich_capture();
  bad.frames[0].draws[0].positions.pop_back();
  EXPECT_NE(error_of([&] {
              write_capture(path, bad);
            }).find("keep.tcap: frames[0].draws[0].positions: 5 positions, not a multiple of 3"),
            std::string::npos);
  bad = rich_capture();
  bad.frames[0].passes[0].attachments[0].texels.pop_back();
  EXPECT_NE(error_of([&] { write_capture(path, bad); }).find("frames[0].passes[0].attachments[0].texels: 127 bytes"),
            std::string::npos);
  bad = rich_capture();
  bad.frames[1].passes[0].clear_depth = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(error_of([&] { write_capture(path, bad); }).find("frames[1].passes[0].clear_depth: must be finite"),
            std::string::npos);
  bad = rich_capture();
  bad.frames[0].draws[0].state.raster.cull = CullMode(9);
  EXPECT_NE(error_of([&] { write_capture(path, bad); }).find("state.raster.cull: unknown value 9"), std::string::npos);
  // The earlier capture is intact and no temporary is left beside it.
  EXPECT_EQ(std::filesystem::file_size(path), before);
  read_capture(path);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
  EXPECT_NE(error_of([&] { write_capture(dir_ / "no" / "such.tcap", rich_capture()); }).find("does not exist"),
            std::string::npos);
}

TEST_F(CaptureFileTest, TruncationAtEveryChunkBoundaryAndRandomLengthsIsReported) {
  const Bytes full = written(rich_capture());
  const json manifest = [&] {
    std::string text;
    with_manifest_text(full, [&](std::string& t) { text = t; });
    return json::parse(text);
  }();
  std::vector<size_t> cuts = {
      0, 1, 7, 8, 12, 63, 64, size_t(get_u64(full.data() + kOffManifestOffset)), full.size() - 1};
  for (const json& chunk : manifest["chunks"]) {
    const size_t offset = chunk["offset"].get<size_t>();
    cuts.push_back(offset);
    cuts.push_back(offset + 1);
    cuts.push_back(offset + chunk["stored_bytes"].get<size_t>() - 1);
  }
  std::mt19937 rng(17);
  for (int i = 0; i < 200; ++i) cuts.push_back(std::uniform_int_distribution<size_t>(0, full.size() - 1)(rng));
  for (const size_t cut : cuts) {
    const Bytes part(full.begin(), full.begin() + std::ptrdiff_t(cut));
    const std::string e = read_error(part);
    EXPECT_EQ(e.rfind("t.tcap: ", 0), 0u) << "cut at " << cut << ": " << e;
    const bool says =
        e.find("truncated") != std::string::npos || (cut == 0 && e.find("empty file") != std::string::npos);
    EXPECT_TRUE(says) << "cut at " << cut << ": " << e;
  }
  Bytes longer = full;
  longer.push_back(0);
  EXPECT_NE(read_error(longer).find("1 bytes after the end the header declares"), std::string::npos);
}

TEST_F(CaptureFileTest, EveryFlippedByteIsDetected) {
  const Bytes full = written(rich_capture());
  for (size_t i = 0; i < full.size(); ++i) {
    for (const uint8_t flip : {uint8_t(0x01), uint8_t(0x80)}) {
      Bytes bad = full;
      bad[i] ^= flip;
      const std::string e = read_error(bad);
      EXPECT_EQ(e.rfind("t.tcap: ", 0), 0u) << "byte " << i << ": " << e;
      const bool explained = e.find("checksum mismatch") != std::string::npos || e.find("magic") != std::string::npos ||
                             e.find("format version") != std::string::npos;
      EXPECT_TRUE(explained) << "byte " << i << ": " << e;
    }
  }
  // A flip inside the first chunk names it.
  Bytes bad = full;
  bad[kHeaderBytes + 5] ^= 0x10;
  EXPECT_NE(read_error(bad).find("t.tcap: manifest: chunks[0]: checksum mismatch"), std::string::npos);
}

TEST_F(CaptureFileTest, WrongMagicAndVersionAreNamed) {
  const Bytes full = written(rich_capture());
  Bytes bad = full;
  bad[0] = 'P';
  EXPECT_NE(read_error(bad).find("not a Tessera capture (.tcap)"), std::string::npos);
  const Bytes text{'h', 'e', 'l', 'l', 'o'};
  EXPECT_NE(read_error(text).find("not a Tessera capture"), std::string::npos);
  EXPECT_NE(read_error(with_header_u32(full, kOffVersion, 3))
                .find("format version 3 is not supported (this build reads versions 1 to 2)"),
            std::string::npos);
  EXPECT_NE(read_error(with_header_u32(full, kOffVersion, 0)).find("format version 0 is not supported"),
            std::string::npos);
  // A version 2 manifest under a version 1 header: the new keys are unknown there.
  EXPECT_NE(
      read_error(with_header_u32(full, kOffVersion, 1)).find("format_version: 2 disagrees with the header's version 1"),
      std::string::npos);
  EXPECT_NE(read_error(with_header_u32(full, kOffReserved, 1)).find("reserved word 1"), std::string::npos);
  EXPECT_NE(read_error(with_header_u32(full, kOffChunkCount, 99)).find("chunks: 7 chunks, the header declares 99"),
            std::string::npos);
  Bytes moved = full;
  put_u64(moved.data() + kOffManifestOffset, 3);
  put_u32(moved.data() + kOffHeaderCrc, crc32({moved.data(), kOffHeaderCrc}));
  EXPECT_NE(read_error(moved).find("does not end the"), std::string::npos);
  Bytes huge = full;
  put_u64(huge.data() + kOffManifestRaw, uint64_t(1) << 40);
  put_u32(huge.data() + kOffHeaderCrc, crc32({huge.data(), kOffHeaderCrc}));
  EXPECT_NE(read_error(huge).find("manifest size 1099511627776 is out of range"), std::string::npos);
}

struct HostileManifest {
  const char* name;
  std::function<void(json&)> edit;
  const char* message;
};

TEST_F(CaptureFileTest, HostileManifestsGiveErrorsWithTheirJsonPath) {
  const Bytes full = written(rich_capture());
  // Chunks in writing order: 0 p0 colour texels, 1 p1 texels, 2-4 d0 positions/vertex/instance
  // ids, 5 d1 positions, 6 f1's p1 texels.
  const std::vector<HostileManifest> cases = {
      {"absurd position count", [](json& j) { j["frames"][0]["draws"][0]["positions"]["count"] = 1000000000000ull; },
       "manifest: frames[0].draws[0].positions.count: 1000000000000 disagrees with chunk 2 (96 bytes, 6 elements)"},
      {"absurd chunk size", [](json& j) { j["chunks"][2]["raw_bytes"] = uint64_t(1) << 40; },
       "chunks[2].raw_bytes: 1099511627776 is out of range [1, 4294967296]"},
      {"chunk size not whole elements", [](json& j) { j["chunks"][2]["raw_bytes"] = 95; },
       "chunks[2].raw_bytes: 95 is not a multiple of 16"},
      {"negative count", [](json& j) { j["frames"][0]["draws"][0]["vertex_ids"]["count"] = -6; },
       "frames[0].draws[0].vertex_ids.count: -6 is negative"},
      {"bad offset", [](json& j) { j["chunks"][1]["offset"] = j["chunks"][1]["offset"].get<uint64_t>() + 1; },
       "chunks[1].offset: "},
      {"chunk past the manifest", [](json& j) { j["chunks"][6]["stored_bytes"] = 1u << 30; },
       "chunks[6].stored_bytes: 1073741824 bytes at offset"},
      {"chunk referenced twice", [](json& j) { j["frames"][1]["passes"][0]["attachments"][0]["texels"]["chunk"] = 1; },
       "frames[1].passes[0].attachments[0].texels.chunk: chunk 1 is referenced twice"},
      {"chunk index out of range", [](json& j) { j["frames"][0]["draws"][1]["positions"]["chunk"] = 70; },
       "frames[0].draws[1].positions.chunk: 70 is out of range (the file has 7 chunks)"},
      {"chunk of the wrong kind", [](json& j) { j["frames"][0]["draws"][1]["positions"]["chunk"] = 1; },
       "frames[0].draws[1].positions.chunk: chunk 1 holds texels, not positions"},
      {"unreferenced chunk",
       [](json& j) {
         j["frames"][0]["draws"][1]["positions"] = nullptr;
         j["frames"][0]["draws"][1]["captured"] = true;
       },
       "manifest: chunks[5]: not referenced by any draw or attachment"},
      {"unknown key", [](json& j) { j["frames"][0]["draws"][2]["colour"] = 1; },
       "frames[0].draws[2].colour: unknown key"},
      {"missing key", [](json& j) { j["frames"][0]["passes"][1].erase("samples"); },
       "frames[0].passes[1]: missing required key \"samples\""},
      {"unknown enum value", [](json& j) { j["frames"][0]["draws"][0]["state"]["raster"]["cull"] = "sideways"; },
       "frames[0].draws[0].state.raster.cull: unknown value \"sideways\" (expected none, front, back, front_and_back)"},
      {"unknown draw call", [](json& j) { j["frames"][0]["draws"][0]["call"] = 7; },
       "frames[0].draws[0].call: expected a string, got an integer"},
      {"float beyond float", [](json& j) { j["frames"][0]["passes"][0]["clear_depth"] = 1e39; },
       "frames[0].passes[0].clear_depth: 1e+39 is out of range"},
      {"NaN as a string", [](json& j) { j["frames"][0]["draws"][0]["state"]["raster"]["viewport"]["x"] = "nan"; },
       "state.raster.viewport.x: expected a number, got a string"},
      {"positions not a multiple of 3",
       [](json& j) {
         j["frames"][0]["draws"][0]["positions"]["count"] = 4;
         j["chunks"][2]["raw_bytes"] = 64;
       },
       "frames[0].draws[0].positions: 4 positions, not a multiple of 3"},
      {"ids count mismatch",
       [](json& j) {
         j["frames"][0]["draws"][0]["vertex_ids"]["count"] = 3;
         j["chunks"][3]["raw_bytes"] = 12;
       },
       "frames[0].draws[0].vertex_ids: 3 ids for 6 positions"},
      {"texel size mismatch", [](json& j) { j["frames"][0]["passes"][0]["attachments"][0]["width"] = 5; },
       "frames[0].passes[0].attachments[0].texels: 128 bytes, expected width * height * samples * texel_bytes = 160"},
      {"zstd frame disagrees with the manifest",
       [](json& j) {
         j["frames"][0]["passes"][0]["attachments"][0]["width"] = 2;
         j["frames"][0]["passes"][0]["attachments"][0]["texels"]["bytes"] = 64;
         j["chunks"][0]["raw_bytes"] = 64;
       },
       "chunks[0]: the zstd frame holds 128 bytes, the manifest declares 64"},
      {"draw in a missing pass", [](json& j) { j["frames"][0]["draws"][1]["pass"] = 5; },
       "frames[0].draws[1].pass: 5 is out of range (the frame has 2 render passes)"},
      {"depth before colour",
       [](json& j) {
         auto& a = j["frames"][0]["passes"][0]["attachments"];
         std::swap(a[0], a[1]);
       },
       "frames[0].passes[0].attachments[1].kind: an attachment after the depth attachment"},
      {"bad pipeline handle", [](json& j) { j["frames"][0]["draws"][0]["pipeline"] = "0x12"; },
       "frames[0].draws[0].pipeline: \"0x12\" is not \"0x\" and 16 lower-case hex digits"},
      {"manifest version", [](json& j) { j["format_version"] = 1; }, "format_version: 1 disagrees"},
      // Version 2's load and store ops.
      {"unknown load op", [](json& j) { j["frames"][0]["passes"][0]["attachments"][0]["load_op"] = "reload"; },
       "frames[0].passes[0].attachments[0].load_op: unknown value \"reload\" (expected load, clear, dont_care, none)"},
      {"unknown store op", [](json& j) { j["frames"][0]["passes"][0]["attachments"][1]["store_op"] = "keep"; },
       "frames[0].passes[0].attachments[1].store_op: unknown value \"keep\" (expected store, dont_care, none)"},
      {"load op as a number", [](json& j) { j["frames"][0]["passes"][0]["attachments"][0]["load_op"] = 0; },
       "frames[0].passes[0].attachments[0].load_op: expected a string, got an integer"},
      {"missing store op", [](json& j) { j["frames"][0]["passes"][0]["attachments"][0].erase("store_op"); },
       "frames[0].passes[0].attachments[0]: missing required key \"store_op\""},
      {"clear colour on a loaded attachment",
       [](json& j) { j["frames"][0]["passes"][0]["attachments"][0]["load_op"] = "load"; },
       "frames[0].passes[0].clear_colors[0]: a clear colour for an attachment loaded with load (only clear has one)"},
      {"clear without a clear colour",
       [](json& j) {
         j["frames"][1]["passes"][0]["resumes"] = false;
         j["frames"][1]["passes"][0]["attachments"][0]["load_op"] = "clear";
       },
       "frames[1].passes[0].attachments[0].load_op: clear without a clear colour (colour attachment 0)"},
      {"clear depth on a depth attachment not cleared",
       [](json& j) { j["frames"][0]["passes"][0]["attachments"][1]["load_op"] = "dont_care"; },
       "frames[0].passes[0].clears_depth: true disagrees with the depth attachment's load_op"},
      {"clear depth value without a clear",
       [](json& j) {
         j["frames"][0]["passes"][0]["attachments"][1]["load_op"] = "load";
         j["frames"][0]["passes"][0]["clears_depth"] = false;
       },
       "frames[0].passes[0].clear_depth: a clear depth for a pass that does not clear depth"},
      {"more clear colours than colour attachments",
       [](json& j) {
         j["frames"][0]["passes"][0]["clear_colors"].push_back({0, 0, 0, 0});
       },
       "frames[0].passes[0].clear_colors: 2 clear colours for 1 colour attachments"},
      {"resumed pass that clears",
       [](json& j) { j["frames"][0]["passes"][1]["attachments"][0]["load_op"] = "dont_care"; },
       "frames[0].passes[1].attachments[0].load_op: dont_care in a resumed pass"},
      {"resumed render pass", [](json& j) { j["frames"][0]["passes"][0]["resumes"] = true; },
       "frames[0].passes[0].resumes: only a dynamic-rendering pass resumes"},
      {"bad image identity", [](json& j) { j["frames"][0]["passes"][0]["attachments"][0]["image"] = 12; },
       "frames[0].passes[0].attachments[0].image: expected a string, got an integer"},
      {"negative mip level", [](json& j) { j["frames"][0]["passes"][0]["attachments"][0]["mip_level"] = -1; },
       "frames[0].passes[0].attachments[0].mip_level: -1 is negative"},
      {"captured with a reason", [](json& j) { j["frames"][0]["draws"][0]["skip_reason"] = "overflow"; },
       "frames[0].draws[0].skip_reason: \"overflow\" on a captured draw"},
      {"skipped without a reason", [](json& j) { j["frames"][0]["draws"][2]["skip_reason"] = ""; },
       "frames[0].draws[2].skip_reason: a draw not captured needs a reason"},
      {"odd sample count", [](json& j) { j["frames"][0]["passes"][1]["samples"] = 3; },
       "frames[0].passes[1].samples: 3 is not a sample count"},
      {"huge extent", [](json& j) { j["frames"][0]["passes"][1]["area_width"] = 70000; },
       "frames[0].passes[1].area_width: 70000 is out of range [0, 65536]"},
      {"write mask", [](json& j) { j["frames"][0]["draws"][0]["state"]["blend"][0]["write_mask"] = 16; },
       "state.blend[0].write_mask: 16 is out of range [0, 15]"},
      {"not an object",
       [](json& j) {
         j = json::array({1, 2, 3});
       },
       "manifest: top level: expected an object"},
  };
  for (const HostileManifest& c : cases) {
    const std::string e = read_error(with_manifest(full, c.edit));
    EXPECT_NE(e.find(c.message), std::string::npos) << c.name << ": " << e;
    EXPECT_EQ(e.rfind("t.tcap: ", 0), 0u) << c.name << ": " << e;
  }
  // Text-level hostility: duplicate keys, broken JSON, deep nesting.
  const auto text_error = [&](const std::function<void(std::string&)>& edit) {
    return read_error(with_manifest_text(full, edit));
  };
  EXPECT_NE(
      text_error([](std::string& t) { t.insert(1, "\"application\":\"x\","); }).find("application: duplicate key"),
      std::string::npos);
  EXPECT_NE(text_error([](std::string& t) { t.resize(t.size() / 2); }).find("manifest: invalid JSON"),
            std::string::npos);
  EXPECT_NE(text_error([](std::string& t) {
              t = std::string(200000, '[') + std::string(200000, ']');
            }).find("expected an object"),
            std::string::npos);
}

// A version 1 file (the same capture without version 2's keys): read with the load ops its
// clear values imply, and version 2's keys are unknown there.
Bytes as_version1(const Bytes& v2) {
  Bytes v1 = with_manifest(v2, [](json& j) {
    j["format_version"] = 1;
    for (json& f : j["frames"]) {
      for (json& p : f["passes"]) {
        p.erase("resumes");
        for (json& a : p["attachments"]) {
          for (const char* key : {"load_op", "store_op", "image", "mip_level", "base_layer"}) a.erase(key);
        }
      }
    }
  });
  return with_header_u32(v1, kOffVersion, 1);
}

TEST_F(CaptureFileTest, Version1FilesReadWithoutLoadOps) {
  const Bytes v1 = as_version1(written(rich_capture()));
  const Capture c = read_capture_bytes(v1, "old.tcap");
  EXPECT_EQ(c.format_version, 1u);
  ASSERT_EQ(c.frames.size(), 2u);
  const RenderPass& p0 = c.frames[0].passes[0];
  const RenderPass& p1 = c.frames[0].passes[1];
  // p0 has a clear colour and clears depth: both cleared; p1 has no clear colour: dont_care.
  EXPECT_EQ(p0.attachments[0].load_op, LoadOp::clear);
  EXPECT_EQ(p0.attachments[1].load_op, LoadOp::clear);
  EXPECT_EQ(p1.attachments[0].load_op, LoadOp::dont_care);
  EXPECT_FALSE(p1.resumes);
  EXPECT_EQ(p0.attachments[0].image, 0u);
  EXPECT_EQ(p0.clear_colors, rich_capture().frames[0].passes[0].clear_colors);
  // The texels are there as in version 2.
  EXPECT_EQ(p0.attachments[0].texels, rich_capture().frames[0].passes[0].attachments[0].texels);
  // Rewritten, it is a valid version 2 file with those load ops.
  write_capture(dir_ / "upgraded.tcap", c);
  const Capture up = read_capture(dir_ / "upgraded.tcap");
  EXPECT_EQ(up.format_version, 2u);
  EXPECT_EQ(up.frames[0].passes[1].attachments[0].load_op, LoadOp::dont_care);
  // Version 2's keys in a version 1 manifest are unknown keys.
  const Bytes mixed =
      with_manifest(v1, [](json& j) { j["frames"][0]["passes"][0]["attachments"][0]["load_op"] = "load"; });
  EXPECT_NE(read_error(mixed).find("frames[0].passes[0].attachments[0].load_op: unknown key"), std::string::npos)
      << read_error(mixed);
  const Bytes resumed = with_manifest(v1, [](json& j) { j["frames"][0]["passes"][1]["resumes"] = true; });
  EXPECT_NE(read_error(resumed).find("frames[0].passes[1].resumes: unknown key"), std::string::npos);
  // A version 1 file is not held to version 2's clear-value rules (it had no load ops).
  const Bytes extra = with_manifest(v1, [](json& j) { j["frames"][0]["passes"][0]["clear_depth"] = 0.25; });
  EXPECT_EQ(read_capture_bytes(extra, "old.tcap").frames[0].passes[0].clear_depth, 0.25f);
}

TEST_F(CaptureFileTest, MemoryBudgetRefusesBeforeAllocating) {
  const Bytes full = written(rich_capture());
  // A chunk table that declares more than the budget leaves: refused before any buffer is sized.
  set_memory_limit(full.size() + get_u64(full.data() + kOffManifestRaw) + 4096);
  const std::string e = read_error(with_manifest(full, [](json& j) {
    j["chunks"][0]["raw_bytes"] = uint64_t(1) << 32;
    j["frames"][0]["passes"][0]["attachments"][0]["texels"]["bytes"] = uint64_t(1) << 32;
  }));
  EXPECT_NE(e.find("chunks: the chunks decompress to"), std::string::npos) << e;
  EXPECT_NE(e.find("more than the memory limit"), std::string::npos) << e;
  set_memory_limit(100);
  EXPECT_NE(read_error(full).find("more than the memory limit"), std::string::npos);
  set_memory_limit(0);
  read_capture_bytes(full, "ok");
}

TEST_F(CaptureFileTest, NonRegularAndMissingFilesAreRefused) {
  EXPECT_NE(error_of([] { read_capture("/dev/zero"); }).find("/dev/zero: cannot read capture file: not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_capture(dir_ / "nope.tcap"); }).find("nope.tcap: capture file not found"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_capture(dir_); }).find("is a folder"), std::string::npos);
}

}  // namespace
}  // namespace tessera::capture
