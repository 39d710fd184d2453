// kernel_cli.cpp: see kernel_cli.h. Exit codes: 0 compiled; 2 a compile error, a wrong signature or bad
// input; 1 NVRTC missing or another failure.
#include "app/kernel/kernel_cli.h"
#include "core/clock.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "core/stats.h"
#include "core/text.h"
#include "app/kernel/kernel_check.h"
#include "gpu/common/device_info.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/kernel/ptx_lines.h"
#include "gpu/kernel/source_file.h"

namespace bs::cli {

namespace {

using namespace bs::kernel;

struct CompileCliOptions {
  std::string file;
  std::string arch;
  std::string target;
  bool fast_math = false;
  int maxrregcount = 0;
  bool no_lineinfo = false;
  bool device_debug = false;
  std::vector<std::string> defines;
  bool ptx = false;
  bool no_cache = false;
  int repeat = 0;
  double compile_timeout_s = k_default_compile_timeout_s;
};

std::vector<std::string_view> source_lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Compiler output and source lines as they are (long lines kept whole, tabs kept so carets line up), other
// control characters shown as '?'.
std::string plain(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') c = '?';
  return out;
}

std::string bytes_text(int b) {
  return std::to_string(b) + " B";
}

// The diagnostics as compilers print them, each with its source line and a caret under the column.
void print_diagnostics(const CompileResult& r, const std::string& file, std::string_view source) {
  const auto lines = source_lines(source);
  for (const Diagnostic& d : r.diagnostics) {
    std::cout << plain(format_diagnostic(d, file)) << "\n";
    if (d.line >= 1 && static_cast<size_t>(d.line) <= lines.size()) {
      const std::string num = std::to_string(d.line);
      const std::string_view text = lines[static_cast<size_t>(d.line) - 1];
      std::cout << "  " << num << " | " << plain(text) << "\n";
      if (d.column > 0) {
        std::string pad;  // under the column: tabs where the line has tabs
        for (size_t i = 0; i + 1 < static_cast<size_t>(d.column); ++i)
          pad += i < text.size() && text[i] == '\t' ? '\t' : ' ';
        std::cout << "  " << std::string(num.size(), ' ') << " | " << pad << "^\n";
      }
    }
  }
}

void print_resources(const CompileResult& r) {
  if (r.kernels.empty()) std::cout << "resources: unknown (NVRTC gave no ptxas report)\n";
  for (const KernelResources& k : r.kernels) {
    std::cout << "kernel " << k.name << ": " << k.registers << " registers, "
              << bytes_text(k.shared_static_bytes) << " static shared memory, "
              << bytes_text(k.stack_frame_bytes) << " local memory (stack frame), spills "
              << bytes_text(k.spill_store_bytes) << " stored / " << bytes_text(k.spill_load_bytes)
              << " loaded, " << k.barriers << " barriers, max " << k.max_threads_per_block
              << " threads per block";
    if (k.launch_bounds_threads > 0) std::cout << " (__launch_bounds__ " << k.launch_bounds_threads << ")";
    std::cout << "\n";
  }
}

// The PTX with each block of lines headed by the source line it comes from (-lineinfo).
void print_ptx(const CompileResult& r, const std::string& file, std::string_view source) {
  const PtxLineMap map = map_ptx_lines(r.ptx, k_user_file);
  const auto src = source_lines(source);
  const auto ptx = source_lines(r.ptx);
  if (!map.has_line_info) std::cout << "// (no line info: compiled without -lineinfo)\n";
  for (const PtxBlock& b : map.blocks) {
    if (b.source_line > 0 && static_cast<size_t>(b.source_line) <= src.size())
      std::cout << "//## " << file << ":" << b.source_line << ": "
                << plain(src[static_cast<size_t>(b.source_line) - 1]) << "\n";
    for (int l = b.first_ptx_line; l <= b.last_ptx_line && static_cast<size_t>(l) <= ptx.size(); ++l)
      std::cout << ptx[static_cast<size_t>(l) - 1] << "\n";
  }
}

int exit_code_of(CompileStatus s) {
  switch (s) {
    case CompileStatus::Ok:
      return 0;
    case CompileStatus::CompileError:
    case CompileStatus::SignatureError:
    case CompileStatus::InvalidRequest:
    case CompileStatus::LimitExceeded:  // a source that never finishes compiling is bad input
      return 2;
    default:
      return 1;
  }
}

std::string summary_text(const std::vector<double>& v) {
  const Summary s = summarize(v);
  return "median " + fmt_fixed(s.median, 2) + " ms (min " + fmt_fixed(s.min, 2) + ", max " +
         fmt_fixed(s.max, 2) + ", n = " + std::to_string(s.count) + ")";
}

// --repeat N: the compile benchmark. Each round: a first compile (the request's cache entry removed, NVRTC
// runs), then the same request from the disk cache through a fresh cache object (read the entry, check its
// SHA-256, derive diagnostics and resources: the "load" of the CUBIN; loading it into a CUDA context is the
// runner's job), then from the memory cache.
int run_repeat(const CompileRequest& req, const std::string& cache_dir, int repeat) {
  const std::string dir = cache_dir.empty()
                              ? (std::filesystem::temp_directory_path() / "blockscope-kernel-bench").string()
                              : cache_dir;
  std::vector<double> first, nvrtc_ms, disk, memory;
  double process_first = -1, process_first_nvrtc = -1;
  for (int i = 0; i < repeat; ++i) {
    KernelCache writer(dir);
    const std::string key = cache_key(req, nvrtc().version());
    std::error_code ec;
    std::filesystem::remove(writer.entry_path(key), ec);
    const auto t0 = std::chrono::steady_clock::now();
    const CompileResult cold = compile_cached(writer, req);
    const double cold_ms = ms_since(t0);
    if (cold.from_cache)
      return print_error("kernel compile --repeat: the cache entry could not be removed", 1);
    if (!cold.ok()) return print_error("kernel compile --repeat: " + cold.message, exit_code_of(cold.status));
    if (i == 0) {
      process_first = cold_ms;  // includes NVRTC's one-time start-up in this process
      process_first_nvrtc = cold.nvrtc_ms;
    } else {
      first.push_back(cold_ms);
      nvrtc_ms.push_back(cold.nvrtc_ms);
    }
    writer.flush();  // the entry on disk (written by the cache's thread, after the result came back)
    KernelCache reader(dir);
    const auto t1 = std::chrono::steady_clock::now();
    const CompileResult from_disk = compile_cached(reader, req);
    disk.push_back(ms_since(t1));
    const auto t2 = std::chrono::steady_clock::now();
    const CompileResult from_memory = compile_cached(reader, req);
    memory.push_back(ms_since(t2));
    if (!from_disk.from_cache || !from_memory.from_cache || from_disk.cubin != cold.cubin)
      return print_error("kernel compile --repeat: the cache did not return the compiled kernel", 1);
  }
  std::cout << "compile benchmark: " << repeat << " rounds, sm_" << req.arch << ", NVRTC "
            << nvrtc().version() << ", cache " << dir << "\n";
  std::cout << "  first compile in this process: " << fmt_fixed(process_first, 2)
            << " ms (nvrtcCompileProgram " << fmt_fixed(process_first_nvrtc, 2)
            << " ms; includes NVRTC's start-up)\n";
  if (!first.empty()) {
    std::cout << "  first compile (entry removed): " << summary_text(first) << "\n";
    std::cout << "  nvrtcCompileProgram alone:     " << summary_text(nvrtc_ms) << "\n";
  }
  std::cout << "  from the disk cache (load):    " << summary_text(disk) << "\n";
  std::cout << "  from the memory cache:         " << summary_text(memory) << "\n";
  return 0;
}

int run_compile(const CompileCliOptions& o) {
  std::string source, err;
  if (!read_kernel_source(o.file, &source, &err)) return print_error("kernel compile: " + err, 2);
  CompileRequest req;
  req.source = std::move(source);
  req.control.timeout_s = o.compile_timeout_s;
  if (!o.target.empty()) {
    const auto t = k_target_names.parse(o.target);
    if (!t)
      return print_error("kernel compile: --target: '" + printable(o.target) + "' is not one of " +
                             k_target_names.list(", "),
                         2);
    req.target = *t;
  }
  req.options.fast_math = o.fast_math;
  req.options.maxrregcount = o.maxrregcount;
  req.options.lineinfo = !o.no_lineinfo;
  req.options.device_debug = o.device_debug;
  for (const std::string& d : o.defines) {
    const size_t eq = d.find('=');
    req.options.defines.emplace_back(d.substr(0, eq),
                                     eq == std::string::npos ? std::string() : d.substr(eq + 1));
  }
  const NvrtcLoad& nv = nvrtc();
  if (!nv.ok()) return print_error(nv.error, 1);
  if (!o.arch.empty()) {
    const auto a = parse_arch(o.arch);
    if (!a)
      return print_error("kernel compile: --arch: '" + printable(o.arch) + "' is not sm_XX (e.g. sm_90)", 2);
    req.arch = *a;
  } else {
    const DeviceInfo dev = query_device();
    req.arch = dev.available ? dev.cc_major * 10 + dev.cc_minor : k_default_arch;
  }
  if (auto bad = check_request(req, nv.supported_archs, nv.version()))
    return print_error("kernel compile: " + *bad, 2);
  const std::string cache_dir = o.no_cache ? std::string() : default_cache_dir();
  if (o.repeat > 0) return run_repeat(req, cache_dir, o.repeat);

  KernelCache cache(cache_dir);
  const CompileResult r = compile_cached(cache, req);
  if (r.status == CompileStatus::NvrtcMissing || r.status == CompileStatus::InternalError ||
      r.status == CompileStatus::InvalidRequest)
    return print_error("kernel compile: " + r.message, exit_code_of(r.status));
  if (o.ptx && r.ok()) print_ptx(r, o.file, req.source);
  print_diagnostics(r, o.file, req.source);
  std::cout << o.file << ": " << r.message << "; NVRTC " << r.nvrtc_version << ", ";
  if (r.from_cache)
    std::cout << "from the cache in " << fmt_fixed(r.total_ms, 2)
              << " ms (first compile: nvrtcCompileProgram " << fmt_fixed(r.nvrtc_ms, 1) << " ms)\n";
  else
    std::cout << "compiled in " << fmt_fixed(r.total_ms, 1) << " ms (nvrtcCompileProgram "
              << fmt_fixed(r.nvrtc_ms, 1) << " ms)\n";
  if (r.ok()) {
    print_resources(r);
    if (req.target)
      std::cout << "contract " << k_target_names.name_of(*req.target) << ": kernel " << r.kernel_name
                << " (lowered name " << r.lowered_name << ")\n";
  }
  if (!cache.last_error().empty()) std::cerr << "blockscope: note: " << printable(cache.last_error()) << "\n";
  if (!r.ok()) return print_error("kernel compile: " + failure_line(r, o.file), exit_code_of(r.status));
  return 0;
}

}  // namespace

void register_kernel_commands(CLI::App& app, BenchContext& ctx) {
  CLI::App* kernel = app.add_subcommand("kernel", "Kernel lab: templates, and compiling a kernel with NVRTC");
  kernel->require_subcommand(0, 1);
  // Runs after a subcommand's callback (CLI11 calls the parent last): only "kernel" alone comes here empty.
  kernel->callback([kernel, &ctx] {
    if (kernel->get_subcommands().empty())
      ctx.exit_code = print_error("kernel: name a command (template, compile, check)", 2);
  });

  auto tmpl_id = std::make_shared<std::string>();
  CLI::App* tmpl = kernel->add_subcommand("template", "Print a kernel template: " + template_ids());
  tmpl->add_option("id", *tmpl_id,
                   "Template: " + template_ids() + " (heat, vector, matmul: the contract's first)")
      ->required();
  tmpl->callback([tmpl_id, &ctx] {
    run_guarded(ctx, [&] {
      const KernelTemplate* t = find_template(*tmpl_id);
      if (!t)
        return print_error(
            "kernel template: '" + printable(*tmpl_id) + "' is not one of " + template_ids(", "), 2);
      std::cout << template_source(*t);
      return 0;
    });
  });

  auto o = std::make_shared<CompileCliOptions>();
  CLI::App* comp = kernel->add_subcommand(
      "compile",
      "Compile a .cu file with NVRTC: diagnostics with line numbers, registers, shared memory, spills");
  comp->add_option("file", o->file, "The kernel's source (.cu)")->required();
  comp->add_option("--arch", o->arch, "Target architecture sm_XX (default: the GPU's, else sm_90)");
  comp->add_option("--target", o->target, "Check the contract of a lab: " + k_target_names.list());
  comp->add_flag("--fast-math", o->fast_math, "-use_fast_math");
  comp->add_option("--maxrregcount", o->maxrregcount, "Registers per thread at most, 16..255")
      ->check(in_range(16, 255, "registers per thread"));
  comp->add_flag("--no-lineinfo", o->no_lineinfo, "Compile without -lineinfo (no source lines in the PTX)");
  comp->add_flag("-G,--device-debug", o->device_debug, "Device debug code (-G: slow; off by default)");
  comp->add_option("-D,--define", o->defines, "A macro NAME or NAME=VALUE (repeatable)");
  comp->add_flag("--ptx", o->ptx, "Print the PTX, each block headed by the source line it comes from");
  comp->add_flag("--no-cache", o->no_cache, "Neither read nor write the disk cache");
  comp->add_option("--compile-timeout", o->compile_timeout_s,
                   "Seconds the compile may take before it is stopped (a macro that expands without end)")
      ->check(in_range(0.5, 600.0, "seconds"))
      ->capture_default_str();
  comp->add_option("--repeat", o->repeat,
                   "Benchmark: N rounds of first compile, disk-cache and memory-cache hits")
      ->check(in_range(1, 1000, "rounds"));
  comp->callback([o, &ctx] { run_guarded(ctx, [&] { return run_compile(*o); }); });
  register_kernel_check(*kernel, ctx);
}

}  // namespace bs::cli
