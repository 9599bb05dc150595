#include "viewer/viewer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "tessera/error.h"
#include "tessera/image.h"
#include "tessera/renderer.h"
#include "viewer/camera_control.h"
#include "viewer/gl_texture.h"
#include "viewer/help.h"
#include "viewer/overlays.h"
#include "tessera/capture.h"
#include "tessera/replay.h"
#include "viewer/render_worker.h"
#include "viewer/stats_panel.h"

namespace tessera::viewer {

namespace {

constexpr float kMinScale = 0.25f, kMaxScale = 2.0f;
constexpr double kUiFrameSeconds = 1.0 / 60.0;  // event wait: the UI redraws at most this often
// Without input the window redraws only for a finished frame (the worker wakes it) or this
// often (the status line): under Xvfb each redraw is ~4 ms of Mesa's software rasterizer on the
// cores the renderer uses, a quarter of a core at 60 redraws a second.
constexpr double kIdleWaitSeconds = 0.25;
constexpr double kInputSettleSeconds = 0.5;  // redraws at kUiFrameSeconds this long after input
constexpr float kPanelWidth = 330.0f;        // side panels, in ImGui pixels, in windows >= 1030 wide
constexpr int kCaptureSettleFrames = 2;      // UI frames drawn after the last render before capture

// Side panels take at most 32% of the window width each, so some of the frame shows between.
float panel_width() { return std::min(kPanelWidth, std::max(240.0f, ImGui::GetIO().DisplaySize.x * 0.32f)); }

// GLFW's description of its last error, or `fallback`.
std::string glfw_error(const char* fallback) {
  const char* text = nullptr;
  glfwGetError(&text);
  return text ? text : fallback;
}

void write_text_atomically(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path.string() + ": cannot open for writing");
    out << text;
    out.flush();
    if (!out) throw Error(path.string() + ": write failed");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error(path.string() + ": cannot write (" + ec.message() + ")");
}

class Viewer {
 public:
  explicit Viewer(const ViewerOptions& options)
      : options_(options),
        config_(options.config),
        scale_(std::clamp(options.resolution_scale, kMinScale, kMaxScale)),
        overlay_(options.overlay) {
    set_text(scene_text_, options.scene.string());
    set_text(shot_text_, options.screenshot.empty() ? std::string("out/view.png") : options.screenshot.string());
  }

  int run();

 private:
  bool screenshot_mode() const { return !options_.screenshot.empty(); }
  static void set_text(char (&buf)[1024], const std::string& text) {
    std::snprintf(buf, sizeof buf, "%s", text.c_str());
  }

  bool open_window();
  void close_window();
  bool load(const std::filesystem::path& path, bool initial);
  void take_results();
  void handle_input(double dt);
  bool input_seen() const;
  void submit_if_needed();
  void rebuild_overlay();
  void draw_frame();
  void draw_controls();
  void draw_capture_controls();
  void draw_statistics();
  void draw_series();
  void draw_legend();
  void draw_help();
  void save_screenshot(const std::filesystem::path& png);
  void print_render_rate() const;

  ViewerOptions options_;
  GLFWwindow* window_ = nullptr;
  // A finished frame wakes the event loop, which may be waiting for input.
  RenderWorker worker_{[] { glfwPostEmptyEvent(); }};

  std::shared_ptr<const Scene> scene_;
  std::filesystem::path scene_path_;
  // A capture (.tcap) instead of a scene (docs/replay.md): the frame replayed up to draw scrub_.
  std::shared_ptr<const capture::Capture> tcap_;
  int tcap_frame_ = 0;
  int scrub_ = 0;
  std::shared_ptr<const replay::FrameReplay> replay_;  // the shown frame's replay
  Camera camera_;                                      // current view
  Camera home_camera_;                                 // view of a freshly loaded scene (R returns to it)
  static constexpr int kCommandLineView = -1;
  int view_index_ = 0;  // 0: scene camera, i: Scene::cameras[i - 1], kCommandLineView: --camera
  CameraMode mode_ = CameraMode::orbit;
  float fly_speed_ = 1.0f;  // world units per second
  Config config_;
  float scale_ = 1.0f;
  bool continuous_ = false;
  bool dirty_ = true;                               // the view or settings changed since the last request
  int requested_width_ = 0, requested_height_ = 0;  // frame size of the last request

  std::unique_ptr<GlTexture> frame_texture_, overlay_texture_;
  std::shared_ptr<const Frame> frame_;
  Camera frame_camera_;  // camera the shown frame was rendered with
  Stats frame_stats_;    // the shown frame's stats plus frame.scene
  std::vector<StatsNode> stats_tree_;
  StatsHistory history_;
  uint64_t frames_done_ = 0;       // renders the worker finished, as of the shown frame
  uint64_t frames_requested_ = 0;  // requests submitted (a screenshot's one renders --frames times)

