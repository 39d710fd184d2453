// multi_mc.h: Monte Carlo pricing over the ranks of a Communicator (pure C++ header). The samples are cut
// into `chunks` fixed ranges (montecarlo::even_batches) independent of the GPU count; rank i prices a
// contiguous run of chunks, each as one batch of gpu/montecarlo's pricer (sample s always draws from cuRAND
// subsequence s, so the paths are the one-GPU run's), spread over `streams` pricers of its GPU so that one
// chunk's tail overlaps the next chunk's start. Each chunk's moments land in their own slot of a table that is
// summed over ranks (all-reduce; the other ranks add zeros, exactly), then the chunks are added in chunk
// order: the price is bitwise the same for every GPU count and stream count.
#pragma once

#include <memory>
#include <vector>

#include "gpu/montecarlo/montecarlo.h"
#include "gpu/multigpu/comm.h"

namespace bs::multigpu {

// 48: divisible by 1, 2, 3, 4, 6, 8, and within 5% of even for 5 and 7 GPUs (10 and 7 chunks against 9.6 and
// 6.9), so every count from 1 to 8 is filled. Few enough that each chunk (one pricer launch, 350k samples at
// the bench's 16M paths) nearly fills a GPU: on 4 H200s with 2 pricers per GPU, 48 chunks cost 0.8% more than
// 24 on one GPU and ran fastest on 4 (docs/SCALING.md); 120 chunks ran 7% slower on one GPU and 168 halved the
// 4-GPU speed.
// (Defined in multi_mc.cpp.)
extern const int k_mc_chunks;
// Pricers (each with its own stream) per GPU: chunks alternate between them.
extern const int k_mc_streams;

// Chunks [first, end) priced by rank `rank` of `ranks` (contiguous, sizes differing by at most one).
struct ChunkSpan {
  int first = 0, end = 0;
};
ChunkSpan chunks_of_rank(int chunks, int ranks, int rank);
// The moments of the table (3 doubles per chunk: n, sum, sum_sq), added in chunk order.
montecarlo::Moments combine_chunks(const std::vector<double>& table);

struct McRunResult {
  montecarlo::Estimate estimate;
  montecarlo::Moments moments;
  double ms = 0;                // wall time of the whole run (host clock around all ranks)
  std::vector<double> rank_ms;  // GPU time of each local rank's batches (CUDA events)
  int chunks = 0;
};
// One pricer per local rank, on its device, kept across runs: a timed run then holds no allocation or setup
// (the app's live runs, the benches' repetitions). `comm` must outlive it.
class MultiPricer {
 public:
  explicit MultiPricer(Communicator& comm, const montecarlo::Launch& l = {}, int streams = k_mc_streams);
  ~MultiPricer();
  MultiPricer(const MultiPricer&) = delete;
  MultiPricer& operator=(const MultiPricer&) = delete;
  // Prices p over comm's ranks. Throws as GpuPricer does.
  McRunResult price(const montecarlo::Params& p, int chunks = k_mc_chunks);

 private:
  Communicator& m_comm;
  int m_streams = 1;
  std::vector<std::unique_ptr<montecarlo::GpuPricer>> m_pricers;  // local rank i, stream j at i * m_streams + j
};

// A MultiPricer for one run (its setup counted in the time).
McRunResult price_multi(Communicator& comm, const montecarlo::Params& p, const montecarlo::Launch& l = {},
                        int chunks = k_mc_chunks);

}  // namespace bs::multigpu
