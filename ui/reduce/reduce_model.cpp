// reduce_model.cpp: see reduce_model.h. Each builder follows the index expressions of the kernel it names in
// gpu/reduce/reduce_gpu.cu; the tests (tests/reduce/reduce_model_test.cpp) check the hand-computed cases.
#include "ui/reduce/reduce_model.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace bs::reduce_model {

namespace {

constexpr uint32_t k_all_lanes = 0xffffffffu;

// One thread's part of a shared-memory step: whether it executes the add, whether its result counts, and the
// two words it touches (sdata[dst] += sdata[src]: reads dst and src, writes dst).
struct ThreadAdd {
  bool active = false;
  bool useful = false;
  int dst = 0, src = 0;
};

std::string stride_text(int s) {
  return std::to_string(s);
}

// Fills the per-warp view of a step from every thread's add (shared memory when `smem`).
void finish_step(ReduceStep& st, const std::vector<ThreadAdd>& th, bool smem) {
  const int block = static_cast<int>(th.size());
  const int warps = block / k_warp;
  st.warps.assign(static_cast<size_t>(warps), {});
  std::vector<int64_t> dst(k_warp), src(k_warp);
  for (int w = 0; w < warps; ++w) {
    WarpStep& ws = st.warps[static_cast<size_t>(w)];
    for (int l = 0; l < k_warp; ++l) {
      const ThreadAdd& t = th[static_cast<size_t>(w * k_warp + l)];
      dst[static_cast<size_t>(l)] = t.dst;
      src[static_cast<size_t>(l)] = t.src;
      ws.dst[static_cast<size_t>(l)] = t.dst;
      ws.src[static_cast<size_t>(l)] = t.src;
      if (t.active) ws.active |= 1u << l;
      if (t.active && t.useful) {
        ws.useful |= 1u << l;
        st.adds.emplace_back(t.dst, t.src);
      }
    }
    ws.state = ws.active == 0             ? WarpState::Idle
               : ws.active == k_all_lanes ? WarpState::Full
                                          : WarpState::Divergent;
    st.active_threads += std::popcount(ws.active);
    st.useful_threads += std::popcount(ws.useful);
    (ws.state == WarpState::Full   ? st.full_warps
     : ws.state == WarpState::Idle ? st.idle_warps
                                   : st.divergent_warps)++;
    if (smem && ws.active) {
      // A tree step reads s[dst] and s[src] and writes s[dst]; last_warp() keeps s[dst] in a register (one
      // read of s[src], one write of s[dst] per step).
      const int a = bank_conflict_ways(dst, ws.active);
      const int b = bank_conflict_ways(src, ws.active);
      const bool reg = st.kind == StepKind::WarpSynchronous;
      ws.conflict_ways = std::max(a, b);
      st.smem_wavefronts += (reg ? 1 : 2) * a + b;
      st.smem_ideal += reg ? 2 : 3;
      st.conflict_ways = std::max(st.conflict_ways, ws.conflict_ways);
    }
  }
}

// Shared-memory tree steps: `guard(tid, s)` says whether thread tid adds at stride s, `dst(tid, s)` where.
template <class Guard, class Dst>
ReduceStep tree_step(int block, int s, const std::string& label, Guard guard, Dst dst_of) {
  ReduceStep st;
  st.kind = StepKind::SharedTree;
  st.stride = s;
  st.label = label;
  st.sync_after = true;
  std::vector<ThreadAdd> th(static_cast<size_t>(block));
  for (int tid = 0; tid < block; ++tid) {
    ThreadAdd& t = th[static_cast<size_t>(tid)];
    t.dst = dst_of(tid, s);
    t.src = t.dst + s;
    t.active = guard(tid, s);
    t.useful = t.active;
  }
  finish_step(st, th, true);
  return st;
}

// The last warp without __syncthreads: every lane of warp 0 adds s[tid + s] (lanes >= s compute values
// nobody reads).
ReduceStep last_warp_step(int block, int s) {
  ReduceStep st;
  st.kind = StepKind::WarpSynchronous;
  st.stride = s;
  st.label = "st = " + stride_text(s) + ": warp 0, every lane adds s[tid + " + stride_text(s) + "]";
  std::vector<ThreadAdd> th(static_cast<size_t>(block));
  for (int tid = 0; tid < block; ++tid) {
    ThreadAdd& t = th[static_cast<size_t>(tid)];
    t.dst = tid;
    t.src = tid + s;
    t.active = tid < k_warp;
    t.useful = tid < s;
  }
  finish_step(st, th, true);
  return st;
}

// One __shfl_down_sync(0xffffffff, v, offset) in the warps listed: every lane executes, lanes < 32 - offset
// receive a neighbour's value, lanes < offset hold partial sums that count.
ReduceStep shuffle_step(int block, int offset, int warps_in, const std::string& label) {
  ReduceStep st;
  st.kind = StepKind::Shuffle;
  st.stride = offset;
  st.label = label;
  std::vector<ThreadAdd> th(static_cast<size_t>(block));
  for (int tid = 0; tid < block; ++tid) {
    ThreadAdd& t = th[static_cast<size_t>(tid)];
    const int lane = tid % k_warp;
    t.active = tid / k_warp < warps_in;
    t.useful = lane < offset;
    t.dst = tid;
    t.src = tid + offset;
  }
  finish_step(st, th, false);
  return st;
}

}  // namespace

