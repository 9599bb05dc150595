// The colour unit's per-tile state map as a picture: every 8x4 block of the frame tinted by its
// control-surface state over a dimmed copy of the frame, with a legend (swatch, state, count,
// share) below.
#pragma once

#include "tessera/image.h"
#include "tessera/renderer.h"

namespace tessera::cli {

// Throws tessera::Error when the frame has no colour states (rendered without MSAA).
Image color_state_image(const Frame& frame);

}  // namespace tessera::cli
