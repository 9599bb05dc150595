// Pictures of per-pixel unit data for the capture tool: the PICB as a heat map over the frame,
// the supertile partition in distinct colours with its borders drawn, and the LOD map.
#pragma once

#include "tessera/image.h"
#include "tessera/renderer.h"

namespace tessera::cli {

Image picb_image(const Frame& frame);
Image supertile_image(const Frame& frame);
// The LOD level each pixel's primary ray hit (ray-traced frames), tinted over a grey copy of
// the frame, with a legend of levels and pixel counts.
Image lod_image(const Frame& frame);
// The timing model's limiting unit of every tile's render unit, tinted over a grey copy of the
// frame, with a legend of units and tile counts (docs/timing.md).
Image bottleneck_image(const Frame& frame);

}  // namespace tessera::cli
