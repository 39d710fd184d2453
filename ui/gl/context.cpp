// context.cpp: GLFW window and headless EGL contexts (see context.h).
#include "ui/gl/context.h"

#include <glad/egl.h>
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/text.h"

namespace bs::gl {

bool ContextInfo::software() const {
  return renderer.find("llvmpipe") != std::string::npos || renderer.find("softpipe") != std::string::npos ||
         renderer.find("SWR") != std::string::npos || renderer.find("Software") != std::string::npos;
}

void KeyQueue::push(KeyPress k) {
  if (m_keys.size() >= k_capacity) m_keys.pop_front();
  m_keys.push_back(k);
}

std::vector<KeyPress> KeyQueue::take() {
  std::vector<KeyPress> out(m_keys.begin(), m_keys.end());
  m_keys.clear();
  return out;
}

namespace {

void fill_info(ContextInfo& info) {
  auto str = [](GLenum e) {
    const auto* s = reinterpret_cast<const char*>(glGetString(e));
    return std::string(s ? s : "?");
  };
  info.vendor = str(GL_VENDOR);
  info.renderer = str(GL_RENDERER);
  info.version = str(GL_VERSION);
}

// ---------------------------------------------------------------------------------------------- GLFW window
class WindowContext final : public Context {
 public:
  explicit WindowContext(GLFWwindow* w) : m_window(w) {
    fill_info(m_info);
    m_info.platform = "GLFW window";
    glfwSetWindowUserPointer(m_window, this);
  }
  ~WindowContext() override {
    glfwDestroyWindow(m_window);
    glfwTerminate();
  }
  const ContextInfo& info() const override { return m_info; }
  int width() const override {
    int w, h;
    glfwGetFramebufferSize(m_window, &w, &h);
    return w;
  }
  int height() const override {
    int w, h;
    glfwGetFramebufferSize(m_window, &w, &h);
    return h;
  }
  float content_scale() const override {
    float x = 1, y = 1;
    glfwGetWindowContentScale(m_window, &x, &y);
    return std::max(x, y);
  }
  bool should_close() const override { return glfwWindowShouldClose(m_window); }
  void request_close() override { glfwSetWindowShouldClose(m_window, GLFW_TRUE); }
  void poll_events() override { glfwPollEvents(); }
  bool minimized() const override { return glfwGetWindowAttrib(m_window, GLFW_ICONIFIED) != 0; }
  void bind_target() override { glBindFramebuffer(GL_FRAMEBUFFER, 0); }
  void present() override { glfwSwapBuffers(m_window); }
  GLFWwindow* window() const override { return m_window; }
  void set_fullscreen(bool on) override {
    GLFWmonitor* mon = glfwGetPrimaryMonitor();
    if (on && mon && !glfwGetWindowMonitor(m_window)) {
      glfwGetWindowPos(m_window, &m_saved[0], &m_saved[1]);
      glfwGetWindowSize(m_window, &m_saved[2], &m_saved[3]);
      const GLFWvidmode* mode = glfwGetVideoMode(mon);
      glfwSetWindowMonitor(m_window, mon, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else if (!on && glfwGetWindowMonitor(m_window)) {
      glfwSetWindowMonitor(m_window, nullptr, m_saved[0], m_saved[1], m_saved[2], m_saved[3], 0);
    }
  }
  void resize(int width, int height) override { glfwSetWindowSize(m_window, width, height); }
  void install_key_queue() override {
    GLFWkeyfun before = glfwSetKeyCallback(m_window, &WindowContext::key_callback);
    if (before != &WindowContext::key_callback) m_chained_key = before;
  }
  std::vector<KeyPress> take_key_presses() override { return m_keys.take(); }
  void release_deferred_keys() override {
    const std::vector<Deferred> releases = std::move(m_deferred);
    m_deferred.clear();
    m_pressed_since_frame.clear();
    if (m_chained_key)
      for (const Deferred& d : releases)
        m_chained_key(m_window, d.key, d.scancode, GLFW_RELEASE, d.mods);
  }

 private:
  struct Deferred {
    int key, scancode, mods;
  };
  static void key_callback(GLFWwindow* w, int key, int scancode, int action, int mods) {
    auto* self = static_cast<WindowContext*>(glfwGetWindowUserPointer(w));
    if (!self) return;
    auto& pressed = self->m_pressed_since_frame;
    if (action == GLFW_PRESS) {
      self->m_keys.push({key, mods});
      if (std::find(pressed.begin(), pressed.end(), key) == pressed.end()) pressed.push_back(key);
    }
    if (action == GLFW_RELEASE && std::find(pressed.begin(), pressed.end(), key) != pressed.end()) {
      // Pressed since the last frame: ImGui has not seen it down yet. Its release waits for the next frame.
      self->m_deferred.push_back({key, scancode, mods});
      return;
    }
    if (self->m_chained_key) self->m_chained_key(w, key, scancode, action, mods);
  }

  GLFWwindow* m_window;
  GLFWkeyfun m_chained_key = nullptr;
  KeyQueue m_keys;
  std::vector<int> m_pressed_since_frame;  // keys pressed since the last release_deferred_keys()
  std::vector<Deferred> m_deferred;        // their releases, held until then
  ContextInfo m_info;
  int m_saved[4] = {100, 100, 1600, 900};
};

std::string g_glfw_error;
void glfw_error_callback(int code, const char* msg) {
  g_glfw_error = "GLFW error " + std::to_string(code) + ": " + msg;
}

// ---------------------------------------------------------------------------------------------- headless EGL
class HeadlessContext final : public Context {
 public:
  HeadlessContext(EGLDisplay dpy, EGLContext ctx, int w, int h, std::string platform)
      : m_display(dpy), m_context(ctx), m_width(w), m_height(h) {
    fill_info(m_info);
    m_info.platform = std::move(platform);
    m_info.headless = true;
    glGenFramebuffers(1, &m_fbo);
    glGenRenderbuffers(1, &m_color);
    glBindRenderbuffer(GL_RENDERBUFFER, m_color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, m_color);
  }
  ~HeadlessContext() override {
    glDeleteFramebuffers(1, &m_fbo);
    glDeleteRenderbuffers(1, &m_color);
    eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(m_display, m_context);
    eglTerminate(m_display);
  }
  const ContextInfo& info() const override { return m_info; }
  int width() const override { return m_width; }
  int height() const override { return m_height; }
  void resize(int width, int height) override {
    m_width = width;
    m_height = height;
    glBindRenderbuffer(GL_RENDERBUFFER, m_color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  }
  bool should_close() const override { return m_close; }
  void request_close() override { m_close = true; }
  void poll_events() override {}
  void bind_target() override { glBindFramebuffer(GL_FRAMEBUFFER, m_fbo); }
  void present() override { glFlush(); }

 private:
  EGLDisplay m_display;
  EGLContext m_context;
  int m_width, m_height;
  GLuint m_fbo = 0, m_color = 0;
  bool m_close = false;
  ContextInfo m_info;
};

std::string egl_error_string(EGLint e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "EGL error 0x%04x", static_cast<unsigned>(e));
  return buf;
}

// Tries to make a GL 4.5 (then 3.3) core context current on `dpy` without a surface.
EGLContext make_context(EGLDisplay dpy, std::string* error) {
  EGLint major = 0, minor = 0;
  if (!eglInitialize(dpy, &major, &minor)) {
    *error = "eglInitialize failed (" + egl_error_string(eglGetError()) + ")";
    return EGL_NO_CONTEXT;
  }
  // Reload with the display, which brings in the display's extensions (surfaceless, create_context...).
  if (!gladLoaderLoadEGL(dpy)) {
    *error = "could not load EGL functions for the display";
    return EGL_NO_CONTEXT;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    *error = "EGL has no desktop OpenGL API (" + egl_error_string(eglGetError()) + ")";
    return EGL_NO_CONTEXT;
  }
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!eglChooseConfig(dpy, config_attribs, &config, 1, &count) || count == 0) config = nullptr;
  for (auto [maj, min] : {std::pair{4, 5}, std::pair{3, 3}}) {
    const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                  maj,
                                  EGL_CONTEXT_MINOR_VERSION,
                                  min,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                  EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctx_attribs);
    if (ctx == EGL_NO_CONTEXT) continue;
    if (eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) return ctx;
    eglDestroyContext(dpy, ctx);
  }
  *error = "no GL 3.3+ core context could be made current without a surface (" +
           egl_error_string(eglGetError()) + ")";
  return EGL_NO_CONTEXT;
}

}  // namespace

std::unique_ptr<Context> create_window(int width, int height, const char* title, std::string* error) {
  glfwSetErrorCallback(glfw_error_callback);
  if (!glfwInit()) {
    *error =
        "cannot open a window: " + (g_glfw_error.empty() ? std::string("glfwInit failed") : g_glfw_error);
    return nullptr;
  }
  GLFWwindow* w = nullptr;
  for (auto [maj, min] : {std::pair{4, 5}, std::pair{3, 3}}) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, maj);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, min);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    w = glfwCreateWindow(width, height, title, nullptr, nullptr);
    if (w) break;
  }
  if (!w) {
    *error = "cannot create a GL 3.3+ window: " + g_glfw_error;
    glfwTerminate();
    return nullptr;
  }
  glfwMakeContextCurrent(w);
  glfwSwapInterval(1);
  if (!gladLoadGL(glfwGetProcAddress)) {
    *error = "could not load OpenGL functions";
    glfwDestroyWindow(w);
    glfwTerminate();
    return nullptr;
  }
  return std::make_unique<WindowContext>(w);
}

