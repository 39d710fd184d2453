// work_model.h: what a timed run did, for the roofline. Each lab states, per kernel, its floating-point work
// and its minimum DRAM traffic (the "model": every input read once, every output written once, nothing else);
// hardware counters may later add the DRAM bytes actually moved ("measured"). Every lab reports each timed
// run to a RunLog (the app's LabEnv owns one); the roofline view and `blockscope roofline` read it.
// Pure C++: no CUDA, no ImGui.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace bs::work {

// The arithmetic a run's FLOPs ran on: FP32 on the CUDA cores, or the tensor cores at one input precision
// (FP32 accumulate). The roofline puts a run under the compute ceiling of its kind.
enum class Math { Fp32, Tf32, Fp16, Bf16 };
const char* to_string(Math m);  // "FP32", "TF32 tensor cores", "FP16 tensor cores", "BF16 tensor cores"

// The work of one run. FLOPs count the arithmetic the kernel's source states (a fused multiply-add is 2);
// integer adds of the int reductions and scans count as operations in the same column.
struct Work {
  double flops = 0;
  double read_bytes = 0;                      // model: each input byte read once from DRAM
  double write_bytes = 0;                     // model: each output byte written once
  std::optional<double> measured_dram_bytes;  // read + written, from hardware counters; nullopt: not measured
  // The data the run works on (its working set, counted once however often it is touched); 0: not modelled.
  // Above 100% of the DRAM ceiling, a footprint smaller than a cache explains it (core/roofline.h).
  double footprint_bytes = 0;
  Math math = Math::Fp32;  // the compute ceiling the run is measured against

  double model_bytes() const { return read_bytes + write_bytes; }
  // FLOPs per model byte; +infinity when the model moves no DRAM bytes (e.g. shared memory only), 0 when no
  // FLOPs.
  double intensity() const;
  std::optional<double> measured_intensity() const;
  // The work of `times` identical runs (steps, repetitions).
  Work times(double n) const;
};

enum class Where { Gpu, Cpu };
const char* to_string(Where w);  // "GPU" / "CPU"

// One timed run: a point of the roofline.
struct RunRecord {
  std::string label;    // what hover and tables show: "matmul: warptile_db 4096x4096x4096"
  std::string lab;      // "matmul"
  std::string variant;  // "warptile_db", "CPU, all 8 threads (OpenMP)"
  Where where = Where::Gpu;
  std::string device;  // "NVIDIA H100 80GB HBM3", "CPU"
  double seconds = 0;  // one run (a median where the lab takes one)
  Work work;
  // When it was reported (RunLog::add stamps a run that has none): the read-outs say which run they show,
  // and the newest run is the newest by this, not by its place in the log (a configuration run again keeps
  // its place).
  std::chrono::system_clock::time_point at{};

  double flops_per_s() const;        // work.flops / seconds (0 when seconds <= 0)
  double model_bytes_per_s() const;  // work.model_bytes() / seconds
  // Same lab, variant, device side and label: the same configuration (a newer run replaces it in the log).
  bool same_config(const RunRecord& o) const;
};

// The runs of a session: one record per configuration (the newest), in first-reported order, at most
// `capacity` (the oldest configuration is dropped). Thread-safe: CPU jobs may report from their threads.
class RunLog {
 public:
  explicit RunLog(size_t capacity = 512) : m_capacity(capacity) {}
  void add(RunRecord r);
  std::vector<RunRecord> snapshot() const;
  // Changes with every add/clear, so a view can redraw only when something new came in.
  uint64_t version() const;
  size_t size() const;
  void clear();

 private:
  mutable std::mutex m_mutex;
  std::vector<RunRecord> m_runs;
  size_t m_capacity;
  uint64_t m_version = 0;
};

}  // namespace bs::work
