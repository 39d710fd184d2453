// lab_jobs.h: a lab's background work, the same way in every lab. A LabJob is a worker thread (bs::CpuJob)
// whose state shows in the lab's panel (running, progress, status line) and whose result is taken once, on the
// frame thread. LabJobs is the lab's set of them: polled each frame, drained when the app runs headless (a
// scripted capture should show data, not progress bars), and the place a GPU failure inside a worker is kept
// until update() rethrows it into the shell's recovery (app/shell/gpu_recovery.h: reset or the CPU path).
//
// A lab declares `LabJobs m_jobs;` before its jobs and its jobs after the state their work and on_done write
// (members are destroyed in reverse: the jobs are cancelled and joined first), attaches each job in its
// constructor (m_jobs.attach(m_gpu_job, {&m_model.running, &m_model.progress, &m_model.status})), polls in
// draw_ui and ends update() with m_jobs.finish_update(m_env, ...).
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/cpu_job.h"

namespace bs {

struct LabEnv;
class GpuError;
class LabJobs;

// Where a job shows in the panel; any may be null. Each poll writes running and progress; once the job has
// ended, status: "" on success (on_done may then set it), "cancelled", the job's error, or the GPU-failure line.
struct JobView {
  bool* running = nullptr;
  double* progress = nullptr;
  std::string* status = nullptr;
};

class LabJob {
 public:
  LabJob() = default;
  ~LabJob();  // cancels and joins; leaves its LabJobs
  LabJob(const LabJob&) = delete;
  LabJob& operator=(const LabJob&) = delete;

  // Starts `work` on a worker thread (a job already running is cancelled and joined first). on_done runs once,
  // on the frame thread, when a poll finds the work finished without error or cancellation. A GpuError thrown
  // by the work ends the job: the status says the GPU failed during the job's label, on_gpu_error (if any) sees
  // the error on the frame thread (e.g. to mark the user's kernel faulty), and LabJobs rethrows it from
  // finish_update.
  using OnGpuError = std::function<void(const GpuError&)>;
  void start(std::string label, CpuJob::Work work, std::function<void()> on_done = {},
             OnGpuError on_gpu_error = {});
  void cancel() { m_job.cancel(); }
  void wait() { m_job.wait(); }

  bool running() const { return m_job.running(); }
  double progress() const { return m_job.progress(); }
  CpuJob::State state() const { return m_job.state(); }
  const std::string& label() const { return m_job.label(); }
  std::string error() const { return m_job.error(); }
  // The status line after a GPU failure inside the work.
  static std::string gpu_failed_text(const std::string& label);

  // Writes the view; takes the end once (see start). True when this call took it.
  bool poll();

 private:
  friend class LabJobs;
  LabJobs* m_owner = nullptr;
  JobView m_view;
  std::string m_label;
  std::function<void()> m_on_done;
  OnGpuError m_on_gpu_error;
  std::shared_ptr<std::exception_ptr> m_gpu_error;  // written by the worker, read after it ended
  bool m_pending = false;                           // started, its end not yet taken
  CpuJob m_job;
};

class LabJobs {
 public:
  LabJobs() = default;
  ~LabJobs();
  LabJobs(const LabJobs&) = delete;
  LabJobs& operator=(const LabJobs&) = delete;

  // Makes `job` one of this lab's jobs, shown through `view`.
  void attach(LabJob& job, JobView view = {});

  // Every job's view; ended jobs' results taken (their on_done run). Call once a frame before the panel draws.
  void poll();
  bool busy() const;
  void cancel_all();
  void wait_all();

  // Until nothing runs: waits for every job, polls, then `step` (e.g. start queued work) while `pending` says
  // work outside the jobs remains (a queue, a simulator run). `step` must make progress on what `pending` sees.
  void drain(const std::function<void()>& step = {}, const std::function<bool()>& pending = {});

  // The end of a lab's update(): drains when the app runs headless (env.gl's context), then rethrows a GPU
  // error a worker carried back, once, for App's recovery.
  void finish_update(const LabEnv& env, const std::function<void()>& step = {},
                     const std::function<bool()>& pending = {});
  static bool headless(const LabEnv& env);

  // A GPU error caught on the frame thread or outside a LabJob, rethrown with the next finish_update.
  void hand_off(std::exception_ptr gpu_error);
  void rethrow_gpu_error();
  bool has_gpu_error() const { return m_gpu_error != nullptr; }

 private:
  friend class LabJob;
  void detach(LabJob& job);

  std::vector<LabJob*> m_jobs;
  std::exception_ptr m_gpu_error;
};

}  // namespace bs
