// gpu_check.h: "Check on the GPU", shared by the kernel editor's Simulator tab (kernel_simulator.h) and the
// labs' simulated runs (lab_sim.h): the user's kernel, at the simulated launch's size and block, run through
// `blockscope bench kernel` under compute-sanitizer (memcheck) in a child process on a worker thread, so a
// faulting kernel never takes the app down and the UI never waits. Its report is shown beside the
// simulator's diagnostics. Offered only with a CUDA device and compute-sanitizer on the PATH; otherwise the
// reason says which is missing.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/kernel/kernel_sim.h"
#include "core/cpu_job.h"

namespace bs {

// The full path of `program` found on PATH (empty: not found).
std::string find_on_path(const std::string& program, const char* path_env);

// Why the check cannot run (empty: it can): the device first, then compute-sanitizer on `path_env`.
std::string gpu_check_unavailable(bool gpu, const std::string& gpu_reason, const char* path_env);

// What to check: the kernel's source and the launch the simulator ran.
struct GpuCheckRequest {
  kernel::Target target = kernel::Target::Heat;
  std::string source;
  SimSettings settings;             // size, block (0: the contract's), grid (0: covering)
  std::optional<std::string> op;    // vector: the lab's op ("add" / "formula") to check against
};

// The shell command: `sanitizer` --tool memcheck ... `self` bench kernel --target ... --source `file` --size
// ... --block ... [--grid ...] [--reference ...], its output and errors together.
std::string gpu_check_command(const std::string& sanitizer, const std::string& self, const std::string& file,
                              const GpuCheckRequest& r);

// compute-sanitizer's output read back.
struct SanitizerReport {
  int exit_status = -1;  // the child's (-1: killed by a signal / not started)
  int errors = -1;       // from "========= ERROR SUMMARY: N errors" (-1: no summary line)
  // One line: "compute-sanitizer: no errors; the check against the lab's reference passed (exit 0)",
  // "compute-sanitizer: 3 errors (exit 1)", "compute-sanitizer printed no ERROR SUMMARY (exit 127)".
  std::string summary;
  bool clean() const { return errors == 0 && exit_status == 0; }
};
SanitizerReport parse_sanitizer_report(const std::string& output, int exit_status);

class GpuCheck {
 public:
  GpuCheck() = default;
  ~GpuCheck();
  GpuCheck(const GpuCheck&) = delete;
  GpuCheck& operator=(const GpuCheck&) = delete;

  // Whether a CUDA device is usable (App's device query). Until called, the first unavailable() asks
  // query_device() once (a lab's simulated run does not know the app's device).
  void set_gpu(bool available, std::string reason);
  // Why the check cannot run now (empty: it can). compute-sanitizer is looked up on PATH each call, so it
  // counts from the moment it appears.
  std::string unavailable();

  // The blockscope binary the child runs (default: this process's own, /proc/self/exe; tests name the
  // built blockscope).
  void set_program(std::string path) { m_program = std::move(path); }

  // Starts the child process; false (the reason in report()) when it cannot or a check is running.
  bool start(const GpuCheckRequest& r);
  // Once a frame: true when a report arrived this call.
  bool poll();
  bool running() const { return m_job.running(); }
  void wait() { m_job.wait(); }
  // The full report ("$ command", the child's output, the exit status) and its one-line summary; empty
  // before the first check.
  const std::string& report() const { return m_report; }
  const std::string& summary() const { return m_summary; }
  bool clean() const { return m_clean; }
  void clear();

 private:
  struct Pending {
    std::string output;
    int exit_status = -1;
  };
  std::optional<bool> m_gpu;  // unset: not known yet
  std::string m_gpu_reason;
  std::string m_program;
  std::string m_report, m_summary;
  bool m_clean = false;
  std::shared_ptr<Pending> m_pending;
  CpuJob m_job;  // last: joined before the state it writes goes
};

}  // namespace bs
