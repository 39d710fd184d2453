// sweep_targets.cpp: the four labs as sweep targets. Each point is timed through the lab's own host interface
// (GpuSolver, GpuRunner, GpuPricer, the CPU baselines): warm-up runs first, then every repetition is one raw
// sample. GPU samples come from CUDA events inside the labs; CPU samples from the host's steady clock.
#include "app/sweep/sweep_targets.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>

#include "app/sweep/sweep.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "core/launch.h"
#include "gpu/heat/heat.h"
#include "gpu/matmul/matmul.h"
#include "gpu/montecarlo/montecarlo.h"
#include "gpu/vector/vector.h"

namespace bs::sweep {

namespace {

[[noreturn]] void bad(const std::string& name, const std::string& value, const std::string& why) {
  throw InvalidRequest(name + " = '" + value + "': " + why);
}

const std::string& get(const Values& v, const std::string& name) {
  static const std::string empty;
  auto it = v.find(name);
  return it == v.end() ? empty : it->second;
}

// A whole number in [lo, hi]; plain digits, 2^k and K/M/G suffixes accepted.
int64_t get_int(const Values& v, const std::string& name, int64_t lo, int64_t hi) {
  const std::string& s = get(v, name);
  const auto d = numeric_value(s);
  if (!d || *d != std::floor(*d)) bad(name, s, "not a whole number (e.g. 256, 64K, 2^20)");
  if (*d < static_cast<double>(lo) || *d > static_cast<double>(hi))
    bad(name, s, "outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int64_t>(*d);
}

void check_cancel(const JobControl& ctl) {
  if (ctl.cancelled()) throw JobCancelled{};
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// `warmup` untimed calls, then `reps` timed calls of `fn` (host clock), each sample divided by `per_sample`
// (steps per call, or calls per batch).
std::vector<double> time_host(int warmup, int reps, JobControl& ctl, const std::function<void()>& fn,
                              double per_sample = 1.0) {
  return collect_samples(warmup, reps, ctl, [&] {
    const double t0 = now_ms();
    fn();
    return (now_ms() - t0) / per_sample;
  });
}

// Throughput of each sample: `amount` (in the unit's scale) per second.
std::vector<double> rates(const std::vector<double>& ms, double amount) {
  std::vector<double> r;
  for (double t : ms)
    r.push_back(t > 0 ? amount / (t * 1e-3) : 0.0);
  return r;
}

// Conservative rates for the duration estimate taken before a sweep starts (plan_sweep): deliberately slow
// (a laptop GPU, one busy shared core), so the estimate errs long; a sweep above k_confirm_above_s asks
// first.
constexpr double k_est_call_overhead_s = 1e-3;  // per timed or warm-up call: launch, event, host bookkeeping
constexpr double k_est_setup_s = 0.05;          // per point and device: allocation, upload, first touch

double samples_of(const RunSettings& s) {
  return static_cast<double>(s.warmup) + static_cast<double>(s.repetitions);
}

// ------------------------------------------------------------------------------------------------- heat
constexpr ParamSpec k_heat_params[] = {
    {"size", "1024", "256,512,1024,2048,4096", "grid: N (N x N cells) or NXxNY, 1..8192"},
    {"block.x", "32", "8,16,32,64,128", "threads per block in x"},
    {"block.y", "8", "1,2,4,8,16", "threads per block in y (x * y <= 1024)"},
    {"cells", "1", "1,2,4,8", "cells per thread down y: 1, 2, 4, 8"},
    {"steps", "50", "10,50,100", "stencil steps per timed sample (time is reported per step)"},
};
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
  return h;
}

class HeatTarget final : public Target {
 public:
  const char* lab() const override { return "heat"; }
  std::span<const ParamSpec> params() const override { return k_heat_params; }
  const char* unit() const override { return "Mcell/s"; }
  const char* time_label() const override { return "time per step (ms)"; }
  void validate(const Values& v) const override { (void)heat_point(v); }
  double work(const Values& v) const override {
    const HeatPoint h = heat_point(v);
    return static_cast<double>(h.p.cells()) * h.steps;
  }
  std::vector<std::string> gpu_only_params() const override { return {"block.x", "block.y", "cells"}; }
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
      solver.set_launch(h.block, std::nullopt, h.cells);
      solver.upload(initial);
      SeriesRun r{"GPU stencil", true, {}, {}};
      r.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] {
        solver.step(h.steps);
        solver.sync();
        const std::vector<double> ms = solver.poll_step_ms();
        if (ms.empty()) throw std::runtime_error("heat: the GPU solver returned no timing");
        return ms.back();
      });
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

// ----------------------------------------------------------------------------------------------- matmul
constexpr ParamSpec k_matmul_params[] = {
    {"size", "512", "128,256,512,1024,2048", "M = N = K (1..8192)"},
    {"m", "", "256,512,1024", "rows of A and C (default: size)"},
    {"n", "", "256,512,1024", "columns of B and C (default: size)"},
    {"k", "", "256,512,1024", "inner dimension (default: size)"},
    {"variant", "", "naive_coalesced,smem_tile32,warptile_db,cublas,cpu_blocked,cpu_openblas",
     "one kernel or CPU baseline (default: a representative set)"},
};
constexpr const char* k_default_gpu_variants[] = {"naive_coalesced", "smem_tile32", "warptile_db", "cublas"};
constexpr const char* k_default_cpu_variants[] = {"cpu_naive", "cpu_blocked", "cpu_openblas"};
// Sweeps repeat every point: the CPU loops get lower limits than the bench's single run.
constexpr double k_sweep_cpu_naive_max_fmas = 512.0 * 512 * 512;
constexpr double k_sweep_cpu_blocked_max_fmas = 2048.0 * 2048 * 2048;
constexpr double k_sweep_cpu_blas_max_fmas = 4096.0 * 4096 * 4096;
// FLOP/s for the estimate: the naive GPU kernels, every other GPU kernel, and the three CPU variants.
constexpr double k_est_mm_gpu_naive_rate = 50e9, k_est_mm_gpu_rate = 200e9;
constexpr double k_est_mm_cpu_naive_rate = 0.25e9, k_est_mm_cpu_blocked_rate = 1e9,
                 k_est_mm_cpu_blas_rate = 4e9;

double cpu_limit(matmul::CpuVariant cv) {
  return cv == matmul::CpuVariant::Naive     ? k_sweep_cpu_naive_max_fmas
         : cv == matmul::CpuVariant::Blocked ? k_sweep_cpu_blocked_max_fmas
                                             : k_sweep_cpu_blas_max_fmas;
}

// The GPU and CPU variants a point runs: the named one, or the default set.
void matmul_names(const std::string& chosen, std::vector<std::string>& gpu, std::vector<std::string>& cpu) {
  if (!chosen.empty()) {
    (matmul::parse_variant(chosen) ? gpu : cpu).push_back(chosen);
  } else {
    gpu.assign(std::begin(k_default_gpu_variants), std::end(k_default_gpu_variants));
    cpu.assign(std::begin(k_default_cpu_variants), std::end(k_default_cpu_variants));
  }
}

// The CPU guard: too slow to repeat unless the sweep asked for it (device cpu, or the variant named).
bool matmul_cpu_skipped(matmul::CpuVariant cv, const matmul::Problem& p, const std::string& chosen,
                        const RunSettings& s) {
  const bool asked = s.cpu_explicit || (!chosen.empty() && s.named_explicit);
  return p.flops() / 2 > cpu_limit(cv) && !asked;
}

std::string variant_names() {
  std::string s;
  for (const auto& v : matmul::gpu_variants())
    s += (s.empty() ? "" : ", ") + std::string(v.name);
  for (const auto& v : matmul::cpu_variants())
    s += ", " + std::string(v.name);
  return s;
}

matmul::Problem matmul_problem(const Values& v) {
  const int64_t size = get_int(v, "size", matmul::k_min_dim, matmul::k_max_dim);
  matmul::Problem p{size, size, size};
  if (!get(v, "m").empty()) p.m = get_int(v, "m", matmul::k_min_dim, matmul::k_max_dim);
  if (!get(v, "n").empty()) p.n = get_int(v, "n", matmul::k_min_dim, matmul::k_max_dim);
  if (!get(v, "k").empty()) p.k = get_int(v, "k", matmul::k_min_dim, matmul::k_max_dim);
  if (auto err = matmul::validate(p)) throw InvalidRequest("matmul " + matmul::to_string(p) + ": " + *err);
  return p;
}

class MatmulTarget final : public Target {
 public:
  const char* lab() const override { return "matmul"; }
  std::span<const ParamSpec> params() const override { return k_matmul_params; }
  const char* unit() const override { return "GFLOP/s"; }
  const char* time_label() const override { return "time per multiply (ms)"; }
  void validate(const Values& v) const override {
    (void)matmul_problem(v);
    const std::string& name = get(v, "variant");
    if (!name.empty() && !matmul::parse_variant(name) && !matmul::parse_cpu_variant(name))
      bad("variant", name, "not a matmul variant (" + variant_names() + ")");
  }
  double work(const Values& v) const override { return matmul_problem(v).flops(); }
  std::optional<Device> value_device(std::string_view param, std::string_view value) const override {
    if (param != "variant") return std::nullopt;
    if (matmul::parse_variant(value)) return Device::Gpu;
    if (matmul::parse_cpu_variant(value)) return Device::Cpu;
    return std::nullopt;
  }
  std::vector<std::string> cpu_values(std::string_view param) const override {
    if (param != "variant") return {};
    return {std::begin(k_default_cpu_variants), std::end(k_default_cpu_variants)};
  }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const matmul::Problem p = matmul_problem(v);
    const std::string& chosen = get(v, "variant");
    std::vector<std::string> gpu_names, cpu_names;
    matmul_names(chosen, gpu_names, cpu_names);
    const double flops = p.flops();
    double t = static_cast<double>(p.m * p.k + p.k * p.n) / 50e6;  // the inputs
    if (s.run_gpu && !gpu_names.empty()) {
      t += k_est_setup_s;
      for (const std::string& name : gpu_names) {
        const bool naive = name.rfind("naive", 0) == 0;
        t += samples_of(s) *
             (flops / (naive ? k_est_mm_gpu_naive_rate : k_est_mm_gpu_rate) + k_est_call_overhead_s);
      }
    }
    if (s.run_cpu)
      for (const std::string& name : cpu_names) {
        const matmul::CpuVariant cv = *matmul::parse_cpu_variant(name);
        if (matmul_cpu_skipped(cv, p, chosen, s)) continue;
        const double rate = cv == matmul::CpuVariant::Naive     ? k_est_mm_cpu_naive_rate
                            : cv == matmul::CpuVariant::Blocked ? k_est_mm_cpu_blocked_rate
                                                                : k_est_mm_cpu_blas_rate;
        t += samples_of(s) * (flops / rate + k_est_call_overhead_s);
      }
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const matmul::Problem p = matmul_problem(v);
    const std::string& chosen = get(v, "variant");
    std::vector<std::string> gpu_names, cpu_names;
    matmul_names(chosen, gpu_names, cpu_names);
    const double gflop = p.flops() / 1e9;
    PointRun out;
    if (!s.run_gpu && !gpu_names.empty() && !chosen.empty())
      out.notes.push_back(chosen + " skipped: it runs on the GPU");
    if (!s.run_cpu && !cpu_names.empty() && !chosen.empty())
      out.notes.push_back(chosen + " skipped: it runs on the CPU (device gpu)");
    const std::vector<float> a = matmul::make_matrix(p.m, p.k, 1), b = matmul::make_matrix(p.k, p.n, 2);
    if (s.run_gpu && !gpu_names.empty()) {
      matmul::GpuRunner runner(p);
      runner.set_inputs(a, b);
      for (const std::string& name : gpu_names) {
        check_cancel(ctl);
        SeriesRun r{name, true, runner.time_runs(*matmul::parse_variant(name), s.warmup, s.repetitions), {}};
        r.throughput = rates(r.time_ms, gflop);
        out.series.push_back(std::move(r));
      }
    }
    if (s.run_cpu && !cpu_names.empty()) {
      std::vector<float> c(p.c_count());
      for (const std::string& name : cpu_names) {
        const matmul::CpuVariant cv = *matmul::parse_cpu_variant(name);
        if (matmul_cpu_skipped(cv, p, chosen, s)) {
          out.notes.push_back(name + " skipped at " + matmul::to_string(p) +
                              ": too slow to repeat on the CPU; sweep with device cpu to run it");
          continue;
        }
        SeriesRun r{name, false, {}, {}};
        r.time_ms = time_host(s.warmup, s.repetitions, ctl, [&] { matmul::run_cpu(cv, a, b, c, p); });
        r.throughput = rates(r.time_ms, gflop);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

// ------------------------------------------------------------------------------------------- montecarlo
constexpr ParamSpec k_mc_params[] = {
    {"paths", "65536", "4096,16384,65536,262144,1048576", "simulated paths, 1..16777216 (16M)"},
    {"block.x", "256", "64,128,256,512,1024", "GPU threads per block"},
    {"layout", "grid-stride", "grid-stride,one-per-thread", "grid-stride | one-per-thread"},
    {"generator", "philox", "philox,xorwow", "GPU random generator: philox | xorwow"},
    {"steps", "64", "16,64,256", "time steps per path, 1..1024"},
};
// CPU path-steps per sample beyond which the CPU series need device cpu (one thread does ~50-100 M/s).
constexpr double k_mc_cpu1_max_path_steps = 64.0 * 1024 * 1024;
constexpr double k_mc_cpu_all_max_path_steps = 512.0 * 1024 * 1024;
constexpr double k_est_mc_cpu_rate = 20e6;  // path-steps/s for either CPU series, conservatively

struct McPoint {
  montecarlo::Params p;
  montecarlo::Launch launch;
};

McPoint mc_point(const Values& v) {
  McPoint m;
  m.p.paths = get_int(v, "paths", 1, montecarlo::k_max_paths);
  m.p.steps = static_cast<int>(get_int(v, "steps", 1, montecarlo::k_max_steps));
  const std::string& gen = get(v, "generator");
  const auto g = montecarlo::parse_generator(gen);
  if (!g) bad("generator", gen, "not a generator (" + montecarlo::k_generator_names.list() + ")");
  m.p.generator = *g;
  const std::string& layout = get(v, "layout");
  const auto l = montecarlo::k_layout_names.parse(layout);
  if (!l) bad("layout", layout, "not a layout (" + montecarlo::k_layout_names.list() + ")");
  m.launch.layout = *l;
  m.launch.block = static_cast<int>(get_int(v, "block.x", 1, 1024));
  if (auto err = validate_block({m.launch.block, 1}, DeviceLimits{})) bad("block.x", get(v, "block.x"), *err);
  if (auto e = montecarlo::check(m.p)) bad(e->param, get(v, e->param), e->message);
  return m;
}

double mc_path_steps(const montecarlo::Params& p) {
  return static_cast<double>(montecarlo::paths_for_samples(montecarlo::sample_count(p), p.antithetic)) *
         p.steps;
}

class MonteCarloTarget final : public Target {
 public:
  const char* lab() const override { return "montecarlo"; }
  std::span<const ParamSpec> params() const override { return k_mc_params; }
  const char* unit() const override { return "G path-steps/s"; }
  const char* time_label() const override { return "time per run (ms)"; }
  void validate(const Values& v) const override { (void)mc_point(v); }
  double work(const Values& v) const override { return mc_path_steps(mc_point(v).p); }
  std::vector<std::string> gpu_only_params() const override { return {"block.x", "layout", "generator"}; }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const double steps = mc_path_steps(mc_point(v).p);
    double t = 0;
    if (s.run_gpu) t += k_est_setup_s + samples_of(s) * (steps / 5e9 + k_est_call_overhead_s);
    if (s.run_cpu) {
      if (steps <= k_mc_cpu1_max_path_steps || s.cpu_explicit) t += samples_of(s) * steps / k_est_mc_cpu_rate;
      if (steps <= k_mc_cpu_all_max_path_steps || s.cpu_explicit)
        t += samples_of(s) * steps / k_est_mc_cpu_rate;
    }
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const McPoint m = mc_point(v);
    const double gsteps = mc_path_steps(m.p) / 1e9;
    PointRun out;
    if (s.run_gpu) {
      montecarlo::GpuPricer pricer;
      pricer.reset(m.p);
      pricer.set_launch(m.launch);
      SeriesRun r{"GPU", true, {}, {}};
      r.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] { return pricer.run().ms; });
      r.throughput = rates(r.time_ms, gsteps);
      out.series.push_back(std::move(r));
    }
    if (s.run_cpu) {
      for (montecarlo::CpuMode mode : {montecarlo::CpuMode::OneThread, montecarlo::CpuMode::AllThreads}) {
        const double limit =
            mode == montecarlo::CpuMode::OneThread ? k_mc_cpu1_max_path_steps : k_mc_cpu_all_max_path_steps;
        const std::string label = montecarlo::cpu_mode_label(mode);
        if (mc_path_steps(m.p) > limit && !s.cpu_explicit) {
          out.notes.push_back(label + " skipped at paths=" + get(v, "paths") + ", steps=" + get(v, "steps") +
                              ": seconds per run; sweep with device cpu to run it");
          continue;
        }
        SeriesRun r{label, false, {}, {}};
        r.time_ms =
            collect_samples(s.warmup, s.repetitions, ctl, [&] { return montecarlo::run_cpu(m.p, mode).ms; });
        r.throughput = rates(r.time_ms, gsteps);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

// ----------------------------------------------------------------------------------------------- vector
constexpr ParamSpec k_vector_params[] = {
    {"size", "16M", "64K,256K,1M,4M,16M,64M", "elements, 1..512M (K/M/G suffixes)"},
    {"block.x", "256", "64,128,256,512,1024", "threads per block"},
    {"streams", "1", "1,2,4,8", "CUDA streams the run is split over, 1..16"},
    {"width", "float", "float,float4", "loads per thread: float | float4"},
    {"op", "add", "add,formula", "add (c = a + b) | formula"},
    {"pinned", "1", "0,1", "page-locked host memory: 0 | 1"},
    {"indexing", "grid-stride", "one-per-element,grid-stride", "one-per-element | grid-stride"},
};
// A CPU sample lasts at least this long (tiny arrays are timed in batches of calls).
constexpr double k_vector_min_sample_ms = 0.2;
constexpr int64_t k_vector_cpu1_max_n = int64_t{64} << 20;

vector::Params vector_params(const Values& v) {
  vector::Params p;
  const std::string& size = get(v, "size");
  const vector::ParsedCount n = vector::parse_count(size, "size");
  if (!n.value) throw InvalidRequest(n.error);
  p.n = *n.value;
  p.block = static_cast<int>(get_int(v, "block.x", 1, 1024));
  p.streams = static_cast<int>(get_int(v, "streams", 1, vector::k_max_streams));
  const std::string& width = get(v, "width");
  const auto w = vector::k_load_width_names.parse(width);
  if (!w) bad("width", width, "not a load width (" + vector::k_load_width_names.list() + ")");
  p.width = *w;
  const std::string& op = get(v, "op");
  const auto o = vector::parse_op(op);
  if (!o) bad("op", op, "not an operation (" + vector::k_op_names.list() + ")");
  p.op = *o;
  const std::string& pinned = get(v, "pinned");
  if (pinned != "0" && pinned != "1") bad("pinned", pinned, "not 0 or 1");
  p.pinned = pinned == "1";
  const std::string& ix = get(v, "indexing");
  const auto i = vector::k_indexing_names.parse(ix);
  if (!i) bad("indexing", ix, "not an indexing (" + vector::k_indexing_names.list() + ")");
  p.indexing = *i;
  if (auto err = vector::validate(p)) bad("size", size, *err);
  return p;
}

class VectorTarget final : public Target {
 public:
  const char* lab() const override { return "vector"; }
  std::span<const ParamSpec> params() const override { return k_vector_params; }
  const char* unit() const override { return "GB/s"; }
  const char* time_label() const override { return "time per run (ms)"; }
  void validate(const Values& v) const override { (void)vector_params(v); }
  double work(const Values& v) const override { return static_cast<double>(vector_params(v).n) + 1e4; }
  std::vector<std::string> gpu_only_params() const override {
    return {"block.x", "streams", "width", "pinned", "indexing"};
  }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const vector::Params p = vector_params(v);
    const double bytes = static_cast<double>(p.n) * vector::k_bytes_per_element;
    double t = 0;
    // GPU: the copies over PCIe dominate (2 GB/s is a slow link); CPU: memory bound, 1 GB/s per call,
    // each sample at least k_vector_min_sample_ms.
    if (s.run_gpu) t += k_est_setup_s + samples_of(s) * (bytes / 2e9 + k_est_call_overhead_s);
    if (s.run_cpu) {
      t += static_cast<double>(p.n) / 50e6;  // the inputs
      const double call = std::max(bytes / 1e9, k_vector_min_sample_ms * 1e-3);
      const int series = p.n > k_vector_cpu1_max_n && !s.cpu_explicit ? 1 : 2;
      t += series * (samples_of(s) + 1) * (call + k_est_call_overhead_s);
    }
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const vector::Params p = vector_params(v);
    const double gb = static_cast<double>(p.n) * vector::k_bytes_per_element / 1e9;
    PointRun out;
    if (auto err = vector::check_host_memory(p.n, 3, vector::available_host_bytes()))
      throw InvalidRequest("size = '" + get(v, "size") + "': " + *err);
    if (s.run_gpu) {
      vector::GpuRunner runner;
      SeriesRun kernel{"GPU kernel", true, {}, {}}, total{"GPU incl. copies", true, {}, {}};
      // One call gives both series: the kernel alone and the whole run with its copies.
      total.time_ms = collect_samples(s.warmup, s.repetitions, ctl, [&] {
        const vector::RunResult res = runner.run(p, 1, false);
        kernel.time_ms.push_back(res.kernel_ms.median);
        return res.total_ms.median;
      });
      kernel.time_ms.erase(kernel.time_ms.begin(), kernel.time_ms.begin() + s.warmup);
      kernel.throughput = rates(kernel.time_ms, gb);
      total.throughput = rates(total.time_ms, gb);
      out.series.push_back(std::move(kernel));
      out.series.push_back(std::move(total));
    }
    if (s.run_cpu) {
      const size_t n = static_cast<size_t>(p.n);
      std::vector<float> a(n), b(n), c(n);
      vector::fill_inputs(a.data(), b.data(), p.n);
      for (vector::CpuMode mode : {vector::CpuMode::OneThread, vector::CpuMode::AllThreads}) {
        const std::string label = vector::cpu_mode_label(mode);
        if (mode == vector::CpuMode::OneThread && p.n > k_vector_cpu1_max_n && !s.cpu_explicit) {
          out.notes.push_back(label + " skipped above 64M elements; sweep with device cpu to run it");
          continue;
        }
        auto once = [&] { vector::compute_cpu(p.op, a.data(), b.data(), c.data(), p.n, mode); };
        // Calls per sample so that a sample lasts at least k_vector_min_sample_ms.
        const double t0 = now_ms();
        once();
        const double one = std::max(now_ms() - t0, 1e-4);
        const int batch = static_cast<int>(std::clamp(std::ceil(k_vector_min_sample_ms / one), 1.0, 1e5));
        SeriesRun r{label, false, {}, {}};
        r.time_ms = time_host(
            s.warmup, s.repetitions, ctl,
            [&] {
              for (int i = 0; i < batch; ++i)
                once();
            },
            batch);
        r.throughput = rates(r.time_ms, gb);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

const HeatTarget k_heat;
const MatmulTarget k_matmul;
const MonteCarloTarget k_montecarlo;
const VectorTarget k_vector;
const std::array<const Target*, 4> k_targets = {&k_heat, &k_matmul, &k_montecarlo, &k_vector};

}  // namespace

const Target* find_target(std::string_view lab) {
  for (const Target* t : k_targets)
    if (lab == t->lab()) return t;
  return nullptr;
}

std::vector<std::string> lab_names() {
  std::vector<std::string> names;
  for (const Target* t : k_targets)
    names.emplace_back(t->lab());
  return names;
}

std::vector<double> collect_samples(int warmup, int reps, JobControl& ctl,
                                    const std::function<double()>& sample) {
  std::vector<double> kept;
  for (int i = 0; i < warmup + reps; ++i) {
    check_cancel(ctl);
    const double v = sample();
    if (i >= warmup) kept.push_back(v);
  }
  return kept;
}

Values default_values(const Target& t, const std::map<std::string, std::string>& fixed) {
  Values v;
  for (const ParamSpec& p : t.params())
    v[p.name] = p.default_value;
  for (const auto& [k, val] : fixed)
    v[k] = val;
  return v;
}

std::string param_names(const Target& t) {
  std::string s;
  for (const ParamSpec& p : t.params())
    s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

const ParamSpec* find_param(const Target& t, std::string_view name) {
  for (const ParamSpec& p : t.params())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace bs::sweep
