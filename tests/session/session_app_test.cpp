// session_app_test.cpp: sessions through the real labs: an App on headless GL and the CPU path (no GPU here),
// every lab's state saved, loaded into a fresh App and saved again; bad files refused with the state intact.
#include <gtest/gtest.h>
#include <imgui.h>

#include "app/app.h"
#include "app/labs.h"
#include "app/session.h"

namespace bs {
namespace {

using nlohmann::json;

AppOptions headless_cpu(const std::string& scene = "heat") {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 800;
  o.height = 600;
  o.scene = scene;
  o.start_states["heat"] = {{"size", {128, 128}}};  // small grids keep the CPU path quick
  return o;
}

// Non-default values for every lab (each one differs from the lab's default).
json edited_state(const std::string& lab) {
  if (lab == "heat")
    return {
        {"size", {128, 96}},   {"pattern", "noise"},      {"block", {32, 8}}, {"cells_per_thread", 2},
        {"grid", {8, 4}},      {"colormap", "viridis"},   {"range", {-1, 2}}, {"steps_per_frame", 3},
        {"paused", true},      {"boundary", "insulated"}, {"dt", 0.125},      {"alpha", 0.5},
        {"block_lines", true}, {"brush_radius", 5.0},     {"cpu_steps", 7},   {"anatomy_overlay", "warp"}};
  if (lab == "matmul")
    return {{"m", 100},
            {"n", 70},
            {"k", 33},
            {"variant", "smem_tile16"},
            {"colormap", "grey"},
            {"overlay", false},
            {"anatomy_overlay", "threadidx"}};
  if (lab == "montecarlo")
    return {{"paths", 5000},      {"steps", 16},
            {"option", "put"},    {"generator", "xorwow"},
            {"block", 128},       {"layout", "one-per-thread"},
            {"waves", 3},         {"sigma", 0.3},
            {"antithetic", true}, {"bins", 40},
            {"sample_paths", 64}, {"seed", 7}};
  if (lab == "vector")
    return {{"n", "1M"},         {"op", "formula"}, {"width", "float4"}, {"indexing", "grid-stride"},
            {"block", 128},      {"pinned", false}, {"streams", 2},      {"sweep_max", "4M"},
            {"strip_count", 512}};
  return json::object();
}

Session session_for(const std::string& lab, const json& state) {
  Session s;
  s.active_lab = lab;
  s.open_labs = {lab};
  s.labs[lab] = state;
  return s;
}

// Each lab: apply edited values, check save_state reports them, then load the whole session into a fresh App
// and check it saves the same state again.
TEST(SessionApp, EveryLabRoundTrips) {
  for (const LabEntry& e : lab_entries()) {
    if (!e.make) continue;  // a lab without a window saves no state
    SCOPED_TRACE(e.id);
    const json edited = edited_state(e.id);
    json saved;
    Session whole;
    {
      App app(headless_cpu());
      ASSERT_FALSE(app.apply_session(session_for(e.id, edited)));
      ASSERT_STREQ(app.active_lab()->id(), e.id);
      for (int i = 0; i < 2; ++i)
        app.frame();
      saved = app.active_lab()->save_state();
      for (const auto& [k, v] : edited.items())
        EXPECT_EQ(saved[k], v) << k;
      whole = app.current_session();
      EXPECT_EQ(whole.active_lab, e.id);
    }
    // Through the file format, into a fresh App.
    const SessionResult parsed = parse_session(to_json(whole).dump(2), "round-trip");
    ASSERT_TRUE(parsed.session) << parsed.error;
    App fresh(headless_cpu());
    ASSERT_FALSE(fresh.apply_session(*parsed.session));
    EXPECT_STREQ(fresh.active_lab()->id(), e.id);
    EXPECT_EQ(fresh.active_lab()->save_state(), saved);
    EXPECT_EQ(to_json(fresh.current_session())["labs"][e.id], saved);
  }
}

TEST(SessionApp, UiSettingsAndSweepAreApplied) {
  App app(headless_cpu());
  app.frame();  // the font texture exists: the new scale replaces it between frames
  Session s = session_for("heat", json::object());
  s.ui.scale = 1.5f;
  s.ui.presenter = true;
  s.sweep = {{"lab", "heat"}, {"params", {{{"name", "block.x"}, {"values", {"32", "64"}}}}}};
  ASSERT_FALSE(app.apply_session(s));
  EXPECT_TRUE(app.presenter_mode());
  EXPECT_FLOAT_EQ(app.ui_scale(), 1.75f);  // presenter mode raises 1.5 to 1.75
  EXPECT_EQ(app.pending_sweep()["lab"], "heat");
  app.frame();  // fonts re-rasterized between frames
  // Re-rasterized at the new size (not stretched), with the big readout font beside the text font.
  ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  ASSERT_GE(atlas->Fonts.Size, 2);
  EXPECT_FLOAT_EQ(atlas->Fonts[0]->FontSize, ui::font_px(1.75f, 1.0f));
  EXPECT_FLOAT_EQ(atlas->Fonts[1]->FontSize, ui::big_font_px(1.75f, 1.0f));
  EXPECT_NE(atlas->TexID, nullptr);  // the GL texture was made again
  const Session back = app.current_session();
  EXPECT_FLOAT_EQ(back.ui.scale, 1.5f);  // the scale without presenter mode's boost
  EXPECT_TRUE(back.ui.presenter);
  EXPECT_EQ(back.sweep, s.sweep);
}

TEST(SessionApp, BadStateLeavesEverythingUntouched) {
  App app(headless_cpu());
  app.frame();
  const json before = to_json(app.current_session());
  // A good heat state and a bad matmul state in one session: nothing at all is applied, no lab is opened.
  Session s = session_for("heat", edited_state("heat"));
  s.labs["heat"]["block"] = {4096, 1};
  auto err = app.apply_session(s);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.heat.block"), std::string::npos) << *err;
  EXPECT_EQ(to_json(app.current_session()), before);
  if (is_lab("matmul")) {
    Session two = session_for("heat", edited_state("heat"));
    two.labs["matmul"] = {{"variant", "no_such_kernel"}};
    two.open_labs.push_back("matmul");
    err = app.apply_session(two);
    ASSERT_TRUE(err);
    EXPECT_NE(err->find("labs.matmul.variant"), std::string::npos) << *err;
    EXPECT_EQ(to_json(app.current_session()), before);
  }
  // The lab refuses through its own API too, unchanged.
  const json lab_before = app.active_lab()->save_state();
  err = app.active_lab()->load_state({{"size", {64, 64}}, {"cells_per_thread", 3}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.heat.cells_per_thread"), std::string::npos) << *err;
  EXPECT_EQ(app.active_lab()->save_state(), lab_before);
}

TEST(SessionApp, SessionAtStartupOpensItsLabs) {
  if (!is_lab("vector")) GTEST_SKIP() << "vector lab not built";
  AppOptions o = headless_cpu("vector");
  Session s = session_for("vector", edited_state("vector"));
  s.open_labs = {"heat", "vector"};
  o.session = s;
  App app(o);
  EXPECT_STREQ(app.active_lab()->id(), "vector");
  const Session back = app.current_session();
  EXPECT_EQ(back.open_labs.size(), 2u);
  EXPECT_EQ(back.labs["vector"]["op"], "formula");
}

}  // namespace
}  // namespace bs
