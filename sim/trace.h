// trace.h: a bounded recorder of a launch's memory accesses and barriers (an Observer, sim.h), for the access
// maps, the CLI's CSV and the tests. Big launches are sampled by whole blocks, decided before the run (so the
// sample is the same on every run): every block when there are at most max_blocks, else an even stride through
// the grid that always includes the first and the last block (where a size that is not a multiple of the
// block shows its bugs). A byte cap stops recording if the sampled blocks still hold too much; sampled() says
// what was kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/sim.h"

namespace bs::sim {

struct RecordedAccess {
  uint64_t block = 0;
  uint32_t warp = 0, pc = 0, mask = 0;
  Space space = Space::Global;
  Access access = Access::Read;
  uint8_t bytes = 0;
  uint64_t addr[32] = {};  // per lane (only the lanes in mask are meaningful)
};

struct RecordedBarrier {
  uint64_t block = 0;
  uint32_t pc = 0;
  uint64_t epoch = 0;
};

class Recorder final : public Observer {
 public:
  struct Options {
    uint64_t max_blocks = 4096;                  // blocks recorded at most
    uint64_t max_bytes = uint64_t{512} << 20;    // memory for the events at most
  };
  Recorder(uint64_t total_blocks, Options o);
  explicit Recorder(uint64_t total_blocks) : Recorder(total_blocks, Options{}) {}

  bool wants_block(uint64_t block) override;
  void on_access(int worker, const WarpAccess& a) override;
  void on_barrier(int worker, uint64_t block, uint32_t pc, uint64_t epoch) override;
  void on_step(int, uint64_t, uint32_t, uint32_t, uint32_t) override {}
  void on_start(int workers) override;

  // Every recorded access, ordered by block, then as the block ran.
  std::vector<RecordedAccess> accesses() const;
  std::vector<RecordedBarrier> barriers() const;
  bool truncated() const;       // the byte cap was reached
  uint64_t recorded_blocks() const { return m_recorded; }
  // "all 12 blocks" / "64 of 4096 blocks (every 64th, and the last)" (+ "; stopped at 512 MiB")
  std::string sampled() const;

 private:
  struct Store {
    std::vector<RecordedAccess> acc;
    std::vector<RecordedBarrier> bar;
    uint64_t bytes = 0;
    bool full = false;
  };
  uint64_t m_total, m_stride, m_recorded = 0;
  Options m_opt;
  std::vector<Store> m_stores;
};

// The recorded accesses as CSV, one row per lane: block and thread coordinates, warp, lane, space, access,
// buffer name and element (global; shared/local: the byte offset), bytes, source file and line, PTX text.
// (The caller writes it: blockscope writes every file through core/text.h's atomic writer.)
std::string access_csv(const Recorder& rec, const Module& m, const LaunchConfig& cfg, const LaunchResult& r);

}  // namespace bs::sim