const char* step_kind_label(StepKind k) {
  switch (k) {
    case StepKind::SharedTree:
      return "shared-memory tree";
    case StepKind::WarpSynchronous:
      return "last warp (no __syncthreads)";
    case StepKind::Shuffle:
      return "warp shuffle";
    case StepKind::WarpSumsToShared:
      return "warp sums to shared memory";
  }
  return "?";
}

std::optional<std::string> check_block(Tree tree, int block) {
  if (tree == Tree::Shuffle) {
    if (block < k_warp || block > 1024 || block % k_warp != 0)
      return "block " + std::to_string(block) +
             ": the picture draws whole warps (a multiple of 32 in 32..1024)";
    return std::nullopt;
  }
  if (block < k_warp || block > 1024 || !std::has_single_bit(static_cast<unsigned>(block)))
    return "block " + std::to_string(block) + ": the tree kernels take a power of two in 32..1024";
  return std::nullopt;
}

int bank_conflict_ways(std::span<const int64_t> words, uint32_t active) {
  int worst = 0;
  for (int bank = 0; bank < k_banks; ++bank) {
    int64_t seen[k_warp];
    int distinct = 0;
    for (size_t l = 0; l < words.size() && l < static_cast<size_t>(k_warp); ++l) {
      if (!(active >> l & 1u)) continue;
      const int64_t w = words[l];
      if (((w % k_banks) + k_banks) % k_banks != bank) continue;
      if (std::find(seen, seen + distinct, w) == seen + distinct) seen[distinct++] = w;
    }
    worst = std::max(worst, distinct);
  }
  return worst;
}

std::array<std::vector<int64_t>, k_banks> bank_columns(std::span<const int64_t> words, uint32_t active) {
  std::array<std::vector<int64_t>, k_banks> cols;
  for (size_t l = 0; l < words.size() && l < static_cast<size_t>(k_warp); ++l) {
    if (!(active >> l & 1u)) continue;
    const int64_t w = words[l];
    std::vector<int64_t>& c = cols[static_cast<size_t>(((w % k_banks) + k_banks) % k_banks)];
    if (std::find(c.begin(), c.end(), w) == c.end()) c.push_back(w);
  }
  return cols;
}

