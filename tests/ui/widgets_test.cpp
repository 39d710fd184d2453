// widgets_test.cpp: the commit-on-edit fields on a real ImGui context, driven with the mouse and keys as a user
// would (one event per frame, as at a low frame rate): typed digits never reach the value until Enter, Tab or a
// click elsewhere commits them, Escape leaves the value as it was, the step buttons apply at once. The
// message colours against both themes' backgrounds (WCAG AA for text, 4.5:1), and figures in the UI's theme.
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "imgui_frames.h"
#include "ui/figure.h"
#include "ui/figure_view.h"
#include "ui/presenter.h"
#include "ui/widgets.h"

namespace {

constexpr int k_enter = 1, k_tab = 2, k_escape = 3, k_backspace = 4, k_end = 5;

class CommitField : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyMap[ImGuiKey_Enter] = k_enter;
    io.KeyMap[ImGuiKey_Tab] = k_tab;
    io.KeyMap[ImGuiKey_Escape] = k_escape;
    io.KeyMap[ImGuiKey_Backspace] = k_backspace;
    io.KeyMap[ImGuiKey_End] = k_end;
    frame();
  }
  // One frame: a block field (1 int, no step buttons), a grid field (2 ints) and a size field with -/+ buttons.
  void frame() {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("fields", nullptr, ImGuiWindowFlags_NoDecoration);
    ImGui::SetNextItemWidth(200);
    commits[0] += bs::ui::input_ints_on_commit("block", &block, 1) ? 1 : 0;
    block_at = ImGui::GetItemRectMin();
    ImGui::SetNextItemWidth(300);
    commits[1] += bs::ui::input_ints_on_commit("grid", grid, 2) ? 1 : 0;
    grid_at = ImGui::GetItemRectMin();
    ImGui::SetNextItemWidth(300);
    commits[2] += bs::ui::input_ints_on_commit("size", &size, 1, 32, 128) ? 1 : 0;
    // The + button: the last square of the 300 px the field and its buttons take (click() adds 5 px).
    const float fh = ImGui::GetFrameHeight();
    plus_at = ImVec2(ImGui::GetItemRectMin().x + 300 - fh * 0.5f - 5, ImGui::GetItemRectMin().y + fh * 0.5f - 5);
    ImGui::End();
    ImGui::EndFrame();
  }
  void click(ImVec2 at) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(at.x + 5, at.y + 5);
    frame();
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
  }
  void key(int k) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[k] = true;
    frame();
    io.KeysDown[k] = false;
    frame();
  }
  void type(const char* s) {
    for (; *s; ++s) {
      ImGui::GetIO().AddInputCharacter(static_cast<unsigned>(*s));
      frame();
    }
  }
  // Clicks into the field and replaces its text with `s` (End, then backspaces clear the few digits there).
  void retype(ImVec2 at, const char* s) {
    click(at);
    key(k_end);
    for (int i = 0; i < 8; ++i)
      key(k_backspace);
    type(s);
  }

  int block = 32;
  int grid[2] = {4, 5};
  int size = 256;
  int commits[3] = {0, 0, 0};
  ImVec2 block_at, grid_at, plus_at;

 private:
  bs::test::HeadlessImGui m_imgui{ImVec2(800, 400), 1.0f / 10};  // a slow frame rate: one key per frame
};

TEST_F(CommitField, TypedDigitsWaitForEnter) {
  click(block_at);
  for (int i = 0; i < 8; ++i)
    key(k_backspace);
  EXPECT_EQ(block, 32) << "an empty box is not a value";
  for (const char* d : {"2", "0", "4", "8"}) {
    type(d);
    EXPECT_EQ(block, 32) << "a half-typed value is in force";
    EXPECT_EQ(commits[0], 0);
  }
  key(k_enter);
  EXPECT_EQ(block, 2048);
  EXPECT_EQ(commits[0], 1);
  frame();
  EXPECT_EQ(commits[0], 1) << "one commit per edit";
}

