// multigpu_bench.h: the --gpus mode of `bench heat` and `bench montecarlo` (app/heat, app/montecarlo call in
// here): strong and weak scaling over GPU counts, one process driving all GPUs or one process per rank.
#pragma once

#include <optional>
#include <string>

#include "gpu/heat/heat.h"
#include "gpu/montecarlo/montecarlo.h"

namespace CLI {
class App;
}

namespace bs::cli {

struct MultiGpuArgs {
  std::string gpus;            // "1,2", "1-4"; empty: the single-GPU bench
  bool virtual_slabs = false;  // k slabs on GPU 0, exchanged by device copies (logic, not scaling)
  bool weak = false;           // heat: also weak scaling (size per GPU fixed)
  int halo = 0;                // heat: steps per exchange; 0: the bandwidth model's choice per GPU count
  std::string overlap = "auto";  // heat: "on", "off" or "auto" (the model's choice)
  bool no_overlap = false;       // heat: --no-overlap, the same as --overlap off
  int rank = -1, nranks = 0;   // per-rank mode; -1: from the launcher's environment when --per-rank
  bool per_rank = false;
  std::string nccl_id_file;  // per-rank mode: rank 0 writes the NCCL id there
  std::string out;           // figure prefix: <out>.svg/.csv/.json of the scaling plot
  int reps = 5;
  int mc_chunks = 0;   // Monte Carlo: fixed chunks the samples are cut into (0: multigpu::k_mc_chunks)
  int mc_streams = 0;  // Monte Carlo: pricers (streams) per GPU (0: multigpu::default_mc_streams)
  std::string mc_launch = "gpu";  // Monte Carlo: "gpu" (one launch per GPU) or "chunk" (one per chunk)
  // heat --predict: the bandwidth model's table for the GPU counts, nothing run (no GPU needed).
  bool predict = false;
  double link_gbs = 0, latency_us = 0;  // 0: the model's constants (scaling.h)
  double dram_gbs = 0;                  // 0: this GPU's peak, or an H100's without one
  double t1_ms = 0;                     // one GPU's measured step; 0: estimated from the DRAM bandwidth
  bool given_rank = false, given_nranks = false;  // --rank / --nranks were on the command line
};
void add_multigpu_options(CLI::App& sub, MultiGpuArgs& a, bool heat);
bool multigpu_requested(const MultiGpuArgs& a);
// The multi-GPU options' own rules, checked before anything runs, with or without a GPU: ranks from 0 to
// nranks - 1, a count of ranks of at least 1, and no multi-GPU option without --gpus or --per-rank (it
// would be silently ignored). nullopt when they hold, else the message.
std::optional<std::string> check_multigpu_args(const MultiGpuArgs& a);

// size_text: "16384" or "WxH" as given (empty: 8192); steps: per repetition.
int run_heat_multigpu(const MultiGpuArgs& a, heat::Params p, const std::string& size_text, int steps);
int run_montecarlo_multigpu(const MultiGpuArgs& a, const montecarlo::Params& p, const montecarlo::Launch& l);

// `blockscope bench multigpu`: the Multi-GPU lab's bench (heat or Monte Carlo over GPU counts).
struct BenchContext;
void register_multigpu_bench(CLI::App& bench, BenchContext& ctx);

}  // namespace bs::cli
