// multigpu_lab.cpp: the Multi-GPU lab (issue 18). The heat field split into row slabs, one per chosen GPU
// (gpu/multigpu: halos exchanged by NCCL or peer copies, the interior updated meanwhile), drawn live with the
// slabs and halos over it; Monte Carlo across GPUs with the price identical for every GPU count; strong and
// weak scaling measured on a worker and plotted. One GPU: the lab says so and runs one slab (or, with the
// virtual transport, k slabs on that GPU: the logic, not a scaling figure). No GPU: the CPU computes the
// field and the prices, and the slabs show how k GPUs would split it.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "app/field_presenter.h"
#include "app/labs.h"
#include "app/layout.h"
#include "app/multigpu/multigpu_bench.h"
#include "app/multigpu/multigpu_sweep_target.h"
#include "app/shell/lab_jobs.h"
#include "core/param_binding.h"
#include "core/error.h"
#include "core/stats.h"
#include "core/text.h"
#include "gpu/interop/gl_interop.h"
#include "gpu/multigpu/comm.h"
#include "gpu/multigpu/multi_heat.h"
#include "gpu/multigpu/multi_mc.h"
#include "ui/multigpu/multigpu_panel.h"
#include "ui/multigpu/multigpu_schema.h"

namespace bs {

namespace {

namespace mg = bs::multigpu;
namespace umg = bs::ui::mg;
namespace mcl = bs::montecarlo;

// The CPU computes at most this many steps per frame (all threads), so the UI stays responsive without a GPU.
constexpr int k_cpu_steps_per_frame = 2;
// Scaling runs: steps per timed repetition and repetitions (median), after a warm-up.
constexpr int k_scaling_steps = 20;
constexpr int k_scaling_reps = 3;

heat::Params field_params(int64_t nx, int64_t ny) {
  heat::Params p;
  p.nx = nx;
  p.ny = ny;
  return p;
}

mcl::Params mc_params(const umg::PanelModel& m) {
  mcl::Params p;
  p.paths = m.paths;
  p.steps = m.mc_steps;
  return p;
}

// What a scaling or pricing job hands back to the frame loop.
struct JobResult {
  std::mutex mutex;
  std::vector<mg::ScalingRow> strong, weak;
  std::vector<umg::McRun> mc;
  std::string what, subtitle, status;
};

class MultiGpuLab final : public Lab {
 public:
  explicit MultiGpuLab(LabEnv& env) : m_env(env), m_presenter(env) {
    // Without a GPU the CPU computes the field; two slabs show how two GPUs would split it.
    if (!(m_env.device.available && m_env.path.path != RenderPath::Cpu)) m_model.gpus = 2;
    m_jobs.attach(m_job, {&m_model.job_running, &m_model.job_progress, &m_model.job_status});
    rebuild();
  }

  const char* id() const override { return "multigpu"; }
  const char* title() const override { return "Multi-GPU"; }
  const char* view_window() const override { return "Multi-GPU view"; }

  void rebuild() override {
    m_job.cancel();
    m_job.wait();
    m_gpu = m_env.device.available && m_env.path.path != RenderPath::Cpu;
    m_model.devices.clear();
    m_model.no_gpu.clear();
    m_model.draws_on.clear();
    if (m_gpu) {
      for (const mg::GpuInfo& g : mg::list_gpus())
        m_model.devices.push_back({g.index, g.name, g.memory_gib, g.sm_count, g.peers, false});
      // Every GPU computes at first (the schema's gpus = 1 is what a sweep or bench starts from anywhere).
      for (auto& d : m_model.devices)
        d.ticked = true;
      if (m_model.transport == umg::Transport::Auto)
        m_model.gpus = std::max(static_cast<int>(m_model.devices.size()), 1);
      if (m_model.devices.empty()) m_gpu = false;
    }
    if (m_gpu) {
      std::string why;
      const std::vector<int> gl = interop::gl_cuda_devices(&why);
      const std::string renderer = m_env.gl ? m_env.gl->info().renderer : std::string("no GL context");
      if (gl.empty())
        m_model.draws_on = "GL draws on " + renderer + ", which is no CUDA GPU (" + why + ")";
      else
        m_model.draws_on = "GL draws on GPU " + std::to_string(gl.front()) + " (" + renderer + ")";
      m_draw_device = gl.empty() ? -1 : gl.front();
    } else {
      m_model.no_gpu = m_env.device.available ? m_env.path.reason : m_env.device.reason;
    }
    configure();
  }

