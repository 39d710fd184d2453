// shared_memory.cu: SharedFieldMemory (see gl_interop.h). Driver-API entry points come through
// cudaGetDriverEntryPointByVersion, so blockscope never links libcuda directly and still starts where no
// NVIDIA driver is installed.
#include <cuda.h>
#include <unistd.h>

#include <algorithm>

#include "gpu/common/device_buffer.h"
#include "gpu/interop/copy_field.cuh"
#include "gpu/interop/gl_interop.h"

namespace bs::interop {

namespace {

struct Driver {
  decltype(&cuMemCreate) mem_create = nullptr;
  decltype(&cuMemRelease) mem_release = nullptr;
  decltype(&cuMemAddressReserve) address_reserve = nullptr;
  decltype(&cuMemAddressFree) address_free = nullptr;
  decltype(&cuMemMap) mem_map = nullptr;
  decltype(&cuMemUnmap) mem_unmap = nullptr;
  decltype(&cuMemSetAccess) set_access = nullptr;
  decltype(&cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&cuMemExportToShareableHandle) export_handle = nullptr;

  bool load(std::string* error) {
    auto get = [&](const char* name, auto& fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult q{};
      if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
          q != cudaDriverEntryPointSuccess || !p) {
        (void)cudaGetLastError();
        if (error) *error = std::string("driver entry point ") + name + " unavailable";
        return false;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
      return true;
    };
    return get("cuMemCreate", mem_create) && get("cuMemRelease", mem_release) &&
           get("cuMemAddressReserve", address_reserve) && get("cuMemAddressFree", address_free) &&
           get("cuMemMap", mem_map) && get("cuMemUnmap", mem_unmap) && get("cuMemSetAccess", set_access) &&
           get("cuMemGetAllocationGranularity", granularity) &&
           get("cuMemExportToShareableHandle", export_handle);
  }
};

std::string cu_error(const char* what, CUresult r) {
  return std::string(what) + " failed (CUresult " + std::to_string(r) + ")";
}

}  // namespace

struct SharedFieldMemory::Impl {
  Driver drv;
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  size_t count = 0;
  int blocks = 0;
  bool mapped = false;
};

std::unique_ptr<SharedFieldMemory> SharedFieldMemory::create(size_t count, std::string* error) {
  std::unique_ptr<SharedFieldMemory> s(new SharedFieldMemory());
  s->m = std::make_unique<Impl>();
  Impl& m = *s->m;
  if (!m.drv.load(error)) return nullptr;
  // A device that cannot export to a file descriptor fails cuMemCreate below, with its own code.
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    if (error) *error = "no current CUDA device";
    return nullptr;
  }
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  m.blocks = std::max(1, sms) * 4;
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0;
  CUresult r = m.drv.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  if (r != CUDA_SUCCESS) return *error = cu_error("cuMemGetAllocationGranularity", r), nullptr;
  m.count = count;
  m.bytes = (count * sizeof(float) + gran - 1) / gran * gran;
  if ((r = m.drv.mem_create(&m.handle, m.bytes, &prop, 0)) != CUDA_SUCCESS)
    return *error = cu_error("cuMemCreate", r), nullptr;
  if ((r = m.drv.address_reserve(&m.ptr, m.bytes, gran, 0, 0)) != CUDA_SUCCESS)
    return *error = cu_error("cuMemAddressReserve", r), nullptr;
  if ((r = m.drv.mem_map(m.ptr, m.bytes, 0, m.handle, 0)) != CUDA_SUCCESS)
    return *error = cu_error("cuMemMap", r), nullptr;
  m.mapped = true;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if ((r = m.drv.set_access(m.ptr, m.bytes, &access, 1)) != CUDA_SUCCESS)
    return *error = cu_error("cuMemSetAccess", r), nullptr;
  return s;
}

SharedFieldMemory::~SharedFieldMemory() {
  if (!m) return;
  if (m->mapped) m->drv.mem_unmap(m->ptr, m->bytes);
  if (m->ptr) m->drv.address_free(m->ptr, m->bytes);
  if (m->handle) m->drv.mem_release(m->handle);
}

void SharedFieldMemory::abandon() noexcept {
  if (!m) return;
  m->mapped = false;
  m->ptr = 0;
  m->handle = 0;
}

int SharedFieldMemory::export_fd(std::string* error) {
  int fd = -1;
  const CUresult r = m->drv.export_handle(&fd, m->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  if (r != CUDA_SUCCESS) {
    if (error) *error = cu_error("cuMemExportToShareableHandle", r);
    return -1;
  }
  return fd;
}

size_t SharedFieldMemory::bytes() const {
  return m->bytes;
}

void SharedFieldMemory::write(const float* device_field, void* stream_handle) {
  auto stream = static_cast<cudaStream_t>(stream_handle);
  copy_field_kernel<<<m->blocks, 256, 0, stream>>>(device_field, reinterpret_cast<float*>(m->ptr), m->count);
  BS_CUDA_CHECK_LAUNCH();
  // GL reads the buffer next: the copy must be complete (a host wait; no CUDA-GL semaphore needed).
  BS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace bs::interop
