// memory_lab.cpp: the memory lab (see memory_lab.h). GPU runs, CPU runs, the predicted counts and the stride
// sweep run on worker threads (bs::LabJob, app/shell/lab_jobs.h) so frames never wait for them; a GPU failure inside a worker is
// carried back and rethrown from update(), where App handles it (device reset or the CPU path).
#include "app/memory/memory_lab.h"

#include <imgui.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "app/layout.h"
#include "app/memory/memory_sim.h"
#include "app/shell/compute_site.h"
#include "app/shell/lab_jobs.h"
#include "core/error.h"
#include "core/params.h"
#include "core/text.h"
#include "gpu/memory/memory_model.h"
#include "app/roofline/roofline_report.h"
#include "gpu/memory/memory_work.h"
#include "ui/memory/memory_schema.h"
#include "ui/memory/memory_trace.h"

namespace bs {

namespace mem = bs::memory;

namespace {

constexpr int k_gpu_reps = 9;
constexpr int k_cpu_reps = 5;
constexpr int k_stride_points[] = {1, 2, 4, 8, 16, 32, 64};
// The stride chart's sectors per request come from the model on at most this many floats: the ratio is the
// same for any n far above a warp's span, and the count stays quick.
constexpr int64_t k_stride_model_n = int64_t{1} << 20;

struct GpuJobResult {
  std::vector<mem::RunResult> rows;
};
struct CpuJobResult {
  std::vector<mem::RunResult> rows;
  std::atomic<int> stage{0};
  std::vector<std::string> stage_names;
};
struct PredictJobResult {
  mem::Params params;
  std::vector<ui::MemoryPredictionRow> rows;
};
struct StrideJobResult {
  std::string device;
  int64_t n = 0;
  std::vector<ui::StridePoint> points;
};

ui::MemoryResultRow row_of(const mem::RunResult& r) {
  ui::MemoryResultRow v;
  v.name = mem::to_string(r.variant);
  if (!r.gpu)
    v.name += r.device.find("1 thread") != std::string::npos ? " (1 thread)" : " (all threads)";
  else if (r.label.find("(reference)") != std::string::npos)
    v.name += " (reference)";
  v.label = r.label;
  v.device = r.device;
  v.gpu = r.gpu;
  v.ms = r.ms;
  v.gbs = r.gbs;
  v.pct_of_copy = r.pct_of_copy;
  v.check = r.check.text;
  v.check_passed = r.check.passed;
  return v;
}

std::string describe_params(const mem::Params& p) {
  if (p.kernel == mem::Kernel::Transpose)
    return "for " + mem::shape_text(p.rows, p.cols) + ", the whole launch";
  return "for n = " + mem::format_count(p.n) + ", the whole launch";
}

}  // namespace

// The panel's "measured" cell: sectors per request of loads / stores and the bank conflicts (extra
// wavefronts) of the whole launch.
static std::string measured_text(const counters::Result& r) {
  if (!r.ok()) return std::string(counters::to_string(r.status));
  const auto& v = r.values;
  const auto f = [](std::optional<double> x) { return x ? fmt_fixed(*x, 2) : std::string("-"); };
  std::string s = "ld " + f(v.ld_sectors_per_request()) + " / st " + f(v.st_sectors_per_request());
  if (v.shared_ld_conflicts || v.shared_st_conflicts)
    s += ", " + fmt_fixed(v.shared_ld_conflicts.value_or(0) + v.shared_st_conflicts.value_or(0), 0) + " confl.";
  return s;
}

class MemoryLab final : public Lab {
 public:
  explicit MemoryLab(LabEnv& env) : m_env(env) {
    m_jobs.attach(m_gpu_job, {&m_model.gpu_running, nullptr, &m_model.gpu_status});
    m_jobs.attach(m_cpu_job, {&m_model.cpu_running, &m_model.cpu_progress, &m_model.cpu_status});
    m_jobs.attach(m_predict_job, {&m_model.predicting, &m_model.predict_progress, &m_model.predict_status});
    m_jobs.attach(m_stride_job, {&m_model.stride_running, &m_model.stride_progress, &m_model.stride_status});
    rebuild();
    apply_params();
    m_queue = {Work::Predict};
  }

