// user_kernels.h: the user's current kernels, one per contract target (heat, vector, matmul). The kernel
// workbench (app/kernel/kernel_workbench.h) publishes every good compile for a target; a compile error never
// reaches here, so the last good kernel stays current (the workbench says so). Labs read current(target) and
// reload only when the generation changed. Owned by App, reached by labs through LabEnv::user_kernels.
// Thread-safe (the compile service may deliver on its worker thread).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/kernel_runner.h"

namespace bs {

// One published kernel: the compile result and what it came from (for records, sessions and sweeps).
struct UserKernel {
  std::shared_ptr<const kernel::CompileResult> result;  // null: no user kernel for this target yet
  // Changes on every publish (unique across targets, never reused, starts at 1); 0 when nothing is published.
  uint64_t generation = 0;
  std::string source;                                   // the user's source text
  kernel::CompileOptions options;                       // the options it was compiled with
  int arch = 0;                                         // 90 = sm_90
  std::chrono::system_clock::time_point compiled_at{};  // when it was published
  std::string name;  // where the source came from, for messages ("heat template", "my_heat.cu"); may be empty

  explicit operator bool() const { return result != nullptr; }
  // "12:03:41" (local time of compiled_at); empty when nothing is published.
  std::string compiled_at_text() const;
};

class UserKernels {
 public:
  // Makes `result` (a good compile of `request`) the current kernel for request.target and returns its new
  // generation. Throws std::invalid_argument when the result is not Ok, is null, or the request names no
  // target: only a kernel that can run is ever published.
  uint64_t publish(const kernel::CompileRequest& request, std::shared_ptr<const kernel::CompileResult> result,
                   std::string name = {});
  // The current kernel of `t` (a copy: safe to keep while the workbench publishes again).
  UserKernel current(kernel::Target t) const;
  uint64_t generation(kernel::Target t) const;
  bool has(kernel::Target t) const { return generation(t) != 0; }
  // Forgets the kernel of `t` (generation becomes 0): labs go back to their built-in kernel.
  void clear(kernel::Target t);

  // The newest compile for `t` that failed (its one-line message), so labs and records can say "running the
  // last good kernel"; empty after a good compile.
  void note_failure(kernel::Target t, std::string message);
  std::string last_failure(kernel::Target t) const;

  // A sticky fault (illegal address, hang) of the published kernel of `t` with `generation`: labs do not run
  // it again (after the app's recovery they run their built-in kernel) until a new kernel is published; the
  // message (naming the kernel) says why. A stale generation is ignored.
  void note_fault(kernel::Target t, uint64_t generation, std::string message);
  // The current kernel's fault message; empty when it has not faulted.
  std::string fault(kernel::Target t) const;
  // What a lab shows while the current kernel of `t` has faulted: "your heat_step faulted (...): <what_runs>
  // until you compile a fixed one" (what_runs: "the built-in step runs"); empty when it has not.
  std::string fault_status(kernel::Target t, std::string_view what_runs) const;

  // Experiment records: a lab marks the target whose user kernel it runs now (and unmarks it when it goes
  // back to its built-in kernel); the record writers ask record_json() and include what it gives.
  void set_in_use(kernel::Target t, bool in_use);
  bool in_use(kernel::Target t) const;
  // {"heat": {"kernel", "source", "options": {...}, "arch": "sm_90", "compiled_at", "nvrtc_version",
  // "name", "generation"}, ...} for every target in use with a published kernel; null when there is none.
  nlohmann::json record_json() const;
  // One kernel's record (the member of record_json()).
  static nlohmann::json record_of(const UserKernel& k);

 private:
  static constexpr int k_targets = 3;
  static int index(kernel::Target t);

  mutable std::mutex m_mutex;
  UserKernel m_kernels[k_targets];
  std::string m_failures[k_targets];
  std::string m_faults[k_targets];
  bool m_in_use[k_targets] = {};
  uint64_t m_next_generation = 1;
};

// One lab's hold on the user's kernel of one target (the vector and matmul labs): loads the published kernel
// when its generation changes (never while a run of the loaded one is in flight), skips a kernel that
// faulted, marks the target in use for experiment records, and says what runs.
class UserKernelSlot {
 public:
  explicit UserKernelSlot(kernel::Target t) : m_target(t) {}
  struct Update {
    std::string status;   // why the user's kernel does not run, or a note ("the newest compile failed: ...");
                          // empty: it runs and there is nothing to add
    bool loaded = false;  // a new kernel was loaded by this call
  };
  // want: the lab runs on a GPU and its choice is the user's kernel; busy: a run of the loaded kernel is in
  // flight. what_runs: the lab's words for its fallback ("the built-in kernels run"). Throws GpuError when
  // the load fails on a poisoned context (for the app's recovery).
  Update update(UserKernels* kernels, bool want, bool busy, std::string_view what_runs);
  const std::shared_ptr<kernel::LoadedKernel>& kernel() const { return m_kernel; }
  const UserKernel& published() const { return m_published; }  // what was loaded (generation, compiled_at)
  // The loaded kernel's figures at `block` (cached per block and kernel); a GpuError's text when they cannot
  // be read (sticky errors are thrown).
  std::string figures(Dim2 block);
  // A sticky fault of the loaded kernel: UserKernels::note_fault (it is not run again until recompiled).
  void note_fault(UserKernels* kernels, const GpuError& e) const;
  // Forgets the kernel (abandon: after a sticky fault, without unloading it now) and unmarks the target.
  void drop(UserKernels* kernels, bool abandon) noexcept;

 private:
  kernel::Target m_target;
  std::shared_ptr<kernel::LoadedKernel> m_kernel;
  UserKernel m_published;
  std::string m_figures;
  Dim2 m_figures_block{};
  uint64_t m_figures_generation = 0;
};

// The app's user kernels for code that has no LabEnv (the labs' sweep targets, app/<lab>/*_sweep_target.cpp):
// App sets its own while it lives (and clears it when it goes); tests set theirs. Null: none, and a sweep of
// kernel=user says where to write one.
UserKernels* active_user_kernels();
void set_active_user_kernels(UserKernels* k);

// "kernel = user: no heat_step has been compiled: ..." when `values_kernel` is "user" and no kernel of `t` is
// published in active_user_kernels(); nullopt otherwise. "built-in" and "user" are the only values (else the
// message lists them). The sweep targets' check of their `kernel` parameter.
std::optional<std::string> check_user_kernel_choice(const std::string& value, kernel::Target t);

}  // namespace bs
