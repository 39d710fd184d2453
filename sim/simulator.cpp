// simulator.cpp: see sim.h. One Engine per launch: the buffers' virtual layout, the workers, the diagnostics
// collector. One Worker per host thread runs whole blocks: the block's warps (registers as [register][lane]
// arrays, so one dispatch serves a warp), its shared memory with its shadow (written-by, barrier epoch) and the
// threads' local frames.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <mutex>
#include <set>
#include <thread>

#include "sim/float_ops.h"
#include "sim/sim.h"

namespace bs::sim {

std::string dim_text(Dim3 d) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "(%u, %u, %u)", d.x, d.y, d.z);
  return buf;
}

const char* diag_name(DiagKind k) {
  switch (k) {
    case DiagKind::GlobalOutOfBounds: return "out-of-bounds";
    case DiagKind::SharedOutOfBounds: return "shared out-of-bounds";
    case DiagKind::SharedRace: return "shared-memory race";
    case DiagKind::BarrierDivergence: return "barrier divergence";
    case DiagKind::UninitSharedRead: return "uninitialised shared read";
    case DiagKind::UnwrittenOutput: return "unwritten output";
    case DiagKind::MultipleWriters: return "several writers";
  }
  return "?";
}

std::string format_diagnostic(const Diagnostic& d) {
  std::string s;
  if (d.line > 0) s = (d.file.empty() ? std::string("line ") : d.file + ":") + std::to_string(d.line) + ": ";
  s += diag_name(d.kind);
  s += ": " + d.message;
  if (d.count > 1) s += " (" + std::to_string(d.count) + " times)";
  return s;
}

int LaunchResult::locate(uint64_t addr, uint64_t* offset) const {
  for (size_t i = 0; i < buffer_base.size(); ++i)
    if (addr >= buffer_base[i] && addr - buffer_base[i] < buffer_bytes[i]) {
      if (offset) *offset = addr - buffer_base[i];
      return static_cast<int>(i);
    }
  return -1;
}

namespace {

using fp::Round;
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

constexpr uint64_t k_global_base = 0x00007f0000000000ull;
constexpr uint64_t k_shared_window = 0x0001000000000000ull;  // generic addresses of shared memory
constexpr uint64_t k_local_window = 0x0002000000000000ull;    // of the thread's local frame
constexpr uint64_t k_window_size = 0x0000000100000000ull;
constexpr int k_max_call_depth = 32;
constexpr uint64_t k_max_shared = 227 * 1024;  // a block's shared memory on sm_90 (opt-in maximum)
// Threads in one launch: beyond this a launch would run for days, and grid x block (up to 2^73) would wrap in
// 64 bits. The per-thread counts (LaunchConfig::thread_stats, 12 bytes a thread) have a lower bound: 768 MiB.
constexpr uint64_t k_max_threads = uint64_t{1} << 31;
constexpr uint64_t k_max_stats_threads = uint64_t{1} << 26;

uint64_t mask_of(int bytes) { return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1; }
int64_t sext(uint64_t v, int bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  const int sh = 64 - bytes * 8;
  return static_cast<int64_t>(v << sh) >> sh;
}

Round round_of(uint32_t mods) {
  if (mods & M_RZ) return Round::Zero;
  if (mods & M_RM) return Round::Down;
  if (mods & M_RP) return Round::Up;
  return Round::Nearest;
}

struct BufferRec {
  uint64_t base = 0, bytes = 0, guard = 0;
  uint8_t* host = nullptr;
  uint32_t elem = 4;
  bool output = false;
  std::string name;
  // output tracking: per element the first writer (global thread id + 1) and flags
  std::unique_ptr<std::atomic<uint64_t>[]> writer;
  std::unique_ptr<std::atomic<uint8_t>[]> flags;  // bit 0: written by several threads, bit 1: atomically
  uint64_t elems = 0;
};

struct ShadowWord {
  uint32_t wpc = 0, rpc = 0;  // the instructions of the last write and read
  uint32_t writer = 0;  // thread (in block) + 1
  uint32_t wepoch = 0;  // barrier epoch + 1 of the last write (0: never written)
  uint32_t reader = 0;  // thread + 1 of the last read
  uint32_t repoch = 0;
  bool multi_warp_read = false;
};

struct Fatal {
  std::string message;
  int32_t pc = -1;
  Dim3 thread, block;
  bool has_thread = false;
};

class Engine;

// A warp's state.
struct Warp {
  uint32_t index = 0;
  uint32_t pc = 0;
  uint32_t active = 0;   // lanes at pc, runnable now
  uint32_t live = 0;     // present and not exited
  uint32_t waiting = 0;  // at a barrier
  uint32_t present = 0;  // lanes that are threads of the block
  uint32_t lane_pc[32] = {};
  uint32_t wait_pc[32] = {};
  uint8_t depth[32] = {};
  uint32_t ret_pc[32][k_max_call_depth] = {};
  uint32_t call_pc[32][k_max_call_depth] = {};
  uint64_t steps = 0;
  uint64_t full_steps = 0;  // steps with all present lanes active (per-thread counts)
  // Waiting on another block (a spin on a flag in global memory, note_spin): the steps spent waiting while
  // other blocks ran do not count against the budget.
  uint64_t waited = 0, spin_mark = 0, spin_hash = 0;
  uint32_t spin_pc = UINT32_MAX;
  uint32_t lane_steps[32] = {};
  uint32_t gread[32] = {}, gwrite[32] = {};
  uint8_t carry[32] = {};
  uint64_t tid[3][32] = {};
  std::vector<uint64_t> regs;
};

class Worker {
 public:
  Worker(Engine& e, int id);
  void run_block(uint64_t b);

 private:
  friend class Engine;
  Engine& E;
  const Module& M;
  int m_id;
  std::vector<Warp> m_warps;
  std::vector<uint8_t> m_shared;
  std::vector<ShadowWord> m_shadow;
  std::vector<uint8_t> m_frames;
  std::vector<InstrStats> m_instr;
  uint64_t m_block = 0;
  Dim3 m_ctaid;
  uint32_t m_epoch = 1;
  bool m_observe = false;
  bool m_stalled = false;  // counted in E.stalled_workers
  uint64_t m_thread_instructions = 0, m_warp_instructions = 0;
  uint64_t m_scratch[32] = {};
  uint64_t m_addr[32] = {};
  size_t m_last_buf = 0;

  bool stopped() const;
  void run_warp(Warp& w);
  // The active lanes whose guard predicate (if any) lets them execute `in`.
  uint32_t guarded_lanes(const Warp& w, const Instr& in) const;
  // The counts of one executed instruction (per instruction, per lane) and the observer's step.
  void count_step(Warp& w, InstrStats& st, uint32_t pc, uint32_t exec, bool observe);
  void reschedule(Warp& w);
  void advance(Warp& w);
  Dim3 thread_of(const Warp& w, int lane) const {
    return Dim3{static_cast<uint32_t>(w.tid[0][lane]), static_cast<uint32_t>(w.tid[1][lane]),
                static_cast<uint32_t>(w.tid[2][lane])};
  }
  uint32_t tlin(const Warp& w, int lane) const { return w.index * 32 + static_cast<uint32_t>(lane); }
  void fatal(const Warp& w, int lane, uint32_t pc, const std::string& what);
  void diag(DiagKind k, const Warp& w, int lane, uint32_t pc, const std::string& what, int buffer = -1,
            uint64_t element = 0);

  // operands
  struct Src {
    const uint64_t* p;
    uint32_t m;  // 31 or 0 (an immediate)
    uint64_t operator[](int l) const { return p[l & static_cast<int>(m)]; }
  };
  Src src(Warp& w, const Operand& o, uint64_t* tmp);
  uint64_t* dst(Warp& w, const Operand& o) { return w.regs.data() + static_cast<size_t>(o.reg) * 32; }
  void special(Warp& w, Special s, uint64_t* out);

  struct AluOps {
    Src a, b, c, d4;
    uint64_t* d;
    int nb;
    bool sg;
    uint64_t mk;
    int bits;
  };
  AluOps alu_ops(Warp& w, const Instr& in, uint64_t (&t)[4][32]);
  void exec_alu(Warp& w, const Instr& in, uint32_t exec);
  void exec_bits(Warp& w, const Instr& in, uint32_t exec);
  void exec_float(Warp& w, const Instr& in, uint32_t exec);
  void exec_cvt(Warp& w, const Instr& in, uint32_t exec);
  void exec_setp(Warp& w, const Instr& in, uint32_t exec);
  void exec_mem(Warp& w, const Instr& in, uint32_t exec);
  void exec_shfl(Warp& w, const Instr& in, uint32_t exec);
  void exec_mov(Warp& w, const Instr& in, uint32_t exec);
  void exec_testp(Warp& w, const Instr& in, uint32_t exec);
  void exec_cvta(Warp& w, const Instr& in, uint32_t exec);
  void exec_vote(Warp& w, const Instr& in, uint32_t exec);
  // The instructions that compute on the executing lanes and then fall through to the next instruction: their
  // handler (nullptr: control flow, barriers and what the simulator does not support, which run_warp handles).
  using ExecFn = void (Worker::*)(Warp&, const Instr&, uint32_t);
  static ExecFn exec_fn(const Instr& in);
  // Each executing lane's dst[0] = f(its src[0]).
  template <class F>
  void map_lanes(Warp& w, const Instr& in, uint32_t exec, F f);
  // call: the arguments into the callee's parameters and the lanes to its first instruction (a fatal error
  // past k_max_call_depth); ret/exit: the callee's return values back and the lanes to after the call, or out.
  void exec_call(Warp& w, const Instr& in, uint32_t pc, uint32_t exec);
  void exec_return(Warp& w, const Instr& in, uint32_t exec);
  // Copies symbol from[i] onto symbol to[i] (as many as both lists hold) in the lane's local frame.
  void copy_symbols(const Warp& w, int lane, const std::vector<int32_t>& from, const std::vector<int32_t>& to);
  bool warp_sync_ok(Warp& w, const Instr& in, uint32_t exec, uint64_t membermask);

  // memory
  uint8_t* global_ptr(const Warp& w, int lane, uint32_t pc, uint64_t addr, int bytes, bool write, int* buf);
  void note_output_write(const Warp& w, int lane, uint32_t pc, int buf, uint64_t addr, int bytes, bool atomic);
  bool shared_check(const Warp& w, int lane, uint32_t pc, uint64_t off, int bytes, bool write, bool atomic);
  void count_requests(const Instr& in, uint32_t pc, Space sp, uint32_t mask, int bytes);
  void note_spin(Warp& w, uint32_t pc, uint64_t seen);
  void set_stalled(bool s);
  // Tells the observer of one warp's access to space s (the lanes' addresses are in m_addr).
  void report_access(const Warp& w, Space s, uint32_t mask, Access access, int bytes);
};

class Engine {
 public:
  Engine(const Module& m, const Function& f, const LaunchConfig& cfg, LaunchResult& r)
      : M(m), F(f), C(cfg), R(r) {}

  const Module& M;
  const Function& F;
  const LaunchConfig& C;
  LaunchResult& R;
  std::vector<BufferRec> bufs;  // the launch's buffers, then the module's data segment (if any)
  std::vector<uint8_t> data;    // .global/.const variables
  int data_buf = -1;
  std::vector<uint8_t> params;  // the kernel's parameter block
  uint64_t shared_bytes = 0, local_bytes = 0;  // shared: what a block allocates (static, gap, dynamic)
  uint64_t static_shared = 0, dynamic_at = 0;     // the kernel's static part [0, static_shared), dynamic from dynamic_at
  uint32_t threads_per_block = 0, warps_per_block = 0;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> next_block{0};
  // Workers running a block, and those of them whose warp polls global memory that has not changed (note_spin).
  std::atomic<int> active_workers{0}, stalled_workers{0};
  std::mutex mu;
  std::optional<Fatal> fatal;
  std::map<std::pair<int, int32_t>, size_t> diag_index;  // (kind, pc) -> diagnostics
  std::map<int, uint64_t> diag_kinds;
  std::vector<Diagnostic> diags;
  std::vector<uint64_t> sym_addr;  // global/const symbols: virtual address