  const char* id() const override { return "memory"; }
  const char* title() const override { return "Memory access"; }
  const char* view_window() const override { return "Memory view"; }

  // Hardware counters for the chosen variant: its own runner on the counters window's worker; the model's
  // predicted counts next to them; the result fills the panel's "measured" column.
  std::optional<CounterTarget> counter_target() override {
    if (!m_model.param_error.empty()) return std::nullopt;
    const mem::Params p = m_model.params;
    const mem::Variant v = p.variant();
    CounterTarget t;
    t.lab = "memory";
    t.variant = mem::to_string(v);
    t.what = std::string("memory: ") + mem::title(p.kernel) + ", " + mem::describe(v, p);
    const work::Work w = mem::run_work(p, v);
    t.model_dram_read = w.read_bytes;
    t.model_dram_write = w.write_bytes;
    for (const auto& r : m_model.predictions) {
      if (r.variant != v) continue;
      if (r.p.ld_requests) t.model_ld_sectors_per_request = r.p.ld_sectors_per_request();
      if (r.p.st_requests) t.model_st_sectors_per_request = r.p.st_sectors_per_request();
      t.model_shared_conflicts = static_cast<double>(r.p.shared_ld_conflicts + r.p.shared_st_conflicts);
      t.access_model = "memory lab model";
    }
    // Without the GPU path the model values stay (the window says why nothing is measured).
    if (m_model.gpu) t.collect = [p, v] {
      mem::GpuRunner runner;
      const std::vector<float> in = mem::make_input(p, v);
      return counters::collect([&] { runner.compute(p, v, in); });
    };
    t.on_result = [this, v](const counters::Result& r) { m_model.measured[v] = measured_text(r); };
    t.simulate = [p, v] { return mem::simulated_values(p, v); };
    return t;
  }

  void draw_ui() override {
    m_actions = {};
    m_jobs.poll();
    if (m_cpu_result) {
      const size_t stage = static_cast<size_t>(m_cpu_result->stage.load());
      if (stage < m_cpu_result->stage_names.size()) m_model.cpu_stage = m_cpu_result->stage_names[stage];
    }
    if (begin_window("Memory view", Slot::View)) ui::draw_memory_view(m_model, m_actions);
    ImGui::End();
    if (begin_window("Memory lab", Slot::Panel)) ui::draw_memory_panel(m_model, m_actions);
    ImGui::End();
  }

  void update() override {
    merge_pressed();
    if (m_actions.params_changed) apply_params();
    if (m_actions.warp_changed) update_trace();
    if (m_actions.clicked) step_to(m_actions.clicked_buffer, m_actions.clicked_element);
    if (m_actions.run_gpu) start_gpu();
    if (m_actions.run_cpu) start_cpu();
    if (m_actions.cancel_cpu) m_cpu_job.cancel();
    if (m_actions.run_stride) start_stride();
    if (m_actions.cancel_stride) m_stride_job.cancel();
    run_queue();
    // Headless runs are scripted captures: the queued work finishes so that a screenshot shows data. A GPU
    // failure in a worker goes to App.
    m_jobs.finish_update(m_env, [this] { run_queue(); }, [this] { return !m_queue.empty(); });
  }

  void abandon_gpu() noexcept override {
    m_stride_job.cancel();
    m_stride_job.wait();
    m_gpu_job.wait();
    if (m_gpu) m_gpu->abandon();
    m_gpu.reset();
  }

  void rebuild() override {
    m_gpu_job.wait();
    m_gpu.reset();
    ComputeSite site = compute_site(m_env, mem::cpu_thread_count(),
                                    "the warp pictures, the predicted counts and the CPU runs work here; GPU "
                                    "runs need a CUDA device.");
    m_model.gpu = site.gpu;
    m_model.gpu_missing = std::move(site.gpu_missing);
    m_model.compute_label = std::move(site.label);
    if (m_model.gpu) m_gpu = std::make_unique<mem::GpuRunner>();
  }

