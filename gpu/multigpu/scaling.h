// scaling.h: strong and weak scaling tables, the halo bandwidth model, the --gpus list and the per-rank
// launch environment (pure C++; the bench, the docs' numbers and the tests use it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bs::multigpu {

// "1,2", "1-4", "1,2,4-8": GPU counts, ascending, no repeats, each >= 1. nullopt and `error` set otherwise.
std::optional<std::vector<int>> parse_gpu_list(std::string_view text, std::string* error = nullptr);

// A timed run at one GPU count.
struct ScalingSample {
  int gpus = 1;
  double ms = 0;  // time of the same work unit (one step, one pricing run) at that count
};
struct ScalingRow {
  int gpus = 1;
  double ms = 0;
  double ideal_ms = 0;  // strong: t1 / k; weak: t1
  double speedup = 0;   // strong: t1 / tk; weak: k t1 / tk (work per time, relative to one GPU)
  double efficiency = 0;  // speedup / k, 1 = ideal
};
// Strong scaling: the same problem on 1..k GPUs. Weak scaling: the problem grows with k (fixed work per GPU).
// The baseline is the sample with the fewest GPUs (scaled to one GPU: t1 = ms * gpus for strong).
std::vector<ScalingRow> strong_scaling(const std::vector<ScalingSample>& samples);
std::vector<ScalingRow> weak_scaling(const std::vector<ScalingSample>& samples);

// The heat step on k GPUs predicted from one GPU's step time, the link's bandwidth and latency:
// per round of `halo` steps each slab sends and receives 2 * halo rows of nx floats (one halo each side),
// overlapped with the interior of the first step.
struct HaloModelInput {
  int64_t nx = 0, ny = 0;
  int gpus = 1;
  int halo = 1;
  double one_gpu_ms_per_step = 0;
  double link_gb_per_s = 300;   // bus bandwidth (the 2xH200 NVLink figure of issue 18)
  double latency_us = 20;       // one small NCCL operation
};
struct HaloModelOutput {
  double compute_ms = 0;   // per step, the largest slab
  double exchange_ms = 0;  // per exchange (per slab: both neighbours)
  double step_ms = 0;      // predicted per step with overlap
  double comm_share = 0;   // exposed communication / step time
  int64_t halo_bytes_per_step = 0;  // per slab, sent
};
HaloModelOutput predict_heat(const HaloModelInput& in);

// Per-rank mode: rank, number of ranks and the local device index, from explicit values or from the
// launcher's environment (OMPI_COMM_WORLD_*, SLURM_*, PMI_*, or BS_RANK / BS_NRANKS / BS_LOCAL_RANK).
struct RankEnv {
  int rank = 0, nranks = 1, local_rank = 0;
  std::string source;  // which variables supplied them
};
using EnvMap = std::map<std::string, std::string>;
std::optional<RankEnv> rank_from_env(const EnvMap& env);
EnvMap process_env();  // the relevant variables of this process

// The NCCL unique id as text (hex) and back: how rank 0 hands it to the others (the id file).
std::string to_hex(const void* bytes, size_t n);
bool from_hex(std::string_view hex, void* bytes, size_t n);

}  // namespace bs::multigpu
