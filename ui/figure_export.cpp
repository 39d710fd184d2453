// figure_export.cpp: see figure_export.h. PNGs are drawn by a private ImGui context (its own font atlas and
// OpenGL3 renderer backend, which keeps its state per context) into an offscreen framebuffer, so exporting
// never disturbs the app's ImGui frame, fonts or GL state.
#include "ui/figure_export.h"

#include <glad/gl.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/text.h"
#include "ui/figure_view.h"
#include "ui/gl/context.h"
#include "ui/gl/offscreen.h"

namespace bs::ui {

namespace {

constexpr int k_min_px = 16, k_max_px = 16384;
constexpr float k_min_scale = 0.5f, k_max_scale = 8.0f;
constexpr const char* k_font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr const char* k_font_bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

bool fail(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

// Restores the caller's ImGui context however render_png leaves (error or exception).
class ContextGuard {
 public:
  ContextGuard() : m_prev(ImGui::GetCurrentContext()) {}
  ~ContextGuard() {
    if (m_ctx) {
      ImGui::SetCurrentContext(m_ctx);
      if (m_backend) ImGui_ImplOpenGL3_Shutdown();
      ImGui::DestroyContext(m_ctx);
    }
    ImGui::SetCurrentContext(m_prev);
  }
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;
  ImGuiContext* create() {
    m_ctx = ImGui::CreateContext();  // a fresh font atlas of its own
    ImGui::SetCurrentContext(m_ctx);
    return m_ctx;
  }
  void backend_initialized() { m_backend = true; }

 private:
  ImGuiContext* m_prev;
  ImGuiContext* m_ctx = nullptr;
  bool m_backend = false;
};

}  // namespace

bool export_svg(const fig::Figure& f, int width, int height, const std::string& path, std::string* error) {
  if (width < k_min_px || height < k_min_px || width > k_max_px || height > k_max_px)
    return fail(error, "SVG size " + std::to_string(width) + "x" + std::to_string(height) + " is outside " +
                           std::to_string(k_min_px) + ".." + std::to_string(k_max_px));
  if (!check_write_target(path, error)) return false;
  return write_file_atomic(path, fig::to_svg(f, width, height), error);
}

bool render_png(const DrawFn& draw, const PngOptions& opt, const std::string& path, std::string* error) {
  if (!draw) return fail(error, "nothing to draw");
  if (opt.width < k_min_px || opt.height < k_min_px || opt.width > k_max_px || opt.height > k_max_px)
    return fail(error, "PNG size " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
                           " is outside " + std::to_string(k_min_px) + ".." + std::to_string(k_max_px) +
                           " pixels");
  if (!std::isfinite(opt.scale) || opt.scale < k_min_scale || opt.scale > k_max_scale) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "PNG scale %g is outside %g..%g", static_cast<double>(opt.scale),
                  static_cast<double>(k_min_scale), static_cast<double>(k_max_scale));
    return fail(error, buf);
  }
  if (!glad_glGetString || !glGetString(GL_VERSION))
    return fail(error, "no current OpenGL context (make one with gl::create_window or gl::create_headless)");
  GLint max_tex = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_tex);
  if (max_tex > 0 && (opt.width > max_tex || opt.height > max_tex))
    return fail(error, "PNG size " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
                           " exceeds this GL's largest texture (" + std::to_string(max_tex) + ")");
  // A bad path is reported with the system's reason before any rendering, and nothing is created or truncated
  // yet: the file appears (atomically) only once the image is complete.
  if (!check_write_target(path, error)) return false;

  const float s = opt.scale;
  std::vector<unsigned char> rgba;
  {
    ContextGuard guard;
    guard.create();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    // Layout in units of pixels/scale; the backend maps them onto the framebuffer's pixels.
    io.DisplaySize = ImVec2(static_cast<float>(opt.width) / s, static_cast<float>(opt.height) / s);
    io.DisplayFramebufferScale = ImVec2(s, s);
    io.DeltaTime = 1.0f / 60.0f;
    // Fonts rasterized at their final pixel size, then drawn at 1/scale: texels map 1:1 to pixels.
    FigureFonts fonts;
    const bool dejavu = std::filesystem::exists(k_font);
    if (dejavu) {
      fonts.body = io.Fonts->AddFontFromFileTTF(k_font, 15.0f * s);
      fonts.small = io.Fonts->AddFontFromFileTTF(k_font, 15.0f * 0.87f * s);
      fonts.title = io.Fonts->AddFontFromFileTTF(std::filesystem::exists(k_font_bold) ? k_font_bold : k_font,
                                                 15.0f * 1.3f * s);
      fonts.body_size = 15.0f;
    }
    if (!fonts.body || !fonts.small || !fonts.title) {
      io.Fonts->Clear();
      ImFontConfig cfg;
      cfg.SizePixels = 13.0f * s;
      fonts.body = fonts.small = fonts.title = io.Fonts->AddFontDefault(&cfg);
      fonts.body_size = 13.0f;
    }
    io.FontGlobalScale = 1.0f / s;  // ImGui::GetFontSize() in layout units, for DrawFn users
    if (!ImGui_ImplOpenGL3_Init("#version 330 core"))
      return fail(error, "ImGui's OpenGL3 renderer did not start");
    guard.backend_initialized();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    // A borderless window covering the image: its draw list has the font size and clip rect DrawFns expect.
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::Begin("##png", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoInputs |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->_FringeScale = 1.0f / s;  // anti-aliasing fringes one pixel wide, not one layout unit
    draw(dl, ImVec2(0, 0), io.DisplaySize);
    ImGui::End();
    ImGui::PopStyleVar(2);
    ImGui::Render();

    gl::OffscreenImage image;
    {
      const gl::OffscreenImage::Scope scope = image.begin(opt.width, opt.height);
      GLfloat prev_clear[4];
      glGetFloatv(GL_COLOR_CLEAR_VALUE, prev_clear);
      const GLboolean prev_scissor = glIsEnabled(GL_SCISSOR_TEST);
      glDisable(GL_SCISSOR_TEST);
      glClearColor(1, 1, 1, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      glFinish();
      rgba = gl::read_pixels(opt.width, opt.height);
      glClearColor(prev_clear[0], prev_clear[1], prev_clear[2], prev_clear[3]);
      if (prev_scissor) glEnable(GL_SCISSOR_TEST);
      const GLenum err = glGetError();
      if (err != GL_NO_ERROR) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "OpenGL error 0x%04x while rendering the PNG", err);
        return fail(error, buf);
      }
    }
  }
  // A figure is opaque: blending of translucent shapes leaves alpha below 1 in the framebuffer.
  for (size_t i = 3; i < rgba.size(); i += 4)
    rgba[i] = 255;
  std::string werr;
  if (!gl::write_png(path, opt.width, opt.height, rgba, &werr)) return fail(error, werr);
  return true;
}

