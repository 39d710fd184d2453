// matmul_sweep_target.cpp: the matmul lab as a sweep target. A point times the named variant or a
// representative set through the lab's GpuRunner (CUDA events) and CPU baselines (host clock), with guards on
// slow CPU loops.
#include "app/matmul/matmul_sweep_target.h"

#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "app/sweep/target.h"
#include "app/sweep/target_util.h"
#include "core/error.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_work.h"
#include "ui/matmul/matmul_schema.h"

namespace bs::sweep {

namespace {

// size, m, n, k, variant: names, examples and help from the matmul schema. Two differences, the sweep's own:
// m, n and k start unset (they follow size), and variant starts unset (a representative set of GPU kernels
// and CPU baselines) and takes CPU baselines too.
struct MatmulParams {
  SchemaParams schema{ui::matmul_schema()};
  std::vector<ParamSpec> specs;
  MatmulParams() {
    for (const ParamSpec& p : schema.specs()) {
      ParamSpec q = p;
      const std::string name = p.name;
      if (name == "m" || name == "n" || name == "k") {
        q.default_value = "";
        q.help = name == "m"   ? "rows of A and C (default: size)"
                 : name == "n" ? "columns of B and C (default: size)"
                               : "columns of A, rows of B (default: size)";
      } else if (name == "variant") {
        q.default_value = "";
        q.help = "one kernel or CPU baseline (default: a representative set)";
      }
      specs.push_back(q);
    }
  }
};
const MatmulParams& matmul_params() {
  static const MatmulParams p;
  return p;
}

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
  std::span<const ParamSpec> params() const override { return matmul_params().specs; }
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
  // Every variant, GPU or CPU, multiplies the same matrices once per sample.
  bool has_work_model() const override { return true; }
  std::optional<work::Work> work_model(const Values& v, std::string_view) const override {
    return matmul::run_work(matmul_problem(v));
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

const MatmulTarget k_target;

}  // namespace

const Target& matmul_sweep_target() {
  return k_target;
}

}  // namespace bs::sweep
