// reduce_bench.cpp: `blockscope bench reduce --n N [--variant NAME|all] [--type float|int] [--block B]
// [--device gpu|cpu|all] [--reps R]` and `blockscope bench scan ... [--scan-kind inclusive|exclusive]`: every
// kernel of the ladder (or one) timed with CUDA events against a copy kernel and CUB in the same run, the CPU
// baselines, and each result checked against the exact reference.
#include "app/reduce/reduce_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/bench.h"
#include "app/param_flags.h"
#include "core/error.h"
#include "gpu/reduce/reduce.h"
#include "ui/reduce/reduce_schema.h"

namespace bs::cli {

namespace {

namespace red = bs::reduce;

struct ReduceBenchArgs {
  red::Op op = red::Op::Reduce;
  std::unique_ptr<ParamFlags> flags;
  std::string variant = "all";
  int reps = 5;
  BenchDevice device = BenchDevice::All;
};

std::string fmt_ms(double ms) {
  const int decimals = ms > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(ms))) + 2, 3, 7) : 3;
  return fmt_fixed(ms, decimals);
}
std::string pct(double v) {
  return v > 0 ? fmt_fixed(v, 1) + "%" : "-";
}

// Sets `out` to the variant `text` names; false, with the choices printed, when `names` has no such variant.
template <class Names, class Variant>
bool pick_variant(const Names& names, const char* what, const std::string& text, Variant& out) {
  const auto v = names.parse(text);
  if (!v) {
    print_error("--variant: '" + printable(text) + "' is not " + what + " (all, " + names.list(", ") + ")", 2);
    return false;
  }
  out = *v;
  return true;
}

