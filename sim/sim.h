// sim.h: runs a kernel of a parsed PTX module (ptx.h) for one launch on host buffers, thread by thread, without
// a GPU. Plain C++ (no CUDA headers); the kernel lab, the CLI and the exercises use it.
//
// Execution: each block's warps run in lockstep: a warp executes, at each step, the lanes whose program counter
// is the smallest among its unfinished lanes, so structured code reconverges after a branch and shfl/vote see
// the warp together, as on the GPU. bar.sync waits for every unexited thread of the block. Blocks run in
// parallel on host threads. Global buffers live at device-like virtual addresses (aligned to 4 KiB) with wide
// guard zones between them, so an index past the end is reported against the buffer it ran off.
//
// Results are bit-exact where PTX defines them (IEEE rounding of add/sub/mul/fma/div.rn/sqrt.rn/rcp.rn, cvt's
// rounding modes, integer ops), and where ptxas decides: a mul feeding an add/sub, neither with a rounding
// modifier, runs as one fma as ptxas contracts it on the GPU (contract_mul_add, ptx.h). The approximate instructions (ex2/lg2/sin/cos/rsqrt/rcp/tanh .approx,
// div.approx and div.full) are computed in double precision and rounded to float: within PTX's stated error
// bounds of the exact function, so within those bounds (times two) of the GPU's (docs/ARCHITECTURE.md).
//
// A launch never crashes on a bad kernel: an unsupported instruction, an endless loop (the per-thread
// instruction budget), a wild address, a call the simulator cannot make: each ends the launch with one
// message naming the instruction's source line, the thread and the block. Bugs that the GPU would let pass
// silently (out-of-bounds accesses, races, ...) are Diagnostics; the launch goes on.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/ptx.h"

namespace bs::sim {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};
std::string dim_text(Dim3 d);  // "(3, 1, 0)"

// A buffer the kernel gets a pointer to. The simulator reads and writes `data` in place.
struct Buffer {
  std::string name;       // "in", "out", ... (messages)
  void* data = nullptr;
  uint64_t bytes = 0;
  uint32_t elem_bytes = 4;    // the element size the diagnostics count in ("element 1000 of 1000")
  bool output = false;        // checked: elements no thread wrote, elements written by several threads
  uint32_t cols = 0;          // a 2D buffer's row length in elements (pictures, "row 3, column 7"); 0: 1D
};

// A buffer over `v`'s memory (elements of T).
template <class T>
Buffer buffer_over(std::string name, std::vector<T>& v, bool output = false, uint32_t cols = 0) {
  Buffer b;
  b.name = std::move(name);
  b.data = v.data();
  b.bytes = v.size() * sizeof(T);
  b.elem_bytes = sizeof(T);
  b.output = output;
  b.cols = cols;
  return b;
}

// One kernel argument: a pointer to buffer `buffer`, or the raw bytes of a scalar.
struct Arg {
  int buffer = -1;
  std::vector<uint8_t> bytes;
  static Arg pointer(int buffer_index) { return Arg{buffer_index, {}}; }
  template <class T>
  static Arg value(T v) {
    Arg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    return a;
  }
};

// One memory instruction of one warp (what the Observer sees): global, shared, local and atomic accesses
// (loads of kernel parameters are not reported). Addresses: global (and generic pointing to
// global): the virtual address (LaunchResult::buffer_base says where each buffer lives); shared: the offset in
// the block's shared memory; local: the offset in the thread's frame.
enum class Access : uint8_t { Read, Write, Atomic };
struct WarpAccess {
  uint64_t block = 0;  // linear block index: x + nctaid.x * (y + nctaid.y * z)
  uint32_t warp = 0;   // warp in the block (threads numbered x first, then y, then z)
  uint32_t pc = 0;     // the instruction (Module::code index; its line is Module::code[pc].line)
  uint32_t mask = 0;   // lanes that accessed
  Space space = Space::Global;  // resolved (never Generic)
  Access access = Access::Read;
  uint8_t bytes = 4;    // per lane (a .v4.f32 access: 16)
  const uint64_t* addr = nullptr;  // [32]
};

