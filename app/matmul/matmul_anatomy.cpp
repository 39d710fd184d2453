// matmul_anatomy.cpp: see matmul_anatomy.h.
#include "app/matmul/matmul_anatomy.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <memory>

#include "app/anatomy/anatomy_cli.h"
#include "app/bench.h"
#include "core/error.h"
#include "core/stats.h"
#include "core/text.h"

namespace bs {

namespace mm = matmul;

namespace {
// Shared memory a matmul variant's tiles take, from its geometry (CPU path: no compiler numbers to ask).
int64_t matmul_smem_estimate(mm::Variant v) {
  const mm::TileGeometry g = mm::tile_geometry(v);
  if (!g.known || g.bk == 0) return 0;
  const int pad = g.wm > 0 ? 4 : 0;
  return int64_t{4} * (int64_t{g.bk} * (g.bm + pad) + int64_t{g.bk} * g.bn) * std::max(g.stages, 1);
}
}  // namespace

std::optional<anatomy::CellMapping> MatmulAnatomyTarget::mapping() const {
  return anatomy::matmul_mapping(variant, problem);
}

std::string MatmulAnatomyTarget::no_launch_reason() const {
  return "cuBLAS picks its own kernel: there is no launch shape to draw";
}

AnatomyRecord MatmulAnatomyTarget::record() const {
  anatomy::MatmulRecordRequest req;
  req.m = problem.m;
  req.n = problem.n;
  req.k = problem.k;
  req.variant = mm::info(variant).name;
  const anatomy::MatmulRecord r = anatomy::record_matmul_blocks(req);
  return to_anatomy_record(
      r, "instrumented matmul " + r.variant + " " + mm::to_string(problem) + " on " + r.device_name,
      "SM / time colours: instrumented copy of " + r.variant +
          " (same code) - instrumented run: not used for timing");
}

void MatmulAnatomyTarget::describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery& q) const {
  o.kernel = std::string("matmul ") + mm::info(variant).name;
  const mm::LaunchShape s = mm::launch_shape(variant, problem);
  o.threads = static_cast<int>(std::max<int64_t>(s.block.count(), 1));
  o.static_smem = matmul_smem_estimate(variant);
  o.can_sweep = q.gpu;
  o.sweep_unavailable = "needs a GPU";
  if (variant == mm::Variant::Cublas) {
    o.kernel += " (the library picks its kernel: no launch shape)";
    o.can_sweep = false;
    o.sweep_unavailable = "cuBLAS: no block size to choose";
  }
}

bool MatmulAnatomyTarget::measure_occupancy(ui::OccupancyPanelModel& o, const anatomy::ArchSpec&,
                                            const OccupancyQuery& q) const {
  if (variant == mm::Variant::Cublas) return false;
  std::optional<mm::KernelAttributes> attr;
  try {
    // A small runner whose K and N share the lab's divisibility by 4, so it picks the same (float4 or
    // scalar) kernel flavour as the lab's runner.
    mm::GpuRunner probe(mm::Problem{64, problem.n % 4 == 0 ? 64 : 65, problem.k % 4 == 0 ? 64 : 65});
    attr = probe.attributes(variant);
  } catch (const InvalidRequest&) {
  }
  if (!attr || !attr->known) return false;
  o.regs_per_thread = attr->regs_per_thread;
  o.static_smem = static_cast<int64_t>(attr->static_smem_bytes);
  o.measured_regs = true;
  o.runtime_blocks_per_sm = attr->blocks_per_sm;
  o.source = "GPU: " + q.device.name +
             " (the variant's own kernel: cudaFuncGetAttributes, "
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor). Its block size is compiled in: the curve is "
             "the model's what-if";
  return true;
}

