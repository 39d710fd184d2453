// sweep_window.cpp: see sweep_window.h. The sweep runs on a CpuJob thread (GPU series too: the labs' GPU
// runners are thread-agnostic, and the app pauses its live lab while pauses_live_lab()). Progress and the
// result cross threads through one mutex-guarded struct. A sweep is planned before it starts (notes such as
// "no GPU here", and a duration estimate that asks before a long run).
#include "app/sweep/sweep_window.h"

#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

#include "app/kernel/user_kernels.h"
#include "app/sweep/record.h"
#include "app/sweep/roofline.h"
#include "app/sweep/sweep.h"
#include "app/layout.h"
#include "core/cpu_job.h"
#include "core/error.h"
#include "ui/sweep/sweep_panel.h"

namespace bs {

namespace {

// Written by the worker, read by the frame loop.
struct Shared {
  std::mutex mutex;
  std::optional<sweep::Progress> progress;
  std::optional<sweep::Result> result;
};

std::string default_out_dir() {
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/blockscope-exports/" + record::compact_timestamp();
}

void copy_text(char* dst, size_t n, const std::string& s) {
  const size_t len = std::min(n - 1, s.size());
  s.copy(dst, len);
  dst[len] = '\0';
}

std::string join_values(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v)
    s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

struct SweepWindow::Impl {
  explicit Impl(const LabEnv& e) : env(e) {}

  const LabEnv& env;
  ui::SweepPanelModel model;
  CpuJob job;
  std::shared_ptr<Shared> shared = std::make_shared<Shared>();
  bool running = false;
  bool running_gpu = false;
  std::optional<sweep::Result> result;
  fig::Figure figure;
  std::vector<record::ExportRequest> pending;
  std::string pending_dir;
  std::string sticky;
  std::string auto_dir;
  std::optional<sweep::Plan> awaiting;  // a long sweep waiting for "Run anyway"
  // Files this result has written into exported_dir so far: each export's record.json lists them all.
  std::string exported_dir;
  std::vector<std::string> exported_files;
  std::optional<roofline::Ceilings> gpu_ceilings, cpu_ceilings;  // for the roofline figure

  const sweep::Target& target() const {
    return *sweep::find_target(model.labs[static_cast<size_t>(model.lab)]);
  }

  void set_lab(int index) {
    model.lab = index;
    model.params.clear();
    for (const sweep::ParamSpec& p : target().params())
      model.params.push_back({p.name, p.help, p.sweep_example});
    model.param[0] = 0;
    model.param[1] = -1;
    prefill(0);
    model.values[1][0] = '\0';
    model.fixed[0] = '\0';
  }

  void prefill(int k) {
    const int i = model.param[k];
    if (i >= 0 && i < static_cast<int>(model.params.size()))
      copy_text(model.values[k], sizeof model.values[k], model.params[static_cast<size_t>(i)].example);
  }

  sweep::Definition definition() const {
    sweep::Definition d;
    d.lab = model.labs[static_cast<size_t>(model.lab)];
    for (int k = 0; k < 2; ++k) {
      const int i = model.param[k];
      if (i < 0 || i >= static_cast<int>(model.params.size())) continue;
      d.params.push_back(
          sweep::parse_param(model.params[static_cast<size_t>(i)].name + "=" + model.values[k]));
    }
    std::string token;
    const std::string fixed = model.fixed;
    for (size_t i = 0; i <= fixed.size(); ++i) {
      const char c = i < fixed.size() ? fixed[i] : ',';
      if (c == ',' || c == ';' || c == ' ') {
        if (!token.empty()) {
          const auto [name, value] = sweep::parse_fixed(token);
          d.fixed[name] = value;
        }
        token.clear();
      } else {
        token += c;
      }
    }
    d.repetitions = model.repetitions;
    d.warmup = model.warmup;
    d.device = model.device == 1   ? sweep::Device::Gpu
               : model.device == 2 ? sweep::Device::Cpu
               : model.device == 3 ? sweep::Device::Auto
                                   : sweep::Device::All;
    return d;
  }

