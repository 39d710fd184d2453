// kernel_simulator.cpp: see kernel_simulator.h.
#include "app/kernel/kernel_simulator.h"

#include <unistd.h>

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

// The report of compute-sanitizer is kept to this many bytes (its summary is at the end).
constexpr size_t k_max_report = 64 * 1024;

bool severe(sim::DiagKind k) {
  return k == sim::DiagKind::GlobalOutOfBounds || k == sim::DiagKind::SharedOutOfBounds ||
         k == sim::DiagKind::SharedRace || k == sim::DiagKind::BarrierDivergence;
}

std::string size_arg(kernel::Target t, const SimSettings& s) {
  switch (t) {
    case kernel::Target::Heat:
      return std::to_string(s.size_x) + "x" + std::to_string(s.size_y);
    case kernel::Target::Vector:
      return std::to_string(s.size_x);
    case kernel::Target::Matmul:
      return std::to_string(s.size_x) + "x" + std::to_string(s.size_y) + "x" + std::to_string(s.size_z);
  }
  return {};
}

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
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

std::string find_on_path(const std::string& program, const char* path_env) {
  if (!path_env) return {};
  const std::string path(path_env);
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = path.find(':', start);
    const std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) {
      const std::string full = (std::filesystem::path(dir) / program).string();
      if (::access(full.c_str(), X_OK) == 0) return full;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

KernelSimulator::KernelSimulator() {
  for (kernel::Target t : k_targets) {
    Slot& s = slot(t);
    s.settings = SimSettings::defaults(t);
  }
}

KernelSimulator::~KernelSimulator() {
  m_job.cancel();
  m_job.wait();
  m_gpu_job.wait();
}

void KernelSimulator::set_gpu(bool available, std::string reason) {
  m_gpu = available;
  m_gpu_reason = std::move(reason);
}

std::string KernelSimulator::gpu_check_unavailable() const {
  if (!m_gpu) return "needs a CUDA GPU (" + (m_gpu_reason.empty() ? std::string("none found") : m_gpu_reason) + ")";
  if (find_on_path("compute-sanitizer", std::getenv("PATH")).empty())
    return "needs compute-sanitizer on the PATH (it comes with the CUDA toolkit: add /usr/local/cuda/bin)";
  return {};
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
    m_job.cancel();
    m_job.wait();
  }
  auto result = std::make_shared<SimOutcome>();
  m_job_result = result;
  m_job_target = t;
  m_job_revision = revision;
  m_job_taken = false;
  s.model.status = "simulating " + settings_text(t, s.settings) + " ...";
  s.model.status_error = false;
  const std::string ptx = compiled->ptx, name = compiled->lowered_name.empty() ? compiled->kernel_name
                                                                               : compiled->lowered_name;
  const SimSettings settings = s.settings;
  m_job.start("simulate " + name, [t, ptx, name, settings, result](JobControl& ctl) {
    *result = simulate_contract(t, ptx, name, settings, &ctl);
  });
  return true;
}

void KernelSimulator::cancel() {
  m_job.cancel();
}

void KernelSimulator::wait() {
  m_job.wait();
  m_gpu_job.wait();
}

bool KernelSimulator::update() {
  bool changed = false;
  Slot& s = slot(m_job_target);
  if (!m_job_taken) {
    bool running = false;
    double progress = 0;
    changed = poll_job(m_job, running, progress, s.model.status, [&] {
      m_job_taken = true;
      s.outcome = m_job_result;
      s.revision = m_job_revision;
      s.model.status.clear();
      if (!s.outcome->trace) {
        s.model.status = s.outcome->failure;
        s.model.status_error = true;
      }
      s.model.maps_valid = false;
      s.model.touches.reset();
      s.model.picked_buffer = -1;
      s.model.view_tab = 0;
    });
    if (changed) m_job_taken = true;
    s.model.running = running;
    s.model.progress = progress;
    if (m_job.state() == CpuJob::State::Failed || m_job.state() == CpuJob::State::Cancelled)
      s.model.status_error = m_job.state() == CpuJob::State::Failed;
  }
  if (!m_gpu_taken) {
    Slot& g = slot(m_gpu_target);
    bool running = false;
    double progress = 0;
    std::string status;
    if (poll_job(m_gpu_job, running, progress, status, [&] { g.model.gpu_report = *m_gpu_report; })) {
      m_gpu_taken = true;
      if (!status.empty()) g.model.gpu_report = status;
    }
    g.model.gpu_check_running = running;
  }
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
  if (m_gpu_job.running()) return;
  const std::string sanitizer = find_on_path("compute-sanitizer", std::getenv("PATH"));
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  Slot& s = slot(t);
  if (sanitizer.empty() || self.empty()) {
    s.model.gpu_report = sanitizer.empty() ? "compute-sanitizer is not on the PATH" : "cannot find blockscope's own binary";
    return;
  }
  const std::string file =
      (std::filesystem::temp_directory_path() / ("blockscope-check-" + std::to_string(::getpid()) + ".cu")).string();
  std::string err;
  if (!write_text_file(file, source, &err)) {
    s.model.gpu_report = err;
    return;
  }
  const SimSettings st = s.settings;
  const kernel::Contract& c = kernel::contract(t);
  const int bx = st.block_x > 0 ? st.block_x : c.default_block_x, by = st.block_y > 0 ? st.block_y : c.default_block_y;
  const std::string block = t == kernel::Target::Vector ? std::to_string(bx) : std::to_string(bx) + "x" + std::to_string(by);
  const std::string cmd = shell_quote(sanitizer) + " --tool memcheck --print-limit 20 " + shell_quote(self) +
                          " bench kernel --target " + std::string(kernel::k_target_names.name_of(t)) + " --source " +
                          shell_quote(file) + " --size " + size_arg(t, st) + " --block " + block + " 2>&1";
  auto report = std::make_shared<std::string>();
  m_gpu_report = report;
  m_gpu_target = t;
  m_gpu_taken = false;
  s.model.gpu_report.clear();
  m_gpu_job.start("compute-sanitizer", [cmd, file, report](JobControl&) {
    std::string out = "$ " + cmd + "\n";
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      size_t n = 0;
      while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) {
        out.append(buf, n);
        if (out.size() > k_max_report) out.erase(0, out.size() - k_max_report);  // keep the summary at the end
      }
      const int rc = ::pclose(p);
      out += "\n(exit status " + std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1) + ")";
    } else {
      out += "cannot start compute-sanitizer";
    }
    std::error_code ec2;
    std::filesystem::remove(file, ec2);
    *report = out;
  });
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
