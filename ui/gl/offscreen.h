// offscreen.h: an RGBA image drawn into offscreen (a framebuffer with a texture), shown afterwards with
// ImGui::Image. Field and path views draw through one, so both resize and restore GL state the same way.
#pragma once

namespace bs::gl {

class OffscreenImage {
 public:
  OffscreenImage() = default;
  ~OffscreenImage();
  OffscreenImage(const OffscreenImage&) = delete;
  OffscreenImage& operator=(const OffscreenImage&) = delete;

  // While a Scope lives, GL draws into the image; its end puts the previous framebuffer and viewport back.
  class Scope {
   public:
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    friend class OffscreenImage;
    Scope(int prev_fbo, const int prev_viewport[4]);
    int m_prev_fbo;
    int m_prev_viewport[4];
  };
  // Makes the image w x h pixels (at least 1 x 1; recreated only when the size changes), binds it and sets
  // the viewport to it.
  [[nodiscard]] Scope begin(int w, int h);
  unsigned texture() const { return m_tex; }

 private:
  unsigned m_fbo = 0, m_tex = 0;
  int m_w = 0, m_h = 0;
};

}  // namespace bs::gl
