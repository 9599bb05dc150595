// The viewer's render thread: owns the tessera::Renderer, renders the latest request, and
// hands back finished frames. A new request supersedes one still waiting; the frame being
// rendered runs to completion (the renderer has no cancellation point).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
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
};

struct RenderResult {
  uint64_t id = 0;                     // the request's id
  std::shared_ptr<const Frame> frame;  // null when rendering failed
  std::string error;                   // why it failed (bad config, renderer error)
  Camera camera;                       // the camera it was rendered with
  // Replayed captures: the draws' reports and the frame's statistics (the main pass's frame,
  // with the capture.* statistics, is `frame`).
  std::shared_ptr<const replay::FrameReplay> replay;
};

class RenderWorker {
 public:
  RenderWorker();
  ~RenderWorker();  // finishes the frame in flight, then joins
  RenderWorker(const RenderWorker&) = delete;
  RenderWorker& operator=(const RenderWorker&) = delete;

  // Queues a request, replacing any still waiting; returns its id (increasing from 1).
  uint64_t submit(RenderRequest request);
  // The newest finished result not yet taken, if any.
  std::optional<RenderResult> take_result();
  // True while a request waits or renders.
  bool busy() const;
  // Seconds the frame in flight has been rendering (0 when idle).
  double busy_seconds() const;

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<RenderRequest> pending_;
  uint64_t pending_id_ = 0;
  uint64_t next_id_ = 1;
  bool rendering_ = false;
  std::chrono::steady_clock::time_point started_;
  std::optional<RenderResult> result_;
  bool stop_ = false;
  std::thread thread_;  // last member: starts after the state above exists
};

}  // namespace tessera::viewer