std::unique_ptr<Context> create_headless(int width, int height, std::string* error) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
    *error = "libEGL.so.1 could not be loaded (install libegl1)";
    return nullptr;
  }
  std::string attempts;
  auto try_display = [&](EGLDisplay dpy, const std::string& platform) -> std::unique_ptr<Context> {
    if (dpy == EGL_NO_DISPLAY) return nullptr;
    std::string err;
    EGLContext ctx = make_context(dpy, &err);
    if (ctx == EGL_NO_CONTEXT) {
      attempts += platform + ": " + err + "; ";
      eglTerminate(dpy);
      return nullptr;
    }
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
      attempts += platform + ": could not load OpenGL functions; ";
      return nullptr;
    }
    return std::make_unique<HeadlessContext>(dpy, ctx, width, height, platform);
  };
  // 1. EGL devices (NVIDIA's driver, Mesa): a real GPU without any window system. Prefer the device that is a
  //    CUDA device (EGL_NV_device_cuda), so interop can share memory.
  if (eglQueryDevicesEXT && eglGetPlatformDisplayEXT) {
    EGLDeviceEXT devices[16];
    EGLint n = 0;
    if (eglQueryDevicesEXT(16, devices, &n) && n > 0) {
      std::vector<int> order;
      for (int i = 0; i < n; ++i) {
        EGLAttrib cuda = -1;
        const bool is_cuda =
            eglQueryDeviceAttribEXT && eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV, &cuda);
        if (is_cuda)
          order.insert(order.begin(), i);
        else
          order.push_back(i);
      }
      for (int i : order) {
        const char* ext =
            eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS) : nullptr;
        std::string name = "EGL device " + std::to_string(i);
        if (ext && std::strstr(ext, "EGL_MESA_device_software")) name += " (software)";
        auto c = try_display(eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr),
                             name + ", headless");
        if (c) return c;
      }
    }
  }
  // 2. Mesa's surfaceless platform.
  if (eglGetPlatformDisplayEXT) {
    auto c =
        try_display(eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
                    "EGL surfaceless (Mesa), headless");
    if (c) return c;
  }
  // 3. Whatever the default display is.
  if (auto c = try_display(eglGetDisplay(EGL_DEFAULT_DISPLAY), "EGL default display, headless")) return c;
  *error = "no headless EGL context: " + (attempts.empty() ? std::string("no EGL display found") : attempts);
  return nullptr;
}