BlockSizeTimes MatmulAnatomyTarget::measure_block_sizes(JobControl& ctl) const {
  // Matmul kernels compile their block size in: the shared-memory tile kernels are the same algorithm at 64,
  // 256 and 1024 threads.
  mm::GpuRunner runner(problem);
  runner.set_inputs(mm::make_matrix(problem.m, problem.k, 1), mm::make_matrix(problem.k, problem.n, 2));
  const mm::Variant vs[] = {mm::Variant::SmemTile8, mm::Variant::SmemTile16, mm::Variant::SmemTile32};
  std::vector<int> threads;
  for (const mm::Variant v : vs)
    threads.push_back(mm::tile_geometry(v).bm * mm::tile_geometry(v).bm);
  return time_block_sizes(ctl, "matmul smem_tile8 / 16 / 32 (T x T threads): ms per launch", threads,
                          [&](size_t i) { return summarize(runner.time_runs(vs[i], 2, 5)).median; });
}

namespace cli {

namespace {

struct AnatomyMatmulOptions {
  std::string size = "1024";
  int64_t m = 0, n = 0, k = 0;  // 0: from --size
  std::string variant = "smem_tile32";
  std::string out;

  void add_to(CLI::App& mmc) {
    mmc.add_option("--size", size, "M = N = K (default 1024)");
    mmc.add_option("--m", m, "Rows of C (overrides --size)");
    mmc.add_option("--n", n, "Columns of C (overrides --size)");
    mmc.add_option("--k", k, "Inner dimension (overrides --size)");
    mmc.add_option("--variant", variant,
                   "naive_uncoalesced | naive_coalesced | smem_tile8 | smem_tile16 | smem_tile32 (default)");
  }
};

void run_anatomy_matmul(const AnatomyMatmulOptions& o, BenchContext& ctx) {
  // --size is one whole number (M = N = K); "12abc" or "1e3" is refused, not read as 12 or 1.
  int64_t s = 0;
  const auto [ptr, ec] = std::from_chars(o.size.data(), o.size.data() + o.size.size(), s);
  if (o.size.empty() || ec != std::errc() || ptr != o.size.data() + o.size.size())
    return anatomy_fail(ctx, "--size: '" + printable(o.size) + "' is not a whole number (M = N = K)", 2);
  mm::Problem p{s, s, s};
  if (o.m) p.m = o.m;
  if (o.n) p.n = o.n;
  if (o.k) p.k = o.k;
  if (auto err = mm::validate(p)) return anatomy_fail(ctx, "--size/--m/--n/--k: " + *err, 2);
  if (!anatomy::is_instrumented_matmul_variant(o.variant)) {
    std::string names;
    for (const auto& v : anatomy::instrumented_matmul_variants())
      names += (names.empty() ? "" : ", ") + v;
    return anatomy_fail(
        ctx, "--variant: '" + printable(o.variant) + "' has no instrumented copy (instrumented: " + names + ")",
        2);
  }
  if (o.out.empty()) return anatomy_fail(ctx, "--out: give a directory for blocks.csv and timeline.svg/png", 2);
  anatomy_guarded(ctx, [&] {
    anatomy::MatmulRecordRequest req;
    req.m = p.m;
    req.n = p.n;
    req.k = p.k;
    req.variant = o.variant;
    const anatomy::MatmulRecord r = anatomy::record_matmul_blocks(req);
    std::cout << "Instrumented matmul " << r.variant
              << " (a copy of the lab's kernel plus a per-block probe: its barriers and atomics change "
                 "timing, so it is never timed)\n";
    std::cout << "  C = A x B, " << mm::to_string(p) << ", block " << to_string(r.block) << " ("
              << r.block.count() << " threads), grid " << to_string(r.grid) << " = " << r.grid.count()
              << " blocks (one block per tile of C)\n";
    finish_record_command(o.out, r,
                          std::to_string(r.regs_per_thread) + " registers/thread, " +
                              std::to_string(r.static_smem) + " B shared memory",
                          "Instrumented matmul " + r.variant + " " + mm::to_string(p) + " on " + r.device_name);
  });
}

}  // namespace

void register_matmul_anatomy(CLI::App& anatomy, BenchContext& ctx) {
  add_record_command<AnatomyMatmulOptions>(
      anatomy, ctx, "matmul",
      "Record an instrumented matmul kernel's blocks (one per tile of C): CSV, timeline SVG/PNG, waves",
      run_anatomy_matmul);
}

}  // namespace cli

}  // namespace bs