float slide_ready_scale(int height) {
  // The tick labels (the small font, 0.87 of 15 px at scale 1) at least 1/50 of the image's height: 18 px on
  // a 900-pixel-high figure, readable from the back of a room when the figure fills a slide.
  return static_cast<float>(height) / (50.0f * 15.0f * 0.87f);
}

bool export_png(const fig::Figure& f, const PngOptions& opt_in, const std::string& path, std::string* error) {
  PngOptions opt = opt_in;
  // A valid scale is raised to the slide-ready one (an invalid one is left for render_png to refuse).
  if (std::isfinite(opt.scale) && opt.scale >= k_min_scale && opt.scale <= k_max_scale)
    opt.scale = std::clamp(slide_ready_scale(opt.height), opt.scale, k_max_scale);
  return render_png(
      [&f](ImDrawList* dl, ImVec2 origin, ImVec2 size) {
        ImFontAtlas* atlas = ImGui::GetIO().Fonts;
        FigureFonts fonts;
        fonts.body = atlas->Fonts[0];
        fonts.small = atlas->Fonts.Size > 1 ? atlas->Fonts[1] : atlas->Fonts[0];
        fonts.title = atlas->Fonts.Size > 2 ? atlas->Fonts[2] : atlas->Fonts[0];
        fonts.body_size = ImGui::GetFontSize();
        paint_figure(dl, origin, size, f, fig::light_theme(), fonts);
      },
      opt, path, error);
}

}  // namespace bs::ui