  bool setup();
  std::string check_shape();
  std::string check_code();
  std::string place_memory();
  std::string pass_args();
  void run();
  void finish_outputs();
  void set_fatal(Fatal f) {
    std::lock_guard<std::mutex> lock(mu);
    if (!fatal) fatal = std::move(f);
    stop = true;
  }
  Dim3 ctaid_of(uint64_t b) const {
    const Dim3 g = C.grid;
    return Dim3{static_cast<uint32_t>(b % g.x), static_cast<uint32_t>((b / g.x) % g.y),
                static_cast<uint32_t>(b / (uint64_t{g.x} * g.y))};
  }
  void add_diag(Diagnostic d) {
    std::lock_guard<std::mutex> lock(mu);
    const auto key = std::make_pair(static_cast<int>(d.kind), d.pc);
    auto it = diag_index.find(key);
    if (it != diag_index.end()) {
      diags[it->second].count += d.count;
      return;
    }
    uint64_t& n = diag_kinds[static_cast<int>(d.kind)];
    if (n >= C.max_diagnostics_per_kind) return;
    ++n;
    diag_index[key] = diags.size();
    diags.push_back(std::move(d));
  }
  std::string file_of(int32_t pc) const {
    if (pc < 0) return "";
    const int f = M.code[static_cast<size_t>(pc)].file;
    return f > 0 && static_cast<size_t>(f) < M.files.size() ? M.files[static_cast<size_t>(f)] : "";
  }
  std::string where(int32_t pc) const { return pc < 0 ? std::string() : M.where(static_cast<uint32_t>(pc)); }
  // The buffer whose extent (with its guard zones) holds addr; -1: none.
  int nearest(uint64_t addr) const {
    for (size_t i = 0; i < bufs.size(); ++i) {
      const BufferRec& b = bufs[i];
      if (addr + b.guard >= b.base && addr < b.base + b.bytes + b.guard) return static_cast<int>(i);
    }
    return -1;
  }
};

bool Worker::stopped() const { return E.stop.load(std::memory_order_relaxed); }

Worker::Worker(Engine& e, int id) : E(e), M(e.M), m_id(id) {
  m_warps.resize(E.warps_per_block);
  for (size_t i = 0; i < m_warps.size(); ++i) m_warps[i].index = static_cast<uint32_t>(i);
  for (Warp& w : m_warps) w.regs.assign(static_cast<size_t>(M.num_regs) * 32, 0);
  m_shared.assign(E.shared_bytes, 0);
  if (E.C.diagnostics) m_shadow.assign((E.shared_bytes + 3) / 4, ShadowWord{});
  m_frames.assign(E.local_bytes * E.warps_per_block * 32, 0);
  m_instr.assign(M.code.size(), InstrStats{});
}

void Worker::fatal(const Warp& w, int lane, uint32_t pc, const std::string& what) {
  Fatal f;
  f.pc = static_cast<int32_t>(pc);
  f.block = m_ctaid;
  if (lane >= 0) {
    f.thread = thread_of(w, lane);
    f.has_thread = true;
  }
  std::string loc = E.where(f.pc);
  f.message = (loc.empty() ? "" : loc + ": ") + what;
  if (lane >= 0) f.message += " (thread " + dim_text(f.thread) + ", block " + dim_text(f.block) + ")";
  E.set_fatal(std::move(f));
}

void Worker::diag(DiagKind k, const Warp& w, int lane, uint32_t pc, const std::string& what, int buffer,
                  uint64_t element) {
  Diagnostic d;
  d.kind = k;
  d.pc = static_cast<int32_t>(pc);
  d.file = E.file_of(d.pc);
  d.line = M.code[pc].line;
  d.thread = thread_of(w, lane);
  d.block = m_ctaid;
  d.buffer = buffer;
  d.element = element;
  d.message = "thread " + dim_text(d.thread) + " of block " + dim_text(d.block) + " " + what;
  E.add_diag(std::move(d));
}

void Worker::special(Warp& w, Special s, uint64_t* out) {
  const LaunchConfig& C = E.C;
  uint64_t v = 0;
  switch (s) {
    case Special::TidX: std::memcpy(out, w.tid[0], sizeof(uint64_t) * 32); return;
    case Special::TidY: std::memcpy(out, w.tid[1], sizeof(uint64_t) * 32); return;
    case Special::TidZ: std::memcpy(out, w.tid[2], sizeof(uint64_t) * 32); return;
    case Special::LaneId: for (int l = 0; l < 32; ++l) out[l] = static_cast<uint64_t>(l); return;
    case Special::LanemaskEq: for (int l = 0; l < 32; ++l) out[l] = 1ull << l; return;
    case Special::LanemaskLt: for (int l = 0; l < 32; ++l) out[l] = (1ull << l) - 1; return;
    case Special::LanemaskLe: for (int l = 0; l < 32; ++l) out[l] = (2ull << l) - 1; return;
    case Special::LanemaskGt: for (int l = 0; l < 32; ++l) out[l] = (~((2ull << l) - 1)) & 0xffffffffull; return;
    case Special::LanemaskGe: for (int l = 0; l < 32; ++l) out[l] = (~((1ull << l) - 1)) & 0xffffffffull; return;
    case Special::NtidX: v = C.block.x; break;
    case Special::NtidY: v = C.block.y; break;
    case Special::NtidZ: v = C.block.z; break;
    case Special::CtaidX: v = m_ctaid.x; break;
    case Special::CtaidY: v = m_ctaid.y; break;
    case Special::CtaidZ: v = m_ctaid.z; break;
    case Special::NctaidX: v = C.grid.x; break;
    case Special::NctaidY: v = C.grid.y; break;
    case Special::NctaidZ: v = C.grid.z; break;
    case Special::WarpId: v = w.index; break;
    case Special::NWarpId: v = E.warps_per_block; break;
    case Special::SmId: v = static_cast<uint64_t>(m_id); break;
    case Special::NSmId: v = static_cast<uint64_t>(E.R.workers); break;
    case Special::GridId: v = 1; break;
    case Special::Clock: v = w.steps & 0xffffffffu; break;
    case Special::Clock64: v = w.steps; break;
    case Special::GlobalTimer: v = w.steps * 1000; break;
    case Special::DynamicSmemSize: v = C.dynamic_shared_bytes; break;
    case Special::TotalSmemSize: v = E.static_shared + C.dynamic_shared_bytes; break;
  }
  for (int l = 0; l < 32; ++l) out[l] = v;
}

Worker::Src Worker::src(Warp& w, const Operand& o, uint64_t* tmp) {
  switch (o.kind) {
    case Operand::Reg:
      if (o.count == 1) {  // !%p
        const uint64_t* r = w.regs.data() + static_cast<size_t>(o.reg) * 32;
        for (int l = 0; l < 32; ++l) tmp[l] = r[l] ? 0 : 1;
        return Src{tmp, 31};
      }
      return Src{w.regs.data() + static_cast<size_t>(o.reg) * 32, 31};
    case Operand::Imm:
      return Src{reinterpret_cast<const uint64_t*>(&o.imm), 0};
    case Operand::Spec:
      special(w, o.special, tmp);
      return Src{tmp, 31};
    case Operand::SymAddr:
      tmp[0] = E.sym_addr[static_cast<size_t>(o.sym)] + static_cast<uint64_t>(o.imm);
      return Src{tmp, 0};
    default:
      tmp[0] = 0;
      return Src{tmp, 0};
  }
}

template <class F>
inline void for_lanes(uint32_t mask, F f) {
  while (mask) {
    const int l = std::countr_zero(mask);
    mask &= mask - 1;
    f(l);
  }
}

// Picks the lanes to run next: those with the smallest pc. Every schedulable lane's lane_pc must be set.
void Worker::reschedule(Warp& w) {
  const uint32_t sched = w.live & ~w.waiting;
  if (!sched) {
    w.active = 0;
    return;
  }
  uint32_t best = UINT32_MAX;
  for_lanes(sched, [&](int l) { best = std::min(best, w.lane_pc[l]); });
  uint32_t act = 0;
  for_lanes(sched, [&](int l) {
    if (w.lane_pc[l] == best) act |= 1u << l;
  });
  w.pc = best;
  w.active = act;
}

// After an instruction that is not a jump: the active lanes move on together (their lane_pc is implied by
// w.pc), and diverged lanes waiting at the next instruction join them.
inline void Worker::advance(Warp& w) {
  ++w.pc;
  const uint32_t others = w.live & ~w.waiting & ~w.active;
  if (others) {
    for_lanes(others, [&](int l) {
      if (w.lane_pc[l] == w.pc) w.active |= 1u << l;
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Integer and bit operations
// An integer instruction's operands (up to four sources, the destination) and its type's width.
Worker::AluOps Worker::alu_ops(Warp& w, const Instr& in, uint64_t (&t)[4][32]) {
  const auto operand = [&](int k) { return in.nsrc > k ? src(w, in.src[k], t[k]) : Src{t[k], 0}; };
  AluOps o{operand(0), operand(1), operand(2), operand(3), dst(w, in.dst[0]), 1, type_signed(in.type), 0, 0};
  o.nb = std::max(1, type_bytes(in.type));
  o.mk = in.type == Type::Pred ? 1 : mask_of(o.nb);
  o.bits = o.nb * 8;
  return o;
}

// Integer arithmetic: add/sub (saturating, with carry), mul/mad (wide, hi, 24-bit), sad, div/rem, abs, neg,
// min/max.
void Worker::exec_alu(Warp& w, const Instr& in, uint32_t exec) {
  uint64_t t[4][32];
  const AluOps o = alu_ops(w, in, t);
  const Src a = o.a, b = o.b, c = o.c;
  uint64_t* d = o.d;
  const int nb = o.nb, bits = o.bits;
  const bool sg = o.sg;
  const uint64_t mk = o.mk;
  auto put = [&](int l, uint64_t v) { d[l] = v & mk; };
  switch (in.op) {
    case Op::Add:
      if ((in.mods & M_SAT) && sg) {
        for_lanes(exec, [&](int l) {
          const int64_t v = sext(a[l], 4) + sext(b[l], 4);
          put(l, static_cast<uint64_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)));
        });
      } else {
        for_lanes(exec, [&](int l) { put(l, a[l] + b[l]); });
      }
      return;
    case Op::Sub:
      if ((in.mods & M_SAT) && sg) {
        for_lanes(exec, [&](int l) {
          const int64_t v = sext(a[l], 4) - sext(b[l], 4);
          put(l, static_cast<uint64_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)));
        });
      } else {
        for_lanes(exec, [&](int l) { put(l, a[l] - b[l]); });
      }
      return;
    case Op::AddCC:
    case Op::AddC:
    case Op::SubCC:
    case Op::SubC: {
      const bool sub = in.op == Op::SubCC || in.op == Op::SubC;
      const bool use_c = in.op == Op::AddC || in.op == Op::SubC;
      const bool set_c = (in.mods & M_CC) != 0;
      for_lanes(exec, [&](int l) {
        const u128 x = a[l] & mk, y = b[l] & mk;
        const u128 cin = use_c ? w.carry[l] : 0;
        u128 r;
        uint8_t cout;
        if (!sub) {
          r = x + y + cin;
          cout = static_cast<uint8_t>((r >> bits) & 1);
        } else {  // borrow semantics: carry = 1 means borrow
          r = x - y - cin;
          cout = static_cast<uint8_t>(x < y + cin);
        }
        put(l, static_cast<uint64_t>(r));
        if (set_c) w.carry[l] = cout;
      });
      return;
    }
    case Op::Mul:
    case Op::Mad: {
      const bool mad = in.op == Op::Mad;
      if (in.mods & M_WIDE) {
        for_lanes(exec, [&](int l) {
          const uint64_t p = sg ? static_cast<uint64_t>(sext(a[l], nb) * sext(b[l], nb))
                                : (a[l] & mk) * (b[l] & mk);
          d[l] = (p + (mad ? c[l] : 0)) & mask_of(nb * 2);
        });
      } else if (in.mods & M_HI) {
        for_lanes(exec, [&](int l) {
          uint64_t hi;
          if (sg) {
            const i128 p = static_cast<i128>(sext(a[l], nb)) * sext(b[l], nb);
            hi = static_cast<uint64_t>(p >> bits);
          } else {
            const u128 p = static_cast<u128>(a[l] & mk) * (b[l] & mk);
            hi = static_cast<uint64_t>(p >> bits);
          }
          put(l, hi + (mad ? c[l] : 0));
        });
      } else {
        for_lanes(exec, [&](int l) { put(l, a[l] * b[l] + (mad ? c[l] : 0)); });
      }
      return;
    }
    case Op::Mul24:
    case Op::Mad24:
      for_lanes(exec, [&](int l) {
        const int64_t x = sg ? sext(a[l] & 0xffffff, 3) : static_cast<int64_t>(a[l] & 0xffffff);
        const int64_t y = sg ? sext(b[l] & 0xffffff, 3) : static_cast<int64_t>(b[l] & 0xffffff);
        const uint64_t p = static_cast<uint64_t>(x * y);
        const uint64_t r = (in.mods & M_HI) ? (p >> 16) : p;
        put(l, r + (in.op == Op::Mad24 ? c[l] : 0));
      });
      return;
    case Op::Sad:
      for_lanes(exec, [&](int l) {
        const uint64_t diff = sg ? static_cast<uint64_t>(std::llabs(sext(a[l], nb) - sext(b[l], nb)))
                                 : ((a[l] & mk) > (b[l] & mk) ? (a[l] & mk) - (b[l] & mk) : (b[l] & mk) - (a[l] & mk));
        put(l, diff + c[l]);
      });
      return;
    case Op::Div:
    case Op::Rem:
      for_lanes(exec, [&](int l) {
        const bool rem = in.op == Op::Rem;
        if (sg) {
          const int64_t x = sext(a[l], nb), y = sext(b[l], nb);
          if (y == 0) put(l, rem ? static_cast<uint64_t>(x) : ~0ull);
          else if (y == -1) put(l, rem ? 0 : static_cast<uint64_t>(-static_cast<uint64_t>(x)));
          else put(l, static_cast<uint64_t>(rem ? x % y : x / y));
        } else {
          const uint64_t x = a[l] & mk, y = b[l] & mk;
          if (y == 0) put(l, rem ? x : ~0ull);
          else put(l, rem ? x % y : x / y);
        }
      });
      return;
    case Op::Abs:
      for_lanes(exec, [&](int l) { put(l, static_cast<uint64_t>(std::llabs(sext(a[l], nb)))); });
      return;
    case Op::Neg:
      for_lanes(exec, [&](int l) { put(l, static_cast<uint64_t>(0) - a[l]); });
      return;
    case Op::Min:
    case Op::Max: {
      const bool mx = in.op == Op::Max;
      for_lanes(exec, [&](int l) {
        bool first;
        if (sg) first = mx ? sext(a[l], nb) >= sext(b[l], nb) : sext(a[l], nb) <= sext(b[l], nb);
        else first = mx ? (a[l] & mk) >= (b[l] & mk) : (a[l] & mk) <= (b[l] & mk);
        put(l, first ? a[l] : b[l]);
      });
      return;
    }
    default:
      return;
  }
}

// Bit operations and selects: and/or/xor/not/cnot/lop3, shifts and funnel shifts, popc/clz/brev/bfind,
// bfe/bfi/prmt, selp/slct, copysign.
void Worker::exec_bits(Warp& w, const Instr& in, uint32_t exec) {
  uint64_t t[4][32];
  const AluOps o = alu_ops(w, in, t);
  const Src a = o.a, b = o.b, c = o.c, d4 = o.d4;
  uint64_t* d = o.d;
  const int nb = o.nb, bits = o.bits;
  const bool sg = o.sg;
  const uint64_t mk = o.mk;
  auto put = [&](int l, uint64_t v) { d[l] = v & mk; };
  switch (in.op) {
    case Op::And: for_lanes(exec, [&](int l) { put(l, a[l] & b[l]); }); return;
    case Op::Or: for_lanes(exec, [&](int l) { put(l, a[l] | b[l]); }); return;
    case Op::Xor: for_lanes(exec, [&](int l) { put(l, a[l] ^ b[l]); }); return;
    case Op::Not: for_lanes(exec, [&](int l) { put(l, ~a[l]); }); return;
    case Op::Cnot: for_lanes(exec, [&](int l) { put(l, (a[l] & mk) == 0 ? 1 : 0); }); return;
    case Op::Lop3:
      for_lanes(exec, [&](int l) {
        const uint64_t lut = d4[l] & 0xff;
        uint64_t r = 0;
        for (int i = 0; i < 8; ++i)
          if ((lut >> i) & 1)
            r |= ((i & 4) ? a[l] : ~a[l]) & ((i & 2) ? b[l] : ~b[l]) & ((i & 1) ? c[l] : ~c[l]);
        put(l, r);
      });
      return;
    case Op::Shl:
      for_lanes(exec, [&](int l) {
        const uint64_t s = b[l] & 0xffffffffu;
        put(l, s >= static_cast<uint64_t>(bits) ? 0 : a[l] << s);
      });
      return;
    case Op::Shr:
      for_lanes(exec, [&](int l) {
        const uint64_t s = std::min<uint64_t>(b[l] & 0xffffffffu, static_cast<uint64_t>(bits));
        if (sg) {
          const int64_t x = sext(a[l], nb);
          put(l, static_cast<uint64_t>(s >= static_cast<uint64_t>(bits) ? (x < 0 ? -1 : 0) : x >> s));
        } else {
          put(l, s >= static_cast<uint64_t>(bits) ? 0 : (a[l] & mk) >> s);
        }
      });
      return;
    case Op::Shf:
      for_lanes(exec, [&](int l) {
        const uint64_t lo = a[l] & 0xffffffffu, hi = b[l] & 0xffffffffu;
        uint64_t n = c[l] & 0xffffffffu;
        n = in.cmp == Cmp::Eq ? (n & 31) : std::min<uint64_t>(n, 32);
        const uint64_t both = (hi << 32) | lo;
        put(l, in.sub == Sub::ShfL ? ((both << n) >> 32) : (both >> n));
      });
      return;
    case Op::Popc: for_lanes(exec, [&](int l) { d[l] = static_cast<uint64_t>(std::popcount(a[l] & mk)); }); return;
    case Op::Clz:
      for_lanes(exec, [&](int l) {
        d[l] = static_cast<uint64_t>(std::countl_zero(a[l] & mk) - (64 - bits));
      });
      return;
    case Op::Brev:
      for_lanes(exec, [&](int l) {
        uint64_t x = a[l] & mk, r = 0;
        for (int i = 0; i < bits; ++i) r |= ((x >> i) & 1) << (bits - 1 - i);
        put(l, r);
      });
      return;
    case Op::Bfind:
      for_lanes(exec, [&](int l) {
        uint64_t x = a[l] & mk;
        if (sg && sext(x, nb) < 0) x = ~x & mk;
        const uint64_t pos = static_cast<uint64_t>(63 - std::countl_zero(x));
        d[l] = x == 0 ? 0xffffffffu : (in.mods & M_SHIFTAMT) ? static_cast<uint64_t>(bits - 1) - pos : pos;
      });
      return;
    case Op::Bfe:
      for_lanes(exec, [&](int l) {
        const uint64_t pos = b[l] & 0xff, len = c[l] & 0xff;
        const uint64_t x = a[l] & mk;
        uint64_t r = 0;
        for (uint64_t i = 0; i < len && i < static_cast<uint64_t>(bits); ++i)
          if (pos + i < static_cast<uint64_t>(bits)) r |= ((x >> (pos + i)) & 1) << i;
        if (sg && len > 0) {
          const uint64_t msb = std::min<uint64_t>(pos + len - 1, static_cast<uint64_t>(bits - 1));
          const uint64_t sbit = (x >> msb) & 1;
          if (sbit)
            for (uint64_t i = len; i < static_cast<uint64_t>(bits); ++i) r |= 1ull << i;
        }
        put(l, r);
      });
      return;
    case Op::Bfi:
      for_lanes(exec, [&](int l) {
        const uint64_t pos = c[l] & 0xff, len = d4[l] & 0xff;
        uint64_t r = b[l] & mk;
        for (uint64_t i = 0; i < len && pos + i < static_cast<uint64_t>(bits); ++i) {
          const uint64_t bit = (a[l] >> i) & 1;
          r = (r & ~(1ull << (pos + i))) | (bit << (pos + i));
        }
        put(l, r);
      });
      return;
    case Op::Prmt:
      for_lanes(exec, [&](int l) {
        const uint64_t bytes8 = ((b[l] & 0xffffffffu) << 32) | (a[l] & 0xffffffffu);
        const uint64_t sel = c[l];
        uint64_t r = 0;
        for (int i = 0; i < 4; ++i) {
          const uint64_t s = (sel >> (4 * i)) & 0xf;
          uint64_t byte = (bytes8 >> (8 * (s & 7))) & 0xff;
          if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
          r |= byte << (8 * i);
        }
        put(l, r);
      });
      return;
    case Op::Selp: for_lanes(exec, [&](int l) { put(l, c[l] ? a[l] : b[l]); }); return;
    case Op::Slct:
      for_lanes(exec, [&](int l) {
        const bool ge = in.type2 == Type::F32 ? !(fp::f32(c[l]) < 0.0f) : sext(c[l], 4) >= 0;
        put(l, ge ? a[l] : b[l]);
      });
      return;
    case Op::Copysign: {
      const uint64_t sbit = in.type == Type::F64 ? (1ull << 63) : (1ull << 31);
      for_lanes(exec, [&](int l) { put(l, (b[l] & ~sbit) | (a[l] & sbit)); });
      return;
    }
    default:
      return;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Floating point
// add, sub, mul and fma/mad in precision T with rounding r (A, B, C: a lane's operands; put: its result);
// false for the other operations.
template <class T, class GetA, class GetB, class GetC, class Put>
bool exec_rounded(const Instr& in, uint32_t exec, Round r, GetA A, GetB B, GetC C, Put put) {
  switch (in.op) {
    case Op::Add: for_lanes(exec, [&](int l) { put(l, fp::add<T>(A(l), B(l), r)); }); return true;
    case Op::Sub: for_lanes(exec, [&](int l) { put(l, fp::add<T>(A(l), -B(l), r)); }); return true;
    case Op::Mul: for_lanes(exec, [&](int l) { put(l, fp::mul<T>(A(l), B(l), r)); }); return true;
    case Op::Fma:
    case Op::Mad:
      if (in.mods & M_CONTRACTED) {  // a mul + add/sub pair (contract_mul_add): the product or addend negated
        const T pa = in.mods & M_NEG_PRODUCT ? T(-1) : T(1), pc = in.mods & M_NEG_ADDEND ? T(-1) : T(1);
        for_lanes(exec, [&](int l) { put(l, fp::fma<T>(pa * A(l), B(l), pc * C(l), r)); });
        return true;
      }
      for_lanes(exec, [&](int l) { put(l, fp::fma<T>(A(l), B(l), C(l), r)); });
      return true;
    default: return false;
  }
}

void Worker::exec_float(Warp& w, const Instr& in, uint32_t exec) {
  uint64_t t0[32], t1[32], t2[32];
  const Src a = in.nsrc > 0 ? src(w, in.src[0], t0) : Src{t0, 0};
  const Src b = in.nsrc > 1 ? src(w, in.src[1], t1) : Src{t1, 0};
  const Src c = in.nsrc > 2 ? src(w, in.src[2], t2) : Src{t2, 0};
  uint64_t* d = dst(w, in.dst[0]);
  const Round r = round_of(in.mods);
  const bool ftz = in.mods & M_FTZ, sat = in.mods & M_SAT, approx = in.mods & (M_APPROX | M_FULL);
  if (in.type == Type::F64) {
    auto A = [&](int l) { return fp::f64(a[l]); };
    auto B = [&](int l) { return fp::f64(b[l]); };
    auto C = [&](int l) { return fp::f64(c[l]); };
    auto put = [&](int l, double v) { d[l] = fp::bits64(sat ? fp::sat(v) : v); };
    if (exec_rounded<double>(in, exec, r, A, B, C, put)) return;
    switch (in.op) {
      case Op::Div: for_lanes(exec, [&](int l) { put(l, fp::div(A(l), B(l), r)); }); return;
      case Op::Sqrt: for_lanes(exec, [&](int l) { put(l, fp::sqrt(A(l), r)); }); return;
      case Op::Rcp: for_lanes(exec, [&](int l) { put(l, fp::div(1.0, A(l), r)); }); return;
      case Op::Rsqrt: for_lanes(exec, [&](int l) { put(l, 1.0 / std::sqrt(A(l))); }); return;
      case Op::Abs: for_lanes(exec, [&](int l) { d[l] = a[l] & ~(1ull << 63); }); return;
      case Op::Neg: for_lanes(exec, [&](int l) { d[l] = a[l] ^ (1ull << 63); }); return;
      case Op::Min: for_lanes(exec, [&](int l) { put(l, fp::fmin(A(l), B(l))); }); return;
      case Op::Max: for_lanes(exec, [&](int l) { put(l, fp::fmax(A(l), B(l))); }); return;
      default: return;
    }
  }
  auto fz = [&](float x) { return ftz ? fp::ftz(x) : x; };
  auto A = [&](int l) { return fz(fp::f32(a[l])); };
  auto B = [&](int l) { return fz(fp::f32(b[l])); };
  auto C = [&](int l) { return fz(fp::f32(c[l])); };
  auto put = [&](int l, float v) {
    v = fz(v);
    if (sat) v = fp::sat(v);
    d[l] = fp::bits32(v);
  };
  auto approx_put = [&](int l, double v) { put(l, static_cast<float>(v)); };
  if (exec_rounded<float>(in, exec, r, A, B, C, put)) return;
  switch (in.op) {
    case Op::Div:
      if (approx) for_lanes(exec, [&](int l) { approx_put(l, static_cast<double>(A(l)) / B(l)); });
      else for_lanes(exec, [&](int l) { put(l, fp::div(A(l), B(l), r)); });
      return;
    case Op::Sqrt:
      if (approx) for_lanes(exec, [&](int l) { approx_put(l, std::sqrt(static_cast<double>(A(l)))); });
      else for_lanes(exec, [&](int l) { put(l, fp::sqrt(A(l), r)); });
      return;
    case Op::Rcp:
      if (approx) for_lanes(exec, [&](int l) { approx_put(l, 1.0 / static_cast<double>(A(l))); });
      else for_lanes(exec, [&](int l) { put(l, fp::div(1.0f, A(l), r)); });
      return;
    case Op::Rsqrt: for_lanes(exec, [&](int l) { approx_put(l, 1.0 / std::sqrt(static_cast<double>(A(l)))); }); return;
    case Op::Ex2: for_lanes(exec, [&](int l) { approx_put(l, std::exp2(static_cast<double>(A(l)))); }); return;
    case Op::Lg2: for_lanes(exec, [&](int l) { approx_put(l, std::log2(static_cast<double>(A(l)))); }); return;
    case Op::Sin: for_lanes(exec, [&](int l) { approx_put(l, std::sin(static_cast<double>(A(l)))); }); return;
    case Op::Cos: for_lanes(exec, [&](int l) { approx_put(l, std::cos(static_cast<double>(A(l)))); }); return;
    case Op::Tanh: for_lanes(exec, [&](int l) { approx_put(l, std::tanh(static_cast<double>(A(l)))); }); return;
    case Op::Abs: for_lanes(exec, [&](int l) { d[l] = fp::bits32(std::fabs(A(l))) & 0xffffffffu; d[l] = std::isnan(fp::f32(a[l])) ? (a[l] & 0x7fffffffu) : d[l]; }); return;
    case Op::Neg: for_lanes(exec, [&](int l) { d[l] = std::isnan(fp::f32(a[l])) ? ((a[l] ^ 0x80000000u) & 0xffffffffu) : fp::bits32(-A(l)); }); return;
    case Op::Min: for_lanes(exec, [&](int l) { put(l, fp::fmin(A(l), B(l))); }); return;
    case Op::Max: for_lanes(exec, [&](int l) { put(l, fp::fmax(A(l), B(l))); }); return;
    default: return;
  }
}

// ---------------------------------------------------------------------------------------------------------
void Worker::exec_cvt(Warp& w, const Instr& in, uint32_t exec) {
  uint64_t t0[32];
  const Src a = src(w, in.src[0], t0);
  uint64_t* d = dst(w, in.dst[0]);
  const Type dt = in.type, st = in.type2;
  const int db = type_bytes(dt), sb = type_bytes(st);
  const Round r = round_of(in.mods);
  const bool ftz = in.mods & M_FTZ, sat = in.mods & M_SAT;
  auto read_float = [&](int l) -> double {
    if (st == Type::F64) return fp::f64(a[l]);
    if (st == Type::F16) return fp::half_to_float(static_cast<uint16_t>(a[l]));
    float f = fp::f32(a[l]);
    if (ftz) f = fp::ftz(f);
    return f;
  };
  for_lanes(exec, [&](int l) {
    if (!type_float(dt) && !type_float(st)) {  // integer <-> integer: extend or truncate, .sat clamps
      const int64_t sv = type_signed(st) ? sext(a[l], sb) : static_cast<int64_t>(a[l] & mask_of(sb));
      uint64_t v = static_cast<uint64_t>(sv);
      if (sat) {
        if (type_signed(dt)) {
          const int64_t lo = db >= 8 ? INT64_MIN : -(int64_t{1} << (db * 8 - 1));
          const int64_t hi = db >= 8 ? INT64_MAX : (int64_t{1} << (db * 8 - 1)) - 1;
          if (!type_signed(st) && (a[l] & mask_of(sb)) > static_cast<uint64_t>(hi)) v = static_cast<uint64_t>(hi);
          else v = static_cast<uint64_t>(std::clamp(sv, lo, hi));
        } else {
          const uint64_t hi = mask_of(db);
          if (type_signed(st) && sv < 0) v = 0;
          else v = std::min<uint64_t>(a[l] & mask_of(sb), hi);
        }
      }
      if (db < 4 && type_signed(dt)) d[l] = static_cast<uint64_t>(sext(v, db)) & 0xffffffffu;
      else d[l] = v & mask_of(db);
      return;
    }
    if (type_float(st) && !type_float(dt)) {  // float -> int
      const Round rr = (in.mods & (M_RN | M_RZ | M_RM | M_RP)) ? r : Round::Zero;
      d[l] = fp::to_int(read_float(l), rr, db, type_signed(dt));
      if (db < 4 && type_signed(dt)) d[l] = static_cast<uint64_t>(sext(d[l], db)) & 0xffffffffu;
      return;
    }
    if (!type_float(st) && type_float(dt)) {  // int -> float
      const int64_t v = type_signed(st) ? sext(a[l], sb) : static_cast<int64_t>(a[l] & mask_of(sb));
      if (dt == Type::F64) {
        double x = fp::from_int_f64(v, type_signed(st), r);
        if (sat) x = fp::sat(x);
        d[l] = fp::bits64(x);
      } else if (dt == Type::F16) {
        d[l] = fp::float_to_half(fp::from_int(v, type_signed(st), r), r);
      } else {
        float x = fp::from_int(v, type_signed(st), r);
        if (sat) x = fp::sat(x);
        d[l] = fp::bits32(x);
      }
      return;
    }
    // float -> float
    const double x = read_float(l);
    const bool integral = in.mods & M_INT_ROUND;
    if (dt == Type::F64) {
      double y = integral ? fp::round_integral(x, r) : x;
      if (sat) y = fp::sat(y);
      d[l] = fp::bits64(y);
    } else if (dt == Type::F16) {
      d[l] = fp::float_to_half(static_cast<float>(x), r);
    } else {
      float y = integral ? static_cast<float>(fp::round_integral(x, r))
                         : (st == Type::F64 ? fp::narrow(x, r) : static_cast<float>(x));
      if (ftz) y = fp::ftz(y);
      if (sat) y = fp::sat(y);
      d[l] = fp::bits32(y);
    }
  });
}

void Worker::exec_setp(Warp& w, const Instr& in, uint32_t exec) {
  uint64_t t0[32], t1[32], t2[32];
  const Src a = src(w, in.src[0], t0);
  const Src b = in.nsrc > 1 ? src(w, in.src[1], t1) : Src{t1, 0};
  const Src c = in.nsrc > 2 ? src(w, in.src[2], t2) : Src{t2, 0};
  const Type t = in.op == Op::Set ? in.type2 : in.type;
  const int nb = std::max(1, type_bytes(t));
  const bool ftz = in.mods & M_FTZ;
  auto cmp = [&](int l) -> bool {
    if (type_float(t)) {
      double x, y;
      if (t == Type::F64) {
        x = fp::f64(a[l]);
        y = fp::f64(b[l]);
      } else {
        float fx = fp::f32(a[l]), fy = fp::f32(b[l]);
        if (ftz) {
          fx = fp::ftz(fx);
          fy = fp::ftz(fy);
        }
        x = fx;
        y = fy;
      }
      const bool un = std::isnan(x) || std::isnan(y);
      switch (in.cmp) {
        case Cmp::Eq: return !un && x == y;
        case Cmp::Ne: return !un && x != y;
        case Cmp::Lt: return !un && x < y;
        case Cmp::Le: return !un && x <= y;
        case Cmp::Gt: return !un && x > y;
        case Cmp::Ge: return !un && x >= y;
        case Cmp::Equ: return un || x == y;
        case Cmp::Neu: return un || x != y;
        case Cmp::Ltu: return un || x < y;
        case Cmp::Leu: return un || x <= y;
        case Cmp::Gtu: return un || x > y;
        case Cmp::Geu: return un || x >= y;
        case Cmp::Num: return !un;
        case Cmp::Nan: return un;
        default: return false;
      }
    }
    if (t == Type::Pred || !type_signed(t)) {
      const uint64_t x = a[l] & mask_of(nb), y = b[l] & mask_of(nb);
      switch (in.cmp) {
        case Cmp::Eq: return x == y;
        case Cmp::Ne: return x != y;
        case Cmp::Lt: case Cmp::Lo: return x < y;
        case Cmp::Le: case Cmp::Ls: return x <= y;
        case Cmp::Gt: case Cmp::Hi: return x > y;
        case Cmp::Ge: case Cmp::Hs: return x >= y;
        default: return false;
      }
    }
    const int64_t x = sext(a[l], nb), y = sext(b[l], nb);
    switch (in.cmp) {
      case Cmp::Eq: return x == y;
      case Cmp::Ne: return x != y;
      case Cmp::Lt: return x < y;
      case Cmp::Le: return x <= y;
      case Cmp::Gt: return x > y;
      case Cmp::Ge: return x >= y;
      case Cmp::Lo: return static_cast<uint64_t>(x) < static_cast<uint64_t>(y);
      case Cmp::Ls: return static_cast<uint64_t>(x) <= static_cast<uint64_t>(y);
      case Cmp::Hi: return static_cast<uint64_t>(x) > static_cast<uint64_t>(y);
      case Cmp::Hs: return static_cast<uint64_t>(x) >= static_cast<uint64_t>(y);
      default: return false;
    }
  };
  auto comb = [&](bool p, int l) {
    const bool q = c[l] != 0;
    switch (in.boolop) {
      case BoolOp::And: return p && q;
      case BoolOp::Or: return p || q;
      case BoolOp::Xor: return p != q;
      default: return p;
    }
  };
  if (in.op == Op::Set) {
    uint64_t* d = dst(w, in.dst[0]);
    for_lanes(exec, [&](int l) {
      const bool p = comb(cmp(l), l);
      d[l] = in.type == Type::F32 ? (p ? 0x3f800000u : 0) : (p ? mask_of(type_bytes(in.type)) : 0);
    });
    return;
  }
  uint64_t* p = dst(w, in.dst[0]);
  uint64_t* q = in.ndst > 1 ? dst(w, in.dst[1]) : nullptr;
  for_lanes(exec, [&](int l) {
    const bool v = cmp(l);
    p[l] = comb(v, l) ? 1 : 0;
    if (q) q[l] = comb(!v, l) ? 1 : 0;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Memory
uint8_t* Worker::global_ptr(const Warp& w, int lane, uint32_t pc, uint64_t addr, int bytes, bool write, int* buf) {
  *buf = -1;
  if (m_last_buf < E.bufs.size()) {  // most accesses hit the buffer the previous one hit
    const BufferRec& b = E.bufs[m_last_buf];
    if (addr >= b.base && addr - b.base + static_cast<uint64_t>(bytes) <= b.bytes) {
      *buf = static_cast<int>(m_last_buf);
      return b.host + (addr - b.base);
    }
  }
  for (size_t i = 0; i < E.bufs.size(); ++i) {
    const BufferRec& b = E.bufs[i];
    if (addr >= b.base && addr - b.base < b.bytes) {
      if (addr - b.base + static_cast<uint64_t>(bytes) > b.bytes) break;
      *buf = static_cast<int>(i);
      m_last_buf = i;
      return b.host + (addr - b.base);
    }
  }
  const int n = E.nearest(addr);
  std::string what = write ? "wrote " : "read ";
  what += std::to_string(bytes) + " bytes ";
  if (n >= 0) {
    const BufferRec& b = E.bufs[static_cast<size_t>(n)];
    const int64_t rel = static_cast<int64_t>(addr - b.base);
    const int64_t elem = rel >= 0 ? rel / static_cast<int64_t>(b.elem) : -((-rel + b.elem - 1) / b.elem);
    const uint64_t count = b.bytes / b.elem;
    what += "at element " + std::to_string(elem) + " of '" + b.name + "' (" + std::to_string(count) +
            " elements): " + (rel < 0 ? "before its start" : "past its end");
    diag(DiagKind::GlobalOutOfBounds, w, lane, pc, what, n, static_cast<uint64_t>(elem));
  } else {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(addr));
    what += std::string("at address ") + hex + ", in no buffer (a null or wild pointer?)";
    diag(DiagKind::GlobalOutOfBounds, w, lane, pc, what);
  }
  return nullptr;
}

void Worker::note_output_write(const Warp& w, int lane, uint32_t pc, int buf, uint64_t addr, int bytes,
                               bool atomic) {
  BufferRec& b = E.bufs[static_cast<size_t>(buf)];
  if (!b.output || !b.writer) return;
  const uint64_t me = m_block * E.threads_per_block + tlin(w, lane) + 1;
  const uint64_t first = (addr - b.base) / b.elem, last = (addr - b.base + static_cast<uint64_t>(bytes) - 1) / b.elem;
  for (uint64_t e = first; e <= last && e < b.elems; ++e) {
    if (atomic) {
      b.flags[e].fetch_or(2, std::memory_order_relaxed);
      uint64_t z = 0;
      b.writer[e].compare_exchange_strong(z, me, std::memory_order_relaxed);
      continue;
    }
    uint64_t expected = 0;
    if (b.writer[e].compare_exchange_strong(expected, me, std::memory_order_relaxed)) continue;
    if (expected == me) continue;
    if (b.flags[e].load(std::memory_order_relaxed) & 3) continue;  // already reported, or atomic
    if (b.flags[e].fetch_or(1, std::memory_order_relaxed) & 1) continue;
    const uint64_t other = expected - 1;
    const uint64_t ob = other / E.threads_per_block, ot = other % E.threads_per_block;
    const Dim3 bt{static_cast<uint32_t>(ot % E.C.block.x), static_cast<uint32_t>((ot / E.C.block.x) % E.C.block.y),
                  static_cast<uint32_t>(ot / (uint64_t{E.C.block.x} * E.C.block.y))};
    diag(DiagKind::MultipleWriters, w, lane, pc,
         "wrote element " + std::to_string(e) + " of '" + b.name + "', which thread " + dim_text(bt) +
             " of block " + dim_text(E.ctaid_of(ob)) + " also wrote (a result depends on which write lands last)",
         buf, e);
  }
}

bool Worker::shared_check(const Warp& w, int lane, uint32_t pc, uint64_t off, int bytes, bool write, bool atomic) {
  const uint64_t end = off + static_cast<uint64_t>(bytes);
  const bool in_static = end <= E.static_shared;
  const bool in_dynamic = E.C.dynamic_shared_bytes && off >= E.dynamic_at && end <= E.shared_bytes;
  if (off >= k_window_size || !(in_static || in_dynamic)) {
    std::string declared = std::to_string(E.static_shared) + " bytes of static shared memory";
    if (E.C.dynamic_shared_bytes)
      declared += " and its " + std::to_string(E.C.dynamic_shared_bytes) + " dynamic bytes at offset " +
                  std::to_string(E.dynamic_at);
    diag(DiagKind::SharedOutOfBounds, w, lane, pc,
         std::string(write ? "wrote " : "read ") + std::to_string(bytes) + " bytes at shared offset " +
             std::to_string(static_cast<int64_t>(off)) + ", outside the block's " + declared);
    return false;
  }
  if (!E.C.diagnostics) return true;
  const uint32_t me = tlin(w, lane) + 1;
  const uint32_t my_warp = w.index;
  for (uint64_t word = off / 4; word <= (off + static_cast<uint64_t>(bytes) - 1) / 4; ++word) {
    ShadowWord& s = m_shadow[word];
    const bool other_warp_wrote = s.wepoch == m_epoch && s.writer != me && (s.writer - 1) / 32 != my_warp;
    if (!write || atomic) {
      if (s.wepoch == 0 && !atomic) {
        diag(DiagKind::UninitSharedRead, w, lane, pc,
             "read shared offset " + std::to_string(word * 4) + ", which no thread of the block had written");
      } else if (other_warp_wrote && !atomic) {
        const uint32_t o = s.writer - 1;
        diag(DiagKind::SharedRace, w, lane, pc,
             "read shared offset " + std::to_string(word * 4) + " that thread " + std::to_string(o) +
                 " (warp " + std::to_string(o / 32) + ") wrote at " + E.where(static_cast<int32_t>(s.wpc)) +
                 " with no barrier in between");
      }
      if (s.repoch == m_epoch && s.reader != me && (s.reader - 1) / 32 != my_warp) s.multi_warp_read = true;
      else if (s.repoch != m_epoch) s.multi_warp_read = false;
      s.reader = me;
      s.repoch = m_epoch;
      s.rpc = pc;
    }
    if (write) {
      if (!atomic) {
        if (other_warp_wrote) {
          const uint32_t o = s.writer - 1;
          diag(DiagKind::SharedRace, w, lane, pc,
               "wrote shared offset " + std::to_string(word * 4) + " that thread " + std::to_string(o) + " (warp " +
                   std::to_string(o / 32) + ") also wrote at " + E.where(static_cast<int32_t>(s.wpc)) +
                   " with no barrier in between");
        } else if (s.repoch == m_epoch && (s.multi_warp_read || (s.reader != me && (s.reader - 1) / 32 != my_warp))) {
          const uint32_t o = s.reader - 1;
          diag(DiagKind::SharedRace, w, lane, pc,
               "wrote shared offset " + std::to_string(word * 4) + " that thread " + std::to_string(o) + " (warp " +
                   std::to_string(o / 32) + ") read at " + E.where(static_cast<int32_t>(s.rpc)) +
                   " with no barrier in between");
        }
      }
      s.writer = me;
      s.wepoch = m_epoch;
      s.wpc = pc;
    }
  }
  return true;
}

namespace {
// Sorts (insertion sort: a warp's addresses mostly come in order, so this is near linear) and counts the
// distinct values.
int distinct(uint64_t* v, int n) {
  for (int i = 1; i < n; ++i) {
    const uint64_t x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = x;
  }
  return static_cast<int>(std::unique(v, v + n) - v);
}
}  // namespace

void Worker::count_requests(const Instr& in, uint32_t pc, Space sp, uint32_t mask, int bytes) {
  if (in.fused_stores < 0) return;  // counted with the first store of its group (fuse_adjacent_stores)
  if (in.fused_stores > 0) bytes *= in.fused_stores;
  InstrStats& st = m_instr[pc];
  ++st.requests;
  uint64_t tmp[128];
  int n = 0;
  if (sp == Space::Global) {
    for_lanes(mask, [&](int l) {
      for (uint64_t s = m_addr[l] >> 5; s <= (m_addr[l] + static_cast<uint64_t>(bytes) - 1) >> 5 && n < 128; ++s)
        tmp[n++] = s;
    });
    st.sectors += static_cast<uint64_t>(distinct(tmp, n));
    for (int i = 0; i < n; ++i) tmp[i] >>= 2;
    st.lines += static_cast<uint64_t>(distinct(tmp, n));
  } else if (sp == Space::Shared) {
    for_lanes(mask, [&](int l) {
      for (uint64_t wd = m_addr[l] >> 2; wd <= (m_addr[l] + static_cast<uint64_t>(bytes) - 1) >> 2 && n < 128; ++wd)
        tmp[n++] = wd;
    });
    n = distinct(tmp, n);
    int per_bank[32] = {};
    int wave = 0;
    for (int i = 0; i < n; ++i) wave = std::max(wave, ++per_bank[tmp[i] & 31]);
    st.wavefronts += static_cast<uint64_t>(wave);
    st.conflicts += static_cast<uint64_t>(wave > 1 ? wave - 1 : 0);
  }
}

// A memory operation's bytes at `p` (size n) as a register value, and back.
inline uint64_t load_bits(const uint8_t* p, int n) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(n));
  return v;
}
inline void store_bits(uint8_t* p, int n, uint64_t v) { std::memcpy(p, &v, static_cast<size_t>(n)); }

// ld/st.relaxed|acquire|release|volatile on global memory: host atomics (aligned 4- and 8-byte words; the
// alignment is checked before), since other blocks run at the same time on other workers.
inline uint64_t strong_load(const uint8_t* p, int n) {
  if (n == 8) return __atomic_load_n(reinterpret_cast<const uint64_t*>(p), __ATOMIC_ACQUIRE);
  if (n == 4) return __atomic_load_n(reinterpret_cast<const uint32_t*>(p), __ATOMIC_ACQUIRE);
  return load_bits(p, n);
}
inline void strong_store(uint8_t* p, int n, uint64_t v) {
  if (n == 8) __atomic_store_n(reinterpret_cast<uint64_t*>(p), v, __ATOMIC_RELEASE);
  else if (n == 4) __atomic_store_n(reinterpret_cast<uint32_t*>(p), static_cast<uint32_t>(v), __ATOMIC_RELEASE);
  else store_bits(p, n, v);
}

// The value an atomic leaves in memory: `old` combined with the operand v (cas: compared with v, replaced
// by c3), in the instruction's type of eb bytes.
uint64_t atom_result(const Instr& in, int eb, uint64_t old, uint64_t v, uint64_t c3) {
  const uint64_t mk = mask_of(eb);
  const bool sg = type_signed(in.type);
  switch (in.sub) {
    case Sub::AtomAdd:
      if (in.type == Type::F32) return fp::bits32(fp::f32(old) + fp::f32(v));
      if (in.type == Type::F64) return fp::bits64(fp::f64(old) + fp::f64(v));
      return (old + v) & mk;
    case Sub::AtomMin:
      if (in.type == Type::F32) return fp::bits32(fp::fmin(fp::f32(old), fp::f32(v)));
      return sg ? (sext(old, eb) <= sext(v, eb) ? old : v & mk) : ((old & mk) <= (v & mk) ? old : v & mk);
    case Sub::AtomMax:
      if (in.type == Type::F32) return fp::bits32(fp::fmax(fp::f32(old), fp::f32(v)));
      return sg ? (sext(old, eb) >= sext(v, eb) ? old : v & mk) : ((old & mk) >= (v & mk) ? old : v & mk);
    case Sub::AtomInc: return (old & mk) >= (v & mk) ? 0 : old + 1;
    case Sub::AtomDec: return ((old & mk) == 0 || (old & mk) > (v & mk)) ? v & mk : old - 1;
    case Sub::AtomExch: return v & mk;
    case Sub::AtomCas: return (old & mk) == (v & mk) ? (c3 & mk) : old;  // atom.cas d, [a], b (compare), c (new)
    case Sub::AtomAnd: return old & v & mk;
    case Sub::AtomOr: return (old | v) & mk;
    case Sub::AtomXor: return (old ^ v) & mk;
    default: return old;
  }
}

// Replaces the eb bytes at p with update(old) and returns old. Global memory: a CAS loop on 4- and 8-byte
// words, since other blocks run at the same time on other workers; shared and local memory are the block's.
template <class F>
uint64_t atomic_update(uint8_t* p, bool global, int eb, F update) {
  if (global && eb == 4) {
    uint32_t* q = reinterpret_cast<uint32_t*>(p);
    uint32_t o = __atomic_load_n(q, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(q, &o, static_cast<uint32_t>(update(o)), false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
    }
    return o;
  }
  if (global && eb == 8) {
    uint64_t* q = reinterpret_cast<uint64_t*>(p);
    uint64_t o = __atomic_load_n(q, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(q, &o, update(o), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return o;
  }
  const uint64_t old = load_bits(p, eb);
  store_bits(p, eb, update(old));
  return old;
}

void Worker::set_stalled(bool s) {
  if (s == m_stalled) return;
  m_stalled = s;
  if (s) E.stalled_workers.fetch_add(1, std::memory_order_relaxed);
  else E.stalled_workers.fetch_sub(1, std::memory_order_relaxed);
}

// A strong global load (ld.relaxed/.acquire/.volatile: how a block reads another block's flag) at pc saw `seen`
// (the lanes' values, hashed). Seeing the same as this warp's last look there, the warp is waiting on another
// block: while some other worker runs a block that is not itself waiting, the steps since that look are
// refunded from the budget (a legitimate spin, e.g. the decoupled look-back) and the host thread yields; when
// every running block waits, nothing can change the value and the budget runs out as for any endless loop.
void Worker::note_spin(Warp& w, uint32_t pc, uint64_t seen) {
  if (pc != w.spin_pc || seen != w.spin_hash) {
    w.spin_pc = pc;
    w.spin_hash = seen;
    w.spin_mark = w.steps;
    set_stalled(false);
    return;
  }
  set_stalled(true);
  if (E.stalled_workers.load(std::memory_order_relaxed) < E.active_workers.load(std::memory_order_relaxed)) {
    w.waited += w.steps - w.spin_mark;
    std::this_thread::yield();
  }
  w.spin_mark = w.steps;
}

void Worker::report_access(const Warp& w, Space s, uint32_t mask, Access access, int bytes) {
  WarpAccess ev;
  ev.block = m_block;
  ev.warp = w.index;
  ev.pc = w.pc;
  ev.mask = mask;
  ev.space = s;
  ev.access = access;
  ev.bytes = static_cast<uint8_t>(bytes);
  ev.addr = m_addr;
  E.C.observer->on_access(m_id, ev);
}

void Worker::exec_mem(Warp& w, const Instr& in, uint32_t exec) {
  const bool is_ld = in.op == Op::Ld, is_st = in.op == Op::St;
  const bool is_atom = in.op == Op::Atom || in.op == Op::Red;
  const bool strong = (in.mods & (M_STRONG | M_VOLATILE)) != 0 && in.vec == 1;
  const int eb = std::max(1, type_bytes(in.type));
  const int vec = in.vec;
  const int bytes = eb * vec;
  const Operand& addr_op = in.src[0];  // ld/st/atom/red: the address is the first source
  const uint64_t* basep = nullptr;
  uint64_t sym_base = 0;
  if (addr_op.reg >= 0) basep = w.regs.data() + static_cast<size_t>(addr_op.reg) * 32;
  if (addr_op.sym >= 0) sym_base = E.sym_addr[static_cast<size_t>(addr_op.sym)];
  // resolve addresses and spaces per lane
  uint32_t sp_mask[6] = {};
  for_lanes(exec, [&](int l) {
    uint64_t a = (basep ? basep[l] : 0) + sym_base + static_cast<uint64_t>(addr_op.imm);
    Space s = in.space;
    if (s == Space::Generic) {
      if (a >= k_shared_window && a < k_shared_window + k_window_size) {
        s = Space::Shared;
        a -= k_shared_window;
      } else if (a >= k_local_window && a < k_local_window + k_window_size) {
        s = Space::Local;
        a -= k_local_window;
      } else {
        s = Space::Global;
      }
    } else if (s == Space::Shared) {
      a &= 0xffffffffu;
    }
    m_addr[l] = a;
    sp_mask[static_cast<int>(s)] |= 1u << l;
  });
  // alignment
  for_lanes(exec, [&](int l) {
    if (!stopped() && (m_addr[l] & static_cast<uint64_t>(bytes - 1)) && !sp_mask[static_cast<int>(Space::Param)])
      fatal(w, l, w.pc,
            "misaligned address: a " + std::to_string(bytes) + "-byte access at an address that is not a multiple of " +
                std::to_string(bytes) + " (the GPU stops the kernel here)");
  });
  if (stopped()) return;
  uint64_t tv[32];
  uint64_t* dvec[4] = {nullptr, nullptr, nullptr, nullptr};
  // A signed load into a register wider than its type is sign-extended to the register's width (PTX: ld.s32
  // into a .b64 register, as NVRTC emits for `long long x = int_array[i]`); 32-bit registers keep 32 bits.
  bool dwide[4] = {false, false, false, false};
  const auto wide_reg = [&](int32_t r) {
    return r >= 0 && static_cast<size_t>(r) < M.reg_types.size() && type_bytes(M.reg_types[static_cast<size_t>(r)]) == 8;
  };
  Src val{tv, 0};
  Src cmpv{tv, 0};
  uint64_t tv2[32];
  if (is_ld || in.op == Op::Atom) {
    const Operand& d = in.dst[0];
    if (d.kind == Operand::Vec) {
      for (int i = 0; i < d.count; ++i) {
        dvec[i] = d.vreg[i] >= 0 ? w.regs.data() + static_cast<size_t>(d.vreg[i]) * 32 : nullptr;
        dwide[i] = wide_reg(d.vreg[i]);
      }
    } else {
      dvec[0] = dst(w, d);
      dwide[0] = wide_reg(d.reg);
    }
  }
  const Operand* vals = nullptr;
  if (is_st) vals = &in.src[1];
  if (in.op == Op::Red) vals = &in.src[1];
  if (in.op == Op::Atom) vals = &in.src[1];
  uint64_t vtmp[4][32];
  const uint64_t* vrow[4] = {nullptr, nullptr, nullptr, nullptr};
  uint32_t vstride[4] = {0, 0, 0, 0};
  if (vals) {
    if (vals->kind == Operand::Vec) {
      for (int i = 0; i < vals->count; ++i) {
        if (vals->vreg[i] < 0) { vtmp[i][0] = 0; vrow[i] = vtmp[i]; continue; }
        vrow[i] = w.regs.data() + static_cast<size_t>(vals->vreg[i]) * 32;
        vstride[i] = 31;
      }
    } else {
      const Src s = src(w, *vals, vtmp[0]);
      vrow[0] = s.p;
      vstride[0] = s.m;
    }
    val = Src{vrow[0], vstride[0]};
    if (in.op == Op::Atom && in.sub == Sub::AtomCas) cmpv = src(w, in.src[2], tv2);
  }
  const bool observe = m_observe && E.C.observer;
  const bool count_global = E.C.thread_stats;
  for (int si = 0; si < 6; ++si) {
    const uint32_t mask = sp_mask[si];
    if (!mask) continue;
    const Space s = static_cast<Space>(si);
    if (s == Space::Global || s == Space::Shared) count_requests(in, w.pc, s, mask, bytes);
    // kernel-parameter loads are not memory traffic worth drawing
    if (observe && s != Space::Param)
      report_access(w, s, mask, is_ld ? Access::Read : is_st ? Access::Write : Access::Atomic, bytes);
    for_lanes(mask, [&](int l) {
      const uint64_t a = m_addr[l];
      uint8_t* p = nullptr;
      int buf = -1;
      switch (s) {
        case Space::Global:
        case Space::Const:
          p = global_ptr(w, l, w.pc, a, bytes, !is_ld, &buf);
          if (count_global) {
            if (!is_st) ++w.gread[l];
            if (!is_ld) ++w.gwrite[l];
          }
          if (p && !is_ld && buf >= 0 && buf != E.data_buf) note_output_write(w, l, w.pc, buf, a, bytes, is_atom);
          if (p && !is_ld && buf == E.data_buf && s == Space::Const) p = nullptr;
          break;
        case Space::Shared:
          if (shared_check(w, l, w.pc, a, bytes, !is_ld, is_atom)) p = m_shared.data() + a;
          break;
        case Space::Local:
          if (a + static_cast<uint64_t>(bytes) <= E.local_bytes)
            p = m_frames.data() + (static_cast<size_t>(tlin(w, l)) * E.local_bytes) + a;
          else
            fatal(w, l, w.pc, "local-memory access at offset " + std::to_string(a) + ", past the thread's " +
                                  std::to_string(E.local_bytes) + "-byte frame");
          break;
        case Space::Param:
          if (is_ld && a + static_cast<uint64_t>(bytes) <= E.params.size()) p = E.params.data() + a;
          else fatal(w, l, w.pc, "kernel-parameter access outside the parameters");
          break;
        default:
          break;
      }
      if (is_ld) {
        for (int i = 0; i < vec; ++i) {
          if (!dvec[i]) continue;
          uint64_t v = p && strong && s == Space::Global ? strong_load(p, eb) : p ? load_bits(p + i * eb, eb) : 0;
          if (type_signed(in.type) && eb < 8 && dwide[i]) v = static_cast<uint64_t>(sext(v, eb));
          else if (type_signed(in.type) && eb < 4) v = static_cast<uint64_t>(sext(v, eb)) & 0xffffffffu;
          dvec[i][l] = v;
        }
        return;
      }
      if (is_st) {
        if (!p) return;
        if (strong && s == Space::Global) {
          strong_store(p, eb, vrow[0][l & static_cast<int>(vstride[0])]);
          return;
        }
        for (int i = 0; i < vec; ++i) store_bits(p + i * eb, eb, vrow[i][l & static_cast<int>(vstride[i])]);
        return;
      }
      // atomics: read-modify-write (global: a CAS loop, other blocks run at the same time)
      if (!p) {
        if (dvec[0]) dvec[0][l] = 0;
        return;
      }
      const uint64_t v = vrow[0][l & static_cast<int>(vstride[0])];
      const uint64_t c3 = cmpv[l];  // cas: the third operand, the new value
      const uint64_t old = atomic_update(p, s == Space::Global, eb,
                                         [&](uint64_t o) { return atom_result(in, eb, o, v, c3); });
      if (in.op == Op::Atom && dvec[0]) dvec[0][l] = old;
    });
    if (stopped()) return;
    if (is_ld && strong && s == Space::Global && dvec[0]) {
      uint64_t seen = 0;
      for_lanes(mask, [&](int l) { seen = (seen ^ dvec[0][l]) * 0x100000001b3ull + static_cast<uint64_t>(l); });
      note_spin(w, w.pc, seen);
    }
  }
}

bool Worker::warp_sync_ok(Warp& w, const Instr& in, uint32_t exec, uint64_t membermask) {
  (void)in;
  const uint32_t missing = static_cast<uint32_t>(membermask) & w.live & ~exec;
  if (!missing) return true;
  fatal(w, std::countr_zero(exec), w.pc,
        "lane " + std::to_string(std::countr_zero(missing)) +
            " is named in the warp-synchronous instruction's mask but did not reach it with the others "
            "(a diverged warp: the mask must name only the lanes that execute it together)");
  return false;
}

void Worker::exec_shfl(Warp& w, const Instr& in, uint32_t exec) {
  uint64_t ta[32], tb[32], tc[32], tm[32];
  const Src a = src(w, in.src[0], ta);
  const Src b = src(w, in.src[1], tb);
  const Src c = src(w, in.src[2], tc);
  const Src mm = in.nsrc > 3 ? src(w, in.src[3], tm) : Src{tm, 0};
  if (in.nsrc <= 3) tm[0] = 0xffffffffu;
  if (!warp_sync_ok(w, in, exec, mm[std::countr_zero(exec)])) return;
  uint64_t av[32];
  for (int l = 0; l < 32; ++l) av[l] = a[l];
  uint64_t* d = dst(w, in.dst[0]);
  uint64_t* p = in.ndst > 1 ? dst(w, in.dst[1]) : nullptr;
  for_lanes(exec, [&](int l) {
    const int bval = static_cast<int>(b[l] & 31);
    const int cval = static_cast<int>(c[l] & 31);
    const int segmask = static_cast<int>((c[l] >> 8) & 31);
    const int max_lane = (l & segmask) | (cval & ~segmask);
    const int min_lane = l & segmask;
    int j = l;
    bool pval = false;
    switch (in.sub) {
      case Sub::ShflUp: j = l - bval; pval = j >= max_lane; break;
      case Sub::ShflDown: j = l + bval; pval = j <= max_lane; break;
      case Sub::ShflBfly: j = l ^ bval; pval = j <= max_lane; break;
      case Sub::ShflIdx: j = min_lane | (bval & ~segmask); pval = j <= max_lane; break;
      default: break;
    }
    if (!pval) j = l;
    d[l] = av[j] & 0xffffffffu;
    if (p) p[l] = pval ? 1 : 0;
  });
}

// ---------------------------------------------------------------------------------------------------------
template <class F>
void Worker::map_lanes(Warp& w, const Instr& in, uint32_t exec, F f) {
  uint64_t t[32];
  const Src x = src(w, in.src[0], t);
  uint64_t* d = dst(w, in.dst[0]);
  for_lanes(exec, [&](int l) { d[l] = f(x[l]); });
}

void Worker::exec_mov(Warp& w, const Instr& in, uint32_t exec) {
  const Operand& s = in.src[0];
  const Operand& d = in.dst[0];
  if (d.kind == Operand::Vec) {  // unpack {a, b} = x
    uint64_t t[32];
    const Src x = src(w, s, t);
    const int part = type_bytes(in.type) / d.count;
    for (int i = 0; i < d.count; ++i) {
      if (d.vreg[i] < 0) continue;
      uint64_t* r = w.regs.data() + static_cast<size_t>(d.vreg[i]) * 32;
      for_lanes(exec, [&](int l) { r[l] = (x[l] >> (i * part * 8)) & mask_of(part); });
    }
  } else if (s.kind == Operand::Vec) {  // pack x = {a, b}
    uint64_t* r = dst(w, d);
    const int part = type_bytes(in.type) / s.count;
    for_lanes(exec, [&](int l) {
      uint64_t v = 0;
      for (int i = 0; i < s.count; ++i)
        if (s.vreg[i] >= 0) v |= (w.regs[static_cast<size_t>(s.vreg[i]) * 32 + static_cast<size_t>(l)] & mask_of(part)) << (i * part * 8);
      r[l] = v;
    });
  } else if (in.type == Type::Pred) {
    map_lanes(w, in, exec, [](uint64_t x) -> uint64_t { return x ? 1 : 0; });
  } else {
    const uint64_t mk = mask_of(std::max(1, type_bytes(in.type)));
    map_lanes(w, in, exec, [mk](uint64_t x) { return x & mk; });
  }
}

void Worker::exec_testp(Warp& w, const Instr& in, uint32_t exec) {
  map_lanes(w, in, exec, [&](uint64_t x) -> uint64_t {
    const double v = in.type == Type::F64 ? fp::f64(x) : fp::f32(x);
    const int cls = std::fpclassify(in.type == Type::F64 ? v : static_cast<float>(v));
    switch (in.cmp) {
      case Cmp::Eq: return std::isfinite(v);
      case Cmp::Ne: return std::isinf(v);
      case Cmp::Num: return !std::isnan(v);
      case Cmp::Nan: return std::isnan(v);
      case Cmp::Lt: return cls == FP_NORMAL;
      case Cmp::Gt: return cls == FP_SUBNORMAL;
      default: return 0;
    }
  });
}

void Worker::exec_cvta(Warp& w, const Instr& in, uint32_t exec) {
  const bool to = in.mods & M_TO;
  uint64_t win = 0;
  if (in.space == Space::Shared) win = k_shared_window;
  else if (in.space == Space::Local) win = k_local_window;
  const uint64_t mk = mask_of(std::max(4, type_bytes(in.type)));
  map_lanes(w, in, exec, [&](uint64_t v) {
    if (win) v = to ? (v >= win && v < win + k_window_size ? v - win : v) : (v & 0xffffffffu) + win;
    return v & mk;
  });
}

void Worker::exec_vote(Warp& w, const Instr& in, uint32_t exec) {
  uint64_t ta[32], tm[32];
  const Src a = src(w, in.src[0], ta);
  const Src mm = in.nsrc > 1 ? src(w, in.src[1], tm) : Src{tm, 0};
  if (in.nsrc <= 1) tm[0] = 0xffffffffu;
  if (!warp_sync_ok(w, in, exec, mm[std::countr_zero(exec)])) return;
  uint32_t ballot = 0;
  for_lanes(exec, [&](int l) {
    if (a[l]) ballot |= 1u << l;
  });
  uint64_t* d = dst(w, in.dst[0]);
  for_lanes(exec, [&](int l) {
    switch (in.sub) {
      case Sub::VoteAll: d[l] = ballot == exec; break;
      case Sub::VoteAny: d[l] = ballot != 0; break;
      case Sub::VoteUni: d[l] = ballot == 0 || ballot == exec; break;
      default: d[l] = ballot; break;
    }
  });
}

void Worker::copy_symbols(const Warp& w, int lane, const std::vector<int32_t>& from,
                          const std::vector<int32_t>& to) {
  uint8_t* frame = m_frames.data() + static_cast<size_t>(tlin(w, lane)) * E.local_bytes;
  for (size_t i = 0; i < from.size() && i < to.size(); ++i) {
    const Symbol& a = M.symbols[static_cast<size_t>(from[i])];
    const Symbol& b = M.symbols[static_cast<size_t>(to[i])];
    std::memmove(frame + b.offset, frame + a.offset, static_cast<size_t>(std::min(a.bytes, b.bytes)));
  }
}

void Worker::exec_call(Warp& w, const Instr& in, uint32_t pc, uint32_t exec) {
  const Function& f = M.functions[static_cast<size_t>(in.target)];
  for_lanes(exec, [&](int l) {
    if (w.depth[l] >= k_max_call_depth) {
      fatal(w, l, pc, "calls nested more than " + std::to_string(k_max_call_depth) + " deep");
      return;
    }
    copy_symbols(w, l, in.call_args, f.params);
    w.ret_pc[l][w.depth[l]] = pc + 1;
    w.call_pc[l][w.depth[l]] = pc;
    ++w.depth[l];
    w.lane_pc[l] = f.first;
  });
}

void Worker::exec_return(Warp& w, const Instr& in, uint32_t exec) {
  for_lanes(exec, [&](int l) {
    if (in.op == Op::Exit || w.depth[l] == 0) {
      w.live &= ~(1u << l);
      return;
    }
    --w.depth[l];
    const Instr& call = M.code[w.call_pc[l][w.depth[l]]];
    const Function& f = M.functions[static_cast<size_t>(call.target)];
    copy_symbols(w, l, f.rets, call.call_rets);
    w.lane_pc[l] = w.ret_pc[l][w.depth[l]];
  });
}

uint32_t Worker::guarded_lanes(const Warp& w, const Instr& in) const {
  if (in.guard < 0) return w.active;
  const uint64_t* g = w.regs.data() + static_cast<size_t>(in.guard) * 32;
  uint32_t m = 0;
  for_lanes(w.active, [&](int l) {
    if ((g[l] != 0) != in.guard_neg) m |= 1u << l;
  });
  return m;
}

void Worker::count_step(Warp& w, InstrStats& st, uint32_t pc, uint32_t exec, bool observe) {
  ++st.warp_execs;
  const int n = std::popcount(exec);
  st.thread_execs += static_cast<uint64_t>(n);
  m_thread_instructions += static_cast<uint64_t>(n);
  ++m_warp_instructions;
  if (exec == w.present) ++w.full_steps;
  else for_lanes(exec, [&](int l) { ++w.lane_steps[l]; });
  if (observe) E.C.observer->on_step(m_id, m_block, w.index, pc, exec);
}

Worker::ExecFn Worker::exec_fn(const Instr& in) {
  switch (in.op) {
    case Op::Mov: return &Worker::exec_mov;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Mad: case Op::Div: case Op::Abs: case Op::Neg:
    case Op::Min: case Op::Max:
      return type_float(in.type) ? &Worker::exec_float : &Worker::exec_alu;
    case Op::Fma: case Op::Sqrt: case Op::Rsqrt: case Op::Rcp: case Op::Ex2: case Op::Lg2: case Op::Sin:
    case Op::Cos: case Op::Tanh:
      return &Worker::exec_float;
    case Op::Mul24: case Op::Mad24: case Op::Sad: case Op::Rem: case Op::AddCC: case Op::AddC: case Op::SubCC:
    case Op::SubC:
      return &Worker::exec_alu;
    case Op::And: case Op::Or: case Op::Xor: case Op::Not: case Op::Cnot: case Op::Lop3: case Op::Shl:
    case Op::Shr: case Op::Shf: case Op::Popc: case Op::Clz: case Op::Brev: case Op::Bfe: case Op::Bfi:
    case Op::Prmt: case Op::Bfind: case Op::Selp: case Op::Slct: case Op::Copysign:
      return &Worker::exec_bits;
    case Op::Testp: return &Worker::exec_testp;
    case Op::Setp: case Op::Set: return &Worker::exec_setp;
    case Op::Cvt: return &Worker::exec_cvt;
    case Op::Cvta: return &Worker::exec_cvta;
    case Op::Ld: case Op::St: case Op::Atom: case Op::Red: return &Worker::exec_mem;
    case Op::Shfl: return &Worker::exec_shfl;
    case Op::Vote: return &Worker::exec_vote;
    default: return nullptr;
  }
}

void Worker::run_warp(Warp& w) {
  const std::vector<Instr>& code = M.code;
  InstrStats* istats = m_instr.data();
  const uint64_t budget = E.C.budget;
  const bool steps = m_observe && E.C.observer && E.C.observer->steps();
  while (w.active) {
    if ((w.steps & 1023) == 0 && stopped()) return;
    const uint32_t pc = w.pc;
    const Instr& in = code[pc];
    const uint32_t exec = guarded_lanes(w, in);
    ++w.steps;
    if (w.steps - w.waited > budget) {
      fatal(w, std::countr_zero(w.active), pc,
            m_stalled
                ? "waited " + std::to_string(budget) +
                      " instructions for a value in global memory that no running block changes: a spin on a "
                      "flag no thread sets? (every block that runs at the same time waits too)"
                : "ran " + std::to_string(budget) +
                      " instructions without finishing: an endless loop? (the simulator's budget per thread; "
                      "raise it with --budget if the kernel really needs more)");
      return;
    }
    if (exec) count_step(w, istats[pc], pc, exec, steps);
    if (const ExecFn data_op = exec_fn(in)) {
      if (exec) (this->*data_op)(w, in, exec);
      if (stopped()) return;
      advance(w);
      continue;
    }
    switch (in.op) {
      case Op::Nop:
      case Op::Membar:
        break;
      case Op::Activemask: {
        uint64_t* d = dst(w, in.dst[0]);
        for_lanes(exec, [&](int l) { d[l] = exec; });
        break;
      }
      case Op::BarWarp: {
        if (!exec) break;
        uint64_t tm[32];
        const Src mm = in.nsrc > 0 ? src(w, in.src[0], tm) : Src{tm, 0};
        if (in.nsrc == 0) tm[0] = 0xffffffffu;
        warp_sync_ok(w, in, exec, mm[std::countr_zero(exec)]);
        break;
      }
      case Op::Bar: {
        if (in.nsrc > 1) {
          fatal(w, std::countr_zero(w.active), pc,
                "bar.sync with a thread count (a named barrier for part of the block) is not supported by the "
                "simulator");
          return;
        }
        if (!exec) break;
        // the executing lanes wait here; predicated-off lanes go on
        w.waiting |= exec;
        for_lanes(exec, [&](int l) {
          w.wait_pc[l] = pc;
          w.lane_pc[l] = pc + 1;
        });
        for_lanes(w.active & ~exec, [&](int l) { w.lane_pc[l] = pc + 1; });
        reschedule(w);
        continue;
      }
      case Op::Bra: {
        const uint32_t taken = exec;
        const uint32_t target = static_cast<uint32_t>(in.target);
        if (taken == w.active) {
          w.pc = target;
          const uint32_t others = w.live & ~w.waiting & ~w.active;
          if (others) {
            for_lanes(w.active, [&](int l) { w.lane_pc[l] = target; });
            reschedule(w);
          }
          continue;
        }
        for_lanes(taken, [&](int l) { w.lane_pc[l] = target; });
        for_lanes(w.active & ~taken, [&](int l) { w.lane_pc[l] = pc + 1; });
        reschedule(w);
        continue;
      }
      case Op::Call: {
        if (!exec) break;
        exec_call(w, in, pc, exec);
        if (stopped()) return;
        for_lanes(w.active & ~exec, [&](int l) { w.lane_pc[l] = pc + 1; });
        reschedule(w);
        continue;
      }
      case Op::Ret:
      case Op::Exit: {
        exec_return(w, in, exec);
        for_lanes(w.active & ~exec, [&](int l) { w.lane_pc[l] = pc + 1; });
        w.active &= w.live;
        reschedule(w);
        continue;
      }
      case Op::Trap:
        if (exec) {
          fatal(w, std::countr_zero(exec), pc, "trap: the kernel stopped itself (an assert?)");
          return;
        }
        break;
      default:
        if (exec) {
          fatal(w, std::countr_zero(exec), pc,
                "'" + M.text[pc] + "' is not supported by the simulator");
          return;
        }
        break;
    }
    if (stopped()) return;
    advance(w);
  }
}

void Worker::run_block(uint64_t b) {
  m_block = b;
  m_ctaid = E.ctaid_of(b);
  m_epoch = 1;
  const LaunchConfig& C = E.C;
  m_observe = C.observer && C.observer->wants_block(b);
  std::fill(m_shared.begin(), m_shared.end(), uint8_t{0});
  if (!m_shadow.empty()) std::fill(m_shadow.begin(), m_shadow.end(), ShadowWord{});
  std::fill(m_frames.begin(), m_frames.end(), uint8_t{0});
  const uint32_t nthreads = E.threads_per_block;
  const Function& f = E.F;
  for (Warp& w : m_warps) {
    const uint32_t first = w.index * 32;
    const uint32_t n = std::min<uint32_t>(32, nthreads - first);
    w.present = n == 32 ? 0xffffffffu : ((1u << n) - 1);
    w.live = w.present;
    w.waiting = 0;
    w.active = w.present;
    w.pc = f.first;
    w.steps = w.full_steps = 0;
    w.waited = w.spin_mark = w.spin_hash = 0;
    w.spin_pc = UINT32_MAX;
    std::fill(std::begin(w.lane_pc), std::end(w.lane_pc), f.first);
    std::fill(std::begin(w.depth), std::end(w.depth), uint8_t{0});
    std::fill(std::begin(w.lane_steps), std::end(w.lane_steps), 0u);
    std::fill(std::begin(w.gread), std::end(w.gread), 0u);
    std::fill(std::begin(w.gwrite), std::end(w.gwrite), 0u);
    std::fill(w.regs.begin(), w.regs.end(), uint64_t{0});
    for (int l = 0; l < 32; ++l) {
      const uint32_t t = first + static_cast<uint32_t>(l);
      w.tid[0][l] = t % C.block.x;
      w.tid[1][l] = (t / C.block.x) % C.block.y;
      w.tid[2][l] = t / (C.block.x * C.block.y);
    }
  }
  while (!stopped()) {
    for (Warp& w : m_warps) {
      if (w.active) run_warp(w);
      if (stopped()) return;
    }
    uint32_t waiting_threads = 0, live_threads = 0, exited = 0;
    for (const Warp& w : m_warps) {
      waiting_threads += static_cast<uint32_t>(std::popcount(w.waiting));
      live_threads += static_cast<uint32_t>(std::popcount(w.live));
      exited += static_cast<uint32_t>(std::popcount(w.present & ~w.live));
    }
    if (live_threads == 0) break;
    // every live thread waits: release the barrier
    int32_t bar_pc = -1;
    bool mixed = false;
    for (const Warp& w : m_warps)
      for_lanes(w.waiting, [&](int l) {
        if (bar_pc < 0) bar_pc = static_cast<int32_t>(w.wait_pc[l]);
        else if (static_cast<int32_t>(w.wait_pc[l]) != bar_pc) mixed = true;
      });
    if (bar_pc >= 0 && (exited > 0 || mixed)) {
      const Warp* ew = nullptr;
      int el = -1;
      for (const Warp& w : m_warps) {
        const uint32_t gone = w.present & ~w.live;
        if (gone && !ew) {
          ew = &w;
          el = std::countr_zero(gone);
        }
      }
      if (exited > 0 && ew)
        diag(DiagKind::BarrierDivergence, *ew, el, static_cast<uint32_t>(bar_pc),
             "had exited, so it never reached this barrier that " + std::to_string(waiting_threads) +
                 " threads of its block wait at (__syncthreads() must be reached by every thread of the block; "
                 "an early return before it is the usual cause)");
      if (mixed) {
        for (const Warp& w : m_warps)
          for_lanes(w.waiting, [&](int l) {
            if (static_cast<int32_t>(w.wait_pc[l]) != bar_pc && el != -2) {
              diag(DiagKind::BarrierDivergence, w, l, w.wait_pc[l],
                   "waits at this barrier while other threads of its block wait at " +
                       E.where(bar_pc) + " (barriers in divergent code)");
              el = -2;
            }
          });
      }
    }
    if (m_observe && C.observer && bar_pc >= 0) C.observer->on_barrier(m_id, b, static_cast<uint32_t>(bar_pc), m_epoch);
    ++m_epoch;
    for (Warp& w : m_warps) {
      w.waiting = 0;
      reschedule(w);
    }
  }
  if (C.thread_stats && !stopped()) {
    for (const Warp& w : m_warps)
      for_lanes(w.present, [&](int l) {
        ThreadStats& t = E.R.threads[b * nthreads + tlin(w, l)];
        t.instructions = static_cast<uint32_t>(std::min<uint64_t>(w.full_steps + w.lane_steps[l], UINT32_MAX));
        t.global_reads = w.gread[l];
        t.global_writes = w.gwrite[l];
      });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Before anything runs: the configuration, the arguments, the code reachable from the kernel.
// The launch's shape against the GPU's limits and the simulator's; empty: fine, else what is wrong.
std::string Engine::check_shape() {
  const LaunchConfig& c = C;
  if (c.grid.count() == 0 || c.block.count() == 0)
    return "the grid and the block must have at least one thread";
  if (c.block.count() > 1024 || c.block.z > 64)
    return "block " + dim_text(c.block) + " has " + std::to_string(c.block.count()) +
           " threads: a block has at most 1024 (and z at most 64)";
  if (c.grid.y > 65535 || c.grid.z > 65535) return "grid " + dim_text(c.grid) + ": y and z are at most 65535";
  if (F.max_threads && c.block.count() > F.max_threads)
    return "block " + dim_text(c.block) + " has " + std::to_string(c.block.count()) +
           " threads, more than the " + std::to_string(F.max_threads) +
           " of the kernel's __launch_bounds__ (.maxntid)";
  threads_per_block = static_cast<uint32_t>(c.block.count());
  warps_per_block = (threads_per_block + 31) / 32;
  // grid.count() < 2^64 (x < 2^32, y and z < 2^16): compared by division, the product never wraps.
  if (c.grid.count() > k_max_threads / threads_per_block)
    return "grid " + dim_text(c.grid) + " of blocks " + dim_text(c.block) + " has " +
           std::to_string(c.grid.count()) + " x " + std::to_string(threads_per_block) +
           " threads: more than the simulator runs in one launch (" + std::to_string(k_max_threads) + ")";
  if (c.thread_stats && c.grid.count() * threads_per_block > k_max_stats_threads)
    return "grid " + dim_text(c.grid) + " of blocks " + dim_text(c.block) + " has " +
           std::to_string(c.grid.count() * threads_per_block) +
           " threads: per-thread counts are kept for at most " + std::to_string(k_max_stats_threads) +
           " (run it without them)";
  return {};
}

// The code the kernel can reach: no unsupported instruction, external call or recursion.
std::string Engine::check_code() {
  // reachable code: unsupported instructions, external calls, recursion
  std::vector<int> state(M.functions.size(), 0);  // 0 unseen, 1 on the stack, 2 done
  std::string err;
  std::function<bool(int)> visit = [&](int fi) -> bool {
    state[static_cast<size_t>(fi)] = 1;
    const Function& f = M.functions[static_cast<size_t>(fi)];
    for (uint32_t pc = f.first; pc < f.end; ++pc) {
      const Instr& in = M.code[pc];
      if (in.op == Op::Unsupported) {
        err =
            M.where(pc) + ": '" + M.text[pc] +
            "' is not supported by the simulator (it runs integer, float, "
            "memory, atomic, barrier, shuffle and vote instructions; not cp.async, mma, ldmatrix, textures, "
            "half-precision arithmetic, ...)";
        return false;
      }
      if (in.op == Op::MadCC || in.op == Op::MadC) {
        err = M.where(pc) + ": '" + M.text[pc] +
              "' (multiply-add with carry) is not supported by the simulator";
        return false;
      }
      if (in.op != Op::Call) continue;
      const Function& g = M.functions[static_cast<size_t>(in.target)];
      if (!g.has_body) {
        err = M.where(pc) + ": calls '" + g.name + "'" +
              (g.name == "vprintf"        ? " (printf)"
               : g.name == "__assertfail" ? " (assert)"
                                          : "") +
              ", which has no body in the PTX: the simulator cannot run it";
        return false;
      }
      if (state[static_cast<size_t>(in.target)] == 1) {
        err = M.where(pc) + ": '" + g.name + "' is called recursively: the simulator does not run recursion";
        return false;
      }
      if (state[static_cast<size_t>(in.target)] == 0 && !visit(in.target)) return false;
    }
    state[static_cast<size_t>(fi)] = 2;
    return true;
  };
  if (!visit(static_cast<int>(&F - M.functions.data()))) return err;
  return {};
}

// Shared and local memory per block and thread; the buffers and the module's variables at virtual addresses.
std::string Engine::place_memory() {
  const LaunchConfig& c = C;
  // shared and local memory: the kernel's static part, then (at the module's one offset) the dynamic part
  static_shared = F.shared_bytes;
  dynamic_at = M.dynamic_shared_offset;
  shared_bytes = c.dynamic_shared_bytes ? dynamic_at + c.dynamic_shared_bytes : static_shared;
  if (static_shared + c.dynamic_shared_bytes > k_max_shared)
    return "the kernel needs " + std::to_string(static_shared + c.dynamic_shared_bytes) +
           " bytes of shared memory per block (" + std::to_string(static_shared) + " static + " +
           std::to_string(c.dynamic_shared_bytes) + " dynamic): a block can have at most " +
           std::to_string(k_max_shared) + " (227 KiB on sm_90)";
  local_bytes = M.local_bytes;
  if (local_bytes * threads_per_block > (uint64_t{256} << 20))
    return "the kernel needs " + std::to_string(local_bytes) +
           " bytes of local memory per thread: too much to simulate";
  // buffers at virtual addresses, each with a guard zone as wide as itself (at least 1 MiB) around it
  uint64_t at = k_global_base;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    const Buffer& b = c.buffers[i];
    if (!b.data && b.bytes) return "buffer " + std::to_string(i) + " ('" + b.name + "') has no memory";
    if (b.elem_bytes == 0) return "buffer '" + b.name + "': elem_bytes must be at least 1";
    BufferRec r;
    r.guard = std::max<uint64_t>(uint64_t{1} << 20, (b.bytes + 4095) / 4096 * 4096);
    r.base = at + r.guard;
    r.bytes = b.bytes;
    r.host = static_cast<uint8_t*>(b.data);
    r.elem = b.elem_bytes;
    r.output = b.output;
    r.name = b.name.empty() ? "buffer " + std::to_string(i) : b.name;
    r.elems = b.bytes / b.elem_bytes;
    if (b.output && c.diagnostics) {
      r.writer.reset(new std::atomic<uint64_t>[r.elems]());
      r.flags.reset(new std::atomic<uint8_t>[r.elems]());
    }
    at = r.base + (r.bytes + 4095) / 4096 * 4096 + r.guard;
    bufs.push_back(std::move(r));
  }
  sym_addr.assign(M.symbols.size(), 0);
  if (M.data_bytes) {
    data.assign(M.data_bytes, 0);
    for (size_t i = 0; i < M.symbols.size(); ++i) {
      const Symbol& s = M.symbols[i];
      if (s.space != Space::Global && s.space != Space::Const) continue;
      std::memcpy(data.data() + s.offset, s.init.data(), std::min<size_t>(s.init.size(), s.bytes));
    }
    BufferRec r;
    r.guard = uint64_t{1} << 20;
    r.base = at + r.guard;
    r.bytes = data.size();
    r.host = data.data();
    r.elem = 1;
    r.name = "the module's __device__/__constant__ variables";
    data_buf = static_cast<int>(bufs.size());
    bufs.push_back(std::move(r));
  }
  for (size_t i = 0; i < M.symbols.size(); ++i) {
    const Symbol& s = M.symbols[i];
    if ((s.space == Space::Global || s.space == Space::Const) && data_buf >= 0)
      sym_addr[i] = bufs[static_cast<size_t>(data_buf)].base + s.offset;
  }
  return {};
}

// The kernel's parameter block from the launch's arguments.
std::string Engine::pass_args() {
  const LaunchConfig& c = C;
  // parameters
  if (c.args.size() != F.params.size())
    return "kernel '" + F.name + "' takes " + std::to_string(F.params.size()) + " arguments, given " +
           std::to_string(c.args.size());
  uint64_t pbytes = 0;
  for (int32_t p : F.params) {
    const Symbol& s = M.symbols[static_cast<size_t>(p)];
    pbytes = std::max(pbytes, s.offset + s.bytes);
  }
  params.assign(pbytes, 0);
  for (size_t i = 0; i < F.params.size(); ++i) {
    const Symbol& s = M.symbols[static_cast<size_t>(F.params[i])];
    const Arg& a = c.args[i];
    if (a.buffer >= 0) {
      if (static_cast<size_t>(a.buffer) >= c.buffers.size())
        return "argument " + std::to_string(i) + " points to buffer " + std::to_string(a.buffer) +
               ", which does not exist";
      if (s.bytes != 8)
        return "argument " + std::to_string(i) + " is a pointer, but parameter " + s.name + " has " +
               std::to_string(s.bytes) + " bytes";
      const uint64_t v = bufs[static_cast<size_t>(a.buffer)].base;
      std::memcpy(params.data() + s.offset, &v, 8);
    } else {
      if (a.bytes.size() != s.bytes)
        return "argument " + std::to_string(i) + " has " + std::to_string(a.bytes.size()) +
               " bytes, but parameter " + s.name + " has " + std::to_string(s.bytes);
      std::memcpy(params.data() + s.offset, a.bytes.data(), a.bytes.size());
    }
  }
  return {};
}

bool Engine::setup() {
  for (std::string (Engine::*step)() :
       {&Engine::check_shape, &Engine::check_code, &Engine::place_memory, &Engine::pass_args}) {
    std::string err = (this->*step)();
    if (!err.empty()) {
      R.failure.message = std::move(err);
      return false;
    }
  }
  const LaunchConfig& c = C;
  R.buffer_base.clear();
  R.buffer_bytes.clear();
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    R.buffer_base.push_back(bufs[i].base);
    R.buffer_bytes.push_back(bufs[i].bytes);
  }
  return true;
}

void Engine::finish_outputs() {
  for (size_t i = 0; i < C.buffers.size(); ++i) {
    BufferRec& b = bufs[i];
    if (!b.output || !b.writer) continue;
    uint64_t unwritten = 0, first = 0;
    for (uint64_t e = 0; e < b.elems; ++e)
      if (b.writer[e].load(std::memory_order_relaxed) == 0) {
        if (unwritten++ == 0) first = e;
      }
    if (!unwritten) continue;
    Diagnostic d;
    d.kind = DiagKind::UnwrittenOutput;
    d.buffer = static_cast<int>(i);
    d.element = first;
    d.count = unwritten;
    std::string at = "element " + std::to_string(first);
    if (C.buffers[i].cols > 0)
      at += " (row " + std::to_string(first / C.buffers[i].cols) + ", column " +
            std::to_string(first % C.buffers[i].cols) + ")";
    d.message = std::to_string(unwritten) + " of the " + std::to_string(b.elems) + " elements of '" + b.name +
                "' were written by no thread; the first is " + at +
                " (is the grid too small, or a guard too strict?)";
    d.count = 1;
    diags.push_back(std::move(d));
  }
}

void Engine::run() {
  const uint64_t blocks = C.grid.count();
  int n = C.workers > 0 ? C.workers : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  n = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(n), blocks));
  R.workers = n;
  if (C.thread_stats) R.threads.assign(blocks * threads_per_block, ThreadStats{});
  if (C.observer) C.observer->on_start(n);
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < n; ++i) workers.push_back(std::make_unique<Worker>(*this, i));
  std::vector<double> cpu(static_cast<size_t>(n), 0.0);
  auto thread_cpu = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  auto work = [&](int i) {
    Worker& w = *workers[static_cast<size_t>(i)];
    while (!stop.load(std::memory_order_relaxed)) {
      if (C.cancel && C.cancel->load(std::memory_order_relaxed)) {
        Fatal f;
        f.message = "cancelled";
        set_fatal(std::move(f));
        return;
      }
      const uint64_t b = next_block.fetch_add(1);
      if (b >= blocks) return;
      active_workers.fetch_add(1, std::memory_order_relaxed);
      w.run_block(b);
      w.set_stalled(false);
      active_workers.fetch_sub(1, std::memory_order_relaxed);
    }
  };
  auto body = [&](int i) {
    const double c0 = thread_cpu();
    work(i);
    cpu[static_cast<size_t>(i)] = thread_cpu() - c0;
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < n; ++i) threads.emplace_back(body, i);
  body(0);
  for (std::thread& t : threads) t.join();
  for (double c : cpu) R.cpu_seconds += c;
  R.instr.assign(M.code.size(), InstrStats{});
  for (const auto& w : workers) {
    for (size_t pc = 0; pc < M.code.size(); ++pc) {
      InstrStats& d = R.instr[pc];
      const InstrStats& s = w->m_instr[pc];
      d.warp_execs += s.warp_execs;
      d.thread_execs += s.thread_execs;
      d.requests += s.requests;
      d.sectors += s.sectors;
      d.lines += s.lines;
      d.wavefronts += s.wavefronts;
      d.conflicts += s.conflicts;
    }
    R.thread_instructions += w->m_thread_instructions;
    R.warp_instructions += w->m_warp_instructions;
  }
}

}  // namespace

LaunchResult launch(const Module& m, std::string_view kernel, const LaunchConfig& cfg) {
  LaunchResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const Function* f = m.find(kernel);
  if (!f || !f->entry) {
    std::string names;
    for (const Function& g : m.functions)
      if (g.entry) names += (names.empty() ? "" : ", ") + g.name;
    r.failure.message = "no kernel named '" + std::string(kernel) + "' in the PTX (kernels: " +
                        (names.empty() ? "none" : names) + ")";
    return r;
  }
  Engine e(m, *f, cfg, r);
  if (!e.setup()) return r;
  e.run();
  if (e.fatal) {
    r.failure.message = e.fatal->message;
    r.failure.pc = e.fatal->pc;
    r.failure.file = e.file_of(e.fatal->pc);
    r.failure.line = e.fatal->pc >= 0 ? m.code[static_cast<size_t>(e.fatal->pc)].line : 0;
    r.failure.thread = e.fatal->thread;
    r.failure.block = e.fatal->block;
    r.failure.has_thread = e.fatal->has_thread;
  } else {
    e.finish_outputs();
    r.ok = true;
  }
  r.diagnostics = std::move(e.diags);
  std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.line != b.line ? a.line < b.line : static_cast<int>(a.kind) < static_cast<int>(b.kind);
  });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

MemoryCounts memory_counts(const Module& m, const LaunchResult& r) {
  MemoryCounts c;
  for (size_t pc = 0; pc < r.instr.size() && pc < m.code.size(); ++pc) {
    const Instr& in = m.code[pc];
    const InstrStats& st = r.instr[pc];
    if (st.requests == 0 || (in.op != Op::Ld && in.op != Op::St)) continue;
    const bool load = in.op == Op::Ld;
    const bool global = in.space == Space::Global || (in.space == Space::Generic && st.sectors > 0);
    const bool shared = in.space == Space::Shared || (in.space == Space::Generic && st.wavefronts > 0);
    if (global) {
      (load ? c.ld_requests : c.st_requests) += st.requests;
      (load ? c.ld_sectors : c.st_sectors) += st.sectors;
    } else if (shared) {
      (load ? c.shared_ld_requests : c.shared_st_requests) += st.requests;
      (load ? c.shared_ld_conflicts : c.shared_st_conflicts) += st.conflicts;
      (load ? c.shared_ld_wavefronts : c.shared_st_wavefronts) += st.wavefronts;
    }
  }
  return c;
}

}  // namespace bs::sim
