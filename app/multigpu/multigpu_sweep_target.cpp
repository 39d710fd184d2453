// multigpu_sweep_target.cpp: see multigpu_sweep_target.h. A heat point is timed as the bench times it (host
// clock around every slab's steps, gpu/multigpu's time_heat); a Monte Carlo point by its pricers kept across
// the repetitions. The CPU series (all threads) ignores the GPU count.
#include "app/multigpu/multigpu_sweep_target.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "app/sweep/target_util.h"
#include "core/error.h"
#include "core/launch.h"
#include "gpu/heat/heat_work.h"
#include "gpu/montecarlo/montecarlo_work.h"
#include "gpu/multigpu/comm.h"
#include "gpu/multigpu/multi_heat.h"
#include "gpu/multigpu/multi_mc.h"
#include "ui/multigpu/multigpu_schema.h"

namespace bs::sweep {

namespace {

namespace mg = bs::multigpu;

const SchemaParams& mg_params() {
  static const SchemaParams p(ui::multigpu_schema());
  return p;
}

constexpr int k_steps_per_sample = 10;
// Above this many cell updates per sample the one-process CPU series needs device cpu (seconds per sample).
constexpr double k_cpu_max_cells = 64.0 * 1024 * 1024;
constexpr double k_cpu_max_path_steps = 512.0 * 1024 * 1024;

struct MgPoint {
  bool heat = true;
  bool virtual_slabs = false;
  int gpus = 1;
  heat::Params p;
  int halo = 1;
  montecarlo::Params mc;
};

MgPoint mg_point(const Values& v) {
  MgPoint m;
  const std::string& w = get(v, "workload");
  if (w != "heat" && w != "montecarlo") bad("workload", w, "not a workload (heat, montecarlo)");
  m.heat = w == "heat";
  const std::string& t = get(v, "transport");
  if (t != "auto" && t != "virtual") bad("transport", t, "not a transport (auto, virtual)");
  m.virtual_slabs = t == "virtual";
  m.gpus = static_cast<int>(get_int(v, "gpus", 1, ui::k_mg_max_gpus));
  const std::string& size = get(v, "size");
  const ParsedDim2 sz = parse_size2(size, "size");
  if (!sz.value) throw InvalidRequest(sz.error);
  if (sz.value->x < 64 || sz.value->y < 64 || sz.value->x > ui::k_mg_max_scaling_size ||
      sz.value->y > ui::k_mg_max_scaling_size)
    bad("size", size, "each side must be 64..32768");
  m.p.nx = sz.value->x;
  m.p.ny = sz.value->y;
  m.halo = static_cast<int>(get_int(v, "halo", 0, 16));  // 0: the bandwidth model's choice
  if (m.heat)
    if (auto err = mg::validate_decomposition(m.p.ny, m.gpus, std::max(m.halo, 1)))
      bad("gpus", get(v, "gpus"), *err);
  m.mc.paths = get_int(v, "paths", 24, montecarlo::k_max_paths);
  return m;
}

std::vector<int> devices_of(const MgPoint& m) {
  std::vector<int> d(static_cast<size_t>(m.gpus), 0);
  if (!m.virtual_slabs)
    for (int i = 0; i < m.gpus; ++i)
      d[static_cast<size_t>(i)] = i;
  return d;
}

double path_steps(const montecarlo::Params& p) {
  return static_cast<double>(montecarlo::paths_for_samples(montecarlo::sample_count(p), p.antithetic)) *
         p.steps;
}

class MultiGpuTarget final : public Target {
 public:
  const char* lab() const override { return "multigpu"; }
  std::span<const ParamSpec> params() const override { return mg_params().specs(); }
  const char* unit() const override { return "G updates/s"; }
  const char* time_label() const override { return "time per step or pricing (ms)"; }
  void validate(const Values& v) const override { (void)mg_point(v); }
  double work(const Values& v) const override {
    const MgPoint m = mg_point(v);
    return m.heat ? static_cast<double>(m.p.cells()) : path_steps(m.mc);
  }
  std::vector<std::string> gpu_only_params() const override { return mg_params().gpu_only(); }
  // The work of one step (heat) or one pricing (Monte Carlo), the same on any GPU count: the roofline places
  // the whole machine's throughput.
  bool has_work_model() const override { return true; }
  std::optional<work::Work> work_model(const Values& v, std::string_view) const override {
    const MgPoint m = mg_point(v);
    return m.heat ? heat::step_work(m.p) : montecarlo::run_work(m.mc);
  }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const MgPoint m = mg_point(v);
    const double w = m.heat ? static_cast<double>(m.p.cells()) * k_steps_per_sample : path_steps(m.mc);
    double t = 0;
    // Slow rates on purpose (plan_sweep's rule): 2e9 updates/s on a GPU, 2e7 on the CPU; NCCL set-up 2 s.
    if (s.run_gpu) t += 2.0 + k_est_setup_s + samples_of(s) * (w / 2e9 + k_est_call_overhead_s);
    if (s.run_cpu) t += samples_of(s) * w / 2e7;
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const MgPoint m = mg_point(v);
    PointRun out;
    const double work_g = (m.heat ? static_cast<double>(m.p.cells()) : path_steps(m.mc)) / 1e9;
    // A count beyond this machine's GPUs gets no GPU series, as the bench's rows (virtual: any count).
    const int devices = s.run_gpu ? mg::cuda_device_count() : 0;
    if (s.run_gpu && !m.virtual_slabs && m.gpus > devices) {
      out.notes.push_back(
          "gpus=" + std::to_string(m.gpus) + ": not available, this machine has " + std::to_string(devices) +
          (devices == 1 ? " GPU" : " GPUs") +
          " (transport=virtual runs that many slabs on one GPU: the logic, not a scaling figure)");
    } else if (s.run_gpu) {
      mg::Communicator comm = mg::make_transport(devices_of(m));
      // One name for every GPU count, so a sweep over gpus draws one line (the count is the x axis).
      SeriesRun r{m.virtual_slabs ? "GPU (virtual slabs)" : "GPU", true, {}, {}};
      if (m.heat) {
        mg::HeatConfig cfg;
        cfg.params = m.p;
        cfg.halo = m.halo;
        if (m.halo == 0) {
          const mg::HeatPlan plan = mg::plan_heat(m.p, m.gpus, devices_of(m).front());
          cfg.halo = plan.halo;
          cfg.overlap = plan.overlap;
        }
        if (auto err = mg::validate(cfg, comm.size())) throw InvalidRequest(*err);
        mg::MultiHeat h(comm, cfg);
        h.upload(heat::make_initial(m.p, heat::InitialPattern::HotSpots));
        r.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] {
          const double t0 = now_ms();
          h.step(k_steps_per_sample);
          h.sync();
          return (now_ms() - t0) / k_steps_per_sample;
        });
      } else {
        mg::MultiPricer pricer(comm);
        r.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] { return pricer.price(m.mc).ms; });
      }
      r.throughput = rates(r.time_ms, work_g);
      out.notes.push_back("gpus=" + std::to_string(m.gpus) + ": " + comm.describe());
      out.series.push_back(std::move(r));
    }
    if (s.run_cpu) {
      const double w = m.heat ? static_cast<double>(m.p.cells()) : path_steps(m.mc);
      const std::string label = m.heat ? heat::cpu_mode_label(heat::CpuMode::AllThreads)
                                       : montecarlo::cpu_mode_label(montecarlo::CpuMode::AllThreads);
      if (w > (m.heat ? k_cpu_max_cells : k_cpu_max_path_steps) && !s.cpu_explicit) {
        out.notes.push_back(label + " skipped: seconds per sample; sweep with device cpu to run it");
      } else {
        SeriesRun r{label, false, {}, {}};
        if (m.heat) {
          std::vector<float> a = heat::make_initial(m.p, heat::InitialPattern::HotSpots), b(a.size());
          r.time_ms = time_host(s.warmup, s.repetitions, ctl, [&] {
            heat::step_cpu(a.data(), b.data(), m.p, heat::CpuMode::AllThreads);
            a.swap(b);
          });
        } else {
          r.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] {
            return montecarlo::run_cpu(m.mc, montecarlo::CpuMode::AllThreads).ms;
          });
        }
        r.throughput = rates(r.time_ms, work_g);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

const MultiGpuTarget k_target;

}  // namespace

const Target& multigpu_sweep_target() {
  return k_target;
}

}  // namespace bs::sweep
