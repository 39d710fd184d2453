// heat_lab_test.cpp: the heat lab in a real App (headless GL, CPU path) driven through ImGui's input state
// between frames: painting by dragging (a stroke, never a window move), the hover read-out, Space and R, a
// hand-set grid on the CPU path, a rejected block, the timing numbers after a size change, the live run
// pausing for a CPU baseline, and floats saved as typed. Plus the pure rules behind those read-outs.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>  // FindWindowByName: the field window's position

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "app/app.h"
#include "app/heat/heat_lab.h"
#include "app/session.h"
#include "ui/heat/heat_panel.h"

namespace bs {
namespace {

using nlohmann::json;

// ImGui 1.86 indexes keys by the GLFW key code.
constexpr int k_key_space = 32;  // GLFW_KEY_SPACE
constexpr int k_key_r = 82;      // GLFW_KEY_R

AppOptions headless_cpu() {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.scene = "heat";
  o.start_states["heat"] = {{"size", {128, 128}}};  // small grids keep the CPU path quick
  return o;
}

Session heat_session(const json& state) {
  Session s;
  s.active_lab = "heat";
  s.open_labs = {"heat"};
  s.labs["heat"] = state;
  return s;
}

HeatLab& heat_of(App& app) {
  auto* lab = dynamic_cast<HeatLab*>(app.active_lab());
  EXPECT_NE(lab, nullptr);
  return *lab;
}

void frames(App& app, int n) {
  for (int i = 0; i < n; ++i)
    app.frame();
}

// The screen position of cell coordinates (cx, cy) on the field image of the last frame.
ImVec2 screen_of(const HeatLab& lab, double cx, double cy) {
  const float* r = lab.image_rect();
  return ImVec2(r[0] + static_cast<float>(cx / static_cast<double>(lab.params().nx)) * r[2],
                r[1] + static_cast<float>(cy / static_cast<double>(lab.params().ny)) * r[3]);
}

float cell(const std::vector<float>& f, const HeatLab& lab, int64_t x, int64_t y) {
  return f[static_cast<size_t>(y * lab.params().nx + x)];
}

std::string readout_hint(const HeatLab& lab, const std::string& label) {
  for (const ui::Readout& r : lab.readouts())
    if (r.label == label) return r.hint;
  return "(no read-out " + label + ")";
}

}  // namespace

// --- The rules (pure)
// ---------------------------------------------------------------------------------------------

TEST(HeatLabRules, RatesComeFromTheSizeGiven) {
  const ui::HeatRates r = ui::heat_rates(2.0, 1000, 777);
  EXPECT_DOUBLE_EQ(r.mcells_per_s, 777000.0 / 2e-3 / 1e6);
  EXPECT_DOUBLE_EQ(r.gb_per_s, 8.0 * 777000.0 / 2e-3 / 1e9);
  EXPECT_EQ(ui::heat_rates(0.0, 100, 100).mcells_per_s, 0.0);  // no timing: no rate
  ui::HeatPanelModel m;
  m.nx = m.ny = 2048;  // the field in force
  m.step_ms.count = 10;
  m.step_ms.median = 2.0;
  m.timing_nx = 1000;  // ... but the samples were taken on 1000x777
  m.timing_ny = 777;
  EXPECT_DOUBLE_EQ(ui::live_rates(m).mcells_per_s, r.mcells_per_s);
  EXPECT_FALSE(ui::measured_on(m.timing_nx, m.timing_ny, m.nx, m.ny));
}

TEST(HeatLabRules, AMeasurementBelongsOnlyToItsOwnSize) {
  EXPECT_TRUE(ui::measured_on(1000, 777, 1000, 777));
  EXPECT_FALSE(ui::measured_on(1000, 777, 777, 1000));  // same cell count, another field
  EXPECT_FALSE(ui::measured_on(1000, 777, 2048, 2048));
  EXPECT_FALSE(ui::measured_on(0, 0, 0, 0));  // never measured
}

// "floor division (the tutorial mistake)" on any field: where the block does not divide the field the floor
// grid leaves cells without a thread (the hatching shows it); where it divides exactly the note says why
// nothing is hatched, so the button never seems to do nothing.
TEST(HeatLabRules, FloorDivisionShowsItsLessonOnAnyField) {
  const ui::FloorLesson odd = ui::floor_lesson(1000, 777, Dim2{32, 8});
  EXPECT_EQ(odd.grid, (Dim2{31, 97}));  // 31*32 = 992 < 1000, 97*8 = 776 < 777
  EXPECT_TRUE(odd.note.empty());
  const ui::FloorLesson even = ui::floor_lesson(1024, 1024, Dim2{32, 8});
  EXPECT_EQ(even.grid, (Dim2{32, 128}));
  EXPECT_NE(even.note.find("1024x1024"), std::string::npos) << even.note;
  EXPECT_NE(even.note.find("32x8"), std::string::npos) << even.note;
  EXPECT_NE(even.note.find("floor and ceil give the same grid"), std::string::npos) << even.note;
  // A field smaller than a block: one block, never a grid of 0.
  EXPECT_EQ(ui::floor_lesson(64, 64, Dim2{256, 1}).grid, (Dim2{1, 64}));
}

TEST(HeatLabRules, WideSpreadRule) {
  Summary s;
  s.count = 120;
  s.p10 = 0.2;
  s.p90 = 11.0;  // the lecturer's case
  EXPECT_TRUE(ui::spread_is_wide(s));
  s.p90 = 0.6;  // exactly 3x: not yet
  EXPECT_FALSE(ui::spread_is_wide(s));
  s.p90 = 0.61;
  EXPECT_TRUE(ui::spread_is_wide(s));
  s.p10 = 1.0;
  s.p90 = 1.4;  // a busy desktop's ordinary jitter
  EXPECT_FALSE(ui::spread_is_wide(s));
  s.count = 1;  // one sample has no spread
  s.p10 = 0.1;
  s.p90 = 10;
  EXPECT_FALSE(ui::spread_is_wide(s));
}

TEST(HeatLabRules, FloatsAreSavedAsTyped) {
  EXPECT_EQ(float_for_json(0.2f), 0.2);
  EXPECT_EQ(float_for_json(0.1f), 0.1);
  EXPECT_EQ(float_for_json(-0.5f), -0.5);
  EXPECT_EQ(float_for_json(1e-7f), 1e-7);
  EXPECT_EQ(float_for_json(0.24f), 0.24);
  EXPECT_EQ(float_for_json(16777216.0f), 16777216.0);
  EXPECT_EQ(static_cast<float>(float_for_json(3.4028235e38f)), 3.4028235e38f);
  EXPECT_EQ(json(float_for_json(0.2f)).dump(), "0.2");
  EXPECT_NE(json(static_cast<double>(0.2f)).dump(), "0.2");  // the bug this avoids
}

TEST(HeatLabRules, HoverLinesUseTheAnatomyMapping) {
  // block 32x8, 2 cells per thread: a block covers 32x16 cells; grid 2x4 covers 64x64 of 128x128.
  const ui::HeatLaunch l{{32, 8}, {2, 4}, 2};
  const auto gpu = heat_hover_lines(l, 128, 128, 40, 21, 0.5f, true);
  ASSERT_EQ(gpu.size(), 3u);
  EXPECT_EQ(gpu[0], "cell (40, 21): T = 0.5");
  EXPECT_EQ(gpu[1], "blockIdx (1, 1), threadIdx (8, 2)");
  EXPECT_EQ(gpu[2], "cell 2 of the thread's 2 (rows 20..21 of column 40)");
  const auto cpu = heat_hover_lines(l, 128, 128, 40, 21, std::nullopt, false);
  ASSERT_EQ(cpu.size(), 3u);
  EXPECT_EQ(cpu[0], "cell (40, 21): T = ...");
  EXPECT_EQ(cpu[1], "on a GPU: blockIdx (1, 1), threadIdx (8, 2)");
  const auto out = heat_hover_lines(l, 128, 128, 100, 21, 0.5f, false);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1], "on a GPU: no thread (outside the grid): the cell keeps its value");
  // One cell per thread: no "cell k of" line; outside the field: nothing.
  EXPECT_EQ(heat_hover_lines({{16, 16}, {8, 8}, 1}, 128, 128, 17, 33, 1.0f, true).size(), 2u);
  EXPECT_TRUE(heat_hover_lines(l, 128, 128, 128, 0, 1.0f, true).empty());
}

