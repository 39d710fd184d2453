// counters.h: hardware counters for one kernel launch through CUPTI's range profiler (plain C++; ui/ and app/
// include it). libcupti is loaded with dlopen on first use, so blockscope starts where no driver or CUPTI
// exists. A curated set: DRAM bytes read/written, global load/store sectors per request (coalescing),
// shared-memory bank conflicts, achieved occupancy, warp execution efficiency (divergence) and the top stall
// reasons. Collection REPLAYS the kernel (CUPTI kernel replay, one pass per group of counters), so it is
// never part of a timed run: call it on its own, after the timing.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bs::counters {

// Why counters could or could not be collected.
enum class Status {
  Ok,
  NoLibrary,    // libcupti (or a needed entry point) cannot be loaded
  NoDevice,     // no CUDA device or driver
  NotAllowed,   // profiling restricted to administrators (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
  Unsupported,  // this GPU / setup cannot be profiled (chip, MIG, vGPU, WSL, confidential computing, ...)
  Failed,       // anything else (the message says what)
};
const char* to_string(Status s);  // "ok", "no CUPTI", "no GPU", "not allowed", "unsupported GPU", "failed"

// The raw CUPTI/ncu metric names collected (the same names give `ncu --metrics` its list).
std::vector<std::string> metric_names();
// metric_names() joined with commas, for `ncu --metrics`.
std::string ncu_metric_list();

// One stall reason: CUPTI's name ("long_scoreboard") and its cycles per issued instruction.
struct Stall {
  std::string reason;
  double cycles_per_issue = 0;
};

// The curated values for one launch (summed over the kernels the launch callable started). nullopt: the
// metric is not available on this GPU.
struct Values {
  int kernels = 0;  // kernels profiled (CUPTI ranges)
  std::optional<double> dram_read_bytes, dram_write_bytes;
  std::optional<double> ld_sectors, ld_requests, st_sectors, st_requests;  // global memory, L1TEX
  std::optional<double> shared_ld_conflicts, shared_st_conflicts;          // extra shared wavefronts (L1TEX)
  // Shared memory per warp instruction: executed instructions (SASS's count: none whose every thread is
  // predicated off), their wavefronts as L1TEX counts them and as the SM counts them per executed instruction
  // (smsp__sass_..., where offered).
  std::optional<double> shared_ld_instructions, shared_st_instructions;
  std::optional<double> shared_ld_wavefronts, shared_st_wavefronts;
  std::optional<double> shared_ld_wavefronts_sm, shared_st_wavefronts_sm;
  std::optional<double> achieved_occupancy_pct;  // active warps / max warps per SM, % (cycle-weighted)
  std::optional<double> warp_efficiency_pct;     // active threads per executed instruction / 32, %
  std::vector<Stall> top_stalls;                 // largest first, at most 3
  std::optional<double> ld_sectors_per_request() const;
  std::optional<double> st_sectors_per_request() const;
  std::optional<double> dram_bytes() const;  // read + written
  // Bank conflicts as wavefronts - instructions (loads and stores; the SM's wavefront count where offered,
  // else L1TEX's): the definition the simulator and the access model count by (sim::MemoryCounts).
  std::optional<double> shared_wavefront_conflicts() const;
};

// Raw metric values of one kernel (CUPTI range): name -> value, with metric_names()' names.
using Raw = std::vector<std::pair<std::string, double>>;

struct Result {
  Status status = Status::Failed;
  std::string message;  // for a person: why not and how to enable it; empty when ok
  Values values;
  double seconds = 0;                // wall time of the collection (setup, replays, evaluation)
  int passes = 0;                    // kernel replays CUPTI needed
  std::vector<std::string> missing;  // metrics this GPU does not offer (left out, not an error)
  std::string chip;                  // e.g. "GH100"
  std::vector<Raw> raw;              // per kernel: metric name -> value (what `ncu --metrics` reports)
  std::string note;  // how it was collected, where that matters (e.g. the kernel-replay fallback)
  bool ok() const { return status == Status::Ok; }
};

// Launches the kernel(s) to measure on the calling thread's current CUDA device (asynchronously is fine).
using Launch = std::function<void()>;

// Collects the curated counters for the kernels `launch` starts. Runs `launch` once; CUPTI replays each
// kernel as many times as its passes need, restoring device memory between passes. Serialised process-wide
// (one profiling session per context). Never throws for a profiling failure (the Result says why); what
// `launch` throws propagates after the profiler is shut down.
Result collect(const Launch& launch);

// Whether libcupti can be loaded (cached), and why not. BLOCKSCOPE_CUPTI_LIBRARY, when set, is the only name
// tried.
bool cupti_available(std::string* why = nullptr);
// Loads from the given names (not cached): tests use it to see the missing case.
bool try_load_cupti(const std::vector<std::string>& names, std::string* why);

// The message for a CUPTI result code from step `step` (e.g. "cuptiRangeProfilerEnable"), and the status it
// maps to. Pure: the not-allowed and unsupported paths are tested without a GPU.
std::pair<Status, std::string> explain_cupti_error(int cupti_result, const std::string& step,
                                                   const std::string& cupti_text = "");
// The message when there is no CUDA device; `reason` is DeviceInfo::reason. `model_values`: whether a table
// of model values is shown beside it (only then does the message say they stay).
std::string no_device_message(const std::string& reason, bool model_values = true);
// The line every counters view prints: collection replays the kernel, so these runs are not timed.
const char* replay_note();

// Derives the curated values from the raw values of each kernel a launch started: counts are summed,
// occupancy is weighted by active SM cycles, warp efficiency and stalls by executed instructions. Pure (tests
// feed it made-up values).
Values derive(const std::vector<Raw>& kernels);

}  // namespace bs::counters
