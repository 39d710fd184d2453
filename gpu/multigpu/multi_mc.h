// multi_mc.h: Monte Carlo pricing over the ranks of a Communicator (pure C++ header). The samples are cut
// into `chunks` fixed ranges (montecarlo::even_batches) independent of the GPU count; rank i prices a
// contiguous run of chunks (sample s always draws from cuRAND subsequence s, so the paths are the one-GPU
// run's), by default all of them in ONE launch of gpu/montecarlo's pricer whose blocks are mapped to chunks
// (GpuPricer::enqueue_chunks), each chunk with the grid and block sums it would have alone. Each chunk's
// moments land in their own slot of a table that is summed over ranks (all-reduce; the other ranks add zeros,
// exactly), then the chunks are added in chunk order: the price is bitwise the same for every GPU count,
// launch mode and pricer count.
#pragma once

#include <memory>
#include <vector>

#include "gpu/montecarlo/montecarlo.h"
#include "gpu/multigpu/comm.h"

namespace bs::multigpu {

// 48: divisible by 1, 2, 3, 4, 6, 8, and within 5% of even for 5 and 7 GPUs (10 and 7 chunks against 9.6 and
// 6.9), so every count from 1 to 8 is filled. Chosen with one launch per chunk (PerChunk, where each chunk
// of 350k samples at the bench's 16M paths nearly filled a GPU): on 4 H200s with 2 pricers per GPU, 48 chunks
// cost 0.8% more than 24 on one GPU and ran fastest on 4 (docs/SCALING.md); 120 chunks ran 7% slower on one
// GPU and 168 halved the 4-GPU speed. With one launch per GPU (PerGpu) the chunk count no longer sets the
// launch count.
// (Defined in multi_mc.cpp.)
extern const int k_mc_chunks;
// How a GPU's chunks are launched.
//   PerGpu (default): each pricer launches all its chunks at once (blocks mapped to chunks), so a GPU's share
//     costs one launch and one reduction whatever the chunk count, and its blocks fill the SMs without a
//     wave's tail per chunk.
//   PerChunk: one launch (and reduction, events, copy back) per chunk, chunks alternating over the pricers
//     so that one chunk's tail overlaps the next chunk's start: the first version, kept to compare (on 4 H200s
//     it left ~0.13 ms per run that did not shrink with the GPU count: 93.6% at 4 GPUs against 96.3% for
//     PerGpu in the same run; docs/SCALING.md).
enum class McLaunch { PerGpu, PerChunk };
const char* mc_launch_label(McLaunch m);  // "one launch per GPU", "one launch per chunk"
// Pricers (each with its own stream) per GPU, which take the chunks in turn: 1 for PerGpu, 2 for PerChunk.
extern const int k_mc_streams;
extern const int k_mc_streams_per_chunk;
int default_mc_streams(McLaunch m);

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
  explicit MultiPricer(Communicator& comm, const montecarlo::Launch& l = {}, int streams = k_mc_streams,
                       McLaunch mode = McLaunch::PerGpu);
  ~MultiPricer();
  MultiPricer(const MultiPricer&) = delete;
  MultiPricer& operator=(const MultiPricer&) = delete;
  // Prices p over comm's ranks. Throws as GpuPricer does.
  McRunResult price(const montecarlo::Params& p, int chunks = k_mc_chunks);

 private:
  // Queue the local ranks' chunks (spans[i] for local rank i), wait, and write each chunk's moments into its
  // rank's table (3 doubles per chunk) and each rank's GPU time into rank_ms.
  using Tables = std::vector<std::vector<double>>;
  void run_per_chunk(const std::vector<montecarlo::SampleRange>& ranges, const std::vector<ChunkSpan>& spans,
                     Tables& tables, std::vector<double>& rank_ms);
  void run_per_gpu(const std::vector<montecarlo::SampleRange>& ranges, const std::vector<ChunkSpan>& spans,
                   Tables& tables, std::vector<double>& rank_ms);
  montecarlo::GpuPricer& pricer(size_t rank, int j);

  Communicator& m_comm;
  int m_streams = 1;
  McLaunch m_mode = McLaunch::PerGpu;
  std::vector<std::unique_ptr<montecarlo::GpuPricer>> m_pricers;  // local rank i, stream j at i * m_streams + j
};

// A MultiPricer for one run (its setup counted in the time).
McRunResult price_multi(Communicator& comm, const montecarlo::Params& p, const montecarlo::Launch& l = {},
                        int chunks = k_mc_chunks);

}  // namespace bs::multigpu