// --- The lab in an App
// --------------------------------------------------------------------------------------------

TEST(HeatLabApp, DragPaintsAStrokeAndNeverMovesTheWindow) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(
      heat_session({{"paused", true}, {"pattern", "gaussian"}, {"brush_hot", 5.0}, {"brush_radius", 1.5}})));
  frames(app, 3);
  HeatLab& lab = heat_of(app);
  const ImGuiWindow* win = ImGui::FindWindowByName("Heat field");
  ASSERT_NE(win, nullptr);
  const ImVec2 pos = win->Pos;
  ImGuiIO& io = ImGui::GetIO();
  const double row = 77.5;
  io.MousePos = screen_of(lab, 10.5, row);
  frames(app, 1);
  io.MouseDown[0] = true;
  frames(app, 2);
  io.MousePos = screen_of(lab, 110.5, row);  // one frame's jump of 100 cells: a fast drag
  frames(app, 1);
  io.MouseDown[0] = false;
  frames(app, 1);
  EXPECT_EQ(win->Pos.x, pos.x);
  EXPECT_EQ(win->Pos.y, pos.y);
  const std::vector<float> f = lab.field();
  for (int64_t x = 10; x <= 110; ++x)
    EXPECT_EQ(cell(f, lab, x, 77), 5.0f) << "no paint at cell (" << x << ", 77)";
  EXPECT_LT(cell(f, lab, 60, 90), 5.0f);  // the stroke is a line, not a smear
  // The right button paints cold along its drag too.
  io.MousePos = screen_of(lab, 20.5, 30.5);
  io.MouseDown[1] = true;
  frames(app, 1);
  io.MousePos = screen_of(lab, 20.5, 60.5);
  frames(app, 1);
  io.MouseDown[1] = false;
  frames(app, 1);
  const std::vector<float> g = lab.field();
  for (int64_t y = 31; y <= 60; ++y)
    EXPECT_EQ(cell(g, lab, 20, y), -0.5f) << y;
  EXPECT_EQ(win->Pos.x, pos.x);
}

