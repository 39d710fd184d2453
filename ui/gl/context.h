// context.h: the OpenGL context the app draws into: a GLFW window, or a headless EGL context (no window, no
// X) that renders into an offscreen framebuffer. Both load GL through GLAD and need GL 3.3 core at least.
#pragma once

#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace bs::gl {

struct ContextInfo {
  std::string vendor;
  std::string renderer;
  std::string version;
  std::string platform;  // "GLFW window (X11)", "EGL device (headless)", ...
  bool headless = false;
  // Mesa's llvmpipe/softpipe: GL runs on the CPU, so CUDA cannot share its buffers.
  bool software() const;
};

class Context {
 public:
  virtual ~Context() = default;
  virtual const ContextInfo& info() const = 0;
  // Framebuffer size in pixels.
  virtual int width() const = 0;
  virtual int height() const = 0;
  // HiDPI scale of the monitor (1 for headless).
  virtual float content_scale() const { return 1.0f; }
  virtual bool should_close() const = 0;
  virtual void request_close() = 0;
  virtual void poll_events() = 0;
  virtual bool minimized() const { return false; }
  // Binds the framebuffer the frame is drawn into (0 for a window, an offscreen FBO headless).
  virtual void bind_target() = 0;
  virtual void present() = 0;
  virtual GLFWwindow* window() const { return nullptr; }
  virtual void set_fullscreen(bool) {}
};

// nullptr with `error` filled when no context can be made.
std::unique_ptr<Context> create_window(int width, int height, const char* title, std::string* error);
std::unique_ptr<Context> create_headless(int width, int height, std::string* error);

// Reads the bound framebuffer (RGBA8, top row first).
std::vector<unsigned char> read_pixels(int width, int height);
bool write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba,
               std::string* error);

}  // namespace bs::gl
