// bench_matmul.cpp: `blockscope bench matmul --m M --n N --k K [--variant NAME|all] [--device gpu|cpu|all]`.
// One row per variant: median time, GFLOP/s, % of cuBLAS measured in the same run, % of the GPU's FP32 peak,
// registers and shared memory per block, and the error against a float64 reference with pass/fail.
// `--suite`: the fixed shape suite, cuBLAS against `auto` per shape (with the configuration auto chose) and the
// geometric mean of % cuBLAS; `--suite --scan` also times every auto configuration and split per shape;
// `--tensor-cores --suite` the same suite in BF16: cuBLAS BF16 against our fastest BF16 rung per shape.
// `--tensor-cores`: the tensor-core rungs (gpu/matmul/tc.h) against cuBLAS at each precision and float64, with
// the conversion time, TFLOP/s, % of cuBLAS at the rung's precision, and the error with its bound.
// `--precision`: the CPU model of the precisions (gpu/matmul/precision.h): inputs rounded to BF16/FP16/TF32/3xTF32,
// accumulated in FP32, against float64. `--range R` and `--wide` choose the inputs of both.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string_view>
#include <vector>

#include "app/bench.h"
#include "app/counters_bench.h"
#include "app/param_flags.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/precision.h"
#include "gpu/matmul/tc.h"
#include "ui/matmul/matmul_schema.h"

