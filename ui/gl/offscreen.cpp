// offscreen.cpp: see offscreen.h.
#include "ui/gl/offscreen.h"

#include <glad/gl.h>

#include <algorithm>

namespace bs::gl {

OffscreenImage::~OffscreenImage() {
  if (m_tex) glDeleteTextures(1, &m_tex);
  if (m_fbo) glDeleteFramebuffers(1, &m_fbo);
}

OffscreenImage::Scope::Scope(int prev_fbo, const int prev_viewport[4])
    : m_prev_fbo(prev_fbo),
      m_prev_viewport{prev_viewport[0], prev_viewport[1], prev_viewport[2], prev_viewport[3]} {}

OffscreenImage::Scope::~Scope() {
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(m_prev_fbo));
  glViewport(m_prev_viewport[0], m_prev_viewport[1], m_prev_viewport[2], m_prev_viewport[3]);
}

OffscreenImage::Scope OffscreenImage::begin(int w, int h) {
  w = std::max(w, 1);
  h = std::max(h, 1);
  GLint prev_fbo = 0, prev_viewport[4] = {};
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev_fbo);
  glGetIntegerv(GL_VIEWPORT, prev_viewport);
  if (!m_fbo) glGenFramebuffers(1, &m_fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
  if (w != m_w || h != m_h || !m_tex) {
    // A new size re-specifies the same texture rather than deleting it and making another: this frame's draw
    // list may already name the texture (the view drew it before the image was rendered), and a deleted name
    // can go to the next texture made (the font atlas, rebuilt when presenter mode changes the UI's scale),
    // which that frame would then show in the view.
    if (!m_tex) glGenTextures(1, &m_tex);
    glBindTexture(GL_TEXTURE_2D, m_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glBindTexture(GL_TEXTURE_2D, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m_tex, 0);
    m_w = w;
    m_h = h;
  }
  glViewport(0, 0, w, h);
  return Scope(prev_fbo, prev_viewport);  // a prvalue: no copy (Scope cannot be copied or moved)
}

}  // namespace bs::gl
