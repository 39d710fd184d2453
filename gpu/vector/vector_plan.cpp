// vector_plan.cpp: the vector lab's pure arithmetic: parameter validation, element counts, chunks, launch
// shapes, the element -> thread mapping, timeline overlap figures, crossover interpolation, memory checks and
// the nominal host-link table. No CUDA and no threads here, so all of it is testable on any machine.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/launch.h"
#include "gpu/vector/vector.h"

namespace bs::vector {

const char* to_string(Op op) {
  return k_op_names.c_name(op);
}
const char* to_string(Indexing ix) {
  return ix == Indexing::OnePerElement ? "one thread per element" : "grid-stride loop";
}
const char* short_name(Indexing ix) {
  return ix == Indexing::OnePerElement ? "1 per element" : "grid-stride";
}
const char* to_string(LoadWidth w) {
  return k_load_width_names.c_name(w);
}
const char* formula_text(Op op) {
  return op == Op::Add ? "c = a + b" : "c = (a*10 + 2) * ((b + 2)*10 - 5) * 5";
}
const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::H2D:
      return "H2D";
    case OpKind::Kernel:
      return "kernel";
    case OpKind::D2H:
    default:
      return "D2H";
  }
}

std::optional<Op> parse_op(std::string_view text) {
  return k_op_names.parse(text);
}

std::optional<std::string> validate(const Params& p) {
  if (p.n < k_min_n)
    return "n = " + std::to_string(p.n) + ": a vector needs at least " + std::to_string(k_min_n) +
           " element (choose n from 1 to " + std::to_string(k_max_n) + " = " + format_count(k_max_n) + ")";
  if (p.n > k_max_n)
    return "n = " + std::to_string(p.n) + " is more than " + std::to_string(k_max_n) + " (" +
           format_count(k_max_n) +
           "), the largest vector this lab runs (2 GiB per array, 6 GiB for a, b and c)";
  if (auto err = validate_block({p.block, 1}, DeviceLimits{})) return "block: " + *err;
  if (p.waves < 1 || p.waves > k_max_waves)
    return "waves = " + std::to_string(p.waves) + ": the grid-stride grid holds 1 to " +
           std::to_string(k_max_waves) + " waves of resident blocks";
  if (p.streams < 1 || p.streams > k_max_streams)
    return "streams = " + std::to_string(p.streams) + ": choose 1 to " + std::to_string(k_max_streams) +
           " streams (1 = no overlap: copy in, compute, copy out)";
  if (p.chunks < 0 || p.chunks > k_max_chunks)
    return "chunks = " + std::to_string(p.chunks) + ": choose 1 to " + std::to_string(k_max_chunks) +
           " chunks, or 0 for one chunk per stream";
  return std::nullopt;
}

std::vector<Chunk> make_chunks(int64_t n, int chunks, int streams) {
  std::vector<Chunk> out;
  if (n <= 0) return out;
  chunks = std::max(chunks, 1);
  streams = std::max(streams, 1);
  // Equal chunks in whole float4 groups, so every chunk but the last starts and ends on a 16-byte boundary.
  const int64_t per = ceil_div(ceil_div(n, 4), chunks) * 4;
  for (int64_t begin = 0, k = 0; begin < n; begin += per, ++k)
    out.push_back({begin, std::min(per, n - begin), static_cast<int>(k % streams)});
  return out;
}

LaunchShape make_shape(int64_t n, Indexing ix, LoadWidth w, int64_t block, int64_t stride_grid) {
  LaunchShape s;
  s.indexing = ix;
  s.width = w;
  s.block = std::max<int64_t>(block, 1);
  if (n <= 0) return s;
  s.n = n;
  s.items = w == LoadWidth::Float4 ? ceil_div(n, 4) : n;
  const int64_t covering = ceil_div(s.items, s.block);
  s.grid = ix == Indexing::OnePerElement ? covering : std::clamp<int64_t>(stride_grid, 1, covering);
  s.passes = ceil_div(s.items, s.threads());
  return s;
}

