// A screenshot of an X display's root window (what xwd -root takes), written as PNG, for the
// HUD test: run beside vkcube under Xvfb (tests/layer/hud_check.cmake). Optionally checks the
// HUD panel is in the picture: in the panel's corner region the layer's dark panel with light
// text, where vkcube alone shows its flat clear colour.
//
//   tessera_layer_x11_screenshot OUT.png [--expect-hud X0 Y0 X1 Y1]
//
// Exit status 0: written (and, with --expect-hud, the region looks like the panel); 1: the
// check failed; 2: no display or no picture.

#include <xcb/xcb.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/error.h"
#include "tessera/image.h"

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 7 && std::strcmp(argv[2], "--expect-hud") == 0)) {
    std::fprintf(stderr, "usage: %s OUT.png [--expect-hud X0 Y0 X1 Y1]\n", argv[0]);
    return 2;
  }
  xcb_connection_t* c = xcb_connect(nullptr, nullptr);
  if (!c || xcb_connection_has_error(c)) {
    std::fprintf(stderr, "%s: cannot connect to the X display\n", argv[0]);
    return 2;
  }
  xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
  const int w = screen->width_in_pixels, h = screen->height_in_pixels;
  xcb_get_image_reply_t* img = xcb_get_image_reply(
      c, xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, screen->root, 0, 0, uint16_t(w), uint16_t(h), ~0u), nullptr);
  if (!img || xcb_get_image_data_length(img) < w * h * 4) {
    std::fprintf(stderr, "%s: no 32-bit picture of the root window\n", argv[0]);
    return 2;
  }
  const uint8_t* px = xcb_get_image_data(img);  // BGRX, 4 bytes per pixel (depth 24)
  tessera::Image out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = px + (size_t(y) * w + x) * 4;
      out.at(x, y) = tessera::pack_rgba8(p[2], p[1], p[0]);
    }
  try {
    tessera::write_png(argv[1], out);
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
  int status = 0;
  if (argc == 7) {
    // The panel: ImGui's dark window background (under 0x30 per channel, the panel's opacity
    // over vkcube's 0x33 grey clear colour) over most of the region, and light text in it.
    const int x0 = std::atoi(argv[3]), y0 = std::atoi(argv[4]), x1 = std::atoi(argv[5]), y1 = std::atoi(argv[6]);
    long dark = 0, light = 0, total = 0;
    for (int y = std::max(0, y0); y < std::min(h, y1); ++y)
      for (int x = std::max(0, x0); x < std::min(w, x1); ++x) {
        const tessera::Rgba8 p = out.at(x, y);
        const int r = tessera::channel(p, 0), g = tessera::channel(p, 1), b = tessera::channel(p, 2);
        dark += std::max({r, g, b}) < 0x30;
        light += std::min({r, g, b}) > 0xC0;
        ++total;
      }
    std::printf("HUD region %d,%d-%d,%d: %ld pixels, %ld dark, %ld light\n", x0, y0, x1, y1, total, dark, light);
    if (total == 0 || dark * 2 < total || light < 50) {
      std::fprintf(stderr, "FAILED: no HUD panel in the region\n");
      status = 1;
    }
  }
  std::free(img);
  xcb_disconnect(c);
  return status;
}