  OverlayKind overlay_;
  float overlay_opacity_ = 1.0f;
  std::optional<Legend> legend_;

  bool show_help_ = false;
  std::string scene_error_, render_error_, screenshot_message_;
  char scene_text_[1024] = {};
  char shot_text_[1024] = {};
  std::optional<std::filesystem::path> capture_;  // write a screenshot after this UI frame draws
  int settle_frames_ = -1;                        // screenshot mode: countdown to the capture
  bool failed_ = false;
};

bool Viewer::open_window() {
  if (!glfwInit()) {
    std::cerr << "tessera: error: view: cannot open a window (" << glfw_error("no display")
              << "); on a machine without a display run it under xvfb-run\n";
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  window_ = glfwCreateWindow(options_.window_width, options_.window_height, "Tessera", nullptr, nullptr);
  if (!window_) {
    std::cerr << "tessera: error: view: cannot create an OpenGL 3.3 core window (" << glfw_error("unknown reason")
              << ")\n";
    glfwTerminate();
    return false;
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(screenshot_mode() ? 0 : 1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // panel layout is not persisted: every start looks the same
  // A scripted screenshot ignores the pointer: wherever the X server left it, no hover or drag
  // changes the picture.
  if (screenshot_mode()) io.ConfigFlags |= ImGuiConfigFlags_NoMouse;
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w = 0.88f;
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  frame_texture_ = std::make_unique<GlTexture>();
  overlay_texture_ = std::make_unique<GlTexture>();
  return true;
}

void Viewer::close_window() {
  if (!window_) return;
  worker_.clear_wake();  // a frame still rendering must not wake a terminated GLFW
  frame_texture_.reset();
  overlay_texture_.reset();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
  window_ = nullptr;
}

// Loads a scene; on failure keeps the previous one and records the error for the UI.
bool Viewer::load(const std::filesystem::path& path, bool initial) {
  try {
    if (path.extension() == ".tcap") {
      auto cap = std::make_shared<const capture::Capture>(capture::read_capture(path));
      if (cap->frames.empty()) throw Error(path.string() + ": the capture holds no frame");
      tcap_frame_ = initial ? int(options_.capture_frame) : 0;
      if (size_t(tcap_frame_) >= cap->frames.size()) {
        throw Error(path.string() + ": frame " + std::to_string(tcap_frame_) + " does not exist (the capture holds " +
                    std::to_string(cap->frames.size()) + ")");
      }
      const size_t draws = cap->frames[size_t(tcap_frame_)].draws.size();
      scrub_ = int(draws ? draws - 1 : 0);
      if (initial && options_.last_draw) scrub_ = int(std::min(*options_.last_draw, draws ? draws - 1 : 0));
      tcap_ = std::move(cap);
      scene_.reset();
      replay_.reset();
      scene_path_ = path;
      history_.clear();
      scene_error_.clear();
      dirty_ = true;
      if (window_) glfwSetWindowTitle(window_, ("Tessera: " + path.string()).c_str());
      return true;
    }
    auto scene = std::make_shared<Scene>(load_scene(path));
    Camera camera = scene->camera;
    view_index_ = 0;
    if (initial && options_.pick_camera) {
      camera = options_.pick_camera(*scene);
      view_index_ = kCommandLineView;
    }
    scene_ = std::move(scene);
    tcap_.reset();
    replay_.reset();
    scene_path_ = path;
    camera_ = home_camera_ = camera;
    fly_speed_ = std::max(0.01f, camera_distance(camera_) * 0.5f);
    history_.clear();
    scene_error_.clear();
    dirty_ = true;
    if (window_) glfwSetWindowTitle(window_, ("Tessera: " + path.string()).c_str());
    return true;
  } catch (const std::exception& e) {
    scene_error_ = e.what();
    return false;
  }
}

void Viewer::take_results() {
  std::optional<RenderResult> result = worker_.take_result();
  if (!result) return;
  if (!result->frame) {
    render_error_ = result->error;
    if (screenshot_mode()) {
      std::cerr << "tessera: error: view: " << render_error_ << "\n";
      failed_ = true;
    }
    return;
  }
  render_error_.clear();
  frame_ = result->frame;
  frame_camera_ = result->camera;
  frame_stats_ = frame_->stats;
  frame_stats_.set(result->replay ? "capture.file" : "frame.scene", scene_path_.string());
  replay_ = result->replay;
  stats_tree_ = build_stats_tree(frame_stats_);
  history_.add(frame_stats_);
  frame_texture_->upload(frame_->color, scale_ >= 1.0f);
  rebuild_overlay();
  // Counted by the worker: a result the window had no time to show still counts.
  frames_done_ = result->renders_finished;
  if (screenshot_mode() && frames_done_ >= uint64_t(options_.frames) && settle_frames_ < 0)
    settle_frames_ = kCaptureSettleFrames;
}

void Viewer::rebuild_overlay() {
  legend_.reset();
  if (!frame_) return;
  std::optional<Overlay> overlay = build_overlay(overlay_, *frame_, frame_camera_);
  if (!overlay) return;
  overlay_texture_->upload(overlay->image, true);
  legend_ = overlay->legend;
}

// Whether this UI frame has input ImGui or the camera reacts to (pointer moved, button, wheel,
// key, text, window size).
bool Viewer::input_seen() const {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0 || io.MouseWheel != 0 || io.MouseWheelH != 0) return true;
  if (!io.InputQueueCharacters.empty()) return true;
  for (bool down : io.MouseDown) {
    if (down) return true;
  }
  for (bool down : io.KeysDown) {
    if (down) return true;
  }
  return false;
}

void Viewer::handle_input(double dt) {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_C, false))
      mode_ = mode_ == CameraMode::orbit ? CameraMode::fly : CameraMode::orbit;
    if (ImGui::IsKeyPressed(GLFW_KEY_H, false) || ImGui::IsKeyPressed(GLFW_KEY_F1, false)) show_help_ = !show_help_;
    if (ImGui::IsKeyPressed(GLFW_KEY_O, false)) {
      overlay_ = OverlayKind((int(overlay_) + 1) % int(kOverlays.size()));
      rebuild_overlay();
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_R, false) && scene_) {
      camera_ = home_camera_;
      dirty_ = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) capture_ = std::filesystem::path(shot_text_);
    // The capture's draw scrubber: left/right step one draw, Home/End the ends.
    if (tcap_) {
      const int draws = int(tcap_->frames[size_t(tcap_frame_)].draws.size());
      const int before = scrub_;
      if (ImGui::IsKeyPressed(GLFW_KEY_LEFT, true)) scrub_ = std::max(0, scrub_ - 1);
      if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT, true)) scrub_ = std::min(std::max(draws - 1, 0), scrub_ + 1);
      if (ImGui::IsKeyPressed(GLFW_KEY_HOME, false)) scrub_ = 0;
      if (ImGui::IsKeyPressed(GLFW_KEY_END, false)) scrub_ = std::max(draws - 1, 0);
      if (scrub_ != before) dirty_ = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) glfwSetWindowShouldClose(window_, GLFW_TRUE);
  }
  if (!scene_) return;
  CameraInput in;
  in.dt = float(dt);
  if (!io.WantCaptureMouse && ImGui::IsMousePosValid()) {
    in.mouse_dx = io.MouseDelta.x;
    in.mouse_dy = io.MouseDelta.y;
    in.left = io.MouseDown[0];
    in.right = io.MouseDown[1];
    in.middle = io.MouseDown[2];
    in.wheel = io.MouseWheel;
  }
  if (!io.WantCaptureKeyboard && mode_ == CameraMode::fly) {
    auto down = [this](int key) { return glfwGetKey(window_, key) == GLFW_PRESS; };
    in.forward = down(GLFW_KEY_W);
    in.back = down(GLFW_KEY_S);
    in.left_key = down(GLFW_KEY_A);
    in.right_key = down(GLFW_KEY_D);
    in.down = down(GLFW_KEY_Q);
    in.up = down(GLFW_KEY_E);
    in.fast = down(GLFW_KEY_LEFT_SHIFT) || down(GLFW_KEY_RIGHT_SHIFT);
  }
  // Mouse deltas are in window coordinates, like DisplaySize.
  const int view_height = int(io.DisplaySize.y);
  const bool moved =
      mode_ == CameraMode::orbit ? apply_orbit(camera_, in, view_height) : apply_fly(camera_, in, fly_speed_);
  if (moved) dirty_ = true;
}