TEST_F(CommitField, TabAndAClickElsewhereCommitToo) {
  retype(block_at, "64");
  EXPECT_EQ(block, 32);
  key(k_tab);
  EXPECT_EQ(block, 64);
  EXPECT_EQ(commits[0], 1);
  click(ImVec2(700, 350));  // Tab went on to the grid's first box: leave it
  EXPECT_EQ(commits[1], 0) << "a field only visited is not an edit";
  // Both components of the grid, typed one after the other: Tab commits x and moves on to y.
  retype(grid_at, "7");
  EXPECT_EQ(grid[0], 4);
  key(k_tab);
  EXPECT_EQ(grid[0], 7);
  EXPECT_EQ(grid[1], 5);
  key(k_end);
  for (int i = 0; i < 8; ++i)
    key(k_backspace);
  type("9");
  EXPECT_EQ(grid[1], 5) << "half-typed";
  click(ImVec2(700, 350));  // empty space: the field loses focus
  EXPECT_EQ(grid[0], 7);
  EXPECT_EQ(grid[1], 9);
  EXPECT_EQ(commits[1], 2);
}

TEST_F(CommitField, EscapeKeepsTheValueAndStepButtonsApplyAtOnce) {
  retype(block_at, "999");
  key(k_escape);
  frame();
  EXPECT_EQ(block, 32);
  EXPECT_EQ(commits[0], 0);
  // Clicked again later: the box starts from the value in force, not from the abandoned text.
  click(block_at);
  key(k_enter);
  EXPECT_EQ(block, 32);
  click(plus_at);
  EXPECT_EQ(size, 256 + 32);
  EXPECT_EQ(commits[2], 1);
}

// The light theme on a projector: every message colour reads on the window background (and on the light
// clear colour the app paints behind windows), and so on the dark theme.
TEST(Tones, EveryMessageColourReadsOnBothThemes) {
  using bs::ui::Tone;
  for (bool light : {true, false}) {
    ImGuiStyle style;
    light ? ImGui::StyleColorsLight(&style) : ImGui::StyleColorsDark(&style);
    ImVec4 bg = style.Colors[ImGuiCol_WindowBg];
    bg.w = 1;
    for (Tone t : {Tone::Error, Tone::Warning, Tone::Pass, Tone::Highlight}) {
      const ImVec4 c = bs::ui::tone_colour(t, light);
      EXPECT_GE(bs::ui::contrast_ratio(c, bg), 4.5)
          << (light ? "light" : "dark") << " theme, tone " << static_cast<int>(t);
      EXPECT_GE(bs::ui::contrast_ratio(c, style.Colors[ImGuiCol_PopupBg]), 4.5)  // toasts, tooltips
          << (light ? "light" : "dark") << " theme, tone " << static_cast<int>(t);
    }
  }
  // The ratio itself: black on white is 21:1, a colour on itself 1:1, and the order does not matter.
  EXPECT_NEAR(bs::ui::contrast_ratio(ImVec4(0, 0, 0, 1), ImVec4(1, 1, 1, 1)), 21.0, 1e-9);
  EXPECT_NEAR(bs::ui::contrast_ratio(ImVec4(0.3f, 0.6f, 0.2f, 1), ImVec4(0.3f, 0.6f, 0.2f, 1)), 1.0, 1e-9);
  // The old light-theme amber (1, 0.8, 0.3) on ImGui's light background: what the trial could not read.
  EXPECT_LT(bs::ui::contrast_ratio(ImVec4(1, 0.8f, 0.3f, 1), ImVec4(0.94f, 0.94f, 0.94f, 1)), 2.0);
}

