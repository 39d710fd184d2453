// flush.h: an L2 "flush" for counter collection (internal to gpu/counters). Nsight Compute starts each
// replay pass from a cold cache (--cache-control all); blockscope does the same by reading a buffer several
// times the L2's size before each pass. Reading, never writing: dirty lines left in the L2 would be written
// back during the measured kernel and counted as its DRAM writes.
#pragma once

#include <cstddef>

namespace bs::counters::detail {

// Owns the buffer (device memory, 3 x the L2) for one collection; flush() reads all of it and waits.
class L2Flusher {
 public:
  explicit L2Flusher(size_t l2_bytes);  // no buffer (flush() does nothing) when allocation fails
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  bool active() const { return m_buffer != nullptr; }
  void flush();

 private:
  void* m_buffer = nullptr;
  float* m_sink = nullptr;
  size_t m_count4 = 0;  // float4s in the buffer
};

}  // namespace bs::counters::detail
