// ceilings.h: the roofline's ceilings, measured on this machine the first time they are needed and cached per
// device (name, UUID and driver for a GPU; model and threads for the CPU), with the date they were measured.
// GPU: DRAM bandwidth (a float4 copy), L2 bandwidth (reads of a buffer a quarter of L2's size), shared-memory
// bandwidth (float4 reads, conflict-free), FP32 FMA throughput (independent FMA chains) and launch overhead
// (empty kernels back to back); tensor cores, dense BF16, FP16 and TF32 (FP32 accumulate): the best of cuBLAS
// (cublasGemmEx) at 4096^3 and 8192^3, absent with the reason on a GPU without them. CPU: memory bandwidth
// with all threads (a copy, OpenMP) and FP32 throughput built with the CPU baselines' compiler flags. Datasheet figures for known GPUs sit beside them, labelled.
// Pure C++ (no CUDA headers).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "core/work_model.h"

namespace bs::roofline {

struct Ceilings {
  bool gpu = false;
  std::string device;        // "NVIDIA H100 80GB HBM3" or the CPU model
  std::string key;           // what the cache matches: name|UUID|driver, or cpu model|threads
  std::string measured_utc;  // "2026-11-23T14:02:03Z"
  double dram_gbs = 0;       // GB/s (1e9 bytes per second), read + written
  double l2_gbs = 0;         // GPU only
  double smem_gbs = 0;       // GPU only (all SMs together)
  double fp32_gflops = 0;    // FP32 FLOP/s / 1e9, an FMA counting 2
  double launch_us = 0;      // GPU only: per launch, back to back
  std::string how;           // what was run, one line
  // Tensor cores (GPU only), GFLOP/s of dense C = A x B with FP32 accumulation; 0: absent, and tc_absent says
  // why (no tensor cores of that precision, or not measured). Measured, never taken from a datasheet.
  double bf16_gflops = 0, fp16_gflops = 0, tf32_gflops = 0;
  std::string tc_how;     // what was run for them, one line
  std::string tc_absent;  // why some or all are absent ("" when all three were measured)
  // Read from a cache written before blockscope measured tensor cores: get_ceilings measures them then.
  bool tc_pending = false;

  // The compute ceiling of `m` in GFLOP/s (FP32: fp32_gflops), 0 when absent.
  double peak_gflops(work::Math m) const;
};

// The tensor-core precisions a GPU's ceilings may hold, in the order they are shown.
inline constexpr work::Math k_tensor_maths[] = {work::Math::Bf16, work::Math::Fp16, work::Math::Tf32};
// One line: "BF16 tensor cores 612 TFLOP/s, FP16 tensor cores 615 TFLOP/s, TF32 ...; absent: <why>", or
// "none; absent: <why>".
std::string tensor_core_summary(const Ceilings& c);

// The tensor-core ceilings of the current GPU (device 0) written into `c`: each precision the GPU's compute
// capability has (FP16 from 7.0, BF16 and TF32 from 8.0) timed, the others absent with the reason in
// c.tc_absent. Throws bs::GpuError when CUDA or cuBLAS fails.
void measure_tensor_cores(Ceilings& c);

// Datasheet figures of known GPUs (matched by name), labelled as such wherever shown.
struct Datasheet {
  std::string name;  // "H100 SXM5 (datasheet)"
  double dram_gbs = 0;
  double fp32_gflops = 0;
};
std::optional<Datasheet> datasheet_for(std::string_view gpu_name);

// Measures the current GPU (device 0). Throws bs::GpuError when there is none or CUDA fails.
Ceilings measure_gpu();
// The cache key of the current GPU without measuring (throws bs::GpuError when there is none).
std::string gpu_key();
// Measures the CPU: `bytes` per array for the bandwidth copy (two arrays), about `flop_seconds` of FMA loops.
Ceilings measure_cpu(size_t bytes = size_t{256} << 20, double flop_seconds = 0.3);
std::string cpu_key();
// The CPU's last-level cache in bytes (the highest cache level sysfs lists for cpu0), 0 when unknown.
double cpu_last_level_cache_bytes();
std::string utc_now();  // "2026-11-23T14:02:03Z"

nlohmann::json to_json(const Ceilings& c);
Ceilings from_json(const nlohmann::json& j);  // throws bs::InvalidRequest naming the bad field

// The cache: one JSON file per device in `dir` ($XDG_CACHE_HOME/blockscope or ~/.cache/blockscope).
std::string default_cache_dir();
std::string cache_path(const std::string& dir, const std::string& key);
struct CacheRead {
  std::optional<Ceilings> ceilings;  // nullopt: absent, corrupt or for another device
  std::string message;               // why not (empty when found, or simply absent)
};
CacheRead read_cache(const std::string& path, const std::string& key);
bool write_cache(const std::string& path, const Ceilings& c, std::string* error);

// The ceilings of the GPU (gpu true) or the CPU: from the cache, else measured and cached. `message` says
// what happened ("measured now", "from the cache of 2026-11-23T14:02Z", "cache file ... is corrupt (...):
// measured again"). `force` measures even when cached. Throws bs::GpuError for a GPU that is not there.
Ceilings get_ceilings(bool gpu, const std::string& cache_dir, std::string* message, bool force = false);

}  // namespace bs::roofline
