#include "replay_images.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "image_text.h"
#include "tessera/error.h"
#include "viewer/overlays.h"

namespace tessera::cli {

namespace {

int legend_scale(int width) { return width >= 640 ? 2 : 1; }
// Captures narrower than this are magnified by an integer factor (nearest neighbour), at most 8,
// so that a small attachment (64x64 in the layer's test applications) is visible and its legend
// fits under it.
constexpr int kMinPanelWidth = 384;
int zoom_for(int width) {
  return width >= kMinPanelWidth ? 1 : std::min(8, (kMinPanelWidth + width - 1) / std::max(width, 1));
}

Image magnify(const Image& img, int k) {
  if (k <= 1) return img;
  Image out(img.width * k, img.height * k);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) out.at(x, y) = img.at(x / k, y / k);
  return out;
}
const Rgba8 kBackdrop = pack_rgba8(24, 24, 28), kText = pack_rgba8(235, 235, 235);

// `img` with a legend strip of `rows` text lines below it.
Image with_legend(const Image& img, int rows, int scale) {
  Image out(img.width, img.height + rows * (10 * scale + 4) + 8, kBackdrop);
  for (int y = 0; y < img.height; ++y)
    std::copy_n(&img.pixels[size_t(y) * size_t(img.width)], img.width, &out.at(0, y));
  return out;
}

void ramp_legend(Image& img, int y0, int scale, const std::string& text) {
  const int ramp_w = std::min(img.width / 2, 256 * scale);
  for (int i = 0; i < ramp_w; ++i)
    fill_rect(img, 8 + i, y0, 9 + i, y0 + 8 * scale, viewer::heat_ramp(float(i) / float(std::max(ramp_w - 1, 1))));
  draw_text(img, 16 + ramp_w, y0, text, kText, scale);
}

void paste(Image& dst, const Image& src, int x0, int y0) {
  for (int y = 0; y < src.height && y0 + y < dst.height; ++y) {
    for (int x = 0; x < src.width && x0 + x < dst.width; ++x) dst.at(x0 + x, y0 + y) = src.at(x, y);
  }
}

}  // namespace

Image replay_depth_image(const Frame& frame, float clear_depth) {
  const int w = frame.color.width, h = frame.color.height, zoom = zoom_for(w), scale = legend_scale(w * zoom);
  float lo = 1.0f, hi = 0.0f;
  for (float d : frame.depth) {
    if (d != clear_depth) lo = std::min(lo, d), hi = std::max(hi, d);
  }
  Image base(w, h);
  for (size_t p = 0; p < base.pixels.size(); ++p) {
    const float d = frame.depth[p];
    if (d == clear_depth) {
      base.pixels[p] = pack_rgba8(16, 20, 48);
    } else {
      const float t = hi > lo ? (d - lo) / (hi - lo) : 0.0f;
      const uint8_t g = uint8_t(std::lround(255.0f - 200.0f * std::clamp(t, 0.0f, 1.0f)));
      base.pixels[p] = pack_rgba8(g, g, g);
    }
  }
  Image img = with_legend(magnify(base, zoom), 1, scale);
  char text[160];
  if (hi >= lo) {
    std::snprintf(text, sizeof(text), "depth %.6f (white) .. %.6f (grey); clear %.3g dark blue", double(lo), double(hi),
                  double(clear_depth));
  } else {
    std::snprintf(text, sizeof(text), "depth: nothing drawn (clear %.3g)", double(clear_depth));
  }
  draw_text(img, 8, h * zoom + 6, text, kText, scale);
  return img;
}

Image replay_draw_id_image(const Frame& frame, const replay::PassReplay& pass) {
  const int w = frame.color.width, h = frame.color.height, zoom = zoom_for(w), scale = legend_scale(w * zoom);
  Image img = with_legend(magnify(frame.color, zoom), 1, scale);
  std::set<uint32_t> visible;
  for (uint32_t s : frame.diagnostics.sample_draw) {
    if (s) visible.insert(s - 1);
  }
  // A pass that loads its colour starts from the earlier pass's draw IDs (no clear): say so,
  // since those draws are seen here but were not replayed in this pass.
  char tail[48] = "; black = clear";
  if (pass.color_loaded_from >= 0) std::snprintf(tail, sizeof(tail), ", over pass %d's", pass.color_loaded_from);
  char text[240];
  std::snprintf(text, sizeof(text), "draw ID: %zu draws replayed in pass %u, %zu visible%s", pass.draws.size(),
                pass.pass, visible.size(), tail);
  draw_text(img, 8, h * zoom + 6, text, kText, scale);
  return img;
}