  nlohmann::json save_state() const override;
  std::optional<std::string> load_state(const nlohmann::json& state) override;
  std::vector<ui::Readout> readouts() const override;

  const ui::MemoryPanelModel& model() const { return m_model; }
  void press(const ui::MemoryPanelActions& a) { m_pressed = a; }
  bool busy() const { return m_jobs.busy() || !m_queue.empty(); }
  void wait_all() {
    m_jobs.drain([this] { run_queue(); }, [this] { return !m_queue.empty(); });
  }

 private:
  enum class Work { Predict };

  // Buttons pressed from outside the panel (tests) join this frame's actions.
  void merge_pressed() {
    if (!m_pressed) return;
    const ui::MemoryPanelActions& p = *m_pressed;
    m_actions.run_gpu |= p.run_gpu;
    m_actions.run_cpu |= p.run_cpu;
    m_actions.cancel_cpu |= p.cancel_cpu;
    m_actions.run_stride |= p.run_stride;
    m_actions.cancel_stride |= p.cancel_stride;
    m_pressed.reset();
  }

  void run_queue() {
    while (!m_queue.empty()) {
      const Work w = m_queue.front();
      m_queue.pop_front();
      if (w == Work::Predict) start_predict();
    }
  }

  // Reads the controls; on an error the message shows in the panel and the parameters in force stay.
  void apply_params() {
    m_model.param_error.clear();
    const mem::Params p = ui::params_of(m_model);
    if (p.n < 0) {
      m_model.param_error = mem::parse_count(m_model.n_text, "n").error;
      return;
    }
    if (auto err = mem::validate(p)) {
      m_model.param_error = *err;
      return;
    }
    const bool same_launch = m_have_params && ui::memory_state_of(m_model.params) == ui::memory_state_of(p);
    m_model.params = p;
    m_have_params = true;
    if (!same_launch) {
      m_model.predictions.clear();
      m_model.predicted_for.clear();
      m_queue.push_back(Work::Predict);
    }
    update_trace();
  }

  void update_trace() {
    const mem::Variant v = m_model.params.variant();
    m_model.warp = mem::clamp_warp(m_model.params, v, m_model.warp);
    m_model.trace = mem::trace_warp(m_model.params, v, m_model.warp);
    m_model.step = std::clamp(m_model.step, 0, std::max(0, static_cast<int>(m_model.trace->ops.size()) - 1));
  }

