// compiler.cpp: see compiler.h.
#include "gpu/kernel/compiler.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>

#include "gpu/kernel/nvrtc_api.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs::kernel {

namespace {

std::atomic<long long> g_compile_calls{0};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

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
  return log;
}

std::string plural(int n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
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
  for (const auto& [name, value] : r.options.defines)
    opts.push_back("-D" + name + (value.empty() ? "" : "=" + value));
  std::sort(opts.begin(), opts.end());
  opts.insert(opts.begin(), "--gpu-architecture=sm_" + std::to_string(r.arch));
  // Always: the prelude is pre-included (no include path is searched), and ptxas reports resources.
  opts.push_back(std::string("--pre-include=") + k_prelude_name);
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
  for (const auto& [name, value] : r.options.defines) {
    if (!is_identifier(name)) return "-D" + name + ": a macro name is a C identifier (letters, digits, _)";
    if (value.find_first_of("\n\r") != std::string::npos) return "-D" + name + ": the value has a line break";
  }
  if (r.source.find('\0') != std::string::npos) return "the source contains a NUL byte (not a text file?)";
  return std::nullopt;
}

void finish_result(const CompileRequest& r, CompileResult* out) {
  out->diagnostics = parse_nvrtc_log(out->log, k_user_file, r.source);
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
    return is_error(d) && (d.origin == Origin::User || d.origin == Origin::Prelude);
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
  } else if (c && (out->lowered_name.empty() || out->main_kernel() == nullptr)) {
    // decltype(&name) matched, but ptxas compiled no entry of that name: a __device__ function, not a kernel.
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

long long nvrtc_compile_calls() {
  return g_compile_calls.load();
}

CompileResult compile_kernel(const CompileRequest& r) {
  const auto t0 = Clock::now();
  CompileResult out;
  out.arch = r.arch;
  const NvrtcLoad& nv = nvrtc();
  if (!nv.ok()) {
    out.status = CompileStatus::NvrtcMissing;
    out.message = nv.error;
    return out;
  }
  const NvrtcApi& api = *nv.api;
  out.nvrtc_version = nv.version();
  if (auto err = check_request(r, nv.supported_archs, out.nvrtc_version)) {
    out.status = CompileStatus::InvalidRequest;
    out.message = *err;
    return out;
  }
  const Contract* c = r.target ? &contract(*r.target) : nullptr;
  std::string source = r.source;
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
