// sweep_logic_test.cpp: the pure parts of sweeps: statistics with warm-up exclusion, definitions and their
// JSON, parse_param, validation messages, CSV/JSON round trips of a result, and the choice of figure
// (Lines / Heatmap / Bars, crossover marker). No lab runs here.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "app/kernel/user_kernels.h"
#include "app/sweep/sweep.h"
#include "core/error.h"

namespace bs::sweep {
namespace {

TEST(SweepStats, WarmupExcludedAndSummaryOfKnownSamples) {
  // Two warm-up samples (huge: first-call costs) then 1..10 shuffled; only the ten count.
  const std::vector<double> seq = {1000, 900, 7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
  size_t i = 0;
  JobControl ctl;
  const std::vector<double> kept = collect_samples(2, 10, ctl, [&] { return seq[i++]; });
  ASSERT_EQ(kept.size(), 10u);
  EXPECT_EQ(kept.front(), 7);
  SeriesResult s;
  s.time_ms = kept;
  s.throughput = kept;
  s.summarize();
  // numpy type 7: median of 1..10 = 5.5, p10 = 1 + 0.9 * 1 = 1.9, p90 = 9.1.
  EXPECT_DOUBLE_EQ(s.time.median, 5.5);
  EXPECT_NEAR(s.time.p10, 1.9, 1e-12);
  EXPECT_NEAR(s.time.p90, 9.1, 1e-12);
  EXPECT_EQ(s.time.count, 10u);
  EXPECT_EQ(s.time.max, 10);
}

TEST(SweepStats, CollectSamplesHonoursCancel) {
  JobControl ctl;
  int calls = 0;
  EXPECT_THROW(collect_samples(1, 5, ctl,
                               [&] {
                                 if (++calls == 3) ctl.cancel();
                                 return 1.0;
                               }),
               JobCancelled);
  EXPECT_EQ(calls, 3);
}

TEST(SweepStats, Eta) {
  EXPECT_LT(estimate_eta(0, 0, 10), 0);
  EXPECT_DOUBLE_EQ(estimate_eta(2.0, 1.0, 4.0), 6.0);  // 2 s per unit, 3 units left
  EXPECT_DOUBLE_EQ(estimate_eta(5.0, 4.0, 4.0), 0.0);
}

Definition sample_definition() {
  Definition d;
  d.lab = "heat";
  d.params = {{"block.x", {"32", "64", "128", "256"}}, {"block.y", {"1", "2", "4", "8"}}};
  d.fixed = {{"size", "2048"}};
  d.warmup = 2;
  d.repetitions = 10;
  d.device = Device::All;
  return d;
}

TEST(SweepDefinition, JsonRoundTrip) {
  const Definition d = sample_definition();
  const nlohmann::json j = to_json(d);
  EXPECT_EQ(j["lab"], "heat");
  EXPECT_EQ(j["params"][0]["name"], "block.x");
  EXPECT_EQ(j["fixed"]["size"], "2048");
  EXPECT_EQ(j["device"], "all");
  EXPECT_EQ(definition_from_json(j), d);
  EXPECT_EQ(definition_from_json(nlohmann::json::parse(j.dump())), d);
}

TEST(SweepDefinition, SharedVocabularyExampleParses) {
  const auto j =
      nlohmann::json::parse(R"({"lab":"heat", "params":[{"name":"block.x","values":["32","64","128","256"]},
   {"name":"block.y","values":["1","2","4","8"]}], "fixed":{"size":"2048"}, "warmup":2, "repetitions":10,
   "device":"all"})");
  EXPECT_EQ(definition_from_json(j), sample_definition());
  EXPECT_NO_THROW(validate(sample_definition()));
}

TEST(SweepDefinition, BadJsonNamesTheField) {
  auto msg = [](const char* text) {
    try {
      definition_from_json(nlohmann::json::parse(text));
    } catch (const InvalidRequest& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg(R"({"params":[]})").find("lab"), std::string::npos);
  EXPECT_NE(msg(R"({"lab":"heat"})").find("params"), std::string::npos);
  EXPECT_NE(msg(R"({"lab":"heat","params":[],"device":"tpu"})").find("device"), std::string::npos);
  EXPECT_NE(msg(R"({"lab":"heat","params":[],"repetitions":"ten"})").find("repetitions"), std::string::npos);
}

TEST(SweepParam, ParsesListsAndRanges) {
  EXPECT_EQ(parse_param("block.x=32,64,128"), (Param{"block.x", {"32", "64", "128"}}));
  EXPECT_EQ(parse_param(" variant = cublas , smem_tile32 "), (Param{"variant", {"cublas", "smem_tile32"}}));
  EXPECT_EQ(parse_param("size=2^10..2^13"), (Param{"size", {"1024", "2048", "4096", "8192"}}));
  EXPECT_EQ(parse_param("size=1K..8K"), (Param{"size", {"1K", "2K", "4K", "8K"}}));
  EXPECT_EQ(parse_param("size=1000..5000"), (Param{"size", {"1000", "2000", "4000"}}));
  EXPECT_EQ(parse_param("size=2048"), (Param{"size", {"2048"}}));
}

TEST(SweepParam, RejectsBadText) {
  for (const char* bad :
       {"block.x", "=32,64", "block.x=", "block.x=32,,64", "size=8..2", "size=a..b", "size=0..8"}) {
    try {
      parse_param(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidRequest& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parse_fixed("size=2048"), (std::pair<std::string, std::string>{"size", "2048"}));
  EXPECT_THROW(parse_fixed("size"), InvalidRequest);
  EXPECT_THROW(parse_fixed("size=1,2"), InvalidRequest);
}

TEST(SweepParam, NumericValues) {
  EXPECT_EQ(numeric_value("2^10"), 1024.0);
  EXPECT_EQ(numeric_value("16M"), 16.0 * 1024 * 1024);
  EXPECT_EQ(numeric_value("0.5"), 0.5);
  EXPECT_FALSE(numeric_value("float4"));
  EXPECT_FALSE(numeric_value("64x4"));
}

std::string validation_error(const Definition& d) {
  try {
    validate(d);
  } catch (const InvalidRequest& e) {
    return e.what();
  }
  return "";
}

TEST(SweepValidate, MessagesNameTheProblem) {
  Definition d = sample_definition();
  d.lab = "fluid";
  EXPECT_NE(validation_error(d).find("matmul"), std::string::npos);  // lists the known labs
  d = sample_definition();
  d.params[0].name = "threads";
  const std::string unknown = validation_error(d);
  EXPECT_NE(unknown.find("'threads'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("block.x, block.y, cells, kernel, steps"), std::string::npos) << unknown;
  d = sample_definition();
  d.params[0].values = {"32", "0"};
  EXPECT_NE(validation_error(d).find("block.x = '0'"), std::string::npos) << validation_error(d);
  d = sample_definition();
  d.params[0].values = {"2048"};  // 2048 threads in x: no block.y makes it fit
  EXPECT_NE(validation_error(d).find("1024"), std::string::npos) << validation_error(d);
  d = sample_definition();
  d.params[0].values = {"64", "256"};  // 256 x 1 runs, 256 x 8 does not: skipped at run time, not an error
  EXPECT_EQ(validation_error(d), "");
  d = sample_definition();
  d.fixed["size"] = "9000";
  EXPECT_NE(validation_error(d).find("size"), std::string::npos) << validation_error(d);
  d = sample_definition();
  d.repetitions = 0;
  EXPECT_NE(validation_error(d).find("repetitions"), std::string::npos);
  Definition m;
  m.lab = "matmul";
  m.params = {{"variant", {"cublas", "turbo"}}};
  EXPECT_NE(validation_error(m).find("variant = 'turbo'"), std::string::npos) << validation_error(m);
  EXPECT_NE(validation_error(m).find("smem_tile32"), std::string::npos);
  Definition v;
  v.lab = "vector";
  v.params = {{"width", {"float", "double"}}};
  EXPECT_NE(validation_error(v).find("width = 'double'"), std::string::npos) << validation_error(v);
  Definition mc;
  mc.lab = "montecarlo";
  mc.params = {{"layout", {"grid-stride", "one-per-thread"}}, {"generator", {"philox", "mt"}}};
  EXPECT_NE(validation_error(mc).find("generator = 'mt'"), std::string::npos) << validation_error(mc);
}

TEST(SweepValidate, EveryLabsExamplesAreValid) {
  // kernel=user (heat, vector) is valid once the user's kernel is compiled (the kernel lab): the templates.
  UserKernels uk;
  for (kernel::Target target : {kernel::Target::Heat, kernel::Target::Vector}) {
    kernel::CompileRequest req;
    req.source =
        std::string(kernel::template_source(*kernel::find_template(kernel::k_target_names.name_of(target))));
    req.target = target;
    auto r = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
    if (!r->ok()) GTEST_SKIP() << "NVRTC: " << r->message;
    uk.publish(req, r);
  }
  set_active_user_kernels(&uk);
  struct Unset {
    ~Unset() { set_active_user_kernels(nullptr); }
  } unset;
  for (const std::string& lab : lab_names()) {
    const Target* t = find_target(lab);
    ASSERT_NE(t, nullptr);
    for (const ParamSpec& p : t->params()) {
      Definition d;
      d.lab = lab;
      d.params = {parse_param(std::string(p.name) + "=" + p.sweep_example)};
      EXPECT_EQ(validation_error(d), "") << lab << " " << p.name;
    }
  }
}

// A result with exact, awkward numbers and series names that need CSV quoting.
Result synthetic_result() {
  Result r;
  r.definition.lab = "vector";
  r.definition.params = {{"size", {"1K", "4K", "16K", "64K", "256K"}}};
  r.definition.repetitions = 3;
  r.unit = "GB/s";
  r.time_label = "time per run (ms)";
  // GPU incl. copies: slow at small sizes (latency), fast at large; CPU: linear in size.
  const double gpu[] = {0.05, 0.052, 0.06, 0.07, 0.1};
  const double cpu1[] = {0.001, 0.004, 0.016, 0.064, 0.256};
  const double cpu2[] = {0.002, 0.003, 0.009, 0.034, 0.13};
  for (size_t i = 0; i < 5; ++i) {
    Point p;
    p.values = {r.definition.params[0].values[i]};
    auto add = [&](const char* name, bool is_gpu, double ms) {
      SeriesResult s;
      s.name = name;
      s.gpu = is_gpu;
      s.time_ms = {ms * 1.1, ms, ms * 0.9 + 1e-17};
      s.throughput = {1.0 / 3.0, 2.0 / 3.0, 0.1};
      s.summarize();
      p.series.push_back(s);
    };
    add("GPU incl. copies", true, gpu[i]);
    add("CPU, 1 thread", false, cpu1[i]);
    add("CPU, all 2 threads (OpenMP)", false, cpu2[i]);
    r.points.push_back(p);
  }
  return r;
}

void expect_same_samples(const Result& a, const Result& b) {
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(a.points[i].values, b.points[i].values);
    ASSERT_EQ(a.points[i].series.size(), b.points[i].series.size());
    for (size_t k = 0; k < a.points[i].series.size(); ++k) {
      const SeriesResult &x = a.points[i].series[k], &y = b.points[i].series[k];
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.gpu, y.gpu);
      EXPECT_EQ(x.time_ms, y.time_ms);  // bit-exact: the text keeps every digit
      EXPECT_EQ(x.throughput, y.throughput);
      EXPECT_EQ(x.time.median, y.time.median);
    }
  }
}

TEST(SweepExport, CsvRoundTripKeepsRawSamples) {
  const Result r = synthetic_result();
  const std::string csv = to_csv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "lab,size,series,rep,time_ms,throughput,unit,device");
  EXPECT_NE(csv.find("\"CPU, 1 thread\""), std::string::npos);  // quoted: it holds a comma
  const Result back = result_from_csv(csv, r.definition);
  expect_same_samples(r, back);
  EXPECT_EQ(back.unit, "GB/s");
  const std::string sum = summary_csv(r);
  EXPECT_EQ(std::count(sum.begin(), sum.end(), '\n'), 1 + 15);  // header + 5 points x 3 series
  EXPECT_THROW(result_from_csv("lab,x\n", r.definition), InvalidRequest);
}

TEST(SweepExport, JsonRoundTripKeepsEverything) {
  Result r = synthetic_result();
  r.notes = {"GPU rows skipped: none"};
  r.points[1].notes = {"a note"};
  r.points[2].error = "GPU error: out of memory";
  r.cancelled = true;
  const Result back = result_from_json(nlohmann::json::parse(to_json(r).dump()));
  expect_same_samples(r, back);
  EXPECT_EQ(back.definition, r.definition);
  EXPECT_EQ(back.notes, r.notes);
  EXPECT_EQ(back.points[1].notes, r.points[1].notes);
  EXPECT_EQ(back.points[2].error, r.points[2].error);
  EXPECT_TRUE(back.cancelled);
  EXPECT_THROW(result_from_json(nlohmann::json::parse("{\"points\":[]}")), InvalidRequest);
}

TEST(SweepFigure, OneNumericParamGivesLinesWithCrossover) {
  const Result r = synthetic_result();
  const fig::Figure f = figure_for(r);
  EXPECT_EQ(f.kind, fig::Kind::Lines);
  ASSERT_EQ(f.series.size(), 3u);
  EXPECT_TRUE(f.log_x);  // 1K .. 256K spans 256x
  EXPECT_EQ(f.series[0].x.size(), 5u);
  EXPECT_EQ(f.series[0].y_lo.size(), 5u);
  EXPECT_LE(f.series[0].y_lo[0], f.series[0].y[0]);
  // Best CPU: 0.001, 0.003, 0.009, 0.034, 0.13 vs GPU 0.05, 0.052, 0.06, 0.07, 0.1: the GPU first wins at
  // 256K, after losing at 64K (0.07 > 0.034); the marker lies between 64K and 256K.
  ASSERT_EQ(f.markers.size(), 1u);
  EXPECT_GT(f.markers[0].x, 64.0 * 1024);
  EXPECT_LT(f.markers[0].x, 256.0 * 1024);
  const fig::Figure t = figure_for(r, {Metric::Throughput, false, false, ""});
  EXPECT_FALSE(t.log_x);
  EXPECT_NE(t.y_label.find("GB/s"), std::string::npos);
}

TEST(SweepFigure, CrossoverInterpolation) {
  // ratio gpu/cpu: 4 at x=1, 1/4 at x=3 -> log ratio crosses 0 halfway: x = 2 (linear x).
  EXPECT_NEAR(*find_crossover({1, 3}, {4, 1}, {1, 4}, false), 2.0, 1e-12);
  // GPU faster from the start: no crossover in range; never faster: none.
  EXPECT_FALSE(find_crossover({1, 2}, {1, 1}, {2, 2}, false));
  EXPECT_FALSE(find_crossover({1, 2}, {3, 3}, {2, 2}, false));
  // NaN (a missing CPU point) is skipped.
  EXPECT_NEAR(*find_crossover({1, 2, 4}, {4, 3, 1}, {1, NAN, 4}, true), 2.0, 1e-9);
}

TEST(SweepFigure, TwoNumericParamsGiveHeatmapOfTheGpuSeries) {
  Result r;
  r.definition = sample_definition();
  r.definition.params[1].values = {"1", "2"};
  double v = 1;
  for (const auto& bx : r.definition.params[0].values)
    for (const auto& by : r.definition.params[1].values) {
      Point p;
      p.values = {bx, by};
      SeriesResult cpu, gpu;
      cpu.name = "CPU, 1 thread";
      cpu.time_ms = {100};
      gpu.name = "GPU stencil";
      gpu.gpu = true;
      gpu.time_ms = {v++};
      cpu.throughput = gpu.throughput = {1};
      cpu.summarize();
      gpu.summarize();
      p.series = {cpu, gpu};
      r.points.push_back(p);
    }
  const fig::Figure f = figure_for(r);
  EXPECT_EQ(f.kind, fig::Kind::Heatmap);
  EXPECT_NE(f.title.find("GPU stencil"), std::string::npos);
  ASSERT_EQ(f.heatmap.values.size(), 8u);
  EXPECT_EQ(f.heatmap.x_values, r.definition.params[0].values);
  // Row = block.y, column = block.x: (bx=64, by=1) was the third point -> 3.
  EXPECT_EQ(f.heatmap.values[0 * 4 + 1], 3);
  EXPECT_FALSE(f.heatmap.higher_is_better);
}

TEST(SweepFigure, CategoricalParamGivesBars) {
  Result r;
  r.definition.lab = "matmul";
  r.definition.params = {{"variant", {"naive_coalesced", "cublas"}}};
  for (const auto& name : r.definition.params[0].values) {
    Point p;
    p.values = {name};
    SeriesResult s;
    s.name = name;
    s.gpu = true;
    s.time_ms = {2, 1, 3};
    s.throughput = {1, 2, 3};
    s.summarize();
    p.series = {s};
    r.points.push_back(p);
  }
  const fig::Figure f = figure_for(r);
  EXPECT_EQ(f.kind, fig::Kind::Bars);
  ASSERT_EQ(f.bars.size(), 2u);
  EXPECT_EQ(f.bars[1].label, "cublas");  // the series is the variant itself: named once
  EXPECT_EQ(f.bars[0].value, 2);
  // A numeric and a categorical parameter: lines split by category.
  r.definition.params = {{"size", {"256", "512"}}, {"variant", {"naive_coalesced", "cublas"}}};
  r.points.clear();
  for (const auto& size : r.definition.params[0].values)
    for (const auto& name : r.definition.params[1].values) {
      Point p;
      p.values = {size, name};
      SeriesResult s;
      s.name = name;
      s.gpu = true;
      s.time_ms = {1};
      s.throughput = {1};
      s.summarize();
      p.series = {s};
      r.points.push_back(p);
    }
  const fig::Figure g = figure_for(r);
  EXPECT_EQ(g.kind, fig::Kind::Lines);
  EXPECT_EQ(g.series.size(), 2u);  // (variant, series) pairs that have data
}

}  // namespace
}  // namespace bs::sweep

namespace bs::sweep {
namespace {

// Every shipped preset's sweep must pass the same validation a user's sweep does.
TEST(SweepPresets, EveryPresetSweepIsValid) {
  const std::filesystem::path dir = std::filesystem::path(BS_SOURCE_DIR) / "assets" / "presets";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no presets at " << dir;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream f(entry.path());
    const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << entry.path();
    if (!j.contains("sweep") || j["sweep"].is_null()) continue;
    EXPECT_NO_THROW(validate(definition_from_json(j["sweep"]))) << entry.path();
    ++checked;
  }
  std::printf("%d preset sweeps checked\n", checked);
}

}  // namespace
}  // namespace bs::sweep
