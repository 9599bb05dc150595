#include "bench/color_codec_bench.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "color/color_counters.h"
#include "color/color_tile.h"
#include "color/tile_store.h"
#include "tessera/error.h"

namespace tessera {

namespace {

using Clock = std::chrono::steady_clock;

template <typename Fn>
double best_seconds(int repetitions, Fn&& fn) {
  double best = 1e300;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return std::max(best, 1e-9);
}

}  // namespace

ColorCodecRun run_color_codecs(const Frame& frame, Rgba8 clear_color, int repetitions) {
  const int n = frame.diagnostics.samples_per_pixel;
  const int w = frame.color.width, h = frame.color.height;
  if (n < 2 || frame.diagnostics.samples.size() != size_t(w) * size_t(h) * size_t(n)) {
    throw Error("colour codecs: the frame holds no multisampled colour (render with MSAA and frame.keep_samples)");
  }
  // Gather every 8x4 block once; blocks past the frame edge hold the clear colour.
  std::vector<color::ColorTile> blocks;
  for (int by = 0; by < h; by += color::kTileHeight)
    for (int bx = 0; bx < w; bx += color::kTileWidth)
      blocks.push_back(color::gather_tile(frame.diagnostics.samples.data(), w, h, n, bx, by, clear_color));
  ColorCodecRun run;
  run.tiles = blocks.size();
  std::vector<color::StoredTile> stored(blocks.size());
  const double compress_s = best_seconds(repetitions, [&] {
    for (size_t i = 0; i < blocks.size(); ++i) stored[i] = color::store_tile(blocks[i], clear_color);
  });
  uint64_t mismatches = 0;
  const double decompress_s = best_seconds(repetitions, [&] {
    mismatches = 0;
    for (size_t i = 0; i < blocks.size(); ++i) mismatches += !(color::load_tile(stored[i], clear_color) == blocks[i]);
  });
  if (mismatches)
    throw Error("colour codecs: " + std::to_string(mismatches) + " blocks did not decode to their samples");
  std::vector<color::ColorTile> copies(blocks.size());
  const double copy_s = best_seconds(repetitions, [&] {
    for (size_t i = 0; i < blocks.size(); ++i) {
      copies[i].samples = n;
      std::memcpy(copies[i].color.data(), blocks[i].color.data(), sizeof(Rgba8) * size_t(color::kTilePixels * n));
    }
  });
  color::ColorCounters cc;
  for (const color::StoredTile& t : stored) cc.add(t);
  run.compress_tiles_per_s = double(blocks.size()) / compress_s;
  run.decompress_tiles_per_s = double(blocks.size()) / decompress_s;
  run.copy_tiles_per_s = double(blocks.size()) / copy_s;
  run.stored_bytes = cc.stored_bytes();
  run.uncompressed_bytes = cc.baseline_uncompressed_bits / 8;
  run.planes_only_bytes = cc.baseline_planes_only_bits / 8;
  return run;
}

}  // namespace tessera
