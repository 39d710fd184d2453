// reduce_anatomy.cpp: see reduce_anatomy.h.
#include "app/reduce/reduce_anatomy.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/anatomy/anatomy_cli.h"
#include "app/bench.h"
#include "core/error.h"
#include "core/text.h"
#include "gpu/reduce/reduce_anatomy.h"

namespace bs {

bool ReduceAnatomyTarget::operator==(const ReduceAnatomyTarget& o) const {
  const reduce::Params &p = params, &q = o.params;
  return p.n == q.n && p.op == q.op && p.type == q.type && p.reduce_variant == q.reduce_variant &&
         p.scan_variant == q.scan_variant && p.scan_kind == q.scan_kind && p.block == q.block;
}

std::optional<anatomy::ArrayLaunch> ReduceAnatomyTarget::array_launch(const DeviceInfo& device) const {
  if (!anatomy::is_instrumented_reduce(params) || reduce::validate(params)) return std::nullopt;
  if (device.available && device.sm_count > 0)
    return anatomy::reduce_launch_shape(params, device.sm_count, device.max_threads_per_sm,
                                        device.max_blocks_per_sm,
                                        static_cast<int64_t>(device.smem_per_block_optin));
  return anatomy::reduce_launch_shape_model(params);
}

std::string ReduceAnatomyTarget::no_launch_reason() const {
  return "cub picks its own kernels and launches: there is no launch to map";
}

AnatomyRecord ReduceAnatomyTarget::record() const {
  const anatomy::ReduceRecord r = anatomy::record_reduce_blocks(params);
  return to_anatomy_record(
      r, "instrumented " + reduce::describe(r.params) + " on " + r.device_name,
      "SM / time colours: instrumented copy of " + r.shape.kernel +
          " (same code), the launch over the input - instrumented run: not used for timing",
      r.shape);
}

void ReduceAnatomyTarget::describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery& q) const {
  const anatomy::ArrayLaunch s =
      q.array_launch ? *q.array_launch : anatomy::ArrayLaunch{.note = "cub picks its own kernels"};
  o.kernel = std::string(params.op == reduce::Op::Reduce ? "reduce " : "scan ") + reduce::variant_name(params);
  if (s.known) o.kernel += " (" + s.kernel + ", block " + std::to_string(params.block) + ")";
  o.threads = params.block;
  o.static_smem = s.static_smem;
  o.dynamic_smem = s.dynamic_smem;
  o.can_sweep = q.gpu && s.known;
  o.sweep_unavailable = s.known ? "needs a GPU" : "CUB: no block size to choose";
  if (!s.known) o.kernel += " (the library picks its kernels: no launch shape)";
}

bool ReduceAnatomyTarget::measure_occupancy(ui::OccupancyPanelModel& o, const anatomy::ArchSpec& arch,
                                            const OccupancyQuery& q) const {
  if (!q.array_launch) return false;
  const anatomy::DeviceOccupancy d = anatomy::reduce_device_occupancy(params);
  o.regs_per_thread = d.attrs.regs_per_thread;
  o.static_smem = d.attrs.static_smem;
  o.measured_regs = true;
  o.runtime_blocks_per_sm = d.runtime_blocks_per_sm;
  // The lab's block sizes (powers of two the variant takes), each with its own shared memory.
  for (int t = reduce::k_min_block; t <= reduce::k_max_block; t *= 2) {
    reduce::Params p = params;
    p.block = t;
    if (reduce::validate(p)) continue;
    const anatomy::DeviceOccupancy dq = anatomy::reduce_device_occupancy(p);
    o.runtime_threads.push_back(t);
    o.runtime_occupancy.push_back(100.0 * dq.runtime_blocks_per_sm * ((t + arch.warp_size - 1) / arch.warp_size) /
                                  arch.max_warps_per_sm);
  }
  o.source = "GPU: " + q.device.name +
             " (the lab's own kernel: cudaFuncGetAttributes, "
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor with the launch's dynamic shared memory)";
  return true;
}

