// vector_lab.cpp: the vector lab: element-wise add / formula over N floats, timed as host-to-device copy,
// kernel and device-to-host copy (optionally on K streams), against the same formula on the CPU, plus a size
// sweep with the GPU/CPU crossover and a strip view of which block or grid-stride pass touches each element.
// GPU runs, CPU runs and the sweep all run on worker threads (bs::LabJob) so frames never wait for them; a
// GPU failure inside a worker is carried back and rethrown from update(), where App handles it.
#include <imgui.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <tuple>

#include "app/lab.h"
#include "app/labs.h"
#include "app/kernel/lab_sim.h"
#include "app/kernel/user_kernels.h"
#include "app/vector/vector_sweep_target.h"
#include "app/session.h"
#include "app/layout.h"
#include "core/text.h"
#include "app/shell/compute_site.h"
#include "app/shell/lab_jobs.h"
#include "core/param_binding.h"
#include "core/error.h"
#include "gpu/kernel/lab_runs.h"
#include "gpu/vector/vector.h"
#include "app/roofline/roofline_report.h"
#include "gpu/vector/vector_work.h"
#include "ui/vector/vector_lab_panel.h"
#include "ui/vector/vector_schema.h"

namespace bs {

namespace {

namespace vec = bs::vector;

constexpr size_t k_max_runs_shown = 4;  // bars kept for comparison (pinned vs pageable, 1 vs K streams)
constexpr int64_t k_max_rate_bytes = int64_t{256} << 20;
// The user's vector_op in the simulator (no GPU) takes at most this many elements: about a second on two cores.
constexpr int64_t k_sim_max_n = int64_t{1} << 20;

// The element count to simulate for the lab's `n`: n itself up to the cap; above it the cap less a block plus
// n's remainder, so the last block is as partial as the lab's (where odd sizes misbehave). `note` says so.
int64_t simulated_count(int64_t n, int64_t block, std::string& note) {
  note.clear();
  if (n <= k_sim_max_n) return n;
  const int64_t rest = n % block;
  const int64_t m = (k_sim_max_n / block - (rest ? 1 : 0)) * block + rest;
  note = "n = " + std::to_string(m) + " simulated: the lab's N = " + vector::format_count(n) +
         " is above the simulator's " + vector::format_count(k_sim_max_n) +
         " (the last block is as partial as the lab's)";
  return m;
}

// The panel's launch choices over `n` elements (n_text is parsed by the caller, which reports its errors).
vec::Params params_of(const ui::VectorPanelModel& m, int64_t n) {
  vec::Params p;
  p.n = n;
  p.op = static_cast<vec::Op>(m.op);
  p.indexing = static_cast<vec::Indexing>(m.indexing);
  p.width = static_cast<vec::LoadWidth>(m.width);
  p.block = m.block;
  p.pinned = m.pinned;
  p.streams = m.streams;
  return p;
}

std::string mib(uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

struct GpuJobResult {
  bool measure_overhead = false;
  vec::LaunchOverhead overhead;
  vec::RunResult run;
  vec::CopyRates rates;
  bool user_run = false;                // the user's vector_op ran (kernel = user)
  std::optional<kernel::UserRun> user;  // its result
};

struct CpuJobResult {
  int64_t n = 0;
  Summary ms[2];
  std::atomic<int> stage{0};  // 0: preparing, 1: one thread, 2: all threads
};

struct SweepJobResult {
  vec::SweepResult sweep;
};

class VectorLab final : public Lab {
 public:
  explicit VectorLab(LabEnv& env) : m_env(env) {
    m_jobs.attach(m_gpu_job, {&m_model.gpu_running, nullptr, &m_model.gpu_status});
    m_jobs.attach(m_cpu_job, {&m_model.cpu_running, &m_model.cpu_progress, &m_model.cpu_status});
    m_jobs.attach(m_sweep_job, {&m_model.sweep_running, &m_model.sweep_progress, &m_model.sweep_status});
    for (int i = 0; i < 2; ++i)
      m_model.cpu[i].label = vec::cpu_mode_label(i == 0 ? vec::CpuMode::OneThread : vec::CpuMode::AllThreads);
    rebuild();
    apply_params();
    // The schema's sweep_max (64M) shows the GPU's advantage; on 2 CPU cores 16M keeps the sweep short.
    if (!m_model.gpu) std::snprintf(m_model.sweep_max_text, sizeof m_model.sweep_max_text, "%s", "16M");
    // A first picture without any clicks: a quick sweep up to N (at least 1M), then the CPU rows at N, then
    // (GPU) one run.
    m_queue = {Work::QuickSweep, Work::Cpu};
    if (m_model.gpu) m_queue.push_back(Work::Gpu);
  }

  const char* id() const override { return "vector"; }
  const char* title() const override { return "Vector"; }
  // Hardware counters for the current parameters: its own runner on the counters window's worker (one
  // untimed run puts the inputs on the device; the counter passes replay only the kernel launches); DRAM
  // bytes from the work model.
  std::optional<CounterTarget> counter_target() override {
    const vec::Params p = m_params;
    CounterTarget t;
    t.lab = "vector";
    t.variant = std::string(vec::to_string(p.width)) + ", " + vec::short_name(p.indexing);
    t.what =
        std::string("vector ") + vec::to_string(p.op) + ": " + t.variant + ", n = " + vec::format_count(p.n);
    const work::Work w = vec::kernel_work(p.op, p.n);
    t.model_dram_read = w.read_bytes;
    t.model_dram_write = w.write_bytes;
    if (m_gpu)
      t.collect = [p] {
        vec::GpuRunner runner;
        (void)runner.run(p, 1, false);
        return counters::collect([&] { runner.launch_kernels(p); });
      };
    return t;
  }

  void draw_ui() override {
    m_actions = {};
    poll_jobs();
    if (begin_window("Vector view", Slot::View)) ui::draw_vector_views(m_model, m_actions);
    ImGui::End();
    if (begin_window("Vector lab", Slot::Panel))
      ui::draw_vector_panel(m_model, m_actions);
    ImGui::End();
  }

  void update() override {
    if (m_actions.params_changed) apply_params();
    sync_user_kernel();
    if (m_actions.clear_runs) m_model.runs.clear();
    if (m_actions.run_gpu) start_gpu();
    if (m_actions.run_cpu) start_cpu();
    if (m_actions.cancel_cpu) m_cpu_job.cancel();
    if (m_actions.run_sweep) start_sweep(false);
    if (m_actions.cancel_sweep) m_sweep_job.cancel();
    if (m_actions.simulate_user) start_user_sim();
    if (m_actions.user_sim.cancel) m_sim.cancel();
    run_queue();
    // Headless runs are scripted captures with nobody to keep responsive: the first measurements finish so
    // that a screenshot shows data, not progress bars. A GPU failure in a worker goes to App (sticky errors
    // reset the device or fall back to the CPU).
    m_jobs.finish_update(
        m_env,
        [this] {
          m_sim.wait();
          poll_jobs();
          run_queue();
        },
        [this] { return !m_queue.empty() || m_sim.running(); });
  }

  void abandon_gpu() noexcept override {
    m_sweep_job.cancel();
    m_sweep_job.wait();
    m_gpu_job.wait();
    m_user.drop(m_env.user_kernels, true);
    if (m_gpu) m_gpu->abandon();
    m_gpu.reset();
  }

  void rebuild() override {
    m_gpu_job.wait();
    m_user.drop(m_env.user_kernels, false);
    m_gpu.reset();
    ComputeSite site =
        compute_site(m_env, vec::cpu_thread_count(),
                     "the strip, the CPU rows and the CPU sweep work here; GPU rows need a CUDA device.");
    m_model.gpu = site.gpu;
    m_model.gpu_missing = std::move(site.gpu_missing);
    m_model.compute_label = std::move(site.label);
    m_model.gpu_stride_grid = 0;
    m_model.link_text.clear();
    m_model.link_gbs = 0;
    if (m_model.gpu) {
      m_gpu = std::make_unique<vec::GpuRunner>();
      const vec::NominalLink link = m_gpu->link();
      m_model.link_text = link.text();
      m_model.link_gbs = link.gbs;
    }
    update_stride_grid();
  }

 private:
  enum class Work { QuickSweep, Cpu, Gpu };

  bool busy() const { return m_jobs.busy(); }

  void run_queue() {
    if (m_queue.empty() || busy()) return;
    const Work w = m_queue.front();
    m_queue.pop_front();
    if (w == Work::QuickSweep)
      start_sweep(true);
    else if (w == Work::Cpu)
      start_cpu();
    else if (m_model.gpu)
      start_gpu();
  }

  void update_stride_grid() {
    m_model.gpu_stride_grid = 0;
    if (m_gpu && !m_gpu_job.running()) m_model.gpu_stride_grid = m_gpu->stride_grid(m_params);
  }

  // Reads the controls; on any error the message shows next to the control and m_params stays as it was.
  void apply_params() {
    m_model.n_error.clear();
    m_model.param_error.clear();
    m_model.memory_note.clear();
    const vec::ParsedCount pc = vec::parse_count(m_model.n_text, "N");
    if (!pc.value) {
      m_model.n_error = pc.error;
      return;
    }
    const vec::Params p = params_of(m_model, *pc.value);
    if (auto err = vec::validate(p)) {
      (p.n != m_params.n ? m_model.n_error : m_model.param_error) = *err;
      return;
    }
    if (auto err = vec::check_host_memory(p.n, 3, vec::available_host_bytes())) {
      m_model.n_error = *err;
      return;
    }
    if (m_model.gpu) {
      const uint64_t need = static_cast<uint64_t>(p.n) * 3 * sizeof(float);
      if (need > m_env.device.total_mem) {
        m_model.n_error = "N = " + vec::format_count(p.n) + " needs " + mib(need) +
                          " of device memory for a, b and c; " + m_env.device.name + " has " +
                          mib(m_env.device.total_mem) + " in all";
        return;
      }
      if (need > m_env.device.free_mem)
        m_model.memory_note = "needs " + mib(need) + " of device memory; " + mib(m_env.device.free_mem) +
                              " were free at start-up (the run will say if it does not fit)";
    }
    m_params = p;
    m_model.params = p;
    update_stride_grid();
  }

  void start_gpu() {
    if (!m_gpu || m_gpu_job.running() || m_sweep_job.running()) return;
    m_model.gpu_status.clear();
    auto res = std::make_shared<GpuJobResult>();
    res->measure_overhead = !m_overhead_measured;
    const auto take = [this, res] { take_gpu_run(*res); };
    vec::GpuRunner* runner = m_gpu.get();
    const vec::Params p = m_params;
    const int reps = p.n >= (int64_t{64} << 20) ? 3 : 5;
    if (m_user.kernel()) {
      // The user's vector_op on N elements with the lab's block (the grid covers N), checked against op.
      res->measure_overhead = false;
      res->user_run = true;
      std::shared_ptr<const kernel::LoadedKernel> k = m_user.kernel();
      // A sticky fault of the user's kernel: it is not run again until a new compile (the lab says so).
      const auto fault = [this](const GpuError& g) { m_user.note_fault(m_env.user_kernels, g); };
      m_gpu_job.start(
          "the run",
          [k, p, reps, res](JobControl& ctl) {
            kernel::RunSettings s;
            s.repetitions = reps;
            res->user = kernel::run_vector(*k, p.n, p.block, std::nullopt, p.op, s);
            ctl.set_progress(1.0);
          },
          take, fault);
      return;
    }
    m_gpu_job.start(
        "the run",
        [runner, p, reps, res](JobControl& ctl) {
          if (res->measure_overhead) res->overhead = runner->launch_overhead(51);
          ctl.set_progress(0.1);
          res->run = runner->run(p, reps, true);
          ctl.set_progress(0.7);
          res->rates = runner->copy_rates(std::min(p.n * int64_t{4}, k_max_rate_bytes), 3);
          ctl.set_progress(1.0);
        },
        take);
  }

  void start_cpu() {
    if (m_cpu_job.running() || m_sweep_job.running()) return;
    m_model.cpu_status.clear();
    auto res = std::make_shared<CpuJobResult>();
    res->n = m_params.n;
    m_cpu_result = res;
    const auto take = [this, res] {
      for (int i = 0; i < 2; ++i) {
        m_model.cpu[i].ms = res->ms[i];
        m_model.cpu[i].n = res->n;
        if (res->ms[i].count > 0)
          report_run(m_env, "vector", std::string(vec::to_string(m_params.op)) + ", " + m_model.cpu[i].label,
                     false, res->ms[i].median, vec::kernel_work(m_params.op, res->n), vec::format_count(res->n));
      }
    };
    const vec::Op op = m_params.op;
    const int64_t n = m_params.n;
    const int reps = n >= (int64_t{64} << 20) ? 3 : 5;
    m_cpu_job.start("CPU runs", [op, n, reps, res](JobControl& ctl) {
      if (auto err = vec::check_host_memory(n, 3, vec::available_host_bytes())) throw InvalidRequest(*err);
      std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), c(static_cast<size_t>(n));
      vec::fill_inputs(a.data(), b.data(), n);
      if (ctl.cancelled()) throw JobCancelled{};
      res->stage = 1;
      res->ms[0] = vec::time_cpu(op, a.data(), b.data(), c.data(), n, vec::CpuMode::OneThread, reps, &ctl);
      res->stage = 2;
      ctl.set_progress(0);
      res->ms[1] = vec::time_cpu(op, a.data(), b.data(), c.data(), n, vec::CpuMode::AllThreads, reps, &ctl);
    }, take);
  }

  void start_sweep(bool quick) {
    if (m_sweep_job.running() || m_gpu_job.running() || m_cpu_job.running()) return;
    m_model.sweep_status.clear();
    vec::SweepOptions o;
    o.op = m_params.op;
    o.indexing = m_params.indexing;
    o.width = m_params.width;
    o.block = m_params.block;
    o.gpu = m_model.gpu;
    o.min_n = 1024;
    if (quick) {
      // Up to 1M, and on to the N in the box: the first figure covers the size the lab runs.
      std::tie(o.min_n, o.max_n) = vec::quick_sweep_range(m_params.n);
      o.budget_ms_per_point = 8;
    } else {
      const vec::ParsedCount pc = vec::parse_count(m_model.sweep_max_text, "largest N");
      if (!pc.value) {
        m_model.sweep_status = pc.error;
        return;
      }
      o.max_n = *pc.value;
      vec::Params check;
      check.n = o.max_n;
      if (auto err = vec::validate(check)) {
        m_model.sweep_status = "largest N: " + *err;
        return;
      }
      if (o.max_n < o.min_n) {
        m_model.sweep_status = "largest N must be at least 1K (the sweep starts at 1K)";
        return;
      }
    }
    auto res = std::make_shared<SweepJobResult>();
    m_sweep_job.start(
        "the sweep", [o, res](JobControl& ctl) { res->sweep = vec::run_sweep(o, &ctl); },
        [this, res] { m_model.sweep = res->sweep; });
  }

  void poll_jobs() {
    m_jobs.poll();
    if (m_cpu_result) {
      const int stage = m_cpu_result->stage.load();
      m_model.cpu_stage = stage == 0   ? "filling the inputs..."
                          : stage == 1 ? m_model.cpu[0].label + "..."
                                       : m_model.cpu[1].label + "...";
    }
    m_sim.poll();
    m_model.user_sim = m_sim.view();
  }

  // The finished GPU run into the panel: a row of the runs table, the rates and the stride grid.
  void take_gpu_run(const GpuJobResult& r) {
    if (r.user) {
      take_user_run(*r.user);
      return;
    }
    if (r.measure_overhead) {
      m_overhead = r.overhead;
      m_overhead_measured = true;
    }
    ui::GpuRunView v;
    const vec::RunResult& rr = r.run;
    v.variant = rr.variant + (rr.params.pinned ? ", pinned" : ", pageable") + ", " +
                std::to_string(rr.params.streams) + (rr.params.streams == 1 ? " stream" : " streams");
    v.n = rr.params.n;
    v.pinned = rr.params.pinned;
    v.streams = rr.params.streams;
    v.h2d_ms = rr.h2d_ms.median;
    v.kernel_ms = rr.kernel_ms.median;
    report_run(m_env, "vector", rr.variant + " (kernel)", true, v.kernel_ms,
               vec::kernel_work(rr.params.op, rr.params.n), vec::format_count(rr.params.n));
    v.d2h_ms = rr.d2h_ms.median;
    v.total = rr.total_ms;
    v.h2d_gbs = rr.row.h2d_gbs;
    v.d2h_gbs = rr.row.d2h_gbs;
    v.kernel_gbs = rr.row.kernel_gbs;
    v.check = rr.row.check;
    v.check_passed = rr.row.check_passed;
    v.launch_us = m_overhead.event_us;
    v.round_trip_us = m_overhead.round_trip_us;
    v.timeline = rr.timeline;
    m_model.runs.push_back(std::move(v));
    while (m_model.runs.size() > k_max_runs_shown)
      m_model.runs.erase(m_model.runs.begin());
    m_model.rates = r.rates;
    update_stride_grid();
  }

  // The user's run as a row of the runs table: the kernel alone (its inputs are already on the GPU).
  void take_user_run(const kernel::UserRun& u) {
    ui::GpuRunView v;
    v.variant =
        "your " + u.kernel + ", block " + std::to_string(u.block.x) + ", grid " + std::to_string(u.grid.x);
    v.n = m_params.n;
    v.pinned = m_params.pinned;
    v.streams = 1;
    v.kernel_ms = u.ms.median;
    v.total = u.ms;
    v.kernel_gbs = u.gb_per_s;
    v.check = u.check;
    v.check_passed = u.passed;
    v.resources = u.figures.text();
    v.note = "kernel only (CUDA events, warm-up excluded): its inputs were copied to the GPU before timing";
    v.launch_us = m_overhead.event_us;
    v.round_trip_us = m_overhead.round_trip_us;
    m_model.runs.push_back(std::move(v));
    while (m_model.runs.size() > k_max_runs_shown)
      m_model.runs.erase(m_model.runs.begin());
  }

  // Loads the user's vector_op when the choice is "user" and a new one was published; says what runs and
  // why. A load that fails on a poisoned context is a GpuError for the app's recovery.
  void sync_user_kernel() {
    const bool want = m_model.kernel == 1;
    const UserKernelSlot::Update u =
        m_user.update(m_env.user_kernels, want && m_gpu, m_gpu_job.running(), "the built-in kernels run");
    if (u.loaded && m_model.gpu) m_queue.push_back(Work::Gpu);  // a new kernel: its first run without a click
    std::string status = u.status;
    m_model.user_can_simulate = false;
    if (want && !m_gpu) {
      // No GPU: the simulator runs it (a new kernel without a click), checked against op, never timed.
      const UserKernels* uk = m_env.user_kernels;
      m_model.user_can_simulate = uk && uk->has(kernel::Target::Vector);
      if (!m_model.user_can_simulate)
        status = "no vector_op yet: write one in the Kernel editor (F9, template 'vector'); the CPU rows "
                 "compute the lab's op meanwhile";
      else
        status = "no GPU here (see above): your vector_op runs in the PTX simulator on this CPU, checked "
                 "against " + std::string(vec::to_string(m_params.op)) + "; simulated, so never timed";
      if (m_model.user_can_simulate && uk->generation(kernel::Target::Vector) != m_sim.generation())
        start_user_sim();
    } else if (m_user.kernel() && status.empty())
      status = "'Run on GPU' runs your vector_op (compiled " + m_user.published().compiled_at_text() +
               "), checked against " + vec::to_string(m_params.op);
    m_model.user_ready = m_user.kernel() != nullptr;
    m_model.user_figures = m_user.figures({m_params.block, 1});
    m_model.user_status = std::move(status);
  }

  // The user's vector_op in the simulator on the lab's N (capped), block and op.
  void start_user_sim() {
    if (!m_env.user_kernels || !m_env.user_kernels->has(kernel::Target::Vector)) return;
    LabSimRequest r;
    r.target = kernel::Target::Vector;
    r.settings.size_x = simulated_count(m_params.n, m_params.block, r.note);
    r.settings.block_x = m_params.block;
    r.settings.block_y = 1;
    r.inputs.vector_op = m_params.op;
    m_sim.start(m_env.user_kernels->current(kernel::Target::Vector), std::move(r));
    m_model.user_sim = m_sim.view();
  }

  LabEnv& m_env;
  ui::VectorPanelModel m_model;
  ui::VectorPanelActions m_actions;
  vec::Params m_params;
  std::unique_ptr<vec::GpuRunner> m_gpu;
  vec::LaunchOverhead m_overhead;
  bool m_overhead_measured = false;
  std::deque<Work> m_queue;
  // The user's vector_op (kernel lab), loaded from LabEnv::user_kernels when its generation changes.
  UserKernelSlot m_user{kernel::Target::Vector};

  // Jobs are declared last so that they are destroyed (cancelled and joined) before the state they write.
  std::shared_ptr<CpuJobResult> m_cpu_result;  // its stage names the CPU run in progress
  LabJobs m_jobs;
  LabJob m_gpu_job, m_cpu_job, m_sweep_job;
  LabSimulation m_sim;  // the user's vector_op without a GPU

  // Sessions and presenter mode (app/session.h, ui/presenter.h); defined at the end of the file.
 public:
  nlohmann::json save_state() const override;
  std::optional<std::string> load_state(const nlohmann::json& state) override;
  ui::VectorPanelModel in_force() const;
  std::vector<ui::Readout> readouts() const override;
  const char* view_window() const override { return "Vector view"; }
};

}  // namespace

// The lab's factory (its descriptor, app/vector/vector_descriptor.cpp, builds it through this).
std::unique_ptr<Lab> make_vector_lab(LabEnv& env) {
  return std::make_unique<VectorLab>(env);
}

// --- Sessions and presenter mode --------------------------------------------------------------------------

namespace {


// Whether a count fits the panel's text field (a whole number, or "16M" as written).
std::optional<std::string> count_fits(const nlohmann::json& v) {
  const std::string text = v.is_string() ? v.get<std::string>() : std::to_string(v.get<int64_t>());
  if (text.size() >= sizeof(ui::VectorPanelModel::n_text)) return "too long";
  return std::nullopt;
}

// Reads `state` over `m` (members left out keep their values): first the schema's checks of every member
// (types, forms, ranges, names; ui/vector/vector_schema.h), then the lab's rules (the counts' ranges, the
// launch).
std::optional<std::string> read_vector_state(const nlohmann::json& state, ui::VectorPanelModel& m) {
  const params::Schema& schema = ui::vector_schema();
  if (auto err = params::check_state(schema, state, "labs.vector")) return err;
  // The counts' text fields hold 31 characters.
  for (const char* key : {"n", "sweep_max"})
    if (state.contains(key))
      if (auto err = count_fits(state[key])) return "labs.vector." + std::string(key) + ": " + *err;
  params::load_bound(schema, m, state);  // every parameter through its binding (the schema's)
  // The schema checked n's form, so it parses.
  if (auto err = vec::validate(params_of(m, *vec::parse_count(m.n_text, "n").value)))
    return "labs.vector: " + *err;
  const int64_t sweep_max = *vec::parse_count(m.sweep_max_text, "sweep_max").value;
  if (sweep_max < vec::k_min_n || sweep_max > vec::k_max_n)
    return "labs.vector.sweep_max: " + vec::format_count(sweep_max) + " is outside 1.." +
           vec::format_count(vec::k_max_n);
  return std::nullopt;
}

// The parameters in force (the panel may hold an edit that did not apply).
ui::VectorPanelModel VectorLab::in_force() const {
  ui::VectorPanelModel m = m_model;
  std::snprintf(m.n_text, sizeof m.n_text, "%s", vec::format_count(m_params.n).c_str());
  m.op = static_cast<int>(m_params.op);
  m.indexing = static_cast<int>(m_params.indexing);
  m.width = static_cast<int>(m_params.width);
  m.block = m_params.block;
  m.pinned = m_params.pinned;
  m.streams = m_params.streams;
  return m;
}

nlohmann::json VectorLab::save_state() const {
  return params::save_bound(ui::vector_schema(), in_force());
}

std::optional<std::string> VectorLab::load_state(const nlohmann::json& state) {
  ui::VectorPanelModel m = in_force();
  if (auto err = read_vector_state(state, m)) return err;
  const ui::VectorPanelModel before = m_model;
  m_model = m;
  apply_params();
  // Valid but not runnable here (host or device memory): the lab keeps its parameters.
  if (!m_model.n_error.empty() || !m_model.param_error.empty()) {
    const std::string err =
        "labs.vector.n: " + (m_model.n_error.empty() ? m_model.param_error : m_model.n_error);
    m_model = before;
    return err;
  }
  return std::nullopt;
}

std::vector<ui::Readout> VectorLab::readouts() const {
  std::vector<ui::Readout> out;
  if (!m_model.runs.empty()) {
    const ui::GpuRunView& r = m_model.runs.back();
    out.push_back({"kernel", fmt_fixed(r.kernel_gbs, 0), "GB/s", r.variant});
    if (!r.resources.empty())  // the user's kernel: its check and figures
      out.push_back({"check", r.check_passed ? "pass" : "FAIL", "", r.check + "; " + r.resources});
    out.push_back({"with copies", fmt_fixed(r.total.median, r.total.median < 10 ? 3 : 1), "ms",
                   "N = " + vec::format_count(r.n) + ", copies in and out included"});
    if (r.h2d_gbs > 0)
      out.push_back({"host to device", fmt_fixed(r.h2d_gbs, 1), "GB/s", r.pinned ? "pinned" : "pageable"});
    // Against the fastest CPU row at the same N: the honest comparison.
    const ui::CpuRowView* best = nullptr;
    for (const ui::CpuRowView& c : m_model.cpu)
      if (c.ms && c.n == r.n && c.ms->median > 0 && (!best || c.ms->median < best->ms->median)) best = &c;
    if (best && r.total.median > 0)
      out.push_back({"speedup vs CPU", fmt_fixed(best->ms->median / r.total.median, 2), "x",
                     "with copies; vs " + best->label});
    return out;
  }
  // No GPU: the simulated check of the user's vector_op (a verdict, never a time).
  if (m_model.kernel == 1)
    if (auto r = m_sim.readout()) out.push_back(std::move(*r));
  // CPU only: the fastest CPU row.
  const ui::CpuRowView* best = nullptr;
  for (const ui::CpuRowView& c : m_model.cpu)
    if (c.ms && c.ms->median > 0 && (!best || c.ms->median < best->ms->median)) best = &c;
  if (best) {
    const double gbs =
        static_cast<double>(best->n) * vec::k_bytes_per_element / (best->ms->median * 1e-3) / 1e9;
    out.push_back({"CPU time", fmt_fixed(best->ms->median, best->ms->median < 10 ? 3 : 1), "ms",
                   best->label + ", N = " + vec::format_count(best->n)});
    out.push_back({"CPU memory", fmt_fixed(gbs, 1), "GB/s", "12 B per element"});
  }
  return out;
}

}  // namespace

std::optional<std::string> check_vector_state(const nlohmann::json& state) {
  ui::VectorPanelModel m;
  return read_vector_state(state, m);
}

}  // namespace bs
