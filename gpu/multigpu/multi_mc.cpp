// multi_mc.cpp: Monte Carlo across ranks (see multi_mc.h).
#include "gpu/multigpu/multi_mc.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/error.h"
#include "gpu/common/cuda_check.h"
#include "gpu/common/nvtx_range.h"

namespace bs::multigpu {

namespace mc = bs::montecarlo;

const int k_mc_chunks = 48;
const int k_mc_streams = 1;
const int k_mc_streams_per_chunk = 2;

const char* mc_launch_label(McLaunch m) {
  return m == McLaunch::PerGpu ? "one launch per GPU" : "one launch per chunk";
}

int default_mc_streams(McLaunch m) {
  return m == McLaunch::PerGpu ? k_mc_streams : k_mc_streams_per_chunk;
}

ChunkSpan chunks_of_rank(int chunks, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks) throw InvalidRequest("rank out of range");
  const int64_t a = static_cast<int64_t>(chunks) * rank / ranks;
  const int64_t b = static_cast<int64_t>(chunks) * (rank + 1) / ranks;
  return {static_cast<int>(a), static_cast<int>(b)};
}

mc::Moments combine_chunks(const std::vector<double>& table) {
  mc::Moments m;
  for (size_t c = 0; c + 2 < table.size(); c += 3) {
    m.n += static_cast<int64_t>(table[c]);
    m.sum += table[c + 1];
    m.sum_sq += table[c + 2];
  }
  return m;
}

namespace {

void store(std::vector<double>& table, size_t chunk, const mc::Moments& m) {
  table[3 * chunk] = static_cast<double>(m.n);
  table[3 * chunk + 1] = m.sum;
  table[3 * chunk + 2] = m.sum_sq;
}

}  // namespace

MultiPricer::MultiPricer(Communicator& comm, const mc::Launch& l, int streams, McLaunch mode)
    : m_comm(comm), m_mode(mode) {
  if (streams < 1 || streams > 8) throw InvalidRequest("pricers per GPU run from 1 to 8, not " + std::to_string(streams));
  m_streams = streams;
  for (size_t i = 0; i < comm.local().size(); ++i) {
    BS_CUDA_CHECK(cudaSetDevice(comm.device(static_cast<int>(i))));
    for (int j = 0; j < streams; ++j) {
      auto& pr = m_pricers.emplace_back(std::make_unique<mc::GpuPricer>());
      pr->set_launch(l);
    }
  }
}

MultiPricer::~MultiPricer() = default;

mc::GpuPricer& MultiPricer::pricer(size_t rank, int j) {
  return *m_pricers[rank * static_cast<size_t>(m_streams) + static_cast<size_t>(j % m_streams)];
}

McRunResult MultiPricer::price(const mc::Params& p, int chunks) {
  if (auto err = mc::validate(p)) throw InvalidRequest(*err);
  const int64_t samples = mc::sample_count(p);
  const std::vector<mc::SampleRange> ranges = mc::even_batches(samples, chunks);
  const int n_chunks = static_cast<int>(ranges.size());
  if (n_chunks < m_comm.size())
    throw InvalidRequest(std::to_string(samples) + " samples are too few to share among " +
                         std::to_string(m_comm.size()) + " GPUs");
  McRunResult out;
  out.chunks = n_chunks;
  const NvtxRange range("multigpu/montecarlo " + std::to_string(m_comm.size()) + " GPUs, " +
                        std::to_string(n_chunks) + " chunks, " + mc_launch_label(m_mode));
  const auto t0 = std::chrono::steady_clock::now();
  const size_t n_local = m_comm.local().size();
  std::vector<ChunkSpan> spans;
  for (size_t i = 0; i < n_local; ++i) {
    BS_CUDA_CHECK(cudaSetDevice(m_comm.device(static_cast<int>(i))));
    for (int j = 0; j < m_streams; ++j)
      pricer(i, j).reset(p);
    spans.push_back(chunks_of_rank(n_chunks, m_comm.size(), m_comm.local()[i]));
  }
  Tables tables(n_local, std::vector<double>(3 * static_cast<size_t>(n_chunks), 0.0));
  if (m_mode == McLaunch::PerGpu)
    run_per_gpu(ranges, spans, tables, out.rank_ms);
  else
    run_per_chunk(ranges, spans, tables, out.rank_ms);
  m_comm.allreduce_sum(tables);
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.moments = combine_chunks(tables[0]);
  out.estimate = mc::make_estimate(out.moments, p);
  return out;
}

