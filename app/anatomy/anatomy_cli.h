// anatomy_cli.h: what the labs' `blockscope anatomy <lab>` commands share (each lab registers its own through
// its descriptor's register_anatomy): messages and exit codes, and the files an instrumented run writes
// (DIR/blocks.csv, DIR/timeline.svg, DIR/timeline.png and, for array kernels, array map PNGs). Bad input
// prints "blockscope: <message naming the argument>" and sets exit code 2; a missing GPU or a CUDA failure
// sets 1.
#pragma once

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/bench.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/occupancy.h"
#include "gpu/anatomy/overlay.h"

namespace bs::cli {

// Prints `msg` and sets the context's exit code.
void anatomy_fail(BenchContext& ctx, const std::string& msg, int code);

// Runs `body` (which reports its own failures through anatomy_fail()), turning exceptions into messages and
// codes.
template <class F>
void anatomy_guarded(BenchContext& ctx, F&& body) {
  run_guarded(ctx, [&] {
    body();
    return ctx.exit_code;
  });
}

// "12.5%" for 0.125.
std::string pct(double f);

// Throws std::runtime_error unless the kernel appended one record per block of `grid`.
void check_all_recorded(uint32_t appended, Dim2 grid);

// Prints the wave arithmetic and writes blocks.csv, timeline.svg and timeline.png into `out`.
void report_and_write(const std::string& out, const std::vector<anatomy::BlockRecord>& blocks,
                      const anatomy::Timeline& t, int sm_count, const std::string& title);

// The end of a field kernel's record command (heat, matmul): the device and its residency ("  resident
// blocks per SM: R (cudaOccupancyMaxActiveBlocksPerMultiprocessor; model B, limited by L, <usage>)"), the
// check that every block was recorded, then report_and_write. Record: gpu/<lab>/<lab>_anatomy.h's.
template <class Record>
void finish_record_command(const std::string& out, const Record& r, const std::string& usage,
                           const std::string& title) {
  std::cout << "  device: " << r.device_name << ", " << r.sm_count << " SMs (%nsmid " << r.nsmid << ")\n";
  std::cout << "  resident blocks per SM: " << r.runtime_blocks_per_sm
            << " (cudaOccupancyMaxActiveBlocksPerMultiprocessor; model " << r.model.blocks_per_sm
            << ", limited by " << anatomy::limiter_label(r.model.limiter) << ", " << usage << ")\n";
  check_all_recorded(r.appended, r.grid);
  const anatomy::Timeline t = anatomy::build_timeline(r.blocks, r.sm_count, std::max(r.runtime_blocks_per_sm, 1));
  report_and_write(out, r.blocks, t, r.sm_count, title);
}

// Adds `blockscope anatomy <name>` for a field kernel's record command (heat, matmul): the lab's own options
// (Options::add_to(sub)), then the required --out (Options::out) for blocks.csv and the timeline; the command
// calls run(options, ctx).
template <class Options, class Run>
void add_record_command(CLI::App& anatomy, BenchContext& ctx, const std::string& name,
                        const std::string& help, Run run) {
  auto opt = std::make_shared<Options>();
  CLI::App* sub = anatomy.add_subcommand(name, help);
  opt->add_to(*sub);
  sub->add_option("--out", opt->out, "Directory for blocks.csv, timeline.svg and timeline.png")->required();
  sub->callback([opt, &ctx, run] { run(*opt, ctx); });
}

// An array map as a PNG, each texel scaled up to whole pixels (at least 1024 pixels wide where it fits in
// 4096).
void write_array_map_png(const std::filesystem::path& path, const anatomy::OverlayImage& img);

}  // namespace bs::cli