TEST(HeatLabApp, HoverShowsTheCellItsValueAndItsThread) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(heat_session({{"paused", true},
                                               {"pattern", "noise"},
                                               {"block", {32, 8}},
                                               {"cells_per_thread", 2},
                                               {"grid", {2, 4}}})));
  frames(app, 3);
  HeatLab& lab = heat_of(app);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = screen_of(lab, 40.5, 21.5);
  frames(app, 2);  // the value is read after the first frame over the cell
  const std::vector<float> f = lab.field();
  char value[32];
  std::snprintf(value, sizeof value, "%.4g", static_cast<double>(cell(f, lab, 40, 21)));
  ASSERT_EQ(lab.hover_lines().size(), 3u);
  EXPECT_EQ(lab.hover_lines()[0], std::string("cell (40, 21): T = ") + value);
  EXPECT_EQ(lab.hover_lines()[1], "on a GPU: blockIdx (1, 1), threadIdx (8, 2)");
  io.MousePos = screen_of(lab, 100.5, 21.5);
  frames(app, 1);
  ASSERT_EQ(lab.hover_lines().size(), 2u);
  EXPECT_EQ(lab.hover_lines()[1], "on a GPU: no thread (outside the grid): the cell keeps its value");
  io.MousePos = ImVec2(-100, -100);
  frames(app, 1);
  EXPECT_TRUE(lab.hover_lines().empty());
}

TEST(HeatLabApp, SpacePausesAndRResets) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(heat_session({{"paused", false}, {"steps_per_frame", 2}})));
  frames(app, 4);
  HeatLab& lab = heat_of(app);
  ASSERT_GT(lab.steps_done(), 0);
  ImGuiIO& io = ImGui::GetIO();
  auto tap = [&](int key) {
    io.KeysDown[key] = true;
    frames(app, 1);
    io.KeysDown[key] = false;
    frames(app, 1);
  };
  tap(k_key_space);
  EXPECT_TRUE(lab.model().paused);
  const int64_t steps = lab.steps_done();
  frames(app, 3);
  EXPECT_EQ(lab.steps_done(), steps);
  tap(k_key_r);
  EXPECT_EQ(lab.steps_done(), 0);
  tap(k_key_space);
  EXPECT_FALSE(lab.model().paused);
  frames(app, 2);
  EXPECT_GT(lab.steps_done(), 0);
  // With Ctrl held, the keys belong to other shortcuts.
  io.KeyCtrl = true;
  tap(k_key_space);
  io.KeyCtrl = false;
  EXPECT_FALSE(lab.model().paused);
}