  void abandon_gpu() noexcept override {
    // After a device reset the handles are gone: forget them without freeing.
    (void)m_heat.release();
    (void)m_comm.release();
  }

  void draw_ui() override {
    m_actions = {};
    m_jobs.poll();
    m_model.job_label = m_job.label();
    if (begin_window("Multi-GPU view", Slot::View)) umg::draw_multigpu_view(m_model, m_actions);
    ImGui::End();
    if (begin_window("Multi-GPU lab", Slot::Panel)) umg::draw_multigpu_panel(m_model, m_actions);
    ImGui::End();
    if (m_actions.view_w > 0) {
      m_view_w = m_actions.view_w;
      m_view_h = m_actions.view_h;
    }
  }

  void update() override {
    if (m_actions.cancel_job) m_job.cancel();
    if (m_actions.params_changed || m_actions.reset) configure();
    if (m_actions.toggle_pause) m_model.paused = !m_model.paused;
    if (m_actions.price_mc) start_pricing();
    if (m_actions.run_strong) start_scaling(false);
    if (m_actions.run_weak) start_scaling(true);
    if (m_model.workload == umg::Workload::Heat && !m_model.paused && !m_job.running()) step_field();
    gl::FieldStyle style;
    style.range_min = m_model.range_min;
    style.range_max = m_model.range_max;
    style.colormap = m_model.colormap;
    if (m_presenter.nx() > 0) m_model.texture = m_presenter.render(m_view_w, m_view_h, style);
    // The scaling and pricing runs are watched while they run (a headless update does not drain them); a GPU
    // failure inside one goes to App's recovery.
    m_jobs.rethrow_gpu_error();
  }

  // The schema's parameters through their bindings (ui/multigpu/multigpu_schema.cpp); the ticked devices are
  // the lab's own extra.
  nlohmann::json save_state() const override {
    nlohmann::json j = params::save_bound(ui::multigpu_schema(), m_model);
    nlohmann::json devices = nlohmann::json::array();  // empty without a GPU
    for (const auto& d : m_model.devices)
      if (d.ticked) devices.push_back(d.index);
    j["devices"] = devices;
    return j;
  }

  std::optional<std::string> load_state(const nlohmann::json& state) override {
    if (auto err = check_lab_state("multigpu", state)) return err;
    umg::PanelModel m = m_model;
    params::load_bound(ui::multigpu_schema(), m, state);
    if (state.contains("devices")) {
      // GPUs this machine lacks are left out (a session from a bigger machine); the rest are ticked.
      for (auto& d : m.devices)
        d.ticked =
            std::find(state["devices"].begin(), state["devices"].end(), d.index) != state["devices"].end();
    }
    m_model = m;
    configure();
    return std::nullopt;
  }

  std::vector<ui::Readout> readouts() const override {
    std::vector<ui::Readout> out;
    if (m_model.workload == umg::Workload::Heat && m_model.ms_per_step > 0) {
      out.push_back({"time per step", fmt_fixed(m_model.ms_per_step, 3), "ms",
                     std::to_string(m_model.slabs.size()) + " slab(s), " + m_model.transport_text});
      if (m_model.slabs.size() > 1 && m_gpu) {  // the CPU computes one field: no exchange to show
        const auto& s = *std::max_element(m_model.slabs.begin(), m_model.slabs.end(),
                                          [](const auto& a, const auto& b) { return a.step_ms < b.step_ms; });
        out.push_back({"exchanging",
                       fmt_fixed(100 * umg::exchange_share(s.exchange_ms, s.step_ms, m_model.halo_used), 1), "%",
                       "of a round, slowest slab"});
      }
    }
    if (!m_model.strong.empty()) {
      const auto& r = m_model.strong.back();
      out.push_back({"speedup", "x" + fmt_fixed(r.speedup, 2), "",
                     std::to_string(r.gpus) + " GPUs, efficiency " + fmt_fixed(100 * r.efficiency, 1) + "%"});
    }
    return out;
  }

