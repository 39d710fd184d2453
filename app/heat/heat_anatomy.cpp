// heat_anatomy.cpp: see heat_anatomy.h.
#include "app/heat/heat_anatomy.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/anatomy/anatomy_cli.h"
#include "app/bench.h"
#include "core/error.h"
#include "core/launch.h"

namespace bs {

std::optional<anatomy::CellMapping> HeatAnatomyTarget::mapping() const {
  return anatomy::heat_mapping(block, grid, cells_per_thread);
}

AnatomyRecord HeatAnatomyTarget::record() const {
  if (grid != covering_grid(heat::cells_of(block, cells_per_thread), {params.nx, params.ny}))
    throw InvalidRequest("the instrumented run uses the covering grid; set the grid back to automatic");
  anatomy::HeatRecordRequest req;
  req.nx = params.nx;
  req.ny = params.ny;
  req.block = block;
  req.cells_per_thread = cells_per_thread;
  const anatomy::HeatRecord r = anatomy::record_heat_blocks(req);
  return to_anatomy_record(
      r,
      "instrumented heat stencil " + to_string({r.nx, r.ny}) + ", block " + to_string(r.block) + ", " +
          std::to_string(r.cells_per_thread) + " cell(s)/thread on " + r.device_name,
      "SM / time colours: instrumented copy of the heat stencil (same code, " +
          std::to_string(r.cells_per_thread) + " cells/thread) - instrumented run: not used for timing");
}

void HeatAnatomyTarget::describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery& q) const {
  o.kernel = "heat stencil, block " + to_string(block) + ", " + std::to_string(cells_per_thread) +
             (cells_per_thread == 1 ? " cell/thread" : " cells/thread");
  o.threads = static_cast<int>(block.count());
  o.static_smem = 0;
  o.can_sweep = q.gpu;
  o.sweep_unavailable = "needs a GPU";
}

bool HeatAnatomyTarget::measure_occupancy(ui::OccupancyPanelModel& o, const anatomy::ArchSpec& arch,
                                          const OccupancyQuery& q) const {
  const std::string kernel = anatomy::heat_kernel_name(cells_per_thread);
  const anatomy::KernelAttributes ka = anatomy::kernel_attributes(kernel);
  o.regs_per_thread = ka.regs_per_thread;
  o.static_smem = ka.static_smem;
  o.measured_regs = true;
  o.runtime_blocks_per_sm = anatomy::runtime_blocks_per_sm(kernel, o.threads, 0);
  for (int t = 32; t <= std::min(arch.max_threads_per_block, ka.max_threads_per_block); t += 32) {
    const int b = anatomy::runtime_blocks_per_sm(kernel, t, 0);
    o.runtime_threads.push_back(t);
    o.runtime_occupancy.push_back(100.0 * b * ((t + arch.warp_size - 1) / arch.warp_size) /
                                  arch.max_warps_per_sm);
  }
  o.source = "GPU: " + q.device.name +
             " (registers from cudaFuncGetAttributes of this lab's copy of the "
             "stencil; cudaOccupancyMaxActiveBlocksPerMultiprocessor)";
  return true;
}

BlockSizeTimes HeatAnatomyTarget::measure_block_sizes(JobControl& ctl) const {
  // Block shapes 32 x (threads / 32): whole warps along x, as the heat lab's default shapes.
  std::vector<int> sizes = {32};
  for (int s = 64; s <= 1024; s += 64)
    sizes.push_back(s);
  return time_block_sizes(
      ctl,
      "heat stencil, " + std::to_string(cells_per_thread) +
          " cells/thread, blocks 32 x (threads/32): ms per step",
      sizes, [&](size_t i) {
        return heat::bench_gpu(params, Dim2{32, sizes[i] / 32}, 10, 5, cells_per_thread).stencil.ms_per_step;
      });
}

namespace cli {

namespace {

struct AnatomyHeatOptions {
  std::string size = "1024";
  std::string block = "32x8";
  int cells_per_thread = 1;
  std::string out;

  void add_to(CLI::App& heat) {
    heat.add_option("--size", size, "Field size: N (N x N) or NXxNY, 1..8192 (default 1024)");
    heat.add_option("--block", block, "Block shape XxY (default 32x8)");
    heat.add_option("--cells-per-thread", cells_per_thread,
                    "Cells per thread down y: 1, 2, 4, 8 (the heat lab's coarsening; default 1)");
  }
};

void run_anatomy_heat(const AnatomyHeatOptions& o, BenchContext& ctx) {
  // --size N means N x N; NXxNY gives a rectangle.
  const ParsedDim2 size = parse_size2(o.size, "--size");
  if (!size.value) return anatomy_fail(ctx, size.error, 2);
  for (int64_t v : {size.value->x, size.value->y})
    if (v < 1 || v > heat::k_max_size)
      return anatomy_fail(ctx,
                          "--size: " + to_string(*size.value) + " is outside 1x1 .. " +
                              std::to_string(heat::k_max_size) + "x" + std::to_string(heat::k_max_size),
                          2);
  const ParsedDim2 block = parse_dim2(o.block, "--block");
  if (!block.value) return anatomy_fail(ctx, block.error, 2);
  if (auto err = validate_block(*block.value, DeviceLimits{})) return anatomy_fail(ctx, "--block: " + *err, 2);
  if (auto err = heat::validate_cells_per_thread(o.cells_per_thread))
    return anatomy_fail(ctx, "--cells-per-thread: " + *err, 2);
  if (o.out.empty()) return anatomy_fail(ctx, "--out: give a directory for blocks.csv and timeline.svg/png", 2);

  anatomy_guarded(ctx, [&] {
    anatomy::HeatRecordRequest req;
    req.nx = size.value->x;
    req.ny = size.value->y;
    req.block = *block.value;
    req.cells_per_thread = o.cells_per_thread;
    const anatomy::HeatRecord r = anatomy::record_heat_blocks(req);
    std::cout << "Instrumented heat stencil (a variant for anatomy only: its barriers and atomics change "
                 "timing, so "
                 "it is never timed)\n";
    std::cout << "  field " << to_string({r.nx, r.ny}) << ", block " << to_string(r.block) << " ("
              << r.block.count() << " threads), " << r.cells_per_thread << " cell(s)/thread down y, grid "
              << to_string(r.grid) << " = " << r.grid.count() << " blocks\n";
    std::ostringstream title;
    title << "Instrumented heat stencil " << to_string({r.nx, r.ny}) << ", block " << to_string(r.block)
          << ", " << r.cells_per_thread << " cell(s)/thread on " << r.device_name;
    finish_record_command(o.out, r, std::to_string(r.regs_per_thread) + " registers/thread", title.str());
  });
}

}  // namespace

void register_heat_anatomy(CLI::App& anatomy, BenchContext& ctx) {
  add_record_command<AnatomyHeatOptions>(
      anatomy, ctx, "heat",
      "Record the instrumented heat stencil's blocks: DIR/blocks.csv and DIR/timeline.svg, and waves",
      run_anatomy_heat);
}

}  // namespace cli

}  // namespace bs