TEST(HeatLabApp, HandSetGridOnTheCpuComputesOnlyCoveredCells) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(heat_session({{"paused", false},
                                               {"pattern", "noise"},
                                               {"steps_per_frame", 3},
                                               {"block", {32, 8}},
                                               {"cells_per_thread", 1},
                                               {"grid", {2, 8}}})));
  frames(app, 6);
  HeatLab& lab = heat_of(app);
  const ui::HeatPanelModel& m = lab.model();
  EXPECT_EQ(m.coverage.covered_x, 64);
  EXPECT_EQ(m.coverage.covered_y, 64);
  EXPECT_EQ(m.coverage.uncovered_cells, 128 * 128 - 64 * 64);
  // No message claiming the CPU computes every cell.
  EXPECT_EQ(m.launch_advice.find("every cell"), std::string::npos) << m.launch_advice;
  ASSERT_GT(lab.steps_done(), 0);
  const std::vector<float> f = lab.field();
  const std::vector<float> init = heat::make_initial(lab.params(), heat::InitialPattern::Noise);
  size_t kept = 0, changed = 0;
  for (int64_t y = 0; y < 128; ++y)
    for (int64_t x = 0; x < 128; ++x) {
      const size_t i = static_cast<size_t>(y * 128 + x);
      if (x >= 64 || y >= 64)
        kept += f[i] == init[i];
      else
        changed += f[i] != init[i];
    }
  EXPECT_EQ(kept, static_cast<size_t>(m.coverage.uncovered_cells));
  EXPECT_GT(changed, 64u * 64u / 2);
}

TEST(HeatLabApp, ARejectedBlockIsNeverInForce) {
  App app(headless_cpu());
  ASSERT_FALSE(
      app.apply_session(heat_session({{"block", {64, 4}}, {"cells_per_thread", 8}, {"grid", "auto"}})));
  frames(app, 2);
  HeatLab& lab = heat_of(app);
  lab.edit_block(2048, 1);  // more than 1024 threads: rejected
  frames(app, 2);
  const ui::HeatPanelModel& m = lab.model();
  EXPECT_NE(m.launch_error.find("1024"), std::string::npos) << m.launch_error;
  EXPECT_EQ(m.block[0], 2048);               // the panel still shows what was typed ...
  EXPECT_EQ(m.launch.block, (Dim2{64, 4}));  // ... but the launch in force is the last accepted one
  EXPECT_EQ(m.launch.grid, (Dim2{2, 4}));    // ceil(128/64) x ceil(128/32)
  EXPECT_EQ(m.launch.cells_per_thread, 8);
  EXPECT_TRUE(m.coverage.full());
  // The hover read-out maps cells with the launch in force.
  ImGui::GetIO().MousePos = screen_of(lab, 70.5, 40.5);
  frames(app, 1);
  ASSERT_GE(lab.hover_lines().size(), 2u);
  EXPECT_EQ(lab.hover_lines()[1], "on a GPU: blockIdx (1, 1), threadIdx (6, 1)");
  lab.edit_block(32, 8);
  EXPECT_TRUE(lab.model().launch_error.empty());
  EXPECT_EQ(lab.model().launch.block, (Dim2{32, 8}));
}

// "set grid by hand" starts from the covering grid in force (never from an old or default grid), so ticking
// it changes nothing that runs: on a field the block does not divide, every cell still has a thread.
TEST(HeatLabApp, SetGridByHandStartsFromTheCoveringGrid) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(
      heat_session({{"size", {1000, 777}}, {"block", {32, 8}}, {"cells_per_thread", 4}, {"grid", "auto"}})));
  frames(app, 2);
  HeatLab& lab = heat_of(app);
  const Dim2 covering = lab.model().launch.grid;
  EXPECT_EQ(covering, (Dim2{32, 25}));  // ceil(1000/32) x ceil(777/(8*4))
  lab.tick_manual_grid(true);
  frames(app, 2);
  const ui::HeatPanelModel& m = lab.model();
  EXPECT_TRUE(m.manual_grid);
  EXPECT_EQ(m.grid[0], 32);
  EXPECT_EQ(m.grid[1], 25);
  EXPECT_EQ(m.launch.grid, covering);
  EXPECT_TRUE(m.coverage.full());
  EXPECT_TRUE(m.launch_error.empty()) << m.launch_error;
  // After another block, ticking again starts from that block's covering grid.
  lab.tick_manual_grid(false);
  lab.edit_block(64, 4);
  frames(app, 2);
  lab.tick_manual_grid(true);
  frames(app, 2);
  EXPECT_EQ(lab.model().grid[0], 16);  // ceil(1000/64)
  EXPECT_EQ(lab.model().grid[1], 49);  // ceil(777/(4*4))
  EXPECT_TRUE(lab.model().coverage.full());
}

