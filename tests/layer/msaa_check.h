// The MSAA read-back's checks shared by the layer's test applications (layer_units_app.cpp,
// layer_app_vk10.cpp): reading the layer's sample dumps and running Tessera's colour unit on
// them, the truth a record's `msaa` figures are compared with. Links the tessera library.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/color_codec_bench.h"
#include "color/color_counters.h"
#include "tessera/image.h"

namespace layer_test {

constexpr uint32_t kRgba(uint32_t r, uint32_t g, uint32_t b, uint32_t a) { return r | g << 8 | b << 16 | a << 24; }

struct Dump {
  uint32_t width = 0, height = 0, samples = 0, clear = 0;
  std::vector<uint32_t> data;  // pixel-major
  uint32_t at(uint32_t x, uint32_t y, uint32_t s) const { return data[(size_t(y) * width + x) * samples + s]; }
};

inline bool read_dump(const std::string& path, Dump& d) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  uint32_t header[4] = {};
  if (!in.read(magic, 8) || std::string(magic, 8) != "TSMSAA1\n" ||
      !in.read(reinterpret_cast<char*>(header), sizeof header))
    return false;
  d.width = header[0], d.height = header[1], d.samples = header[2], d.clear = header[3];
  d.data.resize(size_t(d.width) * d.height * d.samples);
  return bool(in.read(reinterpret_cast<char*>(d.data.data()), std::streamsize(d.data.size() * 4)));
}

inline std::string expand(std::string pattern, uint64_t frame, uint32_t image) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{device}", "0"},
                                   {"{frame}", std::to_string(frame)},
                                   {"{image}", std::to_string(image)}})
    for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key))
      pattern.replace(at, key.size(), value);
  return pattern;
}

// What Tessera's colour unit makes of one dumped image: bytes through its frame entry point
// (tessera bench color's run_color_codecs), tile states tile by tile through its store path.
struct UnitResult {
  uint64_t tiles = 0, stored = 0, uncompressed = 0, planes_only = 0;
  std::vector<uint8_t> states;
  uint64_t by_state[16] = {};
};

inline UnitResult colour_unit(const Dump& d) {
  tessera::Frame frame;
  frame.color = tessera::Image(int(d.width), int(d.height));
  frame.diagnostics.samples_per_pixel = int(d.samples);
  frame.diagnostics.samples.assign(d.data.begin(), d.data.end());
  const tessera::ColorCodecRun run = tessera::run_color_codecs(frame, d.clear, 1);
  UnitResult u;
  u.tiles = run.tiles;
  u.stored = run.stored_bytes;
  u.uncompressed = run.uncompressed_bytes;
  u.planes_only = run.planes_only_bytes;
  for (uint32_t by = 0; by < d.height; by += 4)
    for (uint32_t bx = 0; bx < d.width; bx += 8) {
      tessera::color::ColorTile t;
      t.samples = int(d.samples);
      for (int p = 0; p < 32; ++p)
        for (uint32_t s = 0; s < d.samples; ++s) {
          const uint32_t x = bx + uint32_t(p % 8), y = by + uint32_t(p / 8);
          t.at(p, int(s)) = x < d.width && y < d.height ? d.at(x, y, s) : d.clear;
        }
      const uint8_t state = uint8_t(tessera::color::store_tile(t, d.clear).state);
      u.states.push_back(state);
      ++u.by_state[state];
    }
  return u;
}

}  // namespace layer_test
