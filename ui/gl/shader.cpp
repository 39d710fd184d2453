// shader.cpp: see shader.h.
#include "ui/gl/shader.h"

#include <glad/gl.h>

#include <stdexcept>
#include <utility>

namespace bs::gl {

Program::~Program() {
  if (m_id) glDeleteProgram(m_id);
}
Program::Program(Program&& o) noexcept : m_id(std::exchange(o.m_id, 0)) {}
Program& Program::operator=(Program&& o) noexcept {
  std::swap(m_id, o.m_id);
  return *this;
}

namespace {
GLuint compile(GLenum type, std::string_view src, std::string_view label) {
  GLuint s = glCreateShader(type);
  const char* p = src.data();
  const GLint len = static_cast<GLint>(src.size());
  glShaderSource(s, 1, &p, &len);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    throw std::runtime_error(std::string(label) + ": shader compile failed: " + log);
  }
  return s;
}
}  // namespace

Program Program::build(std::string_view vs, std::string_view fs, std::string_view label) {
  if (vs.empty() || fs.empty()) throw std::runtime_error(std::string(label) + ": shader source missing");
  GLuint v = compile(GL_VERTEX_SHADER, vs, label);
  GLuint f = compile(GL_FRAGMENT_SHADER, fs, label);
  Program p;
  p.m_id = glCreateProgram();
  glAttachShader(p.m_id, v);
  glAttachShader(p.m_id, f);
  glLinkProgram(p.m_id);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p.m_id, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(p.m_id, sizeof log, nullptr, log);
    throw std::runtime_error(std::string(label) + ": program link failed: " + log);
  }
  return p;
}

int Program::uniform(const char* name) const {
  return glGetUniformLocation(m_id, name);
}

}  // namespace bs::gl
