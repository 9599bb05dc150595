// Embree 3 as the ray-tracing unit's peer and oracle: the same scene as one Embree scene per mesh
// under an instance per Scene instance (instance id = Scene instance index, like rt::Hit),
// traced one ray at a time with rtcIntersect1 / rtcOccluded1. Header-only; tessera_bench carries
// the embree3 link for its users (the rt unit tests and the CLI's `bench rt`).
#pragma once

#include <embree3/rtcore.h>

#include <cmath>
#include <string>
#include <vector>

#include "tessera/error.h"
#include "tessera/rt.h"
#include "tessera/scene.h"

namespace tessera::rt {

class EmbreePeer {
 public:
  // `device_config` is Embree's configuration string (e.g. "threads=1"); empty for defaults.
  explicit EmbreePeer(const Scene& scene, RTCBuildQuality quality = RTC_BUILD_QUALITY_MEDIUM,
                      const std::string& device_config = "") {
    device_ = rtcNewDevice(device_config.empty() ? nullptr : device_config.c_str());
    if (!device_) throw Error("embree: rtcNewDevice failed (" + std::to_string(int(rtcGetDeviceError(nullptr))) + ")");
    std::vector<uint8_t> used(scene.meshes.size(), 0);
    for (const Instance& inst : scene.instances)
      if (inst.mesh < scene.meshes.size()) used[inst.mesh] = 1;
    meshes_.assign(scene.meshes.size(), nullptr);
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
      const Mesh& mesh = scene.meshes[m];
      if (!used[m] || mesh.indices.size() < 3) continue;
      RTCScene ms = rtcNewScene(device_);
      rtcSetSceneBuildQuality(ms, quality);
      RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
      rtcSetGeometryBuildQuality(g, quality);
      auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                            3 * sizeof(float), mesh.vertices.size()));
      for (size_t i = 0; i < mesh.vertices.size(); ++i) {
        v[3 * i] = mesh.vertices[i].position.x;
        v[3 * i + 1] = mesh.vertices[i].position.y;
        v[3 * i + 2] = mesh.vertices[i].position.z;
      }
      auto* idx = static_cast<uint32_t*>(rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                                 3 * sizeof(uint32_t), mesh.indices.size() / 3));
      std::copy(mesh.indices.begin(), mesh.indices.end(), idx);
      rtcCommitGeometry(g);
      rtcAttachGeometry(ms, g);
      rtcReleaseGeometry(g);
      rtcCommitScene(ms);
      meshes_[m] = ms;
    }
    top_ = rtcNewScene(device_);
    rtcSetSceneBuildQuality(top_, quality);
    for (size_t i = 0; i < scene.instances.size(); ++i) {
      const Instance& inst = scene.instances[i];
      if (inst.mesh >= meshes_.size() || !meshes_[inst.mesh]) continue;
      const float det = glm::determinant(glm::mat3(inst.transform));
      if (!(std::isfinite(det) && det != 0.0f)) continue;  // as the rt unit: nothing to hit
      RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_INSTANCE);
      rtcSetGeometryInstancedScene(g, meshes_[inst.mesh]);
      rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT4X4_COLUMN_MAJOR, &inst.transform[0][0]);
      rtcCommitGeometry(g);
      rtcAttachGeometryByID(top_, g, unsigned(i));
      rtcReleaseGeometry(g);
    }
    rtcCommitScene(top_);
    if (rtcGetDeviceError(device_) != RTC_ERROR_NONE) throw Error("embree: scene build failed");
  }
  ~EmbreePeer() {
    if (top_) rtcReleaseScene(top_);
    for (RTCScene s : meshes_)
      if (s) rtcReleaseScene(s);
    if (device_) rtcReleaseDevice(device_);
  }
  EmbreePeer(const EmbreePeer&) = delete;
  EmbreePeer& operator=(const EmbreePeer&) = delete;

  Hit intersect(const Ray& ray) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRayHit rh;
    fill(ray, rh.ray);
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(top_, &context, &rh);
    Hit hit;
    if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return hit;
    hit.t = rh.ray.tfar;
    hit.u = rh.hit.u;
    hit.v = rh.hit.v;
    hit.instance = rh.hit.instID[0];
    hit.primitive = rh.hit.primID;
    return hit;
  }

  bool occluded(const Ray& ray) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRay r;
    fill(ray, r);
    rtcOccluded1(top_, &context, &r);
    return r.tfar < 0.0f;  // Embree sets tfar to -inf on an occluder
  }

 private:
  static void fill(const Ray& ray, RTCRay& r) {
    r.org_x = ray.origin.x, r.org_y = ray.origin.y, r.org_z = ray.origin.z;
    r.dir_x = ray.direction.x, r.dir_y = ray.direction.y, r.dir_z = ray.direction.z;
    r.tnear = ray.tmin;
    r.tfar = ray.tmax;
    r.time = 0.0f;
    r.mask = 0xffffffffu;
    r.id = 0;
    r.flags = 0;
  }

  RTCDevice device_ = nullptr;
  std::vector<RTCScene> meshes_;
  RTCScene top_ = nullptr;
};

}  // namespace tessera::rt
