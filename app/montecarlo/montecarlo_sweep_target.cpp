// montecarlo_sweep_target.cpp: the montecarlo lab as a sweep target. A point is timed through the lab's
// GpuPricer (CUDA events) and its two CPU baselines, each guarded against runs of seconds.
#include "app/montecarlo/montecarlo_sweep_target.h"

#include <string>

#include "app/sweep/target.h"
#include "app/sweep/target_util.h"
#include "core/error.h"
#include "core/launch.h"
#include "gpu/montecarlo/montecarlo.h"
#include "gpu/montecarlo/montecarlo_work.h"
#include "ui/montecarlo/montecarlo_schema.h"

namespace bs::sweep {

namespace {

// paths, steps, generator, block.x, layout: names, defaults and help from the Monte Carlo schema.
const SchemaParams& mc_params() {
  static const SchemaParams p(ui::montecarlo_schema());
  return p;
}
// CPU path-steps per sample beyond which the CPU series need device cpu (one thread does ~50-100 M/s).
constexpr double k_mc_cpu1_max_path_steps = 64.0 * 1024 * 1024;
constexpr double k_mc_cpu_all_max_path_steps = 512.0 * 1024 * 1024;
constexpr double k_est_mc_cpu_rate = 20e6;  // path-steps/s for either CPU series, conservatively

struct McPoint {
  montecarlo::Params p;
  montecarlo::Launch launch;
};

McPoint mc_point(const Values& v) {
  McPoint m;
  m.p.paths = get_int(v, "paths", 1, montecarlo::k_max_paths);
  m.p.steps = static_cast<int>(get_int(v, "steps", 1, montecarlo::k_max_steps));
  const std::string& gen = get(v, "generator");
  const auto g = montecarlo::parse_generator(gen);
  if (!g) bad("generator", gen, "not a generator (" + montecarlo::k_generator_names.list() + ")");
  m.p.generator = *g;
  const std::string& layout = get(v, "layout");
  const auto l = montecarlo::k_layout_names.parse(layout);
  if (!l) bad("layout", layout, "not a layout (" + montecarlo::k_layout_names.list() + ")");
  m.launch.layout = *l;
  m.launch.block = static_cast<int>(get_int(v, "block.x", 1, 1024));
  if (auto err = validate_block({m.launch.block, 1}, DeviceLimits{})) bad("block.x", get(v, "block.x"), *err);
  if (auto e = montecarlo::check(m.p)) bad(e->param, get(v, e->param), e->message);
  return m;
}

double mc_path_steps(const montecarlo::Params& p) {
  return static_cast<double>(montecarlo::paths_for_samples(montecarlo::sample_count(p), p.antithetic)) *
         p.steps;
}

class MonteCarloTarget final : public Target {
 public:
  const char* lab() const override { return "montecarlo"; }
  std::span<const ParamSpec> params() const override { return mc_params().specs(); }
  const char* unit() const override { return "G path-steps/s"; }
  const char* time_label() const override { return "time per run (ms)"; }
  void validate(const Values& v) const override { (void)mc_point(v); }
  double work(const Values& v) const override { return mc_path_steps(mc_point(v).p); }
  std::vector<std::string> gpu_only_params() const override { return mc_params().gpu_only(); }
  bool has_work_model() const override { return true; }
  std::optional<work::Work> work_model(const Values& v, std::string_view) const override {
    return montecarlo::run_work(mc_point(v).p);
  }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const double steps = mc_path_steps(mc_point(v).p);
    double t = 0;
    if (s.run_gpu) t += k_est_setup_s + samples_of(s) * (steps / 5e9 + k_est_call_overhead_s);
    if (s.run_cpu) {
      if (steps <= k_mc_cpu1_max_path_steps || s.cpu_explicit) t += samples_of(s) * steps / k_est_mc_cpu_rate;
      if (steps <= k_mc_cpu_all_max_path_steps || s.cpu_explicit)
        t += samples_of(s) * steps / k_est_mc_cpu_rate;
    }
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const McPoint m = mc_point(v);
    const double gsteps = mc_path_steps(m.p) / 1e9;
    PointRun out;
    if (s.run_gpu) {
      montecarlo::GpuPricer pricer;
      pricer.reset(m.p);
      pricer.set_launch(m.launch);
      SeriesRun r{"GPU", true, {}, {}};
      r.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] { return pricer.run().ms; });
      r.throughput = rates(r.time_ms, gsteps);
      out.series.push_back(std::move(r));
    }
    if (s.run_cpu) {
      for (montecarlo::CpuMode mode : {montecarlo::CpuMode::OneThread, montecarlo::CpuMode::AllThreads}) {
        const double limit =
            mode == montecarlo::CpuMode::OneThread ? k_mc_cpu1_max_path_steps : k_mc_cpu_all_max_path_steps;
        const std::string label = montecarlo::cpu_mode_label(mode);
        if (mc_path_steps(m.p) > limit && !s.cpu_explicit) {
          out.notes.push_back(label + " skipped at paths=" + get(v, "paths") + ", steps=" + get(v, "steps") +
                              ": seconds per run; sweep with device cpu to run it");
          continue;
        }
        SeriesRun r{label, false, {}, {}};
        r.time_ms =
            collect_samples(s.warmup, s.repetitions, ctl, [&] { return montecarlo::run_cpu(m.p, mode).ms; });
        r.throughput = rates(r.time_ms, gsteps);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

const MonteCarloTarget k_target;

}  // namespace

const Target& montecarlo_sweep_target() {
  return k_target;
}

}  // namespace bs::sweep
