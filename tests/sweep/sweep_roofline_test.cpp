// sweep_roofline_test.cpp: the roofline as a sweep figure. A real CPU sweep (this machine may have no GPU)
// under CPU ceilings measured quickly: one point per series and point at the model intensity counted by hand
// here; a target without a work model refuses the kind; a series without a model and missing ceilings are
// named, never made up; the files (SVG, CSV, JSON, record) and `blockscope sweep/replay --metric roofline`.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/sweep/record.h"
#include "app/sweep/roofline.h"
#include "app/sweep/sweep.h"
#include "core/error.h"
#include "run_util.h"
#include "sweep_files.h"

namespace bs::sweep {
namespace {

namespace fs = std::filesystem;

using test::read_json;

fs::path out_dir(const std::string& name) {
  return test::fresh_out_dir("sweep_roofline", name);
}

// Small, quick CPU ceilings (the cache's full measurement takes longer; the numbers only scale the roof).
const roofline::Ceilings& cpu_ceilings() {
  static const roofline::Ceilings c = roofline::measure_cpu(size_t{16} << 20, 0.05);
  return c;
}

// A tiny CPU sweep of `lab` over size.
Definition cpu_sweep(const std::string& lab, std::vector<std::string> sizes,
                     std::map<std::string, std::string> fixed = {}) {
  Definition d;
  d.lab = lab;
  d.params = {{"size", std::move(sizes)}};
  d.fixed = std::move(fixed);
  d.warmup = 1;
  d.repetitions = 2;
  d.device = Device::Cpu;
  return d;
}

Definition matmul_cpu() {
  return cpu_sweep("matmul", {"8", "33"});
}

const fig::Series* series_named(const fig::Figure& f, const std::string& label) {
  for (const fig::Series& s : f.series)
    if (s.label == label) return &s;
  return nullptr;
}

TEST(SweepRoofline, CpuSweepPlacesEverySeriesAtEveryPoint) {
  const Definition d = matmul_cpu();
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  ASSERT_EQ(r.points.size(), 2u);
  FigureOptions opt;
  opt.metric = Metric::Roofline;
  opt.cpu_ceilings = cpu_ceilings();
  const fig::Figure f = figure_for(r, opt);
  EXPECT_EQ(f.kind, fig::Kind::Lines);
  EXPECT_TRUE(f.log_x && f.log_y);
  EXPECT_NE(f.title.find("matmul: roofline"), std::string::npos) << f.title;
  EXPECT_NE(f.subtitle.find(cpu_ceilings().device), std::string::npos) << f.subtitle;
  EXPECT_EQ(f.subtitle.find("missing"), std::string::npos) << f.subtitle;
  // By hand: an n x n x n multiply does 2n^3 FLOPs and reads A and B and writes C once, 3 * 4n^2 bytes:
  // n / 6 FLOP per byte (8: 1.333, 33: 5.5).
  const double intensity[] = {8.0 / 6.0, 33.0 / 6.0};
  size_t points = 0;
  for (size_t i = 0; i < r.points.size(); ++i)
    for (const SeriesResult& s : r.points[i].series) {
      const fig::Series* fs = series_named(f, s.name);
      ASSERT_NE(fs, nullptr) << s.name;
      EXPECT_TRUE(fs->points_only);
      ASSERT_EQ(fs->x.size(), r.points.size()) << s.name;
      EXPECT_NEAR(fs->x[i], intensity[i], 1e-9) << s.name;
      const double n = std::stod(r.points[i].values[0]);
      const double gflops = 2 * n * n * n / (s.time.median / 1e3) / 1e9;
      EXPECT_NEAR(fs->y[i], gflops, 1e-9 * gflops) << s.name;
      EXPECT_NE(fs->point_labels[i].find("size=" + r.points[i].values[0]), std::string::npos)
          << fs->point_labels[i];
      EXPECT_NE(fs->point_labels[i].find("% of the"), std::string::npos) << fs->point_labels[i];
      ++points;
    }
  EXPECT_GE(points, 4u);  // at least two CPU variants at both points
}

TEST(SweepRoofline, HeatPointsSitAtSevenFlopsPerEightBytes) {
  JobControl ctl;
  const Result r = run_sweep(cpu_sweep("heat", {"16", "40"}, {{"steps", "2"}}), ctl);
  FigureOptions opt;
  opt.metric = Metric::Roofline;
  opt.cpu_ceilings = cpu_ceilings();
  const roofline::Chart ch = roofline_chart(r, target_of("heat"), opt);
  size_t expected = 0;
  for (const Point& p : r.points)
    expected += p.series.size();
  ASSERT_EQ(ch.runs.size(), expected);
  for (const work::RunRecord& run : ch.runs) {
    EXPECT_DOUBLE_EQ(run.work.intensity(), 7.0 / 8.0) << run.label;  // 7 FLOPs, 4 B read + 4 B written
    EXPECT_EQ(run.where, work::Where::Cpu);
  }
}

// A lab whose target has no work model: the roofline is refused with a message naming it.
class NoModelTarget final : public Target {
 public:
  const char* lab() const override { return "stand-in"; }
  std::span<const ParamSpec> params() const override { return m_specs; }
  const char* unit() const override { return "items/s"; }
  const char* time_label() const override { return "time (ms)"; }
  void validate(const Values&) const override {}
  double work(const Values&) const override { return 1; }
  PointRun run(const Values&, const RunSettings& s, JobControl& ctl) const override {
    PointRun p;
    p.series.push_back({"CPU", false, collect_samples(s.warmup, s.repetitions, ctl, [] { return 1.0; }), {}});
    p.series.back().throughput = p.series.back().time_ms;
    return p;
  }

