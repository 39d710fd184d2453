// presenter_font_test.cpp: where the UI's font comes from. $BLOCKSCOPE_FONT names a TrueType file or
// "builtin"; what is not a font file (a directory, a FIFO, an empty or a binary file) is refused with the
// reason, without blocking, and the default font is used; a file with a font's header but unreadable tables
// falls back to the built-in font instead of leaving the UI without one.
#include <gtest/gtest.h>
#include <imgui.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "imgui_frame.h"
#include "ui/presenter.h"

namespace {

namespace fs = std::filesystem;

std::string write_file(const std::string& name, const std::string& bytes) {
  const fs::path dir = fs::path(BS_TEST_OUT) / "presenter-font";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

std::string header_then_garbage() {
  std::string s("\0\1\0\0", 4);
  for (int i = 0; i < 4096; ++i)
    s += static_cast<char>((i * 131 + 7) & 0xff);
  return s;
}

TEST(PresenterFont, OnlyFontFilesAreTakenAndNothingBlocks) {
  const std::string dir = (fs::path(BS_TEST_OUT) / "presenter-font").string();
  fs::create_directories(dir);
  const std::string fifo = dir + "/fifo";
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string empty = write_file("empty.ttf", "");
  const std::string binary = write_file("binary.ttf", std::string(4096, '\x7f'));
  const std::string header = write_file("header.ttf", header_then_garbage());

  const auto t0 = std::chrono::steady_clock::now();
  std::string why;
  EXPECT_FALSE(bs::ui::looks_like_font_file(dir, &why));
  EXPECT_EQ(why, "not a regular file");
  EXPECT_FALSE(bs::ui::looks_like_font_file(fifo, &why));  // never opened: a FIFO would block the reader
  EXPECT_EQ(why, "not a regular file");
  EXPECT_FALSE(bs::ui::looks_like_font_file(dir + "/missing.ttf", &why));
  EXPECT_FALSE(bs::ui::looks_like_font_file(empty, &why));
  EXPECT_NE(why.find("size"), std::string::npos) << why;
  EXPECT_FALSE(bs::ui::looks_like_font_file(binary, &why));
  EXPECT_EQ(why, "not a TrueType or OpenType font");
  EXPECT_TRUE(bs::ui::looks_like_font_file(header, &why));  // the header only: Build() decides the rest
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));

  std::string note;
  const std::string fallback = bs::ui::ui_font_file(nullptr, &note);
  EXPECT_EQ(note, "");
  EXPECT_TRUE(fallback.empty() || bs::ui::looks_like_font_file(fallback, nullptr)) << fallback;
  EXPECT_EQ(bs::ui::ui_font_file("builtin", &note), "");
  EXPECT_EQ(note, "");
  EXPECT_EQ(bs::ui::ui_font_file(fifo.c_str(), &note), fallback);
  EXPECT_NE(note.find("BLOCKSCOPE_FONT=" + fifo + ": not a regular file"), std::string::npos) << note;
  EXPECT_EQ(bs::ui::ui_font_file(binary.c_str(), &note), fallback);
  EXPECT_NE(note.find("not a TrueType or OpenType font"), std::string::npos) << note;
  if (!fallback.empty()) {
    EXPECT_EQ(bs::ui::ui_font_file(fallback.c_str(), &note), fallback);  // a real font is taken
    EXPECT_EQ(note, "");
  }
  fs::remove(fifo);
}

class PresenterFontBuild : public bs::test::ImGuiFrameTest {};

// A font's header over tables stb_truetype cannot read: the atlas fails to build, and the presenter builds
// the built-in font instead; the UI has its text font and its big read-out font.
TEST_F(PresenterFontBuild, AFileThatFailsToBuildFallsBackToTheBuiltInFont) {
  const std::string header = write_file("header.ttf", header_then_garbage());
  setenv("BLOCKSCOPE_FONT", header.c_str(), 1);
  bs::ui::Presenter p;
  p.init(1.0f, 1.5f);
  unsetenv("BLOCKSCOPE_FONT");
  ImGuiIO& io = ImGui::GetIO();
  EXPECT_TRUE(io.Fonts->IsBuilt());
  EXPECT_EQ(io.Fonts->Fonts.Size, 2);
  EXPECT_TRUE(p.has_big_font());
  frame(ImVec2(0, 0), [] { ImGui::TextUnformatted("text in the built-in font"); });
}

}  // namespace
