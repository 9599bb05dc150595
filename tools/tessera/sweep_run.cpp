// Running sweep jobs: child processes, one job's run and result file, and the local executor
// (worker processes, progress, interruption).
#include <fcntl.h>
#include <fnmatch.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "files.h"
#include "progress.h"
#include "sweep.h"
#include "tessera/error.h"
#include "tessera/input_file.h"

extern char** environ;

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

int spawn(const std::vector<std::string>& argv, const fs::path& log, bool own_group) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = -1;
  std::vector<char*> args = c_argv(argv);
  const int rc = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw Error(argv[0] + ": cannot start: " + std::strerror(rc));
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 255;
  }
  return exit_code(status);
}

// The reason a child failed, from its log: the CLI's "tessera: error: ..." line if there is one.
std::string failure_reason(const fs::path& log, int code) {
  std::ifstream in(log);
  std::string line, reason;
  while (std::getline(in, line)) {
    for (const char* prefix : {"tessera: error: ", "tessera: unexpected error: "}) {
      if (line.rfind(prefix, 0) == 0) reason = line.substr(std::strlen(prefix));
    }
  }
  if (!reason.empty()) return reason;
  if (code > 128) return "killed by signal " + std::to_string(code - 128) + " (" + strsignal(code - 128) + ")";
  return "exit status " + std::to_string(code);
}

// Flattens nested stats JSON into dotted names ({"raster": {"triangles": {"in": 5}}} ->
// raster.triangles.in) and keeps those matching a metric pattern.
void select_metrics(const ordered_json& j, const std::string& prefix, const std::vector<std::string>& patterns,
                    ordered_json& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      select_metrics(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), patterns, out);
    return;
  }
  if (j.is_array()) return;
  for (const auto& p : patterns) {
    if (::fnmatch(p.c_str(), prefix.c_str(), 0) == 0) {
      out[prefix] = j;
      return;
    }
  }
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  ::gethostname(buf, sizeof(buf) - 1);
  return buf;
}

volatile std::sig_atomic_t g_stop = 0;
void on_stop_signal(int sig) { g_stop = sig; }

}  // namespace

fs::path self_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the tessera executable (/proc/self/exe): " + ec.message());
  return p;
}

int run_logged(const std::vector<std::string>& argv, const fs::path& log) { return wait_for(spawn(argv, log, false)); }

int spawn_logged(const std::vector<std::string>& argv, const fs::path& log) { return spawn(argv, log, true); }

std::string run_captured(const std::vector<std::string>& argv, int* status) {
  int fds[2];
  if (::pipe(fds) != 0) {
    *status = -1;
    return "";
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = -1;
  std::vector<char*> args = c_argv(argv);
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  std::string out;
  if (rc == 0) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) out.append(buf, size_t(n));
    }
  }
  ::close(fds[0]);
  *status = rc == 0 ? wait_for(pid) : -1;
  return out;
}

fs::path result_path(const SweepPlan& plan, size_t job) {
  return plan.output / "results" / (plan.job_id(job) + ".json");
}

