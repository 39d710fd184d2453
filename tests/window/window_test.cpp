// window_test.cpp: the real binary in a real GLFW window under Xvfb, driven with xdotool as a lecturer would:
// the window resized to 1280x720 and 1920x1080, presenter mode toggled with P (a tap shorter than a frame:
// the app runs with slow frames), F11 and back. After each step the app's layout dump
// (BLOCKSCOPE_LAYOUT_DUMP: every visible ImGui window's rectangle and the display size) must show every
// window fully inside the main window, the lab's view and panel filling its width, the readouts covering
// neither, and a menu bar that fits. A screenshot of each step is kept in test-out/window/ to look at.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "run_util.h"

namespace bs {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

fs::path out_dir(const std::string& name) {
  const fs::path d = fs::path(BS_TEST_OUT) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The shell functions every script uses: start the app with a layout dump, wait for the dump to show
// something (then four more frames, so the layout settled), save a step (its dump and a screenshot).
constexpr const char* k_prologue = R"SH(
set -u
out="$1"; bin="$2"; shift 2
export XDG_CONFIG_HOME="$out/cfg" HOME="$out/home"
mkdir -p "$XDG_CONFIG_HOME/blockscope" "$HOME"
dump="$out/layout.json"
[ -f "$out/seed.ini" ] && cp "$out/seed.ini" "$XDG_CONFIG_HOME/blockscope/imgui.ini"
[ -f "$out/seed_layout.json" ] && cp "$out/seed_layout.json" "$XDG_CONFIG_HOME/blockscope/layout.json"
rm -f "$dump"
BLOCKSCOPE_LAYOUT_DUMP="$dump" BLOCKSCOPE_DEBUG_FRAME_MS=$frame_ms "$bin" "$@" > "$out/app.log" 2>&1 &
app=$!
frame() { sed -n 's/.*"frame":\([0-9]*\).*/\1/p' "$dump" 2>/dev/null; }
wait_for() {
  i=0
  until grep -q -- "$1" "$dump" 2>/dev/null; do
    i=$((i+1)); [ $i -gt 900 ] && { echo "timed out waiting for $1"; kill $app; exit 3; }; sleep 0.1
  done
  f0=$(frame); i=0
  while [ "$(frame)" -lt $((f0+4)) ]; do
    i=$((i+1)); [ $i -gt 900 ] && { echo "timed out waiting for frames"; kill $app; exit 4; }; sleep 0.1
  done
}
step() { cp "$dump" "$out/$1.json"; import -window root "$out/$1.png" 2>/dev/null; echo "step $1"; }
wait_for '"frame":'
win=$(xdotool search --sync --name '^blockscope$' | head -1)
# Keys go to the window under the pointer (Xvfb has no window manager): the pointer rests on the lab's view.
xdotool mousemove 200 300
)SH";

constexpr const char* k_epilogue = R"SH(
kill $app; wait $app
echo done
)SH";

// Frames are slowed to 200 ms unless frame_ms says otherwise: key taps then fall between two frames.
std::string run_script(const fs::path& dir, const std::string& steps, const std::string& args,
                       int frame_ms = 200) {
  const fs::path script = dir / "drive.sh";
  std::ofstream(script) << "frame_ms=" << frame_ms << "\n" << k_prologue << steps << k_epilogue;
  const std::string cmd = "xvfb-run -a -s '-screen 0 1920x1080x24' sh " + script.string() + " " +
                          dir.string() + " " + test::blockscope_binary() + " " + args + " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
      out.append(buf, n);
    pclose(p);
  }
  std::ifstream log(dir / "app.log");
  out += "\n--- app.log ---\n" + std::string(std::istreambuf_iterator<char>(log), {});
  return out;
}

json read_json(const fs::path& p) {
  std::ifstream f(p);
  return json::parse(f);
}

struct R {
  float x, y, w, h;
};
R rect_of(const json& w) {
  const json& r = w["rect"];
  return {r[0].get<float>(), r[1].get<float>(), r[2].get<float>(), r[3].get<float>()};
}
const json* window(const json& dump, const std::string& name) {
  for (const json& w : dump["windows"])
    if (w["name"] == name) return &w;
  return nullptr;
}
bool overlap(const R& a, const R& b) {
  return a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1;
}

