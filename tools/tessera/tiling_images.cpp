#include "tiling_images.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "image_text.h"
#include "tessera/error.h"
#include "viewer/overlays.h"

namespace tessera::cli {

namespace {

void require_tiling(const Frame& frame) {
  if (frame.diagnostics.picb.empty() || frame.diagnostics.atomic_size <= 0)
    throw Error("the frame carries no PICB (adaptive tiling data)");
}

int legend_scale(const Image& frame_image) { return frame_image.width >= 640 ? 2 : 1; }

}  // namespace

Image picb_image(const Frame& frame) {
  require_tiling(frame);
  const int w = frame.color.width, h = frame.color.height, scale = legend_scale(frame.color);
  const int legend_h = 14 * scale + 16;
  Image img(w, h + legend_h, pack_rgba8(24, 24, 28));
  uint16_t max_cost = 0;
  for (uint16_t c : frame.diagnostics.picb) max_cost = std::max(max_cost, c);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint16_t c =
          frame.diagnostics.picb[size_t(y / frame.diagnostics.atomic_size) * size_t(frame.diagnostics.atomic_x) +
                                 size_t(x / frame.diagnostics.atomic_size)];
      const uint8_t g = luma(frame.color.at(x, y));
      const Rgba8 heat = viewer::heat_ramp(max_cost ? float(c) / float(max_cost) : 0.0f);
      img.at(x, y) =
          c ? mix_rgb(pack_rgba8(g, g, g), heat, 190) : pack_rgba8(uint8_t(g / 3), uint8_t(g / 3), uint8_t(g / 3));
    }
  }
  // Legend: the ramp and its two ends.
  const int ramp_w = std::min(w - 16, 256 * scale), y0 = h + 6;
  for (int i = 0; i < ramp_w; ++i)
    fill_rect(img, 8 + i, y0, 9 + i, y0 + 8 * scale, viewer::heat_ramp(float(i) / float(ramp_w - 1)));
  char text[160];
  std::snprintf(text, sizeof(text), "PICB per %dx%d atomic tile: 0 .. %u", frame.diagnostics.atomic_size,
                frame.diagnostics.atomic_size, unsigned(max_cost));
  draw_text(img, 16 + ramp_w, y0, text, pack_rgba8(235, 235, 235), scale);
  return img;
}

Image supertile_image(const Frame& frame) {
  require_tiling(frame);
  const int w = frame.color.width, h = frame.color.height, scale = legend_scale(frame.color);
  const int legend_h = 10 * scale + 12;
  Image img(w, h + legend_h, pack_rgba8(24, 24, 28));
  uint32_t count = 0;
  for (uint32_t s : frame.diagnostics.supertile_of) count = std::max(count, s + 1);
  auto owner = [&](int x, int y) {
    return frame.diagnostics
        .supertile_of[size_t(y / frame.diagnostics.atomic_size) * size_t(frame.diagnostics.atomic_x) +
                      size_t(x / frame.diagnostics.atomic_size)];
  };
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint32_t s = owner(x, y);
      // Distinct hues per supertile from a multiplicative hash of its id.
      const uint32_t hash = (s + 1) * 2654435761u;
      const Rgba8 tint = pack_rgba8(uint8_t(64 + (hash >> 24) % 192), uint8_t(64 + (hash >> 16) % 192),
                                    uint8_t(64 + (hash >> 8) % 192));
      const bool border = (x + 1 < w && owner(x + 1, y) != s) || (y + 1 < h && owner(x, y + 1) != s) ||
                          (x > 0 && owner(x - 1, y) != s) || (y > 0 && owner(x, y - 1) != s);
      const uint8_t g = luma(frame.color.at(x, y));
      img.at(x, y) = border ? pack_rgba8(10, 10, 10) : mix_rgb(pack_rgba8(g, g, g), tint, 150);
    }
  }
  char text[160];
  std::snprintf(text, sizeof(text), "%u supertiles of %dx%d atomic tiles (borders in black)", unsigned(count),
                frame.diagnostics.atomic_size, frame.diagnostics.atomic_size);
  draw_text(img, 8, h + 6, text, pack_rgba8(235, 235, 235), scale);
  return img;
}