 private:
  // The halo and overlap the live field runs with: as set, or (halo 0) the bandwidth model's for the field on
  // `gpus` GPUs like `device`, said in the panel.
  void use_plan(const heat::Params& p, int gpus, int device) {
    m_model.plan_text.clear();
    m_model.halo_used = std::max(m_model.halo, 1);
    m_model.overlap_used = m_model.overlap;
    if (m_model.halo > 0) return;
    const mg::HeatPlan plan = mg::plan_heat(p, gpus, device);
    m_model.halo_used = plan.halo;
    m_model.overlap_used = plan.overlap;
    m_model.plan_text = "halo 0, so the bandwidth model chose: " + mg::describe_plan(plan, gpus);
  }

  // (Re)builds the slabs for the current parameters (and the CPU field without a GPU).
  void configure() {
    m_model.error.clear();
    m_model.notice.clear();
    m_model.slabs.clear();
    m_model.steps_done = 0;
    m_model.ms_per_step = 0;
    m_heat.reset();
    m_comm.reset();
    const heat::Params p = field_params(m_model.nx, m_model.ny);
    m_initial = heat::make_initial(p, heat::InitialPattern::HotSpots);
    m_presenter.resize(static_cast<int>(p.nx), static_cast<int>(p.ny), false);
    if (!m_gpu) {
      m_field = m_initial;
      m_next.assign(m_field.size(), 0.0f);
      m_model.transport_text = heat::cpu_mode_label(heat::CpuMode::AllThreads);
      m_model.field_path = "CPU field -> GL";
      use_plan(p, m_model.gpus, 0);
      if (auto err = mg::validate_decomposition(p.ny, m_model.gpus, m_model.halo_used)) {
        m_model.error = *err;
      } else {
        for (const mg::Slab& s : mg::decompose(p.ny, m_model.gpus, m_model.halo_used))
          m_model.slabs.push_back({s, -1, 0, 0});
      }
      m_presenter.present_host(m_field.data());
      return;
    }
    const std::vector<int> devices = umg::compute_devices(m_model.devices, m_model.transport, m_model.gpus);
    if (devices.empty()) {
      m_model.error = "tick at least one GPU to compute on";
      return;
    }
    if (m_model.devices.size() == 1 && m_model.transport == umg::Transport::Auto)
      m_model.notice =
          "this machine has 1 GPU: the field runs as one slab on it (the heat lab's single-GPU path is "
          "the same kernel); the virtual transport splits it into slabs on this GPU to show the "
          "exchange (the logic, not a scaling figure)";
    try {
      std::string why;
      m_comm = std::make_unique<mg::Communicator>(mg::make_transport(devices, &why));
      m_model.transport_text = m_comm->size() == 1 && m_model.transport == umg::Transport::Auto
                                   ? "one GPU, one slab: no exchange"
                                   : m_comm->describe() + (why.empty() ? "" : "; " + why);
      use_plan(p, m_comm->size(), devices.front());
      mg::HeatConfig cfg;
      cfg.params = p;
      cfg.halo = m_model.halo_used;
      cfg.overlap = m_model.overlap_used;
      if (auto err = mg::validate(cfg, m_comm->size())) throw InvalidRequest(*err);
      m_heat = std::make_unique<mg::MultiHeat>(*m_comm, cfg);
      m_heat->upload(m_initial);
      for (size_t i = 0; i < m_heat->slabs().size(); ++i)
        m_model.slabs.push_back({m_heat->slabs()[i], m_comm->device(static_cast<int>(i)), 0, 0});
      const bool all_on_draw_gpu =
          std::all_of(devices.begin(), devices.end(), [&](int d) { return d == m_draw_device; });
      m_model.field_path = std::string("slabs -> host -> GL (host copy") +
                           (all_on_draw_gpu ? "" : "; not every slab is on GL's GPU") + ")";
    } catch (const InvalidRequest& e) {
      m_model.error = e.what();
      m_heat.reset();
      m_comm.reset();
    } catch (const GpuError& e) {
      m_model.error = std::string("the GPUs could not be set up: ") + e.what();
      m_heat.reset();
      m_comm.reset();
    }
    m_presenter.present_host(m_initial.data());
  }