std::optional<ordered_json> read_result(const SweepPlan& plan, size_t job) {
  const fs::path p = result_path(plan, job);
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  try {
    ordered_json r = ordered_json::parse(read_input_file(p, kMaxJsonFileBytes, "sweep result"));
    const std::string status = r.at("status").get<std::string>();
    bool valid = (status == "ok" || status == "failed") && r.at("rows").is_array() && r.value("seconds", 0.0) >= 0.0 &&
                 r.value("error", std::string()).size() < (1u << 20);
    for (const auto& row : r.at("rows")) valid = valid && row.at("view").is_string() && row.at("metrics").is_object();
    if (valid) return r;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

JobState job_state(const SweepPlan& plan, size_t job) {
  const std::optional<ordered_json> r = read_result(plan, job);
  if (!r) return JobState::missing;
  return r->at("status") == "ok" ? JobState::ok : JobState::failed;
}

SweepLock::SweepLock(const fs::path& dir) {
  const fs::path path = dir / "lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(path.string() + ": cannot open: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw Error(dir.string() + ": another `tessera sweep` is running on this folder (it holds " + path.string() + ")");
  }
}

SweepLock::~SweepLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<size_t> pending_jobs(const SweepPlan& plan, bool retry_failed) {
  std::vector<size_t> out;
  for (size_t job = 0; job < plan.job_count(); ++job) {
    const JobState s = job_state(plan, job);
    if (s == JobState::missing || (retry_failed && s == JobState::failed)) out.push_back(job);
  }
  return out;
}

void run_job(const SweepPlan& plan, size_t job, std::optional<int> threads) {
  const std::string id = plan.job_id(job);
  const SweepInput& input = plan.inputs[plan.job_input(job)];
  const fs::path tmp = plan.output / "tmp";
  const fs::path log = plan.output / "logs" / (id + ".log");
  std::error_code ec;
  fs::create_directories(tmp, ec);
  fs::create_directories(log.parent_path(), ec);
  fs::remove(log, ec);
  // Scratch names carry the process id: a job run twice at once (a rerun racing a straggler)
  // never mixes its files with the other's.
  const std::string scratch = id + "-" + std::to_string(::getpid());
  const fs::path stats = tmp / (scratch + ".stats.json");
  const fs::path image = plan.images ? plan.output / "images" / (id + ".png") : tmp / (scratch + ".png");
  const std::vector<std::string> views = input.views();
  const bool batch = views.size() > 1;

  std::vector<std::string> argv = {self_executable().string()};
  if (input.kind == SweepInputKind::scene) {
    argv.insert(argv.end(), {"render", input.path.string(), "-q"});
    for (const auto& c : input.cameras) argv.insert(argv.end(), {"--camera", c});
    if (input.orbit) argv.insert(argv.end(), {"--orbit", std::to_string(input.orbit)});
  } else {
    argv.insert(argv.end(), {"replay", input.path.string(), "--frame", std::to_string(input.frame), "-q"});
  }
  argv.insert(argv.end(), {"-o", image.string(), "--stats", stats.string()});
  if (threads) argv.insert(argv.end(), {"--threads", std::to_string(*threads)});
  for (const auto& s : plan.base) argv.insert(argv.end(), {"--set", s.key + "=" + s.value});
  for (const auto& s : plan.points[plan.job_point(job)]) argv.insert(argv.end(), {"--set", s.key + "=" + s.value});

  ordered_json result;
  result["job"] = id;
  result["point"] = plan.job_point(job);
  result["input"] = plan.job_input(job);
  result["host"] = host_name();
  result["started"] = now_utc();
  {
    std::ofstream l(log);
    for (const auto& a : argv) l << a << ' ';
    l << "\n";
  }
  const auto t0 = std::chrono::steady_clock::now();
  const int code = run_logged(argv, log);
  result["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ordered_json rows = ordered_json::array();
  std::string error;
  if (code == 0) {
    for (size_t v = 0; v < views.size() && error.empty(); ++v) {
      const fs::path file = batch ? numbered(stats, v) : stats;
      try {
        const ordered_json s = ordered_json::parse(read_input_file(file, kMaxJsonFileBytes, "stats"));
        ordered_json metrics = ordered_json::object();
        select_metrics(s, "", plan.metrics, metrics);
        rows.push_back({{"view", views[v]}, {"metrics", metrics}});
      } catch (const std::exception& e) {
        error = std::string("cannot read the frame's statistics: ") + e.what();
      }
      fs::remove(file, ec);
    }
  } else {
    error = failure_reason(log, code);
  }
  if (!plan.images) {
    for (size_t v = 0; v < views.size(); ++v) fs::remove(batch ? numbered(image, v) : image, ec);
  }
  result["status"] = error.empty() ? "ok" : "failed";
  if (!error.empty()) result["error"] = error;
  result["rows"] = error.empty() ? rows : ordered_json::array();
  write_text_file(result_path(plan, job), result.dump(2) + "\n");
}

int run_local(const SweepPlan& plan, const SweepRunOptions& options) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const int workers = options.workers > 0 ? options.workers : cores;
  const std::vector<size_t> pending = pending_jobs(plan, options.retry_failed);
  const size_t done_before = plan.job_count() - pending.size();
  std::cout << "sweep " << plan.name << ": " << plan.points.size() << " points x " << plan.inputs.size()
            << " inputs = " << plan.job_count() << " jobs; " << done_before << " done, " << pending.size()
            << " to run on " << std::min<size_t>(size_t(workers), std::max<size_t>(pending.size(), 1))
            << " local worker(s)\n"
            << std::flush;
  // Threads per job: the cores shared out among the workers unless the spec or --threads sets them.
  bool spec_sets_threads = false;
  for (const auto& s : plan.base) spec_sets_threads = spec_sets_threads || s.key == "frame.threads";
  std::optional<int> threads = options.threads;
  if (!threads && !spec_sets_threads) threads = std::max(1, cores / workers);

  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  g_stop = 0;

  const fs::path worker_log = plan.output / "logs" / "workers.log";
  std::deque<size_t> queue(pending.begin(), pending.end());
  std::map<pid_t, size_t> running;
  ProgressBar progress("sweep", pending.size());
  size_t finished = 0;
  while ((!queue.empty() || !running.empty()) && !g_stop) {
    while (!queue.empty() && running.size() < size_t(workers)) {
      const size_t job = queue.front();
      queue.pop_front();
      std::vector<std::string> argv = {self_executable().string(), "sweep", "worker",
                                       plan.output.string(),       "--job", plan.job_id(job)};
      if (threads) argv.insert(argv.end(), {"--threads", std::to_string(*threads)});
      running[spawn_logged(argv, worker_log)] = job;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) continue;  // EINTR: a stop signal, seen by the loop
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t job = it->second;
    running.erase(it);
    // A worker that died before writing its result (killed, out of memory) is recorded too.
    if (job_state(plan, job) == JobState::missing && !g_stop) {
      ordered_json r = {
          {"job", plan.job_id(job)},      {"point", plan.job_point(job)},
          {"input", plan.job_input(job)}, {"host", host_name()},
          {"started", now_utc()},         {"seconds", 0.0},
          {"status", "failed"},           {"error", "worker " + failure_reason(worker_log, exit_code(status))},
          {"rows", ordered_json::array()}};
      write_text_file(result_path(plan, job), r.dump(2) + "\n");
    }
    progress.update(++finished);
  }
  if (g_stop) {
    // Stop the workers and their renders (each worker leads its own process group).
    for (const auto& [pid, job] : running) ::kill(-pid, SIGTERM);
    for (const auto& [pid, job] : running) wait_for(pid);
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (g_stop) {
    std::cerr << "sweep: stopped by signal " << int(g_stop) << " after " << finished << " of " << pending.size()
              << " jobs; run the same command again to finish the rest\n";
    return 128 + int(g_stop);
  }
  const size_t ok = collect_results(plan, false);
  return ok == plan.job_count() ? 0 : 3;
}

}  // namespace tessera::cli
