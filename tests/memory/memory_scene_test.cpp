// memory_scene_test.cpp: the memory lab driven headless as a user would (CPU path): the window renders the
// warp picture and the matrix, a click on an element of the matrix picks the warp that reads it, the stepper
// (a session's step) moves through the tiled transpose's instructions with the 32-way conflict and its
// padded fix in the read-outs, sessions round-trip (warp and step included) and bad states are refused with
// the field named; plus the view's pure geometry.
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "app/app.h"
#include "app/memory/memory_sweep_target.h"
#include "app/sweep/target.h"
#include "core/error.h"
#include "app/labs.h"
#include "app/memory/memory_lab.h"
#include "app/session.h"
#include "image_util.h"
#include "run_util.h"
#include "test_util.h"
#include "ui/memory/memory_panel.h"
#include "ui/memory/memory_picture.h"

namespace bs {
namespace {

using nlohmann::json;
namespace mem = bs::memory;

AppOptions headless_cpu() {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.scene = "memory";
  return o;
}

Session memory_session(const json& state) {
  Session s;
  s.active_lab = "memory";
  s.open_labs = {"memory"};
  s.labs["memory"] = state;
  return s;
}

void frames(App& app, int n) {
  for (int i = 0; i < n; ++i)
    app.frame();
}

const ui::MemoryPanelModel& model_of(App& app) {
  const MemoryLabProbe p = probe_memory_lab(*app.active_lab());
  EXPECT_NE(p.model, nullptr);
  return *p.model;
}

std::string readout(Lab& lab, const std::string& label) {
  for (const ui::Readout& r : lab.readouts())
    if (r.label == label) return r.value;
  return "(no read-out " + label + ")";
}

// A small transpose whose size is not a multiple of the tile: quick on the CPU path.
json small_transpose(const char* variant) {
  return {{"kernel", "transpose"}, {"transpose_variant", variant}, {"size", {70, 100}} /* x, y: 70 cols, 100 rows */, {"block", {32, 8}}};
}

}  // namespace

TEST(MemoryScene, HeadlessScreenshotShowsThePictureAndTheMatrix) {
  const std::string png = test::output_path("memory.png");
  const auto r = test::run_blockscope(
      "--headless --scene memory --frames 12 --width 1280 --height 720 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The lanes' sector colours, the matrix cells, the text: a blank or single-panel frame has a few dozen.
  EXPECT_GT(test::image_stats(png, 1.0 / 32, 1.0 / 16, 0.5, 15.0 / 16).distinct_colours, 150u) << r.output;
}

TEST(MemoryLabApp, ClickOnTheMatrixPicksTheWarpThatReadsTheElement) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(memory_session(small_transpose("tiled-padded"))));
  frames(app, 3);
  wait_memory_lab(*app.active_lab());
  frames(app, 2);
  const ui::MemoryPanelModel& m = model_of(app);
  ASSERT_TRUE(m.trace);
  ASSERT_EQ(m.view_buffer.buffer, mem::Buffer::In);  // the first instruction reads `in`
  ASSERT_GT(m.view_window.cell, 0);
  // Aim at an element in the window's last row and column but one, not the warp shown now.
  const int64_t r = m.view_window.row0 + m.view_window.rows - 2,
                c = m.view_window.col0 + m.view_window.cols - 2;
  ASSERT_LT(r, 100);
  ASSERT_LT(c, 70);
  const int64_t e = r * 70 + c;
  const auto want = mem::warp_at(m.params, mem::Variant::TiledPadded, mem::Buffer::In, e);
  ASSERT_TRUE(want);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(m.view_x + (static_cast<float>(c - m.view_window.col0) + 0.5f) * m.view_window.cell_w,
                       m.view_y + (static_cast<float>(r - m.view_window.row0) + 0.5f) * m.view_window.cell);
  frames(app, 1);
  io.MouseDown[0] = true;
  frames(app, 1);
  io.MouseDown[0] = false;
  frames(app, 2);
  EXPECT_EQ(m.warp.bx, want->bx);
  EXPECT_EQ(m.warp.by, want->by);
  EXPECT_EQ(m.warp.warp, want->warp);
  // The stepper moved to the new warp's instruction that reads the clicked element.
  ASSERT_LT(static_cast<size_t>(m.step), m.trace->ops.size());
  const mem::WarpAccess& shown = m.trace->ops[static_cast<size_t>(m.step)];
  EXPECT_EQ(shown.buffer, mem::Buffer::In);
  bool found = false;
  for (const mem::LaneAccess& l : shown.lanes)
    found = found || (l.active && l.element == e);
  EXPECT_TRUE(found) << m.trace->warp_text << ", instruction " << m.step;
  io.MousePos = ImVec2(-100, -100);
}

