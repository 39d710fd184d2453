// field_presenter.cpp: see field_presenter.h.
#include "app/field_presenter.h"

#include <cstdlib>

namespace bs {

FieldPresenter::FieldPresenter(LabEnv& env) : m_env(env) {}
FieldPresenter::~FieldPresenter() = default;

void FieldPresenter::resize(int nx, int ny, bool gpu) {
  m_shared.reset();
  m_mapped.reset();
  m_staging.reset();
  m_gpu = gpu;
  // Always a fresh buffer: the previous one may have imported CUDA memory that a device reset took away.
  m_renderer.resize_field(nx, ny, true);
  if (gpu) {
    m_staging = std::make_unique<interop::HostStaging>();
    setup_interop();
  }
}

void FieldPresenter::setup_interop() {
  if (m_env.path.path != RenderPath::Interop) return;
  const size_t cells = static_cast<size_t>(m_renderer.nx()) * static_cast<size_t>(m_renderer.ny());
  // First rung: memory CUDA exports and GL imports, shared for good (no per-frame map/unmap).
  // BLOCKSCOPE_INTEROP=map skips it, to compare the two mechanisms.
  std::string shared_err;
  const char* mode = std::getenv("BLOCKSCOPE_INTEROP");
  if (!(mode && std::string(mode) == "map")) {
    m_shared = interop::SharedFieldMemory::create(cells, &shared_err);
    if (m_shared) {
      const int fd = m_shared->export_fd(&shared_err);
      if (fd < 0 || !m_renderer.import_field_memory(fd, m_shared->bytes(), &shared_err)) m_shared.reset();
    }
  } else {
    shared_err = "BLOCKSCOPE_INTEROP=map";
  }
  if (m_shared) {
    m_env.path.mechanism = "shared CUDA-GL memory";
    return;
  }
  // Second rung: register the GL buffer with CUDA and map/unmap it around each write.
  std::string err;
  m_mapped = interop::FieldInterop::create(m_renderer.field_buffer(), cells, &err);
  if (m_mapped) {
    m_env.path.mechanism = "map/unmap per frame (shared memory: " + shared_err + ")";
    return;
  }
  // Step down the ladder: CUDA keeps computing, frames go through host memory.
  m_env.path = settle_interop(m_env.path, false, err, m_env.gl->info().renderer, m_env.gl->info().software());
}

void FieldPresenter::present_device(const float* device_field, void* stream) {
  if (m_shared) {
    m_renderer.wait_for_reads();
    m_shared->write(device_field, stream);
  } else if (m_mapped) {
    m_mapped->write(device_field, stream);
  } else {
    const size_t cells = static_cast<size_t>(m_renderer.nx()) * static_cast<size_t>(m_renderer.ny());
    m_renderer.upload(m_staging->download(device_field, cells, stream));
  }
}

void FieldPresenter::present_host(const float* host_field) {
  m_renderer.upload(host_field);
}

unsigned FieldPresenter::render(int w, int h, const gl::FieldStyle& style) {
  return m_renderer.render(w, h, style);
}

void FieldPresenter::abandon_gpu() noexcept {
  // abandon() made the destructors harmless: they free nothing the reset already freed.
  if (m_shared) m_shared->abandon();
  if (m_mapped) m_mapped->abandon();
  if (m_staging) m_staging->abandon();
  m_shared.reset();
  m_mapped.reset();
  m_staging.reset();
}

}  // namespace bs
