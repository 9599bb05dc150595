// The .tcap reader (docs/capture.md) on hostile bytes, three ways chosen by the first byte:
// the bytes as a whole file; a capture built from the bytes, written with write_capture and
// read back (the round trip keeps every position bit for bit); and that written file with bytes
// flipped where the input says (corruption past the magic and header, which raw bytes rarely
// reach). Each gives a Capture or a tessera::Error, never a hang or an allocation the input does
// not justify, and the captured draws hold whole triangles.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <vector>

#include "fuzz_support.h"
#include "tessera/capture.h"
#include "tessera/scene.h"

namespace {

using namespace tessera::capture;
using tessera::fuzz::ByteReader;
using tessera::fuzz::finding;

Capture capture_from(ByteReader& in) {
  Capture c;
  const int name_length = in.get<uint8_t>() % 24;
  // Printable ASCII: the writer replaces invalid UTF-8 in names by design (docs/capture.md), so
  // arbitrary bytes would not read back equal.
  for (int i = 0; i < name_length; ++i) c.application.push_back(char(32 + in.get<uint8_t>() % 95));
  c.api_version = in.get<uint32_t>();
  Frame& frame = c.frames.emplace_back();
  frame.number = in.get<uint16_t>();
  RenderPass& pass = frame.passes.emplace_back();
  pass.area_width = 1 + in.get<uint8_t>();
  pass.area_height = 1 + in.get<uint8_t>();
  // A colour attachment, multisampled or not (the layer captures 4x attachments per sample):
  // pixel-major samples, bytes from the input.
  pass.samples = 1u << (in.get<uint8_t>() % 4);
  Attachment& att = pass.attachments.emplace_back();
  att.vk_format = 37;  // VK_FORMAT_R8G8B8A8_UNORM
  att.width = 1 + in.get<uint8_t>() % 8;
  att.height = 1 + in.get<uint8_t>() % 8;
  att.samples = pass.samples;
  att.texel_bytes = 4;
  att.texels.resize(size_t(att.width) * att.height * att.samples * att.texel_bytes);
  for (uint8_t& b : att.texels) b = in.get<uint8_t>();
  const int draws = 1 + in.get<uint8_t>() % 4;
  for (int d = 0; d < draws; ++d) {
    Draw& draw = frame.draws.emplace_back();
    draw.captured = true;
    const int triangles = in.get<uint8_t>() % 8;
    draw.vertex_count = uint32_t(3 * triangles);
    draw.instance_count = 1;
    for (int v = 0; v < 3 * triangles; ++v) {
      glm::vec4 p;
      for (int k = 0; k < 4; ++k) p[k] = in.get<float>();
      draw.positions.push_back(p);
    }
  }
  return c;
}

void check_read(const Capture& c) {
  for (const Frame& frame : c.frames) {
    for (const RenderPass& pass : frame.passes) {
      for (const Attachment& a : pass.attachments) {
        if (!a.texels.empty() && a.texels.size() != size_t(a.width) * a.height * a.samples * a.texel_bytes)
          finding("attachment texels do not fill width * height * samples * texel_bytes");
      }
    }
    for (const Draw& draw : frame.draws) {
      if (draw.positions.size() % 3 != 0) finding("captured draw positions are not whole triangles");
    }
  }
}

std::vector<uint8_t> file_bytes(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

// A lower memory budget: a small input declaring large (legitimately compressible) chunks stays
// within the fuzzer's RSS limit; the reader enforces the budget before allocating.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tessera::set_memory_limit(uint64_t(256) << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 3;
  if (mode == 0) {
    tessera::fuzz::expect_result_or_error(
        [&] { check_read(read_capture_bytes(std::span<const uint8_t>(data + 1, size - 1), "fuzz.tcap")); });
    return 0;
  }
  ByteReader in(data + 1, size - 1);
  const Capture written = capture_from(in);
  const auto path = tessera::fuzz::write_input(nullptr, 0, "capture.tcap");
  tessera::fuzz::expect_result_or_error([&] {
    write_capture(path, written);
    if (mode == 1) {
      const Capture read = read_capture(path);
      if (read.application != written.application || read.frames.size() != 1 ||
          read.frames[0].draws.size() != written.frames[0].draws.size()) {
        finding("capture round trip differs");
      }
      const auto& ta = read.frames[0].passes.empty() || read.frames[0].passes[0].attachments.empty()
                           ? std::vector<uint8_t>{}
                           : read.frames[0].passes[0].attachments[0].texels;
      if (ta != written.frames[0].passes[0].attachments[0].texels)
        finding("attachment samples differ after the round trip");
      for (size_t d = 0; d < read.frames[0].draws.size(); ++d) {
        const auto& a = read.frames[0].draws[d].positions;
        const auto& b = written.frames[0].draws[d].positions;
        if (a.size() != b.size() || (!a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) != 0)) {
          finding("capture positions differ after the round trip");
        }
      }
      return;
    }
    std::vector<uint8_t> bytes = file_bytes(path);
    if (bytes.empty()) finding("write_capture wrote nothing");
    while (in.left() >= 3) {
      const size_t at = in.get<uint16_t>() % bytes.size();
      bytes[at] ^= in.get<uint8_t>();
    }
    check_read(read_capture_bytes(bytes, "fuzz.tcap"));
  });
  return 0;
}