void Viewer::submit_if_needed() {
  if ((!scene_ && !tcap_) || failed_) return;
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  if (fb_w <= 0 || fb_h <= 0) return;  // minimised
  Config config = config_;
  config.frame.width = scaled_size(fb_w, scale_);
  config.frame.height = scaled_size(fb_h, scale_);
  // A new window size is requested once, when the worker is free: a resize drag does not
  // queue a frame per intermediate size. Rendering continuously the worker is never free: the
  // new size replaces the request waiting, if any, and the frame in flight finishes first.
  const bool resized = config.frame.width != requested_width_ || config.frame.height != requested_height_;
  if (!dirty_ && !(resized && (continuous_ || !worker_.busy()))) return;
  if (screenshot_mode() && frames_requested_ > 0) return;  // its one request renders --frames times
  try {
    validate_config(config);
  } catch (const std::exception& e) {
    render_error_ = e.what();
    requested_width_ = config.frame.width;
    requested_height_ = config.frame.height;
    dirty_ = false;
    worker_.stop_repeating();  // rendering continuously: not the old settings on and on
    return;
  }
  RenderRequest request{scene_, camera_, config, nullptr, 0, std::nullopt};
  // Frames wanted back to back (render continuously, a screenshot's --frames) are repeats of one
  // request: the worker goes from one frame straight to the next instead of idling until this
  // loop takes the result and asks again. A newer request replaces it.
  request.renders = screenshot_mode() ? uint64_t(options_.frames) : continuous_ ? 0 : 1;
  if (tcap_) {
    request.capture = tcap_;
    request.capture_frame = size_t(tcap_frame_);
    request.last_draw = size_t(scrub_);
  }
  worker_.submit(std::move(request));
  ++frames_requested_;
  requested_width_ = config.frame.width;
  requested_height_ = config.frame.height;
  dirty_ = false;
}

