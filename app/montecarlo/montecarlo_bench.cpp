// bench_montecarlo.cpp: `blockscope bench montecarlo`: prices one option with every variant (GPU grid-stride,
// GPU one path per thread, GPU with the histogram, CPU one thread, CPU all threads) and prints price, 95% CI,
// the Black-Scholes value, the error in standard errors, time and G path-steps/s per variant.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/bench.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "core/launch.h"
#include "gpu/montecarlo/montecarlo.h"

namespace bs::cli {

namespace {

namespace mc = bs::montecarlo;

struct McOptions {
  mc::Params p;
  std::string option = "call";
  std::string rng = "philox";
  int block = 256;
  int waves = 2;
  int bins = 256;
  int reps = 10;
  BenchDevice device = BenchDevice::All;
};

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

int run_bench(const McOptions& o) {
  mc::Params p = o.p;
  const auto option = mc::parse_option(o.option);
  if (!option) {
    return print_error(
        "--option: '" + printable(o.option) + "' is not one of " + mc::k_option_names.list(", "), 2);
  }
  p.option = *option;
  const auto gen = mc::parse_generator(o.rng);
  if (!gen) {
    return print_error("--rng: '" + printable(o.rng) + "' is not one of " + mc::k_generator_names.list(", "),
                       2);
  }
  p.generator = *gen;
  if (auto err = mc::check(p)) {
    return print_error("--" + err->param + ": " + err->message, 2);
  }
  const DeviceInfo info = query_device();
  if (auto err = validate_block(Dim2{o.block, 1}, info.available ? info.limits : DeviceLimits{})) {
    return print_error("--block: " + *err, 2);
  }
  if (o.waves < 1 || o.waves > 64) {
    return print_error("--waves: " + std::to_string(o.waves) + " is outside 1..64", 2);
  }
  if (o.bins < 0 || o.bins > mc::k_max_histogram_bins) {
    return print_error(
        "--bins: " + std::to_string(o.bins) + " is outside 0.." + std::to_string(mc::k_max_histogram_bins),
        2);
  }
  if (o.reps < 1 || o.reps > 1000) {
    return print_error("--reps: " + std::to_string(o.reps) + " is outside 1..1000", 2);
  }
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
  sub->add_option("--paths", o->p.paths, "simulated paths, 1 to 16777216")->capture_default_str();
  sub->add_option("--steps", o->p.steps, "time steps per path, 1 to 1024")->capture_default_str();
  sub->add_option("--option", o->option, "call | put | asian (arithmetic-average Asian call)")
      ->capture_default_str();
  sub->add_option("--s0", o->p.s0, "initial price S0 > 0")->capture_default_str();
  sub->add_option("--strike", o->p.strike, "strike K > 0")->capture_default_str();
  sub->add_option("--rate", o->p.rate, "risk-free rate r (also the drift)")->capture_default_str();
  sub->add_option("--sigma", o->p.sigma, "volatility sigma >= 0")->capture_default_str();
  sub->add_option("--maturity", o->p.maturity, "maturity T > 0 in years")->capture_default_str();
  sub->add_option("--seed", o->p.seed, "random seed (same seed, same price)")->capture_default_str();
  sub->add_flag("--antithetic", o->p.antithetic, "antithetic variates: pairs of paths with Z and -Z");
  sub->add_option("--rng", o->rng, "GPU generator: philox | xorwow")->capture_default_str();
  sub->add_option("--block", o->block, "GPU threads per block")->capture_default_str();
  sub->add_option("--waves", o->waves, "grid-stride grid: multiples of the resident grid")
      ->capture_default_str();
  sub->add_option("--bins", o->bins, "histogram bins of the GPU histogram row (0: no such row)")
      ->capture_default_str();
  sub->add_option("--reps", o->reps, "timed GPU repetitions")->capture_default_str();
  add_device_option(*sub, o->device);
  sub->callback([o, &ctx] { run_guarded(ctx, [&] { return run_bench(*o); }); });
}

}  // namespace bs::cli