// Every window inside the display; the menu bar fits; the view and panel fill the width; readouts (when
// shown) cover neither.
void check_step(const fs::path& dir, const std::string& step, float dw, float dh, bool presenter) {
  SCOPED_TRACE(step);
  const json d = read_json(dir / (step + ".json"));
  ASSERT_EQ(d["display"][0].get<float>(), dw);
  ASSERT_EQ(d["display"][1].get<float>(), dh);
  EXPECT_EQ(d["presenter"].get<bool>(), presenter);
  EXPECT_EQ(d["menu_overflow"].get<float>(), 0.0f) << "menu bar items cut at level " << d["menu_level"];
  for (const json& w : d["windows"]) {
    const R r = rect_of(w);
    EXPECT_TRUE(r.x >= -0.5f && r.y >= -0.5f && r.x + r.w <= dw + 0.5f && r.y + r.h <= dh + 0.5f)
        << w["name"] << " at " << w["rect"] << " is not inside " << dw << "x" << dh;
  }
  const json* view = window(d, "Heat field");
  const json* panel = window(d, "Heat lab");
  ASSERT_TRUE(view && panel) << d.dump();
  const R v = rect_of(*view), p = rect_of(*panel);
  EXPECT_NEAR(v.x, 0, 1);
  EXPECT_NEAR(p.x + p.w, dw, 1) << "the panel does not reach the right edge: not refitted";
  EXPECT_NEAR(v.w + p.w, dw, 2) << "view and panel leave part of the window empty";
  EXPECT_GT(v.h, dh * 0.4f) << "the view is squeezed";
  const json* readouts = window(d, "###readouts");
  EXPECT_EQ(readouts != nullptr, presenter);
  if (readouts) {
    const R r = rect_of(*readouts);
    EXPECT_FALSE(overlap(r, v)) << "readouts cover the view";
    EXPECT_FALSE(overlap(r, p)) << "readouts cover the panel";
    EXPECT_NEAR(r.y + r.h, dh, 1) << "readouts are not at the bottom";
  }
}