Touch touched_by(int64_t i, const LaunchShape& s) {
  Touch t;
  if (s.n <= 0 || i < 0 || i >= s.n) return t;
  const bool vec = s.width == LoadWidth::Float4;
  const int64_t v = vec ? i / 4 : i;
  const int64_t g = v % s.threads();
  t.pass = v / s.threads();
  t.block = g / s.block;
  t.thread = g % s.block;
  t.lane = vec ? static_cast<int>(i % 4) : 0;
  t.tail = vec && v * 4 + 3 >= s.n;
  return t;
}

Touch touched_by(int64_t i, const Params& p, int64_t stride_grid) {
  const std::vector<Chunk> chunks = make_chunks(p.n, p.chunk_count(), p.streams);
  if (chunks.empty() || i < 0 || i >= p.n) return {};
  // All chunks but the last have the first one's size.
  const size_t k = std::min(static_cast<size_t>(i / chunks.front().count), chunks.size() - 1);
  const Chunk& c = chunks[k];
  Touch t = touched_by(i - c.begin, make_shape(c.count, p.indexing, p.width, p.block, stride_grid));
  t.chunk = static_cast<int>(k);
  t.stream = c.stream;
  return t;
}

namespace {

using Interval = std::pair<double, double>;

// Sorted, disjoint union of intervals.
std::vector<Interval> merge(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

double length(const std::vector<Interval>& v) {
  double s = 0;
  for (const auto& iv : v)
    s += iv.second - iv.first;
  return s;
}

// Length of the intersection of two sorted disjoint unions.
double overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double s = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) s += hi - lo;
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return s;
}

}  // namespace

Timeline analyze_timeline(std::vector<TimelineOp> ops, int streams, int chunks) {
  Timeline t;
  t.streams = streams;
  t.chunks = chunks;
  t.ops = std::move(ops);
  if (t.ops.empty()) return t;
  double first = t.ops.front().start_ms, last = t.ops.front().end_ms;
  std::vector<Interval> kernels, copies;
  for (const auto& op : t.ops) {
    first = std::min(first, op.start_ms);
    last = std::max(last, op.end_ms);
    const double d = op.ms();
    t.serial_sum_ms += d;
    switch (op.kind) {
      case OpKind::H2D:
        t.h2d_sum_ms += d;
        copies.emplace_back(op.start_ms, op.end_ms);
        break;
      case OpKind::D2H:
        t.d2h_sum_ms += d;
        copies.emplace_back(op.start_ms, op.end_ms);
        break;
      case OpKind::Kernel:
        t.kernel_sum_ms += d;
        kernels.emplace_back(op.start_ms, op.end_ms);
        break;
    }
  }
  t.total_ms = last - first;
  const auto k = merge(std::move(kernels));
  const auto c = merge(std::move(copies));
  t.kernel_busy_ms = length(k);
  t.kernel_hidden_ms = overlap(k, c);
  t.kernel_hidden_fraction = t.kernel_busy_ms > 0 ? t.kernel_hidden_ms / t.kernel_busy_ms : 0.0;
  return t;
}

std::string NominalLink::text() const {
  char buf[64];
  if (gbs > 0)
    std::snprintf(buf, sizeof buf, " = %.1f GB/s per direction", gbs);
  else
    buf[0] = '\0';
  return name + buf +
         (assumed ? " (assumed from the compute capability: the CUDA runtime does not report the link)" : "");
}

