// anatomy_cli.cpp: `blockscope occupancy --arch sm_90|...|device [--threads N] [--regs R] [--smem B] [--curve]
// [--kernel NAME]`, and the `blockscope anatomy` command whose subcommands the labs add (each descriptor's
// register_anatomy: `anatomy heat`, `anatomy matmul`, ...), with the helpers they share (anatomy_cli.h).
// Bad input prints "blockscope: <message naming the argument>" to stderr and sets exit code 2; a missing GPU
// or a CUDA failure sets 1. Never exit(), never crash.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/anatomy/anatomy_cli.h"
#include "app/bench.h"
#include "app/labs.h"
#include "core/error.h"
#include "core/launch.h"
#include "core/text.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/occupancy.h"
#include "ui/anatomy/anatomy_panel.h"
#include "ui/gl/context.h"

namespace bs::cli {

void anatomy_fail(BenchContext& ctx, const std::string& msg, int code) {
  ctx.exit_code = print_error(msg, code);
}

std::string pct(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * f);
  return buf;
}

void check_all_recorded(uint32_t appended, Dim2 grid) {
  if (static_cast<int64_t>(appended) != grid.count())
    throw std::runtime_error("the kernel recorded " + std::to_string(appended) + " blocks, expected " +
                             std::to_string(grid.count()));
}

namespace {

void fail(BenchContext& ctx, const std::string& msg, int code) {
  anatomy_fail(ctx, msg, code);
}

template <class F>
void guarded(BenchContext& ctx, F&& body) {
  anatomy_guarded(ctx, std::forward<F>(body));
}

struct OccupancyOptions {
  std::string arch;
  int threads = 256;
  int regs = 32;
  std::string smem = "0";
  std::string static_smem = "0";
  int carveout = -1;
  bool curve = false;
  std::string kernel = anatomy::kernel_names().front();  // the first kernel the anatomy library can query
};

void run_device_occupancy(const OccupancyOptions& o, int64_t dynamic_smem, bool table_inputs_given) {
  if (table_inputs_given)
    std::fprintf(stderr,
                 "blockscope: note: with --arch device, registers and static shared memory come from "
                 "kernel '%s'; --regs/--static-smem are ignored\n",
                 printable(o.kernel).c_str());
  if (o.carveout != -1) throw InvalidRequest("--carveout works with the table model only (--arch sm_XX)");
  const anatomy::KernelAttributes k = anatomy::kernel_attributes(o.kernel);
  std::cout << "kernel '" << k.name << "': " << k.regs_per_thread << " registers/thread, " << k.static_smem
            << " B static shared memory, " << k.local_bytes << " B local memory/thread, at most "
            << k.max_threads_per_block << " threads/block (binary sm_" << k.binary_version << ")\n";
  if (!o.curve) {
    const anatomy::DeviceOccupancy d = anatomy::device_occupancy(o.kernel, o.threads, dynamic_smem);
    std::cout << anatomy::format_occupancy(d.arch, d.usage, d.model);
    std::cout << "  cudaOccupancyMaxActiveBlocksPerMultiprocessor: " << d.runtime_blocks_per_sm
              << " blocks per SM (" << (d.agrees() ? "the model agrees" : "THE MODEL DIFFERS") << ")\n";
    return;
  }
  const anatomy::ArchSpec arch = anatomy::device_arch();
  std::cout << "Occupancy vs block size of '" << k.name << "' on " << arch.name << " (" << arch.family
            << "), " << dynamic_smem << " B dynamic shared memory\n";
  std::printf("%8s %10s %10s %10s  %-14s %s\n", "threads", "model", "runtime", "occupancy", "limited by", "");
  int differ = 0;
  for (int t = 32; t <= std::min(arch.max_threads_per_block, k.max_threads_per_block); t += 32) {
    const anatomy::DeviceOccupancy d = anatomy::device_occupancy(o.kernel, t, dynamic_smem);
    differ += d.agrees() ? 0 : 1;
    std::printf("%8d %10d %10d %10s  %-14s %s\n", t, d.model.blocks_per_sm, d.runtime_blocks_per_sm,
                pct(d.model.occupancy).c_str(), anatomy::limiter_label(d.model.limiter),
                d.agrees() ? "" : "MODEL DIFFERS");
  }
  std::cout << "model = blocks/SM from the occupancy model; runtime = "
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor; "
            << (differ ? std::to_string(differ) + " block sizes differ" : std::string("all agree")) << "\n";
}

void run_occupancy(const OccupancyOptions& o, bool regs_given, bool static_given, bool kernel_given,
                   BenchContext& ctx) {
  const auto dyn = anatomy::parse_bytes(o.smem);
  if (!dyn)
    return fail(ctx, "--smem: '" + printable(o.smem) + "' is not a byte count (e.g. 0, 4096, 48K)", 2);
  const auto stat = anatomy::parse_bytes(o.static_smem);
  if (!stat)
    return fail(
        ctx, "--static-smem: '" + printable(o.static_smem) + "' is not a byte count (e.g. 0, 4096, 48K)", 2);
  if (o.arch == "device") {
    guarded(ctx, [&] { run_device_occupancy(o, *dyn, regs_given || static_given); });
    if (ctx.exit_code == 1)
      std::fprintf(stderr, "blockscope: without a GPU, --arch %s gives the model\n",
                   anatomy::arch_names().c_str());
    return;
  }
  const auto arch = anatomy::find_arch(o.arch);
  if (!arch)
    return fail(ctx,
                "--arch: '" + printable(o.arch) + "' is not one of " + anatomy::arch_names() + ", device", 2);
  if (kernel_given)
    return fail(ctx, "--kernel: needs --arch device; the table model takes --regs and --smem instead", 2);
  anatomy::KernelUsage u;
  u.threads_per_block = o.threads;
  u.regs_per_thread = o.regs;
  u.static_smem = *stat;
  u.dynamic_smem = *dyn;
  u.carveout_percent = o.carveout;
  guarded(ctx, [&] {
    if (o.curve) {
      std::cout << anatomy::format_curve(*arch, u, anatomy::occupancy_curve(*arch, u));
      std::cout << "(a model of the occupancy calculator's rules, not a measurement)\n";
    } else {
      std::cout << anatomy::format_occupancy(*arch, u, anatomy::compute_occupancy(*arch, u));
    }
  });
}

}  // namespace

namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::string err;
  if (!write_text_file(path.string(), text, &err))
    throw std::runtime_error(err);  // atomic, every write checked
}

// The timeline PNG: the same chart function as the Anatomy window, drawn into an offscreen image.
void write_timeline_png(const std::filesystem::path& path, const anatomy::Timeline& t,
                        const std::string& title) {
  std::string err;
  std::unique_ptr<gl::Context> context = gl::create_headless(64, 64, &err);
  if (!context) {
    std::cout << "  timeline.png skipped: no OpenGL context for rendering (" << err << ")\n";
    return;
  }
  if (!ui::export_timeline_png(t, title, path.string(), &err))
    throw std::runtime_error("timeline.png: " + err);
  std::cout << "  wrote " << path.string() << "\n";
}

}  // namespace

void report_and_write(const std::string& out, const std::vector<anatomy::BlockRecord>& blocks,
                      const anatomy::Timeline& t, int sm_count, const std::string& title) {
  std::cout << "  waves predicted: " << t.predicted_waves << " = ceil(" << t.block_count << " blocks / ("
            << sm_count << " SMs x " << t.blocks_per_sm << " resident))\n";
  std::cout << "  waves observed:  " << t.observed_waves << " = max over SMs of ceil(blocks run on that SM / "
            << t.blocks_per_sm << ")\n";
  std::cout << "  blocks per SM: min " << t.min_blocks_on_sm << ", max " << t.max_blocks_on_sm
            << "; idle SMs: " << t.idle_sms << " of " << sm_count << "\n";
  char line[200];
  std::snprintf(
      line, sizeof line,
      "  kernel span %.2f us; median block run time %.2f us; the timer's step appears to be %lld ns\n",
      t.span_ns / 1e3, t.median_block_ns / 1e3, static_cast<long long>(t.timer_tick_ns));
  std::cout << line;
  const std::filesystem::path dir(out);
  std::filesystem::create_directories(dir);
  write_file(dir / "blocks.csv", anatomy::blocks_csv(blocks));
  write_file(dir / "timeline.svg", anatomy::timeline_svg(t, title));
  std::cout << "  wrote " << (dir / "blocks.csv").string() << " (" << blocks.size()
            << " blocks; times in ns from the first block's start) and " << (dir / "timeline.svg").string()
            << "\n";
  write_timeline_png(dir / "timeline.png", t, title);
}