TEST(MemoryLabApp, SteppingToTheTileReadShowsTheConflictAndThePaddedFix) {
  App app(headless_cpu());
  json s = small_transpose("tiled");
  s["step"] = 2;  // global load, shared store, shared load (a column of the tile), global store
  ASSERT_FALSE(app.apply_session(memory_session(s)));
  frames(app, 3);
  EXPECT_EQ(readout(*app.active_lab(), "this instruction"), "32");
  EXPECT_EQ(model_of(app).view_buffer.buffer, mem::Buffer::Tile);
  s["transpose_variant"] = "tiled-padded";
  ASSERT_FALSE(app.apply_session(memory_session(s)));
  frames(app, 3);
  EXPECT_EQ(readout(*app.active_lab(), "this instruction"), "1");
  // The predicted counts of the whole launch: the plain tile's loads are 32-way (31 extra wavefronts per
  // request of a full warp), the padded one's none.
  wait_memory_lab(*app.active_lab());
  frames(app, 2);
  const ui::MemoryPanelModel& m = model_of(app);
  bool seen_plain = false, seen_padded = false;
  for (const ui::MemoryPredictionRow& r : m.predictions) {
    if (r.variant == mem::Variant::Tiled) {
      seen_plain = true;
      EXPECT_GT(r.p.shared_ld_conflicts, 0);
    }
    if (r.variant == mem::Variant::TiledPadded) {
      seen_padded = true;
      EXPECT_EQ(r.p.shared_ld_conflicts, 0);
    }
  }
  EXPECT_TRUE(seen_plain && seen_padded) << m.predict_status;
}

TEST(MemoryLabApp, SessionRoundTripKeepsParametersWarpAndStep) {
  json saved;
  {
    App app(headless_cpu());
    json s = {{"kernel", "stride"}, {"stride_variant", "strided"}, {"n", "100K"}, {"stride", 8},
              {"threads", 128},     {"warp", {5, 0, 2}},           {"step", 1}};
    ASSERT_FALSE(app.apply_session(memory_session(s)));
    frames(app, 2);
    saved = app.current_session().labs["memory"];
    EXPECT_EQ(saved["kernel"], "stride");
    EXPECT_EQ(saved["stride"], 8);
    EXPECT_EQ(saved["warp"], json::array({5, 0, 2}));
    EXPECT_EQ(saved["step"], 1);
    EXPECT_FALSE(check_lab_state("memory", saved)) << saved.dump();
  }
  App again(headless_cpu());
  ASSERT_FALSE(again.apply_session(memory_session(saved)));
  frames(again, 2);
  EXPECT_EQ(again.current_session().labs["memory"], saved);
  const ui::MemoryPanelModel& m = model_of(again);
  EXPECT_EQ(m.params.stride, 8);
  EXPECT_EQ(m.warp.bx, 5);
  EXPECT_EQ(m.warp.warp, 2);
}

