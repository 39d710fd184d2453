// reduce_scene_test.cpp: the reduction and scan lab in the app, driven headless as a user would (CPU path:
// no GPU here): the window renders its tree picture, scan steps and ladder chart (screenshots at 1280x720 and
// 1920x1080), the CPU fallback measures and says the GPU runs need a device, sessions round-trip through the
// file format into a fresh App, bad states are refused with the lab untouched, and the sweep target runs a
// CPU point. Also the panel's pure helpers (variant to tree, rows merged in ladder order, the chart figure).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "app/app.h"
#include "app/labs.h"
#include "app/reduce/reduce_lab.h"
#include "app/reduce/reduce_sweep_target.h"
#include "app/session.h"
#include "app/sweep/target.h"
#include "core/param_binding.h"
#include "image_util.h"
#include "run_util.h"
#include "test_util.h"
#include "ui/reduce/reduce_lab_panel.h"
#include "ui/reduce/reduce_schema.h"

namespace bs {

namespace {

using nlohmann::json;
namespace red = reduce;

AppOptions headless_cpu() {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.scene = "reduce";
  return o;
}

Session session_for(const json& state) {
  Session s;
  s.active_lab = "reduce";
  s.open_labs = {"reduce"};
  s.labs["reduce"] = state;
  return s;
}

// Every parameter away from its default; small n so that the CPU runs of the first frames are quick.
json edited_state() {
  return {{"n", "1000"},
          {"op", "scan"},
          {"type", "int"},
          {"reduce_variant", "sequential"},
          {"scan_variant", "blelloch-block"},
          {"scan_kind", "exclusive"},
          {"block", 512},
          {"device", "cpu"},
          {"anatomy_map", "sm"},  // the anatomy's array map: colour by the SM that ran each block
          {"anatomy_window", true}};
}

bool has_label(const std::vector<ui::Readout>& r, const std::string& label) {
  for (const ui::Readout& x : r)
    if (x.label == label) return true;
  return false;
}

}  // namespace

TEST(ReduceScene, HeadlessScreenshotsShowTheTreeAndTheChart) {
  for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{1920, 1080}}) {
    const std::string png = test::output_path("reduce_" + std::to_string(w) + ".png");
    const auto r = test::run_blockscope("--headless --scene reduce --frames 12 --width " + std::to_string(w) +
                                        " --height " + std::to_string(h) + " --screenshot " + png);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // The view (left part): the tree's lane colours, legend, text and the chart's bars. A blank or
    // single-panel frame has a few dozen colours at most.
    EXPECT_GT(test::image_stats(png, 1.0 / 32, 1.0 / 16, 0.5, 15.0 / 16).distinct_colours, 100u) << r.output;
  }
}

TEST(ReduceScene, CpuFallbackMeasuresAndShowsTheModel) {
  AppOptions o = headless_cpu();
  App app(o);
  ASSERT_STREQ(app.active_lab()->id(), "reduce");
  ASSERT_FALSE(app.apply_session(session_for({{"n", "64K"}})));
  for (int i = 0; i < 3; ++i)
    app.frame();
  // Headless, the first CPU baselines finish before the frame ends: their numbers are in the readouts.
  const std::vector<ui::Readout> r = app.active_lab()->readouts();
  EXPECT_TRUE(has_label(r, "CPU")) << (r.empty() ? "no readouts" : r.front().label);
  EXPECT_TRUE(has_label(r, "block steps"));
}

// On the GPU machine: the lab's first frames run the whole ladder (with CUB and the copy kernel) and the
// CPU baselines; the readouts then quote the GPU row against the copy kernel and CUB.
TEST(ReduceScene, OnTheGpuTheLadderRunsWithCubAndTheCopyKernel) {
  BS_REQUIRE_GPU();
  AppOptions o = headless_cpu();
  o.render_path = PathRequest::Auto;
  App app(o);
  ASSERT_FALSE(
      app.apply_session(session_for({{"n", "1M"}, {"type", "int"}, {"reduce_variant", "sequential"}})));
  for (int i = 0; i < 3; ++i)
    app.frame();
  const std::vector<ui::Readout> r = app.active_lab()->readouts();
  EXPECT_TRUE(has_label(r, "GPU"));
  EXPECT_TRUE(has_label(r, "of the copy kernel"));
  EXPECT_TRUE(has_label(r, "of CUB"));
  const std::string png = test::output_path("reduce_gpu.png");
  const auto run = test::run_blockscope("--headless --scene reduce --frames 12 --screenshot " + png);
  ASSERT_EQ(run.exit_code, 0) << run.output;
}

