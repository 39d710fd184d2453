// compiler.cpp: see compiler.h.
#include "core/clock.h"
#include "gpu/kernel/compiler.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <memory>

#include <sys/stat.h>

#include "gpu/kernel/isolated_compile.h"
#include "gpu/kernel/nvrtc_api.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/kernel/source_file.h"
#include "gpu/kernel/toolkit_headers.h"

namespace bs::kernel {

namespace {

std::atomic<long long> g_compile_calls{0};

using Clock = std::chrono::steady_clock;
bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

std::string arch_list(const std::vector<int>& archs) {
  std::string out;
  for (int a : archs)
    out += (out.empty() ? "sm_" : ", sm_") + std::to_string(a);
  return out;
}

// Owns an nvrtcProgram.
class Program {
 public:
  Program(const NvrtcApi& api, nvrtcProgram p) : m_api(api), m_p(p) {}
  ~Program() { m_api.destroy_program(&m_p); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return m_p; }

 private:
  const NvrtcApi& m_api;
  nvrtcProgram m_p;
};

std::string program_log(const NvrtcApi& api, nvrtcProgram p) {
  size_t size = 0;
  if (api.get_program_log_size(p, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  if (api.get_program_log(p, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  // NVRTC 13 joins the compiler's and ptxas's logs with a NUL between them ("... Compile time = 4 ms\n\0ptxas
  // error : ..."): a line break, so the second log's messages are read and nothing prints as binary.
  std::replace(log.begin(), log.end(), '\0', '\n');
  return log;
}

std::string plural(int n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// The -D defines as #define lines, then "#line 1" so the user's lines keep their numbers. "-D NAME" alone
// defines NAME as 1, as compilers do.
std::string define_lines(const std::vector<std::pair<std::string, std::string>>& defines) {
  if (defines.empty()) return {};
  std::string out;
  for (const auto& [name, value] : defines)
    out += "#define " + name + " " + (value.empty() ? "1" : value) + "\n";
  return out + "#line 1 \"" + k_user_file + "\"\n";
}

// The file an "#include" line names (quotes or angle brackets), or nullopt for any other line.
std::optional<std::string> include_target(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return std::nullopt;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.compare(i, 7, "include") != 0) return std::nullopt;
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string_view::npos || (line[i] != '"' && line[i] != '<')) return std::nullopt;
  const size_t end = line.find(line[i] == '"' ? '"' : '>', i + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(line.substr(i + 1, end - i - 1));
}

// An #include of something that is not a source file (a pipe would block NVRTC forever, a device never
// ends) or of a file over the source limit: a diagnostic on the #include line, before NVRTC opens it. A
// relative name is looked up where NVRTC looks for it (the working folder); headers that do not exist are
// NVRTC's to report.
std::optional<Diagnostic> check_includes(std::string_view source) {
  int line_no = 0;
  size_t start = 0;
  while (start <= source.size()) {
    size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    ++line_no;
    if (const auto target = include_target(source.substr(start, end - start))) {
      struct stat st {};
      if (!target->empty() && ::stat(target->c_str(), &st) == 0) {
        std::string why;
        if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
          why = "is a pipe or socket, not a source file (NVRTC would wait on it forever)";
        else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
          why = "is a device, not a source file";
        else if (S_ISDIR(st.st_mode))
          why = "is a folder, not a source file";
        else if (static_cast<uint64_t>(st.st_size) > k_max_source_bytes)
          why = "is larger than 1 MiB, the limit for a source file";
        if (!why.empty()) {
          Diagnostic d;
          d.line = line_no;
          d.message = "#include \"" + *target + "\": " + why + "; blockscope does not read it";
          return d;
        }
      }
    }
    if (end == source.size()) break;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

const KernelResources* CompileResult::main_kernel() const {
  if (!lowered_name.empty()) {
    for (const KernelResources& k : kernels)
      if (k.name == lowered_name) return &k;
    return nullptr;
  }
  return kernels.size() == 1 ? &kernels.front() : nullptr;
}

std::optional<int> parse_arch(std::string_view text) {
  if (text.size() < 5 || text.substr(0, 3) != "sm_" || text.size() > 6) return std::nullopt;
  int v = 0;
  for (char c : text.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::vector<std::string> nvrtc_options(const CompileRequest& r) {
  std::vector<std::string> opts;
  if (r.options.fast_math) opts.push_back("--use_fast_math");
  if (r.options.maxrregcount > 0) opts.push_back("--maxrregcount=" + std::to_string(r.options.maxrregcount));
  // -G carries full debug info (lines included); ptxas warns when -lineinfo comes with it.
  if (r.options.lineinfo && !r.options.device_debug) opts.push_back("--generate-line-info");
  if (r.options.device_debug) opts.push_back("--device-debug");
  // -D NAME=VALUE is not an NVRTC option: the defines are lines before the user's text (define_lines), so
  // they reach neither NVRTC's built-in header nor blockscope's prelude (both pre-included): any identifier
  // can be defined (-D value=2 broke NVRTC 13's own header as an option). cache_key adds them.
  std::sort(opts.begin(), opts.end());
  opts.insert(opts.begin(), "--gpu-architecture=sm_" + std::to_string(r.arch));
  // Always: the prelude is pre-included, and ptxas reports resources. The toolkit's headers (cuda_fp16.h, ...)
  // are the one folder searched, where one was found (toolkit_headers.h).
  opts.push_back(std::string("--pre-include=") + k_prelude_name);
  if (!toolkit_headers().dir.empty()) {
    opts.push_back("--include-path=" + toolkit_headers().dir);
    // CUDA 13 keeps libcu++ (<cuda/atomic>, <cuda/std/...>), CUB and Thrust in include/cccl.
    std::error_code ec;
    if (std::filesystem::is_directory(toolkit_headers().dir + "/cccl", ec))
      opts.push_back("--include-path=" + toolkit_headers().dir + "/cccl");
  }
  opts.push_back("--ptxas-options=-v");
  // NVRTC 12.9+ keeps its own compile cache where a driver is present; a compile it answers from there
  // gives no ptxas report (an empty log), so the kernel looked missing on the H100 machine. Our cache
  // (kernel_cache.h) already does that job.
  opts.push_back("--no-cache");
  return opts;
}

std::optional<std::string> check_request(const CompileRequest& r, const std::vector<int>& supported_archs,
                                         const std::string& nvrtc_version) {
  if (!supported_archs.empty() &&
      std::find(supported_archs.begin(), supported_archs.end(), r.arch) == supported_archs.end())
    return "sm_" + std::to_string(r.arch) + " is not supported by NVRTC " + nvrtc_version +
           " (supported: " + arch_list(supported_archs) + ")";
  const int rr = r.options.maxrregcount;
  if (rr != 0 && (rr < 16 || rr > 255))
    return "-maxrregcount " + std::to_string(rr) + ": give 16..255 registers per thread (or 0 for no limit)";
  for (size_t i = 0; i < r.options.defines.size(); ++i) {
    const auto& [name, value] = r.options.defines[i];
    if (!is_identifier(name)) return "-D" + name + ": a macro name is a C identifier (letters, digits, _)";
    if (value.find_first_of("\n\r") != std::string::npos) return "-D" + name + ": the value has a line break";
    // The value becomes a #define line of its own: it must not continue onto, or comment out, what follows.
    if (!value.empty() && value.back() == '\\') return "-D" + name + ": the value ends with a backslash";
    const size_t open = value.rfind("/*");
    if (open != std::string::npos && value.find("*/", open + 2) == std::string::npos)
      return "-D" + name + ": the value opens a /* comment that it does not close";
    for (size_t j = 0; j < i; ++j)
      if (r.options.defines[j].first == name) return "-D" + name + ": the macro is defined twice";
  }
  if (r.source.find('\0') != std::string::npos) return "the source contains a NUL byte (not a text file?)";
  return std::nullopt;
}

void finish_result(const CompileRequest& r, CompileResult* out) {
  out->diagnostics = parse_nvrtc_log(out->log, k_user_file, r.source);
  for (Diagnostic& d : out->diagnostics) d.message = explain_missing_header(d.message, toolkit_headers());
  const Contract* c = r.target ? &contract(*r.target) : nullptr;
  // The check's own messages ("identifier ... is undefined", "static assertion failed ...") become one
  // message in the user's terms.
  bool contract_failed = false, missing = false, not_global = false;
  std::vector<Diagnostic> kept;
  for (Diagnostic& d : out->diagnostics) {
    if (d.origin == Origin::Contract) {
      if (d.severity == Severity::Error) contract_failed = true;
      if (c && d.message.find("\"" + std::string(c->kernel_name) + "\" is undefined") != std::string::npos)
        missing = true;
      // The name expression "&name" of a __device__ function (NVRTC 13: "Name expression cannot form address
      // of a non-__global__ function").
      if (d.message.find("non-__global__") != std::string::npos) not_global = true;
      continue;
    }
    kept.push_back(std::move(d));
  }
  const auto is_error = [](const Diagnostic& d) { return d.severity == Severity::Error; };
  const bool user_errors = std::any_of(kept.begin(), kept.end(), [&](const Diagnostic& d) {
    return is_error(d) &&
           (d.origin == Origin::User || d.origin == Origin::Prelude || d.origin == Origin::Included);
  });
  const bool tool_errors = std::any_of(kept.begin(), kept.end(), [&](const Diagnostic& d) {
    return is_error(d) && d.origin == Origin::Compiler;
  });
  out->kernels = parse_ptxas_report(out->log);
  apply_ptx_limits(out->ptx, &out->kernels);
  const std::string expects = c ? "the " + std::string(k_target_names.name_of(c->target)) +
                                      " contract expects: " + std::string(c->signature)
                                : std::string();
  if (c && contract_failed && !user_errors) {
    Diagnostic d;
    d.severity = Severity::Error;
    if (missing) {
      d.message = "no kernel named " + std::string(c->kernel_name) + "; " + expects;
    } else if (not_global) {
      d.line = find_kernel_line(r.source, c->kernel_name);
      d.message = std::string(c->kernel_name) + " is not a __global__ kernel; " + expects;
    } else {
      d.line = find_kernel_line(r.source, c->kernel_name);
      d.message = std::string(c->kernel_name) + " has the wrong signature; " + expects;
    }
    kept.insert(kept.begin(), std::move(d));
  }
  out->diagnostics = std::move(kept);
  const int errors = count_of_severity(out->diagnostics, Severity::Error);
  const int warnings = count_of_severity(out->diagnostics, Severity::Warning);
  const std::string counts = plural(errors, "error") + ", " + plural(warnings, "warning");
  if (user_errors) {
    out->status = CompileStatus::CompileError;
    out->message = "compile failed: " + counts;
  } else if (contract_failed) {
    out->status = CompileStatus::SignatureError;
    out->message = out->diagnostics.front().message;
  } else if (out->cubin.empty()) {
    out->status = tool_errors ? CompileStatus::InvalidRequest : CompileStatus::InternalError;
    out->message = tool_errors ? "NVRTC refused the options: " + out->diagnostics.front().message
                               : "NVRTC gave no CUBIN and no message";
  } else if (c && (out->lowered_name.empty() || (!out->kernels.empty() && out->main_kernel() == nullptr))) {
    // decltype(&name) matched, but ptxas compiled no entry of that name: a __device__ function, not a kernel.
    // (NVRTC 13 usually says so itself through the name expression, above. Without a ptxas report at all,
    // nothing is concluded: the resources are then unknown, not the kernel.)
    Diagnostic d;
    d.line = find_kernel_line(r.source, c->kernel_name);
    d.message = std::string(c->kernel_name) + " is not a __global__ kernel; " + expects;
    out->diagnostics.insert(out->diagnostics.begin(), d);
    out->status = CompileStatus::SignatureError;
    out->message = d.message;
  } else {
    out->status = CompileStatus::Ok;
    out->message = "compiled for sm_" + std::to_string(r.arch) + " (" + plural(warnings, "warning") + ")";
  }
  if (out->status != CompileStatus::Ok) {
    out->cubin.clear();
    out->ptx.clear();
  }
}

std::string failure_line(const CompileResult& r, std::string_view file) {
  std::string out = std::string(file) + ": " + r.message;
  if (r.status != CompileStatus::CompileError) return out;
  for (const Diagnostic& d : r.diagnostics)
    if (d.severity == Severity::Error) return out + "; the first: " + format_diagnostic(d, file);
  return out;
}

long long nvrtc_compile_calls() {
  return g_compile_calls.load();
}

void count_nvrtc_compile() {
  ++g_compile_calls;
}

std::optional<CompileResult> precheck_compile(const CompileRequest& r) {
  CompileResult out;
  out.arch = r.arch;
  const NvrtcLoad& nv = nvrtc();
  if (!nv.ok()) {
    out.status = CompileStatus::NvrtcMissing;
    out.message = nv.error;
    return out;
  }
  out.nvrtc_version = nv.version();
  // The text first: a NUL or a byte that is not UTF-8 is a problem of the source, on its line.
  if (auto p = check_source_text(r.source)) {
    out.status = CompileStatus::CompileError;
    Diagnostic d;
    d.line = p->line;
    d.column = p->column;
    d.message = p->message;
    out.diagnostics.push_back(std::move(d));
    out.message = "compile failed: 1 error, 0 warnings";
    return out;
  }
  if (auto err = check_request(r, nv.supported_archs, out.nvrtc_version)) {
    out.status = CompileStatus::InvalidRequest;
    out.message = *err;
    return out;
  }
  if (auto bad = check_includes(r.source)) {
    out.status = CompileStatus::CompileError;
    out.diagnostics.push_back(*bad);
    out.message = "compile failed: 1 error, 0 warnings";
    return out;
  }
  return std::nullopt;
}

CompileResult compile_kernel(const CompileRequest& r) {
  if (auto early = precheck_compile(r)) return *early;
  return compile_kernel_isolated(r);
}

CompileResult compile_kernel_in_process(const CompileRequest& r) {
  const auto t0 = Clock::now();
  if (auto early = precheck_compile(r)) return *early;
  CompileResult out;
  out.arch = r.arch;
  const NvrtcApi& api = *nvrtc().api;
  out.nvrtc_version = nvrtc().version();
  const Contract* c = r.target ? &contract(*r.target) : nullptr;
  std::string source = define_lines(r.options.defines) + std::string(strip_bom(r.source));
  if (c) {
    if (!source.empty() && source.back() != '\n') source += '\n';
    source += contract_check_source(*c);
    out.kernel_name = c->kernel_name;
  }
  const std::string prelude(prelude_source());
  const char* headers[] = {prelude.c_str()};
  const char* header_names[] = {k_prelude_name};
  nvrtcProgram raw = nullptr;
  nvrtcResult res = api.create_program(&raw, source.c_str(), k_user_file, 1, headers, header_names);
  if (res != NVRTC_SUCCESS) {
    out.status = CompileStatus::InternalError;
    out.message = std::string("nvrtcCreateProgram: ") + api.get_error_string(res);
    return out;
  }
  Program prog(api, raw);
  const std::string name_expr = c ? "&" + std::string(c->kernel_name) : std::string();
  if (c) api.add_name_expression(prog.get(), name_expr.c_str());
  const std::vector<std::string> opts = nvrtc_options(r);
  std::vector<const char*> argv;
  for (const std::string& o : opts)
    argv.push_back(o.c_str());
  ++g_compile_calls;
  const auto tc = Clock::now();
  res = api.compile_program(prog.get(), static_cast<int>(argv.size()), argv.data());
  out.nvrtc_ms = ms_since(tc);
  out.log = program_log(api, prog.get());
  if (res == NVRTC_SUCCESS) {
    size_t n = 0;
    if (api.get_cubin_size(prog.get(), &n) == NVRTC_SUCCESS && n > 0) {
      out.cubin.resize(n);
      api.get_cubin(prog.get(), out.cubin.data());
    }
    if (api.get_ptx_size(prog.get(), &n) == NVRTC_SUCCESS && n > 0) {
      out.ptx.resize(n);
      api.get_ptx(prog.get(), out.ptx.data());
      while (!out.ptx.empty() && out.ptx.back() == '\0')
        out.ptx.pop_back();
    }
    if (c) {
      const char* lowered = nullptr;
      if (api.get_lowered_name(prog.get(), name_expr.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
        out.lowered_name = lowered;
    }
  } else if (res != NVRTC_ERROR_COMPILATION && res != NVRTC_ERROR_INVALID_OPTION) {
    out.status = CompileStatus::InternalError;
    out.message = std::string("nvrtcCompileProgram: ") + api.get_error_string(res);
    out.total_ms = ms_since(t0);
    return out;
  }
  finish_result(r, &out);
  out.total_ms = ms_since(t0);
  return out;
}

}  // namespace bs::kernel
