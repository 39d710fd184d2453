// field_renderer.cpp: see field_renderer.h.
#include "ui/gl/field_renderer.h"

#include <glad/gl.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "assets/embedded.h"

namespace bs::gl {

FieldRenderer::FieldRenderer()
    : m_program(
          Program::build(embedded::find("field.vert.glsl"), embedded::find("field.frag.glsl"), "field")) {
  glGenVertexArrays(1, &m_vao);
}

FieldRenderer::~FieldRenderer() {
  glDeleteVertexArrays(1, &m_vao);
  if (m_field_tex) glDeleteTextures(1, &m_field_tex);
  wait_for_reads();
  if (m_field_buf) glDeleteBuffers(1, &m_field_buf);
  if (m_memory_object) glDeleteMemoryObjectsEXT(1, &m_memory_object);
  if (m_cmap_tex) glDeleteTextures(1, &m_cmap_tex);
}

bool FieldRenderer::resize_field(int nx, int ny, bool fresh) {
  if (!fresh && nx == m_nx && ny == m_ny && m_field_tex) return false;
  GLint limit = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &limit);
  const int64_t cells = static_cast<int64_t>(nx) * ny;
  if (cells > limit)
    throw std::runtime_error("a " + std::to_string(nx) + "x" + std::to_string(ny) + " field has " +
                             std::to_string(cells) + " cells; this GL draws at most " +
                             std::to_string(limit) + " (GL_MAX_TEXTURE_BUFFER_SIZE)");
  wait_for_reads();
  if (m_memory_object) {
    // Imported storage cannot be resized: back to a buffer of GL's own (the caller imports again if it
    // wants).
    glDeleteBuffers(1, &m_field_buf);
    glDeleteMemoryObjectsEXT(1, &m_memory_object);
    m_field_buf = 0;
    m_memory_object = 0;
  }
  if (!m_field_buf) glGenBuffers(1, &m_field_buf);
  glBindBuffer(GL_TEXTURE_BUFFER, m_field_buf);
  glBufferData(GL_TEXTURE_BUFFER, cells * static_cast<GLsizeiptr>(sizeof(float)), nullptr, GL_DYNAMIC_DRAW);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
  if (!m_field_tex) glGenTextures(1, &m_field_tex);
  glBindTexture(GL_TEXTURE_BUFFER, m_field_tex);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, m_field_buf);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  m_nx = nx;
  m_ny = ny;
  return true;
}

bool FieldRenderer::import_field_memory(int fd, size_t bytes, std::string* error) {
  if (!GLAD_GL_EXT_memory_object || !GLAD_GL_EXT_memory_object_fd) {
    if (error) *error = "this GL has no GL_EXT_memory_object_fd";
    return false;
  }
  while (glGetError() != GL_NO_ERROR) {
  }
  GLuint mem = 0, buf = 0;
  glCreateMemoryObjectsEXT(1, &mem);
  glImportMemoryFdEXT(mem, bytes, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
  glGenBuffers(1, &buf);
  glBindBuffer(GL_TEXTURE_BUFFER, buf);
  glBufferStorageMemEXT(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(bytes), mem, 0);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    glDeleteBuffers(1, &buf);
    glDeleteMemoryObjectsEXT(1, &mem);
    if (error) *error = "GL could not import the CUDA memory (GL error " + std::to_string(e) + ")";
    return false;
  }
  if (m_field_buf) glDeleteBuffers(1, &m_field_buf);
  if (m_memory_object) glDeleteMemoryObjectsEXT(1, &m_memory_object);
  m_field_buf = buf;
  m_memory_object = mem;
  glBindTexture(GL_TEXTURE_BUFFER, m_field_tex);
  glTexBufferRange(GL_TEXTURE_BUFFER, GL_R32F, m_field_buf, 0, static_cast<GLsizeiptr>(m_nx) * m_ny * 4);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  return true;
}

void FieldRenderer::wait_for_reads() {
  if (!m_read_fence) return;
  auto fence = static_cast<GLsync>(m_read_fence);
  glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1'000'000'000);
  glDeleteSync(fence);
  m_read_fence = nullptr;
}

void FieldRenderer::upload(const float* host) {
  glBindBuffer(GL_TEXTURE_BUFFER, m_field_buf);
  glBufferSubData(GL_TEXTURE_BUFFER, 0,
                  static_cast<GLsizeiptr>(m_nx) * m_ny * static_cast<GLsizeiptr>(sizeof(float)), host);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

void FieldRenderer::ensure_colormap(int index) {
  const auto& maps = builtin_colormaps();
  index = std::clamp(index, 0, static_cast<int>(maps.size()) - 1);
  if (index == m_cmap_index && m_cmap_tex) return;
  if (!m_cmap_tex) glGenTextures(1, &m_cmap_tex);
  glBindTexture(GL_TEXTURE_2D, m_cmap_tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               maps[static_cast<size_t>(index)].rgba.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  m_cmap_index = index;
}

unsigned FieldRenderer::render(int w, int h, const FieldStyle& s) {
  ensure_colormap(s.colormap);
  const OffscreenImage::Scope target = m_out.begin(w, h);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(m_program.id());
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_BUFFER, m_field_tex);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, m_cmap_tex);
  glUniform1i(m_program.uniform("u_field"), 0);
  glUniform1i(m_program.uniform("u_colormap"), 1);
  glUniform2f(m_program.uniform("u_range"), s.range_min, s.range_max);
  glUniform2i(m_program.uniform("u_size"), m_nx, m_ny);
  glUniform2i(m_program.uniform("u_covered"), static_cast<int>(std::min<int64_t>(s.covered_x, m_nx)),
              static_cast<int>(std::min<int64_t>(s.covered_y, m_ny)));
  glUniform1i(m_program.uniform("u_grid_lines"), s.block_lines ? 1 : 0);
  glUniform2i(m_program.uniform("u_block"), static_cast<int>(std::max<int64_t>(1, s.block_x)),
              static_cast<int>(std::max<int64_t>(1, s.block_y)));
  glBindVertexArray(m_vao);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  if (m_memory_object) {
    wait_for_reads();
    m_read_fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  }
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  glUseProgram(0);
  return m_out.texture();
}

}  // namespace bs::gl
