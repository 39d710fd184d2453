// cpu_job.h: runs long CPU work (baselines, references) on a worker thread so the UI never freezes, with
// progress, cancel and the result or error handed back to the frame loop.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace bs {

// Handed to the work: report progress in [0, 1] and stop early when cancelled.
class JobControl {
 public:
  void set_progress(double p) { m_progress.store(p, std::memory_order_relaxed); }
  double progress() const { return m_progress.load(std::memory_order_relaxed); }
  bool cancelled() const { return m_cancel.load(std::memory_order_relaxed); }
  void cancel() { m_cancel.store(true, std::memory_order_relaxed); }

 private:
  std::atomic<double> m_progress{0.0};
  std::atomic<bool> m_cancel{false};
};

// Thrown by work that noticed cancellation; the job then ends in the Cancelled state.
struct JobCancelled {};

class CpuJob {
 public:
  enum class State { Idle, Running, Done, Cancelled, Failed };
  using Work = std::function<void(JobControl&)>;

  CpuJob() = default;
  ~CpuJob();  // cancels and joins
  CpuJob(const CpuJob&) = delete;
  CpuJob& operator=(const CpuJob&) = delete;

  // Starts `work` on a new thread; a job already running is cancelled and joined first.
  void start(std::string label, Work work);
  void cancel();
  void wait();

  State state() const { return m_state.load(); }
  bool running() const { return state() == State::Running; }
  double progress() const { return m_control ? m_control->progress() : 0.0; }
  const std::string& label() const { return m_label; }
  std::string error() const;

 private:
  std::string m_label;
  std::unique_ptr<JobControl> m_control;
  std::atomic<State> m_state{State::Idle};
  mutable std::mutex m_mutex;
  std::string m_error;
  std::thread m_thread;
};

// One frame's look at a job for the panel that shows it, the same mapping in every lab:
//   poll_job writes `running` and `progress` (every frame) and, once the job has ended, what finish_job
//   writes. finish_job maps the end state to the panel's status line: Done clears it and calls on_done (which
//   takes the result; it may set the status line itself), Cancelled writes "cancelled", Failed writes the
//   job's error. Idle and Running write nothing.
// Both return true when the job has ended (Done, Cancelled or Failed). A lab that must take a result only
// once calls finish_job behind its own flag.
bool finish_job(const CpuJob& job, std::string& status, const std::function<void()>& on_done = {});
bool poll_job(const CpuJob& job, bool& running, double& progress, std::string& status,
              const std::function<void()>& on_done = {});

}  // namespace bs
