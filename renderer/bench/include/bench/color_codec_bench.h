// `tessera bench color`: the colour unit's store and load paths (docs/color.md) over a whole
// multisampled frame, timed on one thread.
#pragma once

#include <cstdint>

#include "tessera/renderer.h"

namespace tessera {

struct ColorCodecRun {
  uint64_t tiles = 0;                 // 8x4 blocks per pass
  double compress_tiles_per_s = 0;    // store path (compressor) on one core
  double decompress_tiles_per_s = 0;  // load path (decompressor) on one core
  double copy_tiles_per_s = 0;        // copying the raw samples of each block, the floor
  uint64_t stored_bytes = 0;          // planes + index bits + control, as the frame stores them
  uint64_t uncompressed_bytes = 0;    // every plane raw
  uint64_t planes_only_bytes = 0;     // used planes raw + index bits
};

// `frame` must come from a multisampled render with frame.keep_samples. Each measurement is
// the best of `repetitions` passes over every block. Throws tessera::Error otherwise.
ColorCodecRun run_color_codecs(const Frame& frame, Rgba8 clear_color, int repetitions);

}  // namespace tessera