TEST(MemoryLabApp, BadStatesAreRefusedNamingTheFieldAndChangeNothing) {
  App app(headless_cpu());
  frames(app, 1);
  const json before = app.current_session().labs["memory"];
  const auto bad_warp = app.apply_session(memory_session({{"warp", {1, 2}}}));
  ASSERT_TRUE(bad_warp);
  EXPECT_NE(bad_warp->find("labs.memory.warp"), std::string::npos) << *bad_warp;
  const auto bad_stride = app.apply_session(memory_session({{"stride", 65}}));
  ASSERT_TRUE(bad_stride);
  EXPECT_NE(bad_stride->find("labs.memory.stride"), std::string::npos) << *bad_stride;
  const auto unknown = app.apply_session(memory_session({{"colour", "red"}}));
  ASSERT_TRUE(unknown);
  EXPECT_NE(unknown->find("labs.memory.colour"), std::string::npos) << *unknown;
  frames(app, 1);
  EXPECT_EQ(app.current_session().labs["memory"], before);
}

TEST(MemoryLabApp, WithoutAGpuTheGpuRunSaysWhy) {
  App app(headless_cpu());
  frames(app, 2);
  const ui::MemoryPanelModel& m = model_of(app);
  EXPECT_FALSE(m.gpu);
  EXPECT_FALSE(m.gpu_missing.empty());
  EXPECT_NE(m.compute_label.find("GPU runs need a CUDA device"), std::string::npos) << m.compute_label;
  ASSERT_TRUE(m.trace);  // the picture works without a GPU
  EXPECT_FALSE(m.trace->ops.empty());
}

TEST(MemoryLabApp, CpuRunTimesEveryCpuVersionOnOneAndAllThreads) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(memory_session(small_transpose("tiled"))));
  frames(app, 2);
  ui::MemoryPanelActions a;
  a.run_cpu = true;
  a.run_gpu = true;  // no GPU here: nothing starts, nothing breaks
  press_memory_buttons(*app.active_lab(), a);
  frames(app, 1);
  wait_memory_lab(*app.active_lab());
  frames(app, 2);
  const ui::MemoryPanelModel& m = model_of(app);
  EXPECT_TRUE(m.gpu_rows.empty());
  EXPECT_TRUE(m.cpu_status.empty()) << m.cpu_status;
  // copy, naive and tiled, each on one thread and on all threads.
  ASSERT_EQ(m.cpu_rows.size(), 2 * mem::cpu_variants_of(mem::Kernel::Transpose).size());
  for (const ui::MemoryResultRow& r : m.cpu_rows) {
    EXPECT_FALSE(r.gpu);
    EXPECT_GT(r.ms.median, 0) << r.label;
    EXPECT_GT(r.gbs, 0) << r.label;
  }
  EXPECT_NE(m.cpu_rows.front().label.find("1 thread"), std::string::npos) << m.cpu_rows.front().label;
  EXPECT_NE(m.cpu_rows.back().label.find("all threads"), std::string::npos) << m.cpu_rows.back().label;
  EXPECT_DOUBLE_EQ(m.cpu_rows.front().pct_of_copy, 100.0);  // the copy is its own reference
}

TEST(MemoryLabApp, OnTheGpuTheLadderRunsAndEveryRowIsChecked) {
  BS_REQUIRE_GPU();
  AppOptions o = headless_cpu();
  o.render_path = PathRequest::Auto;
  App app(o);
  ASSERT_FALSE(app.apply_session(memory_session(small_transpose("tiled-padded-multi"))));
  frames(app, 2);
  ASSERT_TRUE(model_of(app).gpu) << model_of(app).gpu_missing;
  ui::MemoryPanelActions a;
  a.run_gpu = true;
  press_memory_buttons(*app.active_lab(), a);
  frames(app, 1);
  wait_memory_lab(*app.active_lab());
  frames(app, 2);
  const ui::MemoryPanelModel& m = model_of(app);
  EXPECT_TRUE(m.gpu_status.empty()) << m.gpu_status;
  ASSERT_EQ(m.gpu_rows.size(), mem::variants_of(mem::Kernel::Transpose).size());
  for (const ui::MemoryResultRow& r : m.gpu_rows) {
    EXPECT_TRUE(r.check_passed) << r.label << ": " << r.check;
    EXPECT_GT(r.gbs, 0) << r.label;
  }
  EXPECT_NE(readout(*app.active_lab(), "GPU bandwidth").find_first_of("0123456789"), std::string::npos);
}