void Viewer::draw_frame() {
  if (!frame_ || frame_texture_->empty()) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const ImVec2 window = ImGui::GetIO().DisplaySize;
  ImVec2 origin(0, 0), size = window;
  if (tcap_) {
    // A capture has its own size: fitted into the window, aspect kept, centred.
    const float fit = std::min(window.x / float(frame_->color.width), window.y / float(frame_->color.height));
    size = ImVec2(float(frame_->color.width) * fit, float(frame_->color.height) * fit);
    origin = ImVec2((window.x - size.x) * 0.5f, (window.y - size.y) * 0.5f);
  }
  const ImVec2 end(origin.x + size.x, origin.y + size.y);
  dl->AddImage(frame_texture_->imgui_id(), origin, end);
  if (legend_ && !overlay_texture_->empty()) {
    dl->AddImage(overlay_texture_->imgui_id(), origin, end, ImVec2(0, 0), ImVec2(1, 1),
                 ImGui::GetColorU32(ImVec4(1, 1, 1, overlay_opacity_)));
  }
}

// The capture's header, frame and draw scrubber, and what the units did with the scrubbed draw.
void Viewer::draw_capture_controls() {
  if (!ImGui::CollapsingHeader("Capture", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const capture::Capture& cap = *tcap_;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("%s on %s (%s)", cap.application.empty() ? "(unnamed application)" : cap.application.c_str(),
              cap.device.c_str(), cap.driver.c_str());
  ImGui::PopTextWrapPos();
  if (cap.frames.size() > 1) {
    if (ImGui::SliderInt("frame", &tcap_frame_, 0, int(cap.frames.size()) - 1)) {
      const size_t draws = cap.frames[size_t(tcap_frame_)].draws.size();
      scrub_ = int(draws ? draws - 1 : 0);
      dirty_ = true;
    }
  }
  const capture::Frame& f = cap.frames[size_t(tcap_frame_)];
  ImGui::Text("frame number %llu: %zu render passes, %zu draws", static_cast<unsigned long long>(f.number),
              f.passes.size(), f.draws.size());
  if (f.draws.empty()) return;
  if (ImGui::SliderInt("draw", &scrub_, 0, int(f.draws.size()) - 1)) dirty_ = true;
  ImGui::TextDisabled("replays draws 0..%d (left/right step); overlay \"Capture: scrubbed draw\" shows it", scrub_);
  if (!replay_ || size_t(scrub_) >= replay_->draws.size()) return;
  const replay::DrawReport& d = replay_->draws[size_t(scrub_)];
  if (!d.replayed) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "draw %d not replayed: %s", scrub_, d.skip_reason.c_str());
    return;
  }
  const DrawWork& w = d.work;
  if (ImGui::BeginTable("draw", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    auto row = [](const char* name, uint64_t v) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(name);
      ImGui::TableSetColumnIndex(1);
      ImGui::Text("%llu", static_cast<unsigned long long>(v));
    };
    row("render pass", d.pass);
    row("triangles captured", d.triangles);
    row("vertices (distinct)", d.vertices);
    row("primitives in", w.primitives_in);
    row("culled", w.culled);
    row("  outside the view volume", w.culled_frustum);
    row("  by facing", w.culled_facing);
    row("  outside the scissor", w.culled_scissor);
    row("clipped", w.clipped);
    row("after clipping", w.after_clipping());
    row("set up", w.setup);
    row("pixels covered", w.fragments_covered);
    row("samples passing depth", w.depth_passed);
    row("samples failing depth", w.samples_covered - w.depth_passed);
    row("tiles touched", w.tiles_touched);
    row("PICB contribution", w.picb);
    row("VS instructions (captured)", d.vertex_instructions);
    row("FS instructions (captured)", d.fragment_instructions);
    row("FS invocations", w.fs_invocations);
    ImGui::EndTable();
  }
}

