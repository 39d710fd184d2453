// reduce_sweep_target.cpp: the reduction and scan lab as a sweep target. A GPU sample is one timed run of
// the variant (reduce::GpuRunner::run: CUDA events around one launch sequence, after its own warm-up); CPU
// samples time reduce_cpu / scan_cpu on one thread and on all threads, batching tiny arrays so that each
// sample lasts at least k_reduce_min_sample_ms. Throughput is GB/s: n x 4 bytes read (reduce), plus n x 4
// written (scan), the bytes reduce::Row counts.
#include "app/reduce/reduce_sweep_target.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/sweep/target.h"
#include "app/sweep/target_util.h"
#include "core/error.h"
#include "gpu/reduce/reduce.h"
#include "gpu/reduce/reduce_work.h"
#include "ui/reduce/reduce_schema.h"

namespace bs::sweep {

namespace {

namespace red = reduce;

// size, op, type, reduce_variant, scan_variant, scan_kind, block.x: names, defaults and help from the schema.
const SchemaParams& reduce_sweep_params() {
  static const SchemaParams p(ui::reduce_schema());
  return p;
}
constexpr double k_reduce_min_sample_ms = 0.2;
constexpr int64_t k_reduce_cpu1_max_n = int64_t{256} << 20;

template <class E, size_t N>
E parse_name(const Values& v, const char* name, const EnumNames<E, N>& names, const char* what) {
  const std::string& text = get(v, name);
  const auto e = names.parse(text);
  if (!e) bad(name, text, std::string("not ") + what + " (" + names.list() + ")");
  return *e;
}

red::Params reduce_params(const Values& v) {
  red::Params p;
  const std::string& size = get(v, "size");
  const red::ParsedCount n = red::parse_count(size, "size");
  if (!n.value) throw InvalidRequest(n.error);
  p.n = *n.value;
  p.op = parse_name(v, "op", red::k_op_names, "an op");
  p.type = parse_name(v, "type", red::k_type_names, "a type");
  p.reduce_variant = parse_name(v, "reduce_variant", red::k_reduce_variant_names, "a reduction variant");
  p.scan_variant = parse_name(v, "scan_variant", red::k_scan_variant_names, "a scan variant");
  p.scan_kind = parse_name(v, "scan_kind", red::k_scan_kind_names, "a scan kind");
  p.block = static_cast<int>(get_int(v, "block.x", red::k_min_block, red::k_max_block));
  if (auto err = red::validate(p)) throw InvalidRequest(*err);
  return p;
}

double bytes_of(const red::Params& p) {
  return static_cast<double>(p.n) * 4.0 * (p.op == red::Op::Scan ? 2.0 : 1.0);
}

// One CPU call on prepared inputs (the output array only for scans).
template <class T>
void cpu_call(const red::Params& p, const std::vector<T>& x, std::vector<T>& out, red::CpuMode mode) {
  if (p.op == red::Op::Reduce) {
    volatile T sink = red::reduce_cpu(std::span<const T>(x), mode);
    (void)sink;
  } else {
    red::scan_cpu(std::span<const T>(x), std::span<T>(out), p.scan_kind, mode);
  }
}

template <class T>
void run_cpu_series(const red::Params& p, const RunSettings& s, JobControl& ctl, PointRun& out) {
  const size_t n = static_cast<size_t>(p.n);
  std::vector<T> x(n), y(p.op == red::Op::Scan ? n : 0);
  red::fill_inputs(x.data(), p.n);
  const double gb = bytes_of(p) / 1e9;
  for (red::CpuMode mode : {red::CpuMode::OneThread, red::CpuMode::AllThreads}) {
    const std::string label = red::cpu_mode_label(mode);
    if (mode == red::CpuMode::OneThread && p.n > k_reduce_cpu1_max_n && !s.cpu_explicit) {
      out.notes.push_back(label + " skipped above 256M elements; sweep with device cpu to run it");
      continue;
    }
    auto once = [&] { cpu_call(p, x, y, mode); };
    SeriesRun r{label, false, {}, {}};
    r.time_ms = time_host_batched(s.warmup, s.repetitions, ctl, once, k_reduce_min_sample_ms);
    r.throughput = rates(r.time_ms, gb);
    out.series.push_back(std::move(r));
  }
}

class ReduceTarget final : public Target {
 public:
  const char* lab() const override { return "reduce"; }
  std::span<const ParamSpec> params() const override { return reduce_sweep_params().specs(); }
  const char* unit() const override { return "GB/s"; }
  const char* time_label() const override { return "time per run (ms)"; }
  void validate(const Values& v) const override { (void)reduce_params(v); }
  double work(const Values& v) const override { return bytes_of(reduce_params(v)) + 4e4; }
  std::vector<std::string> gpu_only_params() const override { return reduce_sweep_params().gpu_only(); }
  bool has_work_model() const override { return true; }
  std::optional<work::Work> work_model(const Values& v, std::string_view) const override {
    const red::Params p = reduce_params(v);
    return red::run_work(p.op, p.n);
  }
  double estimate_s(const Values& v, const RunSettings& s) const override {
    const red::Params p = reduce_params(v);
    const double bytes = bytes_of(p);
    double t = 0;
    // GPU: a run is its own warm-up plus the timed launch; the divergent rungs reach ~50 GB/s on old GPUs.
    if (s.run_gpu)
      t += k_est_setup_s + static_cast<double>(p.n) / 2e8 +
           samples_of(s) * 2 * (bytes / 50e9 + k_est_call_overhead_s);
    if (s.run_cpu) {
      t += static_cast<double>(p.n) / 50e6;  // the inputs
      const double call = std::max(bytes / 1e9, k_reduce_min_sample_ms * 1e-3);
      const int series = p.n > k_reduce_cpu1_max_n && !s.cpu_explicit ? 1 : 2;
      t += series * (samples_of(s) + 1) * (call + k_est_call_overhead_s);
    }
    return t;
  }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    const red::Params p = reduce_params(v);
    PointRun out;
    if (auto err = red::check_host_memory(p, red::available_host_bytes()))
      throw InvalidRequest("size = '" + get(v, "size") + "': " + *err);
    if (s.run_gpu) {
      red::GpuRunner runner;
      const DeviceInfo& d = runner.device();
      if (auto err = red::check_device_memory(p, d.sm_count, d.free_mem, d.total_mem))
        throw InvalidRequest("size = '" + get(v, "size") + "': " + *err);
      SeriesRun r{"GPU " + red::variant_name(p), true, {}, {}};
      r.time_ms =
          collect_samples(s.warmup, s.repetitions, ctl, [&] { return runner.run(p, 1, false).ms.median; });
      r.throughput = rates(r.time_ms, bytes_of(p) / 1e9);
      out.series.push_back(std::move(r));
    }
    if (s.run_cpu) {
      if (p.type == red::ElemType::F32)
        run_cpu_series<float>(p, s, ctl, out);
      else
        run_cpu_series<int32_t>(p, s, ctl, out);
    }
    return out;
  }
};

const ReduceTarget k_target;

}  // namespace

const Target& reduce_sweep_target() {
  return k_target;
}

}  // namespace bs::sweep
