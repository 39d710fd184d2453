// offscreen_test.cpp: the offscreen image a view draws (ui/gl/offscreen.h) keeps its texture's name when its
// size changes. The view may already have put the name in this frame's draw list; a name deleted and made
// again could go to the next texture created instead (the font atlas, rebuilt when presenter mode changes the
// scale), and the heat field then showed the font atlas for the frame in which presenter mode changed its
// size.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ui/gl/context.h"
#include "ui/gl/offscreen.h"

TEST(OffscreenImage, KeepsItsTextureThroughResizesAndRendersAtTheNewSize) {
  std::string err;
  auto ctx = bs::gl::create_headless(64, 64, &err);
  if (!ctx) GTEST_SKIP() << "no headless GL context: " << err;
  bs::gl::OffscreenImage img;
  unsigned first = 0;
  for (auto [w, h] : {std::pair{40, 30}, std::pair{97, 61}, std::pair{40, 30}, std::pair{1, 1}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    {
      const auto scope = img.begin(w, h);
      ASSERT_EQ(glCheckFramebufferStatus(GL_FRAMEBUFFER), static_cast<GLenum>(GL_FRAMEBUFFER_COMPLETE));
      glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      std::vector<unsigned char> px(static_cast<size_t>(w) * h * 4);
      glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
      EXPECT_NEAR(px[px.size() - 4], 64, 1);  // the last pixel: the image has the new size
      EXPECT_NEAR(px[px.size() - 2], 191, 1);
    }
    if (first == 0) first = img.texture();
    EXPECT_NE(img.texture(), 0u);
    EXPECT_EQ(img.texture(), first);  // the same name: a draw list that holds it stays right
    // A texture made after a resize never gets the image's name.
    GLuint other = 0;
    glGenTextures(1, &other);
    EXPECT_NE(other, img.texture());
    glDeleteTextures(1, &other);
  }
}
