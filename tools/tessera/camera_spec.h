// The --camera option shared by `tessera render` and `tessera view`.
#pragma once

#include <string>

#include "tessera/scene.h"

namespace tessera::cli {

// Resolves a camera spec against a scene: a name or index into Scene::cameras, or
// px,py,pz,tx,ty,tz[,fov_degrees] (other fields from the scene camera). Throws tessera::Error
// naming the spec and what is wrong.
Camera parse_camera(const std::string& spec, const Scene& scene);

}  // namespace tessera::cli
