// Writes the sample capture the CLI tests read (`make_capture OUT.tcap`), and with `--hostile
// DIR` the damaged captures of tests/data/bad/ (tcap_*.tcap, regenerated with this program;
// tests/data/bad/README.md lists them). The sample: frame 10 with one render pass (colour read
// back, depth skipped), a cube of 12 triangles at w = 2 with vertex and instance ids, and a
// draw not captured; frame 11 with a draw of two triangles, one behind the eye (w < 0).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>
#include <zstd.h>

#include "capture/capture_format.h"
#include "tessera/capture.h"
#include "tessera/error.h"

using namespace tessera::capture;

namespace {

Capture sample() {
  Capture c;
  c.application = "make_capture";
  c.engine = "tests";
  c.api_version = (1u << 22) | (3u << 12);
  c.device = "sample device";
  c.driver = "sample driver";
  c.vendor_id = 0x10005;
  c.driver_version = 1;  // lavapipe's VK_MAKE_VERSION(0, 0, 1)
  c.layer_version = "test";
  Frame f;
  f.number = 10;
  RenderPass p;
  p.area_width = 4;
  p.area_height = 4;
  p.clear_colors = {{0.5f, 0.25f, 0.125f, 1.0f}};
  p.clears_depth = true;
  Attachment color;
  color.vk_format = 37;  // R8G8B8A8_UNORM
  color.width = 4;
  color.height = 4;
  color.texel_bytes = 4;
  color.texels.assign(64, 0x80);
  Attachment depth;
  depth.kind = AttachmentKind::depth;
  depth.vk_format = 126;  // D32_SFLOAT
  depth.width = 4;
  depth.height = 4;
  depth.texel_bytes = 4;
  depth.skip_reason = "store_op_dont_care";
  depth.store_op = StoreOp::dont_care;
  color.image = 0x5000;
  depth.image = 0x6000;
  p.attachments = {color, depth};
  f.passes = {p};
  Draw cube;
  cube.call = DrawCall::draw;
  cube.vertex_count = 36;
  cube.instance_count = 1;
  cube.shaders = {{ShaderStage::vertex, "main", 24, 0x1234}, {ShaderStage::fragment, "main", 5, 0x5678}};
  cube.captured = true;
  cube.primitives_needed = cube.primitives_written = 12;
  // The cube [-1, 1]^3 scaled by 0.5 at w = 2: NDC = corner * 0.25 (z shifted to 0.5 +- 0.25).
  static const int kFaces[6][4][3] = {
      {{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}}, {{1, -1, -1}, {-1, -1, -1}, {-1, 1, -1}, {1, 1, -1}},
      {{1, -1, 1}, {1, -1, -1}, {1, 1, -1}, {1, 1, 1}}, {{-1, -1, -1}, {-1, -1, 1}, {-1, 1, 1}, {-1, 1, -1}},
      {{-1, 1, 1}, {1, 1, 1}, {1, 1, -1}, {-1, 1, -1}}, {{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, {-1, -1, 1}}};
  for (int face = 0; face < 6; ++face) {
    for (const int corner : {0, 1, 2, 0, 2, 3}) {
      const int* v = kFaces[face][corner];
      cube.positions.push_back({0.5f * float(v[0]), 0.5f * float(v[1]), 1.0f + 0.5f * float(v[2]), 2.0f});
      cube.vertex_ids.push_back(uint32_t(cube.vertex_ids.size()));
      cube.instance_ids.push_back(0);
    }
  }
  Draw skipped;
  skipped.call = DrawCall::draw_indexed_indirect;
  skipped.captured = false;
  skipped.skip_reason = "mesh_shader";
  f.draws = {cube, skipped};
  Frame g;
  g.number = 11;
  // Frame 11 draws on frame 10's colour image again, loading it (first on it in its frame).
  RenderPass loaded = p;
  loaded.attachments[0].load_op = LoadOp::load;
  loaded.clear_colors = {glm::vec4(0.0f)};
  g.passes = {loaded};
  Draw behind;
  behind.vertex_count = 6;
  behind.instance_count = 1;
  behind.captured = true;
  behind.positions = {{0, 0, 0.5f, 1},  {1, 0, 0.5f, 1}, {0, 1, 0.5f, 1},
                      {0, 0, 0.5f, -1}, {1, 0, 0.5f, 1}, {0, 1, 0.5f, 1}};
  g.draws = {behind};
  c.frames = {f, g};
  return c;
}

std::vector<uint8_t> load(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void save(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void fix_header_crc(std::vector<uint8_t>& b) {
  format::put_u32(b.data() + format::kOffHeaderCrc, format::crc32({b.data(), format::kOffHeaderCrc}));
}

// Replaces `from` by `to` in the manifest's JSON text and fixes sizes and checksums.
std::vector<uint8_t> edit_manifest(const std::vector<uint8_t>& file, const std::string& from, const std::string& to) {
  using namespace format;
  const uint64_t offset = get_u64(file.data() + kOffManifestOffset);
  std::string text(get_u64(file.data() + kOffManifestRaw), '\0');
  ZSTD_decompress(text.data(), text.size(), file.data() + offset, file.size() - offset);
  const size_t at = text.find(from);
  if (at == std::string::npos) throw tessera::Error("make_capture: manifest lacks " + from);
  text.replace(at, from.size(), to);
  std::vector<uint8_t> stored(ZSTD_compressBound(text.size()));
  stored.resize(ZSTD_compress(stored.data(), stored.size(), text.data(), text.size(), 3));
  std::vector<uint8_t> out(file.begin(), file.begin() + std::ptrdiff_t(offset));
  out.insert(out.end(), stored.begin(), stored.end());
  put_u64(out.data() + kOffFileBytes, out.size());
  put_u64(out.data() + kOffManifestStored, stored.size());
  put_u64(out.data() + kOffManifestRaw, text.size());
  put_u32(out.data() + kOffManifestCrc, crc32(stored));
  fix_header_crc(out);
  return out;
}

void write_hostile(const std::filesystem::path& dir) {
  const auto good = dir / "tcap_sample.tmp";
  write_capture(good, sample());
  const std::vector<uint8_t> b = load(good);
  std::filesystem::remove(good);
  save(dir / "tcap_truncated.tcap", {b.begin(), b.begin() + std::ptrdiff_t(b.size() / 2)});
  std::vector<uint8_t> flipped = b;
  flipped[format::kHeaderBytes + 3] ^= 0x20;  // inside the first chunk
  save(dir / "tcap_flipped_chunk.tcap", flipped);
  std::vector<uint8_t> version = b;
  format::put_u32(version.data() + format::kOffVersion, 7);
  fix_header_crc(version);
  save(dir / "tcap_future_version.tcap", version);
  save(dir / "tcap_absurd_count.tcap", edit_manifest(b, "\"count\":36", "\"count\":4294967296000"));
  save(dir / "tcap_bad_offset.tcap", edit_manifest(b, "\"offset\":64", "\"offset\":65"));
  save(dir / "tcap_unknown_cull.tcap", edit_manifest(b, "\"cull\":\"back\"", "\"cull\":\"sideways\""));
  save(dir / "tcap_chunk_twice.tcap", edit_manifest(b, "\"positions\":{\"chunk\":5", "\"positions\":{\"chunk\":1"));
  // Format version 2's load ops: a name not in the list; a clear colour on a loaded attachment.
  save(dir / "tcap_unknown_load_op.tcap", edit_manifest(b, "\"load_op\":\"clear\"", "\"load_op\":\"reload\""));
  save(dir / "tcap_clear_on_load.tcap", edit_manifest(b, "\"load_op\":\"clear\"", "\"load_op\":\"load\""));
  const std::string text = "TCAP is not this\n";
  save(dir / "tcap_not_a_capture.tcap", {text.begin(), text.end()});
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "--hostile") == 0) {
      write_hostile(argv[2]);
    } else if (argc == 2) {
      write_capture(argv[1], sample());
    } else {
      std::cerr << "usage: make_capture OUT.tcap | make_capture --hostile DIR\n";
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "make_capture: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