TEST(Window, ResizePresenterAndFullScreenKeepEveryWindowInside) {
  if (!have("xvfb-run") || !have("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const fs::path dir = out_dir("resize");
  const std::string steps = R"SH(
wait_for '"display":\[1600.0,900.0\]'; step s0_1600
xdotool windowsize $win 1280 720; wait_for '"display":\[1280.0,720.0\]'; step s1_1280
xdotool key p; wait_for '"presenter":true'; step s2_1280_presenter
xdotool windowsize $win 1920 1080; wait_for '"display":\[1920.0,1080.0\]'; step s3_1920_presenter
xdotool key p; wait_for '"presenter":false'; step s4_1920
xdotool windowsize $win 1280 720; wait_for '"display":\[1280.0,720.0\]'; step s5_1280
xdotool key F11; wait_for '"fullscreen":true'; step s6_fullscreen
xdotool key F11; wait_for '"fullscreen":false'; step s7_windowed
)SH";
  const auto r = run_script(dir, steps, "--scene heat --width 1600 --height 900");
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  check_step(dir, "s0_1600", 1600, 900, false);
  check_step(dir, "s1_1280", 1280, 720, false);
  check_step(dir, "s2_1280_presenter", 1280, 720, true);
  check_step(dir, "s3_1920_presenter", 1920, 1080, true);
  check_step(dir, "s4_1920", 1920, 1080, false);
  check_step(dir, "s5_1280", 1280, 720, false);
  check_step(dir, "s6_fullscreen", 1920, 1080, false);
  check_step(dir, "s7_windowed", 1280, 720, false);
}

TEST(Window, QuickKeyTapsBetweenSlowFramesAreNotLost) {
  if (!have("xvfb-run") || !have("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const fs::path dir = out_dir("keys");
  // Frames take 200 ms here; xdotool presses and releases within a millisecond or two. F1 opens the shortcut
  // list, P presenter mode: both must register (ImGui 1.86's per-frame key polling alone loses them). O (the
  // anatomy overlay) is polled by the lab through ImGui: the deferred release makes ImGui see it too.
  const std::string steps = R"SH(
xdotool key F1; wait_for '"shortcuts":true'; step k1
xdotool key F1 p; wait_for '"presenter":true'; step k2
xdotool key o; wait_for '"anatomy_overlay":"[^o]'; step k3
)SH";
  const auto r = run_script(dir, steps, "--scene heat --width 1280 --height 720");
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  const json k2 = read_json(dir / "k2.json");
  EXPECT_FALSE(k2["shortcuts"].get<bool>());
  EXPECT_TRUE(k2["presenter"].get<bool>());
  const json k3 = read_json(dir / "k3.json");
  EXPECT_NE(k3["lab_state"]["anatomy_overlay"], "off");
}

TEST(Window, ASavedLayoutFromABiggerScreenComesBackInside) {
  if (!have("xvfb-run") || !have("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const fs::path dir = out_dir("saved");
  // An imgui.ini written on a 4K screen: pixel positions far outside a 1280x720 window, and the layout's own
  // file with the panel (moved by the user) as fractions, one of them out of range (hand-edited).
  std::ofstream(dir / "seed.ini") << "[Window][Heat lab]\nPos=3000,1900\nSize=900,1200\nCollapsed=0\n\n"
                                     "[Window][Heat field]\nPos=2600,40\nSize=2400,2000\nCollapsed=0\n\n"
                                     "[Window][Keyboard shortcuts (F1)]\nPos=3500,2000\nSize=600,400\n\n";
  std::ofstream(dir / "seed_layout.json")
      << R"({"blockscope_layout": 1, "windows": {"Heat lab": [0.9, 0.8, 0.6, 7.0]}})";
  const std::string steps = R"SH(
wait_for '"display":\[1280.0,720.0\]'; step r1
)SH";
  const auto r = run_script(dir, steps, "--scene heat --width 1280 --height 720 --show-shortcuts");
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  const json d = read_json(dir / "r1.json");
  ASSERT_TRUE(window(d, "Keyboard shortcuts (F1)")) << d.dump();
  for (const json& w : d["windows"]) {
    const R rr = rect_of(w);
    EXPECT_TRUE(rr.x >= 0 && rr.y >= 0 && rr.x + rr.w <= 1280.5f && rr.y + rr.h <= 720.5f)
        << w["name"] << " at " << w["rect"];
  }
  const json* panel = window(d, "Heat lab");
  ASSERT_TRUE(panel);
  EXPECT_TRUE((*panel)["moved"].get<bool>());  // the user's place is kept (clamped), not thrown away
}

TEST(Window, SaveAsksBeforeReplacingAFile) {
  if (!have("xvfb-run") || !have("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const fs::path dir = out_dir("save");
  // Ctrl+S, a path typed in, Enter: saved. Again to the same (now changed) file: the first Enter only asks,
  // the second replaces it. Text fields poll keys once a frame, so keys are held for a while.
  const std::string steps = R"SH(
press() { xdotool keydown "$1"; sleep 0.4; xdotool keyup "$1"; sleep 0.3; }
save_to() {
  xdotool key ctrl+s; wait_for '"name":"Save session"'
  press ctrl+a; xdotool type --delay 40 "$1"; sleep 0.5; press Return
}
file="$out/mine.json"
save_to "$file"
i=0; until [ -s "$file" ]; do i=$((i+1)); [ $i -gt 100 ] && { echo "not saved"; break; }; sleep 0.1; done
wait_for '"popup":false'
echo old > "$file"
save_to "$file"
wait_for '"overwrite_asked":true'; sleep 1
cp "$file" "$out/after_first_enter.txt"; step asked
press Return
i=0; while grep -q '^old$' "$file"; do i=$((i+1)); [ $i -gt 100 ] && { echo "not replaced"; break; }; sleep 0.1; done
wait_for '"popup":false'
)SH";
  const auto r = run_script(dir, steps, "--scene heat --width 1280 --height 720", 0);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  EXPECT_EQ(r.find("not saved"), std::string::npos) << r;
  EXPECT_EQ(r.find("not replaced"), std::string::npos) << r;
  std::ifstream first(dir / "after_first_enter.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(first), {}), "old\n") << "replaced without asking";
  const json saved = read_json(dir / "mine.json");
  EXPECT_EQ(saved["blockscope_session"], 2);  // k_session_version
  const json asked = read_json(dir / "asked.json");
  EXPECT_TRUE(asked["overwrite_asked"].get<bool>());
}

TEST(Window, ALayoutIsSavedOnQuitAndNeverWrittenThroughALink) {
  if (!have("xvfb-run") || !have("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const fs::path dir = out_dir("ini");
  // imgui.ini is a link to another file: saving the layout replaces the link, the other file stays as it was.
  fs::create_directories(dir / "cfg" / "blockscope");
  std::ofstream(dir / "other.ini") << "not a layout\n";
  fs::create_symlink(dir / "other.ini", dir / "cfg" / "blockscope" / "imgui.ini");
  // The script ends the app with SIGTERM (kill), which closes it as its close button would: the layout is
  // saved on the way out.
  const std::string steps = R"SH(
wait_for '"frame":'; step s1
)SH";
  const auto r = run_script(dir, steps, "--scene heat --width 1280 --height 720", 16);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  const fs::path ini = dir / "cfg" / "blockscope" / "imgui.ini";
  EXPECT_FALSE(fs::is_symlink(ini));
  std::ifstream f(ini);
  const std::string text((std::istreambuf_iterator<char>(f)), {});
  EXPECT_NE(text.find("[Window][Heat lab]"), std::string::npos) << text;
  std::ifstream o(dir / "other.ini");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(o)), {}), "not a layout\n");
}

// The panel dragged by its title bar with the real mouse: it stays where it was dropped, the place is saved
// in layout.json on quit, and the next start puts it there again. A corrupt layout.json is ignored with a
// message and every window starts in its slot.
TEST(Window, ADraggedWindowKeepsItsPlaceAcrossRestarts) {
  if (!have("xvfb-run") || !have("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const fs::path dir = out_dir("drag");
  const std::string drag = R"SH(
wait_for '"frame":'; step before
xdotool mousemove 1000 31; sleep 0.3; xdotool mousedown 1; wait_for '"frame":'
for x in 960 900 840 780 720 700; do xdotool mousemove $x 31; sleep 0.1; done
wait_for '"frame":'; xdotool mouseup 1; sleep 0.3; xdotool mousemove 200 300; wait_for '"moved":true'; sleep 0.5; wait_for '"frame":'
step dropped
)SH";
  auto r = run_script(dir, drag, "--scene heat --width 1280 --height 720", 16);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  const json before = read_json(dir / "before.json"), dropped = read_json(dir / "dropped.json");
  const json* p0 = window(before, "Heat lab");
  const json* p1 = window(dropped, "Heat lab");
  ASSERT_TRUE(p0 && p1) << dropped.dump();
  EXPECT_FALSE((*p0)["moved"].get<bool>());
  EXPECT_TRUE((*p1)["moved"].get<bool>()) << dropped.dump();
  EXPECT_NEAR(rect_of(*p1).x, rect_of(*p0).x - 300, 4) << dropped.dump();
  const fs::path saved = dir / "cfg" / "blockscope" / "layout.json";
  ASSERT_TRUE(fs::exists(saved)) << r;
  EXPECT_TRUE(read_json(saved)["windows"].contains("Heat lab"));
  // Started again: the panel is where the user left it.
  r = run_script(dir, "wait_for '\"frame\":'; step again\n", "--scene heat --width 1280 --height 720", 16);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  const json again = read_json(dir / "again.json");
  const json* p2 = window(again, "Heat lab");
  ASSERT_TRUE(p2);
  EXPECT_TRUE((*p2)["moved"].get<bool>());
  EXPECT_NEAR(rect_of(*p2).x, rect_of(*p1).x, 2);
  // A corrupt file: a message, and the panel back in its slot.
  std::ofstream(saved) << "{\"blockscope_layout\": 1, \"windows\": {\"Heat lab\": [0.1, ";
  r = run_script(dir, "wait_for '\"frame\":'; step corrupt\n", "--scene heat --width 1280 --height 720", 16);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  EXPECT_NE(r.find("saved layout ignored"), std::string::npos) << r;
  const json corrupt = read_json(dir / "corrupt.json");
  const json* p3 = window(corrupt, "Heat lab");
  ASSERT_TRUE(p3);
  EXPECT_FALSE((*p3)["moved"].get<bool>());
  EXPECT_NEAR(rect_of(*p3).x, rect_of(*p0).x, 1);
}

// Shift+F12 in a real window: the saved PNG is exactly the lab's view window (the dump's view_rect).
TEST(Window, ShiftF12CapturesJustTheView) {
  if (!have("xvfb-run") || !have("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const fs::path dir = out_dir("capture");
  const std::string steps = R"SH(
wait_for '"frame":'; step before
xdotool key shift+F12
i=0; until ls "$HOME/blockscope-captures/"*-view*.png >/dev/null 2>&1; do i=$((i+1)); [ $i -gt 100 ] && { echo "no capture"; break; }; sleep 0.1; done
sleep 0.3
)SH";
  const auto r = run_script(dir, steps, "--scene heat --width 1280 --height 720", 16);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  EXPECT_EQ(r.find("no capture"), std::string::npos) << r;
  const json before = read_json(dir / "before.json");
  ASSERT_TRUE(before["view_rect"].is_array()) << before.dump();
  const R v = {before["view_rect"][0].get<float>(), before["view_rect"][1].get<float>(),
               before["view_rect"][2].get<float>(), before["view_rect"][3].get<float>()};
  const json* field = window(before, "Heat field");
  ASSERT_TRUE(field);
  EXPECT_EQ((*field)["rect"], before["view_rect"]);
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir / "home" / "blockscope-captures")) {
    ++n;
    int w = 0, h = 0, c = 0;
    ASSERT_TRUE(stbi_info(e.path().c_str(), &w, &h, &c)) << e.path();
    EXPECT_EQ(w, static_cast<int>(v.w)) << e.path();
    EXPECT_EQ(h, static_cast<int>(v.h)) << e.path();
  }
  EXPECT_EQ(n, 1);
}

// A first start (no saved layout) shows where help is, once; the Help menu, clicked with the real mouse, opens
// the README's lab overview.
TEST(Window, FirstStartHintAndTheHelpMenu) {
  if (!have("xvfb-run") || !have("xdotool") || !have("python3"))
    GTEST_SKIP() << "xvfb-run, xdotool or python3 missing";
  const fs::path dir = out_dir("help");
  const std::string steps = R"SH(
at() { python3 -c "import json; d=json.load(open('$dump')); print(int(d['$1'][$2]))"; }
wait_for '"frame":'; step h1_first_start
xdotool mousemove $(at help_menu_at 0) $(at help_menu_at 1) click 1
wait_for '"help_labs_item_at":\[[1-9]'
xdotool mousemove $(at help_labs_item_at 0) $(at help_labs_item_at 1) click 1
wait_for '"help_overview":true'; xdotool mousemove 200 300; sleep 0.5; wait_for '"frame":'; step h2_labs
)SH";
  auto r = run_script(dir, steps, "--scene heat --width 1280 --height 720", 16);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  const json h1 = read_json(dir / "h1_first_start.json");
  EXPECT_TRUE(h1["first_start_hint"].get<bool>());
  EXPECT_NE(r.find("First start: the Help menu"), std::string::npos) << "the hint was not shown (app.log)";
  const json h2 = read_json(dir / "h2_labs.json");
  EXPECT_TRUE(window(h2, "The labs (Help)")) << h2.dump();
  // Started again with the layout saved on quit: no hint.
  r = run_script(dir, "wait_for '\"frame\":'; step h3_again\n", "--scene heat --width 1280 --height 720", 16);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  EXPECT_FALSE(read_json(dir / "h3_again.json")["first_start_hint"].get<bool>());
  EXPECT_EQ(r.find("First start"), std::string::npos);
}

// Pixels of row y, x in [x0, x1), of a screenshot that are the inferno colormap's hot end (painted heat).
int hot_pixels_in_row(const fs::path& png, int y, int x0, int x1) {
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(png.string().c_str(), &w, &h, &n, 3);
  if (!px || y >= h || x1 > w) {
    if (px) stbi_image_free(px);
    return -1;
  }
  int hot = 0;
  for (int x = x0; x < x1; ++x) {
    const unsigned char* p = px + 3 * (static_cast<size_t>(y) * w + x);
    hot += p[0] > 220 && p[1] > 190 ? 1 : 0;
  }
  stbi_image_free(px);
  return hot;
}

TEST(Window, LeftDragPaintsAStrokeAndNeverMovesTheHeatField) {
  if (!have("xvfb-run") || !have("xdotool") || !have("import"))
    GTEST_SKIP() << "xvfb-run, xdotool or import missing";
  const fs::path dir = out_dir("paint");
  // Space pauses (so the stroke does not diffuse away), then a slow left drag across the field's lower half,
  // where the hot-spots pattern is cool.
  const std::string steps = R"SH(
wait_for '"frame":'; xdotool mousemove 300 430; sleep 0.3; xdotool key space; sleep 0.5; step before
xdotool mousemove 120 430 mousedown 1
for x in 160 200 240 280 320 360 400 440 480 500; do xdotool mousemove $x 430; sleep 0.15; done
xdotool mouseup 1; sleep 0.5; xdotool mousemove 700 100; wait_for '"frame":'; step after
)SH";
  const auto r = run_script(dir, steps, "--scene heat --width 1280 --height 720", 40);
  ASSERT_NE(r.find("\ndone"), std::string::npos) << r;
  const json before = read_json(dir / "before.json"), after = read_json(dir / "after.json");
  const json* fb = window(before, "Heat field");
  const json* fa = window(after, "Heat field");
  ASSERT_TRUE(fb && fa);
  EXPECT_EQ((*fb)["rect"], (*fa)["rect"]) << "the drag moved the Heat field window";
  const int hot_before = hot_pixels_in_row(dir / "before.png", 430, 130, 490);
  const int hot_after = hot_pixels_in_row(dir / "after.png", 430, 130, 490);
  ASSERT_GE(hot_before, 0) << "no screenshot";
  EXPECT_LT(hot_before, 30) << "the row was hot before painting";
  EXPECT_GT(hot_after, 300) << "the stroke is not continuous along the drag (" << hot_after
                            << " of 360 px hot)";
}

}  // namespace
}  // namespace bs
