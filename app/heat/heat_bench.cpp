// bench_heat.cpp: `blockscope bench heat --size N --steps S [--block XxY] [--device gpu|cpu|all]`.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iterator>
#include <iostream>
#include <memory>
#include <optional>

#include "app/bench.h"
#include "app/counters_bench.h"
#include "app/multigpu/multigpu_bench.h"
#include "app/param_flags.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "gpu/heat/heat.h"
#include "ui/heat/heat_schema.h"

namespace bs::cli {

namespace {
// The tile shapes `--tune` times (all 64 KiB of shared memory but the last two).
const heat::TileShape k_tune_shapes[] = {{128, 4, 16}, {128, 8, 8},  {256, 2, 16}, {256, 4, 8},
                                         {64, 8, 16},  {32, 16, 16}, {128, 4, 8},  {64, 8, 8}};

// Sizes, block, steps and CPU steps are the heat schema's (ui/heat/heat_schema.h), with the bench's own
// default size (a field that does not fit in the L2 cache).
struct HeatBenchArgs {
  std::unique_ptr<ParamFlags> flags;
  int cells_per_thread = 0;  // 0: every choice
  int fused_steps = -1;      // temporal blocking: -1: 2, 4, 6, 8 on the default tile; 0: none; N: only N
  bool tune = false;         // temporal blocking: every tile shape of k_tune_shapes x 2..8 steps
  BenchDevice device = BenchDevice::All;
  int steps = 0, cpu_steps = 0;
  MultiGpuArgs multi;  // --gpus ...: app/multigpu
};

// The temporal-blocking table and the line comparing its best row with the best one-step kernel (`one_ms`).
Table run_temporal(const HeatBenchArgs& a, const heat::Params& p, double one_ms, double copy_gbs,
                   std::string& summary) {
  std::vector<heat::TemporalTile> tiles;
  if (a.tune) {
    for (const heat::TileShape& s : k_tune_shapes)
      for (int steps = 2; steps <= heat::k_max_fused_steps; ++steps)
        tiles.push_back({s, steps});
  } else if (a.fused_steps > 0) {
    tiles.push_back({heat::k_default_tile, a.fused_steps});
  } else {
    for (int steps : {2, 4, 6, 8})
      tiles.push_back({heat::k_default_tile, steps});
  }
  std::vector<heat::TemporalBench> runs;
  for (const heat::TemporalTile& t : tiles)
    runs.push_back(heat::bench_temporal(p, t, a.steps, 7));
  double best = 1e300;
  const heat::TemporalBench* best_run = nullptr;
  for (const auto& r : runs)
    if (r.row.ms_per_step < best) best = r.row.ms_per_step, best_run = &r;
  Table t{{"variant", "steps/pass", "ms/step", "p10", "p90", "Mcell/s", "GB/s equiv.", "% of copy",
           "computed/useful", "DRAM B/upd", "vs best one-step"},
          {}};
  for (const auto& r : runs)
    t.rows.push_back({r.row.variant, std::to_string(r.tile.steps), fmt_fixed(r.row.ms_per_step, 4),
                      fmt_fixed(r.row.p10, 4), fmt_fixed(r.row.p90, 4), fmt_fixed(r.row.mcells_per_s, 0),
                      fmt_fixed(r.row.gb_per_s, 1), fmt_fixed(100.0 * r.row.gb_per_s / copy_gbs, 1) + "%",
                      fmt_fixed(r.cost.computed_per_useful(), 3), fmt_fixed(r.cost.bytes_per_update(), 2),
                      "x" + fmt_fixed(one_ms / r.row.ms_per_step, 2)});
  if (best_run)
    summary = "best temporal (" + best_run->row.variant +
              ") / best one-step kernel, cell updates per second: x" + fmt_fixed(one_ms / best, 2) + " (" +
              fmt_fixed(best_run->row.mcells_per_s, 0) + " vs " +
              fmt_fixed(p.cells() / (one_ms * 1e-3) / 1e6, 0) + " Mcell/s)";
  return t;
}

int run(HeatBenchArgs& a, BenchContext& ctx) {
  if (auto bad = check_multigpu_args(a.multi)) return print_error(*bad, 2);
  if (multigpu_requested(a.multi)) {
    // Sizes beyond one GPU's lab limit are allowed here (the limit is memory), so --size is read as text.
    const std::string steps = a.flags->text("steps");
    int n = 100;
    const auto whole = [](const std::string& t, int* v) {
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
      return ec == std::errc() && end == t.data() + t.size();
    };
    if (!steps.empty() && (!whole(steps, &n) || n < 1 || n > 100000))
      return print_error("--steps '" + printable(steps) + "': expected a whole number of steps, 1..100000", 2);
    return run_heat_multigpu(a.multi, heat::Params{}, a.flags->text("size"), n);
  }
  if (auto err = a.flags->read()) return print_error(*err, 2);
  const nlohmann::json& size = a.flags->value("size");
  const nlohmann::json& block = a.flags->value("block");
  a.steps = a.flags->value("steps").get<int>();
  a.cpu_steps = a.flags->value("cpu_steps").get<int>();
  heat::Params p;
  p.nx = size[0].get<int64_t>();
  p.ny = size[1].get<int64_t>();
  if (auto err = heat::validate(p)) return print_error("--size: " + *err, 2);
  const std::optional<Dim2> b = Dim2{block[0].get<int64_t>(), block[1].get<int64_t>()};
  const DeviceInfo dev = query_device();
  if (auto err = validate_block(*b, dev.available ? dev.limits : DeviceLimits{}))
    return print_error("--block: " + *err, 2);
  if (a.device == BenchDevice::Gpu && !dev.available)
    return print_error("--device gpu: no CUDA device: " + dev.reason, 1);

  std::printf(
      "heat stencil, %lldx%lld cells, float32, fixed boundary; effective bandwidth counts 8 "
      "bytes/cell/step\n",
      static_cast<long long>(p.nx), static_cast<long long>(p.ny));
  Table t{{"variant", "device", "ms/step", "p10", "p90", "Mcell/s", "GB/s", "% of copy", "vs fastest GPU"},
          {}};
  double gpu_ms = 0, copy_gbs = 0;
  std::optional<Table> temporal;
  std::string temporal_summary;
  if (a.device != BenchDevice::Cpu) {
    if (!dev.available) {
      std::printf("GPU rows skipped: no CUDA device (%s)\n", dev.reason.c_str());
    } else {
      std::vector<int> choices(std::begin(heat::k_cells_per_thread_choices),
                               std::end(heat::k_cells_per_thread_choices));
      if (a.cells_per_thread) choices = {a.cells_per_thread};
      std::vector<heat::GpuBench> runs;
      for (int c : choices)
        runs.push_back(heat::bench_gpu(p, *b, a.steps, 7, c));
      // Speedups are against the fastest GPU variant; each row's copy figure comes from its own run.
      gpu_ms = 1e300;
      for (const auto& g : runs)
        gpu_ms = std::min(gpu_ms, g.stencil.ms_per_step);
      for (const auto& g : runs) {
        copy_gbs = g.copy_gb_per_s;
        t.rows.push_back({g.stencil.variant, g.stencil.device, fmt_fixed(g.stencil.ms_per_step, 4),
                          fmt_fixed(g.stencil.p10, 4), fmt_fixed(g.stencil.p90, 4),
                          fmt_fixed(g.stencil.mcells_per_s, 0), fmt_fixed(g.stencil.gb_per_s, 1),
                          fmt_fixed(100.0 * g.stencil.gb_per_s / g.copy_gb_per_s, 1) + "%",
                          g.stencil.ms_per_step == gpu_ms
                              ? "fastest"
                              : "x" + fmt_fixed(g.stencil.ms_per_step / gpu_ms, 2) + " slower"});
      }
      if (ctx.counters) {
        // After the timing: one more step per coarsening, replayed by CUPTI per counter pass.
        const std::vector<float> field = heat::make_initial(p, heat::InitialPattern::HotSpots);
        for (int c : choices) {
          heat::GpuSolver solver(p);
          solver.set_launch(*b, std::nullopt, c);
          solver.upload(field);
          solver.sync();
          t.counters.push_back(bench_counters(ctx, [&] { solver.step(1); }));
          solver.sync();
        }
      }
      t.rows.push_back({"copy kernel (float4, same bytes)", runs.back().stencil.device,
                        fmt_fixed(runs.back().copy_ms, 4), "", "", "", fmt_fixed(copy_gbs, 1), "100%", ""});
      if (a.fused_steps != 0) temporal = run_temporal(a, p, gpu_ms, copy_gbs, temporal_summary);
    }
  }
  if (a.device != BenchDevice::Gpu) {
    for (heat::CpuMode m : {heat::CpuMode::OneThread, heat::CpuMode::AllThreads}) {
      const heat::BenchRow r = heat::bench_cpu(p, m, a.cpu_steps);
      t.rows.push_back({r.variant, "CPU", fmt_fixed(r.ms_per_step, 3), fmt_fixed(r.p10, 3),
                        fmt_fixed(r.p90, 3), fmt_fixed(r.mcells_per_s, 0), fmt_fixed(r.gb_per_s, 1),
                        copy_gbs > 0 ? fmt_fixed(100.0 * r.gb_per_s / copy_gbs, 1) + "%" : "",
                        gpu_ms > 0 ? "x" + fmt_fixed(r.ms_per_step / gpu_ms, 1) + " slower" : ""});
    }
  }
  t.print(std::cout);
  if (temporal) {
    std::printf(
        "\ntemporal blocking: several steps per pass over memory (tiles with a halo of one cell per fused "
        "step); Mcell/s counts useful cell updates, GB/s is the one-step equivalent (8 bytes/update), so %% "
        "of "
        "copy above 100%% is the roofline moving: DRAM sees 'DRAM B/upd' bytes per update instead of 8\n");
    temporal->print(std::cout);
    std::printf("%s\n", temporal_summary.c_str());
  }
  std::printf(
      "GPU: %d timed steps x 7 repetitions after warm-up (CUDA events); CPU: %d steps after one warm-up "
      "step\n",
      a.steps, a.cpu_steps);
  return 0;
}
}  // namespace

void register_heat_bench(CLI::App& bench, BenchContext& ctx) {
  auto args = std::make_shared<HeatBenchArgs>();
  CLI::App* sub = bench.add_subcommand(
      "heat",
      "Heat stencil: GPU kernels (one step, temporal blocking), copy-kernel ceiling, CPU 1 thread, CPU all "
      "threads");
  args->flags = std::make_unique<ParamFlags>(*sub, ui::heat_schema(),
                                             std::vector<std::string>{"size", "block", "steps", "cpu_steps"},
                                             "", ParamFlags::Defaults::Bench);
  sub->add_option("--cells-per-thread", args->cells_per_thread,
                  "Only this coarsening (1, 2, 4, 8); default: each")
      ->check(CLI::IsMember(std::vector<int>(std::begin(heat::k_cells_per_thread_choices),
                                             std::end(heat::k_cells_per_thread_choices))));
  sub->add_option(
         "--fused-steps", args->fused_steps,
         "Temporal blocking: only this many steps per pass (0: no temporal rows); default: 2, 4, 6, 8")
      ->check(in_range(0, heat::k_max_fused_steps, "steps per pass"));
  sub->add_flag("--tune", args->tune, "Temporal blocking: time every tile shape with 2 to 8 steps per pass");
  add_device_option(*sub, args->device);
  add_multigpu_options(*sub, args->multi, true);
  sub->callback([args, &ctx] { run_guarded(ctx, [&] { return run(*args, ctx); }); });
}

}  // namespace bs::cli
