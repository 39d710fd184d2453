// compute_site.cpp: see compute_site.h.
#include "app/shell/compute_site.h"

#include "app/lab.h"

namespace bs {

ComputeSite compute_site(const LabEnv& env, int cpu_threads, const std::string& cpu_only) {
  ComputeSite s;
  const std::string threads = std::to_string(cpu_threads) + " threads";
  s.gpu = env.path.path != RenderPath::Cpu && env.device.available;
  if (s.gpu) {
    s.label = "GPU rows: " + env.device.name + "; CPU rows: this machine's CPU (" + threads + ")";
  } else {
    s.gpu_missing = env.device.available ? "the app runs on the CPU path (" + env.path.reason + ")"
                                         : "no CUDA device: " + env.device.reason;
    s.label = "CPU only (" + threads + "): " + cpu_only;
  }
  return s;
}

}  // namespace bs