Image lod_image(const Frame& frame) {
  const int w = frame.color.width, h = frame.color.height, scale = legend_scale(frame.color);
  if (frame.diagnostics.lod_levels.size() != size_t(w) * size_t(h)) {
    throw Error("the frame carries no LOD levels (render with --mode rt)");
  }
  // Finest to coarsest: green, yellow, orange, red; no LOD object: the frame in grey.
  static const Rgba8 kLevel[4] = {pack_rgba8(40, 200, 70), pack_rgba8(235, 215, 40), pack_rgba8(245, 130, 30),
                                  pack_rgba8(220, 40, 40)};
  const int legend_h = 10 * scale + 12;
  Image img(w, h + legend_h, pack_rgba8(24, 24, 28));
  uint64_t counts[4] = {};
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int level = frame.diagnostics.lod_levels[size_t(y) * size_t(w) + size_t(x)];
      const uint8_t g = luma(frame.color.at(x, y));
      if (level >= 0 && level < 4) {
        ++counts[level];
        img.at(x, y) = mix_rgb(pack_rgba8(g, g, g), kLevel[level], 170);
      } else {
        img.at(x, y) = pack_rgba8(uint8_t(g / 2), uint8_t(g / 2), uint8_t(g / 2));
      }
    }
  }
  int x = 8;
  for (int level = 0; level < 4; ++level) {
    fill_rect(img, x, h + 6, x + 8 * scale, h + 6 + 8 * scale, kLevel[level]);
    char text[64];
    std::snprintf(text, sizeof(text), "L%d %llu px", level, (unsigned long long)counts[level]);
    draw_text(img, x + 10 * scale, h + 6, text, pack_rgba8(235, 235, 235), scale);
    x += (10 + 6 * int(std::strlen(text)) + 8) * scale;
  }
  return img;
}

Image bottleneck_image(const Frame& frame) {
  const FrameDiagnostics& d = frame.diagnostics;
  const int w = frame.color.width, h = frame.color.height, scale = legend_scale(frame.color);
  if (d.bottleneck.size() != size_t(d.tiles_x) * size_t(d.tiles_y) || d.tile_size <= 0) {
    throw Error("the frame carries no timing bottlenecks (raster frames with frame.diagnostics)");
  }
  std::vector<uint64_t> count(d.bottleneck_units.size(), 0);
  for (uint8_t b : d.bottleneck) {
    if (b < count.size()) ++count[b];
  }
  const int rows = int(std::count_if(count.begin(), count.end(), [](uint64_t c) { return c > 0; }));
  const int line = 10 * scale + 4;
  Image img(w, h + 8 + std::max(rows, 1) * line, pack_rgba8(24, 24, 28));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint8_t b = d.bottleneck[size_t(y / d.tile_size) * size_t(d.tiles_x) + size_t(x / d.tile_size)];
      const uint8_t g = luma(frame.color.at(x, y));
      img.at(x, y) = b < d.bottleneck_units.size() ? mix_rgb(pack_rgba8(g, g, g), viewer::bottleneck_swatch(b), 170)
                                                   : pack_rgba8(uint8_t(g / 3), uint8_t(g / 3), uint8_t(g / 3));
    }
  }
  int y0 = h + 6;
  const uint64_t tiles = d.bottleneck.size();
  for (size_t u = 0; u < count.size(); ++u) {
    if (!count[u]) continue;
    fill_rect(img, 8, y0, 8 + 8 * scale, y0 + 8 * scale, viewer::bottleneck_swatch(uint8_t(u)));
    char text[160];
    std::snprintf(text, sizeof(text), "%s: %llu tiles (%.1f%%)", d.bottleneck_units[u].c_str(),
                  static_cast<unsigned long long>(count[u]), 100.0 * double(count[u]) / double(tiles));
    draw_text(img, 12 + 8 * scale, y0, text, pack_rgba8(235, 235, 235), scale);
    y0 += line;
  }
  if (!rows) draw_text(img, 8, y0, "no tile has work", pack_rgba8(235, 235, 235), scale);
  return img;
}

}  // namespace tessera::cli
