// The viewer's render thread: owns the tessera::Renderer, renders the latest request, and
// hands back finished frames. A new request supersedes one still waiting; the frame being
// rendered runs to completion (the renderer has no cancellation point).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "tessera/capture.h"
#include "tessera/config.h"
#include "tessera/renderer.h"
#include "tessera/replay.h"
#include "tessera/scene.h"

namespace tessera::viewer {

struct RenderRequest {
  std::shared_ptr<const Scene> scene;
  Camera camera;
  Config config;  // frame size, threads and raster settings for this frame
  // Instead of a scene: a captured frame replayed (docs/replay.md) up to draw `last_draw`
  // (all draws when unset); the frame is the main pass's at the capture's size.
  std::shared_ptr<const capture::Capture> capture;
  size_t capture_frame = 0;
  std::optional<size_t> last_draw;
  // Renders of this request back to back, each a result, while no newer request arrives;
  // 0: until a newer request or stop_repeating(). The worker goes from one to the next
  // without waiting for the window to ask again.
  uint64_t renders = 1;
};

struct RenderResult {
  uint64_t id = 0;                     // the request's id
  uint64_t renders_finished = 0;       // the worker's renders finished, this one included
  std::shared_ptr<const Frame> frame;  // null when rendering failed
  std::string error;                   // why it failed (bad config, renderer error)
  Camera camera;                       // the camera it was rendered with
  // Replayed captures: the draws' reports and the frame's statistics (the main pass's frame,
  // with the capture.* statistics, is `frame`).
  std::shared_ptr<const replay::FrameReplay> replay;
};

// The render worker's throughput: renders finished per second of wall time, and the share of
// that time it spent rendering. A frame's own time (frame.time_ms.total) overstates the rate
// whenever the worker waits between frames (for the window to take a result and ask again) or
// spends time outside the frame (renderer re-creation, wrapping the result).
class RenderRate {
 public:
  using Clock = std::chrono::steady_clock;
  // The live reading is over the renders that finished in this many seconds before `now`.
  static constexpr double kWindowSeconds = 2.0;

  struct Reading {
    size_t renders = 0;            // renders the reading covers
    double frames_per_second = 0;  // 0 with fewer than two renders (live) or none (overall)
    double busy_share = 0;         // of the wall time between the first and the last render's end
    double ms_per_render = 0;      // mean wall time per render, from request taken to result stored
  };

  void add(Clock::time_point start, Clock::time_point end);
  // Renders that finished within kWindowSeconds before `now`: (n - 1) renders per the time
  // between the first one's end and the last one's (renders after the first lie wholly in it).
  Reading recent(Clock::time_point now) const;
  // Every render so far: n renders per the time from the first one's start to the last one's end.
  Reading overall() const;

 private:
  struct Span {
    Clock::time_point start, end;
  };
  std::deque<Span> recent_;  // renders ending within kWindowSeconds of the newest end
  uint64_t count_ = 0;
  Clock::time_point first_start_, last_end_;
  double busy_seconds_ = 0;
};

class RenderWorker {
 public:
  // `wake` (may be empty) is called on the worker thread after it stores a result: the viewer
  // wakes its event loop with it, to show a finished frame at once.
  explicit RenderWorker(std::function<void()> wake = {});
  ~RenderWorker();  // finishes the frame in flight, then joins
  RenderWorker(const RenderWorker&) = delete;
  RenderWorker& operator=(const RenderWorker&) = delete;

  // Queues a request, replacing any still waiting; returns its id (increasing from 1).
  uint64_t submit(RenderRequest request);
  // The newest finished result not yet taken, if any.
  std::optional<RenderResult> take_result();
  // True while a request waits, renders or has renders left.
  bool busy() const;
  // Ends the current request's repeats: the render in flight is its last.
  void stop_repeating();
  // Seconds the frame in flight has been rendering (0 when idle).
  double busy_seconds() const;
  // Renders finished (successfully or not) since the worker started.
  uint64_t renders_finished() const;
  // Throughput of the renders so far (see RenderRate).
  RenderRate rate() const;
  // Stops calling `wake` (before the window it wakes goes away).
  void clear_wake();

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<RenderRequest> pending_;
  uint64_t pending_id_ = 0;
  std::optional<RenderRequest> current_;  // the request taken last, for its repeats
  uint64_t current_id_ = 0;
  uint64_t renders_left_ = 0;  // of current_, the one in flight included; 0: unlimited
  uint64_t next_id_ = 1;
  bool rendering_ = false;
  std::chrono::steady_clock::time_point started_;
  std::optional<RenderResult> result_;
  uint64_t renders_finished_ = 0;
  RenderRate rate_;
  std::function<void()> wake_window_;
  bool stop_ = false;
  std::thread thread_;  // last member: starts after the state above exists
};

}  // namespace tessera::viewer