namespace bs::cli {

namespace {

namespace mm = bs::matmul;

// M, N, K and size are the matmul schema's (ui/matmul/matmul_schema.h), with the bench's own default
// (k_bench_dim, a problem where every ladder step's gain shows); variants, device and reps are the bench's.
struct MatmulOptions {
  std::unique_ptr<ParamFlags> flags;
  int64_t m = 0, n = 0, k = 0;
  int64_t size = 0;  // --size S sets M = N = K = S
  bool by_size = false;
  std::string variant = "all";
  BenchDevice device = BenchDevice::All;
  int reps = 10;
  bool suite = false;
  bool scan = false;
  std::string shapes;  // --shapes: some of the suite's shapes (comma-separated MxNxK), empty: all
  bool tensor_cores = false;
  bool precision = false;
  double range = 1.0;
  bool wide = false;
};

// The shape suite. Issue 16: cubes, an awkward shape, small K, large K (split-k) and a skinny N. Issue 28:
// sizes that are odd or not multiples of 4 (N odd: no 16-byte rows of B; K odd: rows of A at any address) and
// matrix-vector shapes (M or N of 1 to 8, the other two large: bound by reading A or B once). 8192x3x1024
// stands for the 16384x3x1024, past the lab's M <= 8192.
constexpr mm::Problem k_suite[] = {{256, 256, 256},    {512, 512, 512},     {1024, 1024, 1024},
                                   {2048, 2048, 2048}, {4096, 4096, 4096},  {8192, 8192, 8192},
                                   {1023, 517, 2049},  {4096, 4096, 128},   {128, 128, 16384},
                                   {8192, 64, 8192},   {4095, 4097, 1023},  {1001, 999, 2003},
                                   {4096, 4096, 4095}, {4096, 1, 4096},     {4096, 8, 4096},
                                   {8192, 3, 1024},    {1, 4096, 4096},     {8, 8192, 8192}};

// What the user asked to run, resolved against --device.
struct Selection {
  std::vector<mm::Variant> gpu;
  std::vector<mm::CpuVariant> cpu;
  bool naive_cpu_explicit = false;
};

std::string fmt_sci(double v) {
  if (std::isnan(v)) return "NaN";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

std::string fmt_ms(double ms) {
  return fmt_fixed(ms, ms < 1 ? 4 : ms < 100 ? 3 : 1);
}

std::string fmt_pct(double p) {
  return p < 0 ? "-" : fmt_fixed(p, p < 1 ? 3 : 1);
}

// Parses --variant (a name, a comma-separated list, or "all"). Returns an error message naming the argument.
std::optional<std::string> select(const MatmulOptions& o, Selection& sel) {
  const bool want_gpu = o.device != BenchDevice::Cpu, want_cpu = o.device != BenchDevice::Gpu;
  if (o.variant == "all") {
    if (want_gpu)
      for (const auto& v : mm::gpu_variants())
        sel.gpu.push_back(v.id);
    if (want_cpu)
      for (const auto& v : mm::cpu_variants())
        sel.cpu.push_back(v.id);
    return std::nullopt;
  }
  std::stringstream ss(o.variant);
  std::string name;
  while (std::getline(ss, name, ',')) {
    if (auto g = mm::parse_variant(name)) {
      if (!want_gpu) return "--variant " + printable(name) + " runs on the GPU, but --device cpu was given";
      sel.gpu.push_back(*g);
    } else if (auto c = mm::parse_cpu_variant(name)) {
      if (!want_cpu) return "--variant " + printable(name) + " runs on the CPU, but --device gpu was given";
      sel.cpu.push_back(*c);
      if (*c == mm::CpuVariant::Naive) sel.naive_cpu_explicit = true;
    } else {
      std::string names;
      for (const auto& v : mm::gpu_variants())
        names += std::string(names.empty() ? "" : ", ") + v.name;
      for (const auto& v : mm::cpu_variants())
        names += std::string(", ") + v.name;
      return "--variant '" + printable(name) + "' is not a matmul variant; choose all or one of: " + names;
    }
  }
  return std::nullopt;
}

std::vector<std::string> table_row(const mm::BenchRow& r) {
  const bool attr = r.gpu && r.attr.known;
  return {r.variant,
          r.label,
          fmt_ms(r.ms.median),
          fmt_ms(r.ms.p10) + "-" + fmt_ms(r.ms.p90),
          std::to_string(r.runs),
          fmt_fixed(r.gflops, r.gflops < 10 ? 2 : 1),
          fmt_pct(r.pct_cublas),
          fmt_pct(r.pct_peak),
          attr ? std::to_string(r.attr.regs_per_thread) : "-",
          attr ? std::to_string(r.attr.static_smem_bytes) : "-",
          attr ? std::to_string(r.attr.blocks_per_sm) : "-",
          r.checked ? fmt_sci(r.check.rel_error) : "-",
          r.checked ? (r.check.pass ? "pass" : "FAIL") : "-"};
}

std::string shape_name(const mm::Problem& p) {
  if (p.m == p.n && p.n == p.k) return std::to_string(p.m) + "^3";
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

// `--scan`: every auto config x split (and swizzle on or off where the grid is large) at `p`, one CSV line each
// on stdout ("scan,shape,config,split,group,ms,pct_cublas,predicted_ms,check"): the data the model's
// constants are fitted to.
void scan_auto(const mm::Problem& p, std::span<const float> a, std::span<const float> b,
               const mm::Reference& ref, double cublas_ms, int reps) {
  mm::GpuRunner runner(p);
  runner.set_inputs(a, b);
  const int sms = runner.device().sm_count;
  for (size_t ci = 0; ci < mm::auto_configs().size(); ++ci) {
    if (!mm::auto_fits(mm::auto_configs()[ci], p)) continue;
    int last = 0;
    for (const int split : mm::auto_split_candidates()) {
      mm::AutoChoice c;
      c.config = static_cast<int>(ci);
      c.split_k = split;
      const int slices = mm::auto_slices(c, p);
      if (slices == last) continue;
      last = slices;
      c.split_k = slices;
      if (static_cast<double>(slices) * static_cast<double>(p.c_count()) * 4.0 > 256.0 * (1 << 20)) break;
      for (const int group : {1, 8}) {
        if (group > 1 && (slices > 1 || p.m < 8 * mm::auto_configs()[ci].bm)) continue;
        c.group = group;
        runner.set_auto_choice(c);
        runner.run_once(mm::Variant::Auto);
        const mm::CheckResult chk = mm::check_result(runner.download_c(), ref.values, p.k, ref.label);
        const std::vector<double> first = runner.time_runs(mm::Variant::Auto, 0, 1);
        const int n = std::clamp(static_cast<int>(60.0 / std::max(first[0], 1e-3)), 3, std::max(reps, 3));
        const double ms = summarize(runner.time_runs(mm::Variant::Auto, 1, n)).median;
        std::cout << "scan," << shape_name(p) << "," << mm::auto_configs()[ci].name << "," << slices << ","
                  << group << "," << fmt_fixed(ms, 4) << "," << fmt_fixed(100.0 * cublas_ms / ms, 1) << ","
                  << fmt_fixed(mm::auto_predict_ms(c, p, sms), 4) << "," << (chk.pass ? "pass" : "FAIL")
                  << std::endl;
      }
    }
  }
}

// "MxNxK" (as --shapes names a suite shape) and the comma-separated entries of a --shapes list.
std::string shape_key(const mm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}
std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t end = std::min(list.find(',', at), list.size());
    out.emplace_back(list.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// The end of a suite: its table, the geometric mean of `what` over the `count` shapes that gave a figure (the
// sum of their logs), and exit status 1 with `failed` said when any shape failed.
int finish_suite(const Table& t, double log_sum, int count, const char* what, int failures, const char* failed) {
  std::cout << "\n";
  t.print(std::cout);
  if (count > 0)
    std::cout << "\ngeometric mean of " << what << " over " << count << " shapes: "
              << fmt_fixed(std::exp(log_sum / count), 1) << "%\n";
  if (failures > 0) {
    std::cerr << "blockscope: " << failures << " shape(s) " << failed << "\n";
    return 1;
  }
  return 0;
}

// `--suite`: per shape, cuBLAS (before and after, the faster counts) and auto, each checked against a float64
// reference; then the geometric mean of auto's % cuBLAS.
int run_suite(const MatmulOptions& o) {
  const DeviceInfo dev = query_device();
  if (!dev.available) return print_error("--suite needs a GPU, but there is no CUDA device: " + dev.reason, 1);
  std::cout << "matmul suite: C = A x B, float32, row-major; GPU: " << dev.name << " (" << dev.sm_count
            << " SMs); cuBLAS: " << mm::GpuRunner::cublas_mode() << "\n";
  std::cout << "auto: config and split-k from a cost model (gpu/matmul/matmul_common.cpp, choose_auto) for "
            << dev.sm_count << " SMs\n";
  Table t;
  t.header = {"shape (MxNxK)", "cuBLAS ms", "cuBLAS TFLOP/s", "auto ms", "auto TFLOP/s", "% cuBLAS",
              "auto config",   "rel error", "pass"};
  double log_sum = 0;
  int failures = 0, count = 0;
  const std::vector<std::string> only = split_list(o.shapes);
  for (const mm::Problem& p : k_suite) {
    if (!o.shapes.empty() && std::ranges::find(only, shape_key(p)) == only.end()) continue;
    std::cerr << "suite: " << shape_name(p) << " ...\n";
    const auto a = mm::make_matrix(p.m, p.k, 1), b = mm::make_matrix(p.k, p.n, 2);
    mm::Reference ref;
    const mm::Variant want[] = {mm::Variant::Auto};
    const mm::GpuBenchResult g = mm::bench_gpu(p, a, b, ref, want, o.reps, 1.0);
    const mm::BenchRow& au = g.rows.front();
    const mm::BenchRow& cb = g.rows.back();
    if (o.scan) scan_auto(p, a, b, ref, cb.ms.median, o.reps);
    const bool pass = au.check.pass && cb.check.pass;
    failures += pass ? 0 : 1;
    log_sum += std::log(au.pct_cublas);
    ++count;
    t.rows.push_back({shape_name(p), fmt_ms(cb.ms.median), fmt_fixed(cb.gflops / 1e3, 2), fmt_ms(au.ms.median),
                      fmt_fixed(au.gflops / 1e3, 2), fmt_fixed(au.pct_cublas, 1), au.choice,
                      fmt_sci(au.check.rel_error), pass ? "pass" : "FAIL"});
  }
  return finish_suite(t, log_sum, count, "auto's % cuBLAS", failures, "FAILED the correctness check");
}

void print_bound_line(const mm::InputRange& in) {
  std::cout << "inputs: " << mm::to_string(in) << "; error: ||C - ref||_F / ||ref||_F against float64, bound "
            << "4 * u_in + 8 * 2^-24 * sqrt(K) (u_in: 2^-8 BF16, 2^-11 FP16/TF32, 2^-22 3xTF32, 0 FP32)\n";
}

// `--precision`: the CPU model, one row per precision.
int run_precision(const mm::Problem& p, const mm::InputRange& in) {
  std::cout << "matmul precision model on the CPU: C = A x B, " << mm::to_string(p)
            << "; A and B rounded once to each precision (nearest even), products accumulated in FP32 along K\n";
  print_bound_line(in);
  const auto a = mm::make_input(p.m, p.k, 1, in), b = mm::make_input(p.k, p.n, 2, in);
  std::cerr << "computing the float64 reference (OpenBLAS dgemm) and each precision ...\n";
  Table t;
  t.header = {"precision", "format", "ms (CPU)", "rel error", "bound", "within", "worst |C-ref| at (row,col): C vs ref"};
  for (const mm::PrecisionReport& r : mm::precision_model(a, b, p)) {
    const mm::PrecisionInfo& pi = mm::info(r.precision);
    const mm::ErrorStats& e = r.error;
    t.rows.push_back({pi.name, pi.title, fmt_ms(r.ms), fmt_sci(e.rel_frobenius), fmt_sci(e.bound),
                      e.within_bound ? "yes" : "NO", mm::worst_text(e)});
  }
  t.print(std::cout);
  std::cout << "\n";
  for (const auto& pi : mm::precisions())
    std::cout << "note: " << pi.name << ": " << pi.description << "\n";
  return 0;
}

// `--tensor-cores`: the rungs on the GPU; without one, the rungs listed and explained, then the CPU model.
int run_tensor_cores(const MatmulOptions& o, const mm::Problem& p, const mm::InputRange& in) {
  namespace tc = mm::tc;
  std::vector<tc::Rung> which;
  if (o.variant != "all") {
    std::stringstream ss(o.variant);
    std::string name;
    while (std::getline(ss, name, ',')) {
      if (auto r = tc::parse_rung(name)) {
        which.push_back(*r);
        continue;
      }
      std::string names;
      for (const auto& r : tc::rungs())
        names += std::string(names.empty() ? "" : ", ") + r.name;
      return print_error("--variant '" + printable(name) + "' is not a tensor-core rung; choose all or one of: " + names,
                         2);
    }
  }
  const DeviceInfo dev = query_device();
  std::cout << "matmul tensor cores: C = A x B, " << mm::to_string(p) << ", " << fmt_fixed(p.flops() / 1e9, 3)
            << " GFLOP per run; A, B converted once from float32 (zero-padded to 128 x 32 tiles), C in float32\n";
  print_bound_line(in);
  if (!dev.available) {
    std::cout << "no CUDA device (" << dev.reason << "): the rungs are listed, not run; the CPU model follows\n\n";
    for (const auto& r : tc::rungs())
      std::cout << r.name << " (" << r.title << ", " << mm::info(r.precision).name << ", sm_" << r.min_cc
                << "+): " << r.description << "\n";
    std::cout << "\n";
    return run_precision(p, in);
  }
  std::cout << "GPU: " << dev.name << ", cc " << dev.compute_capability() << ", " << dev.sm_count << " SMs\n";
  const auto a = mm::make_input(p.m, p.k, 1, in), b = mm::make_input(p.k, p.n, 2, in);
  mm::Reference ref;
  std::cerr << "running the tensor-core rungs and cuBLAS at each precision ...\n";
  const tc::TcBenchResult res = tc::bench_tc(p, a, b, ref, which, o.reps);
  std::cout << "reference: " << res.reference << "; % cuBLAS is of cuBLAS at the rung's precision (3xTF32: of "
            << "strict FP32 SGEMM); convert ms: A and B to that precision, once, not in ms\n\n";
  Table t;
  t.header = {"rung",      "precision", "ms (median)", "p10-p90 ms", "runs",  "TFLOP/s", "% cuBLAS",
              "convert ms", "regs/thr", "smem B/blk", "rel error", "bound", "pass", "worst |C-ref| at (row,col): C vs ref"};
  std::vector<std::string> notes;
  int failures = 0;
  for (const tc::TcRow& r : res.rows) {
    const char* prec = mm::info(r.rung->precision).name;
    if (!r.skipped.empty()) {
      t.rows.push_back({r.rung->name, prec, "skipped"});
      notes.push_back(std::string(r.rung->name) + " skipped: " + r.skipped);
      continue;
    }
    const bool ok = r.error.within_bound;
    if (!ok) {
      if (!in.wide) ++failures;
      notes.push_back(std::string(r.rung->name) + ": " + r.error.summary());
    }
    t.rows.push_back({r.rung->name, prec, fmt_ms(r.ms.median), fmt_ms(r.ms.p10) + "-" + fmt_ms(r.ms.p90),
                      std::to_string(r.runs), fmt_fixed(r.tflops, 1), fmt_pct(r.pct_cublas),
                      r.convert_ms > 0 ? fmt_ms(r.convert_ms) : "-",
                      r.attr.known ? std::to_string(r.attr.regs_per_thread) : "-",
                      r.attr.known ? std::to_string(r.attr.static_smem_bytes) : "-", fmt_sci(r.error.rel_frobenius),
                      fmt_sci(r.error.bound), ok ? "pass" : "FAIL", mm::worst_text(r.error)});
  }
  t.print(std::cout);
  std::cout << "\n";
  for (const auto& r : tc::rungs())
    std::cout << r.name << ": " << r.title << ". " << r.description << "\n";
  if (!notes.empty()) std::cout << "\n";
  for (const auto& n : notes)
    std::cout << "note: " << n << "\n";
  if (failures > 0) {
    std::cerr << "blockscope: " << failures << " rung(s) over their error bound\n";
    return 1;
  }
  return 0;
}

// `--tensor-cores --suite`: per suite shape, cuBLAS BF16 against our BF16 path on the same BF16 copies of A
// and B, each checked against float64. Our path is a general rule, the same for every shape: every
// hand-written BF16 rung this GPU runs is timed and the fastest within its error bound counts (the Hopper
// rungs where there is Hopper, mma.sync/WMMA elsewhere); its name is in the table. Then the geometric mean.
int run_tc_suite(const MatmulOptions& o) {
  namespace tc = mm::tc;
  const DeviceInfo dev = query_device();
  if (!dev.available)
    return print_error("--tensor-cores --suite needs a GPU, but there is no CUDA device: " + dev.reason, 1);
  std::vector<tc::Rung> ours;
  for (const tc::RungInfo& r : tc::rungs())
    if (r.precision == mm::Precision::Bf16 && !r.library) ours.push_back(r.id);
  std::cout << "matmul tensor-core suite: C = A x B in BF16 (FP32 accumulate), A and B converted once from float32 "
               "(zero-padded to 128 x 32 tiles, not in the times, shared by both); GPU: "
            << dev.name << ", cc " << dev.compute_capability() << ", " << dev.sm_count << " SMs\n"
            << "ours: the fastest of the hand-written BF16 rungs this GPU runs, each timed at each shape (the same "
               "rule for every shape); cuBLAS: cublasGemmEx on the same BF16 copies (K padded to a multiple of 32 "
               "with zeros, as our rungs read them), timed before and after ours, the faster counts\n";
  const mm::InputRange in{1.0, false};
  print_bound_line(in);
  Table t;
  t.header = {"shape (MxNxK)", "cuBLAS ms", "cuBLAS TFLOP/s", "ours ms", "ours TFLOP/s", "% cuBLAS",
              "our rung",      "convert ms", "rel error", "pass"};
  double log_sum = 0;
  int failures = 0, count = 0;
  for (const mm::Problem& p : k_suite) {
    std::cerr << "tensor-core suite: " << shape_name(p) << " ...\n";
    const auto a = mm::make_input(p.m, p.k, 1, in), b = mm::make_input(p.k, p.n, 2, in);
    mm::Reference ref;
    const tc::TcBenchResult res = tc::bench_tc(p, a, b, ref, ours, o.reps, 0.2);
    // cuBLAS again after our rungs, as --suite does: the faster of its two medians counts.
    const tc::Rung lib_only[] = {tc::Rung::CublasBf16};
    const tc::TcBenchResult again = tc::bench_tc(p, a, b, ref, lib_only, o.reps, 0.2);
    const tc::TcRow* lib = nullptr;
    const tc::TcRow* best = nullptr;
    for (const tc::TcRow& r : res.rows) {
      if (!r.skipped.empty()) continue;
      if (r.rung->library) lib = &r;
      else if (r.error.within_bound && (!best || r.ms.median < best->ms.median)) best = &r;
    }
    for (const tc::TcRow& r : again.rows)
      if (r.skipped.empty() && lib && r.error.within_bound && r.ms.median < lib->ms.median) lib = &r;
    const bool pass = lib && best && lib->error.within_bound;
    if (!pass) {
      ++failures;
      t.rows.push_back({shape_name(p), lib ? fmt_ms(lib->ms.median) : "-", "", "-", "", "-",
                        best ? best->rung->name : "no rung within its bound", "", "", "FAIL"});
      continue;
    }
    const double pct = 100.0 * lib->ms.median / best->ms.median;
    log_sum += std::log(pct);
    ++count;
    t.rows.push_back({shape_name(p), fmt_ms(lib->ms.median), fmt_fixed(lib->tflops, 1), fmt_ms(best->ms.median),
                      fmt_fixed(best->tflops, 1), fmt_fixed(pct, 1), best->rung->name,
                      fmt_ms(best->convert_ms), fmt_sci(best->error.rel_frobenius), "pass"});
  }
  return finish_suite(t, log_sum, count, "our BF16 % cuBLAS BF16", failures,
                      "FAILED (no result within the error bound)");
}

int run_matmul_bench(MatmulOptions& o, BenchContext& ctx) {
  if (auto err = o.flags->read()) return print_error(*err, 2);
  if (o.scan && !o.suite) return print_error("--scan runs with --suite", 2);
  if (!o.shapes.empty()) {
    if (!o.suite || o.tensor_cores) return print_error("--shapes picks shapes of the FP32 --suite", 2);
    for (const std::string& item : split_list(o.shapes))
      if (std::ranges::none_of(k_suite, [&](const mm::Problem& p) { return shape_key(p) == item; }))
        return print_error("--shapes: '" + item + "' is not a suite shape (MxNxK, e.g. 1001x999x2003)", 2);
  }
  if (o.tensor_cores && o.precision)
    return print_error("--tensor-cores already shows the precisions (and the CPU model without a GPU): give one", 2);
  if (o.precision && o.suite) return print_error("--precision does not run with --suite", 2);
  if (o.tensor_cores && o.suite && (o.scan || o.variant != "all" || o.wide || o.range != 1.0))
    return print_error("--tensor-cores --suite times every BF16 rung at each shape on inputs in (-1, 1): not with "
                       "--scan, --variant, --range or --wide", 2);
  if ((o.tensor_cores || o.precision) && ctx.counters)
    return print_error(std::string("--counters reads the FP32 ladder's kernels: not with ") +
                           (o.tensor_cores ? "--tensor-cores" : "--precision"),
                       2);
  const mm::InputRange in{o.range, o.wide};
  if (!o.tensor_cores && !o.precision && (o.wide || o.range != 1.0))
    return print_error("--range and --wide choose the inputs of --precision and --tensor-cores; add one of them", 2);
  if (auto err = mm::validate(in)) return print_error(*err, 2);
  if (o.suite) {
    if (o.device == BenchDevice::Cpu) return print_error("--suite compares GPU kernels: not with --device cpu", 2);
    return o.tensor_cores ? run_tc_suite(o) : run_suite(o);
  }
  o.m = o.flags->value("m").get<int64_t>();
  o.n = o.flags->value("n").get<int64_t>();
  o.k = o.flags->value("k").get<int64_t>();
  o.by_size = o.flags->given("size");
  o.size = o.flags->value("size").get<int64_t>();
  mm::Problem p{o.m, o.n, o.k};
  if (o.by_size) p = {o.size, o.size, o.size};
  if (auto err = mm::validate(p)) {
    // Name the command-line argument, not just the matrix dimension.
    const char* arg = o.by_size                   ? "--size"
                      : mm::validate({p.m, 1, 1}) ? "--m"
                      : mm::validate({1, p.n, 1}) ? "--n"
                                                  : "--k";
    return print_error(std::string(arg) + ": " + *err, 2);
  }
  if (o.precision && !o.by_size && !o.flags->given("m") && !o.flags->given("n") && !o.flags->given("k"))
    p = {mm::k_default_m, mm::k_default_n, mm::k_default_k};  // awkward sizes, seconds on the CPU
  if (o.precision || o.tensor_cores) {
    if (o.reps < 1 || o.reps > 1000) return print_error("--reps " + std::to_string(o.reps) + ": choose 1 to 1000 timed runs", 2);
    if (o.device == BenchDevice::Cpu && o.tensor_cores)
      return print_error("--tensor-cores runs on the GPU: not with --device cpu (--precision is the CPU model)", 2);
    return o.precision ? run_precision(p, in) : run_tensor_cores(o, p, in);
  }
  if (o.reps < 1 || o.reps > 1000) {
    return print_error("--reps " + std::to_string(o.reps) + ": choose 1 to 1000 timed runs", 2);
  }
  Selection sel;
  if (auto err = select(o, sel)) {
    return print_error(*err, 2);
  }

  const DeviceInfo dev = query_device();
  std::vector<std::string> notes;
  if (!sel.gpu.empty() && !dev.available) {
    if (o.device == BenchDevice::Gpu || sel.cpu.empty()) {
      return print_error((o.device == BenchDevice::Gpu ? "--device gpu" : "--variant " + o.variant) +
                             " needs a GPU, but there is no CUDA device: " + dev.reason,
                         1);
    }
    notes.push_back("GPU rows skipped: no CUDA device (" + dev.reason + ")");
    sel.gpu.clear();
  }
  const double fmas = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  if (!sel.naive_cpu_explicit && fmas > mm::k_cpu_naive_bench_max_fmas) {
    const auto it = std::find(sel.cpu.begin(), sel.cpu.end(), mm::CpuVariant::Naive);
    if (it != sel.cpu.end()) {
      sel.cpu.erase(it);
      notes.push_back("cpu_naive skipped: M*N*K = " + fmt_sci(fmas) +
                      " > 1024^3, minutes on one thread; ask for it with --variant cpu_naive");
    }
  }

  std::cout << "matmul: C = A x B, float32, row-major, " << mm::to_string(p) << ", "
            << fmt_fixed(p.flops() / 1e9, 3) << " GFLOP per run\n";
  const auto a = mm::make_matrix(p.m, p.k, 1), b = mm::make_matrix(p.k, p.n, 2);
  mm::Reference ref;
  std::vector<mm::BenchRow> rows;
  double cublas_ms = 0;
  int failures = 0;

  if (!sel.gpu.empty()) {
    const double peak = peak_fp32_gflops(dev);
    std::cout << "GPU: " << dev.name << ", cc " << dev.compute_capability() << ", " << dev.sm_count
              << " SMs x " << fp32_lanes_per_sm(dev.cc_major, dev.cc_minor) << " FP32 lanes at "
              << dev.clock_khz / 1000 << " MHz (max): FP32 peak " << fmt_fixed(peak / 1e3, 1) << " TFLOP/s\n";
    std::cerr << "running " << sel.gpu.size() << " GPU variants (+ cuBLAS) ...\n";
    mm::GpuBenchResult g = mm::bench_gpu(p, a, b, ref, sel.gpu, o.reps);
    for (auto& r : g.rows) {
      if (r.variant == mm::info(mm::Variant::Cublas).name) cublas_ms = r.ms.median;
      rows.push_back(std::move(r));
    }
    notes.insert(notes.end(), g.notes.begin(), g.notes.end());
  }
  if (!sel.cpu.empty()) {
    if (ref.values.empty()) {
      std::cerr << "computing the float64 reference (OpenBLAS dgemm) ...\n";
      ref.values = mm::reference_cpu(a, b, p);
      ref.label = "float64 CPU (OpenBLAS dgemm)";
    }
    for (const mm::CpuVariant v : sel.cpu) {
      std::cerr << "running " << mm::info(v).name << " ...\n";
      mm::BenchRow r = mm::bench_cpu(v, p, a, b, ref, std::min(o.reps, 5));
      if (cublas_ms > 0) r.pct_cublas = 100.0 * cublas_ms / r.ms.median;
      rows.push_back(std::move(r));
    }
  }

  std::cout << "check: ||C - ref|| / ||ref|| against " << ref.label
            << "; pass when <= " << fmt_sci(mm::tolerance(p.k))
            << " (8 * 2^-24 * sqrt(K)); C is NaN-filled before each checked run\n\n";
  Table t;
  t.header = {"variant",     "what",     "ms (median)", "p10-p90 ms", "runs",      "GFLOP/s", "% cuBLAS",
              "% FP32 peak", "regs/thr", "smem B/blk",  "blk/SM",     "rel error", "pass"};
  for (const auto& r : rows) {
    t.rows.push_back(table_row(r));
    if (r.checked && !r.check.pass) {
      ++failures;
      notes.push_back(r.variant + ": " + r.check.summary());
    }
    if (!r.note.empty()) notes.push_back(r.variant + ": " + r.note);
  }
  if (ctx.counters && !sel.gpu.empty()) {
    // After the timing: one more launch of each GPU variant, replayed by CUPTI per counter pass.
    mm::GpuRunner runner(p);
    runner.set_inputs(a, b);
    for (const auto& r : rows) {
      const auto v = r.gpu ? mm::parse_variant(r.variant) : std::nullopt;
      t.counters.push_back(v ? bench_counters(ctx, [&] { runner.enqueue(*v); }) : std::nullopt);
    }
    runner.sync();
    runner.poll_ms();
  }
  t.print(std::cout);
  if (!notes.empty()) std::cout << "\n";
  for (const auto& n : notes)
    std::cout << "note: " << n << "\n";
  if (failures > 0) {
    std::cerr << "blockscope: " << failures << " variant(s) FAILED the correctness check\n";
    return 1;
  }
  return 0;
}

}  // namespace

void register_matmul_bench(CLI::App& bench, BenchContext& ctx) {
  auto opts = std::make_shared<MatmulOptions>();
  CLI::App* sub =
      bench.add_subcommand("matmul", "C = A x B in float32: GPU kernel ladder, cuBLAS, CPU baselines");
  opts->flags =
      std::make_unique<ParamFlags>(*sub, ui::matmul_schema(), std::vector<std::string>{"m", "n", "k", "size"},
                                   "", ParamFlags::Defaults::Bench);
  sub->add_option("--variant", opts->variant, "a variant name, a comma-separated list, or all")
      ->capture_default_str();
  sub->add_option("--reps", opts->reps, "timed runs per variant at most (fewer when a run is slow)")
      ->capture_default_str();
  add_device_option(*sub, opts->device);
  sub->add_flag("--suite", opts->suite,
                "the shape suite: cuBLAS vs auto per shape, auto's choice, geometric mean of % cuBLAS (with "
                "--tensor-cores: cuBLAS BF16 vs our fastest BF16 rung per shape)");
  sub->add_flag("--scan", opts->scan, "with --suite: also time every auto config and split per shape (CSV)");
  sub->add_option(
      "--shapes", opts->shapes,
      "with --suite: only these of its shapes, comma-separated MxNxK (e.g. 1023x517x2049,1001x999x2003)");
  sub->add_flag("--tensor-cores", opts->tensor_cores,
                "the tensor-core rungs (WMMA, mma.sync, cp.async pipeline, 3xTF32; on Hopper: TMA + wgmma BF16, "
                "warp-specialized, persistent, TF32 and 3xTF32) against cuBLAS at each precision and float64; "
                "--variant picks rungs");
  sub->add_flag("--precision", opts->precision,
                "the CPU model: inputs rounded to BF16/FP16/TF32/3xTF32, accumulated in FP32, against float64 "
                "(default size 1000x777x333)");
  sub->add_option("--range", opts->range, "inputs uniform in (-R, R), never zero (with --precision or --tensor-cores)")
      ->capture_default_str();
  sub->add_flag("--wide", opts->wide,
                "inputs of mixed magnitudes (times 2^e, e in [-30, 17]): FP16 overflows and underflows, BF16 does not");
  sub->callback([opts, &ctx] { run_guarded(ctx, [&] { return run_matmul_bench(*opts, ctx); }); });
}

}  // namespace bs::cli
