// gl_interop.cu: CUDA-OpenGL interop for field textures (see gl_interop.h).
#include <glad/gl.h>  // before cuda_gl_interop.h, which would otherwise pull in the system GL/gl.h
#include <cuda_gl_interop.h>

#include <algorithm>

#include "gpu/common/device_buffer.h"
#include "gpu/interop/copy_field.cuh"
#include "gpu/interop/gl_interop.h"

namespace bs::interop {

struct FieldInterop::Impl {
  cudaGraphicsResource_t resource = nullptr;
  size_t count = 0;
  int blocks = 0;
};

std::unique_ptr<FieldInterop> FieldInterop::create(unsigned gl_buffer, size_t count, std::string* error) {
  cudaGraphicsResource_t res = nullptr;
  const cudaError_t err =
      cudaGraphicsGLRegisterBuffer(&res, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (error)
      *error = std::string("cudaGraphicsGLRegisterBuffer failed: ") + cudaGetErrorName(err) + " (" +
               cudaGetErrorString(err) + ")";
    return nullptr;
  }
  std::unique_ptr<FieldInterop> t(new FieldInterop());
  t->m = std::make_unique<Impl>();
  t->m->resource = res;
  t->m->count = count;
  int sms = 0, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  t->m->blocks = std::max(1, sms) * 4;
  return t;
}

FieldInterop::~FieldInterop() {
  if (m && m->resource) BS_CUDA_LOG(cudaGraphicsUnregisterResource(m->resource));
}

void FieldInterop::abandon() noexcept {
  if (m) m->resource = nullptr;
}

void FieldInterop::write(const float* device_field, void* stream_handle) {
  auto stream = static_cast<cudaStream_t>(stream_handle);
  BS_CUDA_CHECK(cudaGraphicsMapResources(1, &m->resource, stream));
  void* ptr = nullptr;
  size_t bytes = 0;
  cudaError_t err = cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, m->resource);
  if (err == cudaSuccess && bytes < m->count * sizeof(float)) err = cudaErrorInvalidValue;
  if (err == cudaSuccess) {
    copy_field_kernel<<<m->blocks, 256, 0, stream>>>(device_field, static_cast<float*>(ptr), m->count);
    err = cudaGetLastError();
  }
  // Always unmap, even after a failure, so GL can use the buffer again.
  const cudaError_t unmap_err = cudaGraphicsUnmapResources(1, &m->resource, stream);
  BS_CUDA_CHECK(err);
  BS_CUDA_CHECK(unmap_err);
}

struct HostStaging::Impl {
  PinnedBuffer<float> host;
};

HostStaging::HostStaging() : m(std::make_unique<Impl>()) {}
HostStaging::~HostStaging() = default;

const float* HostStaging::download(const float* device_field, size_t count, void* stream_handle) {
  auto stream = static_cast<cudaStream_t>(stream_handle);
  m->host.resize(count);
  BS_CUDA_CHECK(
      cudaMemcpyAsync(m->host.data(), device_field, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
  BS_CUDA_CHECK(cudaStreamSynchronize(stream));
  return m->host.data();
}

void HostStaging::abandon() noexcept {
  m->host.abandon();
}

std::vector<int> gl_cuda_devices(std::string* error) {
  unsigned count = 0;
  int devices[16] = {};
  const cudaError_t e = cudaGLGetDevices(&count, devices, 16, cudaGLDeviceListAll);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (error) *error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return {};
  }
  return std::vector<int>(devices, devices + std::min(count, 16u));
}

}  // namespace bs::interop
