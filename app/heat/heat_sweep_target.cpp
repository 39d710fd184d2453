// heat_sweep_target.cpp: the heat lab as a sweep target. A point is timed through the lab's GpuSolver (CUDA
// events) and its two CPU baselines (host clock): warm-up runs first, then every repetition is one raw
// sample.
#include "app/heat/heat_sweep_target.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "app/kernel/user_kernels.h"
#include "app/sweep/target.h"
#include "app/sweep/target_util.h"
#include "core/error.h"
#include "core/launch.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/heat_work.h"
#include "gpu/kernel/lab_runs.h"
#include "ui/heat/heat_schema.h"

namespace bs::sweep {

namespace {

// size, block.x, block.y, cells, steps: names, defaults and help from the heat schema.
const SchemaParams& heat_params() {
  static const SchemaParams p(ui::heat_schema());
  return p;
}
// CPU samples step at most this many cells per sample (about 20-60 ms on one core), so a sweep of large grids
// stays minutes, not hours; ms per step is still comparable.
constexpr double k_heat_cpu_cell_steps = 16.0 * 1024 * 1024;
constexpr int64_t k_heat_cpu_max_cells = 4096LL * 4096;  // beyond: CPU only when asked (device cpu)
constexpr double k_est_heat_gpu_rate = 2e9;              // cell-steps/s (an H100 does ~100e9)
constexpr double k_est_heat_cpu_rate = 50e6;  // cell-steps/s, either CPU series (one core does ~200e6)

struct HeatPoint {
  heat::Params p;
  Dim2 block;
  int cells = 1;
  int steps = 1;
  bool user = false;  // kernel = user: the user's heat_step (kernel lab), one cell per thread
};

HeatPoint heat_point(const Values& v) {
  HeatPoint h;
  const std::string& size = get(v, "size");
  const ParsedDim2 sz = parse_size2(size, "size");
  if (!sz.value) throw InvalidRequest(sz.error);
  h.p.nx = sz.value->x;
  h.p.ny = sz.value->y;
  if (auto err = heat::validate(h.p)) bad("size", size, *err);
  h.block = {get_int(v, "block.x", 1, 1024), get_int(v, "block.y", 1, 1024)};
  if (auto err = validate_block(h.block, DeviceLimits{}))
    throw InvalidRequest("block.x x block.y = " + to_string(h.block) + ": " + *err);
  h.cells = static_cast<int>(get_int(v, "cells", 1, 8));
  if (auto err = heat::validate_cells_per_thread(h.cells)) bad("cells", get(v, "cells"), *err);
  h.steps = static_cast<int>(get_int(v, "steps", 1, 100000));
  const std::string& k = get(v, "kernel");
  if (auto err = check_user_kernel_choice(k, kernel::Target::Heat)) throw InvalidRequest(*err);
  h.user = k == "user";
  return h;
}

class HeatTarget final : public Target {
 public:
  const char* lab() const override { return "heat"; }
  std::span<const ParamSpec> params() const override { return heat_params().specs(); }
  const char* unit() const override { return "Mcell/s"; }
  const char* time_label() const override { return "time per step (ms)"; }
  void validate(const Values& v) const override { (void)heat_point(v); }
  double work(const Values& v) const override {
    const HeatPoint h = heat_point(v);
    return static_cast<double>(h.p.cells()) * h.steps;
  }
  std::vector<std::string> gpu_only_params() const override { return heat_params().gpu_only(); }
  // Every series times one step (the CPU ones divide their samples by the steps they ran).
  bool has_work_model() const override { return true; }
  std::optional<work::Work> work_model(const Values& v, std::string_view) const override {
    return heat::step_work(heat_point(v).p);
  }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const HeatPoint h = heat_point(v);
    const double cells = static_cast<double>(h.p.cells());
    double t = cells / 50e6;  // the initial field
    if (s.run_gpu)
      t += k_est_setup_s + samples_of(s) * (cells * h.steps / k_est_heat_gpu_rate + k_est_call_overhead_s);
    if (s.run_cpu && (h.p.cells() <= k_heat_cpu_max_cells || s.cpu_explicit)) {
      const double steps =
          std::clamp(std::floor(k_heat_cpu_cell_steps / cells), 1.0, static_cast<double>(h.steps));
      t += 2 * samples_of(s) * (cells * steps / k_est_heat_cpu_rate + k_est_call_overhead_s);  // 2 series
    }
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const HeatPoint h = heat_point(v);
    const double mcells = static_cast<double>(h.p.cells()) / 1e6;
    // Noise in (0.05, 1): no zeros, and no denormals that would slow the CPU down as heat spreads.
    const std::vector<float> initial = heat::make_initial(h.p, heat::InitialPattern::Noise);
    PointRun out;
    if (s.run_gpu) {
      heat::GpuSolver solver(h.p);
      // kernel = user: the user's heat_step in place of the built-in step (as the heat lab runs it), one
      // cell per thread (its contract).
      std::shared_ptr<kernel::LoadedKernel> k;
      if (h.user) {
        const UserKernel uk = active_user_kernels()->current(kernel::Target::Heat);
        k = std::make_shared<kernel::LoadedKernel>(*uk.result);
        heat::GpuSolver* sp = &solver;
        solver.set_step_override([k, sp](const float* in, float* o, Dim2 grid, Dim2 block, void* stream) {
          kernel::launch_heat_step(*k, grid, block, in, o, sp->params(), stream);
        });
        if (h.cells != 1) out.notes.push_back("kernel = user computes one cell per thread: cells ignored");
      }
      solver.set_launch(h.block, std::nullopt, h.user ? 1 : h.cells);
      SeriesRun r{h.user ? "GPU your " + k->name() : std::string("GPU stencil"), true, {}, {}};
      try {
        solver.upload(initial);
        r.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] {
          solver.step(h.steps);
          if (k) kernel::wait_with_deadline(solver.stream_handle(), kernel::k_default_timeout_s, k->name());
          solver.sync();
          const std::vector<double> ms = solver.poll_step_ms();
          if (ms.empty()) throw std::runtime_error("heat: the GPU solver returned no timing");
          return ms.back();
        });
      } catch (const GpuError& e) {
        // A sticky fault: forget the handles (the app's recovery resets the device); name the user's kernel.
        if (e.sticky()) {
          if (k) k->abandon();
          solver.abandon();
        }
        const std::string what = e.what();
        if (k && what.find("user kernel") == std::string::npos)
          throw GpuError(kernel::fault_message(k->name(), what), e.code(), e.sticky());
        throw;
      }
      r.throughput = rates(r.time_ms, mcells);
      out.series.push_back(std::move(r));
    }
    if (s.run_cpu) {
      if (h.p.cells() > k_heat_cpu_max_cells && !s.cpu_explicit) {
        out.notes.push_back("CPU series skipped at " + get(v, "size") +
                            ": more than 4096x4096 cells is minutes per point on the CPU; sweep with "
                            "device cpu to run them anyway");
        return out;
      }
      const int cpu_steps = static_cast<int>(
          std::clamp<double>(std::floor(k_heat_cpu_cell_steps / static_cast<double>(h.p.cells())), 1.0,
                             static_cast<double>(h.steps)));
      if (cpu_steps < h.steps)
        out.notes.push_back("CPU samples time " + std::to_string(cpu_steps) + " steps each (not " +
                            std::to_string(h.steps) + ") to bound CPU time; times are per step");
      for (heat::CpuMode m : {heat::CpuMode::OneThread, heat::CpuMode::AllThreads}) {
        std::vector<float> field = initial;
        SeriesRun r{heat::cpu_mode_label(m), false, {}, {}};
        r.time_ms = time_host(
            s.warmup, s.repetitions, ctl, [&] { heat::run_cpu(field, h.p, cpu_steps, m); }, cpu_steps);
        r.throughput = rates(r.time_ms, mcells);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

const HeatTarget k_target;

}  // namespace

const Target& heat_sweep_target() {
  return k_target;
}

}  // namespace bs::sweep
