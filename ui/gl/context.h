// context.h: the OpenGL context the app draws into: a GLFW window, or a headless EGL context (no window, no
// X) that renders into an offscreen framebuffer. Both load GL through GLAD and need GL 3.3 core at least.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace bs::gl {

// One key press as GLFW reported it: the GLFW key code and the modifier bits (GLFW_MOD_*) at that moment.
struct KeyPress {
  int key = 0;
  int mods = 0;
};

// Key presses in the order they happened, kept until the frame loop takes them. ImGui 1.86 samples key state
// once per frame, so a press and release between two frames (a quick tap at a low frame rate) never shows as
// "down" there; a queue filled from the key callback keeps it. Bounded: a stalled frame loop drops the
// oldest.
class KeyQueue {
 public:
  static constexpr size_t k_capacity = 64;
  void push(KeyPress k);
  std::vector<KeyPress> take();
  size_t size() const { return m_keys.size(); }

 private:
  std::deque<KeyPress> m_keys;
};

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
  // Resizes the window (or the headless framebuffer, which tests use to mimic a window resize).
  virtual void resize(int width, int height) = 0;
  // Puts a queueing key callback in front of the one installed before (ImGui's GLFW backend: call this after
  // ImGui_ImplGlfw_InitForOpenGL), which it then calls. A no-op headless (no keyboard).
  virtual void install_key_queue() {}
  // The key presses since the last call, oldest first.
  virtual std::vector<KeyPress> take_key_presses() { return {}; }
  // Call right after ImGui::NewFrame. A key pressed and released between two frames reaches ImGui's callback
  // as pressed, and its release only now: ImGui 1.86 then sees it down for one frame, so widgets and panels
  // that poll keys (ImGui::IsKeyPressed: text fields, popups, the anatomy keys) do not miss quick taps
  // either.
  virtual void release_deferred_keys() {}
};

// nullptr with `error` filled when no context can be made.
std::unique_ptr<Context> create_window(int width, int height, const char* title, std::string* error);
std::unique_ptr<Context> create_headless(int width, int height, std::string* error);

// Reads the bound framebuffer (RGBA8, top row first).
std::vector<unsigned char> read_pixels(int width, int height);
bool write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba,
               std::string* error);

}  // namespace bs::gl
