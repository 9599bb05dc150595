// Overlays drawn over the frame, built from a finished Frame. The list is closed and lives
// here: a unit that starts producing per-tile or per-pixel data adds its kind to OverlayKind,
// a row to kOverlays and a case to build_overlay; the viewer's menu and legend follow.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "tessera/image.h"
#include "tessera/renderer.h"
#include "tessera/scene.h"

namespace tessera::viewer {

enum class OverlayKind : int {
  none,
  tile_bin_entries,        // per fixed tile: triangles binned (Frame::tiles)
  tile_fragments_covered,  // per fixed tile: covered pixel centres
  tile_quads_shaded,       // per fixed tile: quads shaded
  depth,                   // per pixel: view distance from the D32F depth buffer
  color_state,             // per 8x4 block: colour-unit control-surface state (MSAA frames)
  picb,                    // per atomic tile: primitive intersection cost (adaptive tiling)
  supertiles,              // per atomic tile: the supertile owning it, borders drawn
  bottleneck,              // per tile: the timing model's limiting unit (docs/timing.md)
  overdraw,                // per pixel: fragments passing depth (replayed captures, docs/replay.md)
  draw_highlight,          // per pixel: the last replayed draw (the capture scrubber's draw K)
};

struct OverlayInfo {
  OverlayKind kind;
  const char* key;          // command-line name (tessera view --overlay KEY)
  const char* name;         // menu label
  const char* description;  // tooltip: where the numbers come from
};

inline constexpr std::array<OverlayInfo, 11> kOverlays{{
    {OverlayKind::none, "none", "None", "The frame alone"},
    {OverlayKind::tile_bin_entries, "tile-triangles", "Tile workload: triangles binned",
     "Heat map per fixed binning tile: length of the tile's bin list (raster.bins.entries per tile)"},
    {OverlayKind::tile_fragments_covered, "tile-fragments", "Tile workload: fragments covered",
     "Heat map per fixed binning tile: covered pixel centres (raster.fragments.covered per tile)"},
    {OverlayKind::tile_quads_shaded, "tile-quads", "Tile workload: quads shaded",
     "Heat map per fixed binning tile: 2x2 quads shaded (raster.quads.shaded per tile)"},
    {OverlayKind::depth, "depth", "Depth",
     "Distance along the view axis, from the D32F depth buffer (world units); background left clear"},
    {OverlayKind::color_state, "color-state", "Colour compression state",
     "Per 8x4 tile of a multisampled frame: the colour unit's control-surface state (color.tiles.*); needs MSAA"},
    {OverlayKind::picb, "picb", "Adaptive tiling: PICB",
     "Heat map per atomic tile: the primitive intersection cost buffer the supertiles are grown from (tiling.picb.*)"},
    {OverlayKind::supertiles, "supertiles", "Adaptive tiling: supertiles",
     "The supertile partition generated from the PICB, one tint per supertile, borders dark (tiling.supertiles.*)"},
    {OverlayKind::bottleneck, "bottleneck", "Timing: limiting unit per tile",
     "The unit that sets each tile's time in the timing model on the configured hardware (timing.bottleneck.*)"},
    {OverlayKind::overdraw, "overdraw", "Capture: overdraw",
     "Replayed captures: per pixel, the fragments that passed the depth test (heat map); needs a .tcap"},
    {OverlayKind::draw_highlight, "draw", "Capture: scrubbed draw",
     "Replayed captures: the pixels the scrubber's draw (the last one replayed) wrote; needs a .tcap"},
}};

// A named colour in a categorical legend, with how many tiles or pixels carry it.
struct LegendEntry {
  std::string name;
  Rgba8 color = 0;
  uint64_t count = 0;
};

// Colour-ramp legend from min (left) to max (right), or, when `categories` is not empty, a
// list of swatches.
struct Legend {
  std::string title;
  double min = 0;
  double max = 0;
  std::vector<LegendEntry> categories;
};

struct Overlay {
  Image image;  // frame size, straight (non-premultiplied) alpha, drawn over the frame
  Legend legend;
};

// The colour of a timing unit (timing::Unit order) in bottleneck maps, the viewer's and the CLI's.
Rgba8 bottleneck_swatch(uint8_t unit);

// Heat ramp on t in [0,1]: dark blue, magenta, orange, pale yellow.
Rgba8 heat_ramp(float t, uint8_t alpha = 255);

// Builds the overlay for a frame rendered with `camera`; nullopt for OverlayKind::none.
std::optional<Overlay> build_overlay(OverlayKind kind, const Frame& frame, const Camera& camera);

}  // namespace tessera::viewer
