// field_renderer.h: draws a scalar field (one float per cell) colormapped into an offscreen RGBA image that
// the UI shows with ImGui::Image. The field lives in a GL buffer bound as an R32F buffer texture
// (GL_TEXTURE_BUFFER): CUDA writes the buffer in place through interop, or it is filled from host memory
// (host-copy and CPU paths).
#pragma once

#include <cstdint>
#include <string>

#include "ui/colormap.h"
#include "ui/gl/offscreen.h"
#include "ui/gl/shader.h"

namespace bs::gl {

struct FieldStyle {
  float range_min = 0.0f;
  float range_max = 1.0f;
  int colormap = 0;               // index into builtin_colormaps()
  int64_t covered_x = INT64_MAX;  // cells at or beyond are hatched (not computed by any thread)
  int64_t covered_y = INT64_MAX;
  bool block_lines = false;  // draw block boundaries
  int64_t block_x = 32, block_y = 8;
};

class FieldRenderer {
 public:
  FieldRenderer();
  ~FieldRenderer();
  FieldRenderer(const FieldRenderer&) = delete;
  FieldRenderer& operator=(const FieldRenderer&) = delete;

  // (Re)creates the field buffer when the size changes; returns true if it was recreated (interop must then
  // register the new buffer). Throws std::runtime_error when GL's texture-buffer limit is smaller than the
  // field. `fresh` forces a new buffer of GL's own even at the same size (e.g. after the CUDA memory it
  // imported is gone).
  bool resize_field(int nx, int ny, bool fresh = false);
  unsigned field_buffer() const { return m_field_buf; }
  int nx() const { return m_nx; }
  int ny() const { return m_ny; }
  // Host paths: copies nx*ny floats into the field texture.
  void upload(const float* host);
  // Replaces the field buffer's storage with memory exported by CUDA (GL_EXT_memory_object_fd). GL takes
  // ownership of `fd`. False with `error` when this GL cannot import it; the old buffer then stays in use.
  bool import_field_memory(int fd, size_t bytes, std::string* error);
  bool imported() const { return m_memory_object != 0; }
  // Blocks until GL has finished every command that reads the field (issued before the last render()): call
  // before CUDA writes shared memory again.
  void wait_for_reads();

  // Renders into the output image of w x h pixels; returns its texture (for ImGui::Image).
  unsigned render(int w, int h, const FieldStyle& style);
  unsigned output_texture() const { return m_out.texture(); }

 private:
  void ensure_colormap(int index);

  Program m_program;
  unsigned m_vao = 0;
  unsigned m_field_buf = 0;
  unsigned m_memory_object = 0;
  void* m_read_fence = nullptr;
  unsigned m_field_tex = 0;
  unsigned m_cmap_tex = 0;
  int m_cmap_index = -1;
  OffscreenImage m_out;
  int m_nx = 0, m_ny = 0;
};

}  // namespace bs::gl
