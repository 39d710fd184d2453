// nccl_api.h: the NCCL entry points blockscope uses, as pointers filled by dlsym (internal to gpu/multigpu;
// includes nccl.h for the types only: nothing links libnccl).
#pragma once

#include <nccl.h>

#include <string>

namespace bs::multigpu {

struct NcclApi {
  ncclResult_t (*GetVersion)(int*) = nullptr;
  const char* (*GetErrorString)(ncclResult_t) = nullptr;
  ncclResult_t (*GetUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*CommInitAll)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*GroupStart)() = nullptr;
  ncclResult_t (*GroupEnd)() = nullptr;
  ncclResult_t (*Send)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*Recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t) = nullptr;
};

// The loaded API; throws bs::GpuError (not sticky) saying why NCCL cannot be used.
const NcclApi& nccl();
// Throws bs::GpuError with the call's text and NCCL's message when r is not ncclSuccess.
void nccl_check(ncclResult_t r, const char* what);

}  // namespace bs::multigpu

#define BS_NCCL_CHECK(call) ::bs::multigpu::nccl_check(::bs::multigpu::nccl().call, #call)
