#include "viewer/camera_control.h"

#include <cmath>

#include <glm/glm.hpp>

namespace tessera::viewer {

namespace {

constexpr float kRadiansPerPixel = 0.005f;
constexpr float kZoomPerNotch = 0.9f;
constexpr float kFastFactor = 4.0f;
constexpr float kMinPolarCos = 0.995f;  // keep the view ~6 degrees away from straight up/down

// Rotates v about the unit axis by angle radians (Rodrigues).
glm::vec3 rotate(const glm::vec3& v, const glm::vec3& axis, float angle) {
  const float c = std::cos(angle), s = std::sin(angle);
  return v * c + glm::cross(axis, v) * s + axis * glm::dot(axis, v) * (1.0f - c);
}

// Turns direction d by yaw about up and pitch about the right axis, refusing pitches that
// would pass the poles. Returns the new direction.
glm::vec3 turn(const glm::vec3& d, const glm::vec3& up, float yaw, float pitch) {
  glm::vec3 out = rotate(d, up, yaw);
  const glm::vec3 right = glm::cross(out, up);
  if (glm::length(right) > 0.0f) {
    const glm::vec3 pitched = rotate(out, glm::normalize(right), pitch);
    if (std::abs(glm::dot(glm::normalize(pitched), up)) < kMinPolarCos) out = pitched;
  }
  return out;
}

}  // namespace

float camera_distance(const Camera& camera) { return glm::length(camera.position - camera.target); }

bool apply_orbit(Camera& camera, const CameraInput& in, int viewport_height) {
  const glm::vec3 up = glm::normalize(camera.up);
  bool moved = false;
  if (in.left && (in.mouse_dx != 0 || in.mouse_dy != 0)) {
    const glm::vec3 offset = camera.position - camera.target;
    camera.position =
        camera.target + turn(offset, up, -in.mouse_dx * kRadiansPerPixel, -in.mouse_dy * kRadiansPerPixel);
    moved = true;
  }
  if ((in.right || in.middle) && (in.mouse_dx != 0 || in.mouse_dy != 0) && viewport_height > 0) {
    const glm::vec3 forward = glm::normalize(camera.target - camera.position);
    const glm::vec3 right = glm::normalize(glm::cross(forward, up));
    const glm::vec3 screen_up = glm::cross(right, forward);
    // World units per pixel at the target's depth.
    const float scale =
        2.0f * camera_distance(camera) * std::tan(glm::radians(camera.fov_y_degrees) * 0.5f) / float(viewport_height);
    const glm::vec3 shift = (-in.mouse_dx * right + in.mouse_dy * screen_up) * scale;
    camera.position += shift;
    camera.target += shift;
    moved = true;
  }
  if (in.wheel != 0) {
    const glm::vec3 offset = camera.position - camera.target;
    const float factor = std::pow(kZoomPerNotch, in.wheel);
    if (glm::length(offset) * factor > 1e-3f) {
      camera.position = camera.target + offset * factor;
      moved = true;
    }
  }
  return moved;
}

bool apply_fly(Camera& camera, const CameraInput& in, float speed) {
  const glm::vec3 up = glm::normalize(camera.up);
  const float distance = camera_distance(camera);
  glm::vec3 forward = (camera.target - camera.position) / distance;
  bool moved = false;
  if (in.right && (in.mouse_dx != 0 || in.mouse_dy != 0)) {
    forward = glm::normalize(turn(forward, up, -in.mouse_dx * kRadiansPerPixel, -in.mouse_dy * kRadiansPerPixel));
    camera.target = camera.position + forward * distance;
    moved = true;
  }
  const glm::vec3 right = glm::normalize(glm::cross(forward, up));
  glm::vec3 step{0.0f};
  if (in.forward) step += forward;
  if (in.back) step -= forward;
  if (in.right_key) step += right;
  if (in.left_key) step -= right;
  if (in.up) step += up;
  if (in.down) step -= up;
  if (glm::length(step) > 0.0f) {
    const glm::vec3 delta = glm::normalize(step) * speed * (in.fast ? kFastFactor : 1.0f) * in.dt;
    camera.position += delta;
    camera.target += delta;
    moved = true;
  }
  return moved;
}

}  // namespace tessera::viewer
