// lab_registry_test.cpp: the lab registry (app/labs.h). The built-in labs' descriptors agree with their
// schemas, sessions and presets; and a lab defined only in this directory (toy_lab.cpp), registered through
// its descriptor, is seen by sessions (check, save and load through a real App), the sweep runner, the
// bench dispatcher, `blockscope roofline` and the anatomy tools (the overlay and `blockscope anatomy`), with
// no edit anywhere else.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "app/app.h"
#include "app_util.h"
#include "app/bench.h"
#include "app/lab_start_flags.h"
#include "app/labs.h"
#include "app/roofline/roofline_cli.h"
#include "app/session.h"
#include "app/sweep/sweep.h"
#include "core/cpu_job.h"
#include "core/param_binding.h"
#include "toy_lab.h"

namespace bs {
namespace {

using nlohmann::json;

TEST(LabRegistry, BuiltInLabsInTheLabBarOrder) {
  std::vector<std::string> ids;
  for (const LabDescriptor& d : lab_entries())
    ids.push_back(d.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"heat", "matmul", "montecarlo", "vector", "memory", "reduce", "multigpu"}));
  for (const LabDescriptor& d : lab_entries()) {
    EXPECT_STRNE(d.title, "") << d.id;
    EXPECT_STRNE(d.short_title, "") << d.id;
    EXPECT_TRUE(d.make) << d.id;
    EXPECT_TRUE(d.register_bench) << d.id;
  }
  EXPECT_EQ(lab_ids_text(), "heat, matmul, montecarlo, vector, memory, reduce, multigpu");
  EXPECT_FALSE(is_lab("toy"));
}

TEST(LabRegistry, EveryPresetBelongsToTheLabItOpens) {
  // A lab's presets are found by its id (Preset::lab, the file's active_lab): each must load and open that lab.
  std::set<std::string> labs_with_presets;
  for (const Preset& p : presets()) {
    ASSERT_TRUE(is_lab(p.lab)) << "preset " << p.name << " opens '" << p.lab << "', not a lab";
    const SessionResult r = load_preset(p.name);
    ASSERT_TRUE(r.session) << p.name << ": " << r.error;
    EXPECT_EQ(r.session->active_lab, p.lab) << p.name;
    labs_with_presets.insert(p.lab);
  }
  EXPECT_EQ(labs_with_presets, (std::set<std::string>{"heat", "matmul", "memory", "montecarlo", "reduce", "vector"}));
}

TEST(LabRegistry, ASchemaDescribesWhatTheLabSaves) {
  // A default lab's saved state has exactly the schema's saved parameters (plus the lab's extras), and every
  // value passes the schema's checks: the session format and the schema cannot drift apart.
  for (const LabDescriptor& d : lab_entries()) {
    if (!d.schema || !d.make) continue;  // no window, no saved state
    AppOptions o;
    o.headless = true;
    o.render_path = PathRequest::Cpu;
    o.width = 640;
    o.height = 480;
    o.scene = d.id;
    App app(o);
    ASSERT_TRUE(app.frame());
    ASSERT_NE(app.active_lab(), nullptr);
    const json saved = app.active_lab()->save_state();
    std::set<std::string> keys, expected;
    for (const auto& [k, v] : saved.items())
      keys.insert(k);
    for (const params::Param& p : d.schema->params())
      if (p.saved && p.written) expected.insert(p.name);
    for (const std::string& e : d.state_extras)
      expected.insert(e);
    EXPECT_EQ(keys, expected) << d.id;
    EXPECT_EQ(params::check_state(*d.schema, saved, "labs." + std::string(d.id), d.state_extras),
              std::nullopt)
        << d.id;
    EXPECT_EQ(check_lab_state(d.id, saved), std::nullopt) << d.id;
  }
}

TEST(LabRegistry, EverySavedParameterIsBoundToItsLabsState) {
  // Sessions, their checks and undo read the parameters through the schema's bindings
  // (core/param_binding.h): a saved parameter without one would be checked but never saved or loaded.
  for (const LabDescriptor& d : lab_entries()) {
    if (d.schema) {
      EXPECT_EQ(params::unbound_names(*d.schema), "") << d.id;
    }
  }
  EXPECT_EQ(params::unbound_names(*test::toy_lab_descriptor().schema), "");
}