  void step_field() {
    if (!m_gpu) {
      const heat::Params p = field_params(m_model.nx, m_model.ny);
      const auto t0 = std::chrono::steady_clock::now();
      const int steps = std::min(m_model.steps_per_frame, k_cpu_steps_per_frame);
      for (int i = 0; i < steps; ++i) {
        heat::step_cpu(m_field.data(), m_next.data(), p, heat::CpuMode::AllThreads);
        m_field.swap(m_next);
      }
      m_model.ms_per_step =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps;
      m_model.steps_done += steps;
      m_presenter.present_host(m_field.data());
      return;
    }
    if (!m_heat) return;
    const auto t0 = std::chrono::steady_clock::now();
    m_heat->step(m_model.steps_per_frame);
    const std::vector<mg::SlabTiming> t = m_heat->timings();  // waits for the steps
    m_model.ms_per_step =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        m_model.steps_per_frame;
    for (const mg::SlabTiming& s : t)
      for (auto& st : m_model.slabs)
        if (st.slab.index == s.slab) {
          st.step_ms = s.step_ms;
          st.exchange_ms = s.exchange_ms;
        }
    m_model.steps_done += m_model.steps_per_frame;
    m_host = m_heat->download();
    m_presenter.present_host(m_host.data());
  }

  // Devices for k GPUs of a scaling run: the first k chosen (virtual: k slabs on the first chosen GPU).
  std::vector<std::vector<int>> scaling_sets() const {
    const std::vector<int> chosen = umg::compute_devices(m_model.devices, m_model.transport, m_model.gpus);
    std::vector<std::vector<int>> sets;
    for (size_t k = 1; k <= chosen.size(); ++k)
      sets.emplace_back(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(k));
    return sets;
  }

  void start_scaling(bool weak) {
    if (!m_gpu) {
      m_model.job_status = "scaling needs a GPU: " + m_model.no_gpu;
      return;
    }
    const auto sets = scaling_sets();
    if (sets.empty()) {
      m_model.job_status = "tick at least one GPU";
      return;
    }
    auto result = std::make_shared<JobResult>();
    const umg::PanelModel m = m_model;
    const bool virt = m.transport == umg::Transport::Virtual;
    m_job.start(weak ? "weak scaling" : "strong scaling", [result, sets, m, weak, virt](JobControl& ctl) {
      std::vector<mg::ScalingSample> samples;
      std::string transport;
      std::optional<double> first_price;
      for (size_t i = 0; i < sets.size(); ++i) {
        check(ctl);
        const int k = static_cast<int>(sets[i].size());
        mg::Communicator comm = mg::make_transport(sets[i]);
        transport = comm.describe();
        if (m.workload == umg::Workload::Heat) {
          mg::HeatConfig cfg;
          cfg.params = field_params(m.scaling_nx, weak ? m.scaling_ny * k : m.scaling_ny);
          cfg.halo = m.halo;
          cfg.overlap = m.overlap;
          if (m.halo == 0) {  // the model's choice for each GPU count
            const mg::HeatPlan plan = mg::plan_heat(cfg.params, k, sets[i].front());
            cfg.halo = plan.halo;
            cfg.overlap = plan.overlap;
          }
          if (auto err = mg::validate(cfg, comm.size())) throw InvalidRequest(*err);
          int rep = 0;
          const mg::HeatTiming t = mg::time_heat(comm, cfg, k_scaling_steps, k_scaling_reps, false, [&] {
            check(ctl);
            ctl.set_progress((static_cast<double>(i) + static_cast<double>(rep++) / k_scaling_reps) /
                             sets.size());
          });
          samples.push_back({k, t.ms_per_step});
        } else {
          mg::MultiPricer pricer(comm);
          const mcl::Params p = mc_params(m);
          (void)pricer.price(p);  // warm-up
          std::vector<double> ms;
          for (int r = 0; r < k_scaling_reps; ++r) {
            check(ctl);
            const mg::McRunResult res = pricer.price(p);
            ms.push_back(res.ms);
            if (!first_price) first_price = res.estimate.price;
            if (res.estimate.price != *first_price)
              throw std::runtime_error("the price on " + std::to_string(k) + " GPUs differs from 1 GPU's");
          }
          samples.push_back({k, summarize(ms).median});
        }
        ctl.set_progress(static_cast<double>(i + 1) / sets.size());
      }
      std::lock_guard lock(result->mutex);
      if (weak)
        result->weak = mg::weak_scaling(samples);
      else
        result->strong = mg::strong_scaling(samples);
      result->what = m.workload == umg::Workload::Heat
                         ? "heat " + std::to_string(m.scaling_nx) + "x" + std::to_string(m.scaling_ny)
                         : "Monte Carlo " + std::to_string(m.paths) + " paths";
      result->subtitle = transport + (virt ? " (VIRTUAL: every slab on one GPU; not a scaling figure)" : "") +
                         ", host clock, median of " + std::to_string(k_scaling_reps);
      if (sets.size() == 1)
        result->status = "one GPU chosen: tick more GPUs (or use the virtual transport) to see scaling";
    }, take(result));
    m_model.job_status.clear();
  }

