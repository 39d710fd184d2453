// decomposition.h: the heat field split into k row slabs, one per GPU (pure C++; tests run it without GPUs).
// Slab i owns rows [row0, row0 + rows) (sizes differ by at most one) and keeps `halo` ghost rows of each
// neighbour above and below. One exchange fills the halos; then `halo` steps run without communication: step
// j of a round computes the owned rows widened by halo - 1 - j rows into the halos (the neighbour computes
// those very cells with the same inputs, so the result is bitwise the one-GPU result).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bs::multigpu {

struct RowRange {
  int64_t begin = 0, end = 0;  // global rows [begin, end)
  int64_t size() const { return end > begin ? end - begin : 0; }
  bool empty() const { return end <= begin; }
  bool operator==(const RowRange&) const = default;
};

struct Slab {
  int index = 0;
  int64_t row0 = 0, rows = 0;  // owned global rows
  int halo_top = 0, halo_bottom = 0;  // ghost rows held above and below (0 at the field's edge)
  int64_t row1() const { return row0 + rows; }
  int64_t origin() const { return row0 - halo_top; }  // global row of local row 0
  int64_t local_rows() const { return halo_top + rows + halo_bottom; }
  RowRange local_range() const { return {origin(), origin() + local_rows()}; }
};

// nullopt when ny rows split into k slabs with `halo` rows per exchange; otherwise why not (every slab must
// own at least `halo` rows, since a neighbour's halo is copied from them).
std::optional<std::string> validate_decomposition(int64_t ny, int k, int halo);
// Throws bs::InvalidRequest with validate_decomposition's message.
std::vector<Slab> decompose(int64_t ny, int k, int halo);

// The rows slab s computes in step j (0 .. halo - 1) of a round: owned rows widened by halo - 1 - j, within
// the slab's local rows.
RowRange step_rows(const Slab& s, int halo, int j);

// Step 0 of a round split for overlap: `interior` reads only owned rows (or the field's boundary), so it runs
// while the halos travel; `top` and `bottom` need the fresh halos and run after they arrive.
struct StepSplit {
  RowRange top, interior, bottom;
};
StepSplit split_first_step(const Slab& s, int halo);

// One halo message: `rows` rows from slab `from`'s owned rows starting at global row `row` into slab `to`'s
// halo (the same global rows).
struct HaloMessage {
  int from = 0, to = 0;
  int64_t row = 0, rows = 0;
};
std::vector<HaloMessage> halo_messages(const std::vector<Slab>& slabs);
// Bytes one exchange moves over all links (float32 rows of nx cells).
int64_t exchange_bytes(const std::vector<Slab>& slabs, int64_t nx);

}  // namespace bs::multigpu