  void show(const sweep::Definition& d) {
    // A loaded session or preset shows its own set-up, never the figure of the sweep it replaces beside it
    // (a sweep still running keeps its result: it is collected when it ends).
    if (!running) {
      result.reset();
      model.export_message.clear();
      model.notes.clear();
      model.stopped.clear();
    }
    const auto labs = sweep::lab_names();
    for (size_t i = 0; i < labs.size(); ++i)
      if (labs[i] == d.lab) set_lab(static_cast<int>(i));
    model.param[1] = -1;
    for (size_t k = 0; k < d.params.size() && k < 2; ++k) {
      for (size_t i = 0; i < model.params.size(); ++i)
        if (model.params[i].name == d.params[k].name) model.param[k] = static_cast<int>(i);
      copy_text(model.values[k], sizeof model.values[k], join_values(d.params[k].values));
    }
    std::string fixed;
    for (const auto& [k, v] : d.fixed)
      fixed += (fixed.empty() ? "" : ", ") + k + "=" + v;
    copy_text(model.fixed, sizeof model.fixed, fixed);
    model.repetitions = d.repetitions;
    model.warmup = d.warmup;
    model.device = d.device == sweep::Device::Gpu    ? 1
                   : d.device == sweep::Device::Cpu  ? 2
                   : d.device == sweep::Device::Auto ? 3
                                                     : 0;
  }

  void start() {
    model.error.clear();
    model.stopped.clear();
    model.notes.clear();
    model.confirm.clear();
    model.progress_line.clear();
    awaiting.reset();
    sweep::Plan plan;
    try {
      const sweep::Definition d = definition();
      if (d.device == sweep::Device::Gpu && !env.device.available) {
        model.error = "device GPU: no CUDA device (" + env.device.reason + "): choose auto or CPU";
        return;
      }
      plan = sweep::plan_sweep(d, env.device);
    } catch (const std::exception& e) {  // InvalidRequest: bad input, or nothing could run here
      model.error = e.what();
      return;
    }
    model.notes = plan.notes;
    if (plan.estimate_s > sweep::k_confirm_above_s) {
      model.confirm = "This sweep is estimated at about " + sweep::duration_text(plan.estimate_s) +
                      " (a conservative estimate). Run it anyway? Fewer points, repetitions or smaller sizes "
                      "make it shorter.";
      awaiting = std::move(plan);
      return;
    }
    start_plan(std::move(plan));
  }

  void start_plan(sweep::Plan plan) {
    model.confirm.clear();
    awaiting.reset();
    {
      std::lock_guard lock(shared->mutex);
      shared->progress.reset();
      shared->result.reset();
    }
    running = true;
    running_gpu = plan.run_gpu;
    model.progress = 0;
    model.eta_s = -1;
    model.notes.push_back(
        "estimated duration: up to " + sweep::duration_text(plan.estimate_s) +
        "; the live lab is paused while the sweep runs, so it does not disturb the timings");
    auto sh = shared;
    job.start("sweep " + plan.definition.lab, [plan = std::move(plan), sh](JobControl& ctl) {
      sweep::Result r = sweep::run_plan(plan, ctl, [sh](const sweep::Progress& p) {
        std::lock_guard lock(sh->mutex);
        sh->progress = p;
      });
      std::lock_guard lock(sh->mutex);
      sh->result = std::move(r);
    });
  }

  void poll() {
    if (!running) return;
    {
      std::lock_guard lock(shared->mutex);
      if (shared->progress) {
        model.eta_s = shared->progress->eta_s;
        model.progress_line = shared->progress->line;
      }
      model.progress = job.progress();
      if (job.running()) return;
      if (shared->result) {
        result = std::move(shared->result);
        shared->result.reset();
        exported_dir.clear();
        exported_files.clear();
      }
    }
    running = running_gpu = false;
    if (job.state() == CpuJob::State::Failed) model.error = "the sweep failed: " + job.error();
    if (!result) return;
    model.notes = result->notes;
    for (const sweep::Point& p : result->points) {
      for (const std::string& n : p.notes)
        if (std::find(model.notes.begin(), model.notes.end(), n) == model.notes.end())
          model.notes.push_back(n);
      if (!p.error.empty()) model.notes.push_back(join_values(p.values) + ": " + p.error);
    }
    if (!result->stopped.empty()) {
      model.stopped = result->stopped;
      sticky = result->stopped;
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s%zu points, %zu series, %.1f s", result->cancelled ? "cancelled: " : "",
                  result->points.size(), result->series_names().size(), result->elapsed_s);
    model.result_label = buf;
    if (model.out_dir == auto_dir) {
      auto_dir = default_out_dir();
      copy_text(model.out_dir, sizeof model.out_dir, auto_dir);
    }
    rebuild_figure();
  }

