// bench_vector.cpp: `blockscope bench vector --n N [--op add|formula] [--pinned] [--streams K] [--chunks C]
// [--device gpu|cpu|all] [--sweep] [--sweep-max N]`: where the time of c = a + b goes (copies vs kernel), the
// kernel variants against a copy kernel, pinned vs pageable copies, launch overhead, stream overlap, and the
// size at which the GPU starts to win once copies are counted.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>

#include "app/bench.h"
#include "app/counters_bench.h"
#include "app/param_flags.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "gpu/vector/vector.h"
#include "ui/vector/vector_schema.h"

namespace bs::cli {

namespace {

namespace vec = bs::vector;

// --n, --op, --streams, --block and --sweep-max are the vector schema's (ui/vector/vector_schema.h): help,
// defaults and checks; the bench measures 64M elements unless told (schema n's bench default). --pinned stays
// a flag without a value (pageable unless given: the bench compares both when asked), --chunks, --reps and
// --sweep are the bench's own.
struct VectorBenchArgs {
  std::unique_ptr<ParamFlags> flags;
  std::string n;
  std::string op;
  bool pinned = false;
  int streams = 0;
  int chunks = 0;
  int reps = 5;
  int block = 0;
  bool sweep = false;
  std::string sweep_max;
  BenchDevice device = BenchDevice::All;
};

// Milliseconds with enough digits for both microsecond kernels and second-long CPU runs.
std::string fmt_ms(double ms) {
  const int decimals = ms > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(ms))) + 2, 3, 7) : 3;
  return fmt_fixed(ms, decimals);
}
std::string fmt_gbs(double gbs) {
  return gbs > 0 ? fmt_fixed(gbs, 1) : "-";
}

std::vector<std::string> gpu_cells(const vec::BenchRow& r, double copy_gbs) {
  return {r.variant,
          fmt_ms(r.h2d_ms),
          fmt_ms(r.kernel_ms),
          fmt_ms(r.d2h_ms),
          fmt_ms(r.total_ms),
          fmt_ms(r.total_p10) + "-" + fmt_ms(r.total_p90),
          fmt_gbs(r.kernel_gbs),
          copy_gbs > 0 ? fmt_fixed(100.0 * r.kernel_gbs / copy_gbs, 1) + "%" : "-",
          fmt_gbs(r.h2d_gbs),
          fmt_gbs(r.d2h_gbs),
          fmt_gbs(r.total_gbs),
          r.check,
          r.note};
}

void print_timeline(const vec::Timeline& t) {
  std::printf("  timeline of the median repetition (ms from the first event; #k = chunk k):\n");
  for (int s = 0; s < t.streams; ++s) {
    std::vector<vec::TimelineOp> ops;
    for (const auto& op : t.ops)
      if (op.stream == s) ops.push_back(op);
    std::sort(ops.begin(), ops.end(), [](const auto& x, const auto& y) { return x.start_ms < y.start_ms; });
    std::printf("  stream %2d:", s);
    for (const auto& op : ops)
      std::printf("  %s#%d %s-%s", vec::to_string(op.kind), op.chunk, fmt_ms(op.start_ms).c_str(),
                  fmt_ms(op.end_ms).c_str());
    std::printf("\n");
  }
}

