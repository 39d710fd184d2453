// vector_sweep_target.cpp: the vector lab as a sweep target. One GPU call gives the kernel and the whole-run
// series (with copies); CPU samples batch tiny arrays so each lasts at least k_vector_min_sample_ms.
#include "app/vector/vector_sweep_target.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/kernel/user_kernels.h"
#include "app/sweep/target.h"
#include "app/sweep/target_util.h"
#include "core/error.h"
#include "gpu/kernel/lab_runs.h"
#include "gpu/vector/vector.h"
#include "gpu/vector/vector_work.h"
#include "ui/vector/vector_schema.h"

namespace bs::sweep {

namespace {

// size, op, indexing, width, block.x, pinned, streams: names, defaults and help from the vector schema.
const SchemaParams& vector_sweep_params() {
  static const SchemaParams p(ui::vector_schema());
  return p;
}
// A CPU sample lasts at least this long (tiny arrays are timed in batches of calls).
constexpr double k_vector_min_sample_ms = 0.2;
constexpr int64_t k_vector_cpu1_max_n = int64_t{64} << 20;
constexpr const char* k_total_series = "GPU incl. copies";

// kernel = user: the user's vector_op (kernel lab) runs with block.x over size elements, checked against op.
bool user_kernel(const Values& v) {
  const std::string& k = get(v, "kernel");
  if (auto err = check_user_kernel_choice(k, kernel::Target::Vector)) throw InvalidRequest(*err);
  return k == "user";
}

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
  const params::TextValue pv = params::from_text(ui::vector_schema().at("pinned"), pinned, "pinned");
  if (!pv.value) bad("pinned", pinned, "not 0 or 1");
  p.pinned = pv.value->get<bool>();
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
  std::span<const ParamSpec> params() const override { return vector_sweep_params().specs(); }
  const char* unit() const override { return "GB/s"; }
  const char* time_label() const override { return "time per run (ms)"; }
  void validate(const Values& v) const override {
    (void)vector_params(v);
    (void)user_kernel(v);
  }
  double work(const Values& v) const override { return static_cast<double>(vector_params(v).n) + 1e4; }
  std::vector<std::string> gpu_only_params() const override { return vector_sweep_params().gpu_only(); }
  // The kernel's work; "GPU incl. copies" times the PCIe copies too, which no DRAM roof bounds: no point.
  bool has_work_model() const override { return true; }
  std::optional<work::Work> work_model(const Values& v, std::string_view series) const override {
    if (series == k_total_series) return std::nullopt;
    const vector::Params p = vector_params(v);
    return vector::kernel_work(p.op, p.n);
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
    if (s.run_gpu && user_kernel(v)) {
      // The kernel alone on inputs already on the GPU, every repetition a sample (CUDA events).
      const UserKernel uk = active_user_kernels()->current(kernel::Target::Vector);
      kernel::LoadedKernel k(*uk.result);
      if (ctl.cancelled()) throw JobCancelled{};
      kernel::RunSettings rs;
      rs.warmup = s.warmup;
      rs.repetitions = s.repetitions;
      kernel::UserRun u;
      try {
        u = kernel::run_vector(k, p.n, p.block, std::nullopt, p.op, rs);
      } catch (const GpuError& e) {
        if (e.sticky()) k.abandon();  // the app's recovery resets the device
        throw;
      }
      SeriesRun r{"GPU your " + k.name(), true, u.samples_ms, rates(u.samples_ms, gb)};
      out.series.push_back(std::move(r));
      if (!u.passed) out.notes.push_back("your " + k.name() + " at size " + get(v, "size") + ": " + u.check);
    } else if (s.run_gpu) {
      vector::GpuRunner runner;
      SeriesRun kernel{"GPU kernel", true, {}, {}}, total{k_total_series, true, {}, {}};
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
        SeriesRun r{label, false, {}, {}};
        r.time_ms = time_host_batched(s.warmup, s.repetitions, ctl, once, k_vector_min_sample_ms);
        r.throughput = rates(r.time_ms, gb);
        out.series.push_back(std::move(r));
      }
    }
    return out;
  }
};

const VectorTarget k_target;

}  // namespace

const Target& vector_sweep_target() {
  return k_target;
}

}  // namespace bs::sweep
