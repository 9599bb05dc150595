// Helpers shared by the scene unit's tests: scratch folders, error-message checks and mesh
// invariants every generator and loader must satisfy.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "tessera/error.h"
#include "tessera/scene.h"

namespace tessera::scene_testing {

// A fresh folder under the system temp folder, removed when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("tessera_scene_test_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

inline std::filesystem::path source_dir() { return std::filesystem::path(TESSERA_SOURCE_DIR); }

// Runs f, which must throw tessera::Error whose message contains every one of `parts`.
// Returns the message for further checks.
inline std::string expect_error(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts) {
      EXPECT_NE(msg.find(p), std::string::npos) << "message lacks \"" << p << "\": " << msg;
    }
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected tessera::Error, got another exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected tessera::Error, nothing was thrown";
  return {};
}

// Indices in range, unit normals, bounds matching the vertices, and every non-degenerate
// triangle wound counter-clockwise about its vertex normals.
inline void expect_well_formed(const Mesh& mesh) {
  ASSERT_EQ(mesh.indices.size() % 3, 0u);
  for (uint32_t i : mesh.indices) ASSERT_LT(i, mesh.vertices.size());
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const Vertex& v : mesh.vertices) {
    ASSERT_NEAR(glm::length(v.normal), 1.0f, 1e-5f);
    ASSERT_TRUE(std::isfinite(v.uv.x) && std::isfinite(v.uv.y));
    lo = glm::min(lo, v.position);
    hi = glm::max(hi, v.position);
  }
  EXPECT_EQ(mesh.bounds_min, lo);
  EXPECT_EQ(mesh.bounds_max, hi);
  size_t wrong = 0;
  for (size_t t = 0; t < mesh.indices.size(); t += 3) {
    const Vertex& a = mesh.vertices[mesh.indices[t]];
    const Vertex& b = mesh.vertices[mesh.indices[t + 1]];
    const Vertex& c = mesh.vertices[mesh.indices[t + 2]];
    const glm::vec3 n = glm::cross(b.position - a.position, c.position - a.position);
    if (glm::length(n) < 1e-12f) continue;
    if (glm::dot(n, a.normal + b.normal + c.normal) <= 0.0f) ++wrong;
  }
  EXPECT_EQ(wrong, 0u) << "triangles wound against their normals";
}

}  // namespace tessera::scene_testing
