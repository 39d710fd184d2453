// ptx.h: a PTX module parsed once into a flat, pre-decoded program (plain C++, no CUDA headers).
//
// parse_ptx reads what NVRTC emits (module directives, .entry and .func with their parameters, .reg, .shared
// (static and extern dynamic), .local, .const and .global variables, labels, predicates, .loc/.file) and turns
// every function body into typed instructions whose operands are resolved: registers to indices, labels to
// instruction indices, variables to symbols, each instruction with its source file and line. The interpreter
// (sim.h) only dispatches over this array; no string is looked at while a kernel runs.
//
// Instructions the simulator does not implement (cp.async, mma, ldmatrix, tex, ...) parse into Op::Unsupported
// with their text, so a launch can refuse them with the instruction and its source line.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bs::sim {

// A malformed or unreadable PTX text: the message names the PTX line.
struct PtxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };
const char* space_name(Space s);  // "global", "shared", ...

enum class Type : uint8_t { None, Pred, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F32, F64 };
int type_bytes(Type t);  // 0 for None/Pred (a predicate is a register, not memory)
bool type_float(Type t);
bool type_signed(Type t);  // S8..S64

enum class Op : uint16_t {
  Unsupported, Nop,
  Mov, Add, Sub, Mul, Mad, Mul24, Mad24, Sad, Div, Rem, Abs, Neg, Min, Max,
  And, Or, Xor, Not, Cnot, Lop3, Shl, Shr, Shf, Popc, Clz, Brev, Bfe, Bfi, Prmt, Bfind,
  AddCC, AddC, SubCC, SubC, MadCC, MadC,
  Fma, Sqrt, Rsqrt, Rcp, Ex2, Lg2, Sin, Cos, Tanh, Copysign, Testp,
  Setp, Selp, Set, Slct, Cvt, Cvta,
  Ld, St, Atom, Red,
  Bar, BarWarp, Membar, Shfl, Vote, Activemask,
  Bra, Ret, Exit, Call, Trap,
};

// Modifiers, as bits in Instr::mods.
enum Mod : uint32_t {
  M_RN = 1u << 0, M_RZ = 1u << 1, M_RM = 1u << 2, M_RP = 1u << 3,   // float rounding (also .rni etc. for cvt)
  M_INT_ROUND = 1u << 4,                                            // .rni/.rzi/.rmi/.rpi (round to integer)
  M_FTZ = 1u << 5, M_SAT = 1u << 6, M_APPROX = 1u << 7, M_FULL = 1u << 8,
  M_LO = 1u << 9, M_HI = 1u << 10, M_WIDE = 1u << 11,
  M_CC = 1u << 12, M_UNI = 1u << 13, M_TO = 1u << 14,  // .to (cvta.to.X)
  M_VOLATILE = 1u << 15, M_NC = 1u << 16,
  M_RELU = 1u << 17,
  // An add/sub that contract_mul_add fused with the mul feeding it: it runs as fma(src0, src1, src2), rounded
  // once to nearest, with the product (x - a*b) or the addend (a*b - x) negated.
  M_CONTRACTED = 1u << 18, M_NEG_PRODUCT = 1u << 19, M_NEG_ADDEND = 1u << 20,
  // A memory-model-qualified access (.relaxed/.acquire/.release/.acq_rel/.sc, as cuda::atomic_ref emits): on
  // global memory a real host atomic, since other blocks run at the same time on other workers.
  M_STRONG = 1u << 21,
  M_SHIFTAMT = 1u << 22,  // bfind.shiftamt: the left shift that brings the found bit to the top (__ffs, __clz)
};

enum class Cmp : uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class BoolOp : uint8_t { None, And, Or, Xor };
// atom/red operations, shfl modes, vote modes share this field (Instr::sub).
enum class Sub : uint8_t {
  None,
  AtomAdd, AtomMin, AtomMax, AtomInc, AtomDec, AtomExch, AtomCas, AtomAnd, AtomOr, AtomXor,
  ShflUp, ShflDown, ShflBfly, ShflIdx,
  VoteAll, VoteAny, VoteUni, VoteBallot,
  ShfL, ShfR, ShfWrap, ShfClamp,  // shf.l/.r with .wrap/.clamp (two bits used: direction | mode)
};

enum class Special : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, SmId, NSmId, GridId, Clock, Clock64, GlobalTimer,
  LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe, DynamicSmemSize, TotalSmemSize,
};

struct Operand {
  enum Kind : uint8_t {
    None,
    Reg,      // reg
    Imm,      // imm (bits of the value in the instruction's type)
    Spec,     // special register `special`
    SymAddr,  // the address of variable `sym` (+ imm)
    Mem,      // [reg + imm] (reg < 0: [imm]) or [sym + imm] (sym >= 0)
    Vec,      // {vreg[0..count-1]} (-1: the sink `_`)
    Label,    // a branch target (resolved into Instr::target) or a called function
  };
  Kind kind = None;
  Special special{};
  uint8_t count = 0;  // Vec: elements; Imm: 1 for a 0f literal, 2 for 0d; Reg: 1 for a negated predicate (!%p)
  int32_t reg = -1;
  int32_t sym = -1;
  int64_t imm = 0;
  int32_t vreg[4] = {-1, -1, -1, -1};
};

// A variable in the module or a function: .global/.const (module), .shared, .local, .param.
struct Symbol {
  std::string name;
  Space space = Space::Global;
  uint64_t bytes = 0;   // declared size (0 for `.extern .shared ... name[]`: dynamic shared memory)
  uint32_t align = 1;
  bool dynamic = false;  // extern shared
  uint64_t offset = 0;   // shared: offset in the block's shared memory; local/param: offset in the thread's
                         // frame; global/const: offset in the module's data segment
  std::vector<uint8_t> init;  // initial bytes of .global/.const (zeros where none are given)
  int function = -1;          // the function that declares it (-1: the module)
  int param_index = -1;       // a function's parameter number (or -2: its return value)
};

struct Instr {
  Op op = Op::Unsupported;
  Type type = Type::None;   // the instruction's (destination) type
  Type type2 = Type::None;  // cvt's source type; setp's comparison type is `type`
  Space space = Space::Generic;
  Cmp cmp = Cmp::None;
  BoolOp boolop = BoolOp::None;
  Sub sub = Sub::None;
  uint8_t vec = 1;  // .v2/.v4
  uint32_t mods = 0;
  int32_t guard = -1;  // predicate register, -1: none
  bool guard_neg = false;
  uint8_t ndst = 0, nsrc = 0;
  Operand dst[2];
  Operand src[4];
  int32_t target = -1;  // bra: the instruction index; call: the callee's function index
  int32_t file = 0;     // .loc file number (0: none)
  int32_t line = 0;     // source line (0: none)
  int32_t ptx_line = 0; // line in the PTX text
  // A global st that fuse_adjacent_stores groups: 4 for the first of four scalar stores ptxas writes as one
  // 16-byte store (counted as one request of 16 bytes per lane), -1 for the other three (counted with it).
  int8_t fused_stores = 0;
  // call: the caller's argument and return-value symbols, in order (the callee's are its parameters).
  std::vector<int32_t> call_args, call_rets;
};

struct Function {
  std::string name;
  bool entry = false;     // .entry (a kernel) or .func
  bool has_body = false;  // false: a declaration only (an external function such as vprintf)
  std::vector<int32_t> params;  // symbols, in order
  std::vector<int32_t> rets;    // .func return values (symbols)
  uint32_t first = 0, end = 0;  // its instructions: Module::code[first, end)
  uint32_t max_threads = 0;     // .maxntid (product), 0: none
  uint64_t shared_bytes = 0;    // an entry's static shared memory: the module's variables, then its own
  int32_t ptx_line = 0;
};

struct Module {
  std::vector<Instr> code;        // every function's instructions, one after another
  std::vector<std::string> text;  // per instruction: its PTX text (messages, the PTX pane)
  std::vector<Function> functions;
  std::vector<Symbol> symbols;
  std::vector<std::string> files;  // index = .file number (files[0] = "")
  uint32_t num_regs = 0;           // registers of all functions together (a warp keeps one file)
  std::vector<std::string> reg_names;
  std::vector<Type> reg_types;
  // Shared memory: module-level variables first (every kernel sees them at the same offsets), then each
  // kernel's own (demoted) variables from there, overlapping between kernels; dynamic (extern) shared memory
  // starts after the largest kernel's static part, at one offset for all.
  uint64_t dynamic_shared_offset = 0;
  uint32_t dynamic_shared_align = 16;
  uint64_t local_bytes = 0;    // the per-thread frame: .local and call .param variables of every function
  uint64_t data_bytes = 0;     // .global and .const variables, laid out in one segment
  int version_major = 0, version_minor = 0, target_sm = 0;
  uint32_t contracted = 0;     // mul + add/sub pairs run as one fma (contract_mul_add)
  uint32_t fused_stores = 0;   // groups of four scalar global stores counted as one (fuse_adjacent_stores)

  const Function* find(std::string_view name) const;  // a function by its name (entry or not)
  int find_index(std::string_view name) const;        // -1: none
  // "kernel.cu:12" (or "PTX line 40" without line info) for instruction `pc`.
  std::string where(uint32_t pc) const;
};

// Parses a whole PTX text (and applies contract_mul_add and fuse_adjacent_stores). Throws PtxError naming the PTX line for what it
// cannot read.
Module parse_ptx(std::string_view ptx);

// The pcs of function f a branch of f lands on, where basic blocks start: index pc - f.first, with one more
// entry (false) for f.end. The passes below use it to keep to one basic block.
std::vector<bool> branch_targets(const Module& m, const Function& f);

// ptxas's floating-point contraction, which the GPU's results depend on: PTX's mul/add/sub.f32/.f64 WITHOUT a
// rounding modifier may be fused by the assembler into an fma (PTX ISA, add.f32: "mul/add sequences with no
// rounding modifiers may be optimized to use fused-multiply-add instructions on the target device"), and
// ptxas fuses a product feeding an add or a sub. A mul.f32/.f64 (no rounding modifier, no .sat) whose destination is written once and read exactly
// once, by an add/sub of the same type and .ftz without a rounding modifier, in the same basic block, with the
// same guard and the mul's operands not redefined in between, makes that add/sub an fma rounded once:
// m + x = fma(a, b, x), m - x = fma(a, b, -x), x - m = fma(-a, b, x) (the add/sub's .sat and .ftz kept; the mul
// still runs, its result now unused). Explicit .rn/.rz/.rm/.rp on either keeps them apart, as on the GPU.
// Returns the pairs fused (also Module::contracted); each fused add/sub's text says so.
int contract_mul_add(Module& m);

// ptxas's fusion of adjacent global stores, which the GPU's memory counters show (found on the H100: the tile
// scan's four st.global.f32 at +0..+12 are one STG.128 there). Within a run of consecutive st.global with one
// guard and no branch target inside (no register changes in such a run, every store has the same lanes): four
// scalar 4-byte stores (not volatile or memory-model-qualified) at [r+o], [r+o+4], [r+o+8], [r+o+12] in that
// order, where a 16-byte vector access [r+q] in the same run has q - o a multiple of 16 (a vector access is
// aligned to its size, so r+o is a multiple of 16), are marked (Instr::fused_stores) to count as one request
// of 16 bytes per lane. Only the counters change: every store still writes, is traced and is checked as PTX
// wrote it. Returns the groups marked (also Module::fused_stores); each store's text says so.
int fuse_adjacent_stores(Module& m);

}  // namespace bs::sim
