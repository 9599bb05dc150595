#include "viewer/render_worker.h"

#include <atomic>
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

// The last result once the worker has nothing left to render (repeats included).
RenderResult finish(RenderWorker& worker) {
  for (int i = 0; i < 4000 && worker.busy(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_FALSE(worker.busy()) << "render worker did not finish";
  std::optional<RenderResult> r = worker.take_result();
  EXPECT_TRUE(r.has_value());
  return r ? *r : RenderResult{};
}

TEST(RenderWorker, RendersOffThreadAndMatchesADirectRender) {
  RenderWorker worker;
  const auto scene = small_scene();
  const uint64_t id = worker.submit({scene, scene->camera, small_config()});
  const RenderResult r = finish(worker);
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
  const RenderResult r = finish(worker);
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
  const RenderResult r = finish(worker);
  EXPECT_FALSE(r.frame);
  EXPECT_NE(r.error.find("tile_size"), std::string::npos);
  // The worker keeps serving after an error.
  worker.submit({scene, scene->camera, small_config()});
  EXPECT_TRUE(finish(worker).frame);
}

TEST(RenderWorker, CountsRendersAndWakesTheWindowOnEachResult) {
  std::atomic<int> wakes{0};
  RenderWorker worker([&] { ++wakes; });
  const auto scene = small_scene();
  for (int i = 1; i <= 3; ++i) {
    worker.submit({scene, scene->camera, small_config()});
    const RenderResult r = finish(worker);
    ASSERT_TRUE(r.frame) << r.error;
    EXPECT_EQ(r.renders_finished, uint64_t(i));
    EXPECT_EQ(wakes.load(), i);
  }
  EXPECT_EQ(worker.renders_finished(), 3u);
  const RenderRate::Reading overall = worker.rate().overall();
  EXPECT_EQ(overall.renders, 3u);
  EXPECT_GT(overall.frames_per_second, 0.0);
  EXPECT_GT(overall.ms_per_render, 0.0);
  // The worker idled between the three requests (this thread polls every 2 ms).
  EXPECT_LT(overall.busy_share, 1.0);
  worker.clear_wake();
  worker.submit({scene, scene->camera, small_config()});
  finish(worker);
  EXPECT_EQ(wakes.load(), 3);
}

TEST(RenderWorker, RepeatsARequestBackToBack) {
  RenderWorker worker;
  const auto scene = small_scene();
  RenderRequest request{scene, scene->camera, small_config()};
  request.renders = 4;
  const uint64_t id = worker.submit(request);
  RenderResult r = finish(worker);
  ASSERT_TRUE(r.frame) << r.error;
  EXPECT_EQ(r.id, id);
  EXPECT_EQ(r.renders_finished, 4u);
  EXPECT_EQ(worker.renders_finished(), 4u);
  EXPECT_EQ(worker.rate().overall().renders, 4u);
  // Unlimited repeats run until stopped; a newer request replaces them.
  request.renders = 0;
  worker.submit(request);
  while (worker.renders_finished() < 7) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(worker.busy());
  RenderRequest once{scene, scene->camera, small_config()};
  once.config.frame.width = 40;
  const uint64_t last = worker.submit(once);
  r = finish(worker);
  EXPECT_EQ(r.id, last);
  EXPECT_EQ(r.frame->color.width, 40);
  const uint64_t done = worker.renders_finished();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(worker.renders_finished(), done);
  EXPECT_FALSE(worker.busy());
  request.renders = 0;
  worker.submit(request);
  while (worker.renders_finished() < done + 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  worker.stop_repeating();
  finish(worker);
  const uint64_t stopped = worker.renders_finished();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(worker.renders_finished(), stopped);
}

TEST(RenderWorker, AFailingRequestIsNotRepeated) {
  RenderWorker worker;
  const auto scene = small_scene();
  RenderRequest request{scene, scene->camera, small_config()};
  request.config.raster.tile_size = 12;
  request.renders = 0;
  worker.submit(request);
  const RenderResult r = finish(worker);
  EXPECT_FALSE(r.frame);
  EXPECT_EQ(worker.renders_finished(), 1u);
  EXPECT_FALSE(worker.busy());
}

using Clock = RenderRate::Clock;
using std::chrono::milliseconds;

// `count` renders of `render` each, `gap` apart (from one's end to the next one's start).
RenderRate renders(Clock::time_point t, int count, milliseconds render, milliseconds gap) {
  RenderRate rate;
  for (int i = 0; i < count; ++i) {
    rate.add(t, t + render);
    t += render + gap;
  }
  return rate;
}

TEST(RenderRate, BackToBackRendersRunAtTheRenderTime) {
  const Clock::time_point t0{};
  const RenderRate rate = renders(t0, 10, milliseconds(50), milliseconds(0));
  const RenderRate::Reading live = rate.recent(t0 + milliseconds(500));
  EXPECT_EQ(live.renders, 10u);
  EXPECT_NEAR(live.frames_per_second, 20.0, 1e-9);
  EXPECT_NEAR(live.busy_share, 1.0, 1e-9);
  EXPECT_NEAR(live.ms_per_render, 50.0, 1e-9);
  const RenderRate::Reading all = rate.overall();
  EXPECT_EQ(all.renders, 10u);
  EXPECT_NEAR(all.frames_per_second, 20.0, 1e-9);
  EXPECT_NEAR(all.busy_share, 1.0, 1e-9);
}

TEST(RenderRate, GapsBetweenRendersCount) {
  // 40 ms renders with 10 ms waits for the next request: 20 frames/s, not the 25 of the frame time.
  const Clock::time_point t0{};
  const RenderRate rate = renders(t0, 9, milliseconds(40), milliseconds(10));
  const RenderRate::Reading live = rate.recent(t0 + milliseconds(450));
  EXPECT_NEAR(live.frames_per_second, 20.0, 1e-9);
  EXPECT_NEAR(live.busy_share, 0.8, 1e-9);
  EXPECT_NEAR(live.ms_per_render, 40.0, 1e-9);
  // Overall: 9 renders from the first start (0) to the last end (440 ms).
  const RenderRate::Reading all = rate.overall();
  EXPECT_NEAR(all.frames_per_second, 9.0 / 0.44, 1e-9);
  EXPECT_NEAR(all.busy_share, 9 * 0.04 / 0.44, 1e-9);
}

TEST(RenderRate, LiveReadingForgetsOldRenders) {
  const Clock::time_point t0{};
  RenderRate rate = renders(t0, 3, milliseconds(100), milliseconds(0));  // ends at 100, 200, 300 ms
  EXPECT_EQ(rate.recent(t0 + milliseconds(2150)).renders, 2u);           // 100 ms is out of the window
  const RenderRate::Reading idle = rate.recent(t0 + milliseconds(5000));
  EXPECT_EQ(idle.renders, 0u);
  EXPECT_EQ(idle.frames_per_second, 0.0);
  const RenderRate::Reading one = rate.recent(t0 + milliseconds(2250));
  EXPECT_EQ(one.renders, 1u);
  EXPECT_EQ(one.frames_per_second, 0.0);  // one render is no rate
  EXPECT_EQ(rate.overall().renders, 3u);
  // A render long after the others: the old ones leave the window.
  rate.add(t0 + milliseconds(9000), t0 + milliseconds(9050));
  EXPECT_EQ(rate.recent(t0 + milliseconds(9050)).renders, 1u);
  EXPECT_EQ(rate.overall().renders, 4u);
}

}  // namespace
}  // namespace tessera::viewer