// Every rung of both ladders at every block it accepts is drawn (tree, scan steps, chart) without an error,
// as a user stepping through the variant list would see them.
TEST(ReduceScene, EveryVariantAndBlockDraws) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(session_for({{"n", "1000"}})));
  app.frame();
  Lab& lab = *app.active_lab();
  for (std::string_view v : red::k_reduce_variant_names.names())
    for (int block : {32, 64, 256, 1024}) {
      const json st = {{"op", "reduce"}, {"reduce_variant", std::string(v)}, {"block", block}};
      const bool valid = !check_lab_state("reduce", st);
      EXPECT_EQ(!lab.load_state(st), valid) << v << " " << block;
      app.frame();
    }
  for (std::string_view v : red::k_scan_variant_names.names())
    for (int block : {32, 512}) {
      const json st = {{"op", "scan"}, {"scan_variant", std::string(v)}, {"block", block}};
      const bool valid = !check_lab_state("reduce", st);
      EXPECT_EQ(!lab.load_state(st), valid) << v << " " << block;
      app.frame();
      if (valid) {
        EXPECT_FALSE(lab.readouts().empty()) << v;  // the scan picture's steps and adds
      }
    }
}

TEST(ReduceScene, SessionRoundTripsIntoAFreshApp) {
  const json edited = edited_state();
  json saved;
  Session whole;
  {
    App app(headless_cpu());
    ASSERT_FALSE(app.apply_session(session_for(edited)));
    for (int i = 0; i < 2; ++i)
      app.frame();
    saved = app.active_lab()->save_state();
    for (const auto& [k, v] : edited.items())
      EXPECT_EQ(saved[k], v) << k;
    whole = app.current_session();
  }
  const SessionResult parsed = parse_session(to_json(whole).dump(2), "round-trip");
  ASSERT_TRUE(parsed.session) << parsed.error;
  App fresh(headless_cpu());
  ASSERT_FALSE(fresh.apply_session(*parsed.session));
  EXPECT_STREQ(fresh.active_lab()->id(), "reduce");
  EXPECT_EQ(fresh.active_lab()->save_state(), saved);
  // Members left out keep their values.
  ASSERT_FALSE(fresh.active_lab()->load_state({{"type", "float"}}));
  json expect = saved;
  expect["type"] = "float";
  EXPECT_EQ(fresh.active_lab()->save_state(), expect);
}

