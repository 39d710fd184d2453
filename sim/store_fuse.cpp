// store_fuse.cpp: ptxas's fusion of adjacent scalar global stores into one wide store, applied to a parsed
// module for the memory counters (see ptx.h, fuse_adjacent_stores). Found on the H100 (docs/PERFORMANCE.md,
// 2026-11-28): NVRTC writes the first 16 bytes of the tile scan's per-thread vec4 stores as
//   st.global.f32 [%rd210], ...; [%rd210+4]; [%rd210+8]; [%rd210+12]; st.global.v4.f32 [%rd210+16], {...}; ...
// and the SASS has one STG.128 for the four: a vector access must be aligned to its size (PTX ISA, "Vectors"),
// so %rd210 + 16, and with it %rd210, is a multiple of 16. CUPTI counts one request there, not four.
#include <string>
#include <vector>

#include "sim/ptx.h"

namespace bs::sim {

namespace {

// A plain (weak, not volatile) global store of one 4-byte register or immediate: [reg + imm].
bool scalar_store(const Instr& in) {
  return in.op == Op::St && in.space == Space::Global && in.vec == 1 && type_bytes(in.type) == 4 &&
         (in.mods & (M_STRONG | M_VOLATILE)) == 0 && in.src[0].kind == Operand::Mem && in.src[0].reg >= 0 &&
         in.src[0].sym < 0;
}

bool same_guard(const Instr& a, const Instr& b) { return a.guard == b.guard && a.guard_neg == b.guard_neg; }

}  // namespace

int fuse_adjacent_stores(Module& m) {
  int groups = 0;
  for (const Function& f : m.functions) {
    if (!f.has_body || f.end <= f.first) continue;
    const std::vector<bool> target = branch_targets(m, f);
    // Runs of consecutive global stores with one guard and no label inside: no register changes within a run
    // (a store defines none) and every store of it runs with the same lanes.
    uint32_t pc = f.first;
    while (pc < f.end) {
      uint32_t end = pc + 1;
      const Instr& head = m.code[pc];
      if (head.op == Op::St && head.space == Space::Global)
        while (end < f.end && !target[end - f.first] && m.code[end].op == Op::St &&
               m.code[end].space == Space::Global && same_guard(m.code[end], head))
          ++end;
      // Four scalar stores at +0, +4, +8, +12 off one register, in that order, whose first address is proved a
      // multiple of 16 by a 16-byte vector access off the same register in the run.
      for (uint32_t i = pc; i + 4 <= end; ++i) {
        const Operand& a0 = m.code[i].src[0];
        bool group = true;
        for (uint32_t k = 0; k < 4 && group; ++k) {
          const Instr& s = m.code[i + k];
          group = scalar_store(s) && s.src[0].reg == a0.reg && s.src[0].imm == a0.imm + 4 * int64_t{k} &&
                  s.fused_stores == 0;
        }
        if (!group) continue;
        bool aligned = false;
        for (uint32_t j = pc; j < end && !aligned; ++j) {
          const Instr& v = m.code[j];
          aligned = v.vec * type_bytes(v.type) == 16 && v.src[0].kind == Operand::Mem && v.src[0].reg == a0.reg &&
                    v.src[0].sym < 0 && (v.src[0].imm - a0.imm) % 16 == 0;
        }
        if (!aligned) continue;
        m.code[i].fused_stores = 4;
        for (uint32_t k = 1; k < 4; ++k) {
          m.code[i + k].fused_stores = -1;
          m.text[i + k] += "  // counted with the st on PTX line " + std::to_string(m.code[i].ptx_line) +
                           " (ptxas writes the four as one 16-byte store)";
        }
        m.text[i] += "  // with the next three: one 16-byte store on the GPU (ptxas fuses them), counted so";
        ++groups;
        i += 3;
      }
      pc = end;
    }
  }
  m.fused_stores = static_cast<uint32_t>(groups);
  return groups;
}

}  // namespace bs::sim
