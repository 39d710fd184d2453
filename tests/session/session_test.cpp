// session_test.cpp: session files and presets without a window: parsing, validation messages that name the
// field, the JSON round trip of the Session struct, and every shipped preset.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/labs.h"
#include "app/session.h"
#include "app/sweep/definition.h"
#include "ui/presenter.h"

namespace bs {
namespace {

using nlohmann::json;

json minimal() {
  return {{"blockscope_session", 1}, {"active_lab", "heat"}};
}

std::string parse_error(const json& j) {
  const SessionResult r = parse_session(j.dump(), "test.json");
  EXPECT_FALSE(r.session) << "expected an error for " << j.dump();
  return r.error;
}

TEST(Session, MinimalParses) {
  const SessionResult r = parse_session(minimal().dump(), "m.json");
  ASSERT_TRUE(r.session) << r.error;
  EXPECT_EQ(r.session->active_lab, "heat");
  EXPECT_EQ(r.session->open_labs, std::vector<std::string>{"heat"});
  EXPECT_FLOAT_EQ(r.session->ui.scale, 1.0f);
  EXPECT_TRUE(r.session->sweep.is_null());
}

TEST(Session, CorruptJsonIsRefused) {
  const SessionResult r = parse_session("{\"blockscope_session\": 1, \"active_lab\": ", "broken.json");
  ASSERT_FALSE(r.session);
  EXPECT_NE(r.error.find("broken.json"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("not valid JSON"), std::string::npos) << r.error;
  EXPECT_FALSE(parse_session("", "empty.json").session);
  EXPECT_FALSE(parse_session("[1, 2]", "array.json").session);
}

// Version 1 stored the memory lab's size as [rows, cols]; it loads x first ([cols, rows]) with a note, and a
// square or version 2 size is taken as it is.
TEST(Session, VersionOneMemorySizeIsTurnedXFirst) {
  json j = minimal();
  j["blockscope_session"] = 1;
  j["labs"]["memory"] = {{"size", {200, 300}}};
  SessionResult r = parse_session(j.dump(), "old.json");
  ASSERT_TRUE(r.session) << r.error;
  EXPECT_EQ(r.session->labs["memory"]["size"], json::array({300, 200}));
  EXPECT_NE(r.note.find("old.json: a version 1 session"), std::string::npos) << r.note;
  j["blockscope_session"] = 2;
  r = parse_session(j.dump(), "new.json");
  ASSERT_TRUE(r.session) << r.error;
  EXPECT_EQ(r.session->labs["memory"]["size"], json::array({200, 300}));
  EXPECT_TRUE(r.note.empty());
}

TEST(Session, VersionIsChecked) {
  json j = minimal();
  j.erase("blockscope_session");
  EXPECT_NE(parse_error(j).find("blockscope_session: missing"), std::string::npos);
  j["blockscope_session"] = 3;
  EXPECT_NE(parse_error(j).find("version 3 is not supported"), std::string::npos);
  j["blockscope_session"] = "1";
  EXPECT_NE(parse_error(j).find("blockscope_session"), std::string::npos);
}

TEST(Session, BadValuesNameTheField) {
  json j = minimal();
  j.erase("active_lab");
  EXPECT_NE(parse_error(j).find("active_lab: missing"), std::string::npos);
  j = minimal();
  j["active_lab"] = "fluid";
  EXPECT_NE(parse_error(j).find("unknown lab 'fluid'"), std::string::npos);
  j = minimal();
  j["ui"] = {{"scale", 5.0}};
  EXPECT_NE(parse_error(j).find("ui.scale"), std::string::npos);
  j = minimal();
  j["ui"] = {{"presenter", "yes"}};
  EXPECT_NE(parse_error(j).find("ui.presenter: expected true or false"), std::string::npos);
  j = minimal();
  j["labs"] = {{"heat", {{"block", {2048, 1}}}}};
  EXPECT_NE(parse_error(j).find("labs.heat.block"), std::string::npos) << parse_error(j);
  j["labs"] = {{"heat", {{"block", "64x4"}}}};
  EXPECT_NE(parse_error(j).find("labs.heat.block: expected two whole numbers"), std::string::npos);
  j["labs"] = {{"heat", {{"size", {32, 32}}}}};
  EXPECT_NE(parse_error(j).find("labs.heat.size"), std::string::npos);
  j["labs"] = {{"heat", {{"dt", 10.0}}}};  // unstable: the stability limit is 0.25
  EXPECT_NE(parse_error(j).find("labs.heat"), std::string::npos);
  j["labs"] = {{"heat", {{"colormap", "rainbow"}}}};
  EXPECT_NE(parse_error(j).find("labs.heat.colormap: 'rainbow' is not one of"), std::string::npos);
  j["labs"] = {{"heat", {{"blok", {64, 4}}}}};
  EXPECT_NE(parse_error(j).find("labs.heat.blok: unknown setting"), std::string::npos);
  j["labs"] = {{"heat", 3}};
  EXPECT_NE(parse_error(j).find("labs.heat: expected a JSON object"), std::string::npos);
  j = minimal();
  j["bogus"] = 1;
  EXPECT_NE(parse_error(j).find("session.bogus: unknown setting"), std::string::npos);
}

TEST(Session, EveryLabRefusesBadValues) {
  const std::pair<const char*, json> bad[] = {
      {"matmul", {{"variant", "fastest"}}},
      {"matmul", {{"m", 0}}},
      {"montecarlo", {{"paths", 0}}},
      {"montecarlo", {{"generator", "mt"}}},
      {"montecarlo", {{"sigma", -1.0}}},
      {"vector", {{"n", "lots"}}},
      {"vector", {{"streams", 99}}},
      {"vector", {{"width", "double"}}},
      {"heat", {{"anatomy_overlay", "sparkles"}}},
      {"matmul", {{"anatomy_overlay", 3}}},
  };
  for (const auto& [lab, state] : bad) {
    if (check_lab_state(lab, json::object())) continue;  // lab not built into this binary
    const auto err = check_lab_state(lab, state);
    ASSERT_TRUE(err) << lab << " accepted " << state.dump();
    EXPECT_NE(err->find(std::string("labs.") + lab), std::string::npos) << *err;
  }
}

TEST(Session, SweepIsValidated) {
  json j = minimal();
  j["sweep"] = {{"lab", "heat"}, {"params", {{{"name", "block.q"}, {"values", {"1"}}}}}};
  EXPECT_NE(parse_error(j).find("sweep"), std::string::npos);
  j["sweep"] = {{"lab", "heat"},
                {"params", {{{"name", "block.x"}, {"values", {"32", "64"}}}}},
                {"fixed", {{"size", "512"}}}};
  const SessionResult r = parse_session(j.dump(), "s.json");
  ASSERT_TRUE(r.session) << r.error;
  EXPECT_EQ(r.session->sweep["lab"], "heat");
}

TEST(Session, JsonRoundTrip) {
  Session s;
  s.description = "d";
  s.active_lab = "heat";
  s.open_labs = {"heat"};
  s.ui.scale = 1.75f;
  s.ui.presenter = true;
  s.labs["heat"] = {{"block", {32, 8}}};
  const SessionResult r = parse_session(to_json(s).dump(), "rt.json");
  ASSERT_TRUE(r.session) << r.error;
  EXPECT_EQ(to_json(*r.session), to_json(s));
  EXPECT_FLOAT_EQ(r.session->ui.scale, 1.75f);
}

TEST(Session, SaveAndLoadFile) {
  const auto dir = std::filesystem::temp_directory_path() / "bs_session_test" / "nested";
  std::filesystem::remove_all(dir.parent_path());
  Session s;
  s.active_lab = "heat";
  s.open_labs = {"heat"};
  std::string err;
  ASSERT_TRUE(save_session(s, (dir / "a.json").string(), &err)) << err;
  const SessionResult r = load_session_file((dir / "a.json").string());
  ASSERT_TRUE(r.session) << r.error;
  EXPECT_EQ(r.session->active_lab, "heat");
  EXPECT_FALSE(load_session_file((dir / "missing.json").string()).session);
  EXPECT_NE(load_session_file((dir / "missing.json").string()).error.find("no such file"), std::string::npos);
  EXPECT_FALSE(load_session_file(dir.string()).session);  // a folder
  std::filesystem::remove_all(dir.parent_path());
}

TEST(Session, DirectoryFollowsXdg) {
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string keep = old ? old : "";
  setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(session_dir(), "/tmp/xdg-test/blockscope/sessions");
  if (old)
    setenv("XDG_CONFIG_HOME", keep.c_str(), 1);
  else
    unsetenv("XDG_CONFIG_HOME");
}

// Every preset shipped in assets/presets/ is embedded, parses, validates (lab states and sweep) and says what
// it is for in the menu tooltip.
TEST(Presets, EveryShippedPresetValidates) {
  const std::vector<Preset> all = presets();
  EXPECT_GE(all.size(), 5u);
  for (const char* name : {"matmul-coalescing", "matmul-ladder", "heat-block-sweep", "vector-crossover",
                           "montecarlo-convergence"})
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Preset& p) { return p.name == name; })) << name;
  for (const Preset& p : all) {
    const SessionResult r = load_preset(p.name);
    ASSERT_TRUE(r.session) << p.name << ": " << r.error;
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_FALSE(r.session->sweep.is_null()) << p.name << " has no sweep";
    EXPECT_NO_THROW(sweep::validate(sweep::definition_from_json(r.session->sweep))) << p.name;
  }
  // The same preset on disk under assets/presets/ (the source of the embedded copy).
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(BS_SOURCE_DIR) / "assets/presets"))
    EXPECT_TRUE(load_session_file(e.path().string()).session) << e.path();
  EXPECT_FALSE(load_preset("no-such-preset").session);
  EXPECT_NE(load_preset("no-such-preset").error.find("matmul-coalescing"), std::string::npos);
  EXPECT_TRUE(load_preset("matmul-ladder.json").session);
}