void ReduceAnatomyTarget::adjust_model_curve(ui::OccupancyPanelModel& o, const anatomy::ArchSpec& arch,
                                             const OccupancyQuery& q) const {
  if (!q.array_launch) return;
  // The reduce kernels' shared memory follows the block (one value per thread, the tile scans' buffer): the
  // curve takes each block size the variant allows with its own, not this block's.
  o.curve_threads.clear();
  o.curve_occupancy.clear();
  for (int t = reduce::k_min_block; t <= reduce::k_max_block; t *= 2) {
    reduce::Params p = params;
    p.block = t;
    if (reduce::validate(p)) continue;
    const std::optional<anatomy::ArrayLaunch> s = ReduceAnatomyTarget(p).array_launch(q.gpu ? q.device : DeviceInfo{});
    if (!s) continue;
    anatomy::KernelUsage u;
    u.threads_per_block = t;
    u.regs_per_thread = std::clamp(o.regs_per_thread, 0, arch.max_regs_per_thread);
    u.static_smem = s->static_smem;
    u.dynamic_smem = s->dynamic_smem;
    try {
      const anatomy::Occupancy occ = anatomy::compute_occupancy(arch, u);
      o.curve_threads.push_back(t);
      o.curve_occupancy.push_back(100.0 * occ.occupancy);
    } catch (const InvalidRequest&) {
      // Beyond this architecture's limits: no point.
    }
  }
}

BlockSizeTimes ReduceAnatomyTarget::measure_block_sizes(JobControl& ctl) const {
  std::vector<int> sizes;
  for (int b = reduce::k_min_block; b <= reduce::k_max_block; b *= 2) {
    reduce::Params p = params;
    p.block = b;
    if (!reduce::validate(p)) sizes.push_back(b);
  }
  reduce::GpuRunner runner;
  return time_block_sizes(ctl, reduce::describe(params) + ": ms per run against threads per block", sizes,
                          [&](size_t i) {
                            reduce::Params p = params;
                            p.block = sizes[i];
                            return runner.run(p, 5, false).ms.median;
                          });
}