int run_sweep_bench(const VectorBenchArgs& a, vec::Op op, int64_t sweep_max, const DeviceInfo& dev) {
  vec::SweepOptions o;
  o.op = op;
  o.max_n = sweep_max;
  o.min_n = std::min<int64_t>(1024, sweep_max);
  o.block = a.block;
  o.gpu = a.device != BenchDevice::Cpu && dev.available;
  o.cpu = a.device != BenchDevice::Gpu;
  if (a.device != BenchDevice::Cpu && !dev.available)
    std::printf("GPU columns skipped: no CUDA device (%s)\n", dev.reason.c_str());
  const vec::SweepResult r = vec::run_sweep(o);
  std::printf(
      "size sweep, %s (%s): GPU = %s %s, pinned host memory, one stream, CUDA events from the first copy to "
      "the last; CPU = host clock, data already in host memory\n",
      vec::to_string(op), vec::formula_text(op), vec::to_string(o.width), vec::short_name(o.indexing));
  Table t{{"n", "GPU kernel ms", "GPU incl. copies ms", "CPU 1 thread ms",
           std::string(r.cpu_all_label) + " ms", "fastest incl. copies"},
          {}};
  for (const auto& p : r.points) {
    std::string best = "-";
    if (r.gpu_ran && o.cpu) {
      const double m = std::min({p.gpu_total_ms, p.cpu1_ms, p.cpu_all_ms});
      best = m == p.gpu_total_ms ? "GPU" : (m == p.cpu1_ms ? "CPU 1 thread" : "CPU all threads");
    }
    t.rows.push_back({vec::format_count(p.n), r.gpu_ran ? fmt_ms(p.gpu_kernel_ms) : "-",
                      r.gpu_ran ? fmt_ms(p.gpu_total_ms) : "-", o.cpu ? fmt_ms(p.cpu1_ms) : "-",
                      o.cpu ? fmt_ms(p.cpu_all_ms) : "-", best});
  }
  t.print(std::cout);
  if (r.gpu_ran && o.cpu) {
    std::printf(
        "crossover (interpolated on log scale; the GPU wins from there on at every larger size swept):\n");
    std::printf("  GPU incl. copies vs CPU 1 thread:      %s\n", r.total_vs_cpu1.text().c_str());
    std::printf("  GPU incl. copies vs %s: %s\n", r.cpu_all_label.c_str(), r.total_vs_cpu_all.text().c_str());
    std::printf("  GPU kernel only  vs %s: %s\n", r.cpu_all_label.c_str(),
                r.kernel_vs_cpu_all.text().c_str());
  } else {
    std::printf("crossover: needs both GPU and CPU columns (--device all on a machine with a GPU)\n");
  }
  return 0;
}

// Everything the GPU part of the bench measured; printed after the table.
struct GpuSection {
  std::vector<vec::BenchRow> rows;
  vec::CopyKernel copy;
  vec::CopyRates rates;
  vec::NominalLink link;
  vec::LaunchOverhead launch;
  std::optional<vec::Timeline> chunked;  // with --streams K > 1 (or --chunks > 1)
  bool chunked_bitwise_equal = false;
  bool all_checks_passed = true;
  std::vector<std::optional<counters::Result>> counters;  // --counters: per row
};

// --counters: the kernels of `q` once more, untimed, on the inputs its timed run left on the device (CUPTI
// replays them once per counter pass; the copies are not repeated).
std::optional<counters::Result> row_counters(BenchContext& ctx, vec::GpuRunner& runner,
                                             const vec::Params& q) {
  if (!ctx.counters) return std::nullopt;
  return bench_counters(ctx, [&] { runner.launch_kernels(q); });
}