TEST(Presets, CoalescingPresetSetsTheUncoalescedVariant) {
  const SessionResult r = load_preset("matmul-coalescing");
  ASSERT_TRUE(r.session) << r.error;
  EXPECT_EQ(r.session->active_lab, "matmul");
  EXPECT_EQ(r.session->labs["matmul"]["variant"], "naive_uncoalesced");
  EXPECT_EQ(r.session->sweep["params"][0]["values"], json({"naive_uncoalesced", "naive_coalesced"}));
}

TEST(Presenter, ScaleIsClamped) {
  EXPECT_FLOAT_EQ(ui::clamp_ui_scale(0.1f), ui::k_min_ui_scale);
  EXPECT_FLOAT_EQ(ui::clamp_ui_scale(9.0f), ui::k_max_ui_scale);
  EXPECT_FLOAT_EQ(ui::clamp_ui_scale(std::nanf("")), 1.0f);
  EXPECT_FLOAT_EQ(ui::font_px(2.0f, 1.0f), 30.0f);
  EXPECT_FLOAT_EQ(ui::font_px(1.0f, 2.0f), 30.0f);  // the monitor's content scale multiplies in
  EXPECT_LE(ui::big_font_px(3.0f, 2.0f), ui::k_max_big_font_px);
  EXPECT_GT(ui::big_font_px(1.0f, 1.0f), 2.5f * ui::font_px(1.0f, 1.0f));
}

TEST(Presenter, PresenterModeRestoresTheScale) {
  ui::Presenter p;  // no ImGui needed until apply_pending()
  p.set_scale(1.25f);
  p.set_presenter(true);
  EXPECT_FLOAT_EQ(p.scale(), ui::k_presenter_scale);
  EXPECT_FLOAT_EQ(p.base_scale(), 1.25f);
  p.set_presenter(false);
  EXPECT_FLOAT_EQ(p.scale(), 1.25f);
  p.set_scale(2.5f);
  p.set_presenter(true);
  EXPECT_FLOAT_EQ(p.scale(), 2.5f);  // already larger: kept
}

}  // namespace
}  // namespace bs