TEST(LabRegistry, ARegistrationLastsAsLongAsItsObject) {
  {
    LabRegistration toy(test::toy_lab_descriptor());
    EXPECT_TRUE(is_lab("toy"));
    EXPECT_EQ(lab_ids_text(), "heat, matmul, montecarlo, vector, memory, reduce, multigpu, toy");
    EXPECT_THROW(LabRegistration again(test::toy_lab_descriptor()), std::invalid_argument);
    LabDescriptor nameless;
    EXPECT_THROW(LabRegistration bad(nameless), std::invalid_argument);
  }
  EXPECT_FALSE(is_lab("toy"));
  EXPECT_EQ(find_lab("toy"), nullptr);
}

TEST(ToyLab, SessionsCheckItsStateAgainstItsSchema) {
  LabRegistration toy(test::toy_lab_descriptor());
  const auto parse = [](const json& labs) {
    const json j = {{"blockscope_session", 1}, {"active_lab", "toy"}, {"labs", labs}};
    return parse_session(j.dump(), "toy.json");
  };
  const SessionResult ok = parse({{"toy", {{"n", 5}, {"mode", "b"}}}});
  ASSERT_TRUE(ok.session) << ok.error;
  EXPECT_EQ(ok.session->labs["toy"]["n"], 5);

  EXPECT_NE(parse({{"toy", {{"n", 0}}}}).error.find("labs.toy.n: 0 is outside 1..1000"), std::string::npos);
  EXPECT_NE(parse({{"toy", {{"mode", "c"}}}}).error.find("labs.toy.mode: 'c' is not one of a, b"),
            std::string::npos);
  EXPECT_NE(parse({{"toy",
                    {{"blok",
                      [] {
                        return json::array({1, 2});
                      }()}}}})
                .error.find("labs.toy.blok: unknown"),
            std::string::npos);
}

TEST(ToyLab, SavedAndLoadedThroughARealApp) {
  LabRegistration toy(test::toy_lab_descriptor());
  AppOptions o = test::headless_cpu_app("toy");
  App app(o);
  ASSERT_TRUE(app.frame());
  ASSERT_NE(app.active_lab(), nullptr);
  EXPECT_STREQ(app.active_lab()->id(), "toy");

  Session s = app.current_session();
  EXPECT_EQ(s.active_lab, "toy");
  EXPECT_EQ(s.labs["toy"]["n"], 10);  // the schema's default
  s.labs["toy"] = {{"n", 42}, {"mode", "b"}};
  ASSERT_EQ(app.apply_session(s), std::nullopt);
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.current_session().labs["toy"]["n"], 42);

  // A bad value is refused and the running state stays.
  s.labs["toy"] = {{"n", 4000}};
  const auto err = app.apply_session(s);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.toy.n"), std::string::npos) << *err;
  EXPECT_EQ(app.current_session().labs["toy"]["n"], 42);

  // The file round trip.
  const SessionResult back = parse_session(to_json(app.current_session()).dump(), "round trip");
  ASSERT_TRUE(back.session) << back.error;
  EXPECT_EQ(back.session->labs["toy"]["mode"], "b");
}

// "rounds" was added to the toy's schema (toy_lab.cpp) with its binding and nothing else: no line of the
// lab's save_state/load_state, the session code or the undo history names it.
TEST(ToyLab, AFieldAddedToTheSchemaIsSavedLoadedCheckedAndUndone) {
  LabRegistration toy(test::toy_lab_descriptor());
  AppOptions o = test::headless_cpu_app("toy");
  App app(o);
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(app.frame());
  // Saved, with the schema's default.
  Session s = app.current_session();
  ASSERT_TRUE(s.labs["toy"].contains("rounds")) << s.labs["toy"].dump();
  EXPECT_EQ(s.labs["toy"]["rounds"], 1);
  EXPECT_EQ(s.labs["toy"]["block"], json::array({32, 4}));
  // Loaded, and written back by the next save (and through a file).
  s.labs["toy"] = {{"rounds", 3}};
  ASSERT_EQ(app.apply_session(s), std::nullopt);
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.current_session().labs["toy"]["rounds"], 3);
  EXPECT_EQ(app.current_session().labs["toy"]["n"], 10) << "members left out keep their values";
  const SessionResult back = parse_session(to_json(app.current_session()).dump(), "round trip");
  ASSERT_TRUE(back.session) << back.error;
  EXPECT_EQ(back.session->labs["toy"]["rounds"], 3);
  // Checked: a value outside its range is refused with the field's name, and the state stays.
  const json bad = {{"blockscope_session", 2}, {"active_lab", "toy"}, {"labs", {{"toy", {{"rounds", 9}}}}}};
  EXPECT_NE(parse_session(bad.dump(), "toy.json").error.find("labs.toy.rounds: 9 is outside 1..8"),
            std::string::npos);
  const auto err = app.active_lab()->load_state({{"rounds", "many"}});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("labs.toy.rounds"), std::string::npos) << *err;
  EXPECT_EQ(app.active_lab()->save_state()["rounds"], 3);
  // Undone and redone.
  for (int i = 0; i < 40; ++i)
    ASSERT_TRUE(app.frame());
  ASSERT_FALSE(app.active_lab()->load_state({{"rounds", 5}}));
  for (int i = 0; i < 40; ++i)  // more than the 0.5 s a change takes to settle (headless frames are 1/60 s)
    ASSERT_TRUE(app.frame());
  ASSERT_TRUE(app.can_undo());
  app.request_undo();
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.active_lab()->save_state()["rounds"], 3);
  app.request_redo();
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.active_lab()->save_state()["rounds"], 5);
}