void write_array_map_png(const std::filesystem::path& path, const anatomy::OverlayImage& img) {
  if (img.rgba.empty()) throw std::runtime_error(path.filename().string() + ": " + img.error);
  const int sx = std::clamp(1024 / std::max(img.w, 1), 1, 64);
  const int sy =
      std::clamp(std::max(sx, 256 / std::max(img.h, 1)), 1, std::max(1, 4096 / std::max(img.h, 1)));
  const int w = img.w * sx, h = img.h * sy;
  std::vector<unsigned char> rgba(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint32_t c =
          img.rgba[static_cast<size_t>(y / sy) * static_cast<size_t>(img.w) + static_cast<size_t>(x / sx)];
      if ((c >> 24) == 0) c = 0xff202020u;  // past the end of the array: dark grey
      unsigned char* px =
          &rgba[(static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 4];
      for (int k = 0; k < 4; ++k)
        px[k] = static_cast<unsigned char>(c >> (8 * k));
    }
  std::string err;
  if (!gl::write_png(path.string(), w, h, rgba, &err)) throw std::runtime_error(err);
  std::cout << "  wrote " << path.string() << " (" << img.legend << ")\n";
}

void register_anatomy_commands(CLI::App& app, BenchContext& ctx) {
  auto occ_opt = std::make_shared<OccupancyOptions>();
  CLI::App* occ = app.add_subcommand(
      "occupancy",
      "Occupancy: resident blocks and warps per SM for a block size, and which resource limits them");
  occ->add_option("--arch", occ_opt->arch,
                  "sm_75 | sm_80 | sm_86 | sm_89 | sm_90 (the model) | device (the GPU)")
      ->required();
  occ->add_option("--threads", occ_opt->threads, "Threads per block, 1..1024 (default 256)");
  CLI::Option* regs =
      occ->add_option("--regs", occ_opt->regs, "Registers per thread, 0..255 (default 32; table model)");
  occ->add_option("--smem", occ_opt->smem,
                  "Dynamic shared memory per block in bytes, e.g. 4096 or 48K (default 0)");
  CLI::Option* stat =
      occ->add_option("--static-smem", occ_opt->static_smem, "Static shared memory per block (table model)");
  occ->add_option("--carveout", occ_opt->carveout,
                  "Preferred shared-memory carve-out in percent, 0..100, -1 = default");
  occ->add_flag("--curve", occ_opt->curve, "Print occupancy for block sizes 32..1024 in steps of 32");
  std::string kernels;
  for (const std::string& k : anatomy::kernel_names())
    kernels += (kernels.empty() ? "" : " | ") + k;
  CLI::Option* kernel = occ->add_option(
      "--kernel", occ_opt->kernel, "With --arch device: " + kernels + " (default " + occ_opt->kernel + ")");
  occ->callback([occ_opt, regs, stat, kernel, &ctx] {
    run_occupancy(*occ_opt, regs->count() > 0, stat->count() > 0, kernel->count() > 0, ctx);
  });

  // Each lab adds its own subcommands (its descriptor's register_anatomy); the others are named in the help.
  std::string offered, not_offered;
  for (const LabDescriptor& d : lab_entries()) {
    std::string& list = d.register_anatomy ? offered : not_offered;
    list += (list.empty() ? "" : ", ") + std::string(d.id);
  }
  CLI::App* anat = app.add_subcommand(
      "anatomy", "Kernel anatomy: which SM ran each block, and when (" +
                     (offered.empty() ? std::string("no lab offers an instrumented kernel") : "labs: " + offered) +
                     (not_offered.empty() ? std::string() : "; no instrumented kernel: " + not_offered) + ")");
  anat->require_subcommand(1);
  for (const LabDescriptor& d : lab_entries())
    if (d.register_anatomy) d.register_anatomy(*anat, ctx);
}

}  // namespace bs::cli
