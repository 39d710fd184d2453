// gpu_recovery.h: what the app does when the GPU fails. A cleared error is shown and the run goes on; a
// sticky one (the CUDA context is poisoned) makes every lab forget its GPU handles, resets the device and
// rebuilds the labs, or, when the reset fails, moves everything to the CPU and says so.
#pragma once

#include <string>

#include "app/lab.h"
#include "core/error.h"

namespace bs {

class LabHost;

class GpuRecovery {
 public:
  explicit GpuRecovery(LabEnv& env) : m_env(env) {}

  void recover_from(const GpuError& e, LabHost& labs);
  // The render path and the device marked unusable: every lab built from now on runs on the CPU.
  void fall_back_to_cpu(const std::string& why);
  // The last GPU failure and what was done about it (the Device window shows it); empty when none.
  const std::string& message() const { return m_message; }
  void set_message(std::string m) { m_message = std::move(m); }

 private:
  LabEnv& m_env;
  std::string m_message;
};

}  // namespace bs
