// memory_trace.h: one warp's memory instructions, lane by lane, for the memory lab's picture. The
// instructions and their addresses come from the access model (gpu/memory/memory_model.h: warp_accesses,
// built on the kernels' own index expressions in memory_index.h); this file adds what the picture needs on
// top of its counts: which sector and line each lane lands in (global), which bank and word (shared), the
// conflict degree (lanes reading the same word are a broadcast, not a conflict), where each lane's element
// sits in the matrix or array view, and one line of text per instruction. Pure C++: no CUDA, no ImGui.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu/memory/memory_model.h"

namespace bs::memory {

// --- Global memory: sectors and lines ---------------------------------------------------------------------

struct GlobalDetail {
  int active_lanes = 0;
  std::vector<int64_t> sectors;  // distinct 32-byte sectors touched (byte / 32), ascending
  std::vector<int64_t> lines;    // distinct 128-byte lines touched (byte / 128), ascending
  // Per lane: the index into `sectors` of the lane's sector, and into `lines` of its line; -1 inactive.
  std::array<int, k_warp> lane_sector{};
  std::array<int, k_warp> lane_line{};
  int64_t bytes_used = 0;     // the bytes the active lanes ask for (4 each)
  int64_t bytes_moved = 0;    // sectors * 32: what the memory system moves for them
  double efficiency() const;  // bytes_used / bytes_moved (1: every byte of every sector used); 0 when idle
};
GlobalDetail global_detail(const WarpAccess& a);

// --- Shared memory: banks
// -----------------------------------------------------------------------------------

struct SharedDetail {
  int active_lanes = 0;
  std::array<int, k_warp> lane_bank{};       // -1 inactive
  std::array<int, k_banks> words_in_bank{};  // distinct 4-byte words asked of each bank
  int conflict_degree = 0;                   // the most distinct words in one bank: 1 = conflict-free
  int wavefronts = 0;                        // passes through the banks (= conflict_degree; 0: no lane)
  bool broadcast = false;                    // some word is read by more than one lane (served once)
};
SharedDetail shared_detail(const WarpAccess& a);

// --- The instruction in words ---------------------------------------------------------------------------

struct OpSummary {
  int active_lanes = 0;
  int sectors = 0, lines = 0;  // global
  double efficiency = 0;       // global: used / moved bytes
  int conflict_degree = 0;     // shared: distinct words in the busiest bank
  int wavefronts = 0;          // shared
  std::string text;  // "4 sectors, 1 line, 100% of the moved bytes used" / "32-way bank conflict..."
};
OpSummary summarize(const WarpAccess& a);
// "global load in[r*cols + c]" / "shared store tile[ty + 8*j][tx]"
std::string op_title(const WarpAccess& a);
const char* buffer_name(Buffer b);  // "in", "out", "tile"

// --- Where the lanes' elements are drawn
// ----------------------------------------------------------------------

// A buffer drawn as a grid: `width` elements per row (a transpose's matrix: its columns; a 1-D buffer or a
// shared array: 32 floats per row, so that a row is one 128-byte line, or 32 banks side by side).
struct BufferView {
  Buffer buffer = Buffer::In;
  int64_t width = 32;  // elements per row
  int64_t length = 0;  // elements in the buffer
  std::string title;   // "in: 2048 x 2048 floats" / "in: 4M floats, one 128-byte line per row"
};
BufferView buffer_view(const Params& p, Variant v, Buffer b);

// The warp whose lanes touch element `e` of buffer `b` (the view's click): the transpose's `in` and `out`
// by the cell read (memory_model's warp_reading), the 1-D kernels' `in` likewise and `out[t]` by thread t;
// nullopt where a click picks no warp (a shared array every warp of a block reads, an element outside).
std::optional<WarpId> warp_at(const Params& p, Variant v, Buffer b, int64_t e);

// --- A warp stepping through its instructions
// -------------------------------------------------------------------

struct WarpTrace {
  Params params;
  Variant variant = Variant::Copy;
  WarpId warp;
  std::string warp_text;  // "block (3, 1), warp 2 of 8: threads x 0..31, y 2"
  std::vector<WarpAccess> ops;
  bool cut_short = false;  // the banks loop was cut for the picture (the rest repeats the pattern)
};
constexpr int k_trace_max_steps = 2;  // banks: loop iterations shown (of k_bank_iterations, all alike)
// nullopt-free: an out-of-range warp is clamped into the launch (block and warp inside the grid).
WarpTrace trace_warp(const Params& p, Variant v, WarpId w);
// The warp clamped into the launch of (p, v).
WarpId clamp_warp(const Params& p, Variant v, WarpId w);

}  // namespace bs::memory