ReduceTree build_tree(Tree tree, int block, LoadPhase load) {
  if (auto err = check_block(tree, block)) throw std::invalid_argument(*err);
  ReduceTree t;
  t.tree = tree;
  t.block = block;
  t.load = load;
  t.warps = block / k_warp;
  // Every shared-memory tree starts with the load into sdata and a __syncthreads().
  int syncs = tree == Tree::Shuffle ? 0 : 1;
  switch (tree) {
    case Tree::InterleavedDivergent:
      // k_interleaved_divergent: for (st = 1; st < blockDim.x; st *= 2) if (tid % (2*st) == 0) ...
      for (int s = 1; s < block; s *= 2)
        t.steps.push_back(tree_step(
            block, s,
            "st = " + stride_text(s) + ": tid % " + stride_text(2 * s) + " == 0 adds s[tid + " +
                stride_text(s) + "]",
            [](int tid, int st) { return tid % (2 * st) == 0; }, [](int tid, int) { return tid; }));
      t.note =
          "tid % (2 st) == 0 leaves every warp with a few working lanes: all warps diverge until the last "
          "steps";
      break;
    case Tree::InterleavedStrided:
      // k_interleaved_bank: index = 2*st*tid; if (index < blockDim.x) s[index] += s[index + st]
      for (int s = 1; s < block; s *= 2)
        t.steps.push_back(tree_step(
            block, s,
            "st = " + stride_text(s) + ": index = " + stride_text(2 * s) + "*tid < block adds s[index + " +
                stride_text(s) + "]",
            [block](int tid, int st) { return 2 * st * tid < block; },
            [](int tid, int st) { return 2 * st * tid; }));
      t.note =
          "contiguous threads work (no divergence above 32), but index = 2 st tid makes lanes hit the same "
          "banks";
      break;
    case Tree::Sequential:
    case Tree::SequentialLastWarp: {
      // k_sequential and k_first_add: for (st = blockDim.x / 2; st > 0; st >>= 1) if (tid < st) s[tid] +=
      // s[tid + st]; k_unroll_last_warp, k_complete_unroll (tree_unrolled) and k_grid_stride stop the loop
      // at st > 32 and call last_warp(): st = 32 .. 1 in warp 0 with __syncwarp() only (block >= 64).
      const int stop = tree == Tree::SequentialLastWarp ? k_warp : 0;
      for (int s = block / 2; s > stop; s /= 2)
        t.steps.push_back(tree_step(
            block, s,
            "st = " + stride_text(s) + ": tid < " + stride_text(s) + " adds s[tid + " + stride_text(s) + "]",
            [](int tid, int st) { return tid < st; }, [](int tid, int) { return tid; }));
      if (tree == Tree::SequentialLastWarp)
        for (int s = std::min(k_warp, block / 2); s > 0; s /= 2)
          t.steps.push_back(last_warp_step(block, s));
      t.note = tree == Tree::Sequential
                   ? "tid < s keeps whole warps busy or idle: no divergence until fewer than 32 threads work"
                   : "the last 6 steps run in warp 0 alone, without __syncthreads (lanes >= s compute unused "
                     "values)";
      break;
    }
    case Tree::Shuffle: {
      // k_shuffle<T, Atomic>: warp_sum() (v += __shfl_down_sync(k_full, v, off), off = 16 .. 1); lane 0
      // writes warp_sums[warp]; __syncthreads(); warp 0 runs warp_sum(lane < warps ? warp_sums[lane] : 0),
      // all 5 steps.
      for (int o = k_warp / 2; o > 0; o /= 2)
        t.steps.push_back(shuffle_step(
            block, o, t.warps,
            "offset " + stride_text(o) + ": every warp, v += __shfl_down_sync(v, " + stride_text(o) + ")"));
      ReduceStep ws;
      ws.kind = StepKind::WarpSumsToShared;
      ws.label = "lane 0 of each warp stores its sum in warp_sums[warp]";
      ws.sync_after = true;
      std::vector<ThreadAdd> th(static_cast<size_t>(block));
      for (int tid = 0; tid < block; ++tid) {
        ThreadAdd& a = th[static_cast<size_t>(tid)];
        a.active = a.useful = tid % k_warp == 0;
        a.dst = tid / k_warp;  // the word written
        a.src = tid / k_warp;
      }
      finish_step(ws, th, true);
      // One store per lane (not the read-modify-write of a tree step): one pass per warp.
      ws.smem_wavefronts = ws.smem_ideal = t.warps;
      ws.adds.clear();
      for (int w = 0; w < t.warps; ++w)
        ws.adds.emplace_back(w, w * k_warp);
      t.steps.push_back(std::move(ws));
      for (int o = k_warp / 2; o > 0; o /= 2)
        t.steps.push_back(shuffle_step(block, o, 1,
                                       "offset " + stride_text(o) +
                                           ": warp 0 adds the warp sums, __shfl_down_sync(v, " +
                                           stride_text(o) + ")"));
      t.note = "no shared-memory tree: 5 shuffles per warp, one store per warp, 5 shuffles in warp 0";
      break;
    }
  }
  for (const ReduceStep& s : t.steps)
    syncs += s.sync_after ? 1 : 0;
  t.syncthreads = syncs;
  return t;
}