  void start_pricing() {
    auto result = std::make_shared<JobResult>();
    const umg::PanelModel m = m_model;
    const mcl::Params p = mc_params(m);
    if (!m_gpu) {
      m_job.start("pricing on the CPU", [result, p](JobControl& ctl) {
        const mcl::Result r = mcl::run_cpu(p, mcl::CpuMode::AllThreads, &ctl);
        umg::McRun run;
        run.gpu = false;
        run.price = r.estimate.price;
        run.std_error = r.estimate.std_error;
        run.ms = r.ms;
        std::lock_guard lock(result->mutex);
        result->mc.push_back(run);
      }, take(result));
      return;
    }
    const std::vector<int> chosen = umg::compute_devices(m.devices, m.transport, m.gpus);
    if (chosen.empty()) {
      m_model.error = "tick at least one GPU to compute on";
      return;
    }
    // 1 GPU first, then the chosen count: the table shows the same price and the time each took.
    std::vector<std::vector<int>> sets{{chosen.front()}};
    if (chosen.size() > 1) sets.push_back(chosen);
    m_job.start("pricing across the GPUs", [result, p, sets](JobControl& ctl) {
      std::optional<double> first;
      for (size_t i = 0; i < sets.size(); ++i) {
        check(ctl);
        mg::Communicator comm = mg::make_transport(sets[i]);
        mg::MultiPricer pricer(comm);
        (void)pricer.price(p);  // warm-up: module load, first touches
        const mg::McRunResult r = pricer.price(p);
        umg::McRun run;
        run.gpus = comm.size();
        run.price = r.estimate.price;
        run.std_error = r.estimate.std_error;
        run.ms = r.ms;
        run.rank_ms = r.rank_ms;
        if (first)
          run.same = r.estimate.price == *first ? "identical to the 1-GPU price, to the last bit"
                                                : "DIFFERS from the 1-GPU price";
        else
          first = r.estimate.price;
        std::lock_guard lock(result->mutex);
        result->mc.push_back(run);
        ctl.set_progress(static_cast<double>(i + 1) / sets.size());
      }
    }, take(result));
  }

  static void check(const JobControl& ctl) {
    if (ctl.cancelled()) throw JobCancelled{};
  }

  // The job's result into the model, once, on the frame thread.
  std::function<void()> take(std::shared_ptr<JobResult> result) {
    return [this, result] {
      std::lock_guard lock(result->mutex);
      if (!result->strong.empty()) m_model.strong = result->strong;
      if (!result->weak.empty()) m_model.weak = result->weak;
      if (!result->what.empty()) {
        m_model.scaling_what = result->what;
        m_model.scaling_subtitle = result->subtitle;
      }
      for (const auto& r : result->mc)
        m_model.mc_runs.push_back(r);
      if (!result->status.empty()) m_model.job_status = result->status;
    };
  }

  LabEnv& m_env;
  FieldPresenter m_presenter;
  umg::PanelModel m_model;
  umg::Actions m_actions;
  bool m_gpu = false;
  int m_draw_device = -1;
  std::unique_ptr<mg::Communicator> m_comm;
  std::unique_ptr<mg::MultiHeat> m_heat;  // destroyed before m_comm (declared after it)
  std::vector<float> m_initial, m_field, m_next, m_host;
  int m_view_w = 512, m_view_h = 512;
  LabJobs m_jobs;
  LabJob m_job;
};

}  // namespace

std::unique_ptr<Lab> make_multigpu_lab(LabEnv& env) {
  return std::make_unique<MultiGpuLab>(env);
}

}  // namespace bs