TEST(MemoryLabApp, StrideSweepOnTheCpuPlotsGbsAndThePredictedSectors) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(memory_session({{"kernel", "stride"}, {"n", "64K"}, {"stride", 2}})));
  frames(app, 2);
  ui::MemoryPanelActions a;
  a.run_stride = true;
  press_memory_buttons(*app.active_lab(), a);
  frames(app, 1);
  wait_memory_lab(*app.active_lab());
  frames(app, 2);
  const ui::MemoryPanelModel& m = model_of(app);
  EXPECT_TRUE(m.stride_status.empty()) << m.stride_status;
  ASSERT_EQ(m.stride_points.size(), 7u);  // 1, 2, 4, ..., 64
  for (const ui::StridePoint& p : m.stride_points) {
    EXPECT_GT(p.gbs, 0) << p.stride;
    // Floats: 4 sectors per request at stride 1, twice that per doubling, one per lane from stride 8 on.
    EXPECT_DOUBLE_EQ(p.sectors_per_request, std::min(32, 4 * p.stride)) << p.stride;
  }
  EXPECT_EQ(m.stride_n, 64 * 1024);
}

// --- The view's geometry (pure)
// -------------------------------------------------------------------------------

TEST(MemoryViewGeometry, WindowHoldsTheHighlightedElementsOnATileBoundary) {
  mem::BufferView bv;
  bv.width = 2048;
  bv.length = 2048 * 2048;
  // A warp reading row 70, columns 1000..1031.
  std::vector<int64_t> hl;
  for (int i = 0; i < 32; ++i)
    hl.push_back(70 * 2048 + 1000 + i);
  const ui::BufferWindow w = ui::buffer_window(bv, hl, 640, 320, 3, 24);
  EXPECT_TRUE(w.all_inside);
  EXPECT_LE(w.col0, 1000);
  EXPECT_GE(w.col0 + w.cols, 1032);
  EXPECT_LE(w.row0, 70);
  EXPECT_GT(w.row0 + w.rows, 70);
  EXPECT_GE(w.cell, 3);
  EXPECT_LE(static_cast<float>(w.cols) * w.cell, 640);
  // The element under a pixel, back.
  const float x = (static_cast<float>(1010 - w.col0) + 0.5f) * w.cell,
              y = (static_cast<float>(70 - w.row0) + 0.5f) * w.cell;
  EXPECT_EQ(ui::element_at(bv, w, x, y), 70 * 2048 + 1010);
  EXPECT_FALSE(ui::element_at(bv, w, -1, y));
}

TEST(MemoryViewGeometry, AColumnOfLanesFitsDownTheWindow) {
  // The naive transpose's store: 32 lanes down a column of `out` (one per row).
  mem::BufferView bv;
  bv.width = 500;
  bv.length = 500 * 300;
  std::vector<int64_t> hl;
  for (int i = 0; i < 32; ++i)
    hl.push_back((40 + i) * 500 + 7);
  const ui::BufferWindow w = ui::buffer_window(bv, hl, 600, 400, 3, 24);
  EXPECT_TRUE(w.all_inside);
  EXPECT_GE(w.rows, 32);
  EXPECT_EQ(w.col0, 0);  // column 7 on the first tile
}

TEST(MemoryViewGeometry, LinesOfALongArrayWidenToTheView) {
  // Stride 64: the warp's elements are 2 lines apart, 62 lines tall; the rows are short, so cells widen.
  mem::BufferView bv;
  bv.width = 32;
  bv.length = 1 << 20;
  std::vector<int64_t> hl;
  for (int i = 0; i < 32; ++i)
    hl.push_back(64 * i);
  const ui::BufferWindow w = ui::buffer_window(bv, hl, 700, 400, 3, 24);
  EXPECT_TRUE(w.all_inside);
  EXPECT_EQ(w.cols, 32);
  EXPECT_FLOAT_EQ(w.cell_w, 21);  // floor(700 / 32)
  EXPECT_LT(w.cell, w.cell_w);
  // A click in the widened cells finds the element: row 2, column 10.
  EXPECT_EQ(ui::element_at(bv, w, 10.5f * w.cell_w, (2.5f - static_cast<float>(w.row0)) * w.cell),
            2 * 32 + 10);
}