// The block-lines overlay draws the blocks of the launch in force, never a block the panel rejected.
TEST(HeatLabApp, BlockLinesShowTheLaunchInForceNotARejectedBlock) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(
      heat_session({{"block", {64, 4}}, {"cells_per_thread", 8}, {"grid", "auto"}, {"block_lines", true}})));
  frames(app, 2);
  HeatLab& lab = heat_of(app);
  EXPECT_TRUE(lab.field_style().block_lines);
  EXPECT_EQ(lab.field_style().block_x, 64);
  EXPECT_EQ(lab.field_style().block_y, 32);  // 4 rows of threads x 8 cells each
  lab.edit_block(2048, 1);                   // rejected: more than 1024 threads
  frames(app, 2);
  ASSERT_FALSE(lab.model().launch_error.empty());
  EXPECT_EQ(lab.field_style().block_x, 64);
  EXPECT_EQ(lab.field_style().block_y, 32);
  lab.edit_block(16, 2);  // accepted: the lines follow
  frames(app, 1);
  EXPECT_EQ(lab.field_style().block_x, 16);
  EXPECT_EQ(lab.field_style().block_y, 16);
}

// The copy-kernel bench runs with the launch in force: after a rejected block it still measures (a bench with
// the rejected 2048x1 block would be refused and show an error instead of a bandwidth).
TEST(HeatLabApp, CopyBenchUsesTheLaunchInForceNotARejectedBlock) {
  AppOptions o = headless_cpu();
  o.render_path = PathRequest::Auto;
  App app(o);
  ASSERT_FALSE(
      app.apply_session(heat_session({{"block", {64, 4}}, {"cells_per_thread", 8}, {"grid", "auto"}})));
  frames(app, 2);
  HeatLab& lab = heat_of(app);
  if (!lab.on_gpu()) GTEST_SKIP() << "no CUDA device: the copy kernel runs only on the GPU";
  lab.edit_block(2048, 1);
  frames(app, 1);
  ASSERT_FALSE(lab.model().launch_error.empty());
  EXPECT_NO_THROW(lab.measure_copy_bandwidth());
  EXPECT_GT(lab.model().copy_gb_per_s, 0.0);
  EXPECT_EQ(lab.model().copy_nx, 128);
  EXPECT_TRUE(lab.model().runtime_error.empty()) << lab.model().runtime_error;
}

TEST(HeatLabApp, NumbersAfterASizeChangeReferToTheFieldTheyWereMeasuredOn) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(heat_session({{"paused", false}, {"cpu_steps", 5}})));
  frames(app, 8);
  HeatLab& lab = heat_of(app);
  lab.run_cpu_baseline(1);
  for (int i = 0; i < 1000 && lab.cpu_baseline_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  frames(app, 2);
  ASSERT_TRUE(lab.model().cpu[1].ms_per_step);
  EXPECT_TRUE(ui::measured_on(lab.model().cpu[1].measured_nx, lab.model().cpu[1].measured_ny, 128, 128));

  // A session (or preset) that changes the size.
  ASSERT_FALSE(app.apply_session(heat_session({{"size", {256, 192}}})));
  frames(app, 8);
  const ui::HeatPanelModel& m = lab.model();
  EXPECT_EQ(m.nx, 256);
  EXPECT_EQ(m.ny, 192);
  ASSERT_GT(m.step_ms.count, 0u);
  EXPECT_EQ(m.timing_nx, 256);
  EXPECT_EQ(m.timing_ny, 192);
  EXPECT_DOUBLE_EQ(ui::live_rates(m).mcells_per_s, ui::heat_rates(m.step_ms.median, 256, 192).mcells_per_s);
  // The baseline measured on 128x128 is not the field in force any more.
  EXPECT_FALSE(ui::measured_on(m.cpu[1].measured_nx, m.cpu[1].measured_ny, m.nx, m.ny));
  EXPECT_EQ(readout_hint(lab, "cell updates"), "256x192 cells");
}

