// The Slurm executor: the pending jobs as one job array (sbatch --array), a task running a
// group of jobs through `tessera sweep worker`; waiting by polling squeue; `sweep status`.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include "files.h"
#include "progress.h"
#include "sweep.h"
#include "tessera/error.h"
#include "tessera/input_file.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The array's tasks: the pending jobs in order, a new task after `points_per_task` points.
std::vector<std::vector<size_t>> group_tasks(const SweepPlan& plan, const std::vector<size_t>& pending,
                                             int points_per_task) {
  std::vector<std::vector<size_t>> tasks;
  size_t points_in_task = 0, last_point = SIZE_MAX;
  for (size_t job : pending) {
    const size_t point = plan.job_point(job);
    if (point != last_point) {
      if (tasks.empty() || points_in_task == size_t(points_per_task)) {
        tasks.emplace_back();
        points_in_task = 0;
      }
      ++points_in_task;
      last_point = point;
    }
    tasks.back().push_back(job);
  }
  return tasks;
}

// Array job states from squeue; empty once every task has left the queue. `ok` is false when
// squeue failed: it cannot start, the controller does not answer, or the job was purged
// (MinJobAge after it ended; "Invalid job id").
std::string queue_states(const std::string& job_id, bool* ok) {
  int status = -1;
  const std::string out = run_captured({"squeue", "-h", "-j", job_id, "-o", "%T"}, &status);
  *ok = status == 0;
  return status == 0 ? out : "";
}

size_t count_results(const SweepPlan& plan) {
  size_t n = 0;
  for (size_t job = 0; job < plan.job_count(); ++job) n += job_state(plan, job) != JobState::missing;
  return n;
}

std::vector<fs::path> submissions(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (int n = 0;; ++n) {
    const fs::path s = dir / "slurm" / ("submit-" + std::to_string(n)) / "submission.json";
    if (!fs::is_regular_file(s, ec)) break;
    out.push_back(s);
  }
  return out;
}

}  // namespace

int run_slurm(const SweepPlan& plan, const SweepRunOptions& options) {
  if (options.points_per_task < 1) throw Error("--points-per-task must be at least 1");
  // An array of this sweep still in the queue would run the jobs a new one is given.
  for (const fs::path& s : submissions(plan.output)) {
    const std::string id =
        ordered_json::parse(read_input_file(s, kMaxJsonFileBytes, "submission")).at("job_id").get<std::string>();
    bool queried = false;
    const std::string states = queue_states(id, &queried);
    if (states.find_first_not_of(" \n") != std::string::npos) {
      throw Error(plan.output.string() + ": Slurm job " + id +
                  " of this sweep is still queued or running; wait for it (tessera sweep status) or scancel it");
    }
  }
  const std::vector<size_t> pending = pending_jobs(plan, options.retry_failed);
  std::cout << "sweep " << plan.name << ": " << plan.job_count() << " jobs, " << plan.job_count() - pending.size()
            << " done, " << pending.size() << " to submit\n";
  if (pending.empty()) {
    const size_t ok = collect_results(plan, false);
    return ok == plan.job_count() ? 0 : 3;
  }
  const std::vector<std::vector<size_t>> tasks = group_tasks(plan, pending, options.points_per_task);
  const fs::path dir = plan.output / "slurm" / ("submit-" + std::to_string(submissions(plan.output).size()));
  ordered_json task_list = ordered_json::array();
  for (const auto& t : tasks) {
    ordered_json ids = ordered_json::array();
    for (size_t job : t) ids.push_back(plan.job_id(job));
    task_list.push_back(ids);
  }
  write_text_file(dir / "tasks.json", task_list.dump(1) + "\n");
  std::ostringstream script;
  script << "#!/bin/sh\n"
         << "# tessera sweep: one task of the job array runs its group of jobs (tasks.json).\n"
         << "exec " << shell_quote(self_executable().string()) << " sweep worker " << shell_quote(plan.output.string())
         << " --task-file " << shell_quote((dir / "tasks.json").string()) << " --task \"$SLURM_ARRAY_TASK_ID\""
         << (options.threads ? " --threads " + std::to_string(*options.threads) : std::string()) << "\n";
  write_text_file(dir / "task.sh", script.str());
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   "--array=0-" + std::to_string(tasks.size() - 1),
                                   "--job-name=tessera-sweep-" + plan.name,
                                   "--output=" + (dir / "task-%a.out").string(),
                                   "--chdir=" + plan.output.string()};
  argv.insert(argv.end(), options.slurm_args.begin(), options.slurm_args.end());
  argv.push_back((dir / "task.sh").string());
  const fs::path log = dir / "sbatch.log";
  int status = -1;
  std::string out = run_captured(argv, &status);
  if (status != 0) {
    // Run it again with its messages kept, to say why.
    run_logged(argv, log);
    std::string why;
    try {
      why = read_input_file(log, 1 << 20, "sbatch log");
    } catch (const Error&) {
    }
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw Error(status < 0 ? "sbatch: cannot start (is Slurm installed and on PATH?)"
                           : "sbatch failed (exit status " + std::to_string(status) + "): " + why);
  }
  const std::string job_id = out.substr(0, out.find_first_of(";\n"));
  ordered_json sub = {{"job_id", job_id},
                      {"tasks", tasks.size()},
                      {"jobs", pending.size()},
                      {"points_per_task", options.points_per_task},
                      {"sbatch", argv}};
  write_text_file(dir / "submission.json", sub.dump(2) + "\n");
  std::cout << "submitted Slurm job " << job_id << ": " << tasks.size() << " array tasks, " << pending.size()
            << " jobs (" << options.points_per_task << " points per task)\n"
            << std::flush;
  if (options.detach) {
    std::cout << "follow it with: tessera sweep status " << plan.output.string()
              << "\nmerge the results with: tessera sweep collect " << plan.output.string() << "\n";
    return 0;
  }
  const size_t before = plan.job_count() - pending.size();
  ProgressBar progress("sweep (slurm " + job_id + ")", pending.size());
  size_t reported = SIZE_MAX;
  int failed_polls = 0;
  for (;;) {
    bool ok = false;
    const std::string states = queue_states(job_id, &ok);
    const size_t now = count_results(plan) - before;
    if (now != reported) progress.update(std::min(now, pending.size()));
    reported = now;
    if (ok && states.find_first_not_of(" \n") == std::string::npos) break;
    if (now >= pending.size()) break;  // every result is in, whatever squeue says
    // A purged job, or a controller that stays away: stop waiting after a few polls (a rerun or
    // `sweep status` picks up whatever finishes later).
    failed_polls = ok ? 0 : failed_polls + 1;
    if (failed_polls == 10) {
      std::cerr << "sweep: squeue -j " << job_id << " failed " << failed_polls << " times in a row; not waiting\n";
      break;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options.poll_seconds));
  }
  const std::vector<size_t> missing = pending_jobs(plan, false);
  if (!missing.empty()) {
    std::cerr << "sweep: " << missing.size() << " jobs have no result (cancelled or failed tasks; see " << dir.string()
              << "/task-*.out); run the same command again to submit them\n";
  }
  const size_t ok = collect_results(plan, false);
  return ok == plan.job_count() ? 0 : 3;
}