void Viewer::draw_controls() {
  ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(panel_width(), 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Tessera");
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 10.0f);  // room for the config key names
  // Status line: what is shown and whether a newer frame is on its way.
  if (worker_.busy()) {
    static const char spinner[] = "|/-\\";
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "%c rendering... %.2f s", spinner[int(ImGui::GetTime() * 8) % 4],
                       worker_.busy_seconds());
  } else if (frame_) {
    ImGui::TextColored(ImVec4(0.5f, 0.9f, 0.5f, 1.0f), "ready");
  } else {
    ImGui::TextDisabled("no frame yet");
  }
  if (frame_) {
    ImGui::SameLine();
    ImGui::Text("%dx%d, %.1f ms, frame %llu", frame_->color.width, frame_->color.height,
                frame_stats_.has("frame.time_ms.total") ? frame_stats_.get_number("frame.time_ms.total") : 0.0,
                static_cast<unsigned long long>(frames_done_));
  }
  // The worker's own rate: frames finished per second of wall time, gaps between frames included.
  const RenderRate::Reading rate = worker_.rate().recent(RenderRate::Clock::now());
  if (rate.frames_per_second > 0) {
    ImGui::TextWrapped("render worker: %.1f frames/s, %.1f ms per frame, busy %.0f%%", rate.frames_per_second,
                       rate.ms_per_render, 100.0 * rate.busy_share);
  }
  if (!render_error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "render: %s", render_error_.c_str());

  if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::SetNextItemWidth(-60.0f);
    const bool enter =
        ImGui::InputText("##scene", scene_text_, sizeof scene_text_, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Load") || enter) load(scene_text_, false);
    if (!scene_error_.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", scene_error_.c_str());
      if (scene_) ImGui::TextDisabled("(still showing %s)", scene_path_.string().c_str());
      ImGui::PopTextWrapPos();
    }
    if (scene_) {
      ImGui::Text("%zu instances, %zu triangles", scene_->instances.size(), scene_->triangle_count());
      if (!scene_->patch_instances.empty()) {
        size_t patches = 0;
        for (const PatchInstance& p : scene_->patch_instances)
          patches += scene_->patch_meshes[p.patch_mesh].patch_count();
        ImGui::Text("%zu patch instances, %zu patches", scene_->patch_instances.size(), patches);
      }
      if (!scene_->cameras.empty()) {
        auto label = [this](int i) {
          if (i == kCommandLineView) return std::string("--camera view");
          if (i == 0) return std::string("scene camera");
          const Camera& c = scene_->cameras[size_t(i - 1)];
          return c.name.empty() ? "camera " + std::to_string(i - 1) : c.name;
        };
        if (ImGui::BeginCombo("view", label(view_index_).c_str())) {
          for (int i = 0; i <= int(scene_->cameras.size()); ++i) {
            if (ImGui::Selectable(label(i).c_str(), i == view_index_)) {
              view_index_ = i;
              camera_ = home_camera_ = i == 0 ? scene_->camera : scene_->cameras[size_t(i - 1)];
              dirty_ = true;
            }
          }
          ImGui::EndCombo();
        }
      }
    }
  }

  if (tcap_) draw_capture_controls();

  if (!tcap_ && ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) {
    int mode = int(mode_);
    ImGui::RadioButton("orbit", &mode, int(CameraMode::orbit));
    ImGui::SameLine();
    ImGui::RadioButton("fly", &mode, int(CameraMode::fly));
    ImGui::SameLine();
    ImGui::TextDisabled("(C toggles)");
    mode_ = CameraMode(mode);
    if (mode_ == CameraMode::fly) {
      ImGui::SliderFloat("speed", &fly_speed_, 0.01f, 1000.0f, "%.2f units/s", ImGuiSliderFlags_Logarithmic);
    }
    ImGui::Text("eye %.2f, %.2f, %.2f", double(camera_.position.x), double(camera_.position.y),
                double(camera_.position.z));
    ImGui::Text("at  %.2f, %.2f, %.2f", double(camera_.target.x), double(camera_.target.y), double(camera_.target.z));
    if (ImGui::Button("Reset view (R)") && scene_) {
      camera_ = home_camera_;
      dirty_ = true;
    }
  }

  if (ImGui::CollapsingHeader("Config", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (ImGui::SliderFloat("resolution scale", &scale_, kMinScale, kMaxScale, "%.2f x window")) {
      scale_ = std::clamp(scale_, kMinScale, kMaxScale);
      dirty_ = true;
      if (frame_) frame_texture_->upload(frame_->color, scale_ >= 1.0f);
    }
    const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
    if (ImGui::SliderInt("frame.threads", &config_.frame.threads, 0, hardware,
                         config_.frame.threads == 0 ? "0 (all)" : "%d")) {
      config_.frame.threads = std::clamp(config_.frame.threads, 0, 1024);
      dirty_ = true;
    }
    int tile = config_.raster.tile_size;
    if (ImGui::InputInt("raster.tile_size", &tile, 8, 64)) {
      config_.raster.tile_size = std::clamp((tile + 4) / 8 * 8, 8, 1024);
      dirty_ = true;
    }
    // How pixels are made (docs/rt.md, Rendering): the raster path, rays, or both.
    if (ImGui::BeginCombo("frame.mode", choice_name(config_.frame.mode).data())) {
      for (size_t i = 0; i < Choices<FrameMode>::names.size(); ++i) {
        const FrameMode mode = FrameMode(i);
        if (ImGui::Selectable(choice_name(mode).data(), config_.frame.mode == mode)) {
          config_.frame.mode = mode;
          dirty_ = true;
        }
      }
      ImGui::EndCombo();
    }
    if (config_.frame.mode != FrameMode::raster) {
      if (ImGui::Checkbox("trace.shadows", &config_.trace.shadows)) dirty_ = true;
      if (ImGui::Checkbox("trace.reflections", &config_.trace.reflections)) dirty_ = true;
      if (ImGui::SliderInt("trace.diffuse_samples", &config_.trace.diffuse_samples, 0, 64)) {
        config_.trace.diffuse_samples = std::clamp(config_.trace.diffuse_samples, 0, 64);
        dirty_ = true;
      }
      // LOD nodes (scenes with lod_groups): off, per ray, or one level per object.
      if (ImGui::Checkbox("rt.lod", &config_.rt.lod)) dirty_ = true;
      bool per_object = config_.rt.lod_selection == LodSelection::object;
      if (ImGui::Checkbox("rt.lod_selection object", &per_object)) {
        config_.rt.lod_selection = per_object ? LodSelection::object : LodSelection::ray;
        dirty_ = true;
      }
    }
    // Tiling: what the raster path renders (pixels never change, the tiling stats do).
    bool adaptive = config_.tiling.mode == TilingMode::adaptive;
    if (ImGui::Checkbox("tiling.mode adaptive (supertiles)", &adaptive)) {
      config_.tiling.mode = adaptive ? TilingMode::adaptive : TilingMode::fixed;
      dirty_ = true;
    }
    float alpha = float(config_.tiling.alpha);
    if (ImGui::SliderFloat("tiling.alpha", &alpha, 0.0f, 1.0f, "%.2f")) {
      config_.tiling.alpha = std::clamp(double(alpha), 0.0, 1.0);
      dirty_ = true;
    }
    int buffer_kib = config_.tiling.tile_buffer_bytes / 1024;
    if (ImGui::SliderInt("tiling.tile_buffer KiB", &buffer_kib, 1, 4096, "%d KiB", ImGuiSliderFlags_Logarithmic)) {
      config_.tiling.tile_buffer_bytes = std::clamp(buffer_kib, 1, 4096) * 1024;
      dirty_ = true;
    }
    // Tessellation: the GPP count changes counters only; the GPP map replaces the shading.
    if (ImGui::SliderInt("tessellation.gpps", &config_.tessellation.gpps, 1, 16)) {
      config_.tessellation.gpps = std::clamp(config_.tessellation.gpps, 1, 16);
      dirty_ = true;
    }
    if (ImGui::Checkbox("tessellation.gpp_map (colour by GPP)", &config_.tessellation.gpp_map)) dirty_ = true;
    if (ImGui::Checkbox("raster.cull_backface", &config_.raster.cull_backface)) dirty_ = true;
    if (ImGui::DragFloat("raster.guard_band", &config_.raster.guard_band, 16.0f, 0.0f, 32768.0f, "%.0f px",
                         ImGuiSliderFlags_AlwaysClamp)) {
      dirty_ = true;
    }
    if (ImGui::Checkbox("raster.store_depth", &config_.raster.store_depth)) dirty_ = true;
    static constexpr int kSampleCounts[] = {1, 2, 4, 8};
    if (ImGui::BeginCombo("raster.msaa", (std::to_string(config_.raster.msaa) + "x").c_str())) {
      for (int samples : kSampleCounts) {
        if (ImGui::Selectable((std::to_string(samples) + "x").c_str(), samples == config_.raster.msaa)) {
          config_.raster.msaa = samples;
          dirty_ = true;
        }
      }
      ImGui::EndCombo();
    }
    // Colour cache (used with MSAA). Sizes move in whole sets so the config stays valid.
    if (config_.raster.msaa > 1) {
      int kib = config_.color.cache_bytes / 1024;
      if (ImGui::SliderInt("color.cache KiB", &kib, 1, 1024, "%d KiB", ImGuiSliderFlags_Logarithmic)) {
        const int set_bytes = config_.color.line_bytes * config_.color.ways;
        config_.color.cache_bytes = std::max(set_bytes, kib * 1024 / set_bytes * set_bytes);
        dirty_ = true;
      }
      static constexpr int kLineBytes[] = {64, 128};
      if (ImGui::BeginCombo("color.line_bytes", std::to_string(config_.color.line_bytes).c_str())) {
        for (int bytes : kLineBytes) {
          if (ImGui::Selectable(std::to_string(bytes).c_str(), bytes == config_.color.line_bytes)) {
            config_.color.line_bytes = bytes;
            const int set_bytes = bytes * config_.color.ways;
            config_.color.cache_bytes = std::max(set_bytes, config_.color.cache_bytes / set_bytes * set_bytes);
            dirty_ = true;
          }
        }
        ImGui::EndCombo();
      }
      int ways = config_.color.ways;
      if (ImGui::SliderInt("color.ways", &ways, 1, 16)) {
        config_.color.ways = ways;
        const int set_bytes = config_.color.line_bytes * ways;
        config_.color.cache_bytes = std::max(set_bytes, config_.color.cache_bytes / set_bytes * set_bytes);
        dirty_ = true;
      }
    }
    if (ImGui::Checkbox("render continuously", &continuous_)) {
      if (continuous_)
        dirty_ = true;
      else
        worker_.stop_repeating();
    }
  }

  if (ImGui::CollapsingHeader("Overlay", ImGuiTreeNodeFlags_DefaultOpen)) {
    const OverlayInfo& current = kOverlays[size_t(overlay_)];
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6.0f);
    if (ImGui::BeginCombo("##overlay", current.name)) {
      for (const OverlayInfo& info : kOverlays) {
        if (ImGui::Selectable(info.name, info.kind == overlay_)) {
          overlay_ = info.kind;
          rebuild_overlay();
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.description);
      }
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(O cycles)");
    if (overlay_ != OverlayKind::none) ImGui::SliderFloat("opacity", &overlay_opacity_, 0.0f, 1.0f, "%.2f");
  }

  if (ImGui::CollapsingHeader("Screenshot")) {
    ImGui::SetNextItemWidth(-60.0f);
    ImGui::InputText("##shot", shot_text_, sizeof shot_text_);
    ImGui::SameLine();
    if (ImGui::Button("Save")) capture_ = std::filesystem::path(shot_text_);
    if (!screenshot_message_.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextUnformatted(screenshot_message_.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  if (ImGui::Button("Help (H)")) show_help_ = !show_help_;
  ImGui::PopItemWidth();
  ImGui::End();
}

void Viewer::draw_statistics() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x - panel_width() - 8, 8), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(panel_width(), display.y * 0.62f - 12), ImGuiCond_FirstUseEver);
  ImGui::Begin("Statistics (last frame)");
  if (stats_tree_.empty()) {
    ImGui::TextDisabled("No frame rendered yet.");
  } else {
    if (ImGui::CollapsingHeader("Timing model", ImGuiTreeNodeFlags_DefaultOpen)) draw_timing_bars(frame_stats_);
    draw_stats_tree(stats_tree_);
  }
  ImGui::End();
}