 private:
  std::vector<ParamSpec> m_specs{{"size", "1", "1,2", "items"}};
};

TEST(SweepRoofline, TargetWithoutWorkModelIsRefused) {
  const NoModelTarget t;
  const std::string why = roofline_refusal(t);
  EXPECT_NE(why.find("lab stand-in has none"), std::string::npos) << why;
  EXPECT_NE(why.find("work model"), std::string::npos) << why;
  EXPECT_NE(why.find("heat"), std::string::npos) << "names the labs that have one: " << why;
  EXPECT_THROW(check_roofline(t), InvalidRequest);
  EXPECT_NO_THROW(check_roofline(target_of("heat")));
  for (const std::string& lab : lab_names())
    EXPECT_TRUE(target_of(lab).has_work_model()) << lab;

  JobControl ctl;
  const Result r = run_sweep_with(t, cpu_sweep("stand-in", {"1", "2"}), ctl);
  FigureOptions opt;
  opt.metric = Metric::Roofline;
  opt.cpu_ceilings = cpu_ceilings();
  const fig::Figure f = roofline_figure(r, t, opt);
  EXPECT_EQ(f.subtitle, why);
  for (const fig::Series& s : f.series)
    EXPECT_FALSE(s.points_only) << "no run is placed: " << s.label;
}

TEST(SweepRoofline, MissingCeilingsAndUnmodelledSeriesAreNamed) {
  // A vector sweep as a GPU machine returns it: the kernel has a model, the time with PCIe copies has none.
  Result r;
  r.definition.lab = "vector";
  r.definition.params = {{"size", {"1M"}}};
  r.gpu_name = "Some GPU";
  Point p;
  p.values = {"1M"};
  for (const char* name : {"GPU kernel", "GPU incl. copies"}) {
    SeriesResult s{name, true, {0.01, 0.02, 0.03}, {1, 1, 1}, {}, {}};
    s.summarize();
    p.series.push_back(s);
  }
  r.points.push_back(p);
  FigureOptions opt;
  opt.metric = Metric::Roofline;
  std::vector<std::string> unmodelled;
  const roofline::Chart ch = roofline_chart(r, target_of("vector"), opt, &unmodelled);
  ASSERT_EQ(ch.runs.size(), 1u);
  EXPECT_EQ(ch.runs[0].variant, "GPU kernel");
  // c = a + b: 1 FLOP per element over 12 bytes.
  EXPECT_DOUBLE_EQ(ch.runs[0].work.intensity(), 1.0 / 12.0);
  EXPECT_EQ(unmodelled, std::vector<std::string>{"GPU incl. copies"});
  const fig::Figure f = figure_for(r, opt);
  EXPECT_NE(f.subtitle.find("GPU ceilings missing"), std::string::npos) << f.subtitle;
  EXPECT_NE(f.subtitle.find("no work model for GPU incl. copies"), std::string::npos) << f.subtitle;
  for (const fig::Series& s : f.series)
    EXPECT_TRUE(s.points_only) << "no roof is drawn without ceilings: " << s.label;
}

TEST(SweepRoofline, ExportsWriteTheTableAndTheRecordNamesTheKind) {
  const Definition d = matmul_cpu();
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  record::ExportRequest req;
  req.png = false;  // PNG needs GL: the CLI test below asks for it where a headless context exists
  req.figure.metric = Metric::Roofline;
  req.figure.cpu_ceilings = cpu_ceilings();
  req.render_path = "test";
  const fs::path dir = out_dir("export");
  const record::ExportOutcome o = record::write_exports(r, dir.string(), req, false);
  EXPECT_TRUE(o.ok()) << o.errors.front();
  for (const char* f : {"sweep.csv", "summary.csv", "sweep.json", "roofline.csv", "roofline.json",
                        "figure.svg", "record.json"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const nlohmann::json rec = read_json(dir / "record.json");
  EXPECT_EQ(rec["export"]["metric"], "roofline");
  EXPECT_EQ(rec["roofline_ceilings"]["cpu"]["device"], cpu_ceilings().device);
  const nlohmann::json table = read_json(dir / "roofline.json");
  size_t runs = 0;
  for (const Point& p : r.points)
    runs += p.series.size();
  EXPECT_EQ(table["runs"].size(), runs);
  EXPECT_NEAR(table["runs"][0]["model_intensity"].get<double>(), 8.0 / 6.0, 1e-9);
  std::ifstream svg(dir / "figure.svg");
  std::stringstream ss;
  ss << svg.rdbuf();
  EXPECT_NE(ss.str().find("roofline"), std::string::npos);
  const record::Loaded l = record::load_record((dir / "record.json").string());
  EXPECT_EQ(l.request.figure.metric, Metric::Roofline);
}

TEST(SweepRoofline, CliSweepAndReplayNameTheKind) {
  const fs::path out = out_dir("cli"), again = out_dir("cli-replay");
  const fs::path cache = out_dir("cache");
  // A quick CPU measurement in the cache the command reads, so it need not measure at full size.
  fs::create_directories(cache);
  std::string err;
  ASSERT_TRUE(
      roofline::write_cache(roofline::cache_path(cache.string(), roofline::cpu_key()), cpu_ceilings(), &err))
      << err;
  const std::string common = " --cache-dir " + cache.string();
  const test::RunResult r = test::run_blockscope(
      "sweep heat --param size=16,40 --fixed steps=2 --device cpu --reps 2 --warmup 0 --metric roofline "
      "--png 320x200 --out " +
      out.string() + common);
  ASSERT_TRUE(r.exit_code == 0 || r.output.find("figure.png skipped") != std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CPU ceilings"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("from the cache"), std::string::npos) << r.output;
  for (const char* f : {"roofline.csv", "roofline.json", "figure.svg", "record.json"})
    EXPECT_TRUE(fs::exists(out / f)) << f << "\n" << r.output;
  EXPECT_EQ(read_json(out / "record.json")["export"]["metric"], "roofline");

  const test::RunResult rp =
      test::run_blockscope("replay " + (out / "record.json").string() + " --out " + again.string() + common);
  ASSERT_TRUE(rp.exit_code == 0 || rp.output.find("figure.png skipped") != std::string::npos) << rp.output;
  EXPECT_EQ(read_json(again / "record.json")["export"]["metric"], "roofline");
  EXPECT_TRUE(fs::exists(again / "roofline.json"));

  const test::RunResult bad = test::run_blockscope(
      "sweep heat --param size=16 --device cpu --metric roof --out " + out_dir("bad").string());
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--metric: 'roof' is not time, throughput or roofline"), std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace bs::sweep