// `blockscope --scene toy --rounds 3`: --rounds exists only because the toy's schema marks "rounds" a
// start_flag (no descriptor field, no shell code names it); the value parsed is the toy's start state, which
// the lab holds from its first frame.
TEST(ToyLab, ItsStartFlagComesFromItsSchemaAndReachesItsState) {
  LabRegistration toy(test::toy_lab_descriptor());
  CLI::App cli;
  const cli::LabStartFlags flags(cli);
  ASSERT_NE(cli.get_option_no_throw("--rounds"), nullptr);
  EXPECT_NE(cli.get_option("--rounds")->get_description().find("Toy: a setting added"), std::string::npos)
      << cli.get_option("--rounds")->get_description();
  EXPECT_EQ(cli.get_option_no_throw("--n"), nullptr) << "n is not a start flag in the toy's schema";
  EXPECT_NE(cli.get_option_no_throw("--size"), nullptr) << "the heat lab's flags stay";
  // CLI11 reads the vector back to front: `--rounds 3`.
  cli.parse(std::vector<std::string>{"3", "--rounds"});
  std::map<std::string, json> states;
  ASSERT_EQ(flags.read(states), std::nullopt);
  ASSERT_EQ(states.count("toy"), 1u);
  EXPECT_EQ(states["toy"], json({{"rounds", 3}}));
  EXPECT_EQ(states.count("heat"), 0u) << "no heat flag was given";

  AppOptions o = test::headless_cpu_app("toy");
  o.start_states = states;
  App app(o);
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.active_lab()->save_state()["rounds"], 3);
  EXPECT_EQ(app.active_lab()->save_state()["n"], 10) << "the rest at the schema's defaults";

  // A value the schema refuses: the message names the flag.
  CLI::App cli2;
  const cli::LabStartFlags flags2(cli2);
  cli2.parse(std::vector<std::string>{"9", "--rounds"});
  std::map<std::string, json> states2;
  const auto err = flags2.read(states2);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->rfind("--rounds: ", 0), 0u) << *err;
  EXPECT_NE(err->find("outside 1..8"), std::string::npos) << *err;
}

TEST(ToyLab, TheSweepRunnerRunsIt) {
  LabRegistration toy(test::toy_lab_descriptor());
  sweep::Definition d;
  d.lab = "toy";
  d.params = {{"n", {"10", "100", "1000"}}};
  d.warmup = 1;
  d.repetitions = 3;
  d.device = sweep::Device::Cpu;
  ASSERT_NO_THROW(sweep::validate(d));
  JobControl ctl;
  const sweep::Result r = sweep::run_sweep(d, ctl);
  ASSERT_EQ(r.points.size(), 3u);
  for (const auto& p : r.points) {
    ASSERT_EQ(p.series.size(), 1u);
    EXPECT_EQ(p.series[0].name, "CPU sum");
    EXPECT_EQ(p.series[0].time_ms.size(), 3u);
  }
  d.params = {{"n", {"0"}}};
  EXPECT_THROW(sweep::validate(d), InvalidRequest);
}

