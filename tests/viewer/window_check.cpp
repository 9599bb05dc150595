// Checks a viewer window screenshot: its size, and that a panel region holds drawn UI rather
// than the frame or a flat background.
//   window_check WINDOW.png FRAME.png WIDTH HEIGHT X0 Y0 X1 Y1 MIN_COLOURS
// Passes when WINDOW.png is WIDTH x HEIGHT and the region [X0,X1) x [Y0,Y1) has more than
// MIN_COLOURS distinct colours, no single colour covers 90% of it, and more than half its
// pixels differ from FRAME.png (the frame buffer shown behind the panels, same size).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <unordered_map>

#include "tessera/image.h"

int main(int argc, char** argv) {
  if (argc != 10) {
    std::fprintf(stderr, "usage: window_check WINDOW.png FRAME.png WIDTH HEIGHT X0 Y0 X1 Y1 MIN_COLOURS\n");
    return 2;
  }
  try {
    const tessera::Image window = tessera::read_image(argv[1]);
    const tessera::Image frame = tessera::read_image(argv[2]);
    const int width = std::atoi(argv[3]), height = std::atoi(argv[4]);
    const int x0 = std::atoi(argv[5]), y0 = std::atoi(argv[6]), x1 = std::atoi(argv[7]), y1 = std::atoi(argv[8]);
    const size_t min_colours = size_t(std::atoll(argv[9]));
    if (window.width != width || window.height != height) {
      std::printf("FAIL: %s is %dx%d, expected %dx%d\n", argv[1], window.width, window.height, width, height);
      return 1;
    }
    if (frame.width != width || frame.height != height) {
      std::printf("FAIL: %s is %dx%d, expected %dx%d\n", argv[2], frame.width, frame.height, width, height);
      return 1;
    }
    if (!(0 <= x0 && x0 < x1 && x1 <= width && 0 <= y0 && y0 < y1 && y1 <= height)) {
      std::printf("FAIL: region outside the image\n");
      return 2;
    }
    std::unordered_map<tessera::Rgba8, size_t> counts;
    size_t differing = 0;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        const tessera::Rgba8 c = window.at(x, y) | 0xff000000u;
        ++counts[c];
        if (c != (frame.at(x, y) | 0xff000000u)) ++differing;
      }
    }
    const size_t pixels = size_t(x1 - x0) * size_t(y1 - y0);
    size_t most = 0;
    for (const auto& [colour, n] : counts) most = n > most ? n : most;
    std::printf("region %dx%d: %zu distinct colours, most common covers %.1f%%, %.1f%% differ from the frame\n",
                x1 - x0, y1 - y0, counts.size(), 100.0 * double(most) / double(pixels),
                100.0 * double(differing) / double(pixels));
    if (counts.size() <= min_colours) {
      std::printf("FAIL: too few colours: the panel looks empty\n");
      return 1;
    }
    if (most * 10 >= pixels * 9) {
      std::printf("FAIL: one colour covers the region: the panel looks empty\n");
      return 1;
    }
    if (differing * 2 <= pixels) {
      std::printf("FAIL: the region mostly shows the frame: no panel drawn over it\n");
      return 1;
    }
    std::printf("ok\n");
    return 0;
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
}
