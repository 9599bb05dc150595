// The software GPU: renders a scene through the modelled units and reports their statistics.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/clip_space.h"
#include "tessera/config.h"
#include "tessera/image.h"
#include "tessera/scene.h"
#include "tessera/stats.h"

namespace tessera {

// What one fixed binning tile did in a frame: facts the raster counters already hold, kept per
// tile so tools can draw workload maps. 12 bytes.
struct TileWork {
  uint32_t bin_entries = 0;        // triangles binned to the tile (its list length)
  uint32_t fragments_covered = 0;  // covered pixel centres
  uint32_t quads_shaded = 0;       // 2x2 quads with a pixel passing the depth test
};
static_assert(sizeof(TileWork) == 12, "TileWork is three 32-bit counters");

// What one clip-space draw did in a frame (per-draw diagnostics for replay and the viewer): the
// raster counters of docs/stats.md restricted to its primitives.
struct DrawWork {
  uint64_t primitives_in = 0;      // raster.triangles.in
  uint64_t culled = 0;             // every raster.triangles.culled_* reason
  uint64_t culled_nonfinite = 0;   // ... of which raster.triangles.culled_nonfinite
  uint64_t culled_frustum = 0;     // ... raster.triangles.culled_frustum (wholly outside one plane)
  uint64_t culled_facing = 0;      // ... raster.triangles.culled_backface + culled_frontface
  uint64_t culled_scissor = 0;     // ... raster.triangles.culled_scissor
  uint64_t clipped = 0;            // raster.triangles.clipped
  uint64_t clip_output = 0;        // raster.triangles.clip_output (triangles the clipped ones became)
  uint64_t setup = 0;              // raster.triangles.setup
  uint64_t bin_entries = 0;        // raster.bins.entries
  uint64_t tiles_touched = 0;      // bin-grid tiles with at least one of its triangles
  uint64_t atomic_entries = 0;     // (triangle, atomic tile) pairs: its PICB share is this x PIC
  uint64_t picb = 0;               // its contribution to the PICB (atomic_entries x PIC; 0 without the accounting)
  uint64_t fragments_covered = 0;  // raster.fragments.covered
  uint64_t samples_covered = 0;    // raster.samples.covered
  uint64_t depth_passed = 0;       // raster.depth.passed (samples)
  uint64_t quads_shaded = 0;       // raster.quads.shaded
  uint64_t fs_invocations = 0;     // raster.fs.invocations (helpers included)
  // Triangles leaving clipping for setup (before face, degenerate and scissor culling): what
  // Vulkan's VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT counts (docs/replay.md).
  uint64_t after_clipping() const { return primitives_in - culled_nonfinite - culled_frustum - clipped + clip_output; }
  // ... less those culled by facing: what lavapipe counts as clipping primitives (it culls faces
  // before counting; degenerate and scissored triangles are still counted).
  uint64_t after_face_culling() const { return after_clipping() - culled_facing; }
  bool operator==(const DrawWork&) const = default;
};

// What the units did per tile, per colour block and per pixel, for overlays and tools (workload,
// colour-state, PICB, supertile and LOD maps). Filled only when the config asks
// (frame.diagnostics; frame.keep_samples for the colour samples): the frame's functional
// results and statistics never depend on it.
struct FrameDiagnostics {
  int tile_size = 0;  // fixed tile edge in pixels
  int tiles_x = 0;    // tile grid: ceil(width / tile_size) x ceil(height / tile_size)
  int tiles_y = 0;
  std::vector<TileWork> tiles;  // row-major over the tile grid, tiles_x * tiles_y entries
  // Colour-unit control code (tessera/color_state.h) of every 8x4 block of a multisampled
  // target, row-major over ceil(width / 8) x ceil(height / 4) blocks; empty at 1x.
  int color_blocks_x = 0;
  int color_blocks_y = 0;
  std::vector<uint8_t> color_states;
  // With frame.keep_samples and MSAA: every colour sample as stored, pixel-major
  // (width * height * msaa entries, the samples of a pixel adjacent).
  int samples_per_pixel = 1;
  std::vector<Rgba8> samples;
  // Tiling accounting: the PICB over atomic tiles (row-major, atomic_x * atomic_y) and the
  // supertile owning each atomic tile, generated from it.
  int atomic_size = 0;
  int atomic_x = 0;
  int atomic_y = 0;
  std::vector<uint16_t> picb;
  std::vector<uint32_t> supertile_of;
  // The timing model (docs/timing.md): per tile of the grid above, the unit that limits its
  // render unit (timing::Unit, in TESSERA_TIMING_UNITS order), 255 where the tile has no work;
  // the unit names in that order.
  std::vector<uint8_t> bottleneck;
  std::vector<std::string> bottleneck_units;
  // Ray-traced frames: per pixel, the LOD level its primary ray hit (0 = finest), -1 where it
  // hit no LOD object or nothing; empty for raster frames.
  std::vector<int8_t> lod_levels;
  // Clip-space frames rendered with ClipSpaceDiagnostics::draws: what each draw did (in the
  // frame's draw order, draws without triangles included), per sample the draw that last wrote
  // it (draw index + 1, 0 where the clear colour remains; pixel-major as `samples`), and per
  // pixel the fragments that passed the depth test (overdraw, saturating at 65535).
  std::vector<DrawWork> draws;
  std::vector<uint32_t> sample_draw;
  std::vector<uint16_t> overdraw;
};

struct Frame {
  Image color;               // sRGB-encoded RGBA8, width x height
  std::vector<float> depth;  // D32F per pixel (sample 0), the clear depth where nothing was drawn
  Stats stats;               // schema in docs/stats.md
  FrameDiagnostics diagnostics;
};

class Renderer {
 public:
  explicit Renderer(const Config& config);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  const Config& config() const;
  // Renders one frame at config.frame.width x height. Thread count never changes the result.
  Frame render(const Scene& scene, const Camera& camera);
  // Renders draws already in clip space (tessera/clip_space.h) through the primitive, tile and
  // colour stages at the frame's size and sample count; the config's frame.width/height,
  // raster.msaa and raster.cull_backface do not apply (each draw carries its state). Throws
  // tessera::Error for a malformed frame (sizes, sample counts, indices out of range).
  Frame render_clip_space(const ClipSpaceFrame& frame);
  // The same with per-draw diagnostics (FrameDiagnostics::draws, sample_draw, overdraw) when
  // `draw_diagnostics` is set; the image and statistics do not depend on it.
  Frame render_clip_space(const ClipSpaceFrame& frame, bool draw_diagnostics);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera
