// fma_contract.cpp: ptxas's floating-point contraction, applied to a parsed module (see ptx.h,
// contract_mul_add). The PTX ISA lets the assembler fuse a mul and an add/sub without an explicit rounding
// modifier into one fma (PTX ISA, add.f32: "mul/add sequences with no rounding modifiers may be optimized to use
// fused-multiply-add instructions on the target device"), and ptxas does: a mul.f32 whose
// only use is a sub.f32 runs on the GPU as one FFMA, rounded once. The simulator must do the same to give the
// GPU's bits (the memory lab's particle step: `sub.f32 %f7, %f6, %f5` with `%f5 = mul.f32 ...` differs by one
// ulp when rounded twice).
#include <string>
#include <vector>

#include "sim/ptx.h"

namespace bs::sim {

namespace {

bool rounding_given(uint32_t mods) { return (mods & (M_RN | M_RZ | M_RM | M_RP)) != 0; }

// Calls f(reg) for every register instruction `in` reads (sources, addresses, vector elements, its guard).
template <class F>
void for_uses(const Instr& in, F f) {
  if (in.guard >= 0) f(in.guard);
  auto operand = [&](const Operand& o) {
    if (o.kind == Operand::Reg || (o.kind == Operand::Mem && o.reg >= 0)) f(o.reg);
    if (o.kind == Operand::Vec)
      for (int k = 0; k < o.count && k < 4; ++k)
        if (o.vreg[k] >= 0) f(o.vreg[k]);
  };
  for (int i = 0; i < in.nsrc; ++i) operand(in.src[i]);
  // a destination that is an address ([%rd]) reads its register
  for (int i = 0; i < in.ndst; ++i)
    if (in.dst[i].kind == Operand::Mem && in.dst[i].reg >= 0) f(in.dst[i].reg);
}

// Calls f(reg) for every register instruction `in` writes.
template <class F>
void for_defs(const Instr& in, F f) {
  for (int i = 0; i < in.ndst; ++i) {
    const Operand& o = in.dst[i];
    if (o.kind == Operand::Reg) f(o.reg);
    if (o.kind == Operand::Vec)
      for (int k = 0; k < o.count && k < 4; ++k)
        if (o.vreg[k] >= 0) f(o.vreg[k]);
  }
}

bool ends_block(Op op) {
  return op == Op::Bra || op == Op::Call || op == Op::Ret || op == Op::Exit || op == Op::Trap;
}

// A mul that may fuse into add/sub `add`: same type (f32 or f64), no rounding modifier, no .sat (a saturated
// product is not the product), the add's .ftz, the same guard.
bool fusable(const Instr& mul, const Instr& add) {
  return mul.op == Op::Mul && mul.type == add.type && mul.nsrc == 2 && mul.ndst == 1 &&
         !rounding_given(mul.mods) && !(mul.mods & M_SAT) && (mul.mods & M_FTZ) == (add.mods & M_FTZ) &&
         mul.guard == add.guard && mul.guard_neg == add.guard_neg;
}

}  // namespace

std::vector<bool> branch_targets(const Module& m, const Function& f) {
  std::vector<bool> target(f.end - f.first + 1, false);
  for (uint32_t pc = f.first; pc < f.end; ++pc) {
    const Instr& in = m.code[pc];
    if (in.op == Op::Bra && in.target >= static_cast<int32_t>(f.first) && in.target < static_cast<int32_t>(f.end))
      target[static_cast<size_t>(in.target) - f.first] = true;
  }
  return target;
}

int contract_mul_add(Module& m) {
  int fused = 0;
  std::vector<int32_t> uses(m.num_regs), defs(m.num_regs), def_pc(m.num_regs);
  for (const Function& f : m.functions) {
    if (!f.has_body || f.end <= f.first) continue;
    std::fill(uses.begin(), uses.end(), 0);
    std::fill(defs.begin(), defs.end(), 0);
    const std::vector<bool> target = branch_targets(m, f);
    for (uint32_t pc = f.first; pc < f.end; ++pc) {
      const Instr& in = m.code[pc];
      for_uses(in, [&](int32_t r) { ++uses[static_cast<size_t>(r)]; });
      for_defs(in, [&](int32_t r) {
        ++defs[static_cast<size_t>(r)];
        def_pc[static_cast<size_t>(r)] = static_cast<int32_t>(pc);
      });
    }
    for (uint32_t j = f.first; j < f.end; ++j) {
      Instr& add = m.code[j];
      if ((add.op != Op::Add && add.op != Op::Sub) || (add.type != Type::F32 && add.type != Type::F64) ||
          rounding_given(add.mods) || add.nsrc != 2 || add.ndst != 1)
        continue;
      for (int k = 0; k < 2; ++k) {  // the first operand that is a fusable product (ptxas's choice is not
                                     // documented; NVVM's PTX rarely has two)
        const Operand& o = add.src[k];
        if (o.kind != Operand::Reg) continue;
        const auto r = static_cast<size_t>(o.reg);
        if (uses[r] != 1 || defs[r] != 1 || def_pc[r] >= static_cast<int32_t>(j)) continue;
        const auto i = static_cast<uint32_t>(def_pc[r]);
        if (i < f.first || !fusable(m.code[i], add)) continue;
        const Instr& mul = m.code[i];
        // One basic block from the mul to the add, and the mul's operands (and the guard) unchanged in between:
        // the add reads them again.
        bool ok = true;
        for (uint32_t p = i + 1; p <= j && ok; ++p) {
          if (target[p - f.first] || ends_block(m.code[p - 1].op)) ok = false;
          if (p == j) break;
          for_defs(m.code[p], [&](int32_t d) {
            for (int s = 0; s < 2; ++s)
              if (mul.src[s].kind == Operand::Reg && mul.src[s].reg == d) ok = false;
            if (d == mul.guard) ok = false;
          });
        }
        if (!ok) continue;
        // m + x, x + m: fma(a, b, x); m - x: fma(a, b, -x); x - m: fma(-a, b, x).
        uint32_t neg = 0;
        if (add.op == Op::Sub) neg = k == 0 ? M_NEG_ADDEND : M_NEG_PRODUCT;
        const Operand addend = add.src[1 - k];
        add.op = Op::Fma;
        add.mods |= M_CONTRACTED | neg;
        add.nsrc = 3;
        add.src[0] = mul.src[0];
        add.src[1] = mul.src[1];
        add.src[2] = addend;
        m.text[j] += "  // runs as fma.rn with the mul on PTX line " + std::to_string(mul.ptx_line) +
                     " (ptxas contracts the pair)";
        ++fused;
        break;
      }
    }
  }
  m.contracted = static_cast<uint32_t>(fused);
  return fused;
}

}  // namespace bs::sim