TEST(MemoryViewGeometry, ShortBufferIsShownWhole) {
  mem::BufferView bv;
  bv.width = 32;
  bv.length = 100;  // 4 rows, the last one partly
  const ui::BufferWindow w = ui::buffer_window(bv, {0, 31, 99}, 800, 600, 3, 24);
  EXPECT_EQ(w.rows, 4);
  EXPECT_EQ(w.cols, 32);
  EXPECT_FLOAT_EQ(w.cell, 24);
  EXPECT_FALSE(ui::element_at(bv, w, 5 * 24, 3 * 24 + 2));  // element 101: past the end
}

}  // namespace bs

namespace bs {

TEST(MemoryPictureGeometry, GlobalLinesInAddressOrderWithGapsForSkippedLines) {
  // Stride 64 floats: lane i in line 2i; the lines are not neighbours, so gaps separate them.
  memory::WarpAccess a;
  for (int i = 0; i < 32; ++i)
    a.lanes[static_cast<size_t>(i)] = {true, 64 * i};
  const memory::GlobalDetail d = memory::global_detail(a);
  const ui::WarpPictureLayout L = ui::global_layout(d, 1000, 15);
  ASSERT_EQ(L.lines.size(), 32u);
  EXPECT_FALSE(L.lines[0].gap_before);
  EXPECT_TRUE(L.lines[1].gap_before);
  for (size_t i = 1; i < L.lines.size(); ++i)
    EXPECT_GT(L.lines[i].x0, L.lines[i - 1].x1);
  EXPECT_LE(L.lines.back().x1, 1000.5f);
  // Each lane's sector is the first of its line.
  float x0 = 0, x1 = 0;
  ASSERT_TRUE(L.sector_x(memory::sector_of(a.lanes[5]), &x0, &x1));
  EXPECT_FLOAT_EQ(x0, L.lines[5].x0);
  EXPECT_NEAR(x1 - x0, (L.lines[5].x1 - L.lines[5].x0) / 4, 1e-3);
  EXPECT_FALSE(L.sector_x(1, &x0, &x1) && x0 > L.lines[0].x1);  // sector 1 lies in line 0
}

TEST(MemoryPictureGeometry, OneCoalescedLineIsCentredAndAtMostHalfTheWidth) {
  memory::WarpAccess a;
  for (int i = 0; i < 32; ++i)
    a.lanes[static_cast<size_t>(i)] = {true, i};
  const ui::WarpPictureLayout L = ui::global_layout(memory::global_detail(a), 800, 15);
  ASSERT_EQ(L.lines.size(), 1u);
  EXPECT_FLOAT_EQ(L.lines[0].x1 - L.lines[0].x0, 400);
  EXPECT_FLOAT_EQ(L.lines[0].x0, 200);
  EXPECT_FLOAT_EQ(L.lane_centre(31), 31.5f * 25);
}

TEST(MemoryPictureGeometry, BankColumnsShrinkToShowA32WayConflict) {
  memory::WarpAccess a;
  a.space = memory::Space::Shared;
  for (int i = 0; i < 32; ++i)
    a.lanes[static_cast<size_t>(i)] = {true, 32 * i};
  const memory::SharedDetail d = memory::shared_detail(a);
  const ui::WarpPictureLayout L = ui::shared_layout(d, 640, 300, 15);
  EXPECT_FLOAT_EQ(L.bank_w, 20);
  EXPECT_LE(L.height, 300.5f);  // 32 words stacked in bank 0 fit the height given
  EXPECT_GE(L.word_h, 2);
}

}  // namespace bs

