// comm.h: who computes which slab and how their data meet (pure C++ header). One code path, three transports:
//   Virtual:      k slabs in this process, any devices (all on one GPU to test the k > 1 logic there); halos
//                 and sums move by device copies and host adds. Not a scaling figure.
//   Nccl:         k slabs in this process, one per GPU (ncclCommInitAll): the app's mode.
//   Nccl per rank: one slab in this process, joined with the other processes by ncclCommInitRank; rank 0
//   makes
//                 the unique id and hands it over through a file: the benches' mode, and across hosts.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace bs::multigpu {

enum class TransportKind { Virtual, Nccl };

// CUDA devices of this process; 0 where there is no driver or device.
int cuda_device_count();

// What the device picker shows of each GPU: name, memory, SMs, and which others it reaches peer to peer.
struct GpuInfo {
  int index = 0;
  std::string name;
  double memory_gib = 0;
  int sm_count = 0;
  std::vector<int> peers;  // devices this one can access directly (NVLink or PCIe peer to peer)
};
std::vector<GpuInfo> list_gpus();  // empty where there is no driver or device
// A transport for k slabs on `devices`: NCCL where it loads and the devices are distinct and more than one,
// else device copies (peer to peer between GPUs, or k slabs on one GPU). `why` gets the reason when NCCL
// was wanted but could not be had.
class Communicator;
Communicator make_transport(const std::vector<int>& devices, std::string* why = nullptr);

struct RankSpec {
  int rank = 0, nranks = 1;
  int device = 0;       // this rank's CUDA device
  std::string id_file;  // rank 0 writes the NCCL id there (hex), the others wait for it
  double wait_s = 120;  // how long ranks > 0 wait for the id file
};

class Communicator {
 public:
  // k slabs on the given devices (devices.size() == k) moved by copies.
  static Communicator make_virtual(std::vector<int> devices);
  // One NCCL rank per device, all in this process (devices distinct).
  static Communicator make_nccl(std::vector<int> devices);
  // This process is one rank of spec.nranks.
  static Communicator make_nccl_rank(const RankSpec& spec);

  Communicator(Communicator&&) noexcept;
  Communicator& operator=(Communicator&&) noexcept;
  ~Communicator();

  TransportKind kind() const;
  int size() const;                       // global slabs / ranks
  const std::vector<int>& local() const;  // global indices handled by this process
  int device(int local_index) const;
  bool per_rank() const;
  std::string describe() const;  // "virtual: 3 slabs on GPU 0 (not a scaling figure)", "NCCL 2.28.3, 2 GPUs"
  void* nccl_comm(int local_index) const;  // ncclComm_t; nullptr for Virtual

  // Element-wise sum over all ranks of one vector per local slab (equal lengths); every local vector gets the
  // total. Slots only one rank fills are exact. All ranks in this process: added on the host in rank order;
  // per-rank mode: ncclAllReduce.
  void allreduce_sum(std::vector<std::vector<double>>& local_values);

 private:
  Communicator();
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace bs::multigpu