NominalLink nominal_link(int cc_major, int cc_minor, bool integrated, bool host_page_tables) {
  (void)cc_minor;
  NominalLink l;
  if (integrated) {
    l.name = "shared memory (integrated GPU): no host link, copies are memory-to-memory";
    return l;
  }
  // Grace Hopper / Grace Blackwell reach host memory through the host's page tables over NVLink-C2C.
  if (host_page_tables && cc_major >= 9) {
    l.name = cc_major == 9 ? "NVLink-C2C (Grace Hopper)" : "NVLink-C2C (Grace Blackwell)";
    l.gbs = 450;
    return l;
  }
  // PCIe x16 per direction after line coding: 3.0 8 GT/s 128b/130b = 15.75 GB/s, 4.0 = 31.5, 5.0 = 63.
  if (cc_major >= 9) {
    l.name = "PCIe 5.0 x16";
    l.gbs = 63.0;
  } else if (cc_major == 8) {
    l.name = "PCIe 4.0 x16";
    l.gbs = 31.5;
  } else {
    l.name = "PCIe 3.0 x16";
    l.gbs = 15.75;
  }
  return l;
}

std::pair<int64_t, int64_t> quick_sweep_range(int64_t n) {
  const int64_t lo = 1024, hi = int64_t{1} << 20;
  return {std::clamp<int64_t>(n, 1, lo), std::max(hi, n)};
}

std::vector<int64_t> sweep_sizes(int64_t min_n, int64_t max_n) {
  std::vector<int64_t> out;
  if (min_n < 1 || max_n < min_n) return out;
  for (int64_t s = min_n; s < max_n; s *= 2)
    out.push_back(s);
  out.push_back(max_n);
  return out;
}

std::string Crossover::text() const {
  char buf[160];
  switch (kind) {
    case Kind::InRange: {
      const double m = n / double(1 << 20), k = n / 1024.0;
      if (m >= 1)
        std::snprintf(buf, sizeof buf, "at ~%.2fM elements (%.0f)", m, n);
      else
        std::snprintf(buf, sizeof buf, "at ~%.1fK elements (%.0f)", k, n);
      return buf;
    }
    case Kind::GpuAlwaysWins:
      return "GPU wins already at " + format_count(static_cast<int64_t>(n)) + " (the smallest size swept)";
    case Kind::None:
    default:
      return "none in range (the GPU does not win at the largest size swept)";
  }
}

Crossover find_crossover(std::span<const int64_t> n, std::span<const double> gpu_ms,
                         std::span<const double> cpu_ms) {
  std::vector<double> ln, d;  // log n, log(gpu/cpu): negative where the GPU wins
  const size_t m = std::min({n.size(), gpu_ms.size(), cpu_ms.size()});
  for (size_t i = 0; i < m; ++i) {
    if (!(gpu_ms[i] > 0) || !(cpu_ms[i] > 0) || n[i] <= 0) continue;
    ln.push_back(std::log(static_cast<double>(n[i])));
    d.push_back(std::log(gpu_ms[i] / cpu_ms[i]));
  }
  Crossover c;
  if (d.empty() || d.back() >= 0) return c;  // None
  size_t j = d.size() - 1;
  while (j > 0 && d[j - 1] < 0)
    --j;  // j: first point of the final winning run
  if (j == 0) {
    c.kind = Crossover::Kind::GpuAlwaysWins;
    c.n = std::exp(ln[0]);
    return c;
  }
  // Linear in (log n, log ratio) between the last losing point j-1 (d >= 0) and the first winning point j (d
  // < 0).
  const double t = d[j - 1] / (d[j - 1] - d[j]);
  c.kind = Crossover::Kind::InRange;
  c.n = std::exp(ln[j - 1] + t * (ln[j] - ln[j - 1]));
  return c;
}

void compute_crossovers(SweepResult& r) {
  std::vector<int64_t> n;
  std::vector<double> kernel, total, cpu1, cpu_all;
  for (const auto& p : r.points) {
    n.push_back(p.n);
    kernel.push_back(p.gpu_kernel_ms);
    total.push_back(p.gpu_total_ms);
    cpu1.push_back(p.cpu1_ms);
    cpu_all.push_back(p.cpu_all_ms);
  }
  r.total_vs_cpu1 = find_crossover(n, total, cpu1);
  r.total_vs_cpu_all = find_crossover(n, total, cpu_all);
  r.kernel_vs_cpu_all = find_crossover(n, kernel, cpu_all);
}

}  // namespace bs::vector
