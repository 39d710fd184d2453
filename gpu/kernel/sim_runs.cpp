// sim_runs.cpp: see sim_runs.h.
#include "gpu/kernel/sim_runs.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "gpu/kernel/kernel_runner.h"
#include "gpu/kernel/lab_checks.h"

namespace bs::kernel {

namespace {

Dim2 checked_grid(Target t, Dim2 block, std::optional<Dim2> grid, Dim2 domain) {
  const Dim2 g = grid ? *grid : default_grid(t, block, domain);
  if (auto e = validate_launch(t, block, g, domain, DeviceLimits{})) throw InvalidRequest(*e);
  return g;
}

sim::Dim3 dim3(Dim2 d) { return sim::Dim3{static_cast<uint32_t>(d.x), static_cast<uint32_t>(d.y), 1}; }

sim::Buffer buffer(const char* name, std::vector<float>& v, bool output, int64_t cols = 0) {
  return sim::buffer_over(name, v, output, static_cast<uint32_t>(cols));
}


// Runs one launch; the first one's result (diagnostics, counts) is kept in `out`.
bool run_launch(const sim::Module& m, SimRun& out, sim::LaunchConfig cfg, const SimSettings& s) {
  cfg.budget = s.budget;
  cfg.workers = s.workers;
  cfg.diagnostics = s.diagnostics;
  cfg.observer = out.launches == 0 ? s.observer : nullptr;
  cfg.thread_stats = out.launches == 0;
  sim::LaunchResult r = sim::launch(m, out.kernel, cfg);
  out.seconds += r.seconds;
  out.cpu_seconds += r.cpu_seconds;
  const bool ok = r.ok;
  if (!ok) out.failure = r.failure.message;
  if (out.launches == 0) {
    out.config = cfg;
    out.result = std::move(r);
  }
  ++out.launches;
  return ok;
}

void start(SimRun& out, const std::string& kernel, Dim2 grid, Dim2 block) {
  out.kernel = kernel;
  out.grid = grid;
  out.block = block;
}

}  // namespace

SimRun sim_heat(const sim::Module& m, const std::string& kernel, const heat::Params& p,
                const std::vector<float>& initial, int steps, Dim2 block, std::optional<Dim2> grid,
                const SimSettings& s) {
  if (auto e = heat::validate(p)) throw InvalidRequest(*e);
  if (steps < 1) throw InvalidRequest("steps must be at least 1");
  if (initial.size() != static_cast<size_t>(p.cells())) throw InvalidRequest("the initial field has the wrong size");
  SimRun out;
  start(out, kernel, checked_grid(Target::Heat, block, grid, {p.nx, p.ny}), block);
  out.storage = {initial, std::vector<float>(initial.size(), NAN)};
  int cur = 0;
  for (int i = 0; i < steps; ++i) {
    sim::LaunchConfig cfg;
    cfg.grid = dim3(out.grid);
    cfg.block = dim3(block);
    cfg.buffers = {buffer("in", out.storage[static_cast<size_t>(cur)], false, p.nx),
                   buffer("out", out.storage[static_cast<size_t>(1 - cur)], true, p.nx)};
    cfg.args = {sim::Arg::pointer(0), sim::Arg::pointer(1), sim::Arg::value(static_cast<int>(p.nx)),
                sim::Arg::value(static_cast<int>(p.ny)), sim::Arg::value(p.r()), sim::Arg::value(p.boundary_temp),
                sim::Arg::value(p.boundary == heat::Boundary::Fixed ? 1 : 0)};
    if (!run_launch(m, out, cfg, s)) return out;
    cur = 1 - cur;
  }
  out.ran = true;
  out.output = out.storage[static_cast<size_t>(cur)];
  std::vector<float> ref = initial;
  heat::run_cpu(ref, p, steps, heat::CpuMode::AllThreads);
  record_check(out, heat_check(out.output, ref, steps), " (simulated)");
  return out;
}

SimRun sim_vector(const sim::Module& m, const std::string& kernel, int64_t n, int64_t block,
                  std::optional<int64_t> grid, vector::Op reference, const SimSettings& s) {
  if (n < 1) throw InvalidRequest("n must be at least 1");
  SimRun out;
  start(out, kernel,
        checked_grid(Target::Vector, {block, 1}, grid ? std::optional<Dim2>(Dim2{*grid, 1}) : std::nullopt, {n, 1}),
        {block, 1});
  out.storage = {std::vector<float>(static_cast<size_t>(n)), std::vector<float>(static_cast<size_t>(n)),
                 std::vector<float>(static_cast<size_t>(n), NAN)};
  vector::fill_inputs(out.storage[0].data(), out.storage[1].data(), n);
  sim::LaunchConfig cfg;
  cfg.grid = dim3(out.grid);
  cfg.block = dim3(out.block);
  cfg.buffers = {buffer("a", out.storage[0], false), buffer("b", out.storage[1], false),
                 buffer("c", out.storage[2], true)};
  cfg.args = {sim::Arg::pointer(0), sim::Arg::pointer(1), sim::Arg::pointer(2),
              sim::Arg::value(static_cast<long long>(n))};
  if (!run_launch(m, out, cfg, s)) return out;
  out.ran = true;
  out.output = out.storage[2];
  const vector::Check c = vector::check_result(reference, out.storage[0].data(), out.storage[1].data(),
                                               out.output.data(), n);
  record_check(out, c.max_rel_err, reference == vector::Op::Add ? 0.0 : vector::k_formula_rel_tol, c.passed,
               c.text + (c.passed ? ": pass" : ": FAIL") + " vs the lab's " + vector::to_string(reference) +
                   " (simulated)");
  return out;
}

SimRun sim_matmul(const sim::Module& m, const std::string& kernel, const matmul::Problem& p, Dim2 block,
                  std::optional<Dim2> grid, const SimSettings& s) {
  if (auto e = matmul::validate(p)) throw InvalidRequest(*e);
  SimRun out;
  start(out, kernel, checked_grid(Target::Matmul, block, grid, {p.n, p.m}), block);
  out.storage = {matmul::make_matrix(p.m, p.k, 1), matmul::make_matrix(p.k, p.n, 2),
                 std::vector<float>(p.c_count(), NAN)};
  sim::LaunchConfig cfg;
  cfg.grid = dim3(out.grid);
  cfg.block = dim3(block);
  cfg.buffers = {buffer("A", out.storage[0], false, p.k), buffer("B", out.storage[1], false, p.n),
                 buffer("C", out.storage[2], true, p.n)};
  cfg.args = {sim::Arg::pointer(0), sim::Arg::pointer(1), sim::Arg::pointer(2), sim::Arg::value(static_cast<int>(p.m)),
              sim::Arg::value(static_cast<int>(p.n)), sim::Arg::value(static_cast<int>(p.k))};
  if (!run_launch(m, out, cfg, s)) return out;
  out.ran = true;
  out.output = out.storage[2];
  const matmul::CheckResult cr = matmul::check_result(out.output, matmul::reference_cpu(out.storage[0], out.storage[1], p),
                                                      p.k, "float64 CPU (OpenBLAS dgemm)");
  record_check(out, cr.rel_error, cr.tolerance, cr.pass, cr.summary() + " (simulated)");
  return out;
}

}  // namespace bs::kernel
