// kernel_simulator.cpp: see kernel_simulator.h.
#include "app/kernel/kernel_simulator.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "core/text.h"
#include "ui/kernel/access_map_export.h"

namespace bs {

namespace {

constexpr kernel::Target k_targets[] = {kernel::Target::Heat, kernel::Target::Vector, kernel::Target::Matmul};

bool severe(sim::DiagKind k) {
  return k == sim::DiagKind::GlobalOutOfBounds || k == sim::DiagKind::SharedOutOfBounds ||
         k == sim::DiagKind::SharedRace || k == sim::DiagKind::BarrierDivergence;
}

}  // namespace

std::vector<ui::LineMarker> sim_markers(const SimOutcome& o) {
  std::vector<ui::LineMarker> out;
  if (!o.trace) return out;
  for (const sim::Diagnostic& d : o.trace->result.diagnostics) {
    if (d.line <= 0) continue;
    out.push_back({d.line, severe(d.kind) ? ui::LineMarker::Level::Error : ui::LineMarker::Level::Warning,
                   std::string("simulator: ") + sim::diag_name(d.kind) + ": " + d.message});
  }
  const sim::Failure& f = o.trace->result.failure;
  if (!o.ran && f.line > 0) out.push_back({f.line, ui::LineMarker::Level::Error, "simulator: " + f.message});
  return out;
}

KernelSimulator::KernelSimulator() {
  m_gpu_check.set_gpu(false, "no CUDA device");  // App passes its device query (set_gpu)
  for (kernel::Target t : k_targets) {
    Slot& s = slot(t);
    s.settings = SimSettings::defaults(t);
  }
}

KernelSimulator::~KernelSimulator() {
  m_job.cancel();
  m_job.wait();
  m_gpu_check.wait();
}

void KernelSimulator::set_gpu(bool available, std::string reason) {
  m_gpu_check.set_gpu(available, std::move(reason));
}

bool KernelSimulator::simulate(kernel::Target t, std::shared_ptr<const kernel::CompileResult> compiled,
                               uint64_t revision) {
  Slot& s = slot(t);
  if (!compiled || !compiled->ok()) {
    s.model.status = "compile the kernel first: the simulator runs its PTX";
    s.model.status_error = true;
    return false;
  }
  if (auto e = check_settings(t, s.settings)) {
    s.model.status = *e;
    s.model.status_error = true;
    return false;
  }
  if (m_job.running()) {
    // A run of another target (or this one) goes: its slot says so, and its end is never taken.
    m_job.cancel();
    m_job.wait();
    Slot& old = slot(m_job_target);
    old.model.running = false;
    old.model.status = "cancelled";
    old.model.status_error = false;
  }
  auto result = std::make_shared<SimOutcome>();
  m_job_target = t;
  m_jobs.attach(m_job, {&s.model.running, &s.model.progress, &s.model.status});
  s.model.status = "simulating " + settings_text(t, s.settings) + " ...";
  s.model.status_error = false;
  const std::string ptx = compiled->ptx, name = compiled->lowered_name.empty() ? compiled->kernel_name
                                                                               : compiled->lowered_name;
  const SimSettings settings = s.settings;
  m_job.start(
      "simulate " + name,
      [t, ptx, name, settings, result](JobControl& ctl) { *result = simulate_contract(t, ptx, name, settings, &ctl); },
      [this, t, result, revision] { take(t, result, revision); });
  return true;
}

void KernelSimulator::take(kernel::Target t, std::shared_ptr<SimOutcome> outcome, uint64_t revision) {
  Slot& s = slot(t);
  s.outcome = std::move(outcome);
  s.revision = revision;
  s.model.status.clear();
  if (!s.outcome->trace) {
    s.model.status = s.outcome->failure;
    s.model.status_error = true;
  }
  s.model.maps_valid = false;
  s.model.touches.reset();
  s.model.picked_buffer = -1;
  s.model.view_tab = 0;
}

void KernelSimulator::cancel() {
  m_job.cancel();
}

void KernelSimulator::wait() {
  m_job.wait();
  m_gpu_check.wait();
}

bool KernelSimulator::update() {
  // The job's view writes its slot's running, progress and status; on_done (take) runs once.
  const bool changed = m_job.poll();
  if (changed && (m_job.state() == CpuJob::State::Failed || m_job.state() == CpuJob::State::Cancelled))
    slot(m_job_target).model.status_error = m_job.state() == CpuJob::State::Failed;
  Slot& g = slot(m_gpu_target);
  if (m_gpu_check.poll()) {
    g.model.gpu_report = m_gpu_check.summary().empty() ? m_gpu_check.report()
                                                       : m_gpu_check.summary() + "\n\n" + m_gpu_check.report();
  }
  g.model.gpu_check_running = m_gpu_check.running();
  return changed;
}

std::vector<ui::LineMarker> KernelSimulator::markers(kernel::Target t, uint64_t revision) const {
  const Slot& s = slot(t);
  if (!s.outcome || s.revision != revision) return {};
  return sim_markers(*s.outcome);
}

const SimOutcome* KernelSimulator::outcome(kernel::Target t) const {
  return slot(t).outcome.get();
}

void KernelSimulator::refresh(kernel::Target t, const kernel::CompileResult* compiled, uint64_t revision) {
  Slot& s = slot(t);
  ui::SimPanelModel& m = s.model;
  m.target_name = kernel::k_target_names.name_of(t);
  m.can_simulate = compiled && compiled->ok() && !compiled->ptx.empty();
  m.cannot_reason = m.can_simulate ? "" : "compile the kernel first (the simulator runs its PTX)";
  switch (t) {
    case kernel::Target::Heat:
      m.size_fields = 2;
      m.size_label = "nx, ny";
      m.block_2d = true;
      break;
    case kernel::Target::Vector:
      m.size_fields = 1;
      m.size_label = "n";
      m.block_2d = false;
      break;
    case kernel::Target::Matmul:
      m.size_fields = 3;
      m.size_label = "M, N, K";
      m.block_2d = true;
      break;
  }
  m.size[0] = s.settings.size_x;
  m.size[1] = s.settings.size_y;
  m.size[2] = s.settings.size_z;
  const kernel::Contract& c = kernel::contract(t);
  m.block[0] = s.settings.block_x > 0 ? s.settings.block_x : c.default_block_x;
  m.block[1] = s.settings.block_y > 0 ? s.settings.block_y : c.default_block_y;
  const auto err = check_settings(t, s.settings);
  m.settings_error = err ? *err : "";
  m.settings_text = "simulates " + settings_text(t, s.settings) + " on the lab's inputs (no GPU: labelled simulated, never timed)";
  if (s.outcome && s.outcome->trace) {
    m.trace = s.outcome->trace;
    m.failure = s.outcome->failure;
    m.check = s.outcome->check;
    m.passed = s.outcome->passed;
    m.summary = s.outcome->summary;
    m.stale = s.revision != revision;
  } else {
    m.trace.reset();
  }
  const std::string gpu = gpu_check_unavailable();
  m.gpu_check_enabled = gpu.empty() && m.can_simulate;
  m.gpu_check_reason = !gpu.empty() ? gpu : m.can_simulate ? "" : "compile the kernel first";
}

void KernelSimulator::start_gpu_check(kernel::Target t, const std::string& source) {
  if (m_gpu_check.running()) return;
  m_gpu_target = t;
  m_gpu_check.start({t, source, slot(t).settings, std::nullopt});
  slot(t).model.gpu_report = m_gpu_check.report();
}

void KernelSimulator::export_maps(kernel::Target t) {
  Slot& s = slot(t);
  if (!s.outcome || !s.outcome->trace) return;
  std::string dir = m_export_dir;
  if (dir.empty()) {
    const char* home = std::getenv("HOME");
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    dir = (std::filesystem::path(home && *home ? home : ".") / "blockscope-captures" / ("sim-" + std::string(stamp))).string();
  }
  std::vector<std::string> files;
  std::string err;
  std::vector<ui::Selection> sel = {{ui::Scope::Launch, 0, 0}};
  if (s.model.selection.scope != ui::Scope::Launch) sel.push_back(s.model.selection);
  if (ui::write_access_maps(dir, *s.outcome->trace, sel, &files, &err))
    s.model.export_message = "wrote " + std::to_string(files.size()) + " files into " + dir;
  else
    s.model.export_message = "export failed: " + err;
}

int KernelSimulator::draw(kernel::Target t, std::shared_ptr<const kernel::CompileResult> compiled, uint64_t revision,
                          const std::string& source) {
  refresh(t, compiled.get(), revision);
  Slot& s = slot(t);
  ui::SimPanelActions a;
  ui::draw_sim_panel(s.model, a);
  if (a.settings_changed) {
    s.settings.size_x = s.model.size[0];
    s.settings.size_y = s.model.size[1];
    s.settings.size_z = s.model.size[2];
    s.settings.block_x = s.model.block[0];
    s.settings.block_y = s.model.block_2d ? s.model.block[1] : 1;
  }
  if (a.simulate) simulate(t, compiled, revision);
  if (a.cancel) cancel();
  if (a.gpu_check) start_gpu_check(t, source);
  if (a.export_maps) export_maps(t);
  return a.jump_line;
}

nlohmann::json KernelSimulator::dump(kernel::Target t) {
  Slot& s = slot(t);
  nlohmann::json maps = nlohmann::json::array();
  nlohmann::json j = {{"running", m_job.running()},
                      {"status", s.model.status},
                      {"gpu_check_enabled", s.model.gpu_check_enabled},
                      {"gpu_check_reason", s.model.gpu_check_reason}};
  if (s.outcome) {
    j["ran"] = s.outcome->ran;
    j["failure"] = s.outcome->failure;
    j["check"] = s.outcome->check;
    j["passed"] = s.outcome->passed;
    j["summary"] = s.outcome->summary;
    if (s.outcome->trace) {
      j["diagnostics"] = s.outcome->trace->result.diagnostics.size();
      s.model.trace = s.outcome->trace;
      const ui::AccessMaps& m = ui::current_maps(s.model);
      j["selection"] = m.title;
      for (const ui::BufferMap& b : m.maps)
        maps.push_back({{"name", b.name}, {"read", b.read_elements}, {"written", b.write_elements}, {"unwritten", b.unwritten}});
    }
  }
  j["maps"] = maps;
  return j;
}

}  // namespace bs
