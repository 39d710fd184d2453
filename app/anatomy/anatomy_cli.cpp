// cli_anatomy.cpp: the top-level subcommands of the kernel-anatomy lab:
//   blockscope occupancy --arch sm_90|...|device [--threads N] [--regs R] [--smem B] [--curve] [--kernel
//   NAME] blockscope anatomy heat [--size N] [--block XxY] [--cells-per-thread C] --out DIR
//   blockscope anatomy matmul [--size N | --m M --n N --k K] [--variant V] --out DIR
//   blockscope anatomy reduce|scan [--n N] [--variant V] [--type float|int] [--block B]
//     [--scan-kind inclusive|exclusive] --out DIR   (also DIR/array_map_sm.png and array_map_start.png)
// Both anatomy commands write DIR/blocks.csv, DIR/timeline.svg and DIR/timeline.png (the Anatomy window's
// chart, rendered through a headless GL context; skipped with a note when none can be made).
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

#include "app/bench.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/occupancy.h"
#include "gpu/anatomy/reduce_anatomy.h"
#include "core/error.h"
#include "core/launch.h"
#include "gpu/heat/heat.h"
#include "gpu/matmul/matmul.h"
#include "gpu/reduce/reduce.h"
#include "ui/anatomy/anatomy_panel.h"
#include "ui/gl/context.h"

