// memory_model.cpp: see memory_model.h. Every address below comes from memory_index.h, the functions the
// kernels call; the loops mirror the kernels' loops in program order.
#include "gpu/memory/memory_model.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <map>

#include "core/error.h"

namespace bs::memory {

namespace {

int64_t cdiv(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Bytes of the 32-byte sectors covering [begin, end) bytes of a buffer (cudaMalloc aligns buffers to 256).
int64_t sector_bytes_covering(int64_t begin, int64_t end) {
  if (end <= begin) return 0;
  return (cdiv(end, k_sector_bytes) - begin / k_sector_bytes) * k_sector_bytes;
}

// The threads of lane 0..31 of warp `warp` in a block dx x dy: (tx, ty), or exists = false past the block.
struct LaneThread {
  bool exists = false;
  int tx = 0, ty = 0, linear = 0;
};
LaneThread lane_thread(Dim2 block, int warp, int lane) {
  LaneThread t;
  t.linear = warp * k_warp + lane;
  t.exists = t.linear < block.x * block.y;
  t.tx = static_cast<int>(t.linear % block.x);
  t.ty = static_cast<int>(t.linear / block.x);
  return t;
}

// Where a variant's loop puts its accesses: `a` is filled lane by lane, begin() names the instruction, emit()
// hands it to the caller's f. Text only when asked (predict skips it: millions of instructions).
template <class F>
struct AccessOut {
  WarpAccess a;
  Dim2 block;
  int max_steps;  // banks: how many of the loop's loads (-1: all)
  bool with_text;
  F& f;
  void begin(Space space, Buffer buffer, bool store, int step, const char* text) {
    a.space = space;
    a.buffer = buffer;
    a.store = store;
    a.step = step;
    if (with_text) a.text = text;
  }
  void emit() { f(a); }
  // Lane l active where on[l], at index(l); then emit.
  template <class G>
  void emit_lanes(const bool* on, G&& index) {
    for (int l = 0; l < k_warp; ++l)
      a.lanes[l] = {on[l], static_cast<int64_t>(index(l))};
    f(a);
  }
};

// The cells a warp's lanes touch in one step of a transpose kernel (cell_of(lane's thread)), whether each
// is inside the matrix, and (tiled kernels) the shared-memory word word_of(thread) it goes through.
struct WarpCells {
  Cell cell[k_warp];
  bool on[k_warp];
  int word[k_warp];
};
// One element a thread (t = blockIdx.x * blockDim.x + thread): each lane's t, and whether it is below n.
struct WarpElements {
  int64_t t[k_warp];
  bool on[k_warp];
};
WarpElements warp_elements(const Params& p, Dim2 block, WarpId w) {
  WarpElements e;
  for (int l = 0; l < k_warp; ++l) {
    const LaneThread lt = lane_thread(block, w.warp, l);
    e.t[l] = w.bx * block.x + lt.linear;
    e.on[l] = lt.exists && e.t[l] < p.n;
  }
  return e;
}

template <class CellFn, class WordFn>
WarpCells warp_cells(const Params& p, Dim2 block, int warp, CellFn&& cell_of, WordFn&& word_of) {
  WarpCells c;
  for (int l = 0; l < k_warp; ++l) {
    const LaneThread t = lane_thread(block, warp, l);
    c.cell[l] = cell_of(t);
    c.on[l] = t.exists && inside(c.cell[l], p.rows, p.cols);
    c.word[l] = word_of(t);
  }
  return c;
}

// Naive: each thread reads its cell and writes the transposed cell, straight to global memory.
template <class Out>
void naive_accesses(const Params& p, WarpId w, Out& out) {
  const Dim2 block = out.block;
  const WarpCells c = warp_cells(
      p, block, w.warp,
      [&](const LaneThread& t) {
        return naive_cell(w.bx, w.by, t.tx, t.ty, static_cast<int>(block.x), static_cast<int>(block.y));
      },
      [](const LaneThread&) { return 0; });
  out.begin(Space::Global, Buffer::In, false, 0, "in[r*cols + c]");
  out.emit_lanes(c.on, [&](int l) { return in_index(c.cell[l], p.cols); });
  out.begin(Space::Global, Buffer::Out, true, 0, "out[c*rows + r]");
  out.emit_lanes(c.on, [&](int l) { return out_index(c.cell[l], p.rows); });
}

// Copy: the tiled loop without the transpose (the bandwidth yardstick); the same addresses in `out`.
template <class Out>
void copy_accesses(const Params& p, WarpId w, Out& out) {
  const int dy = static_cast<int>(out.block.y);
  for (int j = 0; j < tile_steps(dy); ++j) {
    const WarpCells c = warp_cells(
        p, out.block, w.warp,
        [&](const LaneThread& t) { return tile_load_cell(w.bx, w.by, t.tx, t.ty, j, dy); },
        [](const LaneThread&) { return 0; });
    out.begin(Space::Global, Buffer::In, false, j, "in[r*cols + c]");
    out.emit_lanes(c.on, [&](int l) { return in_index(c.cell[l], p.cols); });
    out.begin(Space::Global, Buffer::Out, true, j, "out[r*cols + c]");
    out.emit();  // the same addresses in `out`
  }
}

// Tiled (32 or 33 wide): the tile loaded row by row from `in`, then, after __syncthreads(), stored
// column by column to `out`.
template <class Out>
void tiled_accesses(const Params& p, Variant v, WarpId w, Out& out) {
  const int dy = static_cast<int>(out.block.y);
  const int pitch = tile_pitch(v != Variant::Tiled);
  const char* ld_text = pitch == k_tile ? "tile[ty + j*dy][tx] (32 wide)" : "tile[ty + j*dy][tx] (33 wide)";
  const char* st_text = pitch == k_tile ? "tile[tx][ty + j*dy] (32 wide)" : "tile[tx][ty + j*dy] (33 wide)";
  for (int j = 0; j < tile_steps(dy); ++j) {
    const WarpCells c = warp_cells(
        p, out.block, w.warp,
        [&](const LaneThread& t) { return tile_load_cell(w.bx, w.by, t.tx, t.ty, j, dy); },
        [&](const LaneThread& t) { return tile_load_word(t.tx, t.ty, j, dy, pitch); });
    out.begin(Space::Global, Buffer::In, false, j, "in[r*cols + c]");
    out.emit_lanes(c.on, [&](int l) { return in_index(c.cell[l], p.cols); });
    out.begin(Space::Shared, Buffer::Tile, true, j, ld_text);
    out.emit_lanes(c.on, [&](int l) { return c.word[l]; });
  }
  // __syncthreads()
  for (int j = 0; j < tile_steps(dy); ++j) {
    const WarpCells c = warp_cells(
        p, out.block, w.warp,
        [&](const LaneThread& t) { return tile_store_cell(w.bx, w.by, t.tx, t.ty, j, dy); },
        [&](const LaneThread& t) { return tile_store_word(t.tx, t.ty, j, dy, pitch); });
    out.begin(Space::Shared, Buffer::Tile, false, j, st_text);
    out.emit_lanes(c.on, [&](int l) { return c.word[l]; });
    out.begin(Space::Global, Buffer::Out, true, j, "out[c*rows + r]");
    out.emit_lanes(c.on, [&](int l) { return out_index(c.cell[l], p.rows); });
  }
}

// Strided: row `row` of a matrix with `stride` columns, column `col` (the block's y).
template <class Out>
void strided_accesses(const Params& p, WarpId w, Out& out) {
  const Dim2 block = out.block;
  WarpAccess& a = out.a;
  const int64_t s = p.stride, rows = stride_rows(p.n, s), col = w.by;
  int64_t row[k_warp];
  for (int l = 0; l < k_warp; ++l) {
    const LaneThread t = lane_thread(block, w.warp, l);
    row[l] = t.exists ? w.bx * block.x + t.linear : rows;  // rows: off
  }
  out.begin(Space::Global, Buffer::In, false, 0, "in[row*stride + col]");
  for (int l = 0; l < k_warp; ++l) {
    const int64_t i = strided_element(row[l], col, s);
    a.lanes[l] = {row[l] < rows && i < p.n, i};
  }
  out.emit();
  out.begin(Space::Global, Buffer::Out, true, 0, "out[col*rows + row]");
  for (int l = 0; l < k_warp; ++l)
    a.lanes[l] = {row[l] < rows, strided_out(row[l], col, rows)};
  out.emit();
}

// Random: a gather from a random index, a coalesced store.
template <class Out>
void random_accesses(const Params& p, WarpId w, Out& out) {
  const int k = random_bits(p.n);
  const uint64_t mask = (uint64_t{1} << k) - 1;
  const WarpElements e = warp_elements(p, out.block, w);
  out.begin(Space::Global, Buffer::In, false, 0, "in[random_index(t)]");
  out.emit_lanes(e.on, [&](int l) { return e.on[l] ? random_index(e.t[l], p.n, k, mask, p.seed) : 0; });
  out.begin(Space::Global, Buffer::Out, true, 0, "out[t]");
  out.emit_lanes(e.on, [&](int l) { return e.t[l]; });
}

// Banks: the fill of the shared array, the loop over one word a lane, the store of the sum.
template <class Out>
void bank_accesses(const Params& p, Variant v, WarpId w, Out& out) {
  const Dim2 block = out.block;
  WarpAccess& a = out.a;
  const bool padded = v == Variant::BanksPadded;
  const int s = p.bank_stride, words = bank_words(s, padded);
  // Fill: for (i = threadIdx.x; i < words; i += blockDim.x) buf[i] = init[i];
  for (int64_t k = 0; k * block.x < words; ++k) {
    bool any = false;
    for (int l = 0; l < k_warp; ++l) {
      const LaneThread t = lane_thread(block, w.warp, l);
      const int64_t i = k * block.x + t.linear;
      a.lanes[l] = {t.exists && i < words, i};
      any = any || a.lanes[l].active;
    }
    if (!any) break;  // this warp's lanes are all past the array: the loop has ended for it
    out.begin(Space::Global, Buffer::In, false, static_cast<int>(k), "init[i]");
    out.emit();
    out.begin(Space::Shared, Buffer::Tile, true, static_cast<int>(k), "buf[i]");
    out.emit();
  }
  // The loop: acc += buf[word], the same word every iteration (a volatile load).
  const int steps = out.max_steps < 0 ? k_bank_iterations : std::min(out.max_steps, k_bank_iterations);
  for (int it = 0; it < steps; ++it) {
    out.begin(Space::Shared, Buffer::Tile, false, it, padded ? "buf[lane*s + lane*s/32]" : "buf[lane*s]");
    for (int l = 0; l < k_warp; ++l)
      a.lanes[l] = {lane_thread(block, w.warp, l).exists, bank_word(l, s, padded)};
    out.emit();
  }
  const WarpElements e = warp_elements(p, block, w);
  out.begin(Space::Global, Buffer::Out, true, 0, "out[t]");
  out.emit_lanes(e.on, [&](int l) { return e.t[l]; });
}

// Array of structures or structure of arrays: the fields read, then the fields written.
template <class Out>
void struct_accesses(const Params& p, Variant v, WarpId w, Out& out) {
  WarpAccess& a = out.a;
  static const char* const aos_ld[] = {"in[i].x",  "in[i].y",  "in[i].z",   "in[i].vx",
                                       "in[i].vy", "in[i].vz", "in[i].mass"};
  static const char* const soa_ld[] = {"x[i]", "y[i]", "z[i]", "vx[i]", "vy[i]", "vz[i]", "mass[i]"};
  static const char* const aos_st[] = {"out[i].x",  "out[i].y",  "out[i].z",
                                       "out[i].vx", "out[i].vy", "out[i].vz"};
  static const char* const soa_st[] = {"out_x[i]",  "out_y[i]",  "out_z[i]",
                                       "out_vx[i]", "out_vy[i]", "out_vz[i]"};
  const bool soa = v == Variant::Soa;
  const WarpElements e = warp_elements(p, out.block, w);
  const int64_t* idx = e.t;
  const bool* on = e.on;
  for (int fi = 0; fi < k_fields_read; ++fi) {
    out.begin(Space::Global, Buffer::In, false, fi, soa ? soa_ld[fi] : aos_ld[fi]);
    for (int l = 0; l < k_warp; ++l)
      a.lanes[l] = {on[l], soa ? soa_index(idx[l], fi, p.n) : aos_index(idx[l], fi)};
    out.emit();
  }
  for (int fi = 0; fi < k_fields_written; ++fi) {
    out.begin(Space::Global, Buffer::Out, true, fi, soa ? soa_st[fi] : aos_st[fi]);
    for (int l = 0; l < k_warp; ++l)
      a.lanes[l] = {on[l], soa ? soa_index(idx[l], fi, p.n) : aos_index(idx[l], fi)};
    out.emit();
  }
}

// Fills a WarpAccess for each memory instruction of warp w in program order and calls f(a); each variant's
// loop mirrors its kernel's. Text only when asked. Banks: max_steps limits the loop's loads (-1: all).
template <class F>
void for_each_access(const Params& p, Variant v, WarpId w, int max_steps, bool with_text, F&& f) {
  AccessOut<F> out{WarpAccess{}, p.block_of(v), max_steps, with_text, f};
  switch (v) {
    case Variant::Naive:
      return naive_accesses(p, w, out);
    case Variant::Copy:
      return copy_accesses(p, w, out);
    case Variant::Tiled:
    case Variant::TiledPadded:
    case Variant::TiledPaddedMulti:
      return tiled_accesses(p, v, w, out);
    case Variant::Strided:
      return strided_accesses(p, w, out);
    case Variant::Random:
      return random_accesses(p, w, out);
    case Variant::BanksPlain:
    case Variant::BanksPadded:
      return bank_accesses(p, v, w, out);
    case Variant::Aos:
    case Variant::Soa:
    default:
      return struct_accesses(p, v, w, out);
  }
}

// Distinct values among the active lanes' keys (sorted check first: most warps touch ascending addresses).
int distinct(int64_t* keys, int count) {
  if (count == 0) return 0;
  bool sorted = true;
  for (int i = 1; i < count && sorted; ++i)
    sorted = keys[i - 1] <= keys[i];
  if (!sorted) std::sort(keys, keys + count);
  int d = 1;
  for (int i = 1; i < count; ++i)
    d += keys[i] != keys[i - 1];
  return d;
}

}  // namespace

int bank_of(const LaneAccess& l) {
  return bank_of_word(l.element);
}
int64_t sector_of(const LaneAccess& l) {
  return l.byte() / k_sector_bytes;
}
int64_t line_of(const LaneAccess& l) {
  return l.byte() / k_line_bytes;
}

GlobalCost global_cost(const WarpAccess& a) {
  GlobalCost c;
  int64_t sectors[k_warp], lines[k_warp];
  for (const LaneAccess& l : a.lanes)
    if (l.active) {
      sectors[c.active_lanes] = sector_of(l);
      lines[c.active_lanes] = line_of(l);
      ++c.active_lanes;
    }
  c.sectors = distinct(sectors, c.active_lanes);
  c.lines = distinct(lines, c.active_lanes);
  return c;
}

SharedCost shared_cost(const WarpAccess& a) {
  SharedCost c;
  int64_t seen[k_warp];  // distinct words so far
  int n_seen = 0;
  for (const LaneAccess& l : a.lanes) {
    if (!l.active) continue;
    ++c.active_lanes;
    bool dup = false;
    for (int i = 0; i < n_seen && !dup; ++i)
      dup = seen[i] == l.element;  // the same word: one broadcast, no extra wavefront
    if (dup) continue;
    seen[n_seen++] = l.element;
    c.wavefronts = std::max(c.wavefronts, ++c.words_per_bank[static_cast<size_t>(bank_of(l))]);
  }
  return c;
}

int warps_per_block(const Params& p, Variant v) {
  return static_cast<int>(cdiv(p.block_of(v).count(), k_warp));
}

Dim2 grid_of(const Params& p, Variant v) {
  const Dim2 b = p.block_of(v);
  switch (v) {
    case Variant::Naive:
      return {cdiv(p.cols, b.x), cdiv(p.rows, b.y)};
    case Variant::Copy:
    case Variant::Tiled:
    case Variant::TiledPadded:
    case Variant::TiledPaddedMulti:
      return {cdiv(p.cols, k_tile), cdiv(p.rows, k_tile)};
    case Variant::Strided:
      return {cdiv(stride_rows(p.n, p.stride), b.x), p.stride};
    default:
      return {cdiv(p.n, b.x), 1};
  }
}

WarpId warp_reading(const Params& p, Variant v, int64_t e) {
  const Dim2 b = p.block_of(v);
  const auto from_linear = [&](int64_t bx, int64_t by, int64_t linear) {
    return WarpId{bx, by, static_cast<int>(linear / k_warp)};
  };
  switch (kernel_of(v)) {
    case Kernel::Transpose: {
      e = std::clamp<int64_t>(e, 0, p.rows * p.cols - 1);
      const int64_t r = e / p.cols, c = e % p.cols;
      if (v == Variant::Naive) return from_linear(c / b.x, r / b.y, (r % b.y) * b.x + c % b.x);
      // Tiles: row r of the tile is handled by ty = r % dy (at step j = r / dy).
      return from_linear(c / k_tile, r / k_tile, ((r % k_tile) % b.y) * b.x + c % k_tile);
    }
    case Kernel::Stride: {
      e = std::clamp<int64_t>(e, 0, p.n - 1);
      if (v == Variant::Strided) {
        const int64_t row = e / p.stride, col = e % p.stride;
        return from_linear(row / b.x, col, row % b.x);
      }
      const int64_t t = random_thread(e, p.n, p.seed);
      return from_linear(t / b.x, 0, t % b.x);
    }
    case Kernel::Banks:
    case Kernel::Aos:
    default:
      e = std::clamp<int64_t>(e, 0, p.n - 1);
      return from_linear(e / b.x, 0, e % b.x);
  }
}

std::vector<WarpAccess> warp_accesses(const Params& p, Variant v, WarpId w, int max_steps) {
  if (auto err = validate(p, v)) throw InvalidRequest(*err);
  std::vector<WarpAccess> out;
  for_each_access(p, v, w, max_steps, true, [&](const WarpAccess& a) { out.push_back(a); });
  return out;
}

Prediction predict(const Params& p, Variant v, JobControl* ctl) {
  if (auto err = validate(p, v)) throw InvalidRequest(*err);
  const Dim2 grid = grid_of(p, v);
  const int wpb = warps_per_block(p, v);
  const bool banks = kernel_of(v) == Kernel::Banks;
  // The banks loop does the same for every warp with the same lanes: cost it once per warp shape.
  int64_t loop_requests_full = 0, loop_wavefronts_full = 0, loop_conflicts_full = 0;
  int64_t loop_requests_part = 0, loop_wavefronts_part = 0, loop_conflicts_part = 0;
  if (banks) {
    for (int part = 0; part < 2; ++part) {
      const int warp = part == 0 ? 0 : wpb - 1;
      int64_t rq = 0, wf = 0, cf = 0;
      for_each_access(p, v, WarpId{0, 0, warp}, -1, false, [&](const WarpAccess& a) {
        if (a.space != Space::Shared || a.store) return;
        const SharedCost c = shared_cost(a);
        if (c.active_lanes == 0) return;
        ++rq;
        wf += c.wavefronts;
        cf += c.conflicts();
      });
      (part == 0 ? loop_requests_full : loop_requests_part) = rq;
      (part == 0 ? loop_wavefronts_full : loop_wavefronts_part) = wf;
      (part == 0 ? loop_conflicts_full : loop_conflicts_part) = cf;
    }
  }

  const int64_t blocks = grid.x * grid.y;
  int64_t ld_rq = 0, ld_sec = 0, st_rq = 0, st_sec = 0;
  int64_t sh_ld_rq = 0, sh_ld_wf = 0, sh_ld_cf = 0, sh_st_rq = 0, sh_st_wf = 0, sh_st_cf = 0;
  std::atomic<int64_t> done{0};
  std::atomic<bool> stop{false};
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : ld_rq, ld_sec, st_rq, st_sec, sh_ld_rq, sh_ld_wf, \
                                                                sh_ld_cf, sh_st_rq, sh_st_wf, sh_st_cf)
  for (int64_t b = 0; b < blocks; ++b) {
    if (stop.load(std::memory_order_relaxed)) continue;
    for (int w = 0; w < wpb; ++w) {
      const WarpId id{b % grid.x, b / grid.x, w};
      for_each_access(p, v, id, banks ? 0 : -1, false, [&](const WarpAccess& a) {
        if (a.space == Space::Global) {
          const GlobalCost c = global_cost(a);
          if (c.active_lanes == 0) return;  // a fully predicated-off instruction issues no request
          (a.store ? st_rq : ld_rq) += 1;
          (a.store ? st_sec : ld_sec) += c.sectors;
        } else {
          const SharedCost c = shared_cost(a);
          if (c.active_lanes == 0) return;
          (a.store ? sh_st_rq : sh_ld_rq) += 1;
          (a.store ? sh_st_wf : sh_ld_wf) += c.wavefronts;
          (a.store ? sh_st_cf : sh_ld_cf) += c.conflicts();
        }
      });
      if (banks) {
        const bool full = w < wpb - 1 || p.block_of(v).x % k_warp == 0;
        sh_ld_rq += full ? loop_requests_full : loop_requests_part;
        sh_ld_wf += full ? loop_wavefronts_full : loop_wavefronts_part;
        sh_ld_cf += full ? loop_conflicts_full : loop_conflicts_part;
      }
    }
    if (ctl) {
      const int64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
      if ((d & 1023) == 0) ctl->set_progress(static_cast<double>(d) / static_cast<double>(blocks));
      if (ctl->cancelled()) stop.store(true, std::memory_order_relaxed);
    }
  }
  if (stop.load()) throw JobCancelled{};
  Prediction r;
  r.ld_requests = ld_rq;
  r.ld_sectors = ld_sec;
  r.st_requests = st_rq;
  r.st_sectors = st_sec;
  r.shared_ld_requests = sh_ld_rq;
  r.shared_ld_wavefronts = sh_ld_wf;
  r.shared_ld_conflicts = sh_ld_cf;
  r.shared_st_requests = sh_st_rq;
  r.shared_st_wavefronts = sh_st_wf;
  r.shared_st_conflicts = sh_st_cf;
  // Every kernel touches every sector of its input and output at least once.
  const int64_t in_b = 4 * input_length(p, v), out_b = 4 * output_length(p, v);
  if (v == Variant::Soa) {
    r.min_dram_read_bytes = 0;
    r.min_dram_write_bytes = 0;
    for (int f = 0; f < k_fields_read; ++f)
      r.min_dram_read_bytes += sector_bytes_covering(4 * soa_index(0, f, p.n), 4 * soa_index(p.n, f, p.n));
    for (int f = 0; f < k_fields_written; ++f)
      r.min_dram_write_bytes += sector_bytes_covering(4 * soa_index(0, f, p.n), 4 * soa_index(p.n, f, p.n));
  } else {
    r.min_dram_read_bytes = sector_bytes_covering(0, in_b);
    r.min_dram_write_bytes = sector_bytes_covering(0, out_b);
  }
  if (ctl) ctl->set_progress(1.0);
  return r;
}

}  // namespace bs::memory
