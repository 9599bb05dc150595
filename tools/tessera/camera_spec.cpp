// The --camera option: a scene camera by name or index, or explicit position and target.
#include "camera_spec.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "tessera/error.h"

namespace tessera::cli {

namespace {

bool parse_floats(const std::string& text, std::vector<float>& out) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      const float v = std::stof(item, &used);
      if (used != item.size() || !std::isfinite(v)) return false;
      out.push_back(v);
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

}  // namespace

Camera parse_camera(const std::string& spec, const Scene& scene) {
  if (spec.find(',') == std::string::npos) {
    for (const Camera& c : scene.cameras) {
      if (!c.name.empty() && c.name == spec) return c;
    }
    size_t used = 0;
    unsigned long index = 0;
    try {
      index = std::stoul(spec, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    std::string names;
    for (const Camera& c : scene.cameras)
      names += (names.empty() ? "" : ", ") + (c.name.empty() ? std::string("(unnamed)") : c.name);
    if (spec.empty() || used != spec.size()) {
      throw Error("--camera " + spec + ": not a camera of the scene (" +
                  (names.empty() ? "it has no extra cameras" : names) + "), an index, or px,py,pz,tx,ty,tz[,fov]");
    }
    if (index >= scene.cameras.size()) {
      throw Error("--camera " + spec + ": the scene has " + std::to_string(scene.cameras.size()) + " extra cameras");
    }
    return scene.cameras[index];
  }
  std::vector<float> v;
  if (!parse_floats(spec, v) || (v.size() != 6 && v.size() != 7)) {
    throw Error("--camera " + spec + ": expected px,py,pz,tx,ty,tz[,fov_degrees] (finite numbers)");
  }
  Camera cam = scene.camera;
  cam.position = {v[0], v[1], v[2]};
  cam.target = {v[3], v[4], v[5]};
  if (v.size() == 7) cam.fov_y_degrees = v[6];
  // The scene's up vector with a new direction can be degenerate: the same checks as a scene file's cameras.
  validate_camera(cam, "--camera " + spec);
  return cam;
}

}  // namespace tessera::cli
