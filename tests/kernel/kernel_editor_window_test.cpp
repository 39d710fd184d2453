// kernel_editor_window_test.cpp: the kernel editor in the real binary, in a GLFW window under Xvfb, driven
// with xdotool as a student would: F9 opens it, the heat template compiles (NVRTC, no GPU needed), a line
// typed at the end of the file is a compile error, its line gets a marker and hovering the marker shows the
// message, and the last good kernel stays published. Steps are read from the app's layout dump
// (BLOCKSCOPE_LAYOUT_DUMP, its "kernel_editor" member); screenshots of each step are kept in
// test-out/kernel_editor/ at 1920x1080 and 1280x720 to look at. The code stays where it is when the compile
// status changes, and two quick Ctrl+Z taps between two frames undo two steps.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gpu/kernel/nvrtc_loader.h"
#include "run_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

constexpr const char* k_script = R"SH(
set -u
out="$1"; bin="$2"
export XDG_CONFIG_HOME="$out/cfg" HOME="$out/home" BLOCKSCOPE_CACHE_DIR="$out/cache"
mkdir -p "$XDG_CONFIG_HOME/blockscope" "$HOME"
dump="$out/layout.json"
BLOCKSCOPE_LAYOUT_DUMP="$dump" BLOCKSCOPE_DEBUG_FRAME_MS=30 "$bin" --render-path cpu --width 1920 --height 1080 > "$out/app.log" 2>&1 &
app=$!
frame() { sed -n 's/.*"frame":\([0-9]*\).*/\1/p' "$dump" 2>/dev/null; }
wait_for() {
  i=0
  until grep -q -- "$1" "$dump" 2>/dev/null; do
    i=$((i+1)); [ $i -gt 1200 ] && { echo "timed out waiting for $1"; cp "$dump" "$out/timeout.json"; kill $app; exit 3; }; sleep 0.1
  done
  f0=$(frame); i=0
  while [ "$(frame)" -lt $((f0+4)) ]; do
    i=$((i+1)); [ $i -gt 900 ] && { echo "timed out waiting for frames"; kill $app; exit 4; }; sleep 0.1
  done
}
step() { cp "$dump" "$out/$1.json"; import -window root "$out/$1.png" 2>/dev/null; echo "step $1"; }
field() { python3 -c "import json,sys; d=json.load(open('$dump')); print($1)"; }
wait_for '"frame":'
win=$(xdotool search --sync --name '^blockscope$' | head -1)
xdotool mousemove 300 400
xdotool key F9; wait_for '"open":true'
wait_for '"status":"ok"'; step e1_compiled
# Click into the editor's text (the middle of its window), go to the end, type a broken line.
x=$(field "int(next(w for w in d['windows'] if w['name']=='Kernel editor')['rect'][0] + 200)")
y=$(field "int(next(w for w in d['windows'] if w['name']=='Kernel editor')['rect'][1] + 300)")
xdotool mousemove $x $y click 1
sleep 0.3
# Ctrl held across frames (a tap shorter than a frame reaches ImGui's widgets without its Ctrl), then a quick
# Ctrl+Home tap too: the app must survive it in an active text field.
xdotool key ctrl+Home
xdotool keydown ctrl; sleep 0.3; xdotool key End; sleep 0.3; xdotool keyup ctrl; sleep 0.2
g1=$(field "d['kernel_editor']['generation']")
xdotool key Return
# The blank line still compiles: wait until it is published, so the error below is the only change after it.
wait_for "\"generation\":$((g1+1))"; step e1b_newline
xdotool type --delay 30 'zz_not_declared = 1;'
wait_for '"status":"failed"'
wait_for '"markers":\[{'
# Hover the marker: its message shows.
mx=$(field "int(d['kernel_editor']['first_marker'][0])"); my=$(field "int(d['kernel_editor']['first_marker'][1])")
xdotool mousemove $mx $my
wait_for '"hovered_marker_line":[1-9]'
step e2_error_1920
# Two quick Ctrl+Z taps (a few ms apart: one frame sees both) undo two steps: a new line and an "x" typed on
# it, each its own step (more than a second apart).
s2=$(field "d['kernel_editor']['source_size']")
sleep 1.3; xdotool key Return; sleep 1.3; xdotool type x; sleep 1.5
wait_for '"frame":'  # (the new line keeps the indentation: its size is not known here)
xdotool key ctrl+z ctrl+z; sleep 1; wait_for '"frame":'
step e2b_two_undos
xdotool windowsize $win 1280 720; wait_for '"display":\[1280.0,720.0\]'
mx=$(field "int(d['kernel_editor']['first_marker'][0])"); my=$(field "int(d['kernel_editor']['first_marker'][1])")
xdotool mousemove $mx $my
wait_for '"hovered_marker_line":[1-9]'
step e3_error_1280
kill $app; wait $app
echo done
)SH";

