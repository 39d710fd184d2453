// memory_trace.h: one warp's memory instructions, lane by lane. For each instruction of a kernel (a global
// load, a shared store, ...) the 32 lanes' byte addresses, and what the memory system makes of them: the
// 32-byte sectors and 128-byte lines a global access touches, or the 32 shared-memory banks (4-byte words) a
// shared access hits, with its conflict degree (lanes reading the same word are a broadcast, not a conflict).
// The addresses come from the kernels' own index expressions (gpu/memory/memory_index.h). Pure C++: no CUDA,
// no ImGui, so the tests check every count by hand.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bs::memory {

constexpr int k_warp_size = 32;
constexpr int k_sector_bytes = 32;
constexpr int k_line_bytes = 128;
constexpr int k_bank_count = 32;
constexpr int k_bank_bytes = 4;

enum class Space { Global, Shared };

// What one lane does in one instruction. Inactive lanes (past the end of the data, or a guard that fails)
// touch nothing.
struct LaneAccess {
  bool active = false;
  uint64_t address = 0;  // bytes from the start of the array (global) or of the shared tile (shared)
  int64_t row = -1;      // the element in the picture's matrix or array view (col only for 1-D data)
  int64_t col = -1;
};

// One memory instruction of the warp.
struct MemoryOp {
  std::string label;  // "global load in[y][x]"
  std::string array;  // "in", "out", "tile", "particles"
  Space space = Space::Global;
  bool store = false;
  int bytes = 4;  // per lane: 4, 8 or 16
  std::array<LaneAccess, k_warp_size> lanes{};
  int active_lanes() const;
};

// --- Global memory: sectors and lines ---------------------------------------------------------------------

struct GlobalCount {
  int active_lanes = 0;
  std::vector<uint64_t> sectors;  // distinct 32-byte sectors touched (address / 32), ascending
  std::vector<uint64_t> lines;    // distinct 128-byte lines touched (address / 128), ascending
  // Per lane: the index into `sectors` of the lane's first sector, and into `lines` of its line; -1 inactive.
  std::array<int, k_warp_size> lane_sector{};
  std::array<int, k_warp_size> lane_line{};
  int64_t bytes_used = 0;     // the bytes the active lanes ask for
  int64_t bytes_moved = 0;    // sectors * 32: what the memory system moves for them
  double efficiency() const;  // bytes_used / bytes_moved (1: every byte of every sector is used); 0 when idle
};
GlobalCount count_global(const MemoryOp& op);

// --- Shared memory: banks
// -----------------------------------------------------------------------------------

// The bank of a byte offset into shared memory (4-byte words, 32 banks).
constexpr int bank_of(uint64_t byte_address) {
  return static_cast<int>((byte_address / k_bank_bytes) % k_bank_count);
}

struct SharedCount {
  int active_lanes = 0;
  std::array<int, k_warp_size> lane_bank{};  // the bank of the lane's first word; -1 inactive
  // Distinct 4-byte words asked of each bank (in the worst phase, for 8- and 16-byte accesses).
  std::array<int, k_bank_count> words_in_bank{};
  // The most distinct words any one bank must serve in one pass: 1 = conflict-free, 32 = 32-way conflict.
  int conflict_degree = 0;
  // Passes through the banks the instruction needs (for 8- and 16-byte accesses the warp is served in 2 or 4
  // phases; each phase takes at least one pass).
  int wavefronts = 0;
  // Extra passes caused by conflicts: wavefronts minus the passes a conflict-free access of this width needs.
  int extra_wavefronts = 0;
  bool broadcast = false;  // some word is read by more than one lane (served once, not a conflict)
};
SharedCount count_shared(const MemoryOp& op);

// --- Traces: a warp stepping through a kernel's memory instructions
// ------------------------------------------

// A warp of a launch: its block (x, y) and its index inside the block (threads numbered x first).
struct WarpId {
  int64_t block_x = 0, block_y = 0;
  int warp = 0;
};

// A warp's instructions, in program order, with a line saying which warp it is and what its lanes do.
struct WarpTrace {
  std::string kernel;     // "transpose, tiled (padded)"
  std::string warp_text;  // "block (3, 1), warp 2: threads (0..31, 2)"
  std::vector<MemoryOp> ops;
};

// Predicted totals of one instruction, for the read-outs next to the picture.
struct OpSummary {
  int active_lanes = 0;
  int sectors = 0, lines = 0;  // global
  double efficiency = 0;       // global: used / moved bytes
  int conflict_degree = 0;     // shared
  int wavefronts = 0;          // shared
  std::string text;            // "4 sectors, 1 line, 100% of the bytes used" / "32-way conflict: 32 passes"
};
OpSummary summarize(const MemoryOp& op);

}  // namespace bs::memory
