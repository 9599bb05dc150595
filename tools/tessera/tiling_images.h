// Adaptive-tiling pictures for the capture tool: the PICB as a heat map over the frame, and
// the supertile partition in distinct colours with its borders drawn.
#pragma once

#include "tessera/image.h"
#include "tessera/renderer.h"

namespace tessera::cli {

Image picb_image(const Frame& frame);
Image supertile_image(const Frame& frame);

}  // namespace tessera::cli