int run(ReduceBenchArgs& a) {
  if (auto err = a.flags->read()) return print_error(*err, 2);
  nlohmann::json state = {
      {"n", a.flags->value("n")}, {"type", a.flags->value("type")}, {"block", a.flags->value("block")}};
  if (a.op == red::Op::Scan) state["scan_kind"] = a.flags->value("scan_kind");
  red::Params p = ui::params_from_state(state);
  const std::string n_text = a.flags->value("n").is_string() ? a.flags->value("n").get<std::string>() : "";
  if (!n_text.empty() && !red::parse_count(n_text, "--n").value)
    return print_error(red::parse_count(n_text, "--n").error, 2);
  p.op = a.op;
  const char* verb = a.op == red::Op::Reduce ? "reduce" : "scan";
  red::BenchOptions o;
  o.all_variants = a.variant == "all";
  if (!o.all_variants) {
    const bool known = a.op == red::Op::Reduce
                           ? pick_variant(red::k_reduce_variant_names, "a reduction", a.variant, p.reduce_variant)
                           : pick_variant(red::k_scan_variant_names, "a scan", a.variant, p.scan_variant);
    if (!known) return 2;
  }
  if (a.reps < 1 || a.reps > 1000)
    return print_error("--reps " + std::to_string(a.reps) + ": choose 1 to 1000 repetitions", 2);
  o.params = p;
  o.repetitions = a.reps;
  o.device = a.device == BenchDevice::Gpu   ? red::Device::Gpu
             : a.device == BenchDevice::Cpu ? red::Device::Cpu
                                            : red::Device::All;
  {
    red::Params any = p;
    any.reduce_variant = red::ReduceVariant::Cub;
    any.scan_variant = red::ScanVariant::Cub;
    if (auto err = red::validate(any)) return print_error(std::string("bench ") + verb + ": " + *err, 2);
    if (!o.all_variants)
      if (auto err = red::validate(p)) return print_error(std::string("bench ") + verb + ": " + *err, 2);
    // The whole ladder runs the tree kernels, which the help says need a power of two: refused here, with or
    // without a GPU, rather than rows silently skipped.
    if (o.all_variants && (p.block & (p.block - 1)) != 0)
      return print_error("--block " + std::to_string(p.block) +
                             " is not a power of two: the tree kernels of the ladder halve the active threads "
                             "at every step (use 32, 64, 128, 256, 512 or 1024, or one --variant that takes "
                             "any multiple of 32)",
                         2);
  }
  const DeviceInfo dev = a.device == BenchDevice::Cpu ? DeviceInfo{} : query_device();
  if (a.device == BenchDevice::Gpu && !dev.available)
    return print_error("--device gpu: no CUDA device: " + dev.reason, 1);

  const bool scan = a.op == red::Op::Scan;
  const std::string short_n =
      red::format_count(p.n) == std::to_string(p.n) ? "" : " (" + red::format_count(p.n) + ")";
  const std::string kind = scan ? " " + std::string(red::k_scan_kind_names.name_of(p.scan_kind)) : "";
  std::printf(
      "%s%s, %s, n = %lld%s, %.1f MiB per array; GB/s count %s; %d timed runs after a warm-up, median "
      "(p10-p90); GPU times from CUDA events\n",
      verb, kind.c_str(), std::string(red::k_type_names.name_of(p.type)).c_str(), static_cast<long long>(p.n),
      short_n.c_str(), static_cast<double>(p.n) * 4 / (1 << 20),
      scan ? "8 bytes per element (n read, n written)" : "4 bytes per element (n read)", a.reps);
  if (dev.available)
    std::printf("GPU: %s (%d SMs, compute capability %s)\n", dev.name.c_str(), dev.sm_count,
                dev.compute_capability().c_str());
  const red::BenchResult r = red::run_bench(o);
  if (!r.gpu_skipped_reason.empty()) std::printf("GPU rows skipped: %s\n", r.gpu_skipped_reason.c_str());
  Table t{{"variant", "ms", "p10-p90", "GB/s", "% of copy", "% of CUB", "check", "launch"}, {}};
  bool gpu_failed = false, cpu_failed = false;
  for (const red::Row& row : r.rows) {
    t.rows.push_back(
        {row.variant, fmt_ms(row.ms.median), fmt_ms(row.ms.p10) + "-" + fmt_ms(row.ms.p90),
         fmt_fixed(row.gbs, 1), row.gpu ? pct(row.copy_pct) : "-", row.gpu ? pct(row.cub_pct) : "-",
         (row.check.passed ? "pass: " : "FAIL: ") + row.check.text, row.gpu ? row.plan.text : row.note});
    (row.gpu ? gpu_failed : cpu_failed) |= !row.check.passed;
  }
  if (r.copy.gbs > 0)
    t.rows.push_back({"copy kernel", fmt_ms(r.copy.ms), "", fmt_fixed(r.copy.gbs, 1), "100%", "", "",
                      "float4 grid-stride, n elements read and n written (2 arrays)"});
  t.print(std::cout);
  for (const std::string& s : r.skipped)
    std::printf("skipped: %s\n", s.c_str());
  if (p.type == red::ElemType::F32)
    std::printf(
        "check: float results against an exact (double) reference, relative to the sum of |x|: tolerance "
        "8 sqrt(depth) 2^-24, depth = the longest chain of additions in the variant's order (gpu/reduce/"
        "reduce.h); int results exactly\n");
  else
    std::printf("check: int results exactly against an int64 reference (modulo 2^32)\n");
  if (cpu_failed)
    std::printf(
        "note: a CPU baseline fails the tolerance: one sequential float pass over this many values near 1 "
        "stagnates (once the running sum's float spacing exceeds the values, adding them changes nothing); "
        "the GPU's tree orders do not\n");
  if (gpu_failed) {
    std::printf("CHECK FAILED: a GPU result is outside its tolerance (see 'check')\n");
    return 1;
  }
  return 0;
}

void add_command(CLI::App& bench, BenchContext& ctx, red::Op op) {
  auto args = std::make_shared<ReduceBenchArgs>();
  args->op = op;
  const bool scan = op == red::Op::Scan;
  CLI::App* sub = bench.add_subcommand(scan ? "scan" : "reduce",
                                       scan ? "Prefix sums: Hillis-Steele, Blelloch, scan-then-propagate, "
                                              "decoupled look-back, CUB vs copy and CPU"
                                            : "Sum: the reduction ladder (divergent tree ... warp shuffles, "
                                              "atomics), CUB, copy kernel and CPU");
  std::vector<std::string> names = {"n", "type", "block"};
  if (scan) names.push_back("scan_kind");
  args->flags =
      std::make_unique<ParamFlags>(*sub, ui::reduce_schema(), names, "", ParamFlags::Defaults::Bench);
  sub->add_option("--variant", args->variant,
                  std::string("all (default) or one of ") +
                      (scan ? red::k_scan_variant_names.list(", ") : red::k_reduce_variant_names.list(", ")));
  sub->add_option("--reps", args->reps, "Timed repetitions per variant (after one warm-up run)");
  add_device_option(*sub, args->device);
  sub->callback([args, &ctx] { run_guarded(ctx, [&] { return run(*args); }); });
}

}  // namespace

void register_reduce_bench(CLI::App& bench, BenchContext& ctx) {
  add_command(bench, ctx, red::Op::Reduce);
  add_command(bench, ctx, red::Op::Scan);
}

}  // namespace bs::cli
