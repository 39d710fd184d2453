// compute_site.h: what a lab's panel says about where its rows run: on the GPU (the path in force is not the
// CPU path and a device is usable) with CPU baselines on this machine, or on the CPU only, and then why the
// GPU rows are missing. One wording for every lab that times GPU rows beside CPU ones.
#pragma once

#include <string>

namespace bs {

struct LabEnv;

struct ComputeSite {
  bool gpu = false;
  std::string gpu_missing;  // why GPU rows cannot run ("" when gpu)
  std::string label;        // what runs where, for the panel
};

// `cpu_threads`: the threads the lab's CPU baselines use. `cpu_only`: what still works without GPU rows
// ("the strip, the CPU rows and the CPU sweep work here; GPU rows need a CUDA device.").
ComputeSite compute_site(const LabEnv& env, int cpu_threads, const std::string& cpu_only);

}  // namespace bs