Image replay_overdraw_image(const Frame& frame) {
  const std::vector<uint16_t>& od = frame.diagnostics.overdraw;
  if (od.empty()) throw Error("the replayed frame carries no overdraw counts (per-draw diagnostics off)");
  const int w = frame.color.width, h = frame.color.height, zoom = zoom_for(w), scale = legend_scale(w * zoom);
  uint16_t max = 0;
  uint64_t sum = 0, covered = 0;
  for (uint16_t c : od) {
    max = std::max(max, c);
    sum += c;
    covered += c != 0;
  }
  Image base(w, h);
  for (size_t p = 0; p < od.size(); ++p) {
    base.pixels[p] =
        od[p] ? viewer::heat_ramp(max > 1 ? float(od[p] - 1) / float(max - 1) : 0.0f) : pack_rgba8(0, 0, 0);
  }
  Image img = with_legend(magnify(base, zoom), 1, scale);
  char text[200];
  std::snprintf(text, sizeof(text),
                "overdraw: 1 .. %u fragments/pixel passing depth, mean %.2f over %llu covered; black 0", unsigned(max),
                covered ? double(sum) / double(covered) : 0.0, static_cast<unsigned long long>(covered));
  ramp_legend(img, h * zoom + 6, scale, text);
  return img;
}

Image replay_tile_map_image(const Frame& frame) {
  const FrameDiagnostics& d = frame.diagnostics;
  if (d.tiles.empty() || d.tile_size <= 0) throw Error("the replayed frame carries no per-tile work (diagnostics off)");
  const int w = frame.color.width, h = frame.color.height, scale = legend_scale(w);
  uint32_t max = 0;
  for (const TileWork& t : d.tiles) max = std::max(max, t.bin_entries);
  Image base(w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const TileWork& t = d.tiles[size_t(y / d.tile_size) * size_t(d.tiles_x) + size_t(x / d.tile_size)];
      const uint8_t g = luma(frame.color.at(x, y));
      base.at(x, y) = t.bin_entries ? mix_rgb(pack_rgba8(g, g, g),
                                              viewer::heat_ramp(max ? float(t.bin_entries) / float(max) : 0.0f), 190)
                                    : pack_rgba8(uint8_t(g / 3), uint8_t(g / 3), uint8_t(g / 3));
    }
  }
  Image img = with_legend(base, 1, scale);
  char text[160];
  std::snprintf(text, sizeof(text), "triangles binned per %dx%d tile: 0 .. %u", d.tile_size, d.tile_size,
                unsigned(max));
  ramp_legend(img, h + 6, scale, text);
  return img;
}

Image replay_sheet(const replay::PassReplay& pass, float clear_depth) {
  const Frame& frame = pass.frame;
  const int zoom = zoom_for(frame.color.width);
  const int w = frame.color.width * zoom, h = frame.color.height * zoom, scale = legend_scale(w);
  const int label = 10 * scale + 6;
  Image captured(w, h, pack_rgba8(48, 48, 52));
  if (!pass.captured_color.pixels.empty()) {
    captured = magnify(pass.captured_color, zoom);
  } else {
    draw_text(captured, 8, 8, "colour attachment not captured: " + pass.color_note, kText, scale);
  }
  const Image panels[4] = {captured, replay_draw_id_image(frame, pass), replay_depth_image(frame, clear_depth),
                           frame.diagnostics.overdraw.empty() ? Image(w, h, kBackdrop) : replay_overdraw_image(frame)};
  const char* titles[4] = {"captured colour (GPU)", "replayed: draw ID", "replayed: depth", "replayed: overdraw"};
  int cell_h = 0;
  for (const Image& p : panels) cell_h = std::max(cell_h, p.height);
  Image sheet(2 * w + 8, 2 * (cell_h + label) + 8, kBackdrop);
  for (int i = 0; i < 4; ++i) {
    const int x0 = (i % 2) * (w + 8), y0 = (i / 2) * (cell_h + label + 8);
    // Each title is drawn in its own strip, so a narrow frame clips it instead of overlapping.
    Image title(w, label, kBackdrop);
    draw_text(title, 4, 2, titles[i], kText, scale);
    paste(sheet, title, x0, y0);
    paste(sheet, panels[i], x0, y0 + label);
  }
  return sheet;
}

}  // namespace tessera::cli
