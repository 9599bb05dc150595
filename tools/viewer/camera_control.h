// Camera controllers of the viewer. They edit a tessera::Camera in place and leave it
// untouched (bit for bit) until there is input, so the first frame matches `tessera render`.
#pragma once

#include "tessera/scene.h"

namespace tessera::viewer {

enum class CameraMode { orbit, fly };

// One UI frame of input, already filtered (nothing here when ImGui owns the mouse/keyboard).
struct CameraInput {
  float mouse_dx = 0, mouse_dy = 0;                  // pixels moved since the last UI frame
  bool left = false, right = false, middle = false;  // buttons held
  float wheel = 0;                                   // wheel notches, positive away from the user
  bool forward = false, back = false, left_key = false, right_key = false, down = false, up = false;
  bool fast = false;  // shift held
  float dt = 0;       // seconds since the last UI frame
};

// Orbit: left drag turns around the target, wheel zooms, right/middle drag pans.
// viewport_height in pixels converts pan drags to world units. Returns true if it moved.
bool apply_orbit(Camera& camera, const CameraInput& in, int viewport_height);

// Fly: WASD moves, Q/E go down/up, mouse look while the right button is held, shift is 4x.
// speed in world units per second. Returns true if it moved.
bool apply_fly(Camera& camera, const CameraInput& in, float speed);

// Distance between position and target: a natural scale for fly speed.
float camera_distance(const Camera& camera);

}  // namespace tessera::viewer
