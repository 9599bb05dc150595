// `tessera bench layer`: frame time of real Vulkan programs with no layer, with
// VK_LAYER_TESSERA_stats, with MangoHud and with Mesa's overlay layer, in one run
// (docs/layer.md, "Benchmark"). Two programs: vkcube (presents; timed from outside as the
// difference of two frame counts, which cancels process start-up) and the layer's test
// application in `bench` mode (headless; times its own frames). Configurations are interleaved
// across repetitions and medians taken, because the machine running it is usually shared.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "files.h"
#include "tessera/error.h"

extern char** environ;

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kLavapipeIcd = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
constexpr int kVkcubeAttempts = 5;

// Environment changes for a child: a value sets the variable, nullopt removes it.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

struct ProcessResult {
  int exit_code = -1;  // -1: killed by a signal or not started
  bool timed_out = false;
  double seconds = 0;      // fork to exit
  double cpu_seconds = 0;  // user + system time of the child, all its threads
  std::string out, err;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tail(const std::string& text, size_t max_chars = 400) {
  std::string t = text.size() > max_chars ? text.substr(text.size() - max_chars) : text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

std::optional<fs::path> find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path p = fs::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

std::vector<std::string> child_environment(const EnvChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (!changes.count(key)) env.push_back(kv);
  }
  for (const auto& [key, value] : changes)
    if (value) env.push_back(key + "=" + *value);
  return env;
}

// Runs argv[0] (a path) with the changed environment, stdout and stderr to files in tmp,
// stdin from /dev/null; killed after timeout_s. The time is wall time from fork to exit.
ProcessResult run_process(const std::vector<std::string>& argv, const EnvChanges& changes, double timeout_s,
                          const fs::path& tmp) {
  ProcessResult r;
  const fs::path out_path = tmp / "stdout", err_path = tmp / "stderr";
  const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out_fd < 0 || err_fd < 0 || null_fd < 0)
    throw Error("tessera bench layer: cannot create files in " + tmp.string());
  // Everything the child needs is built before fork (only async-signal-safe calls after it).
  const std::vector<std::string> env = child_environment(changes);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    ::execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  ::close(out_fd), ::close(err_fd), ::close(null_fd);
  if (pid < 0) throw Error(std::string("tessera bench layer: fork failed: ") + std::strerror(errno));
  // A watchdog thread rather than polling waitpid, so the wait itself costs nothing.
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return done; })) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
    }
  });
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_seconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  {
    std::lock_guard lock(m);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

std::string failure_text(const ProcessResult& r, const std::string& what) {
  if (r.timed_out) return what + " timed out";
  if (r.exit_code == 127) return what + " could not be started";
  std::string s =
      what + (r.exit_code < 0 ? " was killed by a signal" : " exited with status " + std::to_string(r.exit_code));
  const std::string t = tail(r.err);
  if (!t.empty()) s += ": " + t;
  return s;
}

// An X server for vkcube when there is no DISPLAY: Xvfb (what `xvfb-run -a` starts), started
// once for the whole run so its start-up is in no timing; it picks a free display itself
// (-displayfd), so concurrent runs cannot collide.
class VirtualDisplay {
 public:
  // Empty display() and a reason when Xvfb is missing or does not come up.
  VirtualDisplay() {
    const auto xvfb = find_in_path("Xvfb");
    if (!xvfb) {
      reason_ = "no DISPLAY and no Xvfb (Debian package xvfb)";
      return;
    }
    int fds[2];
    if (::pipe(fds) != 0) {
      reason_ = "pipe failed";
      return;
    }
    const std::string fd_text = std::to_string(fds[1]);
    const std::string xvfb_path = xvfb->string();
    const char* argv[] = {xvfb_path.c_str(), "-displayfd", fd_text.c_str(), "-nolisten", "tcp",
                          "-screen",         "0",          "1024x768x24",   nullptr};
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      const int null_fd = ::open("/dev/null", O_RDWR);
      ::dup2(null_fd, 0), ::dup2(null_fd, 1), ::dup2(null_fd, 2);
      ::execv(argv[0], const_cast<char**>(argv));
      _exit(127);
    }
    ::close(fds[1]);
    std::string number;
    pollfd p{fds[0], POLLIN, 0};
    // The server writes its display number and a newline once it accepts connections.
    while (pid_ > 0 && ::poll(&p, 1, 10000) > 0) {
      char c;
      if (::read(fds[0], &c, 1) != 1 || c == '\n') break;
      number += c;
    }
    ::close(fds[0]);
    if (number.empty()) {
      reason_ = "Xvfb did not start";
      stop();
      return;
    }
    display_ = ":" + number;
  }
  ~VirtualDisplay() { stop(); }
  VirtualDisplay(const VirtualDisplay&) = delete;
  VirtualDisplay& operator=(const VirtualDisplay&) = delete;
  const std::string& display() const { return display_; }
  const std::string& reason() const { return reason_; }

 private:
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  pid_t pid_ = -1;
  std::string display_, reason_;
};