void Viewer::draw_series() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x - panel_width() - 8, display.y * 0.62f + 4), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(panel_width(), display.y * 0.38f - 12), ImGuiCond_FirstUseEver);
  ImGui::Begin("Per-frame series");
  draw_stats_history(history_);
  ImGui::End();
}

void Viewer::draw_legend() {
  if (!legend_) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y - 8), ImGuiCond_Always, ImVec2(0.5f, 1.0f));
  ImGui::Begin("Legend", nullptr,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing);
  ImGui::TextUnformatted(legend_->title.c_str());
  if (!legend_->categories.empty()) {
    uint64_t total = 0;
    for (const LegendEntry& e : legend_->categories) total += e.count;
    for (const LegendEntry& e : legend_->categories) {
      const float size = ImGui::GetFontSize();
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + size, p.y + size), ImU32(e.color | 0xff000000u));
      ImGui::Dummy(ImVec2(size, size));
      ImGui::SameLine();
      ImGui::Text("%-22s %8llu  %5.1f%%", e.name.c_str(), (unsigned long long)e.count,
                  total ? 100.0 * double(e.count) / double(total) : 0.0);
    }
    ImGui::End();
    return;
  }
  const float width = 260.0f, height = ImGui::GetFontSize();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  constexpr int kSegments = 32;
  for (int i = 0; i < kSegments; ++i) {
    const ImU32 a = heat_ramp(float(i) / kSegments), b = heat_ramp(float(i + 1) / kSegments);
    const float x0 = p.x + width * float(i) / kSegments, x1 = p.x + width * float(i + 1) / kSegments;
    dl->AddRectFilledMultiColor(ImVec2(x0, p.y), ImVec2(x1, p.y + height), a, b, b, a);
  }
  ImGui::Dummy(ImVec2(width, height));
  char lo[32], hi[32];
  std::snprintf(lo, sizeof lo, "%.6g", legend_->min);
  std::snprintf(hi, sizeof hi, "%.6g", legend_->max);
  ImGui::TextUnformatted(lo);
  ImGui::SameLine(width - ImGui::CalcTextSize(hi).x + ImGui::GetStyle().WindowPadding.x);
  ImGui::TextUnformatted(hi);
  ImGui::End();
}

