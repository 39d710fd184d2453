// lab_sim.cpp: see lab_sim.h.
#include "app/kernel/lab_sim.h"

#include "sim/sim.h"

namespace bs {

namespace {
constexpr uint64_t k_lab_record_bytes = uint64_t{128} << 20;  // a lab's run keeps less than the editor's
}  // namespace

LabSimulation::LabSimulation() {
  m_view.gpu_check_clicked = std::make_shared<bool>(false);
}

bool LabSimulation::start(const UserKernel& k, LabSimRequest r) {
  m_view.status.clear();
  if (!k || k.result->ptx.empty() || k.result->lowered_name.empty()) {
    m_view.status = "this compile has no PTX for the simulator: compile the kernel again in the Kernel editor";
    return false;
  }
  if (r.inputs.record_bytes == 0) r.inputs.record_bytes = k_lab_record_bytes;
  m_job.cancel();
  m_job.wait();
  auto p = std::make_shared<Pending>();
  p->request = std::move(r);
  p->kernel = k.result->kernel_name;
  GpuCheckRequest check{p->request.target, k.source, p->request.settings, std::nullopt};
  if (p->request.inputs.vector_op) check.op = vector::to_string(*p->request.inputs.vector_op);
  m_check_request = std::move(check);
  m_pending = p;
  m_generation = k.generation;
  std::shared_ptr<const kernel::CompileResult> compiled = k.result;
  m_job.start("simulating your " + p->kernel, [p, compiled](JobControl& ctl) {
    p->outcome = simulate_contract(p->request.target, compiled->ptx, compiled->lowered_name, p->request.settings,
                                   &ctl, &p->request.inputs);
  });
  m_view.running = true;
  m_view.progress = 0;
  return true;
}

bool LabSimulation::check_on_gpu() {
  if (!m_check_request) {
    m_view.gpu_report = "simulate a kernel first: the GPU check runs the same kernel and launch";
    return false;
  }
  const bool started = m_check.start(*m_check_request);
  refresh_gpu_check();
  return started;
}

void LabSimulation::refresh_gpu_check() {
  ui::SimulatedRunView& v = m_view;
  const std::string why = m_check.unavailable();
  v.gpu_check_enabled = why.empty() && m_check_request.has_value();
  v.gpu_check_reason = !why.empty() ? why : m_check_request ? "" : "simulate a kernel first";
  v.gpu_check_running = m_check.running();
  v.gpu_summary = m_check.summary();
  v.gpu_clean = m_check.clean();
  if (!m_check.report().empty()) v.gpu_report = m_check.report();
}

bool LabSimulation::poll() {
  if (*m_view.gpu_check_clicked) {
    *m_view.gpu_check_clicked = false;
    check_on_gpu();
  }
  m_check.poll();
  // Only once a kernel was simulated: a lab on the GPU path never asks the device from here.
  if (m_check_request) refresh_gpu_check();
  m_view.running = m_job.running();
  m_view.progress = m_job.progress();
  if (!m_pending || m_job.running()) return false;
  const std::shared_ptr<Pending> p = std::move(m_pending);
  m_pending.reset();
  bool done = false;
  finish_job(m_job, m_view.status, [&] {
    take(p->request, p->outcome);
    done = true;
  });
  return done;
}

std::optional<ui::Readout> LabSimulation::readout() const {
  if (!m_view.has) return std::nullopt;
  std::string hint = m_view.label + ": " + (m_view.failure.empty() ? m_view.check : m_view.failure);
  if (!m_view.diagnostics.empty()) hint += "; " + m_view.diagnostics.front();
  return ui::Readout{"check", m_view.passed ? "pass" : "FAIL", "simulated", std::move(hint)};
}

void LabSimulation::clear() {
  const std::shared_ptr<bool> clicked = m_view.gpu_check_clicked;
  m_view = {};
  m_view.gpu_check_clicked = clicked;
  m_check.clear();
  m_outcome.reset();
  m_problems.clear();
}

void LabSimulation::take(const LabSimRequest& r, const SimOutcome& o) {
  auto out = std::make_shared<SimOutcome>(o);
  ui::SimulatedRunView& v = m_view;
  v.has = true;
  v.label = "simulated (no GPU): your " + std::string(kernel::contract(r.target).kernel_name) + ", " +
            settings_text(r.target, r.settings);
  v.note = r.note;
  v.ran = o.ran;
  v.check = o.check;
  v.failure = o.failure;
  v.summary = o.summary;
  v.diagnostics.clear();
  v.problems.clear();
  v.problem_count = 0;
  v.problem_note.clear();
  m_problems.clear();
  if (o.trace) {
    for (const sim::Diagnostic& d : o.trace->result.diagnostics) v.diagnostics.push_back(sim::format_diagnostic(d));
    m_problems = ui::problem_elements(*o.trace, k_max_problem_elements);
    for (const ui::ProblemElements& pe : m_problems) {
      v.problem_count += pe.total;
      for (size_t i = 0; i < pe.elements.size() && v.problems.size() < 16; ++i)
        v.problems.push_back(pe.line(*o.trace, i));
    }
    if (!o.trace->all_blocks)
      v.problem_note = "only " + o.trace->sampled +
                       " were recorded: elements no thread or several threads wrote are listed by the "
                       "diagnostics, not marked";
  }
  v.passed = o.ran && o.passed && v.diagnostics.empty();
  v.verdict = v.passed ? "PASS (simulated)"
              : !o.ran ? "FAIL (simulated): the run stopped"
              : o.passed ? "FAIL (simulated): the output matches, but the simulator found problems"
                         : "FAIL (simulated)";
  m_outcome = std::move(out);
}

}  // namespace bs
