// The few OpenGL calls the viewer makes itself (ImGui's OpenGL 3 backend does the drawing):
// textures holding the frame and overlays, and reading the window back.
#pragma once

#include <cstdint>

#include "tessera/image.h"

namespace tessera::viewer {

// An RGBA8 texture, resized on upload. Needs a current GL context for its whole life.
class GlTexture {
 public:
  GlTexture() = default;
  ~GlTexture();
  GlTexture(const GlTexture&) = delete;
  GlTexture& operator=(const GlTexture&) = delete;

  // Uploads an image (top row first, so texture v = 0 is the top row). nearest: no filtering,
  // each texel a crisp block (for overlays and for frames drawn larger than they are).
  void upload(const Image& image, bool nearest);
  bool empty() const { return id_ == 0 || width_ == 0; }
  void* imgui_id() const { return reinterpret_cast<void*>(uintptr_t(id_)); }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  unsigned id_ = 0;
  int width_ = 0, height_ = 0;
};

// Reads the current back buffer (framebuffer pixels) as an opaque image, top row first.
Image read_window(int framebuffer_width, int framebuffer_height);

}  // namespace tessera::viewer
