// shader.h: a linked GLSL program (move-only); compile and link errors become a message with the log.
#pragma once

#include <string>
#include <string_view>

namespace bs::gl {

class Program {
 public:
  Program() = default;
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  Program(Program&& o) noexcept;
  Program& operator=(Program&& o) noexcept;

  // Throws std::runtime_error with the compiler's log on failure.
  static Program build(std::string_view vertex_src, std::string_view fragment_src, std::string_view label);
  unsigned id() const { return m_id; }
  int uniform(const char* name) const;

 private:
  unsigned m_id = 0;
};

}  // namespace bs::gl