// Layer manifests the loader would find in `kind` (implicit_layer.d / explicit_layer.d):
// the manifest naming `layer` whose library exists, or the reason there is none.
struct ManifestSearch {
  std::optional<fs::path> manifest;
  std::string reason;
};

ManifestSearch find_manifest(const std::vector<fs::path>& dirs, const std::string& layer) {
  ManifestSearch s;
  std::string looked;
  for (const fs::path& dir : dirs) {
    looked += (looked.empty() ? "" : ", ") + dir.string();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".json") continue;
      nlohmann::json j = nlohmann::json::parse(read_file(entry.path()), nullptr, false);
      if (j.is_discarded() || !j.contains("layer") || !j["layer"].is_object()) continue;
      const nlohmann::json& l = j["layer"];
      if (l.value("name", "") != layer) continue;
      const std::string lib = l.value("library_path", "");
      // A plain name is searched by dlopen and "$LIB" is expanded by it: only a path with a
      // folder and no such token can be checked here.
      if (lib.find('/') != std::string::npos && lib.find('$') == std::string::npos) {
        const fs::path lib_path = fs::path(lib).is_absolute() ? fs::path(lib) : entry.path().parent_path() / lib;
        if (!fs::exists(lib_path, ec)) {
          s.reason = entry.path().string() + " names a library that does not exist: " + lib_path.string();
          continue;
        }
      }
      s.manifest = entry.path();
      return s;
    }
  }
  if (s.reason.empty()) s.reason = "no manifest for " + layer + " in " + looked;
  return s;
}

// The loader's default search folders for layer manifests of one kind.
std::vector<fs::path> system_layer_dirs(const std::string& kind) {
  std::vector<fs::path> dirs;
  const char* home = std::getenv("HOME");
  const char* data_home = std::getenv("XDG_DATA_HOME");
  if (data_home && *data_home)
    dirs.push_back(fs::path(data_home) / "vulkan" / kind);
  else if (home && *home)
    dirs.push_back(fs::path(home) / ".local/share/vulkan" / kind);
  const char* data_dirs = std::getenv("XDG_DATA_DIRS");
  std::stringstream ss(data_dirs && *data_dirs ? data_dirs : "/usr/local/share:/usr/share");
  for (std::string d; std::getline(ss, d, ':');)
    if (!d.empty()) dirs.push_back(fs::path(d) / "vulkan" / kind);
  dirs.push_back(fs::path("/etc/vulkan") / kind);
  return dirs;
}

struct LayerConfig {
  std::string name;   // none, tessera, tessera_hud, mangohud, mesa_overlay
  std::string layer;  // the Vulkan layer name, empty for none
  EnvChanges env;
  std::string skip;  // why the configuration is not measured
};

struct Workload {
  std::string name;  // vkcube, layer_app
  std::vector<std::string> command;
  std::string skip;
  EnvChanges env;  // for every configuration of this workload
};

