#include "viewer/gl_texture.h"

#include <GL/gl.h>

namespace tessera::viewer {

GlTexture::~GlTexture() {
  if (id_) glDeleteTextures(1, &id_);
}

void GlTexture::upload(const Image& image, bool nearest) {
  if (!id_) glGenTextures(1, &id_);
  glBindTexture(GL_TEXTURE_2D, id_);
  const GLint filter = nearest ? GL_NEAREST : GL_LINEAR;
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  // Rgba8 packs R in the lowest byte: in memory R, G, B, A, which is GL_RGBA/GL_UNSIGNED_BYTE.
  if (image.width != width_ || image.height != height_) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, image.width, image.height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 image.pixels.data());
    width_ = image.width;
    height_ = image.height;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE, image.pixels.data());
  }
  glBindTexture(GL_TEXTURE_2D, 0);
}

Image read_window(int framebuffer_width, int framebuffer_height) {
  Image bottom_up(framebuffer_width, framebuffer_height);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, framebuffer_width, framebuffer_height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.pixels.data());
  // GL's first row is the bottom one: flip to top-down, and force alpha opaque.
  Image out(framebuffer_width, framebuffer_height);
  for (int y = 0; y < framebuffer_height; ++y) {
    for (int x = 0; x < framebuffer_width; ++x)
      out.at(x, y) = bottom_up.at(x, framebuffer_height - 1 - y) | 0xff000000u;
  }
  return out;
}

}  // namespace tessera::viewer
