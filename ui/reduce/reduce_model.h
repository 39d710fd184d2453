// reduce_model.h: the reduction and scan lab's step models (pure C++: no CUDA, no ImGui). For one block of a
// reduction ladder variant, the tree step by step: which threads and lanes are active, per warp (active,
// idle lanes, idle warps, divergent warps), the shared-memory words each step touches and the bank conflicts
// they cause (32 banks of 4 bytes), and the steps and __syncthreads() the block runs. For the scans
// (Hillis-Steele, Blelloch up-sweep and down-sweep) the operations of each step on a small array, which the
// panel animates with a step slider and the tests run on data. The index expressions are the kernels' own
// (gpu/reduce/reduce_gpu.cu: k_interleaved_divergent .. k_shuffle, k_hillis_steele, k_blelloch; each
// builder in reduce_model.cpp names the kernel it mirrors).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bs::reduce_model {

constexpr int k_warp = 32;
constexpr int k_banks = 32;  // shared memory: 32 banks of 4-byte words

// The shape of a variant's in-block tree (several ladder variants share one: first-add-during-load, the
// unrolled and templated kernels and the grid-stride one differ in their load phase and loop overhead, not in
// the tree of one block).
enum class Tree {
  InterleavedDivergent,  // if (tid % (2*s) == 0) sdata[tid] += sdata[tid + s], s = 1, 2, 4, ...
  InterleavedStrided,    // index = 2*s*tid; if (index < blockDim) sdata[index] += sdata[index + s]
  Sequential,            // if (tid < s) sdata[tid] += sdata[tid + s], s = blockDim/2, ..., 1
  SequentialLastWarp,    // sequential while s > 32, then warp 0 alone without __syncthreads (s = 32 .. 1)
  Shuffle,               // __shfl_down_sync in every warp, warp sums through shared memory, warp 0 again
};

// What one block's load phase does before the tree.
struct LoadPhase {
  int elements_per_thread = 1;  // 1: sdata[tid] = in[i]; 2: first add during load; more: grid-stride
  bool grid_stride = false;     // the loop runs over the grid, however many elements that is
  bool atomic_result = false;   // the block's sum goes out with one atomicAdd (else one store per block)
};

enum class StepKind {
  SharedTree,  // an add through shared memory, guarded by an if on tid (divergence when the guard splits)
  WarpSynchronous,   // the last warp's adds through shared memory, every lane executes (no __syncthreads)
  Shuffle,           // a register exchange inside each warp: no shared memory
  WarpSumsToShared,  // lane 0 of each warp stores its warp's sum (then __syncthreads)
};
const char* step_kind_label(StepKind k);

// One warp during one step.
enum class WarpState { Full, Divergent, Idle };
struct WarpStep {
  uint32_t active = 0;  // lanes that execute the step's add (bit = lane)
  uint32_t useful = 0;  // lanes whose result feeds the block's sum (a subset of active)
  WarpState state = WarpState::Idle;
  int conflict_ways = 0;  // worst bank conflict of the warp's shared-memory accesses (1: none, 0: no access)
  // Per lane, the shared-memory words (or, for shuffles, the lanes of the block) the add writes and reads:
  // value[dst] += value[src]. Meaningful for the active lanes.
  std::array<int, 32> dst{}, src{};
};

// One step of the tree.
struct ReduceStep {
  StepKind kind = StepKind::SharedTree;
  int stride = 0;  // s (shared tree) or the shuffle offset
  std::string
      label;  // "st = 64: tid < 64 adds s[tid + 64]" (the kernels name the stride st and shared memory s)
  std::vector<WarpStep> warps;
  int active_threads = 0, useful_threads = 0;
  int full_warps = 0, divergent_warps = 0, idle_warps = 0;
  int conflict_ways = 0;        // the worst over warps and accesses (1: conflict-free; 0: no shared memory)
  int64_t smem_wavefronts = 0;  // shared-memory passes of the step over all warps and accesses
  int64_t smem_ideal = 0;       // the same without conflicts (one pass per warp access)
  bool sync_after = false;      // a __syncthreads() follows the step
  // For the picture: the additions dst += src (thread-local value indices: element of sdata or lane).
  std::vector<std::pair<int, int>> adds;
};

struct ReduceTree {
  Tree tree = Tree::Sequential;
  int block = 0;
  LoadPhase load;
  std::vector<ReduceStep> steps;
  int syncthreads = 0;  // __syncthreads() calls per block, the one after the load included
  int warps = 0;
  std::string note;  // what the variant changes beyond the tree
};

// nullopt when the model can draw `tree` for `block` threads: a power of two in 32..1024 for the
// shared-memory trees (the kernels' rule), a multiple of 32 in 32..1024 for the shuffle tree (whole warps).
std::optional<std::string> check_block(Tree tree, int block);
// Throws std::invalid_argument when check_block fails.
ReduceTree build_tree(Tree tree, int block, LoadPhase load = {});

// The worst bank conflict of one warp-wide access: `word` per active lane (4-byte word index into shared
// memory; lanes reading the same word share it, a broadcast). 0 when no lane is active.
int bank_conflict_ways(std::span<const int64_t> words, uint32_t active);

// The words of one warp-wide access laid out by bank, for the bank picture: bank b's distinct words in lane
// order (a broadcast counts once); the tallest column is the access's conflict ways.
std::array<std::vector<int64_t>, k_banks> bank_columns(std::span<const int64_t> words, uint32_t active);

// Runs the tree's adds on `values` (block entries, one per thread after the load) as the kernel would and
// returns the block's sum (element 0 / lane 0 of warp 0). The tests use it to check that the modelled steps
// reduce to the right total.
double run_tree(const ReduceTree& t, std::vector<double> values);

// --- Scans -------------------------------------------------------------------------------------------------

enum class ScanAlgo { HillisSteele, Blelloch };
enum class ScanOpKind {
  Add,      // x[dst] += x[src] (Hillis-Steele reads the previous step's values: double buffered)
  Clear,    // x[dst] = 0 (Blelloch: the root before the down-sweep)
  SwapAdd,  // t = x[src]; x[src] = x[dst]; x[dst] += t (Blelloch down-sweep)
};
struct ScanOp {
  ScanOpKind kind = ScanOpKind::Add;
  int dst = 0, src = 0;
};
enum class ScanPhase { Sweep, UpSweep, ClearRoot, DownSweep };
const char* scan_phase_label(ScanPhase p);
struct ScanStep {
  ScanPhase phase = ScanPhase::Sweep;
  int offset = 0;  // Hillis-Steele: the distance added; Blelloch: the tree level's stride
  std::string label;
  std::vector<ScanOp> ops;
  int conflict_ways = 0;  // the worst bank conflict of the step's accesses (one thread per op, 4-byte words)
  // The same with the kernel's padding of one word every 32 (index i stored at i + i / 32, GPU Gems 3 ch.
  // 39).
  int conflict_ways_padded = 0;
};
struct ScanModel {
  ScanAlgo algo = ScanAlgo::Blelloch;
  int n = 0;
  bool inclusive = false;  // Hillis-Steele gives the inclusive scan, Blelloch the exclusive one
  std::vector<ScanStep> steps;
  int64_t adds = 0;  // work: every Add and SwapAdd
};
// n a power of two in 2..1024 (the picture animates up to 64). Throws std::invalid_argument otherwise.
ScanModel build_scan(ScanAlgo algo, int n);
// The array after steps [0, upto) (upto = steps.size(): the finished scan).
std::vector<double> run_scan(const ScanModel& m, std::vector<double> values, size_t upto);

}  // namespace bs::reduce_model
