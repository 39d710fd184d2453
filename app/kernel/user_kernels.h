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
#include <string>

#include "gpu/kernel/compiler.h"

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
  bool m_in_use[k_targets] = {};
  uint64_t m_next_generation = 1;
};

}  // namespace bs
