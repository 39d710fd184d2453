// kernel_check.cpp: see kernel_check.h.
#include "app/kernel/kernel_check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <thread>

#include "app/kernel/kernel_bench.h"
#include "core/error.h"
#include "core/launch.h"
#include "core/text.h"
#include "gpu/kernel/contracts.h"
#include "gpu/kernel/kernel_runner.h"
#include "gpu/kernel/sim_runs.h"
#include "sim/trace.h"

namespace bs::cli {

namespace {

struct CheckArgs {
  kernel::Target target = kernel::Target::Heat;
  std::string file, size, block, grid, reference = "formula", trace;
  int steps = 1;
  uint64_t budget = uint64_t{1} << 22;
  bool fast_math = false;
  uint64_t trace_blocks = 64;
};

// The PTX's name for the user's file (NVRTC's "<cwd>/kernel.cu") -> the path the user gave.
std::string user_file(const std::string& ptx_file, const std::string& path) {
  if (ptx_file.empty()) return path;
  return std::filesystem::path(ptx_file).filename() == kernel::k_user_file ? path : ptx_file;
}

std::string located(const std::string& file, int line, const std::string& path) {
  if (line <= 0) return "";
  return user_file(file, path) + ":" + std::to_string(line) + ": ";
}

// The failure message with NVRTC's file name replaced by the user's.
std::string failure_text(const kernel::SimRun& r, const std::string& path) {
  const sim::Failure& f = r.result.failure;
  std::string m = r.failure;
  if (!f.file.empty()) {
    const std::string from = f.file + ":";
    const size_t at = m.find(from);
    if (at != std::string::npos) m.replace(at, from.size(), user_file(f.file, path) + ":");
  }
  return m;
}

std::string per_request(uint64_t total, uint64_t requests) {
  return requests ? fmt_fixed(static_cast<double>(total) / static_cast<double>(requests), 2) : "-";
}

// The accesses (sampled), the instructions and the threads as CSV files in `dir`.
int write_trace(const std::string& dir, const sim::Module& m, const kernel::SimRun& r, const sim::Recorder& rec,
                const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return print_error("--trace " + dir + ": cannot create the folder (" + ec.message() + ")", 2);
  std::string err;
  if (!write_text_file((std::filesystem::path(dir) / "accesses.csv").string(),
                       sim::access_csv(rec, m, r.config, r.result), &err))
    return print_error("--trace: " + err, 2);
  std::ostringstream ins;
  ins << "pc,file,line,instruction,warp_execs,thread_execs,active_lanes_per_exec,requests,sectors_per_request,"
         "lines_per_request,wavefronts_per_request,bank_conflicts_per_request\n";
  for (size_t pc = 0; pc < m.code.size(); ++pc) {
    const sim::InstrStats& s = r.result.instr[pc];
    if (!s.warp_execs) continue;
    const sim::Instr& in = m.code[pc];
    const std::string file = in.file > 0 && static_cast<size_t>(in.file) < m.files.size()
                                 ? user_file(m.files[static_cast<size_t>(in.file)], path)
                                 : "";
    std::string text = m.text[pc];
    std::replace(text.begin(), text.end(), '"', '\'');
    ins << pc << ",\"" << file << "\"," << in.line << ",\"" << text << "\"," << s.warp_execs << ','
        << s.thread_execs << ',' << per_request(s.thread_execs, s.warp_execs) << ',' << s.requests << ','
        << per_request(s.sectors, s.requests) << ',' << per_request(s.lines, s.requests) << ','
        << per_request(s.wavefronts, s.requests) << ',' << per_request(s.conflicts, s.requests) << '\n';
  }
  if (!write_text_file((std::filesystem::path(dir) / "instructions.csv").string(), ins.str(), &err))
    return print_error("--trace: " + err, 2);
  std::ostringstream th;
  th << "block_x,block_y,block_z,thread_x,thread_y,thread_z,instructions,global_reads,global_writes\n";
  const sim::Dim3 g = r.config.grid, b = r.config.block;
  const uint64_t tpb = b.count();
  for (size_t i = 0; i < r.result.threads.size(); ++i) {
    const uint64_t blk = i / tpb, t = i % tpb;
    const sim::ThreadStats& s = r.result.threads[i];
    th << blk % g.x << ',' << (blk / g.x) % g.y << ',' << blk / (uint64_t{g.x} * g.y) << ',' << t % b.x << ','
       << (t / b.x) % b.y << ',' << t / (uint64_t{b.x} * b.y) << ',' << s.instructions << ',' << s.global_reads
       << ',' << s.global_writes << '\n';
  }
  if (!write_text_file((std::filesystem::path(dir) / "threads.csv").string(), th.str(), &err))
    return print_error("--trace: " + err, 2);
  std::printf("trace: %s/accesses.csv (%s), instructions.csv, threads.csv\n", dir.c_str(), rec.sampled().c_str());
  return 0;
}

void print_memory_table(const sim::Module& m, const kernel::SimRun& r, const std::string& path) {
  Table t{{"line", "memory instruction", "requests", "sectors/req", "bank conflicts/req", "active lanes"}, {}};
  for (size_t pc = 0; pc < m.code.size(); ++pc) {
    const sim::InstrStats& s = r.result.instr[pc];
    if (!s.requests) continue;
    const sim::Instr& in = m.code[pc];
    const bool shared = in.space == sim::Space::Shared || s.wavefronts > 0;
    std::string text = m.text[pc];
    if (text.size() > 48) text = text.substr(0, 45) + "...";
    std::replace(text.begin(), text.end(), '\t', ' ');
    t.rows.push_back({located(m.files.size() > static_cast<size_t>(in.file) ? m.files[static_cast<size_t>(in.file)] : "",
                              in.line, path),
                      text, std::to_string(s.requests), shared ? "-" : per_request(s.sectors, s.requests),
                      shared ? per_request(s.conflicts, s.requests) : "-", per_request(s.thread_execs, s.warp_execs)});
  }
  if (!t.rows.empty()) t.print(std::cout);
}

int run_check(const CheckArgs& a) {
  // Defaults: sizes that are not multiples of the default blocks, small enough to simulate in a moment.
  std::string error;
  const auto lp = parse_lab_problem(
      a.target, {a.size, a.block, a.grid, a.reference, a.steps, "253x251", "100003", "127x129x131"}, &error);
  if (!lp) return print_error(error, 2);
  const heat::Params& hp = lp->heat;
  const matmul::Problem& mp = lp->matmul;
  const int64_t n = lp->n;
  const std::optional<Dim2> grid = lp->grid;
  kernel::CompileOptions opts;
  opts.fast_math = a.fast_math;
  const SourceCompile sc = compile_source_file(a.file, a.target, kernel::k_default_arch, opts);
  if (!sc.result) return print_error(sc.error, 2);
  const kernel::CompileResult& cr = *sc.result;
  std::printf("%s: %s (%s)\n", a.file.c_str(), cr.message.c_str(), cr.from_cache ? "from the cache" : "compiled");
  sim::Module m;
  try {
    m = sim::parse_ptx(cr.ptx);
  } catch (const sim::PtxError& e) {
    return print_error(a.file + ": the simulator cannot read NVRTC's PTX: " + e.what(), 1);
  }

  kernel::SimSettings s;
  s.budget = a.budget;
  uint64_t blocks = 0;
  const Dim2 block = lp->block;
  const Dim2 domain = lp->domain(a.target);
  {
    const Dim2 g = grid ? *grid : kernel::default_grid(a.target, block, domain);
    blocks = static_cast<uint64_t>(g.x * g.y);
  }
  sim::Recorder::Options ro;
  ro.max_blocks = a.trace_blocks;
  ro.max_bytes = uint64_t{256} << 20;
  sim::Recorder rec(blocks, ro);
  if (!a.trace.empty()) s.observer = &rec;
  kernel::SimRun r;
  std::string what;
  if (a.target == kernel::Target::Heat) {
    const std::vector<float> initial = heat::make_initial(hp, heat::InitialPattern::Noise);
    r = kernel::sim_heat(m, cr.lowered_name, hp, initial, a.steps, block, grid, s);
    what = "heat, " + std::to_string(hp.nx) + "x" + std::to_string(hp.ny) + " cells, " + std::to_string(a.steps) +
           (a.steps == 1 ? " step" : " steps");
  } else if (a.target == kernel::Target::Vector) {
    r = kernel::sim_vector(m, cr.lowered_name, n, block.x, grid ? std::optional<int64_t>(grid->x) : std::nullopt,
                           lp->reference, s);
    what = "vector, n = " + vector::format_count(n);
  } else {
    r = kernel::sim_matmul(m, cr.lowered_name, mp, block, grid, s);
    what = "matmul, " + matmul::to_string(mp);
  }
  std::printf("simulated (no GPU): %s, grid %s, block %s: %s thread-instructions in %.2f s on %d host threads\n",
              what.c_str(), to_string(r.grid).c_str(), to_string(block).c_str(),
              std::to_string(r.result.thread_instructions).c_str(), r.seconds, r.result.workers);
  int code = 0;
  if (!r.ran) {
    std::printf("stopped: %s\n", failure_text(r, a.file).c_str());
    code = 1;
  } else {
    std::printf("check: %s\n", r.check.c_str());
    if (!r.passed) code = 1;
  }
  for (const sim::Diagnostic& d : r.result.diagnostics) {
    std::printf("%s%s: %s%s\n", located(d.file, d.line, a.file).c_str(), sim::diag_name(d.kind), d.message.c_str(),
                d.count > 1 ? (" (" + std::to_string(d.count) + " times)").c_str() : "");
    code = 1;
  }
  if (r.ran && r.result.diagnostics.empty()) std::printf("diagnostics: none\n");
  if (r.ran) {
    uint64_t imin = UINT64_MAX, imax = 0, reads = 0, writes = 0;
    for (const sim::ThreadStats& t : r.result.threads) {
      imin = std::min<uint64_t>(imin, t.instructions);
      imax = std::max<uint64_t>(imax, t.instructions);
      reads += t.global_reads;
      writes += t.global_writes;
    }
    const double nt = static_cast<double>(std::max<size_t>(1, r.result.threads.size()));
    std::printf("per thread: %s..%s instructions, %.2f global reads and %.2f global writes on average\n",
                std::to_string(imin == UINT64_MAX ? 0 : imin).c_str(), std::to_string(imax).c_str(), reads / nt,
                writes / nt);
    print_memory_table(m, r, a.file);
  }
  if (!a.trace.empty() && r.launches > 0) {
    const int t = write_trace(a.trace, m, r, rec, a.file);
    if (t) return t;
  }
  return code;
}

// --- bench sim ------------------------------------------------------------------------------------------------
struct SimBenchArgs {
  int64_t size = 1024;
  int workers = 0;
};

int run_sim_bench(const SimBenchArgs& a) {
  if (a.size < 32 || a.size > 4096) return print_error("--size: give 32..4096 cells per side", 2);
  const kernel::KernelTemplate* t = kernel::find_template("heat");
  kernel::CompileRequest req;
  req.source = std::string(kernel::template_source(*t));
  req.target = kernel::Target::Heat;
  const kernel::CompileResult cr = kernel::compile_kernel(req);
  if (!cr.ok()) return print_error("bench sim: the heat template did not compile: " + cr.message, 1);
  const sim::Module m = sim::parse_ptx(cr.ptx);
  heat::Params hp;
  hp.nx = hp.ny = a.size;
  const std::vector<float> initial = heat::make_initial(hp, heat::InitialPattern::Noise);
  const Dim2 block{32, 8};
  const uint64_t blocks = static_cast<uint64_t>(((hp.nx + 31) / 32) * ((hp.ny + 7) / 8));
  const int workers = a.workers > 0 ? a.workers : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Per core: thread-instructions per CPU second of the simulator's threads, so a machine shared with other
  // work does not make the simulator look slower than it is; wall time beside it.
  Table tab{{"run", "thread-instructions", "wall s", "M thread-instr/s (wall)", "CPU s", "M thread-instr/s per core",
             "check"},
            {}};
  for (int traced = 0; traced < 2; ++traced) {
    sim::Recorder rec(blocks, sim::Recorder::Options{blocks, uint64_t{1} << 30});
    kernel::SimSettings s;
    s.workers = workers;
    s.observer = traced ? &rec : nullptr;
    s.diagnostics = traced != 0;
    const kernel::SimRun r = kernel::sim_heat(m, cr.lowered_name, hp, initial, 1, block, std::nullopt, s);
    const double cpu_s = r.cpu_seconds;
    if (!r.ran) return print_error("bench sim: " + r.failure, 1);
    const double n = static_cast<double>(r.result.thread_instructions);
    tab.rows.push_back({traced ? "traced (every access recorded) + diagnostics" : "untraced, no diagnostics",
                        std::to_string(r.result.thread_instructions), fmt_fixed(r.seconds, 3),
                        fmt_fixed(n / r.seconds / 1e6, 1), fmt_fixed(cpu_s, 3),
                        fmt_fixed(cpu_s > 0 ? n / cpu_s / 1e6 : 0, 1), r.passed ? "pass" : "FAIL"});
    if (traced) tab.rows.back()[0] += " (" + std::to_string(rec.accesses().size()) + " warp accesses)";
  }
  std::printf("bench sim: the heat template, one step of %lldx%lld cells, block 32x8, %d host threads\n",
              static_cast<long long>(hp.nx), static_cast<long long>(hp.ny), workers);
  tab.print(std::cout);
  return 0;
}

}  // namespace

void register_kernel_check(CLI::App& kernel, BenchContext& ctx) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* sub = kernel.add_subcommand(
      "check", "Run a kernel in the PTX simulator (no GPU needed): the lab's check and every diagnostic");
  sub->add_option("file", a->file, "The kernel's source (.cu)")->required();
  sub->add_option("--target", a->target, "The lab's contract: " + kernel::k_target_names.list())
      ->required()
      ->transform(CLI::CheckedTransformer(kernel::k_target_names.by_name(), CLI::ignore_case));
  sub->add_option("--size", a->size,
                  "heat: NxM or N cells (default 253x251); vector: n (default 100003); matmul: MxNxK or N "
                  "(default 127x129x131)");
  sub->add_option("--block", a->block, "Block, e.g. 32x8 (vector: 256); default: the contract's");
  sub->add_option("--grid", a->grid, "Grid; default: the one that covers the data");
  sub->add_option("--steps", a->steps, "heat: steps")->capture_default_str();
  sub->add_option("--reference", a->reference, "vector: the lab's op to check against (add | formula)")
      ->capture_default_str();
  sub->add_option("--budget", a->budget, "Instructions per thread before a run is stopped as endless")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{1} << 40))
      ->capture_default_str();
  sub->add_option("--trace", a->trace, "Write accesses.csv, instructions.csv and threads.csv into this folder");
  sub->add_option("--trace-blocks", a->trace_blocks, "Blocks whose accesses --trace records at most (sampled)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20))
      ->capture_default_str();
  sub->add_flag("--use-fast-math", a->fast_math, "Compile with -use_fast_math");
  sub->callback([a, &ctx] { run_guarded(ctx, [&] { return run_check(*a); }); });
}

void register_sim_bench(CLI::App& bench, BenchContext& ctx) {
  auto a = std::make_shared<SimBenchArgs>();
  CLI::App* sub = bench.add_subcommand("sim", "The PTX simulator's speed: one heat step, traced and untraced");
  sub->add_option("--size", a->size, "Cells per side")->capture_default_str();
  sub->add_option("--workers", a->workers, "Host threads (default: all)");
  sub->callback([a, &ctx] { run_guarded(ctx, [&] { return run_sim_bench(*a); }); });
}

}  // namespace bs::cli
