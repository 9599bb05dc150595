#include "viewer/overlays.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tessera/color_state.h"

namespace tessera::viewer {

namespace {

constexpr uint8_t kTileAlpha = 185;        // heat map over the frame: the image shows through
constexpr uint8_t kTileBorderAlpha = 110;  // one-pixel tile outline
constexpr uint8_t kEmptyTileAlpha = 60;    // tiles with a zero count stay faint

uint32_t tile_value(OverlayKind kind, const TileWork& w) {
  switch (kind) {
    case OverlayKind::tile_bin_entries: return w.bin_entries;
    case OverlayKind::tile_fragments_covered: return w.fragments_covered;
    case OverlayKind::tile_quads_shaded: return w.quads_shaded;
    default: return 0;
  }
}

Overlay tile_overlay(OverlayKind kind, const Frame& frame, const char* title) {
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height);
  uint32_t max_value = 0;
  for (const TileWork& w : frame.diagnostics.tiles) max_value = std::max(max_value, tile_value(kind, w));
  out.legend = {title, 0.0, double(max_value)};
  if (frame.diagnostics.tile_size <= 0 ||
      frame.diagnostics.tiles.size() != size_t(frame.diagnostics.tiles_x) * size_t(frame.diagnostics.tiles_y))
    return out;
  for (int ty = 0; ty < frame.diagnostics.tiles_y; ++ty) {
    for (int tx = 0; tx < frame.diagnostics.tiles_x; ++tx) {
      const uint32_t v =
          tile_value(kind, frame.diagnostics.tiles[size_t(ty) * size_t(frame.diagnostics.tiles_x) + size_t(tx)]);
      const float t = max_value ? float(v) / float(max_value) : 0.0f;
      const Rgba8 fill = heat_ramp(t, v ? kTileAlpha : kEmptyTileAlpha);
      const Rgba8 border = pack_rgba8(0, 0, 0, kTileBorderAlpha);
      const int x0 = tx * frame.diagnostics.tile_size, y0 = ty * frame.diagnostics.tile_size;
      const int x1 = std::min(x0 + frame.diagnostics.tile_size, width),
                y1 = std::min(y0 + frame.diagnostics.tile_size, height);
      for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) out.image.at(x, y) = (x == x0 || y == y0) ? border : fill;
      }
    }
  }
  return out;
}

Overlay depth_overlay(const Frame& frame, const Camera& camera) {
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height, pack_rgba8(0, 0, 0, 0));
  // D32F with Vulkan's [0,1] range: d = f (z - n) / (z (f - n)), so z = n f / (f - d (f - n)).
  const double n = camera.near_plane, f = camera.far_plane;
  auto view_distance = [&](float d) { return n * f / (f - double(d) * (f - n)); };
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (float d : frame.depth) {
    if (d < 1.0f) {
      const double z = view_distance(d);
      lo = std::min(lo, z);
      hi = std::max(hi, z);
    }
  }
  if (!(lo <= hi)) {
    out.legend = {"Depth: view distance (nothing drawn)", 0.0, 0.0};
    return out;
  }
  out.legend = {"Depth: view distance (world units)", lo, hi};
  const double range = hi > lo ? hi - lo : 1.0;
  for (size_t i = 0; i < frame.depth.size() && i < out.image.pixels.size(); ++i) {
    const float d = frame.depth[i];
    if (d < 1.0f) out.image.pixels[i] = heat_ramp(float((view_distance(d) - lo) / range));
  }
  return out;
}

Overlay color_state_overlay(const Frame& frame) {
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height, pack_rgba8(0, 0, 0, 0));
  if (frame.diagnostics.color_states.empty()) {
    out.legend.title = "Colour compression state: none (set raster.msaa to 2, 4 or 8)";
    return out;
  }
  out.legend.title = "Colour compression state per 8x4 tile";
  uint64_t counts[16] = {};
  for (uint8_t code : frame.diagnostics.color_states) ++counts[code & 15u];
  for (int code = 0; code < 16; ++code) {
    if (counts[code] && color_tile_state_name(uint8_t(code))) {
      out.legend.categories.push_back(
          {color_tile_state_name(uint8_t(code)), color_tile_state_swatch(uint8_t(code)), counts[code]});
    }
  }
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint8_t code =
          frame.diagnostics.color_states[size_t(y / 4) * size_t(frame.diagnostics.color_blocks_x) + size_t(x / 8)];
      const Rgba8 c = color_tile_state_swatch(code);
      out.image.at(x, y) = (c & 0x00ffffffu) | (Rgba8(kTileAlpha) << 24);
    }
  }
  return out;
}

