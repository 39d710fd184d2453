// compile_service.h: compiles on a worker thread for the editor, so the UI never waits on NVRTC. The UI
// submits a request (each edit), gets a ticket, and polls the state once a frame. Only the newest request
// matters: a newer submission supersedes a queued or running one, whose result is dropped and never
// delivered. A superseded, cancelled or destroyed service abandons the running compile: the request's
// CompileControl::abandon is the service's flag, and compile_kernel (isolated_compile.h) kills the compiler's
// process at once, so Cancel and closing the app never wait on NVRTC (a fake `compile` may ignore the flag).
// Destruction abandons, waits for the compile function to return, then joins.
#pragma once

#include <atomic>
#include <condition_variable>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "gpu/kernel/compiler.h"

namespace bs::kernel {

enum class CompileState { Idle, Queued, Compiling, Done, Cancelled };
inline constexpr auto k_compile_state_names =
    enum_names<CompileState>({{CompileState::Idle, "idle"},
                              {CompileState::Queued, "queued"},
                              {CompileState::Compiling, "compiling"},
                              {CompileState::Done, "done"},
                              {CompileState::Cancelled, "cancelled"}});

// The state of the newest ticket.
struct CompileProgress {
  CompileState state = CompileState::Idle;
  uint64_t ticket = 0;                          // the newest ticket (0 before the first submit)
  double elapsed_ms = 0;                        // Compiling: since it started; Done: how long it took
  std::shared_ptr<const CompileResult> result;  // Done only
};

class CompileService {
 public:
  using CompileFn = std::function<CompileResult(const CompileRequest&)>;
  // Called on the worker thread for each result that is delivered (the newest ticket's only), with the
  // service's lock held, before poll() reports Done: keep it short (e.g. wake the UI) and do not call the
  // service from it.
  using DeliverFn = std::function<void(uint64_t ticket, const CompileResult&)>;

  // `compile` does the work (e.g. compile_cached with a KernelCache; tests pass a fake).
  explicit CompileService(CompileFn compile, DeliverFn on_delivered = {});
  ~CompileService();
  CompileService(const CompileService&) = delete;
  CompileService& operator=(const CompileService&) = delete;

  // Queues `r`, superseding whatever is queued or running; returns its ticket (1, 2, ...).
  uint64_t submit(CompileRequest r);
  // Cancels the newest ticket (queued: never runs; running: its result is dropped). No effect once Done.
  void cancel();
  CompileProgress poll() const;
  // Waits until `ticket` is Done or Cancelled, or superseded (then returns the newest's progress), or the
  // timeout passes. For the CLI and tests; the UI polls.
  CompileProgress wait(uint64_t ticket, std::chrono::milliseconds timeout) const;
  // How many results were delivered, and how many dropped as stale or cancelled.
  uint64_t delivered() const;
  uint64_t dropped() const;

 private:
  void worker();

  CompileFn m_compile;
  DeliverFn m_on_delivered;
  mutable std::mutex m_mutex;
  mutable std::condition_variable m_changed;
  std::optional<CompileRequest> m_pending;  // the newest request, not started yet
  uint64_t m_latest = 0;                    // the newest ticket
  uint64_t m_running = 0;                   // the ticket NVRTC works on now (0 = none)
  CompileState m_state = CompileState::Idle;
  std::chrono::steady_clock::time_point m_started{};
  double m_elapsed_ms = 0;
  std::shared_ptr<const CompileResult> m_result;
  uint64_t m_delivered = 0, m_dropped = 0;
  bool m_stop = false;
  std::atomic<bool> m_abandon{false};  // set to stop the running compile; cleared when the next one starts
  std::thread m_thread;  // last: starts after every member above is ready
};

}  // namespace bs::kernel