  // Shows the first instruction of the warp that touches element e of buffer b (the click's element).
  void step_to(mem::Buffer b, int64_t e) {
    if (!m_model.trace) return;
    const std::vector<mem::WarpAccess>& ops = m_model.trace->ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].buffer != b) continue;
      for (const mem::LaneAccess& l : ops[i].lanes)
        if (l.active && l.element == e) {
          m_model.step = static_cast<int>(i);
          return;
        }
    }
  }

  void start_predict() {
    m_model.predict_status.clear();
    auto res = std::make_shared<PredictJobResult>();
    res->params = m_model.params;
    const auto take = [this, res] {
      m_model.predictions = res->rows;
      m_model.predicted_for = describe_params(res->params);
    };
    m_predict_job.start("the predicted counts", [res](JobControl& ctl) {
      const std::vector<mem::Variant> vs = mem::variants_of(res->params.kernel);
      for (size_t i = 0; i < vs.size(); ++i) {
        if (mem::validate(res->params, vs[i])) continue;  // e.g. a block the tiled variants cannot use
        ui::MemoryPredictionRow r;
        r.variant = vs[i];
        r.label = mem::to_string(vs[i]);
        r.p = mem::predict(res->params, vs[i], &ctl);
        res->rows.push_back(std::move(r));
        ctl.set_progress(static_cast<double>(i + 1) / static_cast<double>(vs.size()));
        if (ctl.cancelled()) throw JobCancelled{};
      }
    }, take);
  }

  void start_gpu() {
    if (!m_gpu || m_gpu_job.running() || m_stride_job.running()) return;
    m_model.gpu_status.clear();
    auto res = std::make_shared<GpuJobResult>();
    mem::GpuRunner* runner = m_gpu.get();
    const mem::Params p = m_model.params;
    const auto work = [runner, p, res](JobControl&) {
      res->rows = runner->run_ladder(p, std::nullopt, k_gpu_reps, true);
    };
    m_gpu_job.start("the run", work, [this, res] {
      m_model.gpu_rows.clear();
      for (const mem::RunResult& r : res->rows) {
        m_model.gpu_rows.push_back(row_of(r));
        report_run(m_env, "memory", r.label, true, r.ms.median, mem::run_work(m_model.params, r.variant),
                   describe_params(m_model.params));
      }
    });
  }

  void start_cpu() {
    if (m_cpu_job.running()) return;
    const mem::Params p = m_model.params;
    const std::vector<mem::Variant> vs = mem::cpu_variants_of(p.kernel);
    if (vs.empty()) {
      m_model.cpu_status = "shared-memory banks have no CPU counterpart";
      return;
    }
    for (mem::Variant v : vs)
      if (auto err = mem::check_host_memory(p, v, mem::available_host_bytes())) {
        m_model.cpu_status = *err;
        return;
      }
    m_model.cpu_status.clear();
    auto res = std::make_shared<CpuJobResult>();
    for (mem::CpuMode mode : {mem::CpuMode::OneThread, mem::CpuMode::AllThreads})
      for (mem::Variant v : vs)
        res->stage_names.push_back(std::string(mem::to_string(v)) + ", " + mem::cpu_mode_label(mode) + "...");
    m_cpu_result = res;
    const auto take = [this, res] {
      m_model.cpu_rows.clear();
      for (const mem::RunResult& r : res->rows) {
        m_model.cpu_rows.push_back(row_of(r));
        report_run(m_env, "memory", r.label + ", " + r.device, false, r.ms.median,
                   mem::run_work(m_model.params, r.variant), describe_params(m_model.params));
      }
    };
    m_cpu_job.start("the CPU runs", [p, vs, res](JobControl& ctl) {
      int stage = 0;
      for (mem::CpuMode mode : {mem::CpuMode::OneThread, mem::CpuMode::AllThreads}) {
        double copy_gbs = 0;
        for (mem::Variant v : vs) {
          res->stage = stage++;
          ctl.set_progress(0);
          mem::RunResult r;
          r.variant = v;
          r.label = mem::describe(v, p);
          r.device = mem::cpu_mode_label(mode);
          r.gpu = false;
          r.ms = mem::time_cpu(p, v, mode, k_cpu_reps, &ctl);
          r.bytes = mem::counted_bytes(p, v);
          r.gbs = r.ms.median > 0 ? static_cast<double>(r.bytes) / (r.ms.median * 1e-3) / 1e9 : 0;
          if (v == mem::Variant::Copy) copy_gbs = r.gbs;
          r.pct_of_copy = copy_gbs > 0 ? 100.0 * r.gbs / copy_gbs : 0;
          r.check.passed = true;
          r.check.text = "reference";
          r.label += std::string(" (") + (mode == mem::CpuMode::OneThread ? "1 thread" : "all threads") + ")";
          res->rows.push_back(std::move(r));
        }
      }
    }, take);
  }

  void start_stride() {
    if (m_stride_job.running() || m_gpu_job.running()) return;
    m_model.stride_status.clear();
    mem::Params p = m_model.params;
    p.kernel = mem::Kernel::Stride;
    p.stride_pattern = mem::Variant::Strided;
    if (auto err = mem::check_host_memory(p, mem::Variant::Strided, mem::available_host_bytes())) {
      m_model.stride_status = *err;
      return;
    }
    auto res = std::make_shared<StrideJobResult>();
    res->n = p.n;
    res->device = m_gpu ? m_gpu->device().name : mem::cpu_mode_label(mem::CpuMode::AllThreads);
    const auto take = [this, res] {
      m_model.stride_points = res->points;
      m_model.stride_device = res->device;
      m_model.stride_n = res->n;
    };
    mem::GpuRunner* runner = m_gpu.get();
    m_stride_job.start("the sweep", [runner, p, res](JobControl& ctl) {
      const size_t n_points = std::size(k_stride_points);
      for (size_t i = 0; i < n_points; ++i) {
        if (ctl.cancelled()) throw JobCancelled{};
        mem::Params q = p;
        q.stride = k_stride_points[i];
        ui::StridePoint pt;
        pt.stride = q.stride;
        if (runner) {
          pt.gbs = runner->run(q, mem::Variant::Strided, 5, false).gbs;
        } else {
          const Summary s = mem::time_cpu(q, mem::Variant::Strided, mem::CpuMode::AllThreads, 3, &ctl);
          pt.gbs = s.median > 0 ? static_cast<double>(mem::counted_bytes(q, mem::Variant::Strided)) /
                                      (s.median * 1e-3) / 1e9
                                : 0;
        }
        mem::Params small = q;
        small.n = std::min(q.n, k_stride_model_n);
        pt.sectors_per_request = mem::predict(small, mem::Variant::Strided).ld_sectors_per_request();
        res->points.push_back(pt);
        ctl.set_progress(static_cast<double>(i + 1) / static_cast<double>(n_points));
      }
    }, take);
  }

  LabEnv& m_env;
  ui::MemoryPanelModel m_model;
  ui::MemoryPanelActions m_actions;
  std::optional<ui::MemoryPanelActions> m_pressed;
  bool m_have_params = false;
  std::unique_ptr<mem::GpuRunner> m_gpu;
  std::deque<Work> m_queue;
  std::shared_ptr<CpuJobResult> m_cpu_result;  // its stage names the CPU run in progress

  // Jobs last: destroyed (cancelled and joined) before the state they write.
  LabJobs m_jobs;
  LabJob m_gpu_job, m_cpu_job, m_predict_job, m_stride_job;
};