Overlay bottleneck_overlay(const Frame& frame) {
  const FrameDiagnostics& d = frame.diagnostics;
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height, pack_rgba8(0, 0, 0, 0));
  if (d.bottleneck.size() != size_t(d.tiles_x) * size_t(d.tiles_y) || d.tile_size <= 0) {
    out.legend.title = "Timing: none (raster frames only)";
    return out;
  }
  out.legend.title = "Timing: limiting unit per tile";
  std::vector<uint64_t> counts(d.bottleneck_units.size(), 0);
  for (uint8_t b : d.bottleneck) {
    if (b < counts.size()) ++counts[b];
  }
  for (size_t u = 0; u < counts.size(); ++u) {
    if (counts[u]) out.legend.categories.push_back({d.bottleneck_units[u], bottleneck_swatch(uint8_t(u)), counts[u]});
  }
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint8_t b = d.bottleneck[size_t(y / d.tile_size) * size_t(d.tiles_x) + size_t(x / d.tile_size)];
      if (b < counts.size()) out.image.at(x, y) = (bottleneck_swatch(b) & 0x00ffffffu) | (Rgba8(kTileAlpha) << 24);
    }
  }
  return out;
}

uint32_t atomic_index(const Frame& frame, int x, int y) {
  return uint32_t(y / frame.diagnostics.atomic_size) * uint32_t(frame.diagnostics.atomic_x) +
         uint32_t(x / frame.diagnostics.atomic_size);
}

bool has_tiling(const Frame& frame) {
  return frame.diagnostics.atomic_size > 0 && !frame.diagnostics.picb.empty() &&
         frame.diagnostics.picb.size() == size_t(frame.diagnostics.atomic_x) * size_t(frame.diagnostics.atomic_y) &&
         frame.diagnostics.supertile_of.size() == frame.diagnostics.picb.size();
}

Overlay picb_overlay(const Frame& frame) {
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height, pack_rgba8(0, 0, 0, 0));
  if (!has_tiling(frame)) {
    out.legend.title = "PICB: no adaptive-tiling data in this frame";
    return out;
  }
  const uint16_t max_cost = *std::max_element(frame.diagnostics.picb.begin(), frame.diagnostics.picb.end());
  out.legend = {"PICB per " + std::to_string(frame.diagnostics.atomic_size) + "x" +
                    std::to_string(frame.diagnostics.atomic_size) + " atomic tile",
                0.0, double(max_cost)};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint16_t c = frame.diagnostics.picb[atomic_index(frame, x, y)];
      out.image.at(x, y) = heat_ramp(max_cost ? float(c) / float(max_cost) : 0.0f, c ? kTileAlpha : kEmptyTileAlpha);
    }
  }
  return out;
}

Overlay supertile_overlay(const Frame& frame) {
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height, pack_rgba8(0, 0, 0, 0));
  if (!has_tiling(frame)) {
    out.legend.title = "Supertiles: no adaptive-tiling data in this frame";
    return out;
  }
  const uint32_t count =
      *std::max_element(frame.diagnostics.supertile_of.begin(), frame.diagnostics.supertile_of.end()) + 1;
  out.legend.title = std::to_string(count) + " supertiles of " + std::to_string(frame.diagnostics.atomic_size) + "x" +
                     std::to_string(frame.diagnostics.atomic_size) + " atomic tiles";
  out.legend.categories.push_back({"supertile border", pack_rgba8(0, 0, 0), count});
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint32_t s = frame.diagnostics.supertile_of[atomic_index(frame, x, y)];
      const bool border = (x + 1 < width && frame.diagnostics.supertile_of[atomic_index(frame, x + 1, y)] != s) ||
                          (y + 1 < height && frame.diagnostics.supertile_of[atomic_index(frame, x, y + 1)] != s);
      // A distinct tint per supertile from a multiplicative hash of its id.
      const uint32_t hash = (s + 1) * 2654435761u;
      out.image.at(x, y) = border ? pack_rgba8(0, 0, 0, 230)
                                  : pack_rgba8(uint8_t(64 + (hash >> 24) % 192), uint8_t(64 + (hash >> 16) % 192),
                                               uint8_t(64 + (hash >> 8) % 192), 120);
    }
  }
  return out;
}

// Replayed captures (docs/replay.md): fragments per pixel that passed the depth test.
Overlay overdraw_overlay(const Frame& frame) {
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height, pack_rgba8(0, 0, 0, 0));
  const std::vector<uint16_t>& od = frame.diagnostics.overdraw;
  if (od.size() != size_t(width) * size_t(height)) {
    out.legend.title = "Overdraw: only replayed captures (.tcap) count it";
    return out;
  }
  const uint16_t max = *std::max_element(od.begin(), od.end());
  out.legend = {"Overdraw: fragments per pixel passing depth", 1.0, double(std::max<uint16_t>(max, 1))};
  for (size_t p = 0; p < od.size(); ++p) {
    out.image.pixels[p] = od[p] ? heat_ramp(max > 1 ? float(od[p] - 1) / float(max - 1) : 0.0f, kTileAlpha)
                                : pack_rgba8(0, 0, 0, kEmptyTileAlpha);
  }
  return out;
}