void Viewer::draw_help() {
  if (!show_help_) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::Begin("Help", &show_help_, ImGuiWindowFlags_AlwaysAutoResize);
  if (ImGui::BeginTable("controls", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    for (const ControlHelp& c : kControlHelp) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.input);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.action);
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

// Writes the frame buffer exactly as rendered, the window as drawn (read back before the
// buffer swap) and the frame's stats.
void Viewer::save_screenshot(const std::filesystem::path& png) {
  if (!frame_) {
    screenshot_message_ = "nothing rendered yet";
    return;
  }
  const std::filesystem::path window_png = window_screenshot_path(png), stats_json = stats_screenshot_path(png);
  try {
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window_, &fb_w, &fb_h);
    const Image window = read_window(fb_w, fb_h);
    std::error_code ec;
    if (png.has_parent_path()) std::filesystem::create_directories(png.parent_path(), ec);
    write_png(png, frame_->color);
    write_png(window_png, window);
    write_text_atomically(stats_json, frame_stats_.to_json_text() + "\n");
    screenshot_message_ = "wrote " + png.string() + ", " + window_png.string() + " and " + stats_json.string();
  } catch (const std::exception& e) {
    screenshot_message_ = std::string("screenshot failed: ") + e.what();
    if (screenshot_mode()) failed_ = true;
  }
  if (screenshot_mode()) std::cerr << (failed_ ? "tessera: error: view: " : "") << screenshot_message_ << "\n";
}

