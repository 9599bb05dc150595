// The software GPU: renders a scene through the modelled units and reports their statistics.
#pragma once

#include <memory>

#include "tessera/config.h"
#include "tessera/image.h"
#include "tessera/scene.h"
#include "tessera/stats.h"

namespace tessera {

struct Frame {
  Image color;               // sRGB-encoded RGBA8, width x height
  std::vector<float> depth;  // D32F per pixel, 1.0 where nothing was drawn
  Stats stats;               // schema in docs/stats.md
};

class Renderer {
 public:
  explicit Renderer(const Config& config);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  const Config& config() const;
  // Renders one frame at config.frame.width x height. Thread count never changes the result.
  Frame render(const Scene& scene, const Camera& camera);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera
