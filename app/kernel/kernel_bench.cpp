// kernel_bench.cpp: see kernel_bench.h. Exit codes: 2 for bad flags, an unreadable source or a compile error
// (the log is printed with the file's own name), 1 without a GPU or on a GPU fault (the message names the
// user's kernel), 0 otherwise (a failed check is a row that says FAIL, not an error).
#include "app/kernel/kernel_bench.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "core/error.h"
#include "core/launch.h"
#include "gpu/common/device_info.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/lab_runs.h"
#include "gpu/kernel/source_file.h"

namespace bs::cli {

namespace {

struct KernelBenchArgs {
  kernel::Target target = kernel::Target::Heat;
  std::string source, size, block, grid, reference = "formula";
  int steps = 100;
  int repetitions = 7;
  double timeout_s = kernel::k_default_timeout_s;
  bool fast_math = false;
  int maxrregcount = 0;
  double compile_timeout_s = kernel::k_default_compile_timeout_s;
};

std::string ms(double v) {
  return fmt_fixed(v, v < 0.1 ? 4 : 3);
}

std::string figures(const kernel::KernelFigures& f) {
  return std::to_string(f.registers) + " regs, " + std::to_string(f.static_smem_bytes) + " B smem, " +
         fmt_fixed(f.occupancy() * 100.0, 0) + "% occ";
}

// "MxNxK", or "N" for N x N x N.
int run(const KernelBenchArgs& a) {
  {
    std::string text, err;  // refused before any other work (a pipe, a device, over the limit, not UTF-8)
    if (!kernel::read_kernel_source(a.source, &text, &err)) return print_error("--source " + err, 2);
  }
  const std::string target_name(kernel::k_target_names.name_of(a.target));

  // Lab options, checked before anything is compiled or run.
  std::string error;
  const auto lp = parse_lab_problem(a.target, {a.size, a.block, a.grid, a.reference, a.steps, "2048", "16M", "1024"},
                                    &error);
  if (!lp) return print_error(error, 2);
  const heat::Params& hp = lp->heat;
  const matmul::Problem& mp = lp->matmul;
  const int64_t n = lp->n;
  const Dim2 block = lp->block;
  const std::optional<Dim2> grid = lp->grid;
  const vector::Op reference = lp->reference;
  const Dim2 domain = lp->domain(a.target);
  const DeviceInfo dev = query_device();
  const DeviceLimits limits = dev.available ? dev.limits : DeviceLimits{};
  if (auto e = kernel::validate_launch(
          a.target, block, grid ? *grid : kernel::default_grid(a.target, block, domain), domain, limits))
    return print_error(*e, 2);

  // Compile (the cache under the user's cache directory), for the device's architecture when there is one.
  kernel::CompileOptions opts;
  opts.fast_math = a.fast_math;
  opts.maxrregcount = a.maxrregcount;
  const SourceCompile sc = compile_source_file(
      a.source, a.target, dev.available ? dev.cc_major * 10 + dev.cc_minor : 0, opts, a.compile_timeout_s);
  if (!sc.result) return print_error(sc.error, 2);
  const kernel::CompileResult& r = *sc.result;
  std::printf("%s: %s (%s, NVRTC %.1f ms)\n", a.source.c_str(), r.message.c_str(),
              r.from_cache ? "from the cache" : "compiled", r.nvrtc_ms);
  if (!dev.available)
    return print_error("running a user kernel needs a GPU: no CUDA device (" + dev.reason +
                           "); compiling works without one (blockscope kernel compile)",
                       1);

  kernel::RunSettings s;
  s.repetitions = a.repetitions;
  s.timeout_s = a.timeout_s;
  const kernel::LoadedKernel k(r);
  Table t{{"variant", "ms (median)", "p10", "p90", a.target == kernel::Target::Matmul ? "GFLOP/s" : "GB/s",
           "check", "resources"},
          {}};
  if (a.target == kernel::Target::Heat) {
    const std::vector<float> initial = heat::make_initial(hp, heat::InitialPattern::Noise);
    const kernel::UserRun u = kernel::run_heat(k, hp, initial, a.steps, block, grid, s);
    std::printf("heat, %lldx%lld cells, %d steps per run, fixed boundary; ms per step; 8 bytes/cell/step\n",
                static_cast<long long>(hp.nx), static_cast<long long>(hp.ny), a.steps);
    t.rows.push_back({"user heat_step, block " + to_string(block) + " grid " + to_string(u.grid),
                      ms(u.ms.median), ms(u.ms.p10), ms(u.ms.p90), fmt_fixed(u.gb_per_s, 1), u.check,
                      figures(u.figures)});
    for (auto [blk, cpt] :
         {std::pair{block, 1}, std::pair{heat::k_default_block, heat::k_default_cells_per_thread}}) {
      const heat::GpuBench g = heat::bench_gpu(hp, blk, a.steps, s.repetitions, cpt);
      t.rows.push_back(
          {"built-in stencil, block " + to_string(blk) + ", " + std::to_string(cpt) + " cell/thread",
           ms(g.stencil.ms_per_step), ms(g.stencil.p10), ms(g.stencil.p90), fmt_fixed(g.stencil.gb_per_s, 1),
           "(the lab's own kernel)", ""});
    }
  } else if (a.target == kernel::Target::Vector) {
    const kernel::UserRun u = kernel::run_vector(
        k, n, block.x, grid ? std::optional<int64_t>(grid->x) : std::nullopt, reference, s);
    std::printf("vector, n = %s, kernel time only (inputs already on the GPU); 12 bytes/element\n",
                vector::format_count(n).c_str());
    t.rows.push_back(
        {"user vector_op, block " + std::to_string(block.x) + " grid " + std::to_string(u.grid.x),
         ms(u.ms.median), ms(u.ms.p10), ms(u.ms.p90), fmt_fixed(u.gb_per_s, 1), u.check, figures(u.figures)});
    vector::GpuRunner runner;
    for (auto [ix, w] : {std::pair{vector::Indexing::OnePerElement, vector::LoadWidth::Float},
                         std::pair{vector::Indexing::GridStride, vector::LoadWidth::Float4}}) {
      vector::Params vp;
      vp.n = n;
      vp.op = reference;
      vp.indexing = ix;
      vp.width = w;
      vp.block = static_cast<int>(block.x);
      vp.pinned = true;
      const vector::RunResult rr = runner.run(vp, s.repetitions, true);
      const double kms = rr.kernel_ms.median;
      t.rows.push_back({"built-in " + rr.variant, ms(kms), ms(rr.kernel_ms.p10), ms(rr.kernel_ms.p90),
                        fmt_fixed(kms > 0 ? 12.0 * n / (kms * 1e6) : 0, 1), rr.row.check, ""});
    }
  } else {
    const kernel::UserRun u = kernel::run_matmul(k, mp, block, grid, s);
    std::printf("matmul, %s, float32; checked against a float64 CPU reference (OpenBLAS dgemm)\n",
                matmul::to_string(mp).c_str());
    t.rows.push_back({"user matmul, block " + to_string(block) + " grid " + to_string(u.grid),
                      ms(u.ms.median), ms(u.ms.p10), ms(u.ms.p90), fmt_fixed(u.gflops, 0), u.check,
                      figures(u.figures)});
    const std::vector<float> am = matmul::make_matrix(mp.m, mp.k, 1), bm = matmul::make_matrix(mp.k, mp.n, 2);
    const std::vector<double> ref = matmul::reference_cpu(am, bm, mp);
    matmul::GpuRunner runner(mp);
    runner.set_inputs(am, bm);
    for (const matmul::VariantInfo& v : matmul::gpu_variants()) {
      runner.run_once(v.id);
      const matmul::CheckResult cr = matmul::check_result(runner.download_c(), ref, mp.k);
      const Summary sm = summarize(runner.time_runs(v.id, 2, s.repetitions));
      t.rows.push_back({"built-in " + std::string(v.title), ms(sm.median), ms(sm.p10), ms(sm.p90),
                        fmt_fixed(sm.median > 0 ? mp.flops() / (sm.median * 1e6) : 0, 0), cr.summary(), ""});
    }
  }
  t.print(std::cout);
  std::printf("GPU: %d timed runs after warm-up (CUDA events); device %s\n", s.repetitions, dev.name.c_str());
  return 0;
}

}  // namespace

std::optional<LabProblem> parse_lab_problem(kernel::Target t, const LabProblemText& in, std::string* error) {
  auto fail = [&](const std::string& m) -> std::optional<LabProblem> {
    *error = m;
    return std::nullopt;
  };
  LabProblem out;
  if (t == kernel::Target::Heat) {
    const ParsedDim2 s = parse_size2(in.size.empty() ? in.heat_default : in.size, "--size");
    if (!s.value) return fail(s.error);
    out.heat.nx = s.value->x;
    out.heat.ny = s.value->y;
    if (auto e = heat::validate(out.heat)) return fail("--size: " + *e);
    if (in.steps < 1) return fail("--steps must be at least 1");
  } else if (t == kernel::Target::Vector) {
    const vector::ParsedCount c = vector::parse_count(in.size.empty() ? in.vector_default : in.size, "--size");
    if (!c.value) return fail(c.error);
    out.n = *c.value;
    const auto op = vector::parse_op(in.reference);
    if (!op) return fail("--reference " + in.reference + ": give add or formula");
    out.reference = *op;
  } else {
    const auto p = parse_matmul_size(in.size.empty() ? in.matmul_default : in.size);
    if (!p) return fail("--size " + in.size + ": give MxNxK (e.g. 1000x777x333) or N");
    out.matmul = *p;
    if (auto e = matmul::validate(out.matmul)) return fail("--size: " + *e);
  }
  const kernel::Contract& c = kernel::contract(t);
  const ParsedDim2 b = parse_dim2(
      in.block.empty() ? std::to_string(c.default_block_x) + "x" + std::to_string(c.default_block_y) : in.block,
      "--block");
  if (!b.value) return fail(b.error);
  out.block = *b.value;
  if (!in.grid.empty()) {
    const ParsedDim2 g = parse_dim2(in.grid, "--grid");
    if (!g.value) return fail(g.error);
    out.grid = g.value;
  }
  return out;
}

Dim2 LabProblem::domain(kernel::Target t) const {
  return t == kernel::Target::Heat     ? Dim2{heat.nx, heat.ny}
         : t == kernel::Target::Vector ? Dim2{n, 1}
                                       : Dim2{matmul.n, matmul.m};
}

std::optional<matmul::Problem> parse_matmul_size(const std::string& s) {
  long long m = 0, n = 0, k = 0;
  char x1 = 0, x2 = 0, extra = 0;
  if (std::sscanf(s.c_str(), "%lld%c%lld%c%lld%c", &m, &x1, &n, &x2, &k, &extra) == 5 && x1 == 'x' &&
      x2 == 'x')
    return matmul::Problem{m, n, k};
  if (std::sscanf(s.c_str(), "%lld%c", &m, &extra) == 1) return matmul::Problem{m, m, m};
  return std::nullopt;
}

SourceCompile compile_source_file(const std::string& path, kernel::Target target, int arch,
                                  const kernel::CompileOptions& options, double timeout_s) {
  SourceCompile out;
  std::string text;
  if (!kernel::read_kernel_source(path, &text, &out.error)) return out;
  out.request.source = std::move(text);
  out.request.target = target;
  out.request.options = options;
  out.request.control.timeout_s = timeout_s;
  if (arch > 0) out.request.arch = arch;
  kernel::KernelCache cache(kernel::default_cache_dir());
  kernel::CompileResult r = kernel::compile_cached(cache, out.request);
  if (!r.ok()) {
    for (const kernel::Diagnostic& d : r.diagnostics)
      std::fprintf(stderr, "%s\n", printable(kernel::format_diagnostic(d, path), 2000).c_str());
    if (r.diagnostics.empty() && !r.log.empty()) std::fprintf(stderr, "%s\n", printable(r.log, 8000).c_str());
    out.error = kernel::failure_line(r, path);
    return out;
  }
  out.result = std::move(r);
  return out;
}

void register_kernel_bench(CLI::App& bench, BenchContext& ctx) {
  auto args = std::make_shared<KernelBenchArgs>();
  CLI::App* sub = bench.add_subcommand(
      "kernel", "Your kernel (a .cu file for a lab's contract) run, checked and timed beside the lab's own");
  sub->add_option("--target", args->target, "The lab's contract: " + kernel::k_target_names.list())
      ->required()
      ->transform(enum_choice(kernel::k_target_names, true));
  sub->add_option("--source", args->source, "The kernel's .cu file")->required();
  sub->add_option("--size", args->size,
                  "heat: NxM or N cells (default 2048); vector: n (e.g. 16M, default); matmul: MxNxK or N "
                  "(default 1024)");
  sub->add_option("--block", args->block, "Block, e.g. 32x8 (vector: 256); default: the contract's");
  sub->add_option("--grid", args->grid, "Grid; default: the one that covers the data");
  sub->add_option("--steps", args->steps, "heat: steps per timed run")->capture_default_str();
  sub->add_option("--reference", args->reference, "vector: the lab's op to check against (add | formula)")
      ->capture_default_str();
  sub->add_option("--repetitions", args->repetitions, "Timed runs")
      ->check(in_range(1, 1000, "timed runs"))
      ->capture_default_str();
  sub->add_option("--timeout", args->timeout_s, "Seconds a run may take before it is reported as hung")
      ->check(in_range(0.1, 600.0, "seconds"))
      ->capture_default_str();
  sub->add_option("--compile-timeout", args->compile_timeout_s,
                  "Seconds the compile may take before it is stopped (a macro that expands without end)")
      ->check(in_range(0.5, 600.0, "seconds"))
      ->capture_default_str();
  sub->add_flag("--use-fast-math", args->fast_math, "Compile with -use_fast_math");
  sub->add_option("--maxrregcount", args->maxrregcount, "Compile with -maxrregcount=N (0: no limit)");
  sub->callback([args, &ctx] { run_guarded(ctx, [&] { return run(*args); }); });
}

}  // namespace bs::cli
