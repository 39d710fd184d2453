// nvtx_range.h: named NVTX ranges, so Nsight Systems (nsys profile) shows what blockscope ran: each lab's
// timed work and every launch of a user's kernel, named "lab/variant" ("heat/stencil 32x8",
// "matmul/smem_tile32", "kernel/heat_step"), in the "blockscope" domain. NVTX3 is header-only: without a tool
// attached each call is a no-op (NVTX loads a tool only when NVTX_INJECTION64_PATH names one).
// Internal to gpu/ (.cu and .cpp files): never included by a header that ui/ sees, so ui/ stays free of CUDA
// headers.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace bs {

// Pushes a range in the blockscope domain for the object's lifetime (on the calling thread).
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name.c_str();
    nvtxDomainRangePushEx(domain(), &a);
  }
  ~NvtxRange() { nvtxDomainRangePop(domain()); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  static nvtxDomainHandle_t domain() {
    static const nvtxDomainHandle_t d = nvtxDomainCreateA("blockscope");
    return d;
  }
};

}  // namespace bs
