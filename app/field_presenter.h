// field_presenter.h: gets a scalar field (nx x ny floats) from wherever it was computed into GL and draws it
// colormapped, down the fallback ladder: shared CUDA-GL memory, map/unmap interop, host copy, CPU data. Any
// lab that shows a field (heat grid, matmul C) uses one, so the ladder lives in one place.
#pragma once

#include <memory>
#include <string>

#include "app/lab.h"
#include "gpu/interop/gl_interop.h"
#include "ui/gl/field_renderer.h"

namespace bs {

class FieldPresenter {
 public:
  explicit FieldPresenter(LabEnv& env);
  ~FieldPresenter();
  FieldPresenter(const FieldPresenter&) = delete;
  FieldPresenter& operator=(const FieldPresenter&) = delete;

  // (Re)creates the GL field for nx x ny cells; with `gpu` it also sets up the interop rung the path allows
  // (and steps the path down, with the reason, when interop cannot be had).
  void resize(int nx, int ny, bool gpu);
  // Device field (nx*ny floats on `stream`) into GL: shared memory, map/unmap, or a host copy.
  void present_device(const float* device_field, void* stream);
  // Host field into GL (CPU path).
  void present_host(const float* host_field);
  // Draws the field into an image of w x h pixels; returns its texture for ImGui::Image.
  unsigned render(int w, int h, const gl::FieldStyle& style);

  int nx() const { return m_renderer.nx(); }
  int ny() const { return m_renderer.ny(); }
  // After a device reset: forget CUDA handles without freeing them.
  void abandon_gpu() noexcept;

 private:
  void setup_interop();

  LabEnv& m_env;
  gl::FieldRenderer m_renderer;
  std::unique_ptr<interop::SharedFieldMemory> m_shared;
  std::unique_ptr<interop::FieldInterop> m_mapped;
  std::unique_ptr<interop::HostStaging> m_staging;
  bool m_gpu = false;
};

}  // namespace bs