// Receives events while blocks run. Called concurrently from the worker threads: `worker` (0..workers-1)
// lets an implementation keep per-worker storage without locks; every block runs on one worker.
class Observer {
 public:
  virtual ~Observer() = default;
  // Called once per block before it runs (from its worker): false, and no event of that block comes.
  virtual bool wants_block(uint64_t /*block*/) { return true; }
  virtual void on_access(int worker, const WarpAccess& a) = 0;
  // A barrier released: every waiting thread of the block resumes. `pc`: the bar instruction.
  virtual void on_barrier(int worker, uint64_t block, uint32_t pc, uint64_t epoch) = 0;
  // Every warp instruction (only when steps() is true: it costs time): the lanes that executed it.
  virtual bool steps() const { return false; }
  virtual void on_step(int worker, uint64_t block, uint32_t warp, uint32_t pc, uint32_t mask) = 0;
  // Before the first block: how many workers there will be.
  virtual void on_start(int workers) = 0;
};

enum class DiagKind : uint8_t {
  GlobalOutOfBounds,   // a global access outside every buffer (named against the nearest)
  SharedOutOfBounds,   // a shared access past the declared (static + dynamic) size
  SharedRace,          // two threads of different warps, one writing, the same shared bytes, no barrier between
  BarrierDivergence,   // a barrier some threads of the block never reached (they exited or wait elsewhere)
  UninitSharedRead,    // a shared read of bytes no thread of the block had written
  UnwrittenOutput,     // output elements no thread wrote
  MultipleWriters,     // output elements written by more than one thread (not atomically)
};
const char* diag_name(DiagKind k);  // "out-of-bounds", "shared race", ...

struct Diagnostic {
  DiagKind kind{};
  std::string message;  // one sentence, without location ("thread (3, 0, 0) of block (1, 0, 0) read ...")
  int32_t pc = -1;      // the instruction (-1: none, e.g. unwritten outputs)
  std::string file;     // source file (.file of the instruction's .loc), "" without line info
  int32_t line = 0;
  Dim3 thread, block;  // the first thread seen doing it
  uint64_t count = 1;  // occurrences of this kind at this instruction (threads, or elements for outputs)
  int buffer = -1;     // the buffer concerned (global kinds)
  uint64_t element = 0;  // the first element concerned
};
// "kernel.cu:12: out-of-bounds: message" (file/line omitted when unknown).
std::string format_diagnostic(const Diagnostic& d);

// Per instruction (Module::code index), over the whole launch.
struct InstrStats {
  uint64_t warp_execs = 0;    // times a warp executed it (with at least one lane)
  uint64_t thread_execs = 0;  // lanes that executed it (thread_execs / warp_execs: divergence)
  uint64_t requests = 0;      // memory instructions: warp requests (global or shared)
  uint64_t sectors = 0;       // global: distinct 32-byte sectors per request, summed
  uint64_t lines = 0;         // global: distinct 128-byte lines per request, summed
  uint64_t wavefronts = 0;    // shared: max over the 32 banks of distinct 4-byte words, summed
  uint64_t conflicts = 0;     // shared: wavefronts - 1 per request, summed (the memory lab's definition)
};

// Per thread (index: the linear thread id in the grid, block-major: block * threads_per_block + thread).
struct ThreadStats {
  uint32_t instructions = 0;
  uint32_t global_reads = 0;   // global load instructions (a .v4 counts once), atomics count as read and write
  uint32_t global_writes = 0;
};

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<Buffer> buffers;
  std::vector<Arg> args;  // one per kernel parameter
  uint64_t budget = uint64_t{1} << 22;  // instructions per thread before the launch is stopped as endless
  int workers = 0;                      // host threads (0: the hardware's)
  Observer* observer = nullptr;
  bool diagnostics = true;     // shadow state for races, uninitialised reads and output writes (slower)
  bool thread_stats = true;    // per-thread counts (ThreadStats)
  uint64_t max_diagnostics_per_kind = 20;  // distinct (kind, instruction) records kept per kind
  std::atomic<bool>* cancel = nullptr;     // set by another thread: the launch stops with an error
};