TEST(ToyLab, TheBenchDispatcherRunsIt) {
  LabRegistration toy(test::toy_lab_descriptor());
  CLI::App app;
  cli::BenchContext ctx;
  CLI::App* bench = app.add_subcommand("bench");
  cli::register_all_benches(*bench, ctx);
  testing::internal::CaptureStdout();
  // CLI11 reads the vector back to front: this is `bench toy --n 7 --mode b`.
  app.parse(std::vector<std::string>{"b", "--mode", "7", "--n", "toy", "bench"});
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(ctx.exit_code, 0);
  EXPECT_NE(out.find("toy bench: n=7 mode=b sum=28"), std::string::npos) << out;

  // A value outside the schema's range: the bench's message names the flag, and the exit code is 2.
  CLI::App app2;
  cli::BenchContext ctx2;
  cli::register_all_benches(*app2.add_subcommand("bench"), ctx2);
  testing::internal::CaptureStderr();
  app2.parse(std::vector<std::string>{"0", "--n", "toy", "bench"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(ctx2.exit_code, 2);
  EXPECT_NE(err.find("--n: '0': outside 1..1000"), std::string::npos) << err;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ToyLab, TheRooflineCommandRunsIt) {
  LabRegistration toy(test::toy_lab_descriptor());
  const std::filesystem::path out = std::filesystem::path(BS_TEST_OUT) / "toy_roofline";
  std::filesystem::remove_all(out);
  const std::string cache = (std::filesystem::path(BS_TEST_OUT) / "toy_roofline_cache").string();
  CLI::App app;
  cli::BenchContext ctx;
  cli::register_roofline_command(app, ctx);
  testing::internal::CaptureStdout();
  // CLI11 reads the vector back to front: `roofline --quick --labs toy --out OUT --cache-dir CACHE`.
  app.parse(std::vector<std::string>{cache, "--cache-dir", out.string(), "--out", "toy", "--labs", "--quick",
                                     "roofline"});
  const std::string said = testing::internal::GetCapturedStdout();
  ASSERT_EQ(ctx.exit_code, 0) << said;
  EXPECT_NE(said.find("running toy"), std::string::npos) << said;
  EXPECT_EQ(said.find("running heat"), std::string::npos) << said;  // --labs: the toy alone
  EXPECT_NE(read_file(out / "roofline.csv").find(",toy,"), std::string::npos) << read_file(out / "roofline.csv");

  // A lab without roofline runs is refused by name before anything runs.
  CLI::App app2;
  cli::BenchContext ctx2;
  cli::register_roofline_command(app2, ctx2);
  testing::internal::CaptureStderr();
  app2.parse(std::vector<std::string>{"multigpu", "--labs", "roofline"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(ctx2.exit_code, 2);
  EXPECT_NE(err.find("--labs: 'multigpu' is not a lab with roofline runs"), std::string::npos) << err;
  EXPECT_NE(err.find("toy"), std::string::npos) << err;
}

TEST(ToyLab, TheAnatomyCommandRecordsItsBlocks) {
  LabRegistration toy(test::toy_lab_descriptor());
  const std::filesystem::path out = std::filesystem::path(BS_TEST_OUT) / "toy_anatomy";
  std::filesystem::remove_all(out);
  CLI::App app;
  cli::BenchContext ctx;
  cli::register_anatomy_commands(app, ctx);
  const CLI::App* anatomy = app.get_subcommand("anatomy");
  EXPECT_NE(anatomy->get_description().find("toy"), std::string::npos) << anatomy->get_description();
  // Labs without an anatomy target are named as such.
  EXPECT_NE(anatomy->get_description().find("no instrumented kernel: montecarlo"), std::string::npos)
      << anatomy->get_description();
  testing::internal::CaptureStdout();
  // `anatomy toy --n 100 --block 8x2 --out OUT`: 100 numbers, 16 a block: 7 blocks.
  app.parse(std::vector<std::string>{out.string(), "--out", "8x2", "--block", "100", "--n", "toy", "anatomy"});
  const std::string said = testing::internal::GetCapturedStdout();
  ASSERT_EQ(ctx.exit_code, 0) << said;
  const std::string csv = read_file(out / "blocks.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 7) << csv;
  EXPECT_TRUE(std::filesystem::exists(out / "timeline.svg")) << said;
}

TEST(ToyLab, TheAnatomyOverlayDrawsItsLaunch) {
  LabRegistration toy(test::toy_lab_descriptor());
  AppOptions o = test::headless_cpu_app("toy");
  // The start state, as the app's flags would give it: the overlay on from the first frame.
  o.start_states["toy"] = {{"n", 100}, {"block", {8, 2}}, {"anatomy_overlay", "blockidx"}};
  App app(o);
  ASSERT_TRUE(app.frame());
  ASSERT_TRUE(app.frame());
  const AnatomyWindow* a = test::toy_anatomy(*app.active_lab());
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->mode(), anatomy::OverlayMode::BlockIdx);
  EXPECT_TRUE(a->overlay().error.empty()) << a->overlay().error;
  EXPECT_EQ(a->overlay().w, 100);  // one texel per number
  EXPECT_EQ(a->overlay().h, 1);
  EXPECT_EQ(app.current_session().labs["toy"]["anatomy_overlay"], "blockidx");
}

}  // namespace
}  // namespace bs
