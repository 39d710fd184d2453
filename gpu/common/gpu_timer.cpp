// gpu_timer.cpp: see gpu_timer.h.
#include "gpu/common/gpu_timer.h"

namespace bs {

void EventTimer::begin(cudaStream_t stream) {
  if (m_free.empty()) m_free.emplace_back();
  m_pending.push_back(std::move(m_free.back()));
  m_free.pop_back();
  m_pending.back().start.record(stream);
  m_open = true;
}

void EventTimer::end(cudaStream_t stream, double work_units) {
  if (!m_open) return;
  m_pending.back().stop.record(stream);
  m_pending.back().work_units = work_units;
  m_open = false;
}

std::vector<EventTimer::Sample> EventTimer::poll() {
  std::vector<Sample> out;
  while (!m_pending.empty() && !(m_open && m_pending.size() == 1)) {
    Pair& p = m_pending.front();
    const cudaError_t q = cudaEventQuery(p.stop.get());
    if (q == cudaErrorNotReady) break;
    if (q != cudaSuccess) BS_CUDA_CHECK(q);
    out.push_back({elapsed_ms(p.start, p.stop), p.work_units});
    m_free.push_back(std::move(p));
    m_pending.pop_front();
  }
  return out;
}

void EventTimer::abandon() noexcept {
  for (auto& p : m_pending) {
    p.start.abandon();
    p.stop.abandon();
  }
  for (auto& p : m_free) {
    p.start.abandon();
    p.stop.abandon();
  }
  m_pending.clear();
  m_free.clear();
  m_open = false;
}

}  // namespace bs
