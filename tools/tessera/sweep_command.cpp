// `tessera sweep SPEC`, `sweep status DIR`, `sweep collect DIR` and the internal `sweep worker`
// (docs/sweep.md).
#include <cstdlib>
#include <iostream>

#include "sweep.h"
#include "tessera/error.h"
#include "tessera/input_file.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

size_t job_by_id(const SweepPlan& plan, const std::string& id) {
  for (size_t job = 0; job < plan.job_count(); ++job)
    if (plan.job_id(job) == id) return job;
  throw Error("sweep worker: " + plan.output.string() + " has no job " + id);
}

// The worker: runs its jobs one after another; a job's failure is its result, not the worker's.
int run_worker(const SweepArgs& args) {
  const SweepPlan plan = load_plan(args.dir);
  std::optional<int> threads = args.run.threads;
  // A Slurm task uses the CPUs it was given, not every core of a shared node.
  if (const char* cpus = std::getenv("SLURM_CPUS_PER_TASK"); !threads && cpus) {
    const int n = std::atoi(cpus);
    if (n > 0) threads = n;
  }
  std::vector<std::string> ids = args.jobs;
  if (!args.task_file.empty()) {
    const ordered_json tasks = ordered_json::parse(read_input_file(args.task_file, kMaxJsonFileBytes, "task file"));
    if (args.task < 0 || size_t(args.task) >= tasks.size())
      throw Error(args.task_file.string() + ": no task " + std::to_string(args.task));
    for (const auto& id : tasks[size_t(args.task)]) ids.push_back(id.get<std::string>());
  }
  for (const std::string& id : ids) {
    const size_t job = job_by_id(plan, id);
    // A rerun or a straggler may have finished it meanwhile.
    if (job_state(plan, job) == JobState::ok) continue;
    run_job(plan, job, threads);
  }
  return 0;
}

}  // namespace

SweepCommands add_sweep_command(CLI::App& app, SweepArgs& args) {
  SweepCommands c;
  c.sweep = app.add_subcommand(
      "sweep", "Design-space sweep: render inputs over a grid of config values, locally or on Slurm (docs/sweep.md)");
  c.sweep->add_option("spec", args.spec, "Sweep spec JSON (docs/sweep.md)");
  c.sweep->add_option("--output", args.output, "Results folder instead of the spec's \"output\"");
  c.sweep->add_option("--executor", args.run.executor, "local (worker processes here) or slurm (a job array)")
      ->check(CLI::IsMember({"local", "slurm"}));
  c.sweep->add_option("-j,--workers", args.run.workers, "local: worker processes (default: one per core)")
      ->check(CLI::Range(0, 4096));
  c.sweep
      ->add_option("--threads", args.run.threads,
                   "Render threads per job (default: the cores shared among local workers; slurm: all the task's)")
      ->check(CLI::Range(0, 1024));
  c.sweep->add_flag("--retry-failed", args.run.retry_failed, "Run failed jobs again (done jobs are always skipped)");
  c.sweep->add_option("--points-per-task", args.run.points_per_task, "slurm: points run by one array task")
      ->check(CLI::Range(1, 1000000));
  c.sweep
      ->add_option("--slurm-arg", args.run.slurm_args,
                   "slurm: an sbatch option, e.g. --slurm-arg=--partition=gpu --slurm-arg=--time=00:30:00 "
                   "(repeatable)")
      ->allow_extra_args(false);
  c.sweep->add_flag("--detach", args.run.detach, "slurm: submit and return (follow with sweep status / collect)");
  c.sweep->add_option("--poll", args.run.poll_seconds, "slurm: seconds between squeue polls while waiting")
      ->check(CLI::Range(0.1, 3600.0));
  c.status = c.sweep->add_subcommand("status", "Jobs done, failed and not run in a sweep folder (and its Slurm jobs)");
  c.status->add_option("dir", args.dir, "Sweep output folder")->required();
  c.collect = c.sweep->add_subcommand("collect", "Merge a sweep folder's results: results.csv, plots/, index.md");
  c.collect->add_option("dir", args.dir, "Sweep output folder")->required();
  c.worker = c.sweep->add_subcommand("worker", "Internal: run jobs of a sweep folder (used by the executors)");
  c.worker->add_option("dir", args.dir, "Sweep output folder")->required();
  c.worker->add_option("--job", args.jobs, "Job id (repeatable)")->allow_extra_args(false);
  c.worker->add_option("--task-file", args.task_file, "Slurm: the submission's tasks.json");
  c.worker->add_option("--task", args.task, "Slurm: the array task index");
  c.worker->add_option("--threads", args.run.threads, "Render threads per job");
  return c;
}

int run_sweep(const SweepCommands& c, const SweepArgs& args) {
  if (c.status->parsed()) return sweep_status(args.dir);
  if (c.collect->parsed()) {
    const SweepPlan plan = load_plan(args.dir);
    return collect_results(plan, false) == plan.job_count() ? 0 : 3;
  }
  if (c.worker->parsed()) return run_worker(args);
  if (args.spec.empty()) throw Error("sweep: give a spec file (or: sweep status DIR, sweep collect DIR)");
  if (args.run.detach && args.run.executor != "slurm")
    throw Error("--detach: only the slurm executor runs detached (--executor slurm)");
  const SweepPlan plan = load_sweep_spec(args.spec, args.output);
  prepare_output(plan);
  const SweepLock lock(plan.output);
  if (args.run.executor == "slurm") return run_slurm(plan, args.run);
  return run_local(plan, args.run);
}

}  // namespace tessera::cli
