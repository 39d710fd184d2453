// device_buffer.h: move-only RAII owners for CUDA device memory, pinned host memory, streams and events.
// Copying is forbidden so that no buffer is duplicated by accident; destructors never throw.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "gpu/common/cuda_check.h"

namespace bs {

// Where a CudaBuffer's memory comes from: device memory, or page-locked host memory (fast, async copies).
struct DeviceMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
  static cudaError_t free(void* p) { return cudaFree(p); }
};
struct PinnedMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
  static cudaError_t free(void* p) { return cudaFreeHost(p); }
};

// A move-only array of `count` T in the memory `Memory` gives.
template <class T, class Memory>
class CudaBuffer {
 public:
  CudaBuffer() = default;
  explicit CudaBuffer(size_t count) { resize(count); }
  ~CudaBuffer() { release(); }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  CudaBuffer(CudaBuffer&& o) noexcept
      : m_data(std::exchange(o.m_data, nullptr)), m_count(std::exchange(o.m_count, 0)) {}
  CudaBuffer& operator=(CudaBuffer&& o) noexcept {
    if (this != &o) {
      release();
      m_data = std::exchange(o.m_data, nullptr);
      m_count = std::exchange(o.m_count, 0);
    }
    return *this;
  }

  // Reallocates only when the size changes; contents are not preserved.
  void resize(size_t count) {
    if (count == m_count) return;
    release();
    if (count == 0) return;
    void* p = nullptr;
    BS_CUDA_CHECK(Memory::allocate(&p, count * sizeof(T)));
    m_data = static_cast<T*>(p);
    m_count = count;
  }
  void release() noexcept {
    if (m_data) BS_CUDA_LOG(Memory::free(m_data));
    m_data = nullptr;
    m_count = 0;
  }
  // Forget the pointer without freeing it: for use after cudaDeviceReset(), which already freed everything.
  void abandon() noexcept {
    m_data = nullptr;
    m_count = 0;
  }

  T* data() { return m_data; }
  const T* data() const { return m_data; }
  size_t size() const { return m_count; }
  size_t bytes() const { return m_count * sizeof(T); }

 private:
  T* m_data = nullptr;
  size_t m_count = 0;
};

template <class T>
using DeviceBuffer = CudaBuffer<T, DeviceMemory>;
template <class T>
using PinnedBuffer = CudaBuffer<T, PinnedMemory>;

class Stream {
 public:
  Stream() { BS_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking)); }
  ~Stream() {
    if (m_stream) BS_CUDA_LOG(cudaStreamDestroy(m_stream));
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : m_stream(std::exchange(o.m_stream, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(m_stream, o.m_stream);
    return *this;
  }
  void abandon() noexcept { m_stream = nullptr; }
  cudaStream_t get() const { return m_stream; }
  void sync() const { BS_CUDA_CHECK(cudaStreamSynchronize(m_stream)); }

 private:
  cudaStream_t m_stream = nullptr;
};

class Event {
 public:
  Event() { BS_CUDA_CHECK(cudaEventCreate(&m_event)); }
  ~Event() {
    if (m_event) BS_CUDA_LOG(cudaEventDestroy(m_event));
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : m_event(std::exchange(o.m_event, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(m_event, o.m_event);
    return *this;
  }
  void abandon() noexcept { m_event = nullptr; }
  cudaEvent_t get() const { return m_event; }
  void record(cudaStream_t s) { BS_CUDA_CHECK(cudaEventRecord(m_event, s)); }

 private:
  cudaEvent_t m_event = nullptr;
};

// Milliseconds between two recorded events; both must have completed.
inline float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0.f;
  BS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace bs
