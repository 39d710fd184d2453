// comm.cpp: the transports of comm.h. NCCL calls go through the dlopen'ed API (nccl_api.h).
#include "gpu/multigpu/comm.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "core/error.h"
#include "gpu/common/cuda_check.h"
#include "gpu/common/device_buffer.h"
#include "gpu/multigpu/nccl_api.h"
#include "gpu/multigpu/nccl_loader.h"
#include "gpu/multigpu/scaling.h"

namespace bs::multigpu {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

std::vector<GpuInfo> list_gpus() {
  std::vector<GpuInfo> out;
  const int n = cuda_device_count();
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    GpuInfo g;
    g.index = d;
    g.name = prop.name;
    g.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
    g.sm_count = prop.multiProcessorCount;
    for (int e = 0; e < n; ++e) {
      int can = 0;
      if (e != d && cudaDeviceCanAccessPeer(&can, d, e) == cudaSuccess && can) g.peers.push_back(e);
      (void)cudaGetLastError();
    }
    out.push_back(std::move(g));
  }
  return out;
}

struct Communicator::Impl {
  TransportKind kind = TransportKind::Virtual;
  int size = 1;
  bool per_rank = false;
  std::vector<int> local;    // global indices
  std::vector<int> devices;  // per local index
  std::vector<ncclComm_t> comms;
  // allreduce_sum's device buffers and streams, one per local slab, kept across calls: allocating and freeing
  // them per call cost about 0.25 ms per Monte Carlo run on 2 H200s (cudaFree synchronizes the device).
  std::vector<DeviceBuffer<double>> sum_bufs;
  std::vector<Stream> sum_streams;

  ~Impl() {
    for (ncclComm_t c : comms)
      if (c) (void)nccl().CommDestroy(c);
  }
};

Communicator::Communicator() : m(std::make_unique<Impl>()) {}
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;
Communicator::~Communicator() = default;

namespace {
void check_devices(const std::vector<int>& devices) {
  if (devices.empty()) throw InvalidRequest("no GPU chosen to compute");
  int count = 0;
  BS_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (int d : devices)
    if (d < 0 || d >= count)
      throw InvalidRequest("GPU " + std::to_string(d) + " does not exist: this machine has " +
                           std::to_string(count) + (count == 1 ? " GPU" : " GPUs"));
}
}  // namespace

Communicator Communicator::make_virtual(std::vector<int> devices) {
  check_devices(devices);
  Communicator c;
  c.m->kind = TransportKind::Virtual;
  c.m->size = static_cast<int>(devices.size());
  for (int i = 0; i < c.m->size; ++i)
    c.m->local.push_back(i);
  c.m->devices = std::move(devices);
  return c;
}

Communicator Communicator::make_nccl(std::vector<int> devices) {
  check_devices(devices);
  for (size_t i = 0; i < devices.size(); ++i)
    for (size_t j = i + 1; j < devices.size(); ++j)
      if (devices[i] == devices[j])
        throw InvalidRequest("NCCL needs a distinct GPU per rank (GPU " + std::to_string(devices[i]) +
                             " appears twice); the virtual transport runs several slabs on one GPU");
  Communicator c;
  c.m->kind = TransportKind::Nccl;
  c.m->size = static_cast<int>(devices.size());
  c.m->comms.assign(devices.size(), nullptr);
  BS_NCCL_CHECK(CommInitAll(c.m->comms.data(), c.m->size, devices.data()));
  for (int i = 0; i < c.m->size; ++i)
    c.m->local.push_back(i);
  c.m->devices = std::move(devices);
  return c;
}

