#include "viewer/render_worker.h"

#include <exception>
#include <utility>

#include "tessera/error.h"

namespace tessera::viewer {

namespace {

double seconds(RenderRate::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

void RenderRate::add(Clock::time_point start, Clock::time_point end) {
  if (count_ == 0) first_start_ = start;
  ++count_;
  last_end_ = end;
  busy_seconds_ += seconds(end - start);
  recent_.push_back({start, end});
  const auto horizon = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kWindowSeconds));
  while (!recent_.empty() && recent_.front().end < end - horizon) recent_.pop_front();
}

RenderRate::Reading RenderRate::recent(Clock::time_point now) const {
  const auto horizon = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kWindowSeconds));
  auto first = recent_.begin();
  while (first != recent_.end() && first->end < now - horizon) ++first;
  Reading r;
  r.renders = size_t(recent_.end() - first);
  if (r.renders == 0) return r;
  double busy_all = 0, busy_after_first = 0;
  for (auto it = first; it != recent_.end(); ++it) {
    busy_all += seconds(it->end - it->start);
    if (it != first) busy_after_first += seconds(it->end - it->start);
  }
  r.ms_per_render = 1000.0 * busy_all / double(r.renders);
  const double span = seconds(recent_.back().end - first->end);
  if (r.renders >= 2 && span > 0) {
    r.frames_per_second = double(r.renders - 1) / span;
    r.busy_share = busy_after_first / span;
  }
  return r;
}

RenderRate::Reading RenderRate::overall() const {
  Reading r;
  r.renders = size_t(count_);
  if (count_ == 0) return r;
  r.ms_per_render = 1000.0 * busy_seconds_ / double(count_);
  const double span = seconds(last_end_ - first_start_);
  if (span > 0) {
    r.frames_per_second = double(count_) / span;
    r.busy_share = busy_seconds_ / span;
  }
  return r;
}

RenderWorker::RenderWorker(std::function<void()> wake) : wake_window_(std::move(wake)), thread_([this] { run(); }) {}

RenderWorker::~RenderWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    pending_.reset();
    current_.reset();
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
  return rendering_ || pending_.has_value() || (current_ && renders_left_ != 1);
}

void RenderWorker::stop_repeating() {
  std::lock_guard lock(mutex_);
  renders_left_ = 1;
}

uint64_t RenderWorker::renders_finished() const {
  std::lock_guard lock(mutex_);
  return renders_finished_;
}

RenderRate RenderWorker::rate() const {
  std::lock_guard lock(mutex_);
  return rate_;
}

void RenderWorker::clear_wake() {
  std::lock_guard lock(mutex_);
  wake_window_ = nullptr;
}

double RenderWorker::busy_seconds() const {
  std::lock_guard lock(mutex_);
  if (!rendering_) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void RenderWorker::run() {
  std::unique_ptr<Renderer> renderer;
  // The renderer's config in JSON form, which names every field (new config fields need no
  // change here): one conversion per request instead of two.
  std::string renderer_config;
  for (;;) {
    RenderRequest request;
    uint64_t id = 0;
    RenderRate::Clock::time_point started;
    {
      std::unique_lock lock(mutex_);
      const auto repeat = [this] { return current_ && renders_left_ != 1; };
      wake_.wait(lock, [&] { return stop_ || pending_.has_value() || repeat(); });
      if (stop_) return;
      if (pending_) {
        current_ = std::move(*pending_);
        current_id_ = pending_id_;
        renders_left_ = current_->renders;
        pending_.reset();
      } else if (renders_left_ > 1) {
        --renders_left_;
      }
      request = *current_;
      id = current_id_;
      rendering_ = true;
      started = started_ = std::chrono::steady_clock::now();
    }
    RenderResult result;
    result.id = id;
    result.camera = request.camera;
    try {
      // The viewer's overlays draw the frame's diagnostics.
      Config config = request.config;
      config.frame.diagnostics = true;
      // Renderer fixes its config at construction: rebuild it only when the config changed.
      std::string config_json = config_to_json_text(config);
      if (!renderer || config_json != renderer_config) {
        renderer.reset();
        renderer_config.clear();
        renderer = std::make_unique<Renderer>(config);
        renderer_config = std::move(config_json);
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
      result.renders_finished = ++renders_finished_;
      if (!result.frame && current_id_ == id) renders_left_ = 1;  // an error is not repeated
      result_ = std::move(result);
      rendering_ = false;
      rate_.add(started, std::chrono::steady_clock::now());
      // Under the lock: once clear_wake() returns, no call is in flight.
      if (wake_window_) wake_window_();
    }
  }
}

}  // namespace tessera::viewer
