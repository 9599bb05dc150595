#include "viewer/render_worker.h"

#include <exception>

#include "tessera/error.h"

namespace tessera::viewer {

namespace {

// Compares through the JSON form, which names every field: new config fields need no change here.
bool same_config(const Config& a, const Config& b) { return config_to_json_text(a) == config_to_json_text(b); }

}  // namespace

RenderWorker::RenderWorker() : thread_([this] { run(); }) {}

RenderWorker::~RenderWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    pending_.reset();
  }
  wake_.notify_all();
  thread_.join();
}

uint64_t RenderWorker::submit(RenderRequest request) {
  uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    pending_ = std::move(request);
    pending_id_ = id;
  }
  wake_.notify_one();
  return id;
}

std::optional<RenderResult> RenderWorker::take_result() {
  std::lock_guard lock(mutex_);
  std::optional<RenderResult> r = std::move(result_);
  result_.reset();
  return r;
}

bool RenderWorker::busy() const {
  std::lock_guard lock(mutex_);
  return rendering_ || pending_.has_value();
}

double RenderWorker::busy_seconds() const {
  std::lock_guard lock(mutex_);
  if (!rendering_) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void RenderWorker::run() {
  std::unique_ptr<Renderer> renderer;
  for (;;) {
    RenderRequest request;
    uint64_t id = 0;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      id = pending_id_;
      pending_.reset();
      rendering_ = true;
      started_ = std::chrono::steady_clock::now();
    }
    RenderResult result;
    result.id = id;
    result.camera = request.camera;
    try {
      // The viewer's overlays draw the frame's diagnostics.
      Config config = request.config;
      config.frame.diagnostics = true;
      // Renderer fixes its config at construction: rebuild it only when the config changed.
      if (!renderer || !same_config(renderer->config(), config)) {
        renderer.reset();
        renderer = std::make_unique<Renderer>(config);
      }
      if (request.capture) {
        replay::ReplayOptions options;
        options.last_draw = request.last_draw;
        auto replayed = std::make_shared<replay::FrameReplay>(
            replay::replay_frame(*renderer, *request.capture, request.capture_frame, options));
        Frame& main = replayed->passes[replayed->main_pass].frame;
        main.stats = replayed->stats;
        result.frame = std::make_shared<const Frame>(std::move(main));
        result.replay = std::move(replayed);
      } else {
        result.frame = std::make_shared<const Frame>(renderer->render(*request.scene, request.camera));
      }
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    {
      std::lock_guard lock(mutex_);
      result_ = std::move(result);
      rendering_ = false;
    }
  }
}

}  // namespace tessera::viewer
