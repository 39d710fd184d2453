// lab_runs.cu: see lab_runs.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu/common/cuda_check.h"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/common/nvtx_range.h"
#include "gpu/kernel/lab_runs.h"

#include "gpu/kernel/lab_checks.h"

namespace bs::kernel {

namespace {

Dim2 checked_grid(Target t, Dim2 block, std::optional<Dim2> grid, Dim2 domain) {
  const Dim2 g = grid ? *grid : default_grid(t, block, domain);
  if (auto e = validate_launch(t, block, g, domain, current_device_limits())) throw InvalidRequest(*e);
  return g;
}

// Runs `body` (which issues the work of one run on `stream`) once checked, `warmup` times untimed and
// `repetitions` times between events; each run waits with the deadline. Returns the milliseconds per run.
template <class Body>
std::vector<double> timed_runs(const LoadedKernel& k, cudaStream_t stream, const RunSettings& s, Body body) {
  Event start, stop;
  const NvtxRange range("kernel/" + k.name() + " timed runs");
  for (int i = 0; i < s.warmup; ++i) {
    body();
    wait_with_deadline(stream, s.timeout_s, k.name());
  }
  std::vector<double> ms;
  for (int i = 0; i < s.repetitions; ++i) {
    BS_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    body();
    BS_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    wait_with_deadline(stream, s.timeout_s, k.name());
    float t = 0;
    BS_CUDA_CHECK(cudaEventElapsedTime(&t, start.get(), stop.get()));
    ms.push_back(t);
  }
  return ms;
}


// After a sticky fault (or a kernel still running past the deadline) freeing would wait for the device or
// fail: the handles are forgotten instead (the recovery's device reset reclaims them) and the fault goes on.
template <class Body, class... Handles>
auto abandon_on_fault(Body body, Handles&... handles) {
  try {
    return body();
  } catch (const GpuError& e) {
    if (e.sticky()) (handles.abandon(), ...);
    throw;
  }
}

}  // namespace

void launch_heat_step(const LoadedKernel& k, Dim2 grid, Dim2 block, const float* in, float* out,
                      const heat::Params& p, void* stream) {
  int nx = static_cast<int>(p.nx), ny = static_cast<int>(p.ny);
  float r = p.r(), bt = p.boundary_temp;
  int fixed = p.boundary == heat::Boundary::Fixed ? 1 : 0;
  void* args[] = {&in, &out, &nx, &ny, &r, &bt, &fixed};
  k.launch(grid, block, args, stream);
}

void launch_vector_op(const LoadedKernel& k, Dim2 grid, Dim2 block, const float* a, const float* b, float* c,
                      int64_t n, void* stream) {
  long long count = n;
  void* args[] = {&a, &b, &c, &count};
  k.launch(grid, block, args, stream);
}

void launch_matmul(const LoadedKernel& k, Dim2 grid, Dim2 block, const float* a, const float* b, float* c,
                   const matmul::Problem& p, void* stream) {
  int m = static_cast<int>(p.m), n = static_cast<int>(p.n), kk = static_cast<int>(p.k);
  void* args[] = {&a, &b, &c, &m, &n, &kk};
  k.launch(grid, block, args, stream);
}

double heat_tolerance(int steps) {
  return std::max(1e-6, 4e-7 * steps);  // lab_checks.cpp's heat_check applies it
}

UserRun run_heat(const LoadedKernel& k, const heat::Params& p, const std::vector<float>& initial, int steps,
                 Dim2 block, std::optional<Dim2> grid, const RunSettings& s) {
  if (auto e = heat::validate(p)) throw InvalidRequest(*e);
  if (steps < 1) throw InvalidRequest("steps must be at least 1");
  if (initial.size() != static_cast<size_t>(p.cells()))
    throw InvalidRequest("the initial field has the wrong size");
  UserRun out;
  out.kernel = k.name();
  out.block = block;
  out.grid = checked_grid(Target::Heat, block, grid, {p.nx, p.ny});
  out.figures = k.figures(block);
  Stream stream;
  DeviceBuffer<float> f0(initial.size()), f1(initial.size());
  return abandon_on_fault(
      [&] {
        auto run = [&] {
          float* in = f0.data();
          float* o = f1.data();
          for (int i = 0; i < steps; ++i) {
            launch_heat_step(k, out.grid, block, in, o, p, stream.get());
            std::swap(in, o);
          }
          return in;  // holds the last step's result
        };
        // The checked run.
        BS_CUDA_CHECK(
            cudaMemcpyAsync(f0.data(), initial.data(), f0.bytes(), cudaMemcpyHostToDevice, stream.get()));
        const float* result = run();
        wait_with_deadline(stream.get(), s.timeout_s, k.name());
        out.output.resize(initial.size());
        BS_CUDA_CHECK(cudaMemcpy(out.output.data(), result, f0.bytes(), cudaMemcpyDeviceToHost));
        std::vector<float> ref = initial;
        heat::run_cpu(ref, p, steps, heat::CpuMode::AllThreads);
        record_check(out, heat_check(out.output, ref, steps));
        const std::vector<double> ms = timed_runs(k, stream.get(), s, [&] { run(); });
        std::vector<double> per_step;
        for (double v : ms)
          per_step.push_back(v / steps);
        out.ms = summarize(per_step);
        out.samples_ms = per_step;
        out.gb_per_s = out.ms.median > 0 ? 8.0 * p.cells() / (out.ms.median * 1e6) : 0;
        return out;
      },
      stream, f0, f1);
}

UserRun run_vector(const LoadedKernel& k, int64_t n, int64_t block, std::optional<int64_t> grid,
                   vector::Op reference, const RunSettings& s) {
  if (n < 1) throw InvalidRequest("n must be at least 1");
  UserRun out;
  out.kernel = k.name();
  out.block = {block, 1};
  out.grid = checked_grid(Target::Vector, out.block,
                          grid ? std::optional<Dim2>(Dim2{*grid, 1}) : std::nullopt, {n, 1});
  out.figures = k.figures(out.block);
  std::vector<float> a(n), b(n);
  vector::fill_inputs(a.data(), b.data(), n);
  Stream stream;
  DeviceBuffer<float> da(n), db(n), dc(n);
  return abandon_on_fault(
      [&] {
        BS_CUDA_CHECK(cudaMemcpy(da.data(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
        BS_CUDA_CHECK(cudaMemcpy(db.data(), b.data(), db.bytes(), cudaMemcpyHostToDevice));
        BS_CUDA_CHECK(
            cudaMemset(dc.data(), 0xff, dc.bytes()));  // NaN: an element never written fails the check
        auto run = [&] {
          launch_vector_op(k, out.grid, out.block, da.data(), db.data(), dc.data(), n, stream.get());
        };
        run();
        wait_with_deadline(stream.get(), s.timeout_s, k.name());
        out.output.resize(n);
        BS_CUDA_CHECK(cudaMemcpy(out.output.data(), dc.data(), dc.bytes(), cudaMemcpyDeviceToHost));
        const vector::Check c = vector::check_result(reference, a.data(), b.data(), out.output.data(), n);
        const double tol = reference == vector::Op::Add ? 0.0 : vector::k_formula_rel_tol;
        record_check(out, c.max_rel_err, tol, c.passed,
                     c.text + (c.passed ? ": pass" : ": FAIL") + " vs the lab's " + vector::to_string(reference));
        out.samples_ms = timed_runs(k, stream.get(), s, run);
        out.ms = summarize(out.samples_ms);
        out.gb_per_s =
            out.ms.median > 0 ? double(vector::k_bytes_per_element) * n / (out.ms.median * 1e6) : 0;
        return out;
      },
      stream, da, db, dc);
}

UserRun run_matmul(const LoadedKernel& k, const matmul::Problem& p, Dim2 block, std::optional<Dim2> grid,
                   const RunSettings& s) {
  if (auto e = matmul::validate(p)) throw InvalidRequest(*e);
  // Checked before anything is allocated.
  (void)checked_grid(Target::Matmul, block, grid, {p.n, p.m});
  const std::vector<float> a = matmul::make_matrix(p.m, p.k, 1), b = matmul::make_matrix(p.k, p.n, 2);
  Stream stream;
  DeviceBuffer<float> da(a.size()), db(b.size()), dc(p.c_count());
  return abandon_on_fault(
      [&] {
        BS_CUDA_CHECK(cudaMemcpy(da.data(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
        BS_CUDA_CHECK(cudaMemcpy(db.data(), b.data(), db.bytes(), cudaMemcpyHostToDevice));
        return run_matmul_on(k, p, block, grid, da.data(), db.data(), dc.data(), stream.get(),
                             matmul::reference_cpu(a, b, p), "float64 CPU (OpenBLAS dgemm)", s);
      },
      stream, da, db, dc);
}

UserRun run_matmul_on(const LoadedKernel& k, const matmul::Problem& p, Dim2 block, std::optional<Dim2> grid,
                      const float* a, const float* b, float* c, void* stream_handle,
                      const std::vector<double>& reference, const std::string& reference_label,
                      const RunSettings& s) {
  if (auto e = matmul::validate(p)) throw InvalidRequest(*e);
  UserRun out;
  out.kernel = k.name();
  out.block = block;
  out.grid = checked_grid(Target::Matmul, block, grid, {p.n, p.m});
  out.figures = k.figures(block);
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const size_t c_bytes = static_cast<size_t>(p.c_count()) * sizeof(float);
  // NaN: cells never written fail the check.
  BS_CUDA_CHECK(cudaMemsetAsync(c, 0xff, c_bytes, stream));
  auto run = [&] { launch_matmul(k, out.grid, block, a, b, c, p, stream); };
  run();
  wait_with_deadline(stream, s.timeout_s, k.name());
  out.output.resize(p.c_count());
  BS_CUDA_CHECK(cudaMemcpyAsync(out.output.data(), c, c_bytes, cudaMemcpyDeviceToHost, stream));
  BS_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (reference.size() == static_cast<size_t>(p.c_count())) {
    const matmul::CheckResult cr = matmul::check_result(out.output, reference, p.k, reference_label);
    record_check(out, cr.rel_error, cr.tolerance, cr.pass, cr.summary());
    out.matmul_check = cr;
  } else {
    out.passed = false;
    out.error = NAN;
    out.check = "not checked: no float64 reference at this size (" + reference_label + ")";
  }
  out.samples_ms = timed_runs(k, stream, s, run);
  out.ms = summarize(out.samples_ms);
  out.gflops = out.ms.median > 0 ? p.flops() / (out.ms.median * 1e6) : 0;
  return out;
}

}  // namespace bs::kernel
