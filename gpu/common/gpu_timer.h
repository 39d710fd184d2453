// gpu_timer.h: times work on a stream with CUDA events and reads the results later with cudaEventQuery, so
// the frame loop never stalls waiting for the GPU. (Internal to gpu/: includes CUDA headers.)
#pragma once

#include <deque>
#include <vector>

#include "gpu/common/device_buffer.h"

namespace bs {

class EventTimer {
 public:
  // Brackets the work issued between begin() and end() on `stream`.
  void begin(cudaStream_t stream);
  void end(cudaStream_t stream, double work_units = 1.0);
  // Milliseconds of every bracket that has completed since the last call, oldest first (non-blocking).
  struct Sample {
    double ms;
    double work_units;
  };
  std::vector<Sample> poll();
  size_t pending() const { return m_pending.size(); }
  void abandon() noexcept;  // after a device reset: forget the events without destroying them

 private:
  struct Pair {
    Event start, stop;
    double work_units = 1.0;
  };
  std::deque<Pair> m_pending;
  std::vector<Pair> m_free;
  bool m_open = false;
};

}  // namespace bs
