// gl_interop.h: moving a device field into a GL texture, by CUDA-OpenGL interop (no host copy) or through a
// pinned host staging buffer (the fallback when registration fails). Pure C++: GL names are plain unsigned ints
// and CUDA streams are void*, so app/ and ui/ can hold these without CUDA headers.
#pragma once

#include <memory>
#include <string>

namespace bs::interop {

// A GL_R32F texture of nx x ny registered with CUDA; write() runs a kernel that stores the field into the
// texture's memory through a surface object, between map and unmap. The texture must not be used by GL while
// mapped; write() unmaps before it returns (the unmap orders the GL work after the CUDA work).
class TextureInterop {
 public:
  // Returns nullptr and fills `error` when registration fails (GL on another GPU, Mesa, WSL, remote X); the CUDA
  // error is cleared so the caller can fall back and keep going.
  static std::unique_ptr<TextureInterop> create(unsigned gl_texture, int nx, int ny, std::string* error);
  ~TextureInterop();
  TextureInterop(const TextureInterop&) = delete;
  TextureInterop& operator=(const TextureInterop&) = delete;

  void write(const float* device_field, void* stream);
  void abandon() noexcept;  // after a device reset

 private:
  TextureInterop() = default;
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

}  // namespace bs::interop
