// gpu_runner.h: running an exercise's compiled kernel on a CUDA GPU, for "Run tests" where there is one.
// Which engine runs the tests (choose_engine, pure: tested without a GPU), one launch of the student's cubin on
// buffers the runner made (uploaded, launched under a deadline, copied back), and its timing (CUDA events,
// warm-up runs, the median of several), and the roofline arithmetic (the contract's compulsory bytes over the
// median time against the device's DRAM bandwidth). Plain C++: the window and the CLI include it; the CUDA
// code is in gpu_runner.cu.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/kernel/compiler.h"

namespace bs::exercise {

// What "Run tests" asks for: the GPU where there is one (Auto: the window and `exercise check`), the simulator
// (grading, --sim), or the GPU (--gpu; without one it says why and runs in the simulator).
enum class Engine { Simulator, Auto, Gpu };

struct GpuStatus {
  bool available = false;
  std::string device;  // "NVIDIA H100 80GB HBM3"
  std::string reason;  // why not available, e.g. "CUDA driver version is insufficient ..."
  int arch = 0;        // compute capability as 90
  double dram_gbs = 0;        // the bandwidth ceiling, GB/s (1e9 bytes per second)
  std::string dram_source;    // where that figure comes from
};
// The first device, asked once per process (the CUDA runtime's answer does not change while it runs).
const GpuStatus& gpu_status();

struct EngineChoice {
  bool gpu = false;
  std::string label;  // "GPU: NVIDIA H100 80GB HBM3", "simulator (no GPU: <reason>)", "simulator" (Simulator asked for)
};
EngineChoice choose_engine(Engine requested, const GpuStatus& s);

// One launch of a compiled kernel. Buffers are 4-byte words (as the runner holds them); each argument is a
// buffer (an index into `buffers`) or a scalar of 4 or 8 bytes.
struct GpuArg {
  int buffer = -1;
  uint64_t bits = 0;  // a scalar's bytes, little-endian
  uint32_t bytes = 4;
};
struct GpuJob {
  const kernel::CompileResult* binary = nullptr;  // cubin
  std::string entry;                              // the kernel's PTX (lowered) name
  std::string shown_name;                         // how fault messages name the kernel
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t dynamic_shared = 0;
  std::vector<GpuArg> args;
  std::vector<std::vector<uint32_t>*> buffers;  // in: inputs (and poisoned outputs); out: after the launch
  int warmup = 2, repetitions = 7;              // timing after the checked launch (0 repetitions: untimed)
  double timeout_s = 5.0;
};
struct GpuRun {
  std::string error;  // the launch failed: a fault, a bad launch, a kernel that did not finish
  std::vector<double> ms;  // each timed run
};
// Never throws; errors come back in GpuRun::error.
GpuRun run_on_gpu(const GpuJob& job);

// The median of `ms` (0 when empty).
double median_ms(std::vector<double> ms);

// The timing of the largest test and its place under the roofline.
struct GpuTiming {
  std::string test;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
  uint64_t bytes = 0;  // each input buffer read once, each output written once (the compulsory traffic)
  double gbs = 0, ceiling_gbs = 0;
  std::string ceiling_source;
  double roofline_percent() const { return ceiling_gbs > 0 ? 100.0 * gbs / ceiling_gbs : 0; }
};
GpuTiming make_timing(const std::string& test, const std::vector<double>& ms, uint64_t bytes, const GpuStatus& s);
// "test n=278528: 0.0123 ms median of 7 (0.0119..0.0131), 2.2 MB moved: 181 GB/s = 5.4% of 3352 GB/s (<source>)"
std::string timing_text(const GpuTiming& t);

}  // namespace bs::exercise