// --- Sessions and presenter mode
// ----------------------------------------------------------------------------

namespace {

// Reads `state` over (p, warp, step): the schema (types, ranges, names, no unknown members apart from the
// picture's "warp" and "step"), then the parameters together (memory::validate).
std::optional<std::string> read_memory_state(const nlohmann::json& state, mem::Params& p, mem::WarpId& warp,
                                             int& step) {
  const params::Schema& schema = ui::memory_schema();
  if (auto err = params::check_state(schema, state, "labs.memory", {"warp", "step"})) return err;
  nlohmann::json merged = ui::memory_state_of(p);
  for (auto it = state.begin(); it != state.end(); ++it)
    if (it.key() != "warp" && it.key() != "step") merged[it.key()] = it.value();
  p = ui::memory_params_from(merged);
  if (auto err = mem::validate(p)) return "labs.memory: " + *err;
  if (state.contains("warp")) {
    const nlohmann::json& w = state["warp"];
    const auto whole = [](const nlohmann::json& x) { return x.is_number_integer() && x.get<int64_t>() >= 0; };
    if (!w.is_array() || w.size() != 3 || !whole(w[0]) || !whole(w[1]) || !whole(w[2]) ||
        w[2].get<int64_t>() > 1024)
      return "labs.memory.warp: expected [block x, block y, warp], three whole numbers >= 0";
    warp = mem::WarpId{w[0].get<int64_t>(), w[1].get<int64_t>(), static_cast<int>(w[2].get<int64_t>())};
  }
  if (state.contains("step")) {
    const nlohmann::json& s = state["step"];
    if (!s.is_number_integer() || s.get<int64_t>() < 0 || s.get<int64_t>() > 1 << 20)
      return "labs.memory.step: expected a whole number >= 0 (the instruction shown)";
    step = static_cast<int>(s.get<int64_t>());
  }
  return std::nullopt;
}

}  // namespace

