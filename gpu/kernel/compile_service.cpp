// compile_service.cpp: see compile_service.h.
#include "gpu/kernel/compile_service.h"

namespace bs::kernel {

namespace {
double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

CompileService::CompileService(CompileFn compile, DeliverFn on_delivered)
    : m_compile(std::move(compile)),
      m_on_delivered(std::move(on_delivered)),
      m_thread([this] { worker(); }) {}

CompileService::~CompileService() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
    m_pending.reset();
    m_abandon = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

uint64_t CompileService::submit(CompileRequest r) {
  uint64_t ticket;
  {
    std::lock_guard lock(m_mutex);
    ticket = ++m_latest;
    if (m_pending) ++m_dropped;  // the stale queued request never runs
    if (m_running) m_abandon = true;  // the running one is stale: stop it
    m_pending = std::move(r);
    m_state = CompileState::Queued;
    m_result.reset();
    m_elapsed_ms = 0;
  }
  m_changed.notify_all();
  return ticket;
}

void CompileService::cancel() {
  {
    std::lock_guard lock(m_mutex);
    if (m_state != CompileState::Queued && m_state != CompileState::Compiling) return;
    if (m_pending) {
      m_pending.reset();
      ++m_dropped;
    }
    if (m_running) m_abandon = true;
    m_state = CompileState::Cancelled;
  }
  m_changed.notify_all();
}

CompileProgress CompileService::poll() const {
  std::lock_guard lock(m_mutex);
  CompileProgress p;
  p.state = m_state;
  p.ticket = m_latest;
  p.result = m_result;
  p.elapsed_ms = m_state == CompileState::Compiling ? ms_between(m_started, std::chrono::steady_clock::now())
                                                    : m_elapsed_ms;
  return p;
}

CompileProgress CompileService::wait(uint64_t ticket, std::chrono::milliseconds timeout) const {
  {
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, timeout, [&] {
      return m_latest != ticket || m_state == CompileState::Done || m_state == CompileState::Cancelled ||
             m_state == CompileState::Idle;
    });
  }
  return poll();
}

uint64_t CompileService::delivered() const {
  std::lock_guard lock(m_mutex);
  return m_delivered;
}

uint64_t CompileService::dropped() const {
  std::lock_guard lock(m_mutex);
  return m_dropped;
}

void CompileService::worker() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_changed.wait(lock, [this] { return m_stop || m_pending.has_value(); });
    if (m_stop) return;
    CompileRequest req = std::move(*m_pending);
    m_pending.reset();
    const uint64_t ticket = m_latest;
    m_running = ticket;
    m_abandon = false;
    req.control.abandon = &m_abandon;
    m_state = CompileState::Compiling;
    m_started = std::chrono::steady_clock::now();
    lock.unlock();
    m_changed.notify_all();
    std::optional<CompileResult> result;
    try {
      result = m_compile(req);
    } catch (const std::exception& e) {
      result.emplace();
      result->status = CompileStatus::InternalError;
      result->message = std::string("compile failed: ") + e.what();
    }
    lock.lock();
    m_running = 0;
    // Delivered only if this is still the newest ticket and nobody cancelled it.
    const bool current = ticket == m_latest && m_state == CompileState::Compiling && !m_stop;
    if (current) {
      m_elapsed_ms = ms_between(m_started, std::chrono::steady_clock::now());
      m_result = std::make_shared<const CompileResult>(std::move(*result));
      m_state = CompileState::Done;
      ++m_delivered;
      // Under the lock, so whoever sees Done also sees everything the callback did.
      if (m_on_delivered) m_on_delivered(ticket, *m_result);
    } else {
      ++m_dropped;
    }
    lock.unlock();
    m_changed.notify_all();
    lock.lock();
  }
}

}  // namespace bs::kernel