void MultiPricer::run_per_gpu(const std::vector<mc::SampleRange>& ranges, const std::vector<ChunkSpan>& spans,
                              Tables& tables, std::vector<double>& rank_ms) {
  // Pricer j of a rank takes its chunks first + j, first + j + streams, ... as one launch. Every GPU's launch
  // is started before any reduction is queued, so the last GPU starts a few microseconds after the first, not
  // a whole enqueue of each GPU before it later.
  const size_t n_local = spans.size();
  std::vector<std::vector<int>> ids(n_local * static_cast<size_t>(m_streams));  // chunk indices per pricer
  for (size_t i = 0; i < n_local; ++i)
    for (int c = spans[i].first; c < spans[i].end; ++c)
      ids[i * static_cast<size_t>(m_streams) + static_cast<size_t>((c - spans[i].first) % m_streams)].push_back(c);
  const auto each_pricer = [&](auto&& f) {
    for (size_t i = 0; i < n_local; ++i) {
      BS_CUDA_CHECK(cudaSetDevice(m_comm.device(static_cast<int>(i))));
      for (int j = 0; j < m_streams; ++j) {
        const std::vector<int>& mine = ids[i * static_cast<size_t>(m_streams) + static_cast<size_t>(j)];
        if (!mine.empty()) f(i, pricer(i, j), mine);
      }
    }
  };
  each_pricer([&](size_t, mc::GpuPricer& pr, const std::vector<int>& mine) {
    std::vector<mc::SampleRange> rs;
    for (int c : mine)
      rs.push_back(ranges[static_cast<size_t>(c)]);
    pr.enqueue_chunks(rs);
  });
  each_pricer([](size_t, mc::GpuPricer& pr, const std::vector<int>&) { pr.reduce_chunks(); });
  rank_ms.assign(n_local, 0.0);
  each_pricer([&](size_t i, mc::GpuPricer& pr, const std::vector<int>& mine) {
    const mc::GpuPricer::Chunks done = pr.finish_chunks();
    for (size_t k = 0; k < mine.size(); ++k)
      store(tables[i], static_cast<size_t>(mine[k]), done.moments[k]);
    rank_ms[i] = std::max(rank_ms[i], done.ms);  // the pricers of a GPU run at the same time
  });
}

void MultiPricer::run_per_chunk(const std::vector<mc::SampleRange>& ranges, const std::vector<ChunkSpan>& spans,
                                Tables& tables, std::vector<double>& rank_ms) {
  // Every local rank queues its chunks before any result is read, round robin over the ranks and, within a
  // rank, over its pricers: a pricer's enqueue waits once it holds 8 batches in flight, and queueing one
  // rank's chunks all at once would keep the next rank idle until the first had finished a few (seen on 2
  // H200s: 1.46x instead of near 2x).
  const size_t n_local = spans.size();
  for (int j = 0;; ++j) {
    bool any = false;
    for (size_t i = 0; i < n_local; ++i) {
      const int c = spans[i].first + j;
      if (c >= spans[i].end) continue;
      any = true;
      BS_CUDA_CHECK(cudaSetDevice(m_comm.device(static_cast<int>(i))));
      pricer(i, j).enqueue(ranges[static_cast<size_t>(c)]);
    }
    if (!any) break;
  }
  for (size_t i = 0; i < n_local; ++i) {
    BS_CUDA_CHECK(cudaSetDevice(m_comm.device(static_cast<int>(i))));
    double ms = 0;
    for (int j = 0; j < m_streams; ++j) {
      std::vector<mc::BatchResult> done = pricer(i, j).poll();
      for (auto& b : pricer(i, j).finish())
        done.push_back(b);
      for (const auto& b : done) {
        const auto it = std::find_if(ranges.begin(), ranges.end(),
                                     [&](const mc::SampleRange& r) { return r.first == b.range.first; });
        store(tables[i], static_cast<size_t>(it - ranges.begin()), b.batch);
        ms += b.ms;
      }
    }
    rank_ms.push_back(ms);
  }
}

McRunResult price_multi(Communicator& comm, const mc::Params& p, const mc::Launch& l, int chunks) {
  MultiPricer pricer(comm, l);
  return pricer.price(p, chunks);
}

}  // namespace bs::multigpu