double run_tree(const ReduceTree& t, std::vector<double> v) {
  v.resize(static_cast<size_t>(t.block), 0.0);
  for (const ReduceStep& st : t.steps) {
    if (st.kind == StepKind::WarpSumsToShared) {
      // warp_sums[w] = lane 0's value of warp w; warp 0 then loads warp_sums[lane], zero past the warps.
      std::vector<double> next(v.size(), 0.0);
      for (const auto& [dst, src] : st.adds)
        next[static_cast<size_t>(dst)] = v[static_cast<size_t>(src)];
      v = std::move(next);
      continue;
    }
    // Every add of a step reads the values from before the step (lockstep lanes; the shared tree's reads of
    // sdata[tid + s] are never written in the same step).
    const std::vector<double> before = v;
    for (const auto& [dst, src] : st.adds)
      v[static_cast<size_t>(dst)] += before[static_cast<size_t>(src)];
  }
  return v[0];
}

// --- Scans -------------------------------------------------------------------------------------------------

const char* scan_phase_label(ScanPhase p) {
  switch (p) {
    case ScanPhase::Sweep:
      return "Hillis-Steele";
    case ScanPhase::UpSweep:
      return "up-sweep";
    case ScanPhase::ClearRoot:
      return "clear the root";
    case ScanPhase::DownSweep:
      return "down-sweep";
  }
  return "?";
}

namespace {

// Worst bank conflict of a step: thread k runs op k; each warp of 32 ops touches x[dst] and x[src].
int scan_conflicts(const std::vector<ScanOp>& ops, bool padded) {
  const auto word = [padded](int i) -> int64_t { return padded ? i + i / k_banks : i; };
  int worst = 0;
  for (size_t w0 = 0; w0 < ops.size(); w0 += k_warp) {
    std::vector<int64_t> d, s;
    uint32_t active = 0;
    for (size_t k = w0; k < ops.size() && k < w0 + k_warp; ++k) {
      d.push_back(word(ops[k].dst));
      s.push_back(word(ops[k].src));
      active |= 1u << (k - w0);
    }
    worst = std::max({worst, bank_conflict_ways(d, active), bank_conflict_ways(s, active)});
  }
  return worst;
}

}  // namespace