  void rebuild_figure() {
    model.has_result = result.has_value();
    model.figure_message.clear();
    // The roofline of a lab without a work model is refused: the result's lab, else the one chosen.
    const sweep::Target* t = result ? sweep::find_target(result->definition.lab) : &target();
    if (model.metric == 2 && t) model.figure_message = sweep::roofline_refusal(*t);
    if (!result || !model.figure_message.empty()) {
      model.figure = nullptr;
      return;
    }
    figure = sweep::figure_for(*result, figure_options());
    model.figure = &figure;
  }

  sweep::FigureOptions figure_options() const {
    sweep::FigureOptions o;
    o.metric = model.metric == 2   ? sweep::Metric::Roofline
               : model.metric == 1 ? sweep::Metric::Throughput
                                   : sweep::Metric::Time;
    o.gpu_ceilings = gpu_ceilings;
    o.cpu_ceilings = cpu_ceilings;
    if (!model.auto_axes) {
      o.log_x = model.log_x;
      o.log_y = model.log_y;
    }
    return o;
  }

  void queue_export(bool csv, bool json, bool svg, bool png) {
    if (!result) return;
    if (!model.figure_message.empty()) {  // a refused roofline: nothing to export
      model.export_message = model.figure_message;
      model.export_failed = true;
      return;
    }
    record::ExportRequest req;
    req.csv = csv;
    req.json = json;
    req.svg = svg;
    req.png = png;
    req.width = std::clamp(model.png_size[0], 64, 16384);
    req.height = std::clamp(model.png_size[1], 64, 16384);
    req.scale = model.png_scale;
    req.figure = figure_options();
    req.render_path = to_string(env.path.path);
    if (env.gl) req.render_path += ", GL renderer " + env.gl->info().renderer;
    // The user's kernels in use (kernel lab), with their source, so the record says what ran.
    if (env.user_kernels) req.user_kernels = env.user_kernels->record_json();
    pending.push_back(req);
    pending_dir = model.out_dir;
  }
};

SweepWindow::SweepWindow(const LabEnv& env) : m(std::make_unique<Impl>(env)) {
  m->model.labs = sweep::lab_names();
  m->model.gpu_available = env.device.available;
  m->model.gpu_reason = env.device.reason;
  m->set_lab(0);
  m->auto_dir = default_out_dir();
  copy_text(m->model.out_dir, sizeof m->model.out_dir, m->auto_dir);
}

SweepWindow::~SweepWindow() {
  m->job.cancel();
  m->job.wait();
}

void SweepWindow::draw(bool* open) {
  m->poll();
  if (open && !*open) return;
  if (!begin_window("Sweep", Slot::Sweep, open)) {
    ImGui::End();
    return;
  }
  ui::SweepPanelActions a;
  m->model.running = m->running;
  ui::draw_sweep_panel(m->model, a);
  ImGui::End();
  if (a.lab_changed) {
    m->set_lab(m->model.lab);
    if (!m->result) m->rebuild_figure();  // no result yet: the refusal follows the lab chosen
  }
  for (int k = 0; k < 2; ++k)
    if (a.param_changed[k]) m->prefill(k);
  if (a.run && !m->running) m->start();
  if (a.confirm_run && m->awaiting && !m->running) m->start_plan(std::move(*m->awaiting));
  if (a.confirm_drop || a.lab_changed || a.param_changed[0] || a.param_changed[1]) {  // the question is stale
    m->awaiting.reset();
    m->model.confirm.clear();
  }
  if (a.cancel) m->job.cancel();
  if (a.figure_changed) m->rebuild_figure();
  if (a.export_csv || a.export_json || a.export_svg || a.export_png)
    m->queue_export(a.export_csv, a.export_json, a.export_svg, a.export_png);
}

void SweepWindow::after_render() {
  if (m->pending.empty() || !m->result) return;
  std::vector<std::string> files, errors;
  for (const record::ExportRequest& req : m->pending) {
    try {
      if (const auto err = record::check_request(req)) throw InvalidRequest(*err);
      record::prepare_output_dir(m->pending_dir);
      const record::DirLock lock(m->pending_dir);  // not while a CLI sweep writes there
      if (m->exported_dir != m->pending_dir) {
        m->exported_dir = m->pending_dir;
        m->exported_files.clear();
      }
      const record::ExportOutcome o =
          record::write_exports(*m->result, m->pending_dir, req, true, m->exported_files);
      for (const std::string& f : o.files)
        if (std::find(m->exported_files.begin(), m->exported_files.end(), f) == m->exported_files.end())
          m->exported_files.push_back(f);
      files.insert(files.end(), o.files.begin(), o.files.end());
      errors.insert(errors.end(), o.errors.begin(), o.errors.end());
    } catch (const std::exception& e) {
      errors.emplace_back(e.what());
    }
  }
  m->pending.clear();
  m->model.export_failed = !errors.empty();
  if (!errors.empty()) {
    m->model.export_message = errors.front();
  } else {
    std::string list;
    for (const std::string& f : files)
      if (list.find(f) == std::string::npos) list += (list.empty() ? "" : ", ") + f;
    m->model.export_message = "wrote " + list + " into " + m->pending_dir;
  }
}

void SweepWindow::load_definition(const nlohmann::json& definition, bool run_now) {
  const sweep::Definition d = sweep::definition_from_json(definition);
  if (!sweep::find_target(d.lab)) throw InvalidRequest("sweep definition: unknown lab '" + d.lab + "'");
  m->show(d);
  if (run_now && !m->running) m->start();
}

bool SweepWindow::queue_export_all(const std::string& dir) {
  if (!m->result) return false;
  m->queue_export(true, true, true, true);
  m->pending_dir = dir;
  return true;
}

bool SweepWindow::queue_export(const std::string& dir, bool csv, bool json, bool svg, bool png) {
  if (!m->result) return false;
  m->queue_export(csv, json, svg, png);
  m->pending_dir = dir;
  return true;
}

std::string SweepWindow::export_message() const {
  return m->model.export_message;
}

bool SweepWindow::has_result() const {
  return m->result.has_value();
}

bool SweepWindow::busy() const {
  return m->job.running();
}

bool SweepWindow::gpu_busy() const {
  return m->job.running() && m->running_gpu;
}

bool SweepWindow::pauses_live_lab() const {
  return m->job.running();  // any timed sweep: GPU series compete for the device, CPU series for the cores
}

std::string SweepWindow::pending_confirmation() const {
  return m->model.confirm;
}

void SweepWindow::confirm_run(bool run) {
  if (run && m->awaiting && !m->running)
    m->start_plan(std::move(*m->awaiting));
  else if (!run) {
    m->awaiting.reset();
    m->model.confirm.clear();
  }
}

const std::string& SweepWindow::sticky_error() const {
  return m->sticky;
}

void SweepWindow::clear_sticky_error() {
  m->sticky.clear();
}

nlohmann::json SweepWindow::definition_json() const {
  return sweep::to_json(m->definition());
}

bool SweepWindow::wants_ceilings() const {
  return m->model.metric == 2;
}

void SweepWindow::set_ceilings(const std::optional<roofline::Ceilings>& gpu,
                               const std::optional<roofline::Ceilings>& cpu) {
  const auto same = [](const std::optional<roofline::Ceilings>& a,
                       const std::optional<roofline::Ceilings>& b) {
    return a.has_value() == b.has_value() && (!a || (a->key == b->key && a->measured_utc == b->measured_utc));
  };
  if (same(gpu, m->gpu_ceilings) && same(cpu, m->cpu_ceilings)) return;
  m->gpu_ceilings = gpu;
  m->cpu_ceilings = cpu;
  if (m->model.metric == 2) m->rebuild_figure();
}

void SweepWindow::set_metric(int metric) {
  m->model.metric = std::clamp(metric, 0, 2);
  m->rebuild_figure();
}

const fig::Figure* SweepWindow::figure() const {
  return m->model.figure;
}

}  // namespace bs