int sweep_status(const fs::path& dir) {
  const SweepPlan plan = load_plan(dir);
  size_t ok = 0, failed = 0;
  std::vector<std::string> missing;
  for (size_t job = 0; job < plan.job_count(); ++job) {
    switch (job_state(plan, job)) {
      case JobState::ok: ++ok; break;
      case JobState::failed: ++failed; break;
      case JobState::missing: missing.push_back(plan.job_id(job)); break;
    }
  }
  std::cout << "sweep " << plan.name << " in " << plan.output.string() << ": " << plan.job_count() << " jobs ("
            << plan.points.size() << " points x " << plan.inputs.size() << " inputs): " << ok << " ok, " << failed
            << " failed, " << missing.size() << " not run\n";
  for (size_t job = 0; job < plan.job_count(); ++job) {
    if (job_state(plan, job) != JobState::failed) continue;
    try {
      const ordered_json r =
          ordered_json::parse(read_input_file(result_path(plan, job), kMaxJsonFileBytes, "sweep result"));
      std::cout << "  failed " << plan.job_id(job) << ": " << r.value("error", std::string("?")) << "\n";
    } catch (const std::exception&) {
    }
  }
  if (!missing.empty()) {
    std::cout << "  not run:";
    for (size_t i = 0; i < missing.size() && i < 20; ++i) std::cout << " " << missing[i];
    if (missing.size() > 20) std::cout << " ...";
    std::cout << "\n";
  }
  for (const fs::path& s : submissions(plan.output)) {
    try {
      const ordered_json sub = ordered_json::parse(read_input_file(s, kMaxJsonFileBytes, "submission"));
      const std::string id = sub.at("job_id").get<std::string>();
      bool queried = false;
      std::string states = queue_states(id, &queried);
      for (char& c : states) c = c == '\n' ? ' ' : c;
      std::cout << "  slurm job " << id << " (" << sub.at("tasks").get<size_t>() << " tasks): "
                << (!queried         ? "not known to squeue"
                    : states.empty() ? "no longer queued"
                                     : "queued: " + states)
                << "\n";
    } catch (const std::exception&) {
    }
  }
  return ok == plan.job_count() ? 0 : 3;
}

}  // namespace tessera::cli