// Per workload and configuration: what was measured.
struct Cell {
  std::string failed;
  std::vector<double> frames_ms;        // layer_app: every timed frame of every repetition
  std::vector<double> repetition_ms;    // per repetition: median frame (layer_app), mean frame (vkcube)
  std::map<int, double> by_repetition;  // the same by repetition number, to pair with `none`
  int vkcube_retries = 0;               // vkcube pairs run again (non-positive difference)
  // Per repetition: CPU time per frame (user + system, every thread of the program). Unlike
  // wall time it hardly moves when other processes load the machine.
  std::map<int, double> cpu_by_repetition;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / double(v.size());
}

// Per repetition present in both: value / none's value in the same repetition.
std::vector<double> paired_ratios(const std::map<int, double>& values, const std::map<int, double>& none) {
  std::vector<double> out;
  for (const auto& [rep, v] : values) {
    const auto it = none.find(rep);
    if (it != none.end() && it->second > 0) out.push_back(v / it->second);
  }
  return out;
}

// The tracked goal from ratios to no layer by configuration: this layer's overhead <= 2% and
// below MangoHud's and the Mesa overlay's (those measured).
nlohmann::ordered_json goal_of(const std::map<std::string, double>& ratios) {
  nlohmann::ordered_json g;
  const double t = ratios.at("tessera");
  g["tessera_overhead"] = t - 1.0;
  g["max_overhead"] = 0.02;
  bool met = t - 1.0 <= 0.02;
  for (const std::string peer : {"mangohud", "mesa_overlay"}) {
    const auto it = ratios.find(peer);
    if (it == ratios.end()) {
      g["below_" + peer] = nullptr;
      continue;
    }
    g[peer + "_overhead"] = it->second - 1.0;
    g["below_" + peer] = t < it->second;
    met = met && t < it->second;
  }
  g["met"] = met;
  return g;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p * double(v.size() - 1);
  const size_t i = size_t(pos);
  const double f = pos - double(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

// The whole frame-time sample of a cell: frames for layer_app, repetitions for vkcube.
const std::vector<double>& samples(const Workload& w, const Cell& c) {
  return w.name == "layer_app" ? c.frames_ms : c.repetition_ms;
}

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1.0) * 100.0);
  return buf;
}

// --configs and --programs (kept here rather than in BenchArgs: only this suite reads them).
std::vector<std::string> g_selected_configs, g_selected_programs;

}  // namespace

void add_layer_bench_options(CLI::App* bench, BenchArgs& args) {
  bench
      ->add_option("--configs", g_selected_configs,
                   "layer: configurations to run (default: all; none, the peer of every ratio, always runs)")
      ->delimiter(',')
      ->check(CLI::IsMember({"none", "tessera", "tessera_hud", "mangohud", "mesa_overlay", "tessera_capture_outside",
                             "tessera_capture_every"}));
  bench->add_option("--programs", g_selected_programs, "layer: programs to run (default: vkcube,layer_app)")
      ->delimiter(',')
      ->check(CLI::IsMember({"vkcube", "layer_app"}));
  bench
      ->add_option("--frames", args.frames,
                   "layer: timed frames per program run (vkcube: extra frames over a short run)")
      ->check(CLI::Range(1, 100000));
  bench->add_option("--app", args.layer_app,
                    "layer: the layer's test application (default: tessera_layer_app next to this tessera binary)");
  bench->add_option(
      "--layer-prefix", args.layer_prefix,
      "layer: an install prefix of VK_LAYER_TESSERA_stats (default: the build tree this binary came from)");
  bench->add_option(
      "--driver", args.driver,
      "layer: Vulkan driver manifest (ICD JSON) to force, or 'system' for the loader's choice (default: lavapipe)");
}

// Frame capture (docs/layer.md "Frame capture"), two more configurations of the Tessera layer:
// capture set to frame 0 (a warm-up frame of layer_app, outside its timed frames: the overhead
// that stays once the capture frame is past), and every frame captured (the cost of a capture
// frame; each frame's file overwrites the last): copies of the `tessera` configuration.
void add_capture_configs(std::vector<LayerConfig>& configs, const fs::path& tmp) {
  const LayerConfig tessera = configs[1];
  for (const char* name : {"tessera_capture_outside", "tessera_capture_every"}) {
    LayerConfig c = tessera;
    c.name = name;
    c.env["TESSERA_LAYER_CAPTURE"] = std::string(name) == "tessera_capture_every" ? "every:1" : "0";
    c.env["TESSERA_LAYER_CAPTURE_PATH"] = (tmp / "bench_capture_{device}.tcap").string();
    configs.push_back(c);
  }
}