GpuSection run_gpu(const vec::Params& p, int reps, BenchContext& ctx) {
  GpuSection g;
  vec::GpuRunner runner;
  g.link = runner.link();
  g.copy = runner.copy_kernel(p.n);
  const bool chunked = p.streams > 1 || p.chunks > 1;
  std::vector<float> single;  // float4 grid-stride on one stream: what the chunked run must reproduce bitwise
  for (auto w : {vec::LoadWidth::Float, vec::LoadWidth::Float4})
    for (auto ix : {vec::Indexing::OnePerElement, vec::Indexing::GridStride}) {
      vec::Params q = p;
      q.streams = 1;
      q.chunks = 0;
      q.indexing = ix;
      q.width = w;
      const vec::RunResult r = runner.run(q, reps);
      g.rows.push_back(r.row);
      g.all_checks_passed = g.all_checks_passed && r.row.check_passed;
      if (chunked && ix == vec::Indexing::GridStride && w == vec::LoadWidth::Float4) {
        const auto out = runner.output();
        single.assign(out.begin(), out.begin() + p.n);
      }
      g.counters.push_back(row_counters(ctx, runner, q));
    }
  if (chunked) {
    vec::Params q = p;
    q.indexing = vec::Indexing::GridStride;
    q.width = vec::LoadWidth::Float4;
    const vec::RunResult r = runner.run(q, reps);
    g.rows.push_back(r.row);
    g.all_checks_passed = g.all_checks_passed && r.row.check_passed;
    g.chunked = r.timeline;
    const auto out = runner.output();
    g.chunked_bitwise_equal = single.size() == static_cast<size_t>(p.n) &&
                              std::memcmp(single.data(), out.data(), single.size() * sizeof(float)) == 0;
    g.all_checks_passed = g.all_checks_passed && g.chunked_bitwise_equal;
    g.counters.push_back(row_counters(ctx, runner, q));
  }
  g.rates = runner.copy_rates(int64_t{256} << 20);
  g.launch = runner.launch_overhead();
  return g;
}

void print_gpu_summary(const GpuSection& g, const vec::Params& p) {
  if (g.copy.gbs > 0) {
    double best = 0;
    for (const auto& r : g.rows)
      if (r.variant.find("float4") != std::string::npos && r.variant.find("streams") == std::string::npos)
        best = std::max(best, r.kernel_gbs);
    std::printf(
        "copy kernel: %.1f GB/s (float4 grid-stride copy of n floats, 2 arrays moved); the best float4 %s "
        "kernel reaches %.1f%% of it counting its 3 arrays (2 reads, 1 write)\n",
        g.copy.gbs, vec::to_string(p.op), 100.0 * best / g.copy.gbs);
  } else {
    std::printf("copy kernel: n < 4, nothing to measure\n");
  }
  std::printf("host<->device copies of %lld MiB (CUDA events, median of 5):\n",
              static_cast<long long>(g.rates.bytes >> 20));
  std::printf("  H2D: pinned %6.1f GB/s | pageable %6.1f GB/s\n", g.rates.pinned_h2d_gbs,
              g.rates.pageable_h2d_gbs);
  std::printf("  D2H: pinned %6.1f GB/s | pageable %6.1f GB/s\n", g.rates.pinned_d2h_gbs,
              g.rates.pageable_d2h_gbs);
  std::printf("  nominal link: %s\n", g.link.text().c_str());
  std::printf(
      "launch overhead (empty kernel; at tiny n this, not the arithmetic, is the kernel time): %.2f us "
      "between "
      "two events, %.2f us per launch back to back, %.2f us launch + synchronize (host clock)\n",
      g.launch.event_us, g.launch.back_to_back_us, g.launch.round_trip_us);
  if (g.chunked) {
    const vec::Timeline& tl = *g.chunked;
    std::printf("streams: %d streams x %d chunks (%s, float4 grid-stride, %s), median repetition:\n",
                tl.streams, tl.chunks, vec::to_string(p.op), p.pinned ? "pinned" : "pageable");
    std::printf(
        "  serial sum %.3f ms (H2D %.3f + kernel %.3f + D2H %.3f); overlapped total %.3f ms; saved %.3f ms "
        "(%.1f%%)\n",
        tl.serial_sum_ms, tl.h2d_sum_ms, tl.kernel_sum_ms, tl.d2h_sum_ms, tl.total_ms, tl.saved_ms(),
        tl.serial_sum_ms > 0 ? 100.0 * tl.saved_ms() / tl.serial_sum_ms : 0.0);
    std::printf(
        "  kernel time hidden behind copies: %.1f%% (of the %.3f ms during which some kernel ran, %.3f ms "
        "had a "
        "copy in either direction in flight on some stream)\n",
        100.0 * tl.kernel_hidden_fraction, tl.kernel_busy_ms, tl.kernel_hidden_ms);
    if (!p.pinned)
      std::printf(
          "  note: pageable host memory: the driver stages every copy through its own pinned buffer and the "
          "host waits for it, so copies barely overlap; add --pinned\n");
    std::printf("  chunked result equals the single-stream result bitwise: %s\n",
                g.chunked_bitwise_equal ? "yes" : "NO (MISMATCH)");
    print_timeline(tl);
  }
}

