// layout_test.cpp: the layout's geometry, and an App on headless GL (CPU path): a window dragged with the
// mouse leaves its slot, follows a resize as a fraction and stays inside, comes back with Reset layout; a
// saved layout from another screen is clamped; presenter mode fits at 1280x720 for every lab; undo / redo of
// a lab's parameters; the theme saved in sessions; the key queue.
#include <gtest/gtest.h>
#include <imgui.h>
#include <stb_image.h>

#include <cfloat>
#include <chrono>
#include <iostream>
#include <cstdlib>
#include <filesystem>

#include "app/app.h"
#include "app/kernel/kernel_workbench.h"
#include "app/labs.h"
#include "app/layout.h"
#include "app/session.h"
#include "app/undo.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/matmul/matmul.h"
#include "ui/matmul/matmul_lab_panel.h"
#include "ui/gl/context.h"

namespace bs {
namespace {

using nlohmann::json;

AppOptions headless(int w, int h, const std::string& scene = "heat") {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = w;
  o.height = h;
  o.scene = scene;
  o.start_states["heat"] = {{"size", {128, 128}}};  // small grids keep the CPU path quick
  return o;
}

void frames(App& app, int n) {
  for (int i = 0; i < n; ++i)
    app.frame();
}

const json* window(const json& snap, const std::string& name) {
  for (const json& w : snap["windows"])
    if (w["name"] == name) return &w;
  return nullptr;
}

Rect rect(const json& w) {
  const json& r = w["rect"];
  return {r[0].get<float>(), r[1].get<float>(), r[2].get<float>(), r[3].get<float>()};
}

void expect_all_inside(const json& snap) {
  const Rect display{0, 0, snap["display"][0].get<float>(), snap["display"][1].get<float>()};
  for (const json& w : snap["windows"])
    EXPECT_TRUE(inside(rect(w), display))
        << w["name"] << " at " << w["rect"] << " outside " << snap["display"];
}

// --- Geometry ---------------------------------------------------------------------------------------------

TEST(LayoutGeometry, SlotsTileTheWorkAreaAtEverySize) {
  for (auto [w, h, font] : {std::tuple{1280.f, 720.f, 15.f}, std::tuple{1920.f, 1080.f, 15.f},
                            std::tuple{1280.f, 720.f, 26.f}, std::tuple{800.f, 600.f, 45.f}}) {
    LayoutMetrics m;
    m.work = {0, 30, w, h - 30};
    m.font = font;
    m.frame_h = font + 6;
    for (float readouts : {0.0f, 180.0f}) {
      m.readouts_h = readouts;
      const Rect v = slot_rect(Slot::View, m), p = slot_rect(Slot::Panel, m),
                 r = slot_rect(Slot::Readouts, m);
      EXPECT_FLOAT_EQ(v.x, 0);
      EXPECT_FLOAT_EQ(v.w + p.w, w);    // nothing left empty, nothing overlapping
      EXPECT_FLOAT_EQ(v.y + v.h, r.y);  // the readouts strip starts where the view ends
      EXPECT_FLOAT_EQ(r.y + r.h, h);    // ... and ends at the bottom
      EXPECT_FLOAT_EQ(r.h, readouts);
      EXPECT_GE(v.w, w * 0.45f - 0.5f);  // the view keeps almost half the width at any scale
      for (Slot s : {Slot::View, Slot::Panel, Slot::Device, Slot::Anatomy, Slot::Sweep, Slot::Readouts})
        EXPECT_TRUE(inside(slot_rect(s, m), m.work)) << static_cast<int>(s);
    }
  }
}

TEST(LayoutGeometry, ClampShrinksThenMovesInside) {
  const Rect area{0, 20, 1280, 700};
  const Rect far = clamp_into({3000, 1900, 900, 1200}, area);
  EXPECT_TRUE(inside(far, area));
  EXPECT_FLOAT_EQ(far.w, 900);
  EXPECT_FLOAT_EQ(far.h, 700);
  const Rect left = clamp_into({-50, -50, 100, 100}, area);
  EXPECT_FLOAT_EQ(left.x, 0);
  EXPECT_FLOAT_EQ(left.y, 20);
  const Rect f = to_fraction({640, 370, 320, 175}, area);
  const Rect big = from_fraction(f, {0, 0, 2560, 1400});
  EXPECT_FLOAT_EQ(big.x, 1280);
  EXPECT_FLOAT_EQ(big.w, 640);
}

// --- The layout in an App -------------------------------------------------------------------------------

// Drags window `name` by its title bar by (dx, dy), over a few frames, as a user would.
void drag_title(App& app, const std::string& name, float dx, float dy) {
  const json* w = window(app.layout_snapshot(), name);
  ASSERT_TRUE(w) << name;
  const Rect r = rect(*w);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(r.x + r.w * 0.5f, r.y + 5);
  frames(app, 1);
  io.MouseDown[0] = true;
  frames(app, 1);
  for (int i = 1; i <= 4; ++i) {
    io.MousePos = ImVec2(r.x + r.w * 0.5f + dx * i / 4, r.y + 5 + dy * i / 4);
    frames(app, 1);
  }
  io.MouseDown[0] = false;
  frames(app, 2);
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

TEST(LayoutApp, AMovedWindowFollowsResizesInsideAndResetPutsItBack) {
  App app(headless(1920, 1080));
  frames(app, 3);
  const Rect slot = rect(*window(app.layout_snapshot(), "Heat lab"));
  drag_title(app, "Heat lab", -400, 0);
  ASSERT_TRUE(app.layout().moved("Heat lab"));
  const Rect moved = rect(*window(app.layout_snapshot(), "Heat lab"));
  EXPECT_NEAR(moved.x, slot.x - 400, 3);
  EXPECT_NEAR(moved.y, slot.y, 3);
  // Dragged below the bottom edge: it stays fully inside (the panel is as tall as the work area).
  drag_title(app, "Heat lab", 0, 300);
  expect_all_inside(app.layout_snapshot());
  // A smaller window: the moved panel keeps its place as a fraction, and is clamped fully inside.
  app.env().gl->resize(1280, 720);
  frames(app, 3);
  const json snap = app.layout_snapshot();
  EXPECT_FLOAT_EQ(snap["display"][0].get<float>(), 1280);
  expect_all_inside(snap);
  EXPECT_TRUE(app.layout().moved("Heat lab"));
  // Windows still in their slot were refitted: the view starts at the left edge and the panel's slot is at
  // the right edge of the new size.
  const Rect view = rect(*window(snap, "Heat field"));
  EXPECT_NEAR(view.x, 0, 0.5);
  EXPECT_NEAR(view.w + app.layout().slot(Slot::Panel).w, 1280, 1);
  // Reset layout: back in the slot.
  app.reset_layout();
  frames(app, 2);
  EXPECT_FALSE(app.layout().moved("Heat lab"));
  const Rect back = rect(*window(app.layout_snapshot(), "Heat lab"));
  const Rect want = app.layout().slot(Slot::Panel);
  EXPECT_NEAR(back.x, want.x, 1);
  EXPECT_NEAR(back.y, want.y, 1);
  EXPECT_NEAR(back.w, want.w, 1);
  EXPECT_NEAR(back.h, want.h, 1);
}

TEST(LayoutApp, AWindowResizedByItsGripLeavesItsSlot) {
  App app(headless(1280, 720));
  frames(app, 3);
  const Rect slot = rect(*window(app.layout_snapshot(), "Heat field"));
  ImGuiIO& io = ImGui::GetIO();
  // The bottom-right resize grip.
  io.MousePos = ImVec2(slot.x + slot.w - 4, slot.y + slot.h - 4);
  frames(app, 1);
  io.MouseDown[0] = true;
  frames(app, 1);
  for (int i = 1; i <= 4; ++i) {
    io.MousePos = ImVec2(slot.x + slot.w - 4 - 50.0f * i, slot.y + slot.h - 4 - 40.0f * i);
    frames(app, 1);
  }
  io.MouseDown[0] = false;
  frames(app, 2);
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  EXPECT_TRUE(app.layout().moved("Heat field"));
  const Rect now = rect(*window(app.layout_snapshot(), "Heat field"));
  EXPECT_NEAR(now.w, slot.w - 200, 4);
  EXPECT_NEAR(now.h, slot.h - 160, 4);
  frames(app, 5);  // and it stays that size (not pulled back into the slot)
  EXPECT_NEAR(rect(*window(app.layout_snapshot(), "Heat field")).w, slot.w - 200, 4);
}

TEST(LayoutApp, ASavedLayoutIsClampedInside) {
  AppOptions o = headless(1280, 720);
  o.show_shortcuts = true;
  App app(o);
  // What an imgui.ini written on a 4K screen holds (headless runs read no file: it is loaded by hand).
  const char* ini =
      "[Window][Heat lab]\nPos=3000,1900\nSize=900,1200\nCollapsed=0\n\n"
      "[Window][Keyboard shortcuts (F1)]\nPos=3500,2000\nSize=600,400\n\n"
      "[Window][Device]\nPos=-400,5000\nSize=500,300\nCollapsed=0\n\n";
  ImGui::LoadIniSettingsFromMemory(ini);
  // ... and a layout.json from that screen: the user's place for the field, far to the bottom right.
  ASSERT_FALSE(app.layout().load(
      R"({"blockscope_layout": 1, "windows": {"Heat field": [0.95, 0.9, 0.8, 0.9]}})", "layout.json"));
  frames(app, 3);
  const json snap = app.layout_snapshot();
  ASSERT_TRUE(window(snap, "Keyboard shortcuts (F1)"));
  expect_all_inside(snap);
  EXPECT_TRUE(app.layout().moved("Heat field"));  // the user's own place, clamped, not dropped
  EXPECT_FALSE(app.layout().moved("Heat lab"));   // pixel positions of ImGui's own are not a user's place
}

// --- The layout file ---------------------------------------------------------------------------------------

TEST(LayoutFile, RoundTripsTheUsersPlaces) {
  Layout a;
  ASSERT_FALSE(a.load(R"({"blockscope_layout": 1, "windows": {"Heat lab": [0.1, 0.2, 0.3, 0.4]}})", "in"));
  EXPECT_TRUE(a.moved("Heat lab"));
  EXPECT_FALSE(a.moved("Heat field"));
  const json saved = a.to_json();
  Layout b;
  ASSERT_FALSE(b.load(saved.dump(), "saved"));
  EXPECT_TRUE(b.moved("Heat lab"));
  EXPECT_EQ(b.to_json(), saved);
  const json& r = saved["windows"]["Heat lab"];
  EXPECT_FLOAT_EQ(r[0].get<float>(), 0.1f);
  EXPECT_FLOAT_EQ(r[3].get<float>(), 0.4f);
}

TEST(LayoutFile, AHandEditedPlaceIsMadeSane) {
  Layout l;
  ASSERT_FALSE(l.load(R"({"blockscope_layout": 1, "windows": {"Heat lab": [-3, 0.5, 7.0, 0]}})", "in"));
  const json r = l.to_json()["windows"]["Heat lab"];
  EXPECT_FLOAT_EQ(r[0].get<float>(), 0.0f);
  EXPECT_FLOAT_EQ(r[2].get<float>(), 1.0f);
  EXPECT_FLOAT_EQ(r[3].get<float>(), 0.02f);
}

TEST(LayoutFile, ACorruptFileIsIgnoredWithAMessage) {
  Layout l;
  ASSERT_FALSE(l.load(R"({"blockscope_layout": 1, "windows": {"Heat lab": [0.1, 0.2, 0.3, 0.4]}})", "in"));
  for (const char* bad : {"{\"blockscope_layout\": 1, \"windows\": {\"Heat lab\": [0.1, 0.2",  // cut short
                          "[1, 2, 3]",          // not an object
                          "{\"windows\": {}}",  // no format tag
                          "{\"blockscope_layout\": 1, \"windows\": [1]}",
                          "{\"blockscope_layout\": 1, \"windows\": {\"Heat field\": [0.1, \"x\", 0.3, 0.4]}}",
                          "{\"blockscope_layout\": 1, \"windows\": {\"Heat field\": [0.1, 0.2]}}"}) {
    SCOPED_TRACE(bad);
    const auto err = l.load(bad, "/cfg/layout.json");
    ASSERT_TRUE(err);
    EXPECT_NE(err->find("/cfg/layout.json"), std::string::npos) << *err;
    // Nothing changed: the places loaded before are kept, none half-loaded.
    EXPECT_TRUE(l.moved("Heat lab"));
    EXPECT_FALSE(l.moved("Heat field"));
  }
}

// A window the user dragged stays where it was dropped, frame after frame (its place is not pulled back into
// the slot), and it is what the layout file saves.
TEST(LayoutApp, ADraggedWindowKeepsItsPlace) {
  App app(headless(1280, 720));
  frames(app, 3);
  const Rect slot = rect(*window(app.layout_snapshot(), "Heat field"));
  // To the right, over the panel (the field is as tall as the work area: it can only move sideways).
  drag_title(app, "Heat field", 150, 0);
  ASSERT_TRUE(app.layout().moved("Heat field"));
  const Rect dropped = rect(*window(app.layout_snapshot(), "Heat field"));
  EXPECT_NEAR(dropped.x, slot.x + 150, 3);
  EXPECT_NEAR(dropped.y, slot.y, 3);
  frames(app, 10);
  const Rect later = rect(*window(app.layout_snapshot(), "Heat field"));
  EXPECT_NEAR(later.x, dropped.x, 0.5);
  EXPECT_NEAR(later.y, dropped.y, 0.5);
  EXPECT_TRUE(app.layout().to_json()["windows"].contains("Heat field"));
  // The panel, not touched, stays in its slot.
  EXPECT_FALSE(app.layout().moved("Heat lab"));
}

// A window without a slot (the shortcut list; the Save / Load dialogs go the same way) dragged off the edge,
// then the display shrinks: it comes back fully inside each time.
TEST(LayoutApp, AFreeWindowIsKeptInside) {
  AppOptions o = headless(1920, 1080);
  o.show_shortcuts = true;
  App app(o);
  frames(app, 3);
  ASSERT_TRUE(window(app.layout_snapshot(), "Keyboard shortcuts (F1)"));
  drag_title(app, "Keyboard shortcuts (F1)", 900, 500);
  frames(app, 2);
  expect_all_inside(app.layout_snapshot());
  const Rect dropped = rect(*window(app.layout_snapshot(), "Keyboard shortcuts (F1)"));
  EXPECT_NEAR(dropped.x + dropped.w, 1920, 1);  // against the corner, not thrown back to the centre
  app.env().gl->resize(1280, 720);
  frames(app, 3);
  const json snap = app.layout_snapshot();
  EXPECT_FLOAT_EQ(snap["display"][0].get<float>(), 1280);
  ASSERT_TRUE(window(snap, "Keyboard shortcuts (F1)"));
  expect_all_inside(snap);
}

// Shift+F12 (here the test hook for it) saves exactly the lab's view window, wherever the user put it.
TEST(LayoutApp, ViewCaptureIsJustTheViewWindow) {
  namespace fs = std::filesystem;
  const fs::path home = fs::path(BS_TEST_OUT) / "capture-home";
  fs::remove_all(home);
  fs::create_directories(home);
  const char* old_home = std::getenv("HOME");
  const std::string saved_home = old_home ? old_home : "";
  setenv("HOME", home.c_str(), 1);
  AppOptions o = headless(1280, 720);
  o.frames = 12;
  o.debug_capture = "view";
  Rect view;
  {
    App app(o);
    frames(app, 3);
    drag_title(app, "Heat field", 100, 0);  // 8 frames: the capture is taken in the 12th
    ASSERT_TRUE(app.layout().moved("Heat field"));
    while (app.frame()) {
    }
    view = rect(*window(app.layout_snapshot(), "Heat field"));
  }
  if (old_home) setenv("HOME", saved_home.c_str(), 1);
  int n = 0;
  for (const auto& e : fs::directory_iterator(home / "blockscope-captures")) {
    ++n;
    EXPECT_NE(e.path().filename().string().find("-view"), std::string::npos) << e.path();
    int w = 0, h = 0, comp = 0;
    ASSERT_TRUE(stbi_info(e.path().c_str(), &w, &h, &comp)) << e.path();
    EXPECT_NEAR(w, view.w, 1) << "the capture is not the view window";
    EXPECT_NEAR(h, view.h, 1);
  }
  EXPECT_EQ(n, 1);
}

bool overlap(const Rect& a, const Rect& b) {
  return a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1;
}

// No window covers another (the old path overlay sat on the vector view's controls; the readouts covered the
// field and the Run buttons).
void expect_no_overlap(const json& snap) {
  const json& ws = snap["windows"];
  for (size_t i = 0; i < ws.size(); ++i)
    for (size_t j = i + 1; j < ws.size(); ++j)
      EXPECT_FALSE(overlap(rect(ws[i]), rect(ws[j])))
          << ws[i]["name"] << " and " << ws[j]["name"] << " overlap";
}

TEST(LayoutApp, PresenterModeFitsAt720pForEveryLab) {
  for (const LabEntry& e : lab_entries()) {
    if (!e.make) continue;  // a lab without a window (it only benches or sweeps) has no layout
    SCOPED_TRACE(e.id);
    App app(headless(1280, 720, e.id));
    frames(app, 3);
    expect_all_inside(app.layout_snapshot());
    expect_no_overlap(app.layout_snapshot());
    EXPECT_EQ(app.menu_overflow(), 0.0f);
    app.set_presenter_mode(true);
    frames(app, 4);
    const json snap = app.layout_snapshot();
    expect_all_inside(snap);
    expect_no_overlap(snap);
    EXPECT_EQ(app.menu_overflow(), 0.0f);
    const json* readouts = window(snap, "###readouts");
    ASSERT_TRUE(readouts);
    const Rect r = rect(*readouts);
    EXPECT_NEAR(r.y + r.h, 720, 0.5);
    EXPECT_LE(r.h, 0.3f * 720);  // the numbers shrink rather than take the screen
  }
}

// No text clipped and nothing to scroll sideways: at each lecture resolution, normal and presenter mode, in
// every lab's windows (their child windows included) and in the kernel editor's two tabs, nothing is wider
// than the window that holds it (text wraps, rows of widgets reflow). Only a window that scrolls sideways by
// design (the code editor's and the PTX pane's long lines) may be wider.
void expect_nothing_clipped(const json& snap, const std::string& where) {
  for (const json& o : snap["overflow"])
    EXPECT_TRUE(o["scrolls"].get<bool>())
        << where << ": " << o["window"] << " is " << o["px"] << " px wider than its window";
}

void expect_every_lab_fits_at_lecture_sizes() {
  for (const LabEntry& e : lab_entries()) {
    if (!e.make) continue;
    const std::string id = e.id;
    App app(headless(1280, 720, id));
    if (id == "heat") {
      // The editor beside one lab (it is the same for all), with a simulation done: the Simulator tab then
      // shows its legend and maps (the legend ran off the edge at 1280x720).
      KernelWorkbench& wb = app.kernel_workbench();
      wb.open() = true;
      if (kernel::nvrtc().ok()) {
        const uint64_t t = wb.compile_now(0.0);
        ASSERT_NE(t, 0u);
        ASSERT_EQ(wb.service().wait(t, std::chrono::seconds(120)).state, kernel::CompileState::Done);
        frames(app, 2);
        ASSERT_TRUE(wb.simulate_now()) << wb.simulator().model(wb.target()).status;
        wb.simulator().wait();
        frames(app, 2);
        ASSERT_TRUE(wb.dump()["simulator"].contains("maps")) << wb.dump()["simulator"];
      } else {
        std::cout << "NVRTC is not installed (" << kernel::nvrtc().error
                  << "): the Simulator tab is checked without a simulation\n";
      }
    }  // the editor beside one lab (it is the same for all)
    for (bool presenter : {false, true}) {
      app.set_presenter_mode(presenter);
      for (auto [w, h] : {std::pair{1280, 720}, std::pair{1600, 900}, std::pair{1920, 1080}}) {
        app.env().gl->resize(w, h);
        const std::string where = id + " at " + std::to_string(w) + "x" + std::to_string(h) +
                                  (presenter ? ", presenter" : "");
        frames(app, 4);  // contents measured in one frame are laid out in the next
        expect_nothing_clipped(app.layout_snapshot(), where);
        if (id == "heat") {
          KernelWorkbench& wb = app.kernel_workbench();
          wb.show_tab(1);  // the Simulator tab, each of its views
          for (int view = 0; view < 5; ++view) {
            wb.simulator().model(wb.target()).view_tab = view;
            frames(app, 4);
            expect_nothing_clipped(app.layout_snapshot(), where + ", Simulator tab, view " + std::to_string(view));
          }
          wb.show_tab(0);
          frames(app, 1);
        }
      }
    }
  }
}

TEST(LayoutApp, NoTextIsClippedAtLectureSizes) {
  expect_every_lab_fits_at_lecture_sizes();
}

// The same with ImGui's built-in font, which a machine without DejaVu gets (the GPU machine has none): it is
// wider, and fixed reserves sized for DejaVu cut rows off (the matmul variant row, the anatomy row, the
// multi-GPU fields, the menu bar at 800 px) until they were measured.
TEST(LayoutApp, NoTextIsClippedWithTheBuiltInFont) {
  struct FontEnv {
    FontEnv() { setenv("BLOCKSCOPE_FONT", "builtin", 1); }
    ~FontEnv() { unsetenv("BLOCKSCOPE_FONT"); }
  } builtin;
  expect_every_lab_fits_at_lecture_sizes();
  App app(headless(800, 600, "heat"));
  app.set_presenter_mode(true);
  frames(app, 3);
  EXPECT_EQ(app.menu_overflow(), 0.0f);
  expect_all_inside(app.layout_snapshot());
}

// The check above sees what is cut off: in a window of the layout, a long line of words wraps at the window's
// edge and is not reported; a row of buttons too wide for the window is (its last buttons would be cut off).
TEST(LayoutOverflow, WhatDoesNotWrapIsReported) {
  ImGuiContext* ctx = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1280, 720);
  unsigned char* px = nullptr;
  int tw = 0, th = 0;
  io.Fonts->GetTexDataAsRGBA32(&px, &tw, &th);
  Layout layout;
  io.UserData = &layout;
  std::string words;
  for (int i = 0; i < 60; ++i)
    words += "word" + std::to_string(i) + " ";
  json snap;
  for (int f = 0; f < 3; ++f) {
    ImGui::NewFrame();
    layout.begin_frame(0);
    if (begin_window("Wrapped", Slot::Panel)) ImGui::TextUnformatted(words.c_str());
    ImGui::End();
    if (begin_window("Cut", Slot::View)) {
      ImGui::TextUnformatted(words.c_str());
      for (int i = 0; i < 40; ++i) {
        if (i > 0) ImGui::SameLine();
        ImGui::Button(std::to_string(1000 + i).c_str());
      }
    }
    ImGui::End();
    snap = layout.snapshot();
    ImGui::Render();
  }
  io.UserData = nullptr;
  ImGui::DestroyContext(ctx);
  ASSERT_EQ(snap["overflow"].size(), 1u) << snap["overflow"];
  EXPECT_EQ(snap["overflow"][0]["window"], "Cut");
  EXPECT_GT(snap["overflow"][0]["px"].get<float>(), 100.0f);
  EXPECT_FALSE(snap["overflow"][0]["scrolls"].get<bool>());
}

TEST(LayoutApp, TheMenuBarShortensToFit) {
  App app(headless(800, 600, "heat"));
  app.set_presenter_mode(true);  // 1.75x text in 800 pixels: the full bar cannot fit
  frames(app, 3);
  EXPECT_EQ(app.menu_overflow(), 0.0f);
  expect_all_inside(app.layout_snapshot());
}

TEST(LayoutApp, AUiScaleChangeRefits) {
  App app(headless(1280, 720));
  frames(app, 2);
  const float panel_w = app.layout().slot(Slot::Panel).w;
  Session s = app.current_session();
  s.ui.scale = 2.5f;
  ASSERT_FALSE(app.apply_session(s));
  frames(app, 3);
  const json snap = app.layout_snapshot();
  expect_all_inside(snap);
  expect_no_overlap(snap);
  const Rect view = rect(*window(snap, "Heat field")), panel = rect(*window(snap, "Heat lab"));
  EXPECT_GT(panel.w, panel_w);  // larger text, wider panel
  EXPECT_NEAR(view.w + panel.w, 1280, 1);
  EXPECT_NEAR(panel.x + panel.w, 1280, 1);
}

TEST(LayoutApp, ToastsDrawAboveEveryWindow) {
  App app(headless(1280, 720));
  frames(app, 2);
  const auto foreground_vertices = [] {
    const ImDrawData* d = ImGui::GetDrawData();
    // The foreground draw list is rendered last, above every window.
    return d && d->CmdListsCount > 0 ? d->CmdLists[d->CmdListsCount - 1]->VtxBuffer.Size : -1;
  };
  const int before = foreground_vertices();  // the lab may draw there too (the heat field's brush)
  ASSERT_GE(before, 0);
  app.request_undo();  // nothing to undo: a toast says so
  frames(app, 2);
  // "nothing to undo": 15 glyphs of 4 vertices, and its box.
  EXPECT_GT(foreground_vertices(), before + 60);
  for (const json& w : app.layout_snapshot()["windows"])
    EXPECT_EQ(w["name"].get<std::string>().find("toast"), std::string::npos);
}

// --- The matmul diagram's labels -------------------------------------------------------------------------

TEST(MatmulDiagram, LabelsNeverCollideAtAnySizeOrScale) {
  ImGuiContext* ctx = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini left in the working directory
  io.DisplaySize = ImVec2(1920, 1080);
  unsigned char* px = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  // The default font at presenter-like sizes: 13 px, x1.75 and x2.5.
  for (float scale : {1.0f, 1.75f, 2.5f}) {
    io.FontGlobalScale = scale;
    ImGui::NewFrame();
    const float fs = ImGui::GetFontSize();
    // The diagram's width at 720p in presenter mode (~230 px) up to 1080p (~420 px).
    for (ImVec2 size : {ImVec2(230, 260), ImVec2(320, 300), ImVec2(420, 400)})
      for (matmul::Problem p : {matmul::Problem{200, 155, 67}, matmul::Problem{1000, 777, 333},
                                matmul::Problem{64, 4096, 64}, matmul::Problem{33, 17, 5}}) {
        SCOPED_TRACE(testing::Message()
                     << "scale " << scale << ", " << size.x << " px, " << p.m << "x" << p.n << "x" << p.k);
        const ui::AbBoxes b = ui::ab_diagram_boxes(p, ImVec2(0, 0), size, fs);
        Rect label[3], box[3];
        for (int i = 0; i < 3; ++i) {
          const ImVec2 t = ImGui::CalcTextSize(b.label[i]);
          label[i] = {b.label_at[i].x, b.label_at[i].y, t.x, t.y};
          box[i] = {b.lo[i].x, b.lo[i].y, b.hi[i].x - b.lo[i].x, b.hi[i].y - b.lo[i].y};
        }
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            if (j > i) {
              EXPECT_FALSE(overlap(label[i], label[j])) << b.label[i] << " / " << b.label[j];
            }
            EXPECT_FALSE(overlap(label[i], box[j])) << b.label[i] << " on box " << j;
          }
        // C has the width to the region's right edge: its full name where that is wide enough.
        if (size.x >= 320 && scale <= 1.75f) {
          EXPECT_STREQ(b.label[2], "C (M x N)");
        }
      }
    ImGui::EndFrame();
  }
  ImGui::DestroyContext(ctx);
}

// --- Undo --------------------------------------------------------------------------------------------------

TEST(UndoHistory, StepsAreTakenWhenAChangeSettles) {
  UndoHistory h;
  const json a = {{"n", 1}}, b = {{"n", 2}}, c = {{"n", 3}};
  h.observe(a, 0.0, false);
  h.observe(b, 1.0, true);  // a slider held: no step while editing
  h.observe(b, 5.0, true);
  EXPECT_EQ(h.undo_steps(), 0u);
  h.observe(c, 5.1, false);  // released at 3: settles 0.5 s later
  h.observe(c, 5.3, false);
  EXPECT_EQ(h.undo_steps(), 0u);
  h.observe(c, 5.7, false);
  EXPECT_EQ(h.undo_steps(), 1u);
  EXPECT_EQ(h.undo(c), a);  // one step for the whole drag
  EXPECT_FALSE(h.undo(a));
  EXPECT_EQ(h.redo(a), c);
  EXPECT_FALSE(h.redo(c));
}

TEST(UndoHistory, UnsettledChangesUndoAndNewEditsDropRedo) {
  UndoHistory h;
  const json a = {{"n", 1}}, b = {{"n", 2}}, c = {{"n", 3}};
  h.observe(a, 0.0, false);
  h.observe(b, 0.1, false);
  EXPECT_TRUE(h.can_undo(b));
  EXPECT_EQ(h.undo(b), a);  // Ctrl+Z right after a click
  h.rebase(a);
  EXPECT_TRUE(h.can_redo(a));
  h.observe(c, 1.0, false);
  h.observe(c, 2.0, false);  // a new edit: the undone one cannot come back
  EXPECT_FALSE(h.can_redo(c));
  EXPECT_FALSE(h.redo(c));
}

TEST(UndoHistory, Bounded) {
  UndoHistory h(5);
  double t = 0;
  for (int i = 0; i < 20; ++i) {
    h.observe({{"n", i}}, t, false);
    t += 1;
    h.observe({{"n", i}}, t, false);
  }
  EXPECT_EQ(h.undo_steps(), 5u);
}

TEST(UndoApp, CtrlZRestoresTheLabsParameters) {
  App app(headless(800, 600));
  frames(app, 2);
  const json before = app.active_lab()->save_state();
  ASSERT_FALSE(app.can_undo());
  frames(app, 40);  // a running simulation alone is no parameter change
  ASSERT_FALSE(app.can_undo()) << "something changes the saved state without the user";
  ASSERT_FALSE(app.active_lab()->load_state({{"steps_per_frame", 7}, {"colormap", "viridis"}}));
  frames(app, 40);  // more than 0.5 s of frames (headless frames are 1/60 s)
  const json edited = app.active_lab()->save_state();
  ASSERT_NE(edited, before);
  ASSERT_TRUE(app.can_undo());
  app.request_undo();
  frames(app, 1);
  EXPECT_EQ(app.active_lab()->save_state(), before);
  EXPECT_TRUE(app.can_redo());
  app.request_redo();
  frames(app, 1);
  EXPECT_EQ(app.active_lab()->save_state(), edited);
}

// --- Theme -------------------------------------------------------------------------------------------------

TEST(Theme, SavedInTheSessionAndRestored) {
  json j;
  {
    App app(headless(800, 600));
    frames(app, 1);
    EXPECT_EQ(app.current_session().ui.theme, "dark");
    app.set_theme(ui::Theme::Light);
    frames(app, 1);
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    EXPECT_GT(bg.x + bg.y + bg.z, 2.0f);  // the light style is in force
    const Session s = app.current_session();
    EXPECT_EQ(s.ui.theme, "light");
    j = to_json(s);
    EXPECT_EQ(j["ui"]["theme"], "light");
  }
  const SessionResult back = parse_session(j.dump(), "test");
  ASSERT_TRUE(back.session) << back.error;
  EXPECT_EQ(back.session->ui.theme, "light");
  {
    // One App (one ImGui context) at a time.
    App other(headless(800, 600));
    ASSERT_FALSE(other.apply_session(*back.session));
    EXPECT_EQ(other.theme(), ui::Theme::Light);
    // A session without a theme (older files, presets) keeps the one in force.
    Session plain = *back.session;
    plain.ui.theme.clear();
    ASSERT_FALSE(other.apply_session(plain));
    EXPECT_EQ(other.theme(), ui::Theme::Light);
    frames(other, 1);
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    EXPECT_GT(bg.x + bg.y + bg.z, 2.0f);
  }
  // A bad theme names the field.
  json bad = j;
  bad["ui"]["theme"] = "sepia";
  const SessionResult r = parse_session(bad.dump(), "test");
  EXPECT_FALSE(r.session);
  EXPECT_NE(r.error.find("ui.theme"), std::string::npos) << r.error;
}

// --- Key queue ---------------------------------------------------------------------------------------------

TEST(KeyQueue, KeepsPressesInOrderUntilTakenAndDropsTheOldestWhenFull) {
  gl::KeyQueue q;
  q.push({80, 0});
  q.push({290, 1});
  const auto keys = q.take();
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].key, 80);
  EXPECT_EQ(keys[1].key, 290);
  EXPECT_EQ(keys[1].mods, 1);
  EXPECT_TRUE(q.take().empty());
  for (int i = 0; i < static_cast<int>(gl::KeyQueue::k_capacity) + 10; ++i)
    q.push({i, 0});
  const auto full = q.take();
  ASSERT_EQ(full.size(), gl::KeyQueue::k_capacity);
  EXPECT_EQ(full.front().key, 10);
}

}  // namespace
}  // namespace bs