namespace cli {

namespace {

struct AnatomyReduceOptions {
  reduce::Op op = reduce::Op::Reduce;
  std::string n = "16M";
  std::string variant;  // empty: the lab's default of the op
  std::string type = "float";
  int block = reduce::k_default_block;
  std::string scan_kind = "inclusive";
  std::string out;
};

// The options as the lab's parameters; nullopt after a message (exit code 2).
std::optional<reduce::Params> read_params(const AnatomyReduceOptions& o, BenchContext& ctx) {
  const auto refuse = [&](const std::string& msg) -> std::optional<reduce::Params> {
    anatomy_fail(ctx, msg, 2);
    return std::nullopt;
  };
  reduce::Params p;
  p.op = o.op;
  const reduce::ParsedCount n = reduce::parse_count(o.n, "--n");
  if (!n.value) return refuse(n.error);
  p.n = *n.value;
  const auto type = reduce::k_type_names.parse(o.type);
  if (!type) return refuse("--type: '" + printable(o.type) + "' is not " + reduce::k_type_names.list(", ", " or "));
  p.type = *type;
  const auto kind = reduce::k_scan_kind_names.parse(o.scan_kind);
  if (!kind)
    return refuse("--scan-kind: '" + printable(o.scan_kind) + "' is not " +
                  reduce::k_scan_kind_names.list(", ", " or "));
  p.scan_kind = *kind;
  p.block = o.block;
  if (!o.variant.empty()) {
    if (p.op == reduce::Op::Reduce) {
      const auto v = reduce::k_reduce_variant_names.parse(o.variant);
      if (!v)
        return refuse("--variant: '" + printable(o.variant) + "' is not a reduction (" +
                      reduce::k_reduce_variant_names.list(", ") + ")");
      p.reduce_variant = *v;
    } else {
      const auto v = reduce::k_scan_variant_names.parse(o.variant);
      if (!v)
        return refuse("--variant: '" + printable(o.variant) + "' is not a scan (" +
                      reduce::k_scan_variant_names.list(", ") + ")");
      p.scan_variant = *v;
    }
  }
  if (auto err = reduce::validate(p)) return refuse(*err);
  if (!anatomy::is_instrumented_reduce(p))
    return refuse("--variant: cub has no instrumented copy (the library picks its own kernels)");
  if (o.out.empty()) return refuse("--out: give a directory for blocks.csv, timeline.svg/png and the array maps");
  return p;
}

void run_anatomy_reduce(const AnatomyReduceOptions& o, BenchContext& ctx) {
  const std::optional<reduce::Params> params = read_params(o, ctx);
  if (!params) return;
  const reduce::Params& p = *params;
  anatomy_guarded(ctx, [&] {
    const anatomy::ReduceRecord r = anatomy::record_reduce_blocks(p);
    const anatomy::DeviceOccupancy lab = anatomy::reduce_device_occupancy(p);
    std::cout << "Instrumented " << reduce::describe(p)
              << " (a copy of the lab's kernel plus a per-block probe: its barriers and atomics change timing, "
                 "so it is never timed)\n";
    std::cout << "  recorded launch: " << r.shape.kernel << ", " << r.grid.count() << " blocks x " << p.block
              << " threads (" << r.shape.note << ")\n";
    std::cout << "  device: " << r.device_name << ", " << r.sm_count << " SMs (%nsmid " << r.nsmid << ")\n";
    std::cout << "  the lab's kernel: " << lab.attrs.regs_per_thread << " registers/thread, "
              << lab.usage.static_smem << " B static + " << lab.usage.dynamic_smem
              << " B dynamic shared memory; occupancy " << lab.model.blocks_per_sm << " blocks/SM ("
              << pct(lab.model.occupancy) << "), limited by " << anatomy::limiter_label(lab.model.limiter)
              << "; cudaOccupancyMaxActiveBlocksPerMultiprocessor " << lab.runtime_blocks_per_sm
              << (lab.agrees() ? " (the model agrees)" : " (THE MODEL DIFFERS)") << "\n";
    std::cout << "  instrumented copy: " << r.regs_per_thread << " registers/thread, resident blocks per SM "
              << r.runtime_blocks_per_sm << " (model " << r.model.blocks_per_sm << ")\n";
    check_all_recorded(r.appended, r.grid);
    const anatomy::Timeline t = anatomy::build_timeline(r.blocks, r.sm_count, std::max(r.runtime_blocks_per_sm, 1));
    report_and_write(o.out, r.blocks, t, r.sm_count, "Instrumented " + reduce::describe(p) + " on " + r.device_name);
    std::array<uint32_t, 256> ramp{};
    for (uint32_t i = 0; i < 256; ++i)  // dark blue (first) to yellow (last)
      ramp[i] = 0xff000000u | ((255 - i) / 2 << 16) | (i << 8) | i;
    const std::filesystem::path dir(o.out);
    write_array_map_png(dir / "array_map_sm.png",
                        anatomy::make_array_map(anatomy::ArrayMapMode::Sm, r.shape, p.n, r.blocks, ramp));
    write_array_map_png(dir / "array_map_start.png",
                        anatomy::make_array_map(anatomy::ArrayMapMode::StartTime, r.shape, p.n, r.blocks, ramp));
  });
}

}  // namespace

void register_reduce_anatomy(CLI::App& anatomy, BenchContext& ctx) {
  for (const reduce::Op op : {reduce::Op::Reduce, reduce::Op::Scan}) {
    auto ro = std::make_shared<AnatomyReduceOptions>();
    ro->op = op;
    const bool scan = op == reduce::Op::Scan;
    CLI::App* rc = anatomy.add_subcommand(
        scan ? "scan" : "reduce",
        std::string("Record an instrumented ") + (scan ? "scan" : "reduction") +
            " kernel's blocks (the launch over the input): CSV, timeline SVG/PNG, waves, array maps");
    rc->add_option("--n", ro->n, "Elements, e.g. 1000, 1M (default 16M)");
    rc->add_option("--variant", ro->variant,
                   scan ? "hillis-steele-block | blelloch-block | scan-then-propagate | decoupled-lookback "
                          "(default)"
                        : "interleaved-divergent | ... | warp-shuffle (default) | atomic-per-block");
    rc->add_option("--type", ro->type, "float (default) | int");
    rc->add_option("--block", ro->block, "Threads per block (default 256)");
    if (scan) rc->add_option("--scan-kind", ro->scan_kind, "inclusive (default) | exclusive");
    rc->add_option("--out", ro->out, "Directory for blocks.csv, timeline.svg/png, array_map_*.png")->required();
    rc->callback([ro, &ctx] { run_anatomy_reduce(*ro, ctx); });
  }
}

}  // namespace cli

}  // namespace bs