TEST(KernelEditorWindow, TypedErrorGetsAMarkerAndKeepsTheLastGoodKernel) {
  if (!have("xvfb-run") || !have("xdotool") || !have("import") || !have("python3"))
    GTEST_SKIP() << "xvfb-run, xdotool, imagemagick or python3 not installed";
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC cannot be loaded: " << kernel::nvrtc().error;
  const fs::path dir = fs::path(BS_TEST_OUT) / "kernel_editor";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path script = dir / "drive.sh";
  std::ofstream(script) << k_script;
  const auto r = test::run_command("xvfb-run -a -s '-screen 0 1920x1080x24' sh " + script.string() + " " +
                                   dir.string() + " " + test::blockscope_binary());
  std::ifstream log(dir / "app.log");
  const std::string app_log(std::istreambuf_iterator<char>(log), {});
  ASSERT_NE(r.output.find("done"), std::string::npos) << r.output << "\n--- app.log ---\n" << app_log;

  auto read = [&](const char* step) {
    return nlohmann::json::parse(std::ifstream(dir / (std::string(step) + ".json")));
  };
  const auto ok = read("e1_compiled")["kernel_editor"];
  EXPECT_EQ(ok["target"], "heat");
  EXPECT_GT(ok["generation"].get<uint64_t>(), 0u) << "the heat template was not published";
  const auto gen = read("e1b_newline")["kernel_editor"]["generation"].get<uint64_t>();
  // The compile status changed (ok -> failed, with the last-good line): the code did not move.
  EXPECT_EQ(read("e1_compiled")["kernel_editor"]["editor_top"],
            read("e2_error_1920")["kernel_editor"]["editor_top"]);
  // Both quick Ctrl+Z taps were taken (ImGui's once-a-frame key state sees one).
  EXPECT_EQ(read("e2b_two_undos")["kernel_editor"]["source_size"],
            read("e2_error_1920")["kernel_editor"]["source_size"]);
  for (const char* step : {"e2_error_1920", "e3_error_1280"}) {
    SCOPED_TRACE(step);
    const auto d = read(step);
    const auto k = d["kernel_editor"];
    EXPECT_EQ(k["status"], "failed");
    ASSERT_FALSE(k["markers"].empty());
    EXPECT_EQ(k["markers"][0]["level"], "error");
    EXPECT_EQ(k["hovered_marker_line"], k["markers"][0]["line"]);
    EXPECT_EQ(k["generation"].get<uint64_t>(), gen) << "an error must keep the last good kernel";
    EXPECT_EQ(k["last_good"].get<std::string>().rfind("running the last good kernel (compiled ", 0), 0u)
        << k["last_good"];
    // The editor window stays inside the display.
    for (const auto& w : d["windows"])
      if (w["name"] == "Kernel editor") {
        const auto& rc = w["rect"];
        EXPECT_LE(rc[0].get<float>() + rc[2].get<float>(), d["display"][0].get<float>() + 0.5f);
        EXPECT_LE(rc[1].get<float>() + rc[3].get<float>(), d["display"][1].get<float>() + 0.5f);
      }
  }
}

}  // namespace
}  // namespace bs
