// memory_model.h: the access model of the memory lab (plain C++). For any warp of any variant it lists the
// warp's memory instructions in program order with the 32 lanes' addresses, all computed with the index
// expressions of memory_index.h that the kernels themselves use; from those it counts what the hardware
// would: 32-byte sectors and 128-byte lines per global request, bank wavefronts and conflicts per shared
// request. The lab's picture and the bench's "predicted" columns both come from here, and the docs compare
// the totals with Nsight Compute's counters (docs/PERFORMANCE.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/memory/memory.h"

namespace bs::memory {

enum class Space { Global, Shared };
enum class Buffer { In, Out, Tile };  // global input, global output, the block's shared array

struct LaneAccess {
  bool active = false;  // false: the lane is off (outside the data, or beyond the block)
  int64_t element = 0;  // index in floats from the buffer's start
  int64_t byte() const { return element * 4; }
};

// One memory instruction of one warp.
struct WarpAccess {
  Space space = Space::Global;
  Buffer buffer = Buffer::In;
  bool store = false;
  std::string text;  // the source expression: "in[r*cols + c]", "tile[tx][ty + 8*j]", "out[t]"
  int step = 0;      // j of a multi-element loop, `it` of the banks loop, field of the particle step
  std::array<LaneAccess, k_warp> lanes{};
};

// A warp of a launch: the block (bx, by) and the warp's number inside the block (threads numbered x first).
struct WarpId {
  int64_t bx = 0, by = 0;
  int warp = 0;
};
int warps_per_block(const Params& p, Variant v);
Dim2 grid_of(const Params& p, Variant v);  // as the GPU launches it (the GpuRunner's grid_of calls this)
// The warp holding element / thread `e`: transpose, the warp that reads cell (e / cols, e % cols) of `in`;
// stride and random, the warp of the thread that reads in[e]; banks, the warp of thread e; aos, the warp of
// particle e. For "click the matrix / the array view".
WarpId warp_reading(const Params& p, Variant v, int64_t e);

// The warp's memory instructions in program order. Banks: the fill phase's stores then the k_bank_iterations
// loads (pass max_steps to cut the loop short for a picture; -1: all).
std::vector<WarpAccess> warp_accesses(const Params& p, Variant v, WarpId w, int max_steps = -1);

// What one instruction costs.
struct GlobalCost {
  int active_lanes = 0;
  int sectors = 0;  // distinct 32-byte sectors the active lanes touch
  int lines = 0;    // distinct 128-byte lines
};
struct SharedCost {
  int active_lanes = 0;
  int wavefronts = 0;  // max over banks of distinct words in that bank (same word: one broadcast); 0: no lane
  int conflicts() const { return wavefronts > 1 ? wavefronts - 1 : 0; }  // extra wavefronts
  std::array<int, k_banks> words_per_bank{};                             // distinct words per bank
};
GlobalCost global_cost(const WarpAccess& a);
SharedCost shared_cost(const WarpAccess& a);
// Lane -> bank (shared) or lane -> sector index within the instruction's span (global), for the picture.
int bank_of(const LaneAccess& l);
int64_t sector_of(const LaneAccess& l);  // byte / 32
int64_t line_of(const LaneAccess& l);    // byte / 128

// Totals over the whole launch: what ncu's l1tex counters report for one kernel launch.
struct Prediction {
  int64_t ld_requests = 0, ld_sectors = 0;  // global loads: warp instructions, sectors
  int64_t st_requests = 0, st_sectors = 0;  // global stores
  int64_t shared_ld_requests = 0, shared_ld_wavefronts = 0, shared_ld_conflicts = 0;
  int64_t shared_st_requests = 0, shared_st_wavefronts = 0, shared_st_conflicts = 0;
  // Minimum DRAM traffic: every distinct sector of `in` read once, of `out` written once (what the caches can
  // at best achieve).
  int64_t min_dram_read_bytes = 0, min_dram_write_bytes = 0;
  double ld_sectors_per_request() const { return ld_requests ? double(ld_sectors) / ld_requests : 0; }
  double st_sectors_per_request() const { return st_requests ? double(st_sectors) / st_requests : 0; }
};
// Enumerates every warp of the launch (all threads, OpenMP); large launches take a second or so (8192^2
// transpose). Progress and cancel through ctl.
Prediction predict(const Params& p, Variant v, JobControl* ctl = nullptr);

}  // namespace bs::memory