// Screenshot mode: how fast the worker rendered the --frames frames, for the terminal.
void Viewer::print_render_rate() const {
  const RenderRate::Reading r = worker_.rate().overall();
  std::fprintf(stderr, "render worker: %zu frames in %.3f s, %.2f frames/s, %.2f ms per frame, busy %.1f%%\n",
               r.renders, r.frames_per_second > 0 ? double(r.renders) / r.frames_per_second : 0.0, r.frames_per_second,
               r.ms_per_render, 100.0 * r.busy_share);
}

int Viewer::run() {
  if (screenshot_mode()) {
    // Bad input fails before any window opens, with the file named.
    if (!load(options_.scene, true)) {
      std::cerr << "tessera: error: " << scene_error_ << "\n";
      return 1;
    }
  }
  if (!open_window()) return 1;
  if (!screenshot_mode()) load(options_.scene, true);

  double last = glfwGetTime();
  double last_input = last;
  ImVec2 last_display(0, 0);
  while (!glfwWindowShouldClose(window_)) {
    // Screenshot mode has no input: it redraws for each finished frame, like a window rendering
    // continuously, and at the fixed tick for its first request and its settle frames.
    const bool idle =
        screenshot_mode() ? frames_requested_ > 0 && settle_frames_ < 0 : last - last_input > kInputSettleSeconds;
    glfwWaitEventsTimeout(idle ? kIdleWaitSeconds : kUiFrameSeconds);
    const double now = glfwGetTime();
    // After an idle wait the camera moves one tick's worth, not the wait's.
    const double dt = idle ? std::min(now - last, kUiFrameSeconds) : now - last;
    last = now;

    take_results();
    if (failed_) break;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    if (input_seen() || display.x != last_display.x || display.y != last_display.y) last_input = now;
    last_display = display;
    handle_input(dt);
    submit_if_needed();
    draw_frame();
    draw_controls();
    draw_statistics();
    draw_series();
    draw_legend();
    draw_help();
    ImGui::Render();

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window_, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    if (screenshot_mode() && settle_frames_ >= 0 && settle_frames_-- == 0) {
      save_screenshot(options_.screenshot);
      print_render_rate();
      break;
    }
    if (capture_) {
      save_screenshot(*capture_);
      capture_.reset();
    }
    glfwSwapBuffers(window_);
  }
  close_window();
  return failed_ ? 1 : 0;
}

}  // namespace

int scaled_size(int window_pixels, float scale) {
  return std::max(1, int(std::lround(double(window_pixels) * double(scale))));
}

std::filesystem::path window_screenshot_path(const std::filesystem::path& png) {
  std::filesystem::path out = png;
  out.replace_filename(png.stem().string() + ".window" + png.extension().string());
  return out;
}

std::filesystem::path stats_screenshot_path(const std::filesystem::path& png) {
  std::filesystem::path out = png;
  out.replace_extension(".stats.json");
  return out;
}

int run_viewer(const ViewerOptions& options) {
#if defined(__GLIBC__)
  // Every frame allocates its colour and depth anew (3.7 MB each at 1280x720) and the window
  // frees the frame it replaces. By default glibc hands blocks that size back to the kernel
  // (its mmap threshold, then heap trimming), so each frame faulted ~1,600 fresh pages in again
  // (about 4 ms of a core). Blocks under 32 MB stay in the heap and are reused; the price is
  // that the process keeps its peak heap.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  Viewer viewer(options);
  return viewer.run();
}

}  // namespace tessera::viewer