std::vector<std::string> cpu_cells(vec::CpuMode m, const Summary& s, int64_t n, double copy_gbs) {
  const double gbs = s.median > 0 ? 12.0 * static_cast<double>(n) / (s.median * 1e-3) / 1e9 : 0.0;
  return {vec::cpu_mode_label(m),
          "-",
          fmt_ms(s.median),
          "-",
          fmt_ms(s.median),
          fmt_ms(s.p10) + "-" + fmt_ms(s.p90),
          fmt_gbs(gbs),
          copy_gbs > 0 ? fmt_fixed(100.0 * gbs / copy_gbs, 1) + "%" : "-",
          "-",
          "-",
          fmt_gbs(gbs),
          "(reference)",
          "host clock, data in host memory"};
}

int run(VectorBenchArgs& a, BenchContext& ctx) {
  if (auto err = a.flags->read()) return print_error(*err, 2);
  const params::Schema& schema = ui::vector_schema();
  a.n = params::to_text(schema.at("n"), a.flags->value("n"));
  a.op = a.flags->value("op").get<std::string>();
  a.streams = a.flags->value("streams").get<int>();
  a.block = a.flags->value("block").get<int>();
  a.sweep_max = params::to_text(schema.at("sweep_max"), a.flags->value("sweep_max"));
  const vec::ParsedCount n = vec::parse_count(a.n, "--n");
  if (!n.value) return print_error(n.error, 2);
  const std::optional<vec::Op> op = vec::parse_op(a.op);
  if (!op)
    return print_error("--op: '" + printable(a.op) + "' is not an op (" + vec::k_op_names.list(" or ") + ")",
                       2);
  vec::Params p;
  p.n = *n.value;
  p.op = *op;
  p.pinned = a.pinned;
  p.streams = a.streams;
  p.chunks = a.chunks;
  p.block = a.block;
  if (auto err = vec::validate(p)) return print_error("bench vector: " + *err, 2);
  if (a.reps < 1 || a.reps > 1000)
    return print_error("--reps " + std::to_string(a.reps) + ": choose 1 to 1000 repetitions", 2);
  int64_t sweep_max = 0;
  if (a.sweep) {
    const vec::ParsedCount sm = vec::parse_count(a.sweep_max, "--sweep-max");
    if (!sm.value) return print_error(sm.error, 2);
    vec::Params q;
    q.n = *sm.value;
    if (auto err = vec::validate(q)) return print_error("--sweep-max: " + *err, 2);
    sweep_max = *sm.value;
  }
  const DeviceInfo dev = a.device == BenchDevice::Cpu ? DeviceInfo{} : query_device();
  if (a.device == BenchDevice::Gpu && !dev.available)
    return print_error("--device gpu: no CUDA device: " + dev.reason, 1);
  if (a.sweep) return run_sweep_bench(a, p.op, sweep_max, dev);
  if (auto err = vec::check_host_memory(p.n, 3, vec::available_host_bytes()))
    return print_error("--n: " + *err, 2);

  const std::string n_text =
      vec::format_count(p.n) == std::to_string(p.n) ? "" : " (" + vec::format_count(p.n) + ")";
  std::printf(
      "vector %s: %s, n = %lld%s floats, %.1f MiB per array; GB/s count 12 bytes per element (a and b "
      "read, c written); host memory %s; %d timed repetitions after a warm-up run, median (total: p10-p90)\n",
      vec::to_string(p.op), vec::formula_text(p.op), static_cast<long long>(p.n), n_text.c_str(),
      static_cast<double>(p.n) * 4 / (1 << 20),
      p.pinned ? "pinned" : "pageable (add --pinned for page-locked)", a.reps);
  Table t{{"variant", "H2D ms", "kernel ms", "D2H ms", "total ms", "total p10-p90", "kernel GB/s",
           "% of copy", "H2D GB/s", "D2H GB/s", "total GB/s", "check vs CPU", "notes"},
          {}};
  std::optional<GpuSection> gpu;
  if (a.device != BenchDevice::Cpu) {
    if (dev.available) {
      std::printf(
          "GPU: %s (%d SMs, compute capability %s); GPU times from CUDA events; check: add exact, formula "
          "within relative 1e-6 (nvcc fuses multiply-adds, the CPU does not)\n",
          dev.name.c_str(), dev.sm_count, dev.compute_capability().c_str());
      gpu = run_gpu(p, a.reps,
                    ctx);  // the runner (and its pinned memory) is gone before the CPU rows allocate theirs
      for (const auto& r : gpu->rows)
        t.rows.push_back(gpu_cells(r, gpu->copy.gbs));
      t.counters = gpu->counters;
      t.rows.push_back({"copy kernel (float4, device to device)", "", fmt_ms(gpu->copy.ms), "", "", "",
                        fmt_gbs(gpu->copy.gbs), gpu->copy.gbs > 0 ? "100%" : "-", "", "", "", "",
                        "2 arrays: n floats read, n written"});
    } else {
      std::printf("GPU rows skipped: no CUDA device (%s)\n", dev.reason.c_str());
    }
  }
  if (a.device != BenchDevice::Gpu) {
    std::unique_ptr<float[]> ha(new float[static_cast<size_t>(p.n)]), hb(new float[static_cast<size_t>(p.n)]),
        hc(new float[static_cast<size_t>(p.n)]);
    vec::fill_inputs(ha.get(), hb.get(), p.n);
    for (vec::CpuMode m : {vec::CpuMode::OneThread, vec::CpuMode::AllThreads}) {
      const Summary s = vec::time_cpu(p.op, ha.get(), hb.get(), hc.get(), p.n, m, a.reps);
      t.rows.push_back(cpu_cells(m, s, p.n, gpu ? gpu->copy.gbs : 0.0));
    }
  }
  t.print(std::cout);
  if (gpu) {
    print_gpu_summary(*gpu, p);
    if (!gpu->all_checks_passed) {
      std::printf(
          "CHECK FAILED: a GPU result differs from the CPU (see 'check vs CPU') or the chunked run differs "
          "from the single-stream run\n");
      return 1;
    }
  }
  return 0;
}

}  // namespace

void register_vector_bench(CLI::App& bench, BenchContext& ctx) {
  auto args = std::make_shared<VectorBenchArgs>();
  CLI::App* sub = bench.add_subcommand(
      "vector",
      "Vector add / formula: H2D, kernel, D2H per variant, copy kernel, pinned vs pageable, streams, sweep");
  args->flags = std::make_unique<ParamFlags>(
      *sub, ui::vector_schema(), std::vector<std::string>{"n", "op", "streams", "block", "sweep_max"}, "",
      ParamFlags::Defaults::Bench);
  sub->add_flag("--pinned", args->pinned, "Host arrays in pinned (page-locked) memory instead of pageable");
  sub->add_option("--chunks", args->chunks,
                  "Chunks dealt round robin onto the streams (default: one per stream)");
  sub->add_option("--reps", args->reps, "Timed repetitions per variant (after one warm-up run)");
  sub->add_flag("--sweep", args->sweep,
                "Size sweep from 1K to --sweep-max: GPU kernel, GPU incl. copies, CPU");
  add_device_option(*sub, args->device);
  sub->callback([args, &ctx] { run_guarded(ctx, [&] { return run(*args, ctx); }); });
}

}  // namespace bs::cli
