// lab_jobs.cpp: see lab_jobs.h.
#include "app/shell/lab_jobs.h"

#include <algorithm>

#include "app/lab.h"
#include "core/error.h"

namespace bs {

LabJob::~LabJob() {
  m_job.cancel();
  m_job.wait();
  if (m_owner) m_owner->detach(*this);
}

std::string LabJob::gpu_failed_text(const std::string& label) {
  return "the GPU failed during " + (label.empty() ? std::string("the run") : label) + " (see the Device window)";
}

void LabJob::start(std::string label, CpuJob::Work work, std::function<void()> on_done, OnGpuError on_gpu_error) {
  m_job.cancel();
  m_job.wait();  // the previous work no longer writes its slot
  auto slot = std::make_shared<std::exception_ptr>();
  m_gpu_error = slot;
  m_label = label;
  m_on_done = std::move(on_done);
  m_on_gpu_error = std::move(on_gpu_error);
  m_pending = true;
  m_job.start(std::move(label), [work = std::move(work), slot](JobControl& ctl) {
    try {
      work(ctl);
    } catch (const GpuError&) {
      *slot = std::current_exception();
      throw;  // the job ends Failed; poll reads the slot
    }
  });
}

bool LabJob::poll() {
  const bool running = m_job.running();
  if (m_view.running) *m_view.running = running;
  if (m_view.progress) *m_view.progress = m_job.progress();
  if (!m_pending || running) return false;
  m_pending = false;
  std::string ignored;
  std::string& status = m_view.status ? *m_view.status : ignored;
  if (m_gpu_error && *m_gpu_error) {
    status = gpu_failed_text(m_label);
    if (m_on_gpu_error) {
      try {
        std::rethrow_exception(*m_gpu_error);
      } catch (const GpuError& e) {
        m_on_gpu_error(e);
      }
    }
    if (m_owner) m_owner->hand_off(*m_gpu_error);
    *m_gpu_error = nullptr;
    return true;
  }
  return finish_job(m_job, status, m_on_done);
}

LabJobs::~LabJobs() {
  for (LabJob* j : m_jobs) j->m_owner = nullptr;
}

void LabJobs::attach(LabJob& job, JobView view) {
  if (job.m_owner && job.m_owner != this) job.m_owner->detach(job);
  job.m_owner = this;
  job.m_view = view;
  if (std::find(m_jobs.begin(), m_jobs.end(), &job) == m_jobs.end()) m_jobs.push_back(&job);
}

void LabJobs::detach(LabJob& job) {
  m_jobs.erase(std::remove(m_jobs.begin(), m_jobs.end(), &job), m_jobs.end());
  job.m_owner = nullptr;
}

void LabJobs::poll() {
  for (LabJob* j : m_jobs) j->poll();
}

bool LabJobs::busy() const {
  return std::any_of(m_jobs.begin(), m_jobs.end(), [](const LabJob* j) { return j->running() || j->m_pending; });
}

void LabJobs::cancel_all() {
  for (LabJob* j : m_jobs) j->cancel();
}

void LabJobs::wait_all() {
  for (LabJob* j : m_jobs) j->wait();
}

void LabJobs::drain(const std::function<void()>& step, const std::function<bool()>& pending) {
  while (busy() || (pending && pending())) {
    wait_all();
    poll();
    if (step) step();
  }
}

bool LabJobs::headless(const LabEnv& env) { return env.gl && env.gl->info().headless; }

void LabJobs::finish_update(const LabEnv& env, const std::function<void()>& step,
                            const std::function<bool()>& pending) {
  if (headless(env)) drain(step, pending);
  rethrow_gpu_error();
}

void LabJobs::hand_off(std::exception_ptr gpu_error) {
  if (gpu_error && !m_gpu_error) m_gpu_error = std::move(gpu_error);
}

void LabJobs::rethrow_gpu_error() {
  if (!m_gpu_error) return;
  std::exception_ptr e = m_gpu_error;
  m_gpu_error = nullptr;
  std::rethrow_exception(e);
}

}  // namespace bs