namespace bs::cli {

void register_anatomy_commands(CLI::App& app, BenchContext& ctx);

namespace {

void fail(BenchContext& ctx, const std::string& msg, int code) {
  ctx.exit_code = print_error(msg, code);
}

// Runs `body` (which reports its own failures through fail()), turning exceptions into messages and codes.
template <class F>
void guarded(BenchContext& ctx, F&& body) {
  run_guarded(ctx, [&] {
    body();
    return ctx.exit_code;
  });
}

struct OccupancyOptions {
  std::string arch;
  int threads = 256;
  int regs = 32;
  std::string smem = "0";
  std::string static_smem = "0";
  int carveout = -1;
  bool curve = false;
  std::string kernel = "heat";
};

std::string pct(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * f);
  return buf;
}

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

struct AnatomyHeatOptions {
  std::string size = "1024";
  std::string block = "32x8";
  int cells_per_thread = 1;
  std::string out;
};

struct AnatomyMatmulOptions {
  std::string size = "1024";
  int64_t m = 0, n = 0, k = 0;  // 0: from --size
  std::string variant = "smem_tile32";
  std::string out;
};

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

// Prints the wave arithmetic and writes blocks.csv, timeline.svg and timeline.png into `dir`.
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

void run_anatomy_matmul(const AnatomyMatmulOptions& o, BenchContext& ctx) {
  // --size is one whole number (M = N = K); "12abc" or "1e3" is refused, not read as 12 or 1.
  int64_t s = 0;
  const auto [ptr, ec] = std::from_chars(o.size.data(), o.size.data() + o.size.size(), s);
  if (o.size.empty() || ec != std::errc() || ptr != o.size.data() + o.size.size())
    return fail(ctx, "--size: '" + printable(o.size) + "' is not a whole number (M = N = K)", 2);
  matmul::Problem p{s, s, s};
  if (o.m) p.m = o.m;
  if (o.n) p.n = o.n;
  if (o.k) p.k = o.k;
  if (auto err = matmul::validate(p)) return fail(ctx, "--size/--m/--n/--k: " + *err, 2);
  if (!anatomy::is_instrumented_matmul_variant(o.variant)) {
    std::string names;
    for (const auto& v : anatomy::instrumented_matmul_variants())
      names += (names.empty() ? "" : ", ") + v;
    return fail(
        ctx,
        "--variant: '" + printable(o.variant) + "' has no instrumented copy (instrumented: " + names + ")",
        2);
  }
  if (o.out.empty()) return fail(ctx, "--out: give a directory for blocks.csv and timeline.svg/png", 2);
  guarded(ctx, [&] {
    anatomy::MatmulRecordRequest req;
    req.m = p.m;
    req.n = p.n;
    req.k = p.k;
    req.variant = o.variant;
    const anatomy::MatmulRecord r = anatomy::record_matmul_blocks(req);
    const int resident = r.runtime_blocks_per_sm;
    std::cout << "Instrumented matmul " << r.variant
              << " (a copy of the lab's kernel plus a per-block probe: its barriers and atomics change "
                 "timing, so it is never timed)\n";
    std::cout << "  C = A x B, " << matmul::to_string(p) << ", block " << to_string(r.block) << " ("
              << r.block.count() << " threads), grid " << to_string(r.grid) << " = " << r.grid.count()
              << " blocks (one block per tile of C)\n";
    std::cout << "  device: " << r.device_name << ", " << r.sm_count << " SMs (%nsmid " << r.nsmid << ")\n";
    std::cout << "  resident blocks per SM: " << resident
              << " (cudaOccupancyMaxActiveBlocksPerMultiprocessor; model " << r.model.blocks_per_sm
              << ", limited by " << anatomy::limiter_label(r.model.limiter) << ", " << r.regs_per_thread
              << " registers/thread, " << r.static_smem << " B shared memory)\n";
    if (static_cast<int64_t>(r.appended) != r.grid.count())
      throw std::runtime_error("the kernel recorded " + std::to_string(r.appended) + " blocks, expected " +
                               std::to_string(r.grid.count()));
    const anatomy::Timeline t = anatomy::build_timeline(r.blocks, r.sm_count, std::max(resident, 1));
    report_and_write(
        o.out, r.blocks, t, r.sm_count,
        "Instrumented matmul " + r.variant + " " + matmul::to_string(p) + " on " + r.device_name);
  });
}

struct AnatomyReduceOptions {
  reduce::Op op = reduce::Op::Reduce;
  std::string n = "16M";
  std::string variant;  // empty: the lab's default of the op
  std::string type = "float";
  int block = reduce::k_default_block;
  std::string scan_kind = "inclusive";
  std::string out;
};

// The array map as a PNG, each texel scaled up to whole pixels (at least 1024 pixels wide where it fits in
// 4096).
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

void run_anatomy_reduce(const AnatomyReduceOptions& o, BenchContext& ctx) {
  reduce::Params p;
  p.op = o.op;
  const reduce::ParsedCount n = reduce::parse_count(o.n, "--n");
  if (!n.value) return fail(ctx, n.error, 2);
  p.n = *n.value;
  const auto type = reduce::k_type_names.parse(o.type);
  if (!type)
    return fail(ctx, "--type: '" + printable(o.type) + "' is not " + reduce::k_type_names.list(", ", " or "),
                2);
  p.type = *type;
  const auto kind = reduce::k_scan_kind_names.parse(o.scan_kind);
  if (!kind)
    return fail(ctx,
                "--scan-kind: '" + printable(o.scan_kind) + "' is not " +
                    reduce::k_scan_kind_names.list(", ", " or "),
                2);
  p.scan_kind = *kind;
  p.block = o.block;
  if (!o.variant.empty()) {
    if (p.op == reduce::Op::Reduce) {
      const auto v = reduce::k_reduce_variant_names.parse(o.variant);
      if (!v)
        return fail(ctx,
                    "--variant: '" + printable(o.variant) + "' is not a reduction (" +
                        reduce::k_reduce_variant_names.list(", ") + ")",
                    2);
      p.reduce_variant = *v;
    } else {
      const auto v = reduce::k_scan_variant_names.parse(o.variant);
      if (!v)
        return fail(ctx,
                    "--variant: '" + printable(o.variant) + "' is not a scan (" +
                        reduce::k_scan_variant_names.list(", ") + ")",
                    2);
      p.scan_variant = *v;
    }
  }
  if (auto err = reduce::validate(p)) return fail(ctx, *err, 2);
  if (!anatomy::is_instrumented_reduce(p))
    return fail(ctx, "--variant: cub has no instrumented copy (the library picks its own kernels)", 2);
  if (o.out.empty())
    return fail(ctx, "--out: give a directory for blocks.csv, timeline.svg/png and the array maps", 2);
  guarded(ctx, [&] {
    const anatomy::ReduceRecord r = anatomy::record_reduce_blocks(p);
    const anatomy::DeviceOccupancy lab = anatomy::reduce_device_occupancy(p);
    std::cout
        << "Instrumented " << reduce::describe(p)
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
    if (static_cast<int64_t>(r.appended) != r.grid.count())
      throw std::runtime_error("the kernel recorded " + std::to_string(r.appended) + " blocks, expected " +
                               std::to_string(r.grid.count()));
    const anatomy::Timeline t =
        anatomy::build_timeline(r.blocks, r.sm_count, std::max(r.runtime_blocks_per_sm, 1));
    report_and_write(o.out, r.blocks, t, r.sm_count,
                     "Instrumented " + reduce::describe(p) + " on " + r.device_name);
    std::array<uint32_t, 256> ramp{};
    for (uint32_t i = 0; i < 256; ++i)  // dark blue (first) to yellow (last)
      ramp[i] = 0xff000000u | ((255 - i) / 2 << 16) | (i << 8) | i;
    const std::filesystem::path dir(o.out);
    write_array_map_png(dir / "array_map_sm.png",
                        anatomy::make_array_map(anatomy::ArrayMapMode::Sm, r.shape, p.n, r.blocks, ramp));
    write_array_map_png(dir / "array_map_start.png", anatomy::make_array_map(anatomy::ArrayMapMode::StartTime,
                                                                             r.shape, p.n, r.blocks, ramp));
  });
}

void run_anatomy_heat(const AnatomyHeatOptions& o, BenchContext& ctx) {
  // --size N means N x N; NXxNY gives a rectangle.
  const ParsedDim2 size = parse_size2(o.size, "--size");
  if (!size.value) return fail(ctx, size.error, 2);
  for (int64_t v : {size.value->x, size.value->y})
    if (v < 1 || v > heat::k_max_size)
      return fail(ctx,
                  "--size: " + to_string(*size.value) + " is outside 1x1 .. " +
                      std::to_string(heat::k_max_size) + "x" + std::to_string(heat::k_max_size),
                  2);
  const ParsedDim2 block = parse_dim2(o.block, "--block");
  if (!block.value) return fail(ctx, block.error, 2);
  if (auto err = validate_block(*block.value, DeviceLimits{})) return fail(ctx, "--block: " + *err, 2);
  if (auto err = heat::validate_cells_per_thread(o.cells_per_thread))
    return fail(ctx, "--cells-per-thread: " + *err, 2);
  if (o.out.empty()) return fail(ctx, "--out: give a directory for blocks.csv and timeline.svg/png", 2);

  guarded(ctx, [&] {
    anatomy::HeatRecordRequest req;
    req.nx = size.value->x;
    req.ny = size.value->y;
    req.block = *block.value;
    req.cells_per_thread = o.cells_per_thread;
    const anatomy::HeatRecord r = anatomy::record_heat_blocks(req);
    const int resident = r.runtime_blocks_per_sm;
    std::cout << "Instrumented heat stencil (a variant for anatomy only: its barriers and atomics change "
                 "timing, so "
                 "it is never timed)\n";
    std::cout << "  field " << to_string({r.nx, r.ny}) << ", block " << to_string(r.block) << " ("
              << r.block.count() << " threads), " << r.cells_per_thread << " cell(s)/thread down y, grid "
              << to_string(r.grid) << " = " << r.grid.count() << " blocks\n";
    std::cout << "  device: " << r.device_name << ", " << r.sm_count << " SMs (%nsmid " << r.nsmid << ")\n";
    std::cout << "  resident blocks per SM: " << resident
              << " (cudaOccupancyMaxActiveBlocksPerMultiprocessor; model " << r.model.blocks_per_sm
              << ", limited by " << anatomy::limiter_label(r.model.limiter) << ", " << r.regs_per_thread
              << " registers/thread)\n";
    if (static_cast<int64_t>(r.appended) != r.grid.count())
      throw std::runtime_error("the kernel recorded " + std::to_string(r.appended) + " blocks, expected " +
                               std::to_string(r.grid.count()));
    const anatomy::Timeline t = anatomy::build_timeline(r.blocks, r.sm_count, std::max(resident, 1));
    std::ostringstream title;
    title << "Instrumented heat stencil " << to_string({r.nx, r.ny}) << ", block " << to_string(r.block)
          << ", " << r.cells_per_thread << " cell(s)/thread on " << r.device_name;
    report_and_write(o.out, r.blocks, t, r.sm_count, title.str());
  });
}

}  // namespace

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
  CLI::Option* kernel = occ->add_option("--kernel", occ_opt->kernel,
                                        "With --arch device: heat | heat_instrumented | demo_regs | "
                                        "demo_smem_static | demo_smem_dynamic (default heat)");
  occ->callback([occ_opt, regs, stat, kernel, &ctx] {
    run_occupancy(*occ_opt, regs->count() > 0, stat->count() > 0, kernel->count() > 0, ctx);
  });

  auto heat_opt = std::make_shared<AnatomyHeatOptions>();
  CLI::App* anat = app.add_subcommand("anatomy", "Kernel anatomy: which SM ran each block, and when");
  anat->require_subcommand(1);
  CLI::App* heat = anat->add_subcommand(
      "heat",
      "Record the instrumented heat stencil's blocks: DIR/blocks.csv and DIR/timeline.svg, and waves");
  heat->add_option("--size", heat_opt->size, "Field size: N (N x N) or NXxNY, 1..8192 (default 1024)");
  heat->add_option("--block", heat_opt->block, "Block shape XxY (default 32x8)");
  heat->add_option("--cells-per-thread", heat_opt->cells_per_thread,
                   "Cells per thread down y: 1, 2, 4, 8 (the heat lab's coarsening; default 1)");
  heat->add_option("--out", heat_opt->out, "Directory for blocks.csv, timeline.svg and timeline.png")
      ->required();
  heat->callback([heat_opt, &ctx] { run_anatomy_heat(*heat_opt, ctx); });

  auto mm_opt = std::make_shared<AnatomyMatmulOptions>();
  CLI::App* mmc = anat->add_subcommand(
      "matmul",
      "Record an instrumented matmul kernel's blocks (one per tile of C): CSV, timeline SVG/PNG, waves");
  mmc->add_option("--size", mm_opt->size, "M = N = K (default 1024)");
  mmc->add_option("--m", mm_opt->m, "Rows of C (overrides --size)");
  mmc->add_option("--n", mm_opt->n, "Columns of C (overrides --size)");
  mmc->add_option("--k", mm_opt->k, "Inner dimension (overrides --size)");
  mmc->add_option("--variant", mm_opt->variant,
                  "naive_uncoalesced | naive_coalesced | smem_tile8 | smem_tile16 | smem_tile32 (default)");
  mmc->add_option("--out", mm_opt->out, "Directory for blocks.csv, timeline.svg and timeline.png")
      ->required();
  mmc->callback([mm_opt, &ctx] { run_anatomy_matmul(*mm_opt, ctx); });

  for (const reduce::Op op : {reduce::Op::Reduce, reduce::Op::Scan}) {
    auto ro = std::make_shared<AnatomyReduceOptions>();
    ro->op = op;
    const bool scan = op == reduce::Op::Scan;
    CLI::App* rc = anat->add_subcommand(
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
    rc->add_option("--out", ro->out, "Directory for blocks.csv, timeline.svg/png, array_map_*.png")
        ->required();
    rc->callback([ro, &ctx] { run_anatomy_reduce(*ro, ctx); });
  }
}

}  // namespace bs::cli
