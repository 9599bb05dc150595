// Pictures of a replayed capture frame (docs/replay.md, Images): the replayed depth, the draw
// that wrote each pixel, the overdraw heat map, a tile-workload map, each with a legend, and a
// sheet of them beside the captured colour attachment.
#pragma once

#include "tessera/image.h"
#include "tessera/replay.h"

namespace tessera::cli {

// Depth of every pixel (sample 0) as grey, near bright; the clear depth dark blue; legend of the range.
Image replay_depth_image(const Frame& frame, float clear_depth);
// The frame's colour: every draw in its draw-ID colour (replay::draw_id_color), legend of draws.
Image replay_draw_id_image(const Frame& frame, const replay::PassReplay& pass);
// Fragments per pixel that passed the depth test, as a heat map with a legend (needs the
// per-draw diagnostics).
Image replay_overdraw_image(const Frame& frame);
// Per bin-grid tile: triangles binned, as a heat map over the draw-ID image, with a legend.
Image replay_tile_map_image(const Frame& frame);
// Captured colour | draw ID on top, depth | overdraw below, each labelled.
Image replay_sheet(const replay::PassReplay& pass, float clear_depth);

}  // namespace tessera::cli
