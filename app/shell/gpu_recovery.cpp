// gpu_recovery.cpp: see gpu_recovery.h.
#include "app/shell/gpu_recovery.h"

#include <cstdio>

#include "app/shell/lab_host.h"
#include "gpu/common/device_info.h"
#include "gpu/kernel/kernel_runner.h"

namespace bs {

void GpuRecovery::fall_back_to_cpu(const std::string& why) {
  m_env.path.path = RenderPath::Cpu;
  m_env.path.reason = "GPU failed: " + why;
  m_env.device.available = false;
  m_env.device.reason = why;
}

void GpuRecovery::recover_from(const GpuError& e, LabHost& labs) {
  struct Report {
    const std::string& msg;
    ~Report() { std::fprintf(stderr, "blockscope: %s\n", msg.c_str()); }
  } report{m_message};
  if (!e.sticky()) {
    // The error was cleared by the check; the context is fine. Show it and carry on.
    m_message = std::string("GPU error (recovered): ") + e.what();
    return;
  }
  // The context is poisoned: forget every GPU handle, reset the device, rebuild; or give up on the GPU.
  labs.abandon_gpu();
  // The user's kernels (kernel lab) the labs abandoned: unloaded before the reset, so none outlives it.
  kernel::release_abandoned_libraries();
  std::string err;
  if (m_env.device.available && reset_cuda_device(m_env.device.index, &err)) {
    m_message = std::string("GPU error: ") + e.what() + " - device reset, simulation restarted";
    try {
      labs.rebuild();
      return;
    } catch (const GpuError& again) {
      err = again.what();
      labs.abandon_gpu();
    }
  }
  m_message =
      std::string("GPU error: ") + e.what() + " - the device could not be reset (" + err +
      "); running on the CPU. Restart blockscope to use the GPU again (drawing on that GPU may stop too).";
  // A user kernel (kernel lab) caused it: say what survives without a restart and what does not.
  if (std::string(e.what()).find("user kernel ") != std::string::npos)
    m_message +=
        " Kept without a restart: your sources in the Kernel editor, compiling, and every lab on the CPU "
        "(save the session to take them over). Not recoverable in this process: the GPU, after an illegal "
        "address or a hung kernel poisoned its context (the driver refuses the device to this process; a new "
        "process gets it). Compile errors and launches the GPU refuses never need a restart.";
  fall_back_to_cpu(err.empty() ? e.what() : err);
  labs.rebuild();
}

}  // namespace bs