ScanModel build_scan(ScanAlgo algo, int n) {
  if (n < 2 || n > 1024 || !std::has_single_bit(static_cast<unsigned>(n)))
    throw std::invalid_argument("scan model: n = " + std::to_string(n) +
                                " must be a power of two in 2..1024");
  ScanModel m;
  m.algo = algo;
  m.n = n;
  auto push = [&](ScanStep st) {
    st.conflict_ways = scan_conflicts(st.ops, false);
    st.conflict_ways_padded = scan_conflicts(st.ops, true);
    for (const ScanOp& op : st.ops)
      m.adds += op.kind == ScanOpKind::Clear ? 0 : 1;
    m.steps.push_back(std::move(st));
  };
  if (algo == ScanAlgo::HillisSteele) {
    // k_hillis_steele: for (off = 1; off < n; off *= 2) out[i] = in[i] + (i >= off ? in[i - off] : 0), the
    // two buffers swapped between steps.
    m.inclusive = true;
    for (int off = 1; off < n; off *= 2) {
      ScanStep st;
      st.phase = ScanPhase::Sweep;
      st.offset = off;
      st.label = "offset " + std::to_string(off) + ": x[i] += x[i - " + std::to_string(off) +
                 "] for i >= " + std::to_string(off);
      for (int i = off; i < n; ++i)
        st.ops.push_back({ScanOpKind::Add, i, i - off});
      push(std::move(st));
    }
    return m;
  }
  // k_blelloch (shared memory index padded: pad(i) = i + (i >> 5)): up-sweep for d = 1; d < n; d *= 2,
  // thread k < n/(2d): ai = d*(2k+1)-1, bi = d*(2k+2)-1, x[bi] += x[ai]; x[n-1] = 0; down-sweep for d = n/2
  // .. 1: t = x[ai]; x[ai] = x[bi]; x[bi] += t.
  m.inclusive = false;
  for (int d = 1; d < n; d *= 2) {
    ScanStep st;
    st.phase = ScanPhase::UpSweep;
    st.offset = d;
    st.label = "up-sweep, stride " + std::to_string(d) + ": " + std::to_string(n / (2 * d)) +
               (n / (2 * d) == 1 ? " add" : " adds");
    for (int k = 0; k < n / (2 * d); ++k)
      st.ops.push_back({ScanOpKind::Add, d * (2 * k + 2) - 1, d * (2 * k + 1) - 1});
    push(std::move(st));
  }
  {
    ScanStep st;
    st.phase = ScanPhase::ClearRoot;
    st.label = "clear the root: x[" + std::to_string(n - 1) + "] = 0";
    st.ops.push_back({ScanOpKind::Clear, n - 1, n - 1});
    push(std::move(st));
  }
  for (int d = n / 2; d >= 1; d /= 2) {
    ScanStep st;
    st.phase = ScanPhase::DownSweep;
    st.offset = d;
    st.label = "down-sweep, stride " + std::to_string(d) + ": " + std::to_string(n / (2 * d)) +
               (n / (2 * d) == 1 ? " swap-and-add" : " swap-and-adds");
    for (int k = 0; k < n / (2 * d); ++k)
      st.ops.push_back({ScanOpKind::SwapAdd, d * (2 * k + 2) - 1, d * (2 * k + 1) - 1});
    push(std::move(st));
  }
  return m;
}

std::vector<double> run_scan(const ScanModel& m, std::vector<double> x, size_t upto) {
  x.resize(static_cast<size_t>(m.n), 0.0);
  upto = std::min(upto, m.steps.size());
  for (size_t i = 0; i < upto; ++i) {
    // Hillis-Steele reads the previous step's buffer; Blelloch's ops of one step touch distinct elements.
    const std::vector<double> before = x;
    for (const ScanOp& op : m.steps[i].ops) {
      const size_t d = static_cast<size_t>(op.dst), s = static_cast<size_t>(op.src);
      switch (op.kind) {
        case ScanOpKind::Add:
          x[d] += before[s];
          break;
        case ScanOpKind::Clear:
          x[d] = 0;
          break;
        case ScanOpKind::SwapAdd:
          x[s] = before[d];
          x[d] = before[d] + before[s];
          break;
      }
    }
  }
  return x;
}

}  // namespace bs::reduce_model