std::vector<unsigned char> read_pixels(int width, int height) {
  std::vector<unsigned char> px(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  // GL's origin is bottom-left; images are stored top row first.
  const size_t row = static_cast<size_t>(width) * 4;
  std::vector<unsigned char> tmp(row);
  for (int y = 0; y < height / 2; ++y) {
    unsigned char* a = px.data() + static_cast<size_t>(y) * row;
    unsigned char* b = px.data() + static_cast<size_t>(height - 1 - y) * row;
    std::copy(a, a + row, tmp.data());
    std::copy(b, b + row, a);
    std::copy(tmp.data(), tmp.data() + row, b);
  }
  return px;
}

bool write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba,
               std::string* error) {
  if (width <= 0 || height <= 0 ||
      rgba.size() < static_cast<size_t>(width) * static_cast<size_t>(height) * 4) {
    if (error) *error = "cannot write PNG " + path + ": the image is empty or smaller than its size";
    return false;
  }
  // Encoded in memory first, then written in one atomic step: a failed or short write (a full disk) leaves no
  // truncated PNG and never replaces a good one.
  std::string png;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, width, height, 4, rgba.data(), width * 4) || png.empty()) {
    if (error) *error = "cannot write PNG " + path + ": encoding the image failed";
    return false;
  }
  return write_file_atomic(path, png, error);
}

}  // namespace bs::gl