TEST(HeatLabApp, TheLiveRunPausesWhileACpuBaselineRuns) {
  App app(headless_cpu());
  ASSERT_FALSE(
      app.apply_session(heat_session({{"paused", false}, {"size", {256, 256}}, {"cpu_steps", 100000}})));
  frames(app, 3);
  HeatLab& lab = heat_of(app);
  ASSERT_GT(lab.steps_done(), 0);
  lab.run_cpu_baseline(0);
  frames(app, 1);
  const int64_t steps = lab.steps_done();
  frames(app, 4);
  ASSERT_TRUE(lab.cpu_baseline_running());  // 100000 steps: still running
  EXPECT_EQ(lab.steps_done(), steps);
  EXPECT_TRUE(lab.model().paused_for_baseline);
  lab.cancel_cpu_baseline(0);
  for (int i = 0; i < 1000 && lab.cpu_baseline_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  frames(app, 3);
  EXPECT_GT(lab.steps_done(), steps);
  EXPECT_FALSE(lab.model().paused_for_baseline);
}

TEST(HeatLabRules, TemporalLinesSayTheHaloWorkAndTheMovedRoofline) {
  ui::HeatPanelModel::Temporal t;
  EXPECT_TRUE(ui::temporal_lines(t, {1000, 8}, 2000).empty());  // one step per pass: nothing to say
  t = {6, "128x64 tile", 1.105, 1.95};
  const auto none = ui::temporal_lines(t, {600000, 4800}, 0);
  ASSERT_EQ(none.size(), 3u);
  EXPECT_NE(none[0].find("6 steps per pass"), std::string::npos) << none[0];
  EXPECT_NE(none[0].find("1.105"), std::string::npos) << none[0];
  EXPECT_NE(none[0].find("+10.5%"), std::string::npos) << none[0];
  EXPECT_NE(none[1].find("1.95 B"), std::string::npos) << none[1];
  EXPECT_NE(none[2].find("measure the copy kernel"), std::string::npos) << none[2];
  // 3200 GB/s copy / 8 B = 400000 Mcell/s; 600000 Mcell/s is 1.5 times that.
  const auto with = ui::temporal_lines(t, {600000, 4800}, 3200);
  EXPECT_NE(with[2].find("400000 Mcell/s"), std::string::npos) << with[2];
  EXPECT_NE(with[2].find("x1.50"), std::string::npos) << with[2];
}

TEST(HeatLabRules, TemporalHoverNamesTheWritingTileAndThread) {
  // Default tile with 4 steps: output regions of 120 x 56 cells; tile (1, 2) starts at (116, 108).
  const heat::TemporalTile t{heat::k_default_tile, 4};
  const auto lines = temporal_hover_lines(t, 130, 120);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("blockIdx (1, 2), threadIdx (14, 0)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("cell 13 of the thread's 16 in its 128x64 tile"), std::string::npos) << lines[1];
  const auto first = temporal_hover_lines(t, 0, 0);  // the halo of tile (0, 0) hangs over the edge
  EXPECT_NE(first[0].find("blockIdx (0, 0), threadIdx (4, 0)"), std::string::npos) << first[0];
  EXPECT_NE(first[1].find("cell 5 of"), std::string::npos) << first[1];
}

// Steps fused per pass: saved and loaded with sessions, refused out of range; on the CPU fallback nothing
// fuses (the read-outs stay one-step), on a GPU the tiles compute every cell.
TEST(HeatLabApp, FusedStepsRoundTripAndApply) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(heat_session({{"fused_steps", 6}})));
  frames(app, 2);
  HeatLab& lab = heat_of(app);
  EXPECT_EQ(lab.model().fused_steps, 6);
  EXPECT_EQ(lab.save_state()["fused_steps"], 6);
  EXPECT_EQ(lab.model().temporal.fused, lab.on_gpu() ? 6 : 1);
  if (lab.on_gpu()) {
    EXPECT_TRUE(lab.model().coverage.full());
  }
  const auto err = app.apply_session(heat_session({{"fused_steps", 9}}));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("fused_steps"), std::string::npos) << *err;
  EXPECT_EQ(lab.model().fused_steps, 6);
}

TEST(HeatLabApp, SessionsSaveFloatsAsTyped) {
  App app(headless_cpu());
  const json typed = {{"alpha", 0.9},         {"dx", 1.1},           {"dt", 0.2},
                      {"boundary_temp", 0.3}, {"brush_radius", 7.3}, {"brush_hot", 0.7},
                      {"brush_cold", -0.1},   {"range", {-0.1, 1.3}}};
  ASSERT_FALSE(app.apply_session(heat_session(typed)));
  frames(app, 1);
  const json saved = heat_of(app).save_state();
  for (const auto& [k, v] : typed.items())
    EXPECT_EQ(saved[k], v) << k << ": " << saved[k].dump();
  EXPECT_EQ(saved.dump().find("0000000"), std::string::npos) << saved.dump();
}

}  // namespace bs