// Presenter read-outs never break a number across lines: the hint the trial saw as "p10-p90 4." / "5-63.4"
// wraps at spaces only, whatever the width.
TEST(ReadoutHints, WrapAtSpacesNeverSplitsANumber) {
  const auto measure = [](std::string_view t) { return 8.0f * static_cast<float>(t.size()); };
  const std::string hint = "CPU fallback, median; p10-p90 4.5-63.4; spread is wide: the numbers are noisy";
  for (float w = 40; w <= 800; w += 8) {
    const std::vector<std::string> lines = bs::ui::wrap_at_spaces(hint, w, measure);
    std::string joined;
    for (const std::string& l : lines) {
      EXPECT_TRUE(measure(l) <= w || l.find(' ') == std::string::npos) << w << ": " << l;
      joined += (joined.empty() ? "" : " ") + l;
    }
    EXPECT_EQ(joined, hint) << "at width " << w;
    const bool whole = std::any_of(lines.begin(), lines.end(),
                                   [](const std::string& l) { return l.find("4.5-63.4;") != std::string::npos; });
    EXPECT_TRUE(whole) << "the number was split at width " << w;
  }
  EXPECT_TRUE(bs::ui::wrap_at_spaces("", 100, measure).empty());
}

// A label drawn on a picture (the multi-GPU lab's slab captions) is shortened to the picture's width in the
// font in force: whole UTF-8 characters and "...", never wider than asked where "..." itself fits.
TEST_F(CommitField, FitTextShortensToTheWidthInTheCurrentFont) {
  ImGui::NewFrame();
  const std::string label =
      "slab 3 (one GPU's share), rows 1536-2047 \xc2\xb0"
      "C";
  const auto width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  EXPECT_EQ(bs::ui::fit_text(label, width(label)), label);
  EXPECT_EQ(bs::ui::fit_text(label, width(label) + 100), label);
  for (float w = width("..."); w < width(label); w += 3) {
    const std::string fit = bs::ui::fit_text(label, w);
    EXPECT_LE(width(fit), w) << fit;
    ASSERT_GE(fit.size(), 3u);
    EXPECT_EQ(fit.substr(fit.size() - 3), "...");
    EXPECT_EQ(label.compare(0, fit.size() - 3, fit, 0, fit.size() - 3), 0)
        << "not a head of the label: " << fit;
    // A head one character longer would not have fitted: the label is cut no shorter than it must be.
    const std::string head = fit.substr(0, fit.size() - 3);
    if (head.size() < label.size() - 4) {
      EXPECT_GT(width(label.substr(0, head.size() + 1) + "..."), w) << fit;
    }
  }
  // The degree sign (two bytes) is kept whole or dropped whole.
  for (float w = width(label) - 40; w < width(label); w += 1) {
    const std::string fit = bs::ui::fit_text(label, w);
    EXPECT_EQ(fit.find("\xc2..."), std::string::npos) << "half a character at width " << w;
  }
  EXPECT_EQ(bs::ui::fit_text(label, 1), "...");
  ImGui::EndFrame();
}

// A figure drawn in the UI follows View > Theme: on the light theme its background is the light figure theme's.
TEST_F(CommitField, FiguresFollowTheTheme) {
  bs::fig::Figure f;
  f.kind = bs::fig::Kind::Lines;
  f.title = "t";
  bs::fig::Series s;
  s.label = "a";
  s.x = {1, 2, 3};
  s.y = {1, 4, 9};
  f.series.push_back(s);
  const auto background_drawn = [&](bool light_ui) {
    light_ui ? ImGui::StyleColorsLight() : ImGui::StyleColorsDark();
    const uint32_t rgba = (light_ui ? bs::fig::light_theme() : bs::fig::dark_theme()).background;
    const ImU32 want = IM_COL32(rgba >> 24, (rgba >> 16) & 0xff, (rgba >> 8) & 0xff, rgba & 0xff);
    ImGui::NewFrame();
    ImGui::Begin("figure", nullptr, ImGuiWindowFlags_NoDecoration);
    bs::ui::draw_figure("f", ImVec2(300, 200), f);
    const ImDrawList* dl = ImGui::GetWindowDrawList();
    bool found = false;
    for (const ImDrawVert& v : dl->VtxBuffer)
      found |= v.col == want;
    ImGui::End();
    ImGui::EndFrame();
    return found;
  };
  EXPECT_TRUE(background_drawn(true)) << "light UI, dark figure";
  EXPECT_TRUE(background_drawn(false)) << "dark UI, light figure";
}

}  // namespace
