// memory_sweep_target.cpp: the memory lab as a sweep target (see memory_sweep_target.h). Parameters, defaults
// and help come from the memory schema; a GPU sample is one timed launch of the variant (GpuRunner::run, one
// repetition after its own warm-up launch); CPU samples time the CPU version of the same variant where one
// exists (transpose copy / naive / tiled, strided and random reads, AoS and SoA), one thread and all threads.
#include "app/memory/memory_sweep_target.h"

#include <algorithm>
#include <string>
#include <vector>

#include "app/sweep/target.h"
#include "app/sweep/target_util.h"
#include "core/error.h"
#include "gpu/memory/memory.h"
#include "gpu/memory/memory_work.h"
#include "ui/memory/memory_schema.h"

namespace bs::sweep {

namespace {

namespace mem = bs::memory;

// The schema's sweep parameters. The 1-D kernels' threads per block get their own name ("threads") when
// the schema gives them the transpose block's "block.x" too (one name must mean one parameter).
class MemorySweepParams {
 public:
  MemorySweepParams() : m_schema(ui::memory_schema()) {
    for (const ParamSpec& s : m_schema.specs()) {
      ParamSpec q = s;
      const bool taken = std::any_of(m_specs.begin(), m_specs.end(),
                                     [&](const ParamSpec& o) { return std::string(o.name) == s.name; });
      if (taken) q.name = "threads";
      m_specs.push_back(q);
    }
    m_gpu_only = m_schema.gpu_only();
    // The transpose's copy, naive and tiled have CPU versions that the variant picks: for the sweep, the
    // variant changes CPU times too (the padded ones run only on the GPU: value_device says so).
    std::erase(m_gpu_only, std::string("transpose_variant"));
    if (std::count(m_gpu_only.begin(), m_gpu_only.end(), "block.x") > 1) {
      m_gpu_only.erase(std::find(m_gpu_only.rbegin(), m_gpu_only.rend(), "block.x").base() - 1);
      m_gpu_only.push_back("threads");
    }
  }
  std::span<const ParamSpec> specs() const { return m_specs; }
  std::vector<std::string> gpu_only() const { return m_gpu_only; }

