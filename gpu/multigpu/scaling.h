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

// The heat step on k GPUs predicted from one GPU's step time, the link's bandwidth and latency and the fixed
// costs of a round: per round of `halo` steps each slab sends and receives `halo` rows of nx floats per
// neighbour. With overlap the exchange runs while the interior of the first step is updated (what is longer
// than the interior shows) and two edge launches follow it; without, the whole exchange shows. Every round
// also costs `round_us` (issuing it to each GPU: events, stream waits, the NCCL group). Widened steps compute
// h - 1 extra rows per step on average. Of one GPU's step, `step_us` (the gap between dependent launches and
// the kernel's tail) does not shrink with the slab. See docs/SCALING.md.
// The model's constants, fitted to the 4-GPU runs of docs/SCALING.md (defined in scaling.cpp).
extern const double k_model_link_gb_per_s;  // NVLink bus bandwidth per GPU (the 2xH200 figure of issue 18)
extern const double k_model_latency_us;     // one exchange: an NCCL group of sends and receives
extern const double k_model_round_us;       // issuing a round to the GPUs and joining their streams
extern const double k_model_edge_us;        // with overlap: the two edge launches after the halos arrive
extern const double k_model_step_us;        // per step: the launch gap and tail a smaller slab does not shrink
struct HaloModelInput {
  int64_t nx = 0, ny = 0;
  int gpus = 1;
  int halo = 1;
  double one_gpu_ms_per_step = 0;
  double link_gb_per_s = k_model_link_gb_per_s;
  double latency_us = k_model_latency_us;
  bool overlap = true;
  double round_us = k_model_round_us;
  double edge_us = k_model_edge_us;
  double step_us = k_model_step_us;
};
struct HaloModelOutput {
  double compute_ms = 0;   // per step, the largest slab
  double exchange_ms = 0;  // per exchange (per slab: both neighbours)
  double interior_ms = 0;  // the interior of a round's first step, which the exchange can hide under
  double step_ms = 0;      // predicted per step
  double comm_share = 0;   // exposed communication and round costs / step time
  int64_t halo_bytes_per_step = 0;  // per slab, sent
};
HaloModelOutput predict_heat(const HaloModelInput& in);

// One GPU's heat step estimated from its DRAM bandwidth (8 bytes per cell, at the 82% of the data sheet's
// peak that the H100 measured: 2.76 of 3.35 TB/s), for choosing a plan before anything ran.
double estimate_heat_step_ms(int64_t nx, int64_t ny, double peak_dram_gb_per_s);

// The halo depth (steps per exchange) and the overlap the model picks for a field and GPU count: of halo 1, 2,
// 4, 8, 16 (those the slabs allow) with and without overlap, the smallest halo whose predicted step is within
// 1% of the best (wider halos hold more memory and compute more rows for little gain), overlap first on a tie.
// One GPU: halo 1 with overlap (nothing is exchanged).
struct HeatPlan {
  int halo = 1;
  bool overlap = true;
  HaloModelOutput predicted;
  double halo1_step_ms = 0;  // the prediction at one step per exchange with overlap, for comparison
};
constexpr int k_plan_max_halo = 16;
HeatPlan choose_heat_plan(const HaloModelInput& base);
// "8 steps per exchange, overlapped (model: 0.2031 ms/step against 0.2198 at 1 step per exchange)".
std::string describe_plan(const HeatPlan& plan, int gpus);

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
