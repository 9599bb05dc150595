#include "color/color_tile.h"

namespace tessera::color {

bool ColorTile::operator==(const ColorTile& o) const {
  if (samples != o.samples) return false;
  for (int i = 0; i < kTilePixels * samples; ++i) {
    if (color[size_t(i)] != o.color[size_t(i)]) return false;
  }
  return true;
}

ColorTile gather_tile(const Rgba8* samples, int width, int height, int samples_per_pixel, int x0, int y0,
                      Rgba8 outside) {
  ColorTile t;
  t.samples = samples_per_pixel;
  const size_t n = size_t(samples_per_pixel);
  for (int p = 0; p < kTilePixels; ++p) {
    const int x = x0 + p % kTileWidth, y = y0 + p / kTileWidth;
    const bool inside = x < width && y < height;
    for (int k = 0; k < samples_per_pixel; ++k)
      t.at(p, k) = inside ? samples[(size_t(y) * size_t(width) + size_t(x)) * n + size_t(k)] : outside;
  }
  return t;
}

PlanedTile to_planes(const ColorTile& tile) {
  PlanedTile out;
  out.samples = tile.samples;
  for (int p = 0; p < kTilePixels; ++p) {
    int used = 0;
    for (int s = 0; s < tile.samples; ++s) {
      const Rgba8 c = tile.at(p, s);
      int k = 0;
      while (k < used && out.planes[size_t(k)][size_t(p)] != c) ++k;
      if (k == used) out.planes[size_t(used++)][size_t(p)] = c;
      out.index[size_t(p * tile.samples + s)] = uint8_t(k);
    }
    if (used > out.planes_used) out.planes_used = used;
  }
  return out;
}

ColorTile from_planes(const PlanedTile& planed) {
  ColorTile out;
  out.samples = planed.samples;
  for (int p = 0; p < kTilePixels; ++p) {
    for (int s = 0; s < planed.samples; ++s) {
      out.at(p, s) = planed.planes[planed.index[size_t(p * planed.samples + s)]][size_t(p)];
    }
  }
  return out;
}

}  // namespace tessera::color
