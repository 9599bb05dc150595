// The captured attachments of a replayed pass: decoded from the capture's stored bytes, and the
// colour unit run on the captured colours (docs/replay.md, "The colour unit on captured colours").
#pragma once

#include "tessera/capture.h"
#include "tessera/config.h"
#include "tessera/replay.h"

namespace tessera::replay {

// Decodes the pass's first colour attachment (8-bit RGBA/BGRA, UNORM or SRGB) and its depth
// attachment (D32 float, or 16-bit unorm) when read back at the pass's extent and sample count;
// otherwise leaves them empty and says why in pr.color_note.
void decode_attachments(const capture::RenderPass& pass, PassReplay& pr);

// With a multisampled replay and a decoded colour attachment: the colour unit (cache, fill
// and eviction flows, final stored form) on the captured colours, replacing the frame's color.*
// statistics, colour memory traffic and colour-state diagnostics. A multisampled capture gives
// its own samples; a single-sample capture gives each pixel's captured colour to the samples
// Tessera's coverage wrote (the clear colour, or the captured pixel when the pass loads, to the
// rest). The cache sees each written quad once, in raster order within each bin tile.
// With a capture decoded at the replayed sample count: pr.coverage, per pixel Tessera's covered samples against the
// GPU's (samples no longer the clear colour). Needs the frame's per-sample draw ids (FrameDiagnostics::sample_draw).
// `covered_before`: per sample, whether the frame's earlier passes on a loaded colour attachment
// covered it (empty when the pass does not load its colour): those count as covered by replay,
// and the clear colour is the one the image's first pass stored.
void compare_coverage(const capture::RenderPass& pass, PassReplay& pr, const std::vector<uint8_t>& covered_before);

void run_color_unit_on_capture(const Config& config, const capture::RenderPass& pass, PassReplay& pr);

}  // namespace tessera::replay