TEST(ReduceScene, BadStatesAreRefusedAndChangeNothing) {
  App app(headless_cpu());
  ASSERT_FALSE(app.apply_session(session_for({{"n", "4K"}})));
  app.frame();
  Lab& lab = *app.active_lab();
  const json before = lab.save_state();
  // The schema: names, types, ranges.
  auto err = lab.load_state({{"reduce_variant", "fastest"}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.reduce.reduce_variant"), std::string::npos) << *err;
  err = lab.load_state({{"block", 2048}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.reduce.block"), std::string::npos) << *err;
  // The lab's rules: a tree kernel needs a power-of-two block; n = 0; one block cannot scan 1M.
  err = lab.load_state({{"op", "reduce"}, {"reduce_variant", "sequential"}, {"block", 96}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("96"), std::string::npos) << *err;
  err = lab.load_state({{"n", 0}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.reduce"), std::string::npos) << *err;
  err = lab.load_state({{"op", "scan"}, {"scan_variant", "hillis-steele-block"}, {"n", "1M"}});
  ASSERT_TRUE(err);
  // The anatomy's members.
  err = lab.load_state({{"anatomy_map", "warp"}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.reduce.anatomy_map"), std::string::npos) << *err;
  err = lab.load_state({{"anatomy_window", "yes"}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.reduce.anatomy_window"), std::string::npos) << *err;
  EXPECT_EQ(lab.save_state(), before);
  // The registry's checker says the same without a lab.
  EXPECT_TRUE(check_lab_state("reduce", {{"op", "reduce"}, {"reduce_variant", "sequential"}, {"block", 96}}));
  EXPECT_EQ(check_lab_state("reduce", edited_state()), std::nullopt);
  EXPECT_EQ(check_lab_state("reduce", ui::reduce_schema().defaults()), std::nullopt);
}

TEST(ReduceScene, TheSweepTargetRunsACpuPoint) {
  const sweep::Target& t = sweep::reduce_sweep_target();
  EXPECT_EQ(sweep::param_names(t), "size, op, type, reduce_variant, scan_variant, scan_kind, block.x");
  sweep::Values v = sweep::default_values(t, {{"size", "100000"}, {"type", "int"}});
  EXPECT_NO_THROW(t.validate(v));
  sweep::RunSettings s;
  s.run_gpu = false;
  s.warmup = 1;
  s.repetitions = 3;
  JobControl ctl;
  const sweep::PointRun run = t.run(v, s, ctl);
  ASSERT_EQ(run.series.size(), 2u);  // one thread, all threads
  for (const sweep::SeriesRun& r : run.series) {
    EXPECT_FALSE(r.gpu);
    ASSERT_EQ(r.time_ms.size(), 3u) << r.name;
    EXPECT_GT(r.throughput.front(), 0) << r.name;
  }
  // Bad values are refused with the parameter's name.
  v["block.x"] = "96";
  v["reduce_variant"] = "sequential";
  v["op"] = "reduce";
  EXPECT_THROW(t.validate(v), std::exception);
  v["block.x"] = "256";
  v["reduce_variant"] = "fastest";
  try {
    t.validate(v);
    ADD_FAILURE() << "accepted reduce_variant=fastest";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("reduce_variant"), std::string::npos) << e.what();
  }
}

// --- The panel's pure helpers ------------------------------------------------------------------------------

TEST(ReducePanel, EveryHandWrittenVariantHasATree) {
  for (red::ReduceVariant v : red::k_reduce_variant_names.values()) {
    const auto t = ui::tree_of(v);
    EXPECT_EQ(t.has_value(), v != red::ReduceVariant::Cub) << red::k_reduce_variant_names.name_of(v);
  }
  EXPECT_EQ(ui::tree_of(red::ReduceVariant::InterleavedBankConflicts),
            reduce_model::Tree::InterleavedStrided);
  EXPECT_EQ(ui::tree_of(red::ReduceVariant::FirstAddDuringLoad), reduce_model::Tree::Sequential);
  EXPECT_EQ(ui::tree_of(red::ReduceVariant::CompleteUnroll), reduce_model::Tree::SequentialLastWarp);
  EXPECT_EQ(ui::tree_of(red::ReduceVariant::AtomicPerBlock), reduce_model::Tree::Shuffle);
  EXPECT_EQ(ui::load_of(red::ReduceVariant::FirstAddDuringLoad).elements_per_thread, 2);
  EXPECT_TRUE(ui::load_of(red::ReduceVariant::AtomicPerBlock).atomic_result);
  EXPECT_EQ(ui::scan_algo_of(red::ScanVariant::HillisSteeleBlock), reduce_model::ScanAlgo::HillisSteele);
  EXPECT_EQ(ui::scan_algo_of(red::ScanVariant::BlellochBlock), reduce_model::ScanAlgo::Blelloch);
  // The tile scans' warp scan (__shfl_up_sync, offsets 1..16) is Hillis-Steele on 32 lanes.
  EXPECT_EQ(ui::scan_algo_of(red::ScanVariant::DecoupledLookback), reduce_model::ScanAlgo::HillisSteele);
  EXPECT_STREQ(ui::scan_view_note(red::ScanVariant::BlellochBlock), "");
  EXPECT_NE(std::string(ui::scan_view_note(red::ScanVariant::ScanThenPropagate)).find("__shfl_up_sync"),
            std::string::npos);
  const std::vector<double> demo = ui::scan_demo_values(16);
  EXPECT_EQ(demo[0], 3);
  EXPECT_EQ(demo[7], 3);
  for (double x : demo) {
    EXPECT_GE(x, 0);
    EXPECT_LE(x, 9);
  }
}

// The lab's reduce::Params come from a state through the schema's bindings (params_from_state), and the
// panel starts at the kernels' defaults the same way.
TEST(ReducePanel, ParamsFromAStateAreReadThroughTheBindings) {
  const red::Params d;
  const auto same = [](const red::Params& a, const red::Params& b) {
    return a.n == b.n && a.op == b.op && a.type == b.type && a.reduce_variant == b.reduce_variant &&
           a.scan_variant == b.scan_variant && a.scan_kind == b.scan_kind && a.block == b.block;
  };
  EXPECT_TRUE(same(ui::params_from_state(json::object()), d));
  EXPECT_TRUE(same(ui::ReducePanelModel().params, d));
  const json state = {{"n", "64K"}, {"op", "scan"}, {"type", "int"}, {"scan_kind", "exclusive"},
                      {"scan_variant", "cub"}, {"block", 128}};
  ASSERT_EQ(check_lab_state("reduce", state), std::nullopt);
  const red::Params p = ui::params_from_state(state);
  EXPECT_EQ(p.n, 65536);
  EXPECT_EQ(p.op, red::Op::Scan);
  EXPECT_EQ(p.type, red::ElemType::I32);
  EXPECT_EQ(p.scan_kind, red::ScanKind::Exclusive);
  EXPECT_EQ(p.scan_variant, red::ScanVariant::Cub);
  EXPECT_EQ(p.block, 128);
  EXPECT_EQ(p.reduce_variant, d.reduce_variant) << "members left out keep the schema's default";
  EXPECT_EQ(ui::params_from_state({{"n", 1000}}).n, 1000) << "a count given as a number";
  // The model's bound members are what params_of reads.
  ui::ReducePanelModel m;
  params::load_bound(ui::reduce_schema(), m, state);
  EXPECT_TRUE(same(ui::params_of(m), p));
}

TEST(ReducePanel, RowsMergeInLadderOrder) {
  auto row = [](const char* name, bool gpu, double gbs) {
    red::Row r;
    r.name = name;
    r.variant = name;
    r.gpu = gpu;
    r.gbs = gbs;
    r.ms.median = 1;
    r.check.passed = true;
    return r;
  };
  std::vector<red::Row> rows;
  ui::merge_rows(rows, {row("cpu-1", false, 5), row("cpu-all", false, 9)});
  ui::merge_rows(rows, {row("cub", true, 3000), row("warp-shuffle", true, 2900)});
  ui::merge_rows(rows, {row("sequential", true, 1000)});
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].name, "sequential");
  EXPECT_EQ(rows[1].name, "warp-shuffle");
  EXPECT_EQ(rows[2].name, "cub");
  EXPECT_EQ(rows[3].name, "cpu-1");
  EXPECT_EQ(rows[4].name, "cpu-all");
  // A new run of the same variant replaces its row.
  ui::merge_rows(rows, {row("sequential", true, 1100)});
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].gbs, 1100);
  const fig::Figure f = ui::ladder_figure(rows, std::nullopt, "reduce float 16M", "");
  EXPECT_EQ(f.kind, fig::Kind::Bars);
  ASSERT_EQ(f.bars.size(), 5u);
  EXPECT_EQ(f.bars[2].value, 3000);
  EXPECT_NE(f.bars[2].rgba, f.bars[1].rgba);  // CUB stands apart from the hand-written kernels
  EXPECT_NE(f.bars[3].rgba, f.bars[1].rgba);  // and the CPU rows from both
  EXPECT_NE(f.title.find("reduce float 16M"), std::string::npos);
  // It exports like the other figures: the SVG names every bar.
  const std::string svg = fig::to_svg(f, 800, 450);
  for (const char* name : {"sequential", "warp-shuffle", "cub", "cpu-1", "cpu-all"})
    EXPECT_NE(svg.find(name), std::string::npos) << name;
}

}  // namespace bs
