// compiler.h: one compile of a user's kernel with NVRTC: source + options + target architecture -> CUBIN,
// PTX, the program log parsed into diagnostics, and each kernel's resource usage. Plain C++ (the UI thread
// and the labs include it); thread-safe (each call has its own nvrtcProgram).
//
// One compile for sm_XX gives both the CUBIN and the PTX: NVRTC 13 keeps the PTX it assembled. Measured on
// the CPU machine (heat template, 2026-11-23, 7 runs each): a compile for sm_90 took 43 ms (median) and its
// PTX was byte-identical to that of a compile for compute_90 (27 ms), so a second compile for the PTX would
// only add time; there is none.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/enum_names.h"
#include "gpu/kernel/contracts.h"
#include "gpu/kernel/diagnostics.h"
#include "gpu/kernel/resources.h"

namespace bs::kernel {

struct CompileOptions {
  bool fast_math = false;                                    // -use_fast_math
  int maxrregcount = 0;                                      // -maxrregcount=N; 0 = no limit
  bool lineinfo = true;                                      // -lineinfo (the PTX pane's source lines)
  bool device_debug = false;                                 // -G (slow code, for debuggers)
  std::vector<std::pair<std::string, std::string>> defines;  // -DNAME=VALUE (VALUE may be empty: -DNAME)
};

// The architecture a compile targets when none is asked for and no device is there (Hopper).
inline constexpr int k_default_arch = 90;

// How long a compile may take and how much memory it may add before it is stopped (isolated_compile.h). A
// normal kernel compiles in well under a second (docs/PERFORMANCE.md); 20 s leaves room for a loaded machine.
inline constexpr double k_default_compile_timeout_s = 20.0;
inline constexpr uint64_t k_default_compile_memory_bytes = uint64_t{2} << 30;

// Limits and abandonment of one compile; not part of what is compiled (the cache key ignores it).
struct CompileControl {
  double timeout_s = k_default_compile_timeout_s;
  uint64_t memory_bytes = k_default_compile_memory_bytes;
  // When set and it becomes true, the compile is stopped at once (the editor's service: a newer edit, Cancel,
  // closing the app). Must outlive the compile.
  const std::atomic<bool>* abandon = nullptr;
};

struct CompileRequest {
  std::string source;
  std::optional<Target> target;  // the contract to check; none: any kernels
  CompileOptions options;
  int arch = k_default_arch;  // 90 = sm_90
  CompileControl control;
};

enum class CompileStatus {
  Ok,
  CompileError,    // NVRTC reported errors in the user's file
  SignatureError,  // compiled, but the contract's kernel is missing or has another signature
  InvalidRequest,  // bad options or architecture (before NVRTC runs)
  NvrtcMissing,    // NVRTC cannot be loaded
  InternalError,   // NVRTC failed otherwise (out of memory, ...)
  LimitExceeded,   // stopped: over the time or memory limit, or abandoned (never cached)
};
inline constexpr auto k_compile_status_names =
    enum_names<CompileStatus>({{CompileStatus::Ok, "ok"},
                               {CompileStatus::CompileError, "compile error"},
                               {CompileStatus::SignatureError, "wrong signature"},
                               {CompileStatus::InvalidRequest, "invalid request"},
                               {CompileStatus::NvrtcMissing, "NVRTC missing"},
                               {CompileStatus::InternalError, "internal error"},
                               {CompileStatus::LimitExceeded, "stopped"}});

struct CompileResult {
  CompileStatus status = CompileStatus::InternalError;
  std::string message;  // one line: what happened ("compiled for sm_90", "2 errors", the signature problem)
  std::string log;      // NVRTC's raw program log
  std::vector<Diagnostic> diagnostics;
  std::string cubin;  // binary (ELF), empty unless Ok
  std::string ptx;    // text, empty unless Ok
  int arch = 0;
  std::string kernel_name;               // the contract's name ("heat_step"); empty without a target
  std::string lowered_name;              // what cuModuleGetFunction needs ("heat_step" for extern "C")
  std::vector<KernelResources> kernels;  // every entry function, as ptxas reported them
  std::string nvrtc_version;             // "13.0"
  double nvrtc_ms = 0;  // nvrtcCompileProgram alone (from the first compile, also for a cache hit)
  double total_ms = 0;  // this request, end to end (a cache hit: the lookup)
  bool from_cache = false;
  bool ok() const { return status == CompileStatus::Ok; }
  // The contract's kernel among `kernels` (or the only kernel without a target); null when absent.
  const KernelResources* main_kernel() const;
};

// The options given to NVRTC for `r` (architecture first, then sorted): part of the cache key. Throws
// nothing; check_request says whether they are valid.
std::vector<std::string> nvrtc_options(const CompileRequest& r);
// nullopt when the request can be compiled by `supported_archs` (nvrtcGetSupportedArchs); otherwise a message
// (e.g. "sm_61 is not supported by NVRTC 13.0 (supported: sm_75, ...)", "-maxrregcount 8: give 16..255").
std::optional<std::string> check_request(const CompileRequest& r, const std::vector<int>& supported_archs,
                                         const std::string& nvrtc_version);
// "sm_90" -> 90; nullopt for anything else ("90", "sm_9x", "compute_90").
std::optional<int> parse_arch(std::string_view text);

// Derives the rest of a result from what NVRTC gave (log, cubin, ptx, lowered_name): diagnostics (the
// contract check's messages turned into one clear message on the kernel's line), kernels' resources, status
// and message. compile_kernel calls it, and the cache does for an entry read back from disk.
void finish_result(const CompileRequest& r, CompileResult* out);

// Compiles with NVRTC (nvrtc() of nvrtc_loader.h) in a child process under r.control's limits
// (isolated_compile.h). Never throws for bad input: the status says what happened. The source is checked
// first (source_file.h: NUL, not UTF-8; a leading BOM is ignored) and so are its #include lines (a pipe, a
// device or a folder is refused before NVRTC would open it).
CompileResult compile_kernel(const CompileRequest& r);
// The checks compile_kernel makes before NVRTC runs: the request (check_request) and the source's text and
// #include lines. A result (CompileError with a diagnostic on the line, or InvalidRequest) when they fail.
std::optional<CompileResult> precheck_compile(const CompileRequest& r);
// One line for a failed compile of `file`, for the CLI's last message: "FILE: compile failed: 2 errors, 0
// warnings; the first: FILE:3:5: error: ..." (the first error named when the message does not hold it).
std::string failure_line(const CompileResult& r, std::string_view file);
// How many times nvrtcCompileProgram has been called in this process (tests: a cache hit must not call it).
long long nvrtc_compile_calls();

}  // namespace bs::kernel
