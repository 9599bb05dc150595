// `tessera sweep` (docs/sweep.md): a design-space sweep over config keys and inputs, run by
// worker processes locally or as a Slurm job array, merged into one CSV with plots.
//
// A spec expands into a plan: points (one config setting list each), inputs (a scene with its
// views, or one frame of a capture) and jobs (a point on an input). The plan lives in the
// output folder (sweep.json); every job's result is its own JSON file there, written
// atomically, so any executor, any number of hosts and any interruption leave a folder that
// `status` and `collect` read and a rerun completes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace tessera::cli {

using ordered_json = nlohmann::ordered_json;

enum class SweepInputKind { scene, capture };

// One input: what a job renders for a point. A scene input may hold several views (cameras or
// orbit frames) rendered by one process; a capture input is one frame.
struct SweepInput {
  SweepInputKind kind = SweepInputKind::scene;
  std::filesystem::path path;              // absolute
  std::string label;                       // the path as the spec gives it
  std::vector<std::string> cameras;        // scene: --camera specs (empty: the scene camera or the orbit)
  int orbit = 0;                           // scene: N turntable frames
  int frame = -1;                          // capture: the frame
  std::vector<std::string> views() const;  // one name per row: camera spec, "orbit i/N", "frame N" or "scene camera"
};

// A parameter value as it reads in the spec, the CSV and --set.
struct SweepSetting {
  std::string key;    // dotted config key
  std::string value;  // --set text
};

// Metrics plotted when the spec names none: a wildcard such as "timing.*" matches dozens.
constexpr size_t kDefaultPlotMetrics = 6;

struct SweepPlan {
  std::string name;
  std::vector<SweepInput> inputs;
  std::vector<SweepSetting> base;                 // "config": every point's settings first
  std::vector<std::string> parameter_keys;        // in spec order
  std::vector<std::vector<SweepSetting>> points;  // each point's parameter settings
  std::string parameter_shape;                    // "grid", "zip" or "points"
  std::vector<std::string> metrics;               // stats key patterns ('*' wildcards)
  std::vector<std::string> plots;                 // metric patterns to plot; empty: the first
                                                  // kDefaultPlotMetrics numeric metrics
  bool images = false;                            // keep each job's rendered PNG
  std::filesystem::path output;                   // absolute

  size_t job_count() const { return points.size() * inputs.size(); }
  std::string job_id(size_t job) const;  // "p0003-i01"
  size_t job_point(size_t job) const { return job / inputs.size(); }
  size_t job_input(size_t job) const { return job % inputs.size(); }
};

// Reads and checks a spec file strictly (unknown keys, types, empty lists, missing inputs,
// every point's config). `output_override` replaces the spec's "output". Throws tessera::Error
// naming the spec and the key.
SweepPlan load_sweep_spec(const std::filesystem::path& spec, const std::filesystem::path& output_override);

// The plan as stored in OUTPUT/sweep.json and read back by workers, status and collect.
ordered_json plan_to_json(const SweepPlan& plan);
SweepPlan plan_from_json(const ordered_json& j);
// Loads OUTPUT/sweep.json; throws naming the folder if it holds no sweep.
SweepPlan load_plan(const std::filesystem::path& dir);
// Creates the output folder and its sweep.json, or checks that the folder holds this same
// sweep (a resume); throws naming the folder if it holds another or cannot be written.
void prepare_output(const SweepPlan& plan);

// Results.
std::filesystem::path result_path(const SweepPlan& plan, size_t job);
enum class JobState { missing, ok, failed };
// A job's result as written by run_job, or nothing when there is none or it is damaged
// (unparsable, or not the shape run_job writes): such a job counts as not run.
std::optional<ordered_json> read_result(const SweepPlan& plan, size_t job);
JobState job_state(const SweepPlan& plan, size_t job);
// Runs one job here (renders through a child `tessera` process) and writes its result.
void run_job(const SweepPlan& plan, size_t job, std::optional<int> threads);

// Child processes.
std::filesystem::path self_executable();
// Runs argv to completion with stdout/stderr to `log` (appended); returns the exit status, or
// 128 + signal.
int run_logged(const std::vector<std::string>& argv, const std::filesystem::path& log);
// Runs argv and returns its stdout; `status` gets the exit status (-1: could not start).
std::string run_captured(const std::vector<std::string>& argv, int* status);
// Spawns argv in its own process group with output to `log`; returns the pid.
int spawn_logged(const std::vector<std::string>& argv, const std::filesystem::path& log);

// Executors: both return 0 when every job has an ok result, 3 when some failed or are missing.
struct SweepRunOptions {
  std::string executor = "local";
  int workers = 0;                      // local: 0 = nproc
  std::optional<int> threads;           // frame.threads per job (default: cores / workers locally)
  bool retry_failed = false;            // run failed jobs again
  int points_per_task = 1;              // slurm
  std::vector<std::string> slurm_args;  // slurm: passed to sbatch
  bool detach = false;                  // slurm: submit and return
  double poll_seconds = 5.0;            // slurm: squeue polling period
};
std::vector<size_t> pending_jobs(const SweepPlan& plan, bool retry_failed);
// Holds OUTPUT/lock (flock) while an executor runs, so two runs of one sweep cannot start the
// same jobs twice; throws naming the folder if another holds it.
class SweepLock {
 public:
  explicit SweepLock(const std::filesystem::path& dir);
  ~SweepLock();
  SweepLock(const SweepLock&) = delete;
  SweepLock& operator=(const SweepLock&) = delete;

 private:
  int fd_ = -1;
};
int run_local(const SweepPlan& plan, const SweepRunOptions& options);
int run_slurm(const SweepPlan& plan, const SweepRunOptions& options);
// Prints done/failed/missing and the Slurm submissions' state; returns 0 if complete, 3 if not.
int sweep_status(const std::filesystem::path& dir);
// Merges the results: OUTPUT/results.csv, OUTPUT/plots/*.png, OUTPUT/index.md. Returns the
// number of jobs with an ok result.
size_t collect_results(const SweepPlan& plan, bool quiet);

// CLI wiring (sweep_command.cpp).
struct SweepArgs {
  std::filesystem::path spec;
  std::filesystem::path output;
  SweepRunOptions run;
  std::filesystem::path dir;      // status, collect, worker
  std::vector<std::string> jobs;  // worker: job ids
  std::filesystem::path task_file;
  int task = -1;
};
struct SweepCommands {
  CLI::App* sweep = nullptr;
  CLI::App* status = nullptr;
  CLI::App* collect = nullptr;
  CLI::App* worker = nullptr;
};
SweepCommands add_sweep_command(CLI::App& app, SweepArgs& args);
int run_sweep(const SweepCommands& commands, const SweepArgs& args);

}  // namespace tessera::cli