nlohmann::json MemoryLab::save_state() const {
  nlohmann::json j = ui::memory_state_of(m_model.params);
  j["warp"] = nlohmann::json::array({m_model.warp.bx, m_model.warp.by, m_model.warp.warp});
  j["step"] = m_model.step;
  return j;
}

std::optional<std::string> MemoryLab::load_state(const nlohmann::json& state) {
  mem::Params p = m_model.params;
  mem::WarpId warp = m_model.warp;
  int step = m_model.step;
  if (auto err = read_memory_state(state, p, warp, step)) return err;
  ui::set_params(m_model, p);
  m_model.warp = warp;
  m_model.step = step;
  apply_params();
  update_trace();
  return std::nullopt;
}

std::vector<ui::Readout> MemoryLab::readouts() const {
  std::vector<ui::Readout> out;
  const mem::Variant v = m_model.params.variant();
  for (const ui::MemoryResultRow& r : m_model.gpu_rows)
    if (r.label == mem::describe(v, m_model.params) ||
        r.label.rfind(mem::describe(v, m_model.params), 0) == 0) {
      out.push_back({"GPU bandwidth", fmt_fixed(r.gbs, 0), "GB/s", r.label});
      if (r.pct_of_copy > 0)
        out.push_back({"of the copy", fmt_fixed(r.pct_of_copy, 0), "%", "same bytes, same run"});
      out.push_back({"time", fmt_fixed(r.ms.median, r.ms.median < 10 ? 3 : 1), "ms", "median"});
      break;
    }
  for (const ui::MemoryPredictionRow& r : m_model.predictions)
    if (r.variant == v) {
      out.push_back(
          {"sectors / load", fmt_fixed(r.p.ld_sectors_per_request(), 1), "", "predicted, whole launch"});
      if (r.p.st_requests)
        out.push_back(
            {"sectors / store", fmt_fixed(r.p.st_sectors_per_request(), 1), "", "predicted, whole launch"});
      if (r.p.shared_ld_requests)
        out.push_back({"bank conflicts",
                       fmt_fixed(static_cast<double>(r.p.shared_ld_conflicts) /
                                     static_cast<double>(r.p.shared_ld_requests),
                                 1),
                       "/ load", "predicted extra wavefronts per shared load"});
    }
  if (m_model.trace && !m_model.trace->ops.empty()) {
    const mem::WarpAccess& op = m_model.trace->ops[static_cast<size_t>(
        std::clamp(m_model.step, 0, static_cast<int>(m_model.trace->ops.size()) - 1))];
    const mem::OpSummary s = mem::summarize(op);
    if (op.space == mem::Space::Global)
      out.push_back({"this instruction", std::to_string(s.sectors), "sectors", mem::op_title(op)});
    else
      out.push_back({"this instruction", std::to_string(s.conflict_degree), "-way", mem::op_title(op)});
  }
  return out;
}

std::unique_ptr<Lab> make_memory_lab(LabEnv& env) {
  return std::make_unique<MemoryLab>(env);
}

std::optional<std::string> check_memory_state(const nlohmann::json& state) {
  mem::Params p = ui::memory_params_from(nlohmann::json::object());
  mem::WarpId w;
  int step = 0;
  return read_memory_state(state, p, w, step);
}

MemoryLabProbe probe_memory_lab(Lab& lab) {
  MemoryLabProbe pr;
  if (auto* m = dynamic_cast<MemoryLab*>(&lab)) {
    pr.model = &m->model();
    pr.busy = m->busy();
  }
  return pr;
}

void wait_memory_lab(Lab& lab) {
  if (auto* m = dynamic_cast<MemoryLab*>(&lab)) m->wait_all();
}

void press_memory_buttons(Lab& lab, const ui::MemoryPanelActions& a) {
  if (auto* m = dynamic_cast<MemoryLab*>(&lab)) m->press(a);
}

}  // namespace bs
