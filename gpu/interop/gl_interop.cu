// gl_interop.cu: CUDA-OpenGL interop for field textures (see gl_interop.h).
#include <glad/gl.h>  // before cuda_gl_interop.h, which would otherwise pull in the system GL/gl.h
#include <cuda_gl_interop.h>

#include "gpu/common/device_buffer.h"
#include "gpu/interop/gl_interop.h"

namespace bs::interop {

namespace {
__global__ void field_to_surface(const float* __restrict__ field, cudaSurfaceObject_t surf, int nx, int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  surf2Dwrite(field[static_cast<size_t>(y) * nx + x], surf, x * static_cast<int>(sizeof(float)), y);
}
}  // namespace

struct TextureInterop::Impl {
  cudaGraphicsResource_t resource = nullptr;
  int nx = 0, ny = 0;
};

std::unique_ptr<TextureInterop> TextureInterop::create(unsigned gl_texture, int nx, int ny, std::string* error) {
  cudaGraphicsResource_t res = nullptr;
  const cudaError_t err =
      cudaGraphicsGLRegisterImage(&res, gl_texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (error)
      *error = std::string("cudaGraphicsGLRegisterImage failed: ") + cudaGetErrorName(err) + " (" +
               cudaGetErrorString(err) + ")";
    return nullptr;
  }
  std::unique_ptr<TextureInterop> t(new TextureInterop());
  t->m = std::make_unique<Impl>();
  t->m->resource = res;
  t->m->nx = nx;
  t->m->ny = ny;
  return t;
}

TextureInterop::~TextureInterop() {
  if (m && m->resource) BS_CUDA_LOG(cudaGraphicsUnregisterResource(m->resource));
}

void TextureInterop::abandon() noexcept {
  if (m) m->resource = nullptr;
}

void TextureInterop::write(const float* device_field, void* stream_handle) {
  auto stream = static_cast<cudaStream_t>(stream_handle);
  BS_CUDA_CHECK(cudaGraphicsMapResources(1, &m->resource, stream));
  cudaArray_t array = nullptr;
  cudaError_t err = cudaGraphicsSubResourceGetMappedArray(&array, m->resource, 0, 0);
  cudaSurfaceObject_t surf = 0;
  if (err == cudaSuccess) {
    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    err = cudaCreateSurfaceObject(&surf, &desc);
  }
  if (err == cudaSuccess) {
    const dim3 block(32, 8);
    const dim3 grid(static_cast<unsigned>((m->nx + 31) / 32), static_cast<unsigned>((m->ny + 7) / 8));
    field_to_surface<<<grid, block, 0, stream>>>(device_field, surf, m->nx, m->ny);
    err = cudaGetLastError();
    BS_CUDA_LOG(cudaDestroySurfaceObject(surf));
  }
  // Always unmap, even after a failure, so GL can use the texture again.
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
  BS_CUDA_CHECK(cudaMemcpyAsync(m->host.data(), device_field, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
  BS_CUDA_CHECK(cudaStreamSynchronize(stream));
  return m->host.data();
}

void HostStaging::abandon() noexcept { m->host.abandon(); }

}  // namespace bs::interop
