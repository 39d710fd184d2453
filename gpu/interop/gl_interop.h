// gl_interop.h: moving a device field into a GL texture, by CUDA-OpenGL interop (no host copy) or through a
// pinned host staging buffer (the fallback when registration fails). Pure C++: GL names are plain unsigned
// ints and CUDA streams are void*, so app/ and ui/ can hold these without CUDA headers.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace bs::interop {

// The GL buffer behind the field's texture (a GL_TEXTURE_BUFFER of nx*ny R32F texels), registered with CUDA.
// write() maps it, runs a copy kernel from the device field into it, and unmaps. A buffer is linear memory
// that CUDA writes in place (registering a 2D texture instead makes the driver convert layouts on every
// unmap, which costs several times more). GL must not use the buffer while mapped; write() unmaps before it
// returns, and the unmap orders later GL work after the CUDA work.
class FieldInterop {
 public:
  // Returns nullptr and fills `error` when registration fails (GL on another GPU, Mesa, WSL, remote X); the
  // CUDA error is cleared so the caller can fall back and keep going.
  static std::unique_ptr<FieldInterop> create(unsigned gl_buffer, size_t count, std::string* error);
  ~FieldInterop();
  FieldInterop(const FieldInterop&) = delete;
  FieldInterop& operator=(const FieldInterop&) = delete;

  void write(const float* device_field, void* stream);
  void abandon() noexcept;  // after a device reset

 private:
  FieldInterop() = default;
  struct Impl;
  std::unique_ptr<Impl> m;
};

// Device memory that CUDA allocates as exportable (cuMemCreate with a POSIX file-descriptor handle) and GL
// imports as a buffer's storage (GL_EXT_memory_object_fd). CUDA and GL then share the same bytes for good: no
// map and unmap per frame, which is where most of FieldInterop's cost goes. The caller orders access: GL must
// have finished reading (a fence) before write(), and write() returns once the copy is complete.
class SharedFieldMemory {
 public:
  // nullptr with `error` filled when the driver cannot export memory this way.
  static std::unique_ptr<SharedFieldMemory> create(size_t count, std::string* error);
  ~SharedFieldMemory();
  SharedFieldMemory(const SharedFieldMemory&) = delete;
  SharedFieldMemory& operator=(const SharedFieldMemory&) = delete;

  // A new file descriptor for the allocation; the importer (GL) takes ownership of it.
  int export_fd(std::string* error);
  size_t bytes() const;  // size of the allocation (rounded up to the driver's granularity)
  void write(const float* device_field, void* stream);
  void abandon() noexcept;

 private:
  SharedFieldMemory() = default;
  struct Impl;
  std::unique_ptr<Impl> m;
};

// Pinned host staging: copies a device field to host memory for glTexSubImage2D.
class HostStaging {
 public:
  HostStaging();
  ~HostStaging();
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;
  // Copies `count` floats and waits for them; returns the host pointer (valid until the next call).
  const float* download(const float* device_field, size_t count, void* stream);
  void abandon() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// The CUDA devices behind the current GL context (cudaGLGetDevices): the GPU that draws. Empty, with `error`
// filled, where GL runs on no CUDA device (Mesa, another vendor, remote X) or there is no driver; the CUDA
// error is cleared.
std::vector<int> gl_cuda_devices(std::string* error);

}  // namespace bs::interop