int run_layer_bench(const BenchArgs& args) {
  const int frames = args.frames;
  const int repetitions = std::max(1, args.repetitions);
  const int warmup = std::max(0, args.warmup);

  // Driver: lavapipe unless asked otherwise; a missing manifest is bad input.
  const std::string driver = args.driver.empty() ? kLavapipeIcd : args.driver;
  EnvChanges base;
  if (driver != "system") {
    if (!fs::exists(driver)) throw Error("tessera bench layer: driver manifest '" + driver + "' does not exist");
    base["VK_ICD_FILENAMES"] = driver;
    base["VK_DRIVER_FILES"] = driver;
  }
  // Nothing inherited may switch a layer on or change what it does: each configuration sets
  // only its own.
  for (char** e = environ; *e; ++e) {
    const std::string key = std::string(*e).substr(0, std::string(*e).find('='));
    if (key.rfind("TESSERA_LAYER_", 0) == 0 || key.rfind("MANGOHUD", 0) == 0 ||
        key.rfind("VK_LAYER_MESA_OVERLAY", 0) == 0)
      base[key] = std::nullopt;
  }
  for (const char* key : {"ENABLE_TESSERA_LAYER", "DISABLE_TESSERA_LAYER", "VK_INSTANCE_LAYERS",
                          "VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE", "DISABLE_MANGOHUD"})
    base[key] = std::nullopt;

  // A scratch folder for the children's output, holding no vk_layer_settings.txt.
  const fs::path tmp = fs::temp_directory_path() / ("tessera-bench-layer-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  struct TmpCleanup {
    fs::path p;
    ~TmpCleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{tmp};

  // Configurations.
  std::vector<LayerConfig> configs(5);
  configs[0].name = "none";
  configs[1].name = "tessera";
  configs[1].layer = "VK_LAYER_TESSERA_stats";
  {
    const fs::path data =
        args.layer_prefix.empty() ? fs::path(TESSERA_LAYER_MANIFEST_DIR) : args.layer_prefix / "share";
    const ManifestSearch s = find_manifest({data / "vulkan/implicit_layer.d"}, configs[1].layer);
    if (s.manifest) {
      configs[1].env["XDG_DATA_HOME"] = data.string();
      configs[1].env["ENABLE_TESSERA_LAYER"] = "1";
      // Nothing written, no summary line: the measuring layer alone.
      configs[1].env["TESSERA_LAYER_SUMMARY"] = "0";
      // Default settings: no settings file from the environment or the current folder.
      configs[1].env["VK_LAYER_SETTINGS_PATH"] = tmp.string();
    } else {
      configs[1].skip =
          s.reason + (args.layer_prefix.empty() ? " (build VkLayer_TESSERA_stats or pass --layer-prefix)" : "");
    }
  }
  // The layer with its HUD on (drawn at present, so on vkcube only), default settings besides.
  configs[4] = configs[1];
  configs[4].name = "tessera_hud";
  if (configs[4].skip.empty()) configs[4].env["TESSERA_LAYER_HUD"] = "1";
  configs[2].name = "mangohud";
  configs[2].layer = "VK_LAYER_MANGOHUD_overlay";
  {
    const ManifestSearch s = find_manifest(system_layer_dirs("implicit_layer.d"), configs[2].layer);
    if (s.manifest) {
      configs[2].env["MANGOHUD"] = "1";
      // Its default HUD, configured here so that no user config file (which might log) is read,
      // and its log lines off.
      configs[2].env["MANGOHUD_CONFIG"] = "fps,frametime,frame_timing,cpu_stats,gpu_stats";
      configs[2].env["MANGOHUD_LOG_LEVEL"] = "off";
    } else {
      configs[2].skip = s.reason + " (Debian package mangohud)";
    }
  }
  configs[3].name = "mesa_overlay";
  configs[3].layer = "VK_LAYER_MESA_overlay";
  {
    const ManifestSearch s = find_manifest(system_layer_dirs("explicit_layer.d"), configs[3].layer);
    if (s.manifest)
      configs[3].env["VK_INSTANCE_LAYERS"] = configs[3].layer;
    else
      configs[3].skip = s.reason + " (Debian package mesa-vulkan-drivers)";
  }
  add_capture_configs(configs, tmp);
  const auto selected = [](const std::vector<std::string>& chosen, const std::string& name) {
    return chosen.empty() || name == "none" || std::find(chosen.begin(), chosen.end(), name) != chosen.end();
  };
  for (LayerConfig& c : configs)
    if (!selected(g_selected_configs, c.name)) c.skip = "not selected (--configs)";

  // Programs.

  std::vector<Workload> workloads(2);
  Workload& vkcube = workloads[0];
  vkcube.name = "vkcube";
  const int short_frames = std::max(5, frames / 10);
  std::unique_ptr<VirtualDisplay> xvfb;
  if (!selected(g_selected_programs, "vkcube")) {
    vkcube.skip = "not selected (--programs)";
  } else if (const auto path = find_in_path("vkcube")) {
    vkcube.command = {path->string(), "--c"};
    const char* display = std::getenv("DISPLAY");
    if (display && *display) {
      vkcube.env["DISPLAY"] = display;
    } else {
      xvfb = std::make_unique<VirtualDisplay>();
      if (xvfb->display().empty())
        vkcube.skip = xvfb->reason();
      else
        vkcube.env["DISPLAY"] = xvfb->display();
    }
  } else {
    vkcube.skip = "vkcube not found in PATH (Debian package vulkan-tools)";
  }
  Workload& app = workloads[1];
  app.name = "layer_app";
  fs::path app_path = args.layer_app;
  if (app_path.empty()) {
    std::error_code ec;
    app_path = fs::read_symlink("/proc/self/exe", ec).parent_path() / "tessera_layer_app";
  }
  if (!selected(g_selected_programs, "layer_app")) {
    app.skip = "not selected (--programs)";
  } else if (::access(app_path.c_str(), X_OK) == 0) {
    app.command = {fs::absolute(app_path).string(), "bench", std::to_string(frames), std::to_string(warmup)};
    // The application never presents: each submission ends a frame for the layer.
    app.env["TESSERA_LAYER_FRAME_DELIMITER"] = "submit";
  } else {
    app.skip = "test application '" + app_path.string() + "' not found or not executable" +
               (args.layer_app.empty() ? " (build tessera_layer_app, or pass --app)" : "");
  }

  std::printf("tessera bench layer: %d frames, %d repetitions, driver %s\n", frames, repetitions, driver.c_str());
  std::fflush(stdout);

  // Measurement: every repetition runs, program by program, every measurable configuration
  // once, starting at a different configuration each time; a program's configurations run
  // back to back, so each is paired with `none` under the same load.
  std::map<std::pair<size_t, size_t>, Cell> cells;
  const double timeout = 120.0 + frames * 0.2;
  for (int rep = 0; rep < repetitions; ++rep) {
    for (size_t wi = 0; wi < workloads.size(); ++wi) {
      const Workload& w = workloads[wi];
      if (!w.skip.empty()) continue;
      for (size_t k = 0; k < configs.size(); ++k) {
        const size_t ci = (k + size_t(rep)) % configs.size();
        const LayerConfig& cfg = configs[ci];
        Cell& cell = cells[{wi, ci}];
        if (!cfg.skip.empty() || !cell.failed.empty()) continue;
        EnvChanges env = base;
        for (const auto& kv : w.env) env[kv.first] = kv.second;
        for (const auto& kv : cfg.env) env[kv.first] = kv.second;
        const std::string what = w.name + " with " + cfg.name;
        if (w.name == "vkcube") {
          // Two frame counts: the difference is frames x frame time, start-up cancels.
          std::vector<std::string> a = w.command, b = w.command;
          a.push_back(std::to_string(short_frames));
          b.push_back(std::to_string(short_frames + frames));
          // With few frames, start-up jitter can exceed the frames' time and the difference
          // comes out non-positive: that pair is run again, a few times at most.
          double ms = 0, cpu_ms = 0;
          for (int attempt = 0; attempt < kVkcubeAttempts && cell.failed.empty() && (ms <= 0 || cpu_ms <= 0);
               ++attempt) {
            if (attempt > 0) ++cell.vkcube_retries;
            const ProcessResult ra = run_process(a, env, timeout, tmp);
            const ProcessResult rb = run_process(b, env, timeout, tmp);
            if (ra.exit_code != 0 || rb.exit_code != 0) cell.failed = failure_text(ra.exit_code != 0 ? ra : rb, what);
            ms = (rb.seconds - ra.seconds) * 1000.0 / frames;
            cpu_ms = (rb.cpu_seconds - ra.cpu_seconds) * 1000.0 / frames;
          }
          if (cell.failed.empty() && (ms <= 0 || cpu_ms <= 0))
            cell.failed = what + ": start-up jitter exceeded the time of " + std::to_string(frames) + " frames in " +
                          std::to_string(kVkcubeAttempts) + " attempts; use more --frames";
          if (!cell.failed.empty()) continue;
          cell.repetition_ms.push_back(ms);
          cell.by_repetition[rep] = ms;
          cell.cpu_by_repetition[rep] = cpu_ms;
        } else {
          const ProcessResult r = run_process(w.command, env, timeout, tmp);
          if (r.exit_code != 0) {
            cell.failed = failure_text(r, what);
            continue;
          }
          // The JSON line; layers may print their own lines around it.
          nlohmann::json j;
          std::stringstream ss(r.out);
          for (std::string line; std::getline(ss, line);) {
            if (line.rfind("{\"bench\"", 0) != 0) continue;
            j = nlohmann::json::parse(line, nullptr, false);
          }
          if (j.is_discarded() || !j.is_object() || !j.contains("frame_ms") || !j["frame_ms"].is_array() ||
              j["frame_ms"].size() != size_t(frames) || !j.contains("cpu_ms_per_frame") ||
              !j["cpu_ms_per_frame"].is_number()) {
            cell.failed = what + " printed no valid benchmark JSON line";
            continue;
          }
          std::vector<double> ms = j["frame_ms"].get<std::vector<double>>();
          cell.repetition_ms.push_back(median(ms));
          cell.by_repetition[rep] = cell.repetition_ms.back();
          cell.cpu_by_repetition[rep] = j["cpu_ms_per_frame"].get<double>();
          cell.frames_ms.insert(cell.frames_ms.end(), ms.begin(), ms.end());
        }
      }
    }
    std::printf("  repetition %d/%d done\n", rep + 1, repetitions);
    std::fflush(stdout);
  }

  // Report.
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  nlohmann::ordered_json goal = nlohmann::ordered_json::object();
  bool any_failed = false;
  std::printf("\n%-10s %-13s %-9s %9s %10s %8s %8s  %-13s %8s %8s  %s\n", "program", "config", "status", "mean ms",
              "median ms", "ratio", "vs none", "ratio range", "cpu ms", "cpu vs",
              "repetition ms min..max (frame p10..p90)");
  for (size_t wi = 0; wi < workloads.size(); ++wi) {
    const Workload& w = workloads[wi];
    const Cell* none = cells.count({wi, 0}) ? &cells[{wi, 0}] : nullptr;
    const bool none_ok = none && none->failed.empty() && !samples(w, *none).empty();
    const double none_median = none_ok ? median(samples(w, *none)) : 0;
    const double none_mean = none_ok ? mean(samples(w, *none)) : 0;
    std::map<std::string, double> ratio_of, cpu_ratio_of;
    for (size_t ci = 0; ci < configs.size(); ++ci) {
      const LayerConfig& cfg = configs[ci];
      nlohmann::ordered_json r;
      r["name"] = w.name + "/" + cfg.name;
      r["program"] = w.name;
      r["config"] = cfg.name;
      r["layer"] = cfg.layer.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cfg.layer);
      r["metric"] = "frame_ms";
      const std::string skip = !w.skip.empty() ? w.skip : cfg.skip;
      const Cell* cell = cells.count({wi, ci}) ? &cells[{wi, ci}] : nullptr;
      if (!skip.empty()) {
        r["status"] = "skipped";
        r["reason"] = skip;
        std::printf("%-10s %-13s %-9s  %s\n", w.name.c_str(), cfg.name.c_str(), "skipped", skip.c_str());
      } else if (!cell || !cell->failed.empty()) {
        any_failed = true;
        r["status"] = "failed";
        r["reason"] = cell ? cell->failed : "not run";
        std::printf("%-10s %-13s %-9s  %s\n", w.name.c_str(), cfg.name.c_str(), "failed",
                    r["reason"].get<std::string>().c_str());
      } else {
        const std::vector<double>& s = samples(w, *cell);
        const double med = median(s), avg = mean(s);
        r["status"] = "measured";
        r["mean_ms"] = avg;
        r["median_ms"] = med;
        // The ratio is paired: this configuration against `none` in the same repetition (run
        // back to back), median over repetitions, so load that changes between repetitions
        // cancels. The ratios of the pooled median and mean are kept for comparison.
        const std::vector<double> paired =
            none_ok ? paired_ratios(cell->by_repetition, none->by_repetition) : std::vector<double>{};
        const bool has_ratio = !paired.empty();
        const double ratio = has_ratio ? median(paired) : 0.0;
        r["ratio"] = has_ratio ? nlohmann::ordered_json(ratio) : nlohmann::ordered_json(nullptr);
        r["repetition_ratios"] = paired;
        r["ratio_of_medians"] =
            none_ok && none_median > 0 ? nlohmann::ordered_json(med / none_median) : nlohmann::ordered_json(nullptr);
        r["ratio_of_means"] =
            none_ok && none_mean > 0 ? nlohmann::ordered_json(avg / none_mean) : nlohmann::ordered_json(nullptr);
        // layer_app: best repetition against best repetition; load only ever adds to a
        // self-timed frame, so on a busy machine the fastest repetitions are the least
        // disturbed. (vkcube's difference of two runs can err either way: no such ratio.)
        const double none_best = none_ok && w.name == "layer_app"
                                     ? *std::min_element(none->repetition_ms.begin(), none->repetition_ms.end())
                                     : 0;
        if (w.name == "layer_app")
          r["ratio_of_best"] =
              none_best > 0 ? nlohmann::ordered_json(
                                  *std::min_element(cell->repetition_ms.begin(), cell->repetition_ms.end()) / none_best)
                            : nlohmann::ordered_json(nullptr);
        const auto [lo, hi] = std::minmax_element(cell->repetition_ms.begin(), cell->repetition_ms.end());
        r["spread"] = {{"repetition_min_ms", *lo}, {"repetition_max_ms", *hi}};
        if (w.name == "layer_app") {
          r["spread"]["frame_p10_ms"] = percentile(s, 0.1);
          r["spread"]["frame_p90_ms"] = percentile(s, 0.9);
        }
        r["repetition_ms"] = cell->repetition_ms;
        // CPU time per frame of the whole program (all threads), and its paired ratio.
        std::vector<double> cpu;
        for (const auto& kv : cell->cpu_by_repetition) cpu.push_back(kv.second);
        const std::vector<double> cpu_paired =
            none_ok ? paired_ratios(cell->cpu_by_repetition, none->cpu_by_repetition) : std::vector<double>{};
        const double cpu_ratio = cpu_paired.empty() ? 0.0 : median(cpu_paired);
        r["cpu_ms_per_frame"] = median(cpu);
        r["cpu_ratio"] = cpu_paired.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cpu_ratio);
        r["repetition_cpu_ratios"] = cpu_paired;
        if (!cpu_paired.empty()) cpu_ratio_of[cfg.name] = cpu_ratio;
        if (w.name == "vkcube") r["retried_pairs"] = cell->vkcube_retries;
        r["frames"] = frames;
        r["repetitions"] = cell->repetition_ms.size();
        r["timing"] = w.name == "vkcube"
                          ? "per repetition: (wall(vkcube --c " + std::to_string(short_frames + frames) +
                                ") - wall(vkcube --c " + std::to_string(short_frames) + ")) / " + std::to_string(frames)
                          : "per frame, by the application: record + submit + fence wait";
        if (has_ratio) ratio_of[cfg.name] = ratio;
        char spread[96];
        if (w.name == "layer_app")
          std::snprintf(spread, sizeof spread, "%.4f..%.4f (%.4f..%.4f)", *lo, *hi, percentile(s, 0.1),
                        percentile(s, 0.9));
        else
          std::snprintf(spread, sizeof spread, "%.4f..%.4f", *lo, *hi);
        char ratio_range[48] = "";
        if (!paired.empty()) {
          const auto [rlo, rhi] = std::minmax_element(paired.begin(), paired.end());
          std::snprintf(ratio_range, sizeof ratio_range, "%.3f..%.3f", *rlo, *rhi);
        }
        std::printf("%-10s %-13s %-9s %9.4f %10.4f %8.3f %8s  %-13s %8.4f %8s  %s\n", w.name.c_str(), cfg.name.c_str(),
                    "measured", avg, med, ratio, has_ratio ? percent(ratio).c_str() : "-", ratio_range, median(cpu),
                    cpu_paired.empty() ? "-" : percent(cpu_ratio).c_str(), spread);
      }
      results.push_back(r);
    }
    // The HUD's goal: cheaper than MangoHud's and the Mesa overlay's HUDs (where measured).
    if (ratio_of.count("tessera_hud")) {
      nlohmann::ordered_json g;
      const double h = ratio_of.at("tessera_hud");
      g["tessera_hud_overhead"] = h - 1.0;
      bool met = true;
      for (const std::string peer : {"mangohud", "mesa_overlay"}) {
        const auto it = ratio_of.find(peer);
        g["below_" + peer] =
            it == ratio_of.end() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(h < it->second);
        if (it != ratio_of.end()) met = met && h < it->second;
      }
      g["met"] = met;
      goal[w.name]["hud_frame_time"] = g;
      std::printf("%-10s goal on hud        (tessera HUD below MangoHud and the Mesa overlay): %-7s (HUD %s)\n",
                  w.name.c_str(), met ? "met" : "not met", percent(h).c_str());
    }
    // The tracked goal, on frame time and on CPU time.
    if (ratio_of.count("tessera")) {
      goal[w.name]["frame_time"] = goal_of(ratio_of);
      if (cpu_ratio_of.count("tessera")) goal[w.name]["cpu_time"] = goal_of(cpu_ratio_of);
      for (const char* kind : {"frame_time", "cpu_time"}) {
        if (!goal[w.name].contains(kind)) continue;
        const auto& g = goal[w.name][kind];
        std::printf(
            "%-10s goal on %-10s (tessera overhead <= 2%%, below MangoHud and the Mesa overlay): %-7s "
            "(tessera %s)\n",
            w.name.c_str(), kind, g["met"].get<bool>() ? "met" : "not met",
            percent(1.0 + g["tessera_overhead"].get<double>()).c_str());
      }
    }
  }

  nlohmann::ordered_json doc;
  doc["suite"] = "layer";
  doc["driver"] = driver;
  doc["frames"] = frames;
  doc["warmup"] = warmup;
  doc["repetitions"] = repetitions;
  doc["layer_manifest_dir"] =
      args.layer_prefix.empty() ? std::string(TESSERA_LAYER_MANIFEST_DIR) : (args.layer_prefix / "share").string();
  doc["results"] = results;
  doc["goal"] = goal;
  if (!args.json.empty()) write_text_file(args.json, doc.dump(2) + "\n");
  return any_failed ? 1 : 0;
}

}  // namespace tessera::cli