// Where a launch failed (the first fatal error).
struct Failure {
  std::string message;  // the whole message, location included
  int32_t pc = -1;
  std::string file;
  int32_t line = 0;
  Dim3 thread, block;
  bool has_thread = false;
};

struct LaunchResult {
  bool ok = false;  // ran to the end (diagnostics may still be present)
  Failure failure;  // when !ok
  std::vector<Diagnostic> diagnostics;
  std::vector<InstrStats> instr;      // per Module::code index
  std::vector<ThreadStats> threads;   // when thread_stats
  std::vector<uint64_t> buffer_base;  // per buffer: its virtual address
  uint64_t thread_instructions = 0;   // lanes executed, summed
  uint64_t warp_instructions = 0;
  double seconds = 0;      // wall time of the run
  double cpu_seconds = 0;  // CPU time of the workers, summed (thread-instructions / cpu_seconds: per core)
  int workers = 0;
  // The buffer holding virtual address `addr` and the offset in it; -1 when none.
  int locate(uint64_t addr, uint64_t* offset = nullptr) const;
  std::vector<uint64_t> buffer_bytes;
};

// A launch's memory totals as the GPU's counters count them (CUPTI / ncu:
// l1tex__t_requests|sectors_pipe_lsu_mem_global_op_ld|st.sum): warp load and store instructions (atomics and
// reductions are other counters there) and their sectors. Shared memory: warp instructions with at least one
// thread executing (smsp__sass_inst_executed_op_shared_ld|st.sum), wavefronts (per instruction, the most
// distinct 4-byte words one bank must deliver: smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld|st.sum)
// and bank conflicts = wavefronts - instructions (the extra wavefronts; a 16-byte access needs 4 at least, so
// L1TEX's l1tex__data_bank_conflicts_... counter, which counts only wavefronts beyond the access's ideal, is lower
// there, and on Hopper it and l1tex__data_pipe_..._wavefronts_... can count more where global traffic shares the
// L1TEX data stage). A generic ld/st counts where its addresses went.
struct MemoryCounts {
  uint64_t ld_requests = 0, ld_sectors = 0, st_requests = 0, st_sectors = 0;
  uint64_t shared_ld_requests = 0, shared_st_requests = 0, shared_ld_conflicts = 0, shared_st_conflicts = 0;
  uint64_t shared_ld_wavefronts = 0, shared_st_wavefronts = 0;
};
MemoryCounts memory_counts(const Module& m, const LaunchResult& r);

// Runs kernel `kernel` (an .entry of `m`) for `cfg`. Never throws for a bad kernel or launch: result.ok false
// and result.failure say why (a bad launch configuration, an argument of the wrong size, an unsupported
// instruction, an endless loop, ...).
LaunchResult launch(const Module& m, std::string_view kernel, const LaunchConfig& cfg);

// The approximate instructions' error bounds this simulator guarantees against the exact function (and PTX
// guarantees for the GPU): tests check them, docs quote them.
struct ApproxBounds {
  static constexpr double ex2_ulp = 2;            // ex2.approx.f32: max 2 ulp (PTX ISA)
  static constexpr double lg2_abs = 1.0 / (1 << 22);  // lg2.approx.f32: 2^-22.6 absolute, rounded up
  static constexpr double sin_cos_abs = 1.0 / (1 << 20);  // sin/cos.approx.f32 in [-pi, pi]: 2^-20.9
  static constexpr double rsqrt_rel = 1.0 / (1 << 22);    // rsqrt.approx.f32: 2^-22.9 relative
  static constexpr double rcp_rel = 1.0 / (1 << 23);      // rcp.approx.f32: 1 ulp
  static constexpr double tanh_rel = 1.0 / (1 << 11);     // tanh.approx.f32: 2^-10.987 relative
};

}  // namespace bs::sim
