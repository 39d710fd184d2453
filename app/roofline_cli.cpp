// roofline_cli.cpp: `blockscope roofline [--out DIR] [--width W --height H] [--remeasure] [--quick]`:
// measures (or reads from the cache) the ceilings, runs each lab's variants at their bench sizes on the GPU
// and its CPU baselines, and writes the roofline figure files (PNG, SVG, CSV, JSON, record). Without a GPU it
// does the CPU part and says so. --quick: small sizes (tests, a first look).
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/bench.h"
#include "app/record.h"
#include "app/roofline_cli.h"
#include "app/roofline_figure.h"
#include "app/roofline_report.h"
#include "core/error.h"
#include "gpu/common/device_info.h"
#include "gpu/heat/heat_work.h"
#include "gpu/matmul/matmul_work.h"
#include "gpu/memory/memory_work.h"
#include "gpu/montecarlo/montecarlo_work.h"
#include "gpu/reduce/reduce_work.h"
#include "gpu/vector/vector_work.h"

namespace bs::cli {

namespace {

struct RooflineOptions {
  std::string out;
  int width = 1600, height = 900;
  bool remeasure = false;
  bool quick = false;
  std::string cache_dir;
};

void say(const std::string& s) {
  std::printf("%s\n", s.c_str());
  std::fflush(stdout);
}

// Each lab at its bench size: GPU variants (when `gpu`) and the CPU baselines, into env.runs.
void run_heat(const LabEnv& env, bool gpu, bool quick) {
  heat::Params p;
  p.nx = p.ny = quick ? 512 : 4096;
  const std::string size = std::to_string(p.nx) + "x" + std::to_string(p.ny);
  if (gpu) {
    const heat::GpuBench b = heat::bench_gpu(p, heat::k_default_block, quick ? 10 : 100, 5);
    report_run(env, "heat", "GPU stencil", true, b.stencil.ms_per_step, heat::step_work(p), size);
  }
  const heat::BenchRow c = heat::bench_cpu(p, heat::CpuMode::AllThreads, quick ? 2 : 3);
  report_run(env, "heat", c.variant, false, c.ms_per_step, heat::step_work(p), size);
}

void run_matmul(const LabEnv& env, bool gpu, bool quick) {
  namespace mm = matmul;
  const int64_t d = quick ? 256 : mm::k_bench_dim;
  const mm::Problem p{d, d, d};
  const auto a = mm::make_matrix(d, d, 1), b = mm::make_matrix(d, d, 2);
  mm::Reference ref;
  const std::string size = mm::to_string(p);
  if (gpu) {
    std::vector<mm::Variant> vs;
    for (const auto& v : mm::gpu_variants())
      vs.push_back(v.id);
    const mm::GpuBenchResult r = mm::bench_gpu(p, a, b, ref, vs, 5, quick ? 0.2 : 0.5);
    for (const auto& row : r.rows)
      report_run(env, "matmul", row.variant, true, row.ms.median, mm::run_work(p), size);
  }
  for (mm::CpuVariant v : {mm::CpuVariant::OpenBlas, mm::CpuVariant::Blocked}) {
    // The blocked baseline at a quarter of the size (seconds at 4096 on a few cores).
    const int64_t cd = v == mm::CpuVariant::Blocked ? std::max<int64_t>(d / 4, 64) : d;
    const mm::Problem cp{cd, cd, cd};
    const auto ca = cd == d ? a : mm::make_matrix(cd, cd, 1), cb = cd == d ? b : mm::make_matrix(cd, cd, 2);
    const mm::BenchRow row = mm::bench_cpu(v, cp, ca, cb, mm::Reference{}, 2, 1.0);
    report_run(env, "matmul", row.variant, false, row.ms.median, mm::run_work(cp), mm::to_string(cp));
  }
}

void run_vector(const LabEnv& env, bool gpu, bool quick) {
  namespace vec = vector;
  const int64_t n = quick ? int64_t{1} << 20 : *vec::parse_count(vec::k_bench_n, "n").value;
  const std::string size = vec::format_count(n);
  if (gpu) {
    vec::GpuRunner runner;
    for (vec::Op op : {vec::Op::Add, vec::Op::Formula})
      for (vec::LoadWidth w : {vec::LoadWidth::Float, vec::LoadWidth::Float4}) {
        vec::Params p;
        p.n = n;
        p.op = op;
        p.width = w;
        p.indexing = vec::Indexing::GridStride;
        const vec::RunResult r = runner.run(p, 5, false);
        report_run(env, "vector", r.variant + " (kernel)", true, r.kernel_ms.median, vec::kernel_work(op, n),
                   size);
      }
  }
  std::vector<float> a(n), b(n), c(n);
  vec::fill_inputs(a.data(), b.data(), n);
  for (vec::Op op : {vec::Op::Add, vec::Op::Formula}) {
    const Summary s = vec::time_cpu(op, a.data(), b.data(), c.data(), n, vec::CpuMode::AllThreads, 3);
    report_run(env, "vector",
               std::string(vec::to_string(op)) + ", " + vec::cpu_mode_label(vec::CpuMode::AllThreads), false,
               s.median, vec::kernel_work(op, n), size);
  }
}

void run_montecarlo(const LabEnv& env, bool gpu, bool quick) {
  namespace mc = montecarlo;
  mc::Params p;
  if (quick) p.paths = 20000;
  const std::string size = std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps";
  if (gpu) {
    const mc::BenchRow r = mc::bench_gpu(p, mc::Launch{}, {}, 5);
    report_run(env, "montecarlo", r.variant, true, r.ms, mc::run_work(p), size);
  }
  mc::Params cp = p;
  cp.paths = std::min<int64_t>(p.paths, quick ? 20000 : 200000);  // the CPU at a fifth of the paths
  const mc::BenchRow r = mc::bench_cpu(cp, mc::CpuMode::AllThreads);
  report_run(env, "montecarlo", r.variant, false, r.ms, mc::run_work(cp),
             std::to_string(cp.paths) + " paths x " + std::to_string(cp.steps) + " steps");
}

void run_memory(const LabEnv& env, bool gpu, bool quick) {
  namespace mem = memory;
  mem::Params p;
  p.rows = p.cols = quick ? 512 : mem::k_bench_dim;
  p.n = quick ? int64_t{1} << 20 : *mem::parse_count(mem::k_bench_n, "n").value;
  for (mem::Kernel k : {mem::Kernel::Transpose, mem::Kernel::Stride, mem::Kernel::Banks, mem::Kernel::Aos}) {
    p.kernel = k;
    const std::string size = k == mem::Kernel::Transpose
                                 ? std::to_string(p.rows) + "x" + std::to_string(p.cols)
                                 : mem::format_count(p.n);
    if (gpu) {
      mem::GpuRunner runner;
      for (const mem::RunResult& r : runner.run_ladder(p, std::nullopt, 5, false))
        report_run(env, "memory", r.label, true, r.ms.median, mem::run_work(p, r.variant), size);
    }
    for (mem::Variant v : mem::cpu_variants_of(k)) {
      const Summary s = mem::time_cpu(p, v, mem::CpuMode::AllThreads, 2);
      report_run(env, "memory", mem::describe(v, p) + ", " + mem::cpu_mode_label(mem::CpuMode::AllThreads),
                 false, s.median, mem::run_work(p, v), size);
    }
  }
}

void run_reduce(const LabEnv& env, bool gpu, bool quick) {
  namespace rd = reduce;
  for (rd::Op op : {rd::Op::Reduce, rd::Op::Scan}) {
    rd::BenchOptions o;
    o.params.op = op;
    o.params.n = quick ? int64_t{1} << 20 : int64_t{64} << 20;
    o.device = gpu ? rd::Device::All : rd::Device::Cpu;
    o.repetitions = 5;
    o.check = false;
    const rd::BenchResult r = rd::run_bench(o);
    const std::string size =
        std::string(rd::k_op_names.c_name(op)) + " " + std::to_string(o.params.n >> 20) + "M";
    for (const rd::Row& row : r.rows)
      report_run(env, "reduce", row.variant, row.gpu, row.ms.median, rd::run_work(op, o.params.n), size);
  }
}

int run_roofline(const RooflineOptions& o) {
  using namespace roofline;
  const DeviceInfo dev = query_device(0);
  Chart chart;
  chart.gpu_cache_bytes = dev.available ? static_cast<double>(dev.l2_bytes) : 0.0;
  chart.cpu_cache_bytes = cpu_last_level_cache_bytes();
  work::RunLog log(4096);
  LabEnv env;
  env.device = dev;
  env.runs = &log;
  const std::string dir = o.out.empty() ? "roofline-" + record::compact_timestamp() : o.out;
  record::prepare_output_dir(dir);  // before minutes of runs: a folder that cannot be written fails now
  const std::string cache = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  std::string msg;
  if (dev.available) {
    chart.gpu = get_ceilings(true, cache, &msg, o.remeasure);
    chart.datasheet = datasheet_for(dev.name);
    say("GPU ceilings (" + dev.name + "): " + msg);
    const Ceilings& g = *chart.gpu;
    say("  DRAM copy " + fmt_fixed(g.dram_gbs, 0) + " GB/s, L2 " + fmt_fixed(g.l2_gbs, 0) + " GB/s, shared " +
        fmt_fixed(g.smem_gbs, 0) + " GB/s, FP32 " + fmt_fixed(g.fp32_gflops, 0) + " GFLOP/s, launch " +
        fmt_fixed(g.launch_us, 2) + " us");
    // The check against the known-good kernel the benches already time: the vector lab's float4 copy.
    {
      vector::GpuRunner vr;
      const vector::CopyKernel ck = vr.copy_kernel(int64_t{64} << 20);
      say("  check: the vector bench's float4 copy kernel (64M floats) reaches " + fmt_fixed(ck.gbs, 0) +
          " GB/s; the DRAM ceiling is " + fmt_fixed(100.0 * g.dram_gbs / ck.gbs, 1) + "% of it");
    }
    if (chart.datasheet)
      say("  " + chart.datasheet->name + ": DRAM " + fmt_fixed(chart.datasheet->dram_gbs, 0) +
          " GB/s, FP32 " + fmt_fixed(chart.datasheet->fp32_gflops, 0) + " GFLOP/s");
  } else {
    say("no GPU (" + dev.reason + "): the CPU part only");
  }
  chart.cpu = get_ceilings(false, cache, &msg, o.remeasure);
  say("CPU ceilings (" + chart.cpu->device + "): " + msg);
  say("  memory copy " + fmt_fixed(chart.cpu->dram_gbs, 1) + " GB/s, FP32 " +
      fmt_fixed(chart.cpu->fp32_gflops, 1) + " GFLOP/s");
  const std::pair<const char*, void (*)(const LabEnv&, bool, bool)> labs[] = {
      {"heat", run_heat},     {"matmul", run_matmul}, {"vector", run_vector}, {"montecarlo", run_montecarlo},
      {"memory", run_memory}, {"reduce", run_reduce}};
  for (const auto& [name, fn] : labs) {
    say(std::string("running ") + name + (dev.available ? " (GPU and CPU)" : " (CPU)"));
    fn(env, dev.available, o.quick);
  }
  chart.runs = log.snapshot();
  Table t;
  t.header = {"run", "device", "ms", "GFLOP/s", "GB/s (model)", "FLOP/B", "of nearer ceiling"};
  for (const auto& r : chart.runs) {
    const Roof roof = roof_for(chart, r);
    const Placement p = place(roof, r);
    t.rows.push_back(
        {r.label, work::to_string(r.where), fmt_fixed(r.seconds * 1e3, 3), fmt_fixed(p.gflops, 1),
         fmt_fixed(p.gbs, 1), p.no_flops ? "-" : fmt_fixed(p.intensity, 3),
         roof.valid() ? fmt_fixed(p.pct, 0) + "% (" + (p.no_flops ? "bandwidth" : to_string(p.bound)) + ")"
                      : "-"});
  }
  t.print(std::cout);
  std::cout.flush();
  std::vector<std::string> errors;
  const auto files = write_files(chart, dir, o.width, o.height, errors);
  std::string list;
  for (const auto& f : files)
    list += (list.empty() ? "" : ", ") + f;
  say("wrote " + dir + "/: " + list);
  for (const auto& e : errors)
    print_error(e, 0);
  return errors.empty() ? 0 : 1;
}

}  // namespace

void register_roofline_command(CLI::App& app, BenchContext& ctx) {
  auto opt = std::make_shared<RooflineOptions>();
  CLI::App* sub = app.add_subcommand(
      "roofline",
      "Measure the ceilings, run every lab's variants and write the roofline (PNG, SVG, CSV, JSON)");
  sub->add_option("--out", opt->out, "Output folder (default roofline-<UTC time>)");
  sub->add_option("--width", opt->width, "PNG width in pixels (SVG: user units)")
      ->check(in_range(64, 16384, "pixels"));
  sub->add_option("--height", opt->height, "PNG height in pixels")->check(in_range(64, 16384, "pixels"));
  sub->add_flag("--remeasure", opt->remeasure, "Measure the ceilings even when cached");
  sub->add_flag("--quick", opt->quick, "Small sizes (a first look; tests)");
  sub->add_option("--cache-dir", opt->cache_dir,
                  "Where the ceilings are cached (default ~/.cache/blockscope)")
      ->group("");
  sub->callback([opt, &ctx] { run_guarded(ctx, [&] { return run_roofline(*opt); }); });
}

}  // namespace bs::cli
