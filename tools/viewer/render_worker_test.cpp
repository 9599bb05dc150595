#include "viewer/render_worker.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace tessera::viewer {
namespace {

std::shared_ptr<const Scene> small_scene() {
  auto scene = std::make_shared<Scene>();
  Mesh box;
  box.name = "box";
  const glm::vec3 corners[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
  for (const glm::vec3& p : corners) box.vertices.push_back({p, {0, 0, 1}, {0, 0}});
  box.indices = {0, 1, 2, 0, 2, 3};
  compute_bounds(box);
  scene->meshes.push_back(box);
  scene->materials.push_back(Material{});
  scene->instances.push_back(Instance{});
  return scene;
}

Config small_config() {
  Config c;
  c.frame.width = 64;
  c.frame.height = 48;
  c.frame.threads = 1;
  return c;
}

RenderResult wait(RenderWorker& worker) {
  for (int i = 0; i < 2000; ++i) {
    if (auto r = worker.take_result()) {
      if (!worker.busy()) return *r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ADD_FAILURE() << "render worker did not finish";
  return {};
}

TEST(RenderWorker, RendersOffThreadAndMatchesADirectRender) {
  RenderWorker worker;
  const auto scene = small_scene();
  const uint64_t id = worker.submit({scene, scene->camera, small_config()});
  const RenderResult r = wait(worker);
  ASSERT_TRUE(r.frame) << r.error;
  EXPECT_EQ(r.id, id);
  Renderer direct(small_config());
  const Frame f = direct.render(*scene, scene->camera);
  EXPECT_EQ(r.frame->color.pixels, f.color.pixels);
  EXPECT_EQ(r.frame->diagnostics.tiles.size(), size_t(r.frame->diagnostics.tiles_x * r.frame->diagnostics.tiles_y));
}

TEST(RenderWorker, NewestRequestWins) {
  RenderWorker worker;
  const auto scene = small_scene();
  uint64_t last = 0;
  for (int i = 0; i < 5; ++i) {
    Config c = small_config();
    c.frame.width = 32 + 8 * i;
    last = worker.submit({scene, scene->camera, c});
  }
  const RenderResult r = wait(worker);
  ASSERT_TRUE(r.frame) << r.error;
  EXPECT_EQ(r.id, last);
  EXPECT_EQ(r.frame->color.width, 64);
}

TEST(RenderWorker, BadConfigIsAnErrorNotACrash) {
  RenderWorker worker;
  const auto scene = small_scene();
  Config c = small_config();
  c.raster.tile_size = 12;
  worker.submit({scene, scene->camera, c});
  const RenderResult r = wait(worker);
  EXPECT_FALSE(r.frame);
  EXPECT_NE(r.error.find("tile_size"), std::string::npos);
  // The worker keeps serving after an error.
  worker.submit({scene, scene->camera, small_config()});
  EXPECT_TRUE(wait(worker).frame);
}

}  // namespace
}  // namespace tessera::viewer