 private:
  SchemaParams m_schema;
  std::vector<ParamSpec> m_specs;
  std::vector<std::string> m_gpu_only;
};

const MemorySweepParams& sweep_params() {
  static const MemorySweepParams p;
  return p;
}

template <class Table>
mem::Variant variant_value(const Values& v, const char* name, const Table& t) {
  const std::string& text = get(v, name);
  const auto x = t.parse(text);
  if (!x) bad(name, text, "not one of " + t.list(", ", " or "));
  return *x;
}

mem::Params memory_params(const Values& v) {
  mem::Params p;
  const std::string& k = get(v, "kernel");
  const auto kernel = mem::k_kernel_names.parse(k);
  if (!kernel) bad("kernel", k, "not a kernel (" + mem::k_kernel_names.list() + ")");
  p.kernel = *kernel;
  p.transpose = variant_value(v, "transpose_variant", mem::k_transpose_names);
  p.stride_pattern = variant_value(v, "stride_variant", mem::k_stride_names);
  p.banks = variant_value(v, "banks_variant", mem::k_banks_names);
  p.aos = variant_value(v, "aos_variant", mem::k_aos_names);
  const std::string& size = get(v, "size");
  const params::TextValue sv = params::from_text(ui::memory_schema().at("size"), size, "size");
  if (!sv.value) bad("size", size, sv.error);
  p.cols = (*sv.value)[0].get<int64_t>();  // XxY: cols, then rows
  p.rows = (*sv.value)[1].get<int64_t>();
  const std::string& n = get(v, "n");
  const mem::ParsedCount pn = mem::parse_count(n, "n");
  if (!pn.value) bad("n", n, pn.error);
  p.n = *pn.value;
  p.stride = static_cast<int>(get_int(v, "stride", 1, mem::k_max_stride));
  p.bank_stride = static_cast<int>(get_int(v, "bank_stride", 1, mem::k_max_bank_stride));
  p.block = Dim2{get_int(v, "block.x", 1, 1024), get_int(v, "block.y", 1, 1024)};
  const bool own_threads = std::any_of(sweep_params().specs().begin(), sweep_params().specs().end(),
                                       [](const ParamSpec& s) { return std::string(s.name) == "threads"; });
  if (own_threads) p.threads = static_cast<int>(get_int(v, "threads", 1, 1024));
  if (auto err = mem::validate(p)) throw InvalidRequest(*err);
  return p;
}

// The CPU version of variant v, when there is one.
bool has_cpu(mem::Variant v) {
  const std::vector<mem::Variant> cv = mem::cpu_variants_of(mem::kernel_of(v));
  return std::find(cv.begin(), cv.end(), v) != cv.end();
}

class MemoryTarget final : public Target {
 public:
  const char* lab() const override { return "memory"; }
  std::span<const ParamSpec> params() const override { return sweep_params().specs(); }
  const char* unit() const override { return "GB/s"; }
  const char* time_label() const override { return "time per launch (ms)"; }
  void validate(const Values& v) const override { (void)memory_params(v); }
  double work(const Values& v) const override {
    const mem::Params p = memory_params(v);
    return static_cast<double>(mem::counted_bytes(p, p.variant())) + 1e5;
  }
  std::vector<std::string> gpu_only_params() const override { return sweep_params().gpu_only(); }
  // The GPU and the CPU series run the same variant (transposes and gathers move data without FLOPs).
  bool has_work_model() const override { return true; }
  std::optional<work::Work> work_model(const Values& v, std::string_view) const override {
    const mem::Params p = memory_params(v);
    return mem::run_work(p, p.variant());
  }
  std::optional<Device> value_device(std::string_view param, std::string_view value) const override {
    if (param == "kernel" && value == "banks") return Device::Gpu;
    if (param == "transpose_variant") {
      const auto t = mem::k_transpose_names.parse(value);
      if (t && !has_cpu(*t)) return Device::Gpu;
    }
    return std::nullopt;
  }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const mem::Params p = memory_params(v);
    const mem::Variant var = p.variant();
    const double bytes = static_cast<double>(mem::device_bytes(p, var));
    // Every point pays its setup (allocation, inputs) even when a series is skipped (banks on a machine
    // without a GPU runs nothing but says so).
    double t = k_est_setup_s;
    // GPU: each sample uploads its inputs (2 GB/s, a slow link) and launches twice; CPU: 1 GB/s per call.
    if (s.run_gpu) t += k_est_setup_s + samples_of(s) * (bytes / 2e9 + 2 * k_est_call_overhead_s);
    if (s.run_cpu && has_cpu(var)) t += 2 * (samples_of(s) + 1) * (bytes / 1e9 + k_est_call_overhead_s);
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const mem::Params p = memory_params(v);
    const mem::Variant var = p.variant();
    const double gb = static_cast<double>(mem::counted_bytes(p, var)) / 1e9;
    PointRun out;
    if (s.run_gpu) {
      mem::GpuRunner runner;
      if (auto err = mem::check_device_memory(p, var, runner.device().free_mem))
        throw InvalidRequest(std::string(mem::to_string(var)) + ": " + *err);
      SeriesRun r{"GPU " + std::string(mem::to_string(var)), true, {}, {}};
      r.time_ms = collect_samples(s.warmup, s.repetitions, ctl,
                                  [&] { return runner.run(p, var, 1, false).ms.median; });
      r.throughput = rates(r.time_ms, gb);
      out.series.push_back(std::move(r));
    }
    if (s.run_cpu) {
      if (!has_cpu(var)) {
        out.notes.push_back(std::string(mem::to_string(var)) + " has no CPU version (shared memory)");
        return out;
      }
      if (auto err = mem::check_host_memory(p, var, mem::available_host_bytes()))
        throw InvalidRequest(std::string(mem::to_string(var)) + ": " + *err);
      std::vector<float> in(static_cast<size_t>(mem::input_length(p, var)));
      std::vector<float> res(static_cast<size_t>(mem::output_length(p, var)));
      if (var == mem::Variant::Aos)
        mem::fill_particles_aos(in.data(), p.n, p.seed);
      else if (var == mem::Variant::Soa)
        mem::fill_particles_soa(in.data(), p.n, p.seed);
      else
        mem::fill_floats(in.data(), static_cast<int64_t>(in.size()), p.seed);
      for (mem::CpuMode mode : {mem::CpuMode::OneThread, mem::CpuMode::AllThreads}) {
        auto once = [&] {
          switch (mem::kernel_of(var)) {
            case mem::Kernel::Transpose:
              mem::transpose_cpu(var, in.data(), res.data(), p.rows, p.cols, mode);
              break;
            case mem::Kernel::Stride:
              mem::gather_cpu(var, in.data(), res.data(), p.n, p.stride, p.seed, mode);
              break;
            case mem::Kernel::Aos:
              mem::particles_cpu(var, in.data(), res.data(), p.n, mode);
              break;
            case mem::Kernel::Banks:
              break;
          }
        };
        SeriesRun r{mem::cpu_mode_label(mode), false, {}, {}};
        r.time_ms = time_host(s.warmup, s.repetitions, ctl, once);
        r.throughput = rates(r.time_ms, gb);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

const MemoryTarget k_target;

}  // namespace

const Target& memory_sweep_target() {
  return k_target;
}

}  // namespace bs::sweep
