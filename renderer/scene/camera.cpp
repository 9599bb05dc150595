// Camera matrices in Vulkan conventions, shared by the software GPU and the Vulkan reference
// so both project every vertex identically.
#include <glm/gtc/matrix_transform.hpp>

#include "tessera/error.h"
#include "tessera/scene.h"

namespace tessera {

CameraMatrices camera_matrices(const Camera& camera, int width, int height) {
  TS_CHECK(width > 0 && height > 0, "framebuffer size must be positive");
  CameraMatrices m;
  m.view = glm::lookAt(camera.position, camera.target, camera.up);
  // GLM_FORCE_DEPTH_ZERO_TO_ONE (public on libtessera) selects the Vulkan depth range, so
  // clip z runs from 0 at the near plane to w at the far plane.
  m.projection = glm::perspective(glm::radians(camera.fov_y_degrees), float(width) / float(height), camera.near_plane,
                                  camera.far_plane);
  // Vulkan's framebuffer y grows downwards: flip so NDC y = -1 is the top row and "up" in
  // the world stays up in the image.
  m.projection[1][1] *= -1.0f;
  m.view_projection = m.projection * m.view;
  return m;
}

}  // namespace tessera