// --- The sweep target and the stride chart
// ------------------------------------------------------------------

namespace bs {

TEST(MemorySweep, ParametersComeFromTheSchemaWithOneNameEach) {
  const sweep::Target& t = sweep::memory_sweep_target();
  std::set<std::string> names;
  for (const sweep::ParamSpec& p : t.params())
    EXPECT_TRUE(names.insert(p.name).second) << "twice: " << p.name;
  for (const char* n : {"kernel", "transpose_variant", "banks_variant", "stride", "bank_stride", "block.x",
                        "block.y", "threads", "size", "n"})
    EXPECT_TRUE(names.count(n)) << n << " missing from " << sweep::param_names(t);
  // The defaults are the lab's: the transpose block 32 x 8, 256 threads for the 1-D kernels.
  EXPECT_STREQ(sweep::find_param(t, "block.x")->default_value, "32");
  EXPECT_STREQ(sweep::find_param(t, "threads")->default_value, "256");
  EXPECT_NO_THROW(t.validate(sweep::default_values(t, {})));
  // A bad value is refused naming the parameter.
  try {
    t.validate(sweep::default_values(t, {{"stride", "65"}}));
    ADD_FAILURE() << "stride 65 accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("stride"), std::string::npos) << e.what();
  }
  // Banks and the padded transposes run only on the GPU (no CPU version of shared memory).
  EXPECT_EQ(t.value_device("kernel", "banks"), sweep::Device::Gpu);
  EXPECT_EQ(t.value_device("transpose_variant", "tiled-padded"), sweep::Device::Gpu);
  EXPECT_FALSE(t.value_device("transpose_variant", "naive"));
  // The variant changes CPU times too (copy, naive and tiled have CPU versions); the block shape does not.
  const std::vector<std::string> gpu_only = t.gpu_only_params();
  EXPECT_EQ(std::count(gpu_only.begin(), gpu_only.end(), "transpose_variant"), 0);
  EXPECT_EQ(std::count(gpu_only.begin(), gpu_only.end(), "block.y"), 1);
}

TEST(MemorySweep, CpuStrideSweepFromTheCommandLine) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(BS_TEST_OUT) / "sweep" / "memory-stride";
  fs::remove_all(dir);
  const auto r = test::run_blockscope(
      "sweep memory --param stride=1,8,32 --fixed kernel=stride --fixed n=64K --reps 2 --warmup 1 --device "
      "cpu "
      "--png 400x300 --out " +
      dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::exists(dir / "sweep.csv")) << r.output;
  // One row per sample: 3 strides x 2 CPU series (1 thread, all threads) x 2 repetitions, plus the header.
  std::ifstream csv(dir / "sweep.csv");
  int lines = 0;
  for (std::string line; std::getline(csv, line);)
    ++lines;
  EXPECT_EQ(lines, 1 + 3 * 2 * 2) << r.output;
}

TEST(MemoryStrideChart, FiguresPlotEveryStrideOnLogAxes) {
  ui::MemoryPanelModel m;
  m.stride_device = "CPU";
  m.stride_n = 1 << 20;
  m.stride_points = {{1, 20.0, 4.0}, {2, 12.0, 8.0}, {8, 3.0, 32.0}, {0, 1.0, 32.0}};  // 0: the random gather
  const fig::Figure bw = ui::stride_bandwidth_figure(m);
  ASSERT_EQ(bw.series.size(), 1u);
  EXPECT_EQ(bw.series[0].x, (std::vector<double>{1, 2, 8}));
  EXPECT_EQ(bw.series[0].y, (std::vector<double>{20, 12, 3}));
  EXPECT_TRUE(bw.log_x);
  const fig::Figure sp = ui::stride_sectors_figure(m);
  EXPECT_EQ(sp.series[0].y, (std::vector<double>{4, 8, 32}));
  EXPECT_NE(sp.y_label.find("predicted"), std::string::npos);
}

}  // namespace bs