// Replayed captures: the pixels (any sample) the last replayed draw wrote, the rest dimmed.
Overlay draw_highlight_overlay(const Frame& frame) {
  const int width = frame.color.width, height = frame.color.height;
  Overlay out;
  out.image = Image(width, height, pack_rgba8(0, 0, 0, 0));
  const std::vector<uint32_t>& ids = frame.diagnostics.sample_draw;
  const size_t pixels = size_t(width) * size_t(height);
  if (ids.empty() || frame.diagnostics.draws.empty() || ids.size() % pixels != 0) {
    out.legend.title = "Scrubbed draw: only replayed captures (.tcap) have draws";
    return out;
  }
  const size_t n = ids.size() / pixels;
  const uint32_t last = uint32_t(frame.diagnostics.draws.size());  // ids are draw index + 1
  uint64_t count = 0;
  for (size_t p = 0; p < pixels; ++p) {
    bool hit = false;
    for (size_t k = 0; k < n; ++k) hit = hit || ids[p * n + k] == last;
    count += hit;
    out.image.pixels[p] = hit ? pack_rgba8(255, 230, 40, 220) : pack_rgba8(0, 0, 0, 150);
  }
  out.legend.title = "The scrubbed draw (last replayed)";
  out.legend.categories.push_back({"pixels it wrote", pack_rgba8(255, 230, 40), count});
  return out;
}

}  // namespace

Rgba8 heat_ramp(float t, uint8_t alpha) {
  struct Stop {
    float t, r, g, b;
  };
  static constexpr Stop stops[] = {{0.00f, 0.05f, 0.03f, 0.25f},
                                   {0.35f, 0.55f, 0.10f, 0.55f},
                                   {0.65f, 0.93f, 0.40f, 0.20f},
                                   {1.00f, 0.99f, 0.96f, 0.60f}};
  t = std::clamp(std::isfinite(t) ? t : 0.0f, 0.0f, 1.0f);
  size_t i = 0;
  while (i + 2 < std::size(stops) && t > stops[i + 1].t) ++i;
  const Stop& a = stops[i];
  const Stop& b = stops[i + 1];
  const float u = (t - a.t) / (b.t - a.t);
  auto mix = [u](float x, float y) { return uint8_t(std::lround(255.0f * (x + (y - x) * u))); };
  return pack_rgba8(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b), alpha);
}

Rgba8 bottleneck_swatch(uint8_t unit) {
  // Front-end units never limit a tile; the tile units in timing::Unit order.
  static const Rgba8 kTileUnits[] = {pack_rgba8(230, 60, 60),  pack_rgba8(60, 140, 240), pack_rgba8(240, 200, 40),
                                     pack_rgba8(170, 80, 220), pack_rgba8(60, 200, 110), pack_rgba8(250, 130, 30),
                                     pack_rgba8(40, 200, 220)};
  constexpr uint8_t kFirstTileUnit = 5;
  constexpr uint8_t kTileUnitCount = sizeof(kTileUnits) / sizeof(kTileUnits[0]);
  if (unit >= kFirstTileUnit && unit - kFirstTileUnit < kTileUnitCount) return kTileUnits[unit - kFirstTileUnit];
  return pack_rgba8(150, 150, 150);
}

std::optional<Overlay> build_overlay(OverlayKind kind, const Frame& frame, const Camera& camera) {
  switch (kind) {
    case OverlayKind::none: return std::nullopt;
    case OverlayKind::tile_bin_entries: return tile_overlay(kind, frame, "Triangles binned per tile");
    case OverlayKind::tile_fragments_covered: return tile_overlay(kind, frame, "Fragments covered per tile");
    case OverlayKind::tile_quads_shaded: return tile_overlay(kind, frame, "Quads shaded per tile");
    case OverlayKind::depth: return depth_overlay(frame, camera);
    case OverlayKind::color_state: return color_state_overlay(frame);
    case OverlayKind::picb: return picb_overlay(frame);
    case OverlayKind::supertiles: return supertile_overlay(frame);
    case OverlayKind::bottleneck: return bottleneck_overlay(frame);
    case OverlayKind::overdraw: return overdraw_overlay(frame);
    case OverlayKind::draw_highlight: return draw_highlight_overlay(frame);
  }
  return std::nullopt;
}

}  // namespace tessera::viewer
