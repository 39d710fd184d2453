// bench_montecarlo.cpp: `blockscope bench montecarlo`: prices one option with every variant (GPU grid-stride,
// GPU one path per thread, GPU with the histogram, CPU one thread, CPU all threads) and prints price, 95% CI,
// the Black-Scholes value, the error in standard errors, time and G path-steps/s per variant.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/bench.h"
#include "app/multigpu/multigpu_bench.h"
#include "app/param_flags.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "core/launch.h"
#include "gpu/montecarlo/montecarlo.h"
#include "ui/montecarlo/montecarlo_schema.h"

namespace bs::cli {

namespace {

namespace mc = bs::montecarlo;

// The lab's parameters are the Monte Carlo schema's (ui/montecarlo/montecarlo_schema.h): help, defaults and
// checks. Three keep their own flags: --rng is the schema's generator under the bench's older name, --seed
// reads all 64 bits exactly (a schema value passes through a double), --antithetic takes no value.
const std::vector<std::string> k_schema_flags = {"paths", "steps",    "option", "s0",    "strike", "rate",
                                                 "sigma", "maturity", "block",  "waves", "bins"};

struct McOptions {
  std::unique_ptr<ParamFlags> flags;
  mc::Params p;
  std::string rng;
  int block = 0;
  int waves = 0;
  int bins = 0;
  int reps = 10;
  BenchDevice device = BenchDevice::All;
  MultiGpuArgs multi;  // --gpus ...: app/multigpu
};

// The flags' values into `o` (after CLI11 parsed); the first bad one's message, or nullopt.
std::optional<std::string> read_flags(McOptions& o) {
  if (auto err = o.flags->read()) return err;
  const params::Schema& schema = ui::montecarlo_schema();
  const ParamFlags& f = *o.flags;
  o.p.paths = f.value("paths").get<int64_t>();
  o.p.steps = f.value("steps").get<int>();
  o.p.option = static_cast<mc::OptionType>(schema.at("option").index_of(f.value("option")));
  o.p.s0 = f.value("s0").get<double>();
  o.p.strike = f.value("strike").get<double>();
  o.p.rate = f.value("rate").get<double>();
  o.p.sigma = f.value("sigma").get<double>();
  o.p.maturity = f.value("maturity").get<double>();
  o.block = f.value("block").get<int>();
  o.waves = f.value("waves").get<int>();
  o.bins = f.value("bins").get<int>();
  const params::Param& gen = schema.at("generator");
  const params::TextValue g = params::from_text(gen, o.rng, "--rng");
  if (!g.value) return g.error;
  o.p.generator = static_cast<mc::Generator>(gen.index_of(*g.value));
  return std::nullopt;
}

// `fastest_gpu_ms`: the fastest GPU row's time, for the "vs GPU" column (0 when there are no GPU rows).
std::vector<std::string> row_cells(const mc::BenchRow& r, double fastest_gpu_ms) {
  const mc::Estimate& e = r.estimate;
  std::string ref = "n/a", err = "n/a";
  if (r.reference) {
    ref = fmt_fixed(*r.reference, 4);
    err = fmt_fixed(mc::error_in_std_errors(e, *r.reference), 2);
  }
  return {
      r.variant,
      fmt_fixed(e.price, 4),
      "[" + fmt_fixed(e.ci_low, 4) + ", " + fmt_fixed(e.ci_high, 4) + "]",
      fmt_fixed(e.std_error, 5),
      ref,
      err,
      fmt_fixed(r.ms, 3),
      r.repetitions > 1 ? fmt_fixed(r.p10, 3) + "-" + fmt_fixed(r.p90, 3) : "1 run",
      fmt_fixed(r.gpath_steps_per_s, r.gpath_steps_per_s >= 10 ? 1 : (r.gpath_steps_per_s >= 1 ? 2 : 4)),
      fastest_gpu_ms > 0 ? "x" + fmt_fixed(r.ms / fastest_gpu_ms, r.ms / fastest_gpu_ms < 10 ? 2 : 0) : "",
      r.note};
}

int run_bench(McOptions& o) {
  if (auto err = read_flags(o)) return print_error(*err, 2);
  if (auto bad = check_multigpu_args(o.multi)) return print_error(*bad, 2);
  const mc::Params p = o.p;
  if (auto err = mc::check(p)) {
    return print_error("--" + err->param + ": " + err->message, 2);
  }
  const DeviceInfo info = query_device();
  if (auto err = validate_block(Dim2{o.block, 1}, info.available ? info.limits : DeviceLimits{})) {
    return print_error("--block: " + *err, 2);
  }
  if (o.reps < 1 || o.reps > 1000) {
    return print_error("--reps: " + std::to_string(o.reps) + " is outside 1..1000", 2);
  }
  if (multigpu_requested(o.multi))
    return run_montecarlo_multigpu(o.multi, p, {o.block, mc::Layout::GridStride, o.waves});
  const bool want_gpu = o.device != BenchDevice::Cpu;
  const bool want_cpu = o.device != BenchDevice::Gpu;
  if (want_gpu && !info.available && o.device == BenchDevice::Gpu) {
    return print_error("--device gpu: no CUDA device: " + info.reason, 1);
  }

  std::cout << "montecarlo: " << mc::option_long_label(p.option) << ", S0=" << p.s0 << " K=" << p.strike
            << " r=" << p.rate << " sigma=" << p.sigma << " T=" << p.maturity << ", " << p.paths
            << " paths x " << p.steps << " steps, seed " << p.seed;
  if (p.antithetic)
    std::cout << ", antithetic variates (" << mc::sample_count(p)
              << " pairs = " << mc::paths_for_samples(mc::sample_count(p), true) << " paths)";
  std::cout << "\n";
  if (auto ref = mc::reference_price(p))
    std::cout << "Black-Scholes " << mc::option_label(p.option) << ": " << fmt_fixed(*ref, 4) << "\n";
  else
    std::cout << "no closed form for the arithmetic Asian call: compare the variants with each other\n";

  std::vector<mc::BenchRow> rows;
  if (want_gpu && info.available) {
    std::cout << "GPU: " << info.name << " (cc " << info.compute_capability() << ", " << info.sm_count
              << " SMs), cuRAND " << mc::generator_label(p.generator) << ", " << o.reps
              << " timed runs after 2 warm-ups (CUDA events)\n";
    const mc::Launch grid_stride{o.block, mc::Layout::GridStride, o.waves};
    const mc::Launch per_path{o.block, mc::Layout::OnePathPerThread, o.waves};
    rows.push_back(mc::bench_gpu(p, grid_stride, {}, o.reps));
    rows.push_back(mc::bench_gpu(p, per_path, {}, o.reps));
    if (o.bins > 0) {
      mc::RunOptions with_hist;
      with_hist.histogram_bins = o.bins;
      rows.push_back(mc::bench_gpu(p, grid_stride, with_hist, o.reps));
      rows.back().variant += " (" + std::to_string(o.bins) + " bins)";
    }
  } else if (want_gpu) {
    std::cout << "GPU rows skipped: no CUDA device: " << info.reason << "\n";
  }
  double fastest_gpu_ms = 0;
  for (const auto& r : rows)
    if (fastest_gpu_ms == 0 || r.ms < fastest_gpu_ms) fastest_gpu_ms = r.ms;
  if (want_cpu) {
    rows.push_back(mc::bench_cpu(p, mc::CpuMode::OneThread));
    rows.push_back(mc::bench_cpu(p, mc::CpuMode::AllThreads));
  }
  Table t;
  t.header = {"variant",
              "price",
              "95% CI",
              "SE",
              "Black-Scholes",
              "error (SE)",
              "ms",
              "p10-p90 ms",
              "G path-steps/s",
              "time vs fastest GPU",
              "note"};
  for (const auto& r : rows)
    t.rows.push_back(row_cells(r, fastest_gpu_ms));
  t.print(std::cout);
  std::cout
      << "error (SE) = (price - Black-Scholes) / SE: within +-2 for about 95% of seeds, +-3 for 99.7%.\n"
         "path-steps = simulated paths x steps (antithetic pairs count as two paths).\n";
  return 0;
}

}  // namespace

void register_montecarlo_bench(CLI::App& bench, BenchContext& ctx) {
  auto o = std::make_shared<McOptions>();
  CLI::App* sub =
      bench.add_subcommand("montecarlo", "Monte Carlo option pricing: GBM paths on the GPU (cuRAND) vs CPU");
  o->flags = std::make_unique<ParamFlags>(*sub, ui::montecarlo_schema(), k_schema_flags, "",
                                          ParamFlags::Defaults::Bench);
  o->p.seed = static_cast<uint64_t>(ui::montecarlo_schema().at("seed").default_int());
  sub->add_option("--seed", o->p.seed, "random seed (same seed, same price)")->capture_default_str();
  sub->add_flag("--antithetic", o->p.antithetic, "antithetic variates: pairs of paths with Z and -Z");
  o->rng = ui::montecarlo_schema().at("generator").default_value.get<std::string>();
  sub->add_option("--rng", o->rng, "GPU generator: philox | xorwow")->capture_default_str();
  sub->add_option("--reps", o->reps, "timed GPU repetitions")->capture_default_str();
  add_device_option(*sub, o->device);
  add_multigpu_options(*sub, o->multi, false);
  sub->callback([o, &ctx] { run_guarded(ctx, [&] { return run_bench(*o); }); });
}

}  // namespace bs::cli