Communicator Communicator::make_nccl_rank(const RankSpec& spec) {
  if (spec.nranks < 1 || spec.rank < 0 || spec.rank >= spec.nranks)
    throw InvalidRequest("rank " + std::to_string(spec.rank) + " of " + std::to_string(spec.nranks) +
                         ": ranks run from 0 to nranks - 1");
  check_devices({spec.device});
  // The id is made by rank 0 itself: ncclGetUniqueId starts NCCL's bootstrap root in the calling process, so
  // an id made by a process that has exited (a separate "make an id" command) leaves ncclCommInitRank waiting
  // forever (on the H100, one rank given an id made by an exited process timed out in ncclCommInitRank).
  ncclUniqueId id;
  {
    if (spec.id_file.empty())
      throw InvalidRequest(
          "per-rank mode needs --nccl-id-file (or BS_NCCL_ID_FILE): rank 0 writes the NCCL id there");
    namespace fs = std::filesystem;
    if (spec.rank == 0) {
      BS_NCCL_CHECK(GetUniqueId(&id));
      // Written under another name and renamed, so a waiting rank never reads half a file.
      const std::string tmp = spec.id_file + ".tmp" + std::to_string(::getpid());
      {
        std::ofstream f(tmp);
        f << to_hex(&id, sizeof id) << "\n";
        if (!f) throw InvalidRequest("cannot write the NCCL id file " + tmp);
      }
      fs::rename(tmp, spec.id_file);
    } else {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(spec.wait_s);
      for (;;) {
        std::ifstream f(spec.id_file);
        std::string hex;
        if (f && std::getline(f, hex) && from_hex(hex, &id, sizeof id)) break;
        if (std::chrono::steady_clock::now() > deadline)
          throw InvalidRequest("rank " + std::to_string(spec.rank) + " waited " +
                               std::to_string(int(spec.wait_s)) + " s for the NCCL id file " + spec.id_file +
                               " (rank 0 writes it)");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  }
  BS_CUDA_CHECK(cudaSetDevice(spec.device));
  Communicator c;
  c.m->kind = TransportKind::Nccl;
  c.m->per_rank = true;
  c.m->size = spec.nranks;
  c.m->local = {spec.rank};
  c.m->devices = {spec.device};
  c.m->comms.assign(1, nullptr);
  BS_NCCL_CHECK(CommInitRank(&c.m->comms[0], spec.nranks, id, spec.rank));
  return c;
}

TransportKind Communicator::kind() const {
  return m->kind;
}
int Communicator::size() const {
  return m->size;
}
const std::vector<int>& Communicator::local() const {
  return m->local;
}
int Communicator::device(int local_index) const {
  return m->devices.at(static_cast<size_t>(local_index));
}
bool Communicator::per_rank() const {
  return m->per_rank;
}
void* Communicator::nccl_comm(int local_index) const {
  return m->comms.empty() ? nullptr : m->comms.at(static_cast<size_t>(local_index));
}

std::string Communicator::describe() const {
  std::ostringstream s;
  if (m->kind == TransportKind::Virtual) {
    bool one = true;
    for (int d : m->devices)
      one = one && d == m->devices[0];
    s << "virtual: " << m->size << (m->size == 1 ? " slab" : " slabs");
    if (one)
      s << " on GPU " << m->devices[0]
        << ", exchanged by device copies (checks the k-GPU logic; not a scaling "
           "figure)";
    else
      s << " on GPUs, exchanged by peer copies";
  } else {
    s << "NCCL " << nccl_version() << ", " << m->size << (m->size == 1 ? " rank" : " ranks");
    if (m->per_rank)
      s << " (one process per rank; this is rank " << m->local[0] << " on GPU " << m->devices[0] << ")";
  }
  return s.str();
}

void Communicator::allreduce_sum(std::vector<std::vector<double>>& v) {
  if (v.size() != m->local.size()) throw InvalidRequest("allreduce_sum: one vector per local slab");
  const size_t n = v.empty() ? 0 : v[0].size();
  for (const auto& x : v)
    if (x.size() != n) throw InvalidRequest("allreduce_sum: vectors of different lengths");
  // Every rank in this process: the values are on the host already, so they are added here in rank order
  // (an NCCL all-reduce would copy them to each GPU and back for nothing). Per-rank mode: NCCL.
  if (m->kind == TransportKind::Virtual || !m->per_rank) {
    std::vector<double> total(n, 0.0);
    for (const auto& x : v)
      for (size_t i = 0; i < n; ++i)
        total[i] += x[i];
    for (auto& x : v)
      x = total;
    return;
  }
  std::vector<DeviceBuffer<double>>& bufs = m->sum_bufs;
  std::vector<Stream>& streams = m->sum_streams;
  for (size_t l = 0; l < v.size(); ++l) {
    BS_CUDA_CHECK(cudaSetDevice(m->devices[l]));
    if (bufs.size() <= l) {
      bufs.emplace_back();
      streams.emplace_back();
    }
    if (bufs[l].size() < n) bufs[l].resize(n);
    BS_CUDA_CHECK(cudaMemcpyAsync(bufs[l].data(), v[l].data(), n * sizeof(double), cudaMemcpyHostToDevice,
                                  streams[l].get()));
  }
  BS_NCCL_CHECK(GroupStart());
  for (size_t l = 0; l < v.size(); ++l)
    BS_NCCL_CHECK(
        AllReduce(bufs[l].data(), bufs[l].data(), n, ncclDouble, ncclSum, m->comms[l], streams[l].get()));
  BS_NCCL_CHECK(GroupEnd());
  for (size_t l = 0; l < v.size(); ++l) {
    BS_CUDA_CHECK(cudaSetDevice(m->devices[l]));
    BS_CUDA_CHECK(cudaMemcpyAsync(v[l].data(), bufs[l].data(), n * sizeof(double), cudaMemcpyDeviceToHost,
                                  streams[l].get()));
    streams[l].sync();
  }
}

Communicator make_transport(const std::vector<int>& devices, std::string* why) {
  bool distinct = devices.size() > 1;
  for (size_t i = 0; i < devices.size() && distinct; ++i)
    for (size_t j = i + 1; j < devices.size(); ++j)
      if (devices[i] == devices[j]) distinct = false;
  if (!distinct) return Communicator::make_virtual(devices);
  if (auto no = nccl_unavailable()) {
    if (why) *why = "NCCL unavailable (" + *no + "): the GPUs exchange by peer copies";
    return Communicator::make_virtual(devices);
  }
  return Communicator::make_nccl(devices);
}

}  // namespace bs::multigpu
