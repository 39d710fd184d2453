// gpu_error.h: the exception type for GPU failures, visible to code that never includes CUDA headers (app/,
// ui/).
#pragma once

#include <stdexcept>
#include <string>

namespace bs {

// Thrown by every GPU host call that fails. `sticky` marks errors that poison the CUDA context (illegal
// address, launch failure, ...): after one, every later call fails until the device is reset and all
// resources rebuilt.
class GpuError : public std::runtime_error {
 public:
  GpuError(const std::string& what, int code, bool sticky)
      : std::runtime_error(what), m_code(code), m_sticky(sticky) {}
  int code() const { return m_code; }
  bool sticky() const { return m_sticky; }

 private:
  int m_code;
  bool m_sticky;
};

// A request that can never run (bad launch configuration, size that does not fit): a message for the user.
class InvalidRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace bs
