// cpu_job.cpp: see cpu_job.h.
#include "core/cpu_job.h"

#include <exception>

namespace bs {

CpuJob::~CpuJob() {
  cancel();
  wait();
}

void CpuJob::start(std::string label, Work work) {
  cancel();
  wait();
  m_label = std::move(label);
  m_control = std::make_unique<JobControl>();
  {
    std::lock_guard lock(m_mutex);
    m_error.clear();
  }
  m_state = State::Running;
  m_thread = std::thread([this, work = std::move(work), ctl = m_control.get()] {
    try {
      work(*ctl);
      m_state = ctl->cancelled() ? State::Cancelled : State::Done;
    } catch (const JobCancelled&) {
      m_state = State::Cancelled;
    } catch (const std::exception& e) {
      std::lock_guard lock(m_mutex);
      m_error = e.what();
      m_state = State::Failed;
    }
  });
}

void CpuJob::cancel() {
  if (m_control) m_control->cancel();
}

void CpuJob::wait() {
  if (m_thread.joinable()) m_thread.join();
}

std::string CpuJob::error() const {
  std::lock_guard lock(m_mutex);
  return m_error;
}

bool finish_job(const CpuJob& job, std::string& status, const std::function<void()>& on_done) {
  switch (job.state()) {
    case CpuJob::State::Done:
      status.clear();
      if (on_done) on_done();
      return true;
    case CpuJob::State::Cancelled:
      status = "cancelled";
      return true;
    case CpuJob::State::Failed:
      status = job.error();
      return true;
    case CpuJob::State::Idle:
    case CpuJob::State::Running:
      break;
  }
  return false;
}

bool poll_job(const CpuJob& job, bool& running, double& progress, std::string& status,
              const std::function<void()>& on_done) {
  running = job.running();
  progress = job.progress();
  return !running && finish_job(job, status, on_done);
}

}  // namespace bs
