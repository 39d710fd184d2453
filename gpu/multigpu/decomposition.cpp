// decomposition.cpp: slab sizes, halo rows and the rows each step computes (see decomposition.h).
#include "gpu/multigpu/decomposition.h"

#include <algorithm>

#include "core/error.h"

namespace bs::multigpu {

std::optional<std::string> validate_decomposition(int64_t ny, int k, int halo) {
  if (k < 1) return "the number of slabs (GPUs) must be at least 1, not " + std::to_string(k);
  if (halo < 1) return "halo width (steps per exchange) must be at least 1, not " + std::to_string(halo);
  if (ny < k)
    return std::to_string(ny) + " rows cannot be split into " + std::to_string(k) + " slabs (one row each at least)";
  if (k > 1 && ny / k < halo)
    return "with " + std::to_string(k) + " slabs of " + std::to_string(ny) + " rows the smallest slab owns " +
           std::to_string(ny / k) + " rows, fewer than the halo width " + std::to_string(halo) +
           ": use fewer steps per exchange or fewer GPUs";
  return std::nullopt;
}

std::vector<Slab> decompose(int64_t ny, int k, int halo) {
  if (auto err = validate_decomposition(ny, k, halo)) throw InvalidRequest(*err);
  std::vector<Slab> out;
  const int64_t base = ny / k, extra = ny % k;
  int64_t row = 0;
  for (int i = 0; i < k; ++i) {
    Slab s;
    s.index = i;
    s.row0 = row;
    s.rows = base + (i < extra ? 1 : 0);  // the first ny % k slabs take one row more
    s.halo_top = i > 0 ? halo : 0;
    s.halo_bottom = i + 1 < k ? halo : 0;
    row += s.rows;
    out.push_back(s);
  }
  return out;
}

RowRange step_rows(const Slab& s, int halo, int j) {
  const int64_t widen = std::max(halo - 1 - j, 0);
  const RowRange local = s.local_range();
  return {std::max(s.row0 - widen, local.begin), std::min(s.row1() + widen, local.end)};
}

StepSplit split_first_step(const Slab& s, int halo) {
  const RowRange all = step_rows(s, halo, 0);
  // A row reads rows y - 1 and y + 1: it needs no fresh halo when both are owned or off the field.
  const int64_t lo = s.halo_top > 0 ? s.row0 + 1 : s.row0;
  const int64_t hi = s.halo_bottom > 0 ? s.row1() - 1 : s.row1();
  const int64_t ib = std::clamp(lo, all.begin, all.end);
  const int64_t ie = std::clamp(hi, ib, all.end);
  return {{all.begin, ib}, {ib, ie}, {ie, all.end}};
}

std::vector<HaloMessage> halo_messages(const std::vector<Slab>& slabs) {
  std::vector<HaloMessage> out;
  for (size_t i = 0; i < slabs.size(); ++i) {
    const Slab& s = slabs[i];
    if (s.halo_top > 0) out.push_back({s.index - 1, s.index, s.row0 - s.halo_top, s.halo_top});
    if (s.halo_bottom > 0) out.push_back({s.index + 1, s.index, s.row1(), s.halo_bottom});
  }
  return out;
}

int64_t exchange_bytes(const std::vector<Slab>& slabs, int64_t nx) {
  int64_t rows = 0;
  for (const auto& m : halo_messages(slabs))
    rows += m.rows;
  return rows * nx * static_cast<int64_t>(sizeof(float));
}

}  // namespace bs::multigpu
